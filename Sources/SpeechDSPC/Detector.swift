// sdsp_detector_*: speech, music and several-speaker segments of a stream, through the same
// conditioning (StreamConditioner: downmix, 16 kHz, delay trimmed) and AnalysisChain that
// dspscore and SpeechFrontEnd run.

import CSpeechDSP
import DSPCore
import DSPDetection

/// One stream's detection: conditioner → chain, the segment boundaries kept for the segments
/// call. Behind an opaque `sdsp_detector *`.
final class DetectorHandle {
    let gate = HandleGate()
    let conditioner: StreamConditioner
    let chain: AnalysisChain
    /// Input samples per block, and the block's conditioned samples and events.
    let blockCount: Int
    var conditioned: UnsafeMutableBufferPointer<Float>
    var events: UnsafeMutableBufferPointer<AnalysisEvent>
    /// The stream's segment boundaries so far.
    var boundaries: [AnalysisEvent] = []
    /// The finished stream's segments (nil while a stream runs).
    var segments: [ActivitySegment]?

    init(sampleRate: Int, channelCount: Int, flags: UInt32) throws(ConfigurationError) {
        var detector = AcousticDetector.Configuration()
        detector.detectsMusic = flags & 1 != 0
        detector.detectsMultipleSpeakers = flags & 2 != 0
        if flags & 4 != 0 { detector.speechBoundaries = nil }
        chain = try AnalysisChain(configuration: .init(detector: detector, environment: nil))
        conditioner = try StreamConditioner(configuration: .init(
            inputRate: sampleRate, channelCount: channelCount, outputRate: chain.sampleRate))
        blockCount = 65_536 * channelCount
        let samples = Swift.max(conditioner.outputCapacity(forInputCount: blockCount), conditioner.maxFlushOutputCount)
        conditioned = .allocate(capacity: samples)
        events = .allocate(capacity: Swift.max(chain.maxOutputCount(forInputCount: samples), chain.maxFlushOutputCount))
    }

    deinit {
        conditioned.deallocate()
        events.deallocate()
    }

    func process(_ input: UnsafeBufferPointer<Float>) throws(ABIFailure) {
        if segments != nil {  // a new stream after a finished one
            segments = nil
            boundaries.removeAll()
        }
        var offset = 0
        while offset < input.count {
            let n = Swift.min(blockCount, input.count - offset)
            let result = conditioner.process(UnsafeBufferPointer(rebasing: input[offset..<offset + n]), into: conditioned)
            guard result.consumed == n else {
                throw ABIFailure(status: SDSP_ERROR_INTERNAL, message: "conditioner took \(result.consumed) of \(n) samples")
            }
            try analyze(UnsafeBufferPointer(rebasing: conditioned[..<result.produced]))
            offset += n
        }
    }

    func finish() throws(ABIFailure) -> AnalysisChain.Summary {
        let produced = conditioner.flush(into: conditioned)
        try analyze(UnsafeBufferPointer(rebasing: conditioned[..<produced]))
        take(events[..<chain.flush(into: events)])
        segments = ActivitySegment.segments(from: boundaries)
        boundaries.removeAll()
        return chain.finalize()
    }

    private func analyze(_ samples: UnsafeBufferPointer<Float>) throws(ABIFailure) {
        var offset = 0
        while offset < samples.count {
            let result = chain.process(UnsafeBufferPointer(rebasing: samples[offset...]), into: events)
            guard result.consumed > 0 else {
                throw ABIFailure(status: SDSP_ERROR_INTERNAL, message: "analysis chain made no progress")
            }
            take(events[..<result.produced])
            offset += result.consumed
        }
    }

    private func take(_ new: UnsafeMutableBufferPointer<AnalysisEvent>.SubSequence) {
        for event in new {
            if case .environment = event { continue }
            boundaries.append(event)
        }
    }
}

/// The handle behind `pointer`.
func detector(_ pointer: OpaquePointer?) throws(ABIFailure) -> DetectorHandle {
    guard let pointer else { throw .nullPointer("detector") }
    return Unmanaged<DetectorHandle>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
}

/// Runs `body` on the handle behind `pointer`, one caller at a time.
func withDetector(_ pointer: OpaquePointer?, _ body: (DetectorHandle) throws(ABIFailure) -> Void) -> sdsp_status {
    abiCall { () throws(ABIFailure) in
        let handle = try detector(pointer)
        try handle.gate.enter("detector")
        defer { handle.gate.leave() }
        try body(handle)
    }
}

@_cdecl("sdsp_detector_create")
public func sdspDetectorCreate(
    _ sampleRate: Int32, _ channelCount: Int32, _ flags: UInt32, _ result: UnsafeMutablePointer<OpaquePointer?>?
) -> sdsp_status {
    abiCall { () throws(ABIFailure) in
        let out = try required(result, "detector")
        out.pointee = nil
        guard (1...64).contains(channelCount) else {
            throw .invalidArgument("channel_count \(channelCount) is out of range (expected 1…64)")
        }
        guard flags & ~7 == 0 else { throw .invalidArgument("flags 0x\(String(flags, radix: 16)) hold bits other than SDSP_DETECT_*") }
        let handle = try configured { () throws(ConfigurationError) in
            try DetectorHandle(sampleRate: Int(sampleRate), channelCount: Int(channelCount), flags: flags)
        }
        out.pointee = OpaquePointer(Unmanaged.passRetained(handle).toOpaque())
    }
}

@_cdecl("sdsp_detector_process")
public func sdspDetectorProcess(_ pointer: OpaquePointer?, _ input: UnsafePointer<Float>?, _ count: Int64) -> sdsp_status {
    withDetector(pointer) { handle throws(ABIFailure) in
        try handle.process(try inputBuffer(input, count, "input"))
    }
}

@_cdecl("sdsp_detector_finish")
public func sdspDetectorFinish(_ pointer: OpaquePointer?, _ result: UnsafeMutablePointer<sdsp_detection_summary>?) -> sdsp_status {
    withDetector(pointer) { handle throws(ABIFailure) in
        let detection = try handle.finish().detection
        var summary = sdsp_detection_summary()
        summary.duration_seconds = detection.durationSeconds
        summary.sample_count = detection.sampleCount
        summary.speech_ratio = detection.speechRatio
        summary.music_ratio = detection.musicRatio
        summary.multi_speaker_ratio = detection.multiSpeakerRatio
        summary.speech_seconds = detection.speechSeconds
        summary.music_seconds = detection.musicSeconds
        summary.multi_speaker_seconds = detection.multiSpeakerSeconds
        summary.speech_segment_count = Int64(detection.speechSegmentCount)
        summary.music_segment_count = Int64(detection.musicSegmentCount)
        summary.multi_speaker_segment_count = Int64(detection.multiSpeakerSegmentCount)
        summary.noise_floor_dbfs = Double(detection.medianNoiseFloorDBFS)
        result?.pointee = summary
    }
}

@_cdecl("sdsp_detector_segments")
public func sdspDetectorSegments(
    _ pointer: OpaquePointer?, _ output: UnsafeMutablePointer<sdsp_segment>?, _ capacity: Int64,
    _ total: UnsafeMutablePointer<Int64>?
) -> sdsp_status {
    withDetector(pointer) { handle throws(ABIFailure) in
        let destination = try outputBuffer(output, capacity, "segments")
        guard let segments = handle.segments else {
            throw ABIFailure(status: SDSP_ERROR_INVALID_STATE, message: "the detector's stream is not finished (call sdsp_detector_finish first)")
        }
        for (i, segment) in segments.prefix(destination.count).enumerated() {
            var record = sdsp_segment()
            record.activity = Int32(segment.activity.rawValue)
            record.start_sample = segment.startSample
            record.end_sample = segment.endSample
            destination[i] = record
        }
        total?.pointee = Int64(segments.count)
    }
}

@_cdecl("sdsp_detector_destroy")
public func sdspDetectorDestroy(_ pointer: OpaquePointer?) {
    guard let pointer else { return }
    Unmanaged<DetectorHandle>.fromOpaque(UnsafeRawPointer(pointer)).release()
}
