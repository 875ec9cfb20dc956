// sdsp_frontend_*: one live stream through DSPPipeline's SpeechFrontEnd, its hot tier on the
// caller's PCM buffer, its events copied into the caller's sdsp_event array.

import CSpeechDSP
import DSPCore
import DSPDetection
import DSPPipeline

/// One stream's front end and the event buffer its calls fill (grown only when a call offers
/// more room than any before). Behind an opaque `sdsp_frontend *`.
final class FrontEndHandle {
    let gate = HandleGate()
    let frontEnd: SpeechFrontEnd
    var events: FrontEndEventBuffer

    init(configuration: SpeechFrontEnd.Configuration) throws(ConfigurationError) {
        frontEnd = try SpeechFrontEnd(configuration: configuration)
        events = FrontEndEventBuffer(capacity: frontEnd.bufferSizes(forMaxInputCount: 4096).eventCapacity)
    }

    /// An event buffer holding at least `capacity` events.
    func events(capacity: Int) -> FrontEndEventBuffer {
        if capacity > events.capacity { events = FrontEndEventBuffer(capacity: capacity) }
        return events
    }

    /// Copies the held events into `destination`; returns (written, dropped), the events that
    /// did not fit in either buffer counted as dropped.
    func copyEvents(into destination: UnsafeMutableBufferPointer<sdsp_event>) -> (written: Int, dropped: Int) {
        let written = Swift.min(events.count, destination.count)
        for i in 0..<written { destination[i] = sdsp_event(events[i]) }
        return (written, events.droppedCount + events.count - written)
    }
}

extension sdsp_event {
    /// The C record of `event`.
    init(_ event: FrontEndEvent) {
        self.init()
        activity = SDSP_ACTIVITY_NONE
        let time = event.time
        input_frame = time.inputFrame
        output_sample = time.outputSample
        seconds = time.seconds
        switch event {
        case .started(let what, _):
            kind = SDSP_EVENT_STARTED
            activity = Int32(what.rawValue)
        case .ended(let what, _):
            kind = SDSP_EVENT_ENDED
            activity = Int32(what.rawValue)
        case .clipping(let report):
            kind = SDSP_EVENT_CLIPPING
            frame_count = Int64(report.frameCount)
            clipped_samples = Int64(report.clippedSampleCount)
            non_finite_samples = Int64(report.nonFiniteSampleCount)
        case .levels(let report):
            kind = SDSP_EVENT_LEVELS
            sample_count = Int64(report.sampleCount)
            rms_dbfs = report.rmsDBFS
            peak_dbfs = report.peakDBFS
            momentary_lufs = report.momentaryLUFS
            short_term_lufs = report.shortTermLUFS
        case .environment(let m, _):
            kind = SDSP_EVENT_ENVIRONMENT
            window_seconds = m.windowSeconds
            noise_dbfs = m.noiseDBFS
            noise_level_db = m.noiseLevelDB
            speech_dbfs = m.speechDBFS
            speech_to_noise_db = m.speechToNoiseDB ?? .nan
            speech_fraction = m.speechFraction
            music_fraction = m.musicFraction
            multi_speaker_fraction = m.multiSpeakerFraction
            speech_clarity = m.speechClarity
            frequency_complexity = m.frequencyComplexity
            rt60_seconds = m.rt60Seconds ?? .nan
            c50_db = m.c50DB ?? .nan
            noise_category = Int32(m.noiseCategory.rawValue)
            noise_source = Int32(m.noiseSource.rawValue)
            category_noise_level = Int32(m.categoryNoiseLevel)
            music_detected = m.musicDetected ? 1 : 0
            multiple_speakers_detected = m.multipleSpeakersDetected ? 1 : 0
            recommendation = Int32(m.recommendation.rawValue)
            preferred_recommendation = Int32(m.preferredRecommendation.rawValue)
        }
    }
}

extension sdsp_frontend_summary {
    /// The C record of `summary`.
    init(_ summary: FrontEndSummary) {
        self.init()
        input_frame_count = summary.inputFrameCount
        output_sample_count = summary.outputSampleCount
        duration_seconds = summary.durationSeconds
        clipped_samples = Int64(summary.clippedSampleCount)
        non_finite_samples = Int64(summary.nonFiniteSampleCount)
        integrated_lufs = summary.loudness?.integratedLUFS ?? .nan
        loudness_range_lu = summary.loudness?.loudnessRangeLU ?? .nan
        noise_floor_dbfs = .nan
        if let detection = summary.detection {
            has_detection = 1
            speech_ratio = detection.speechRatio
            music_ratio = detection.musicRatio
            multi_speaker_ratio = detection.multiSpeakerRatio
            speech_seconds = detection.speechSeconds
            speech_segment_count = Int64(detection.speechSegmentCount)
            noise_floor_dbfs = Double(detection.medianNoiseFloorDBFS)
        }
    }
}

/// The Swift configuration of a C one, refusing what the C fields cannot mean.
func frontEndConfiguration(_ c: sdsp_frontend_config) throws(ABIFailure) -> SpeechFrontEnd.Configuration {
    guard c.stages & ~UInt32(SpeechFrontEnd.Stages.all.rawValue) == 0 else {
        throw .invalidArgument("stages 0x\(String(c.stages, radix: 16)) hold bits other than SDSP_STAGE_*")
    }
    guard c.clip_threshold.isFinite, c.clip_threshold > 0 else {
        throw ABIFailure(
            status: SDSP_ERROR_UNSUPPORTED_CONFIGURATION, message: "clip_threshold \(c.clip_threshold) is out of range (expected finite, > 0)")
    }
    guard c.downmix_channel >= -1 else {
        throw .invalidArgument("downmix_channel \(c.downmix_channel) is out of range (expected -1 for the average, or a channel index)")
    }
    var detector = AcousticDetector.Configuration()
    if c.speech_blend == 0 { detector.speechBlend = nil }
    detector.gatesPureTones = c.pure_tone_gate != 0
    detector.detectsMusic = c.detects_music != 0
    detector.detectsMultipleSpeakers = c.detects_multiple_speakers != 0
    detector.speechSegments = .init(
        onThreshold: c.speech_on_threshold, offThreshold: c.speech_off_threshold, minimumActiveSeconds: c.speech_min_seconds,
        hangoverSeconds: c.speech_hangover_seconds, paddingSeconds: c.speech_padding_seconds,
        endThreshold: c.speech_end_threshold.isNaN ? nil : c.speech_end_threshold)
    detector.speechBlendWarmUpSeconds = c.speech_blend_warm_up_seconds
    if c.speech_boundaries == 0 { detector.speechBoundaries = nil }
    return SpeechFrontEnd.Configuration(
        inputRate: Int(c.input_rate), channelCount: Int(c.channel_count),
        downmix: c.downmix_channel < 0 ? .average : .channel(Int(c.downmix_channel)),
        stages: SpeechFrontEnd.Stages(rawValue: Int(c.stages)), resamplerQuality: try quality(c.resampler_quality),
        clipThreshold: c.clip_threshold, clipWindowMilliseconds: Int(c.clip_window_ms),
        emitsLevelEvents: c.emits_level_events != 0, detector: detector, detectionHopsPerBatch: Int(c.detection_hops_per_batch))
}

/// The handle behind `pointer`.
func frontEnd(_ pointer: OpaquePointer?) throws(ABIFailure) -> FrontEndHandle {
    guard let pointer else { throw .nullPointer("frontend") }
    return Unmanaged<FrontEndHandle>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
}

/// Runs `body` on the handle behind `pointer`, one caller at a time.
func withFrontEnd(_ pointer: OpaquePointer?, _ body: (FrontEndHandle) throws(ABIFailure) -> Void) -> sdsp_status {
    abiCall { () throws(ABIFailure) in
        let handle = try frontEnd(pointer)
        try handle.gate.enter("front end")
        defer { handle.gate.leave() }
        try body(handle)
    }
}

@_cdecl("sdsp_frontend_config_default")
public func sdspFrontEndConfigDefault(_ inputRate: Int32, _ channelCount: Int32) -> sdsp_frontend_config {
    let defaults = SpeechFrontEnd.Configuration(inputRate: Int(inputRate), channelCount: Int(channelCount))
    var c = sdsp_frontend_config()
    c.input_rate = inputRate
    c.channel_count = channelCount
    c.stages = UInt32(defaults.stages.rawValue)
    c.resampler_quality = SDSP_QUALITY_DEFAULT
    c.clip_threshold = defaults.clipThreshold
    c.clip_window_ms = Int32(defaults.clipWindowMilliseconds)
    c.emits_level_events = defaults.emitsLevelEvents ? 1 : 0
    c.downmix_channel = -1
    c.detection_hops_per_batch = Int32(defaults.detectionHopsPerBatch)
    let detector = defaults.detector
    c.speech_blend = detector.speechBlend == nil ? 0 : 1
    c.pure_tone_gate = detector.gatesPureTones ? 1 : 0
    c.detects_music = detector.detectsMusic ? 1 : 0
    c.detects_multiple_speakers = detector.detectsMultipleSpeakers ? 1 : 0
    let speech = detector.speechSegments
    c.speech_on_threshold = speech.onThreshold
    c.speech_off_threshold = speech.offThreshold
    c.speech_end_threshold = speech.endThreshold ?? .nan
    c.speech_min_seconds = speech.minimumActiveSeconds
    c.speech_hangover_seconds = speech.hangoverSeconds
    c.speech_padding_seconds = speech.paddingSeconds
    c.speech_blend_warm_up_seconds = detector.speechBlendWarmUpSeconds
    c.speech_boundaries = detector.speechBoundaries == nil ? 0 : 1
    return c
}

@_cdecl("sdsp_frontend_create")
public func sdspFrontEndCreate(
    _ config: UnsafePointer<sdsp_frontend_config>?, _ result: UnsafeMutablePointer<OpaquePointer?>?
) -> sdsp_status {
    abiCall { () throws(ABIFailure) in
        let out = try required(result, "frontend")
        out.pointee = nil
        guard let config else { throw .nullPointer("config") }
        let configuration = try frontEndConfiguration(config.pointee)
        let handle = try configured { () throws(ConfigurationError) in try FrontEndHandle(configuration: configuration) }
        out.pointee = OpaquePointer(Unmanaged.passRetained(handle).toOpaque())
    }
}

@_cdecl("sdsp_frontend_buffer_sizes")
public func sdspFrontEndBufferSizes(
    _ pointer: OpaquePointer?, _ maxInputCount: Int64, _ outputCapacity: UnsafeMutablePointer<Int64>?,
    _ eventCapacity: UnsafeMutablePointer<Int64>?
) -> sdsp_status {
    abiCall { () throws(ABIFailure) in
        let handle = try frontEnd(pointer)  // reads only the configuration: no gate needed
        guard maxInputCount >= 0, maxInputCount <= Int64(1) << 40 else {
            throw .invalidArgument("max_input_count \(maxInputCount) is out of range (expected 0…2^40)")
        }
        let sizes = handle.frontEnd.bufferSizes(forMaxInputCount: Int(maxInputCount))
        outputCapacity?.pointee = Int64(sizes.outputCapacity)
        eventCapacity?.pointee = Int64(sizes.eventCapacity)
    }
}

@_cdecl("sdsp_frontend_process")
public func sdspFrontEndProcess(
    _ pointer: OpaquePointer?, _ input: UnsafePointer<Float>?, _ count: Int64, _ output: UnsafeMutablePointer<Int16>?,
    _ outputCapacity: Int64, _ events: UnsafeMutablePointer<sdsp_event>?, _ eventCapacity: Int64,
    _ result: UnsafeMutablePointer<sdsp_frontend_result>?
) -> sdsp_status {
    withFrontEnd(pointer) { handle throws(ABIFailure) in
        let samples = try inputBuffer(input, count, "input")
        let pcm = try outputBuffer(output, outputCapacity, "output")
        let destination = try outputBuffer(events, eventCapacity, "events")
        let done = handle.frontEnd.process(samples, into: pcm, events: handle.events(capacity: destination.count))
        let copied = handle.copyEvents(into: destination)
        var record = sdsp_frontend_result()
        record.consumed = Int64(done.consumed)
        record.produced = Int64(done.produced)
        record.events = Int64(copied.written)
        record.dropped_events = Int64(copied.dropped)
        result?.pointee = record
    }
}

@_cdecl("sdsp_frontend_flush")
public func sdspFrontEndFlush(
    _ pointer: OpaquePointer?, _ output: UnsafeMutablePointer<Int16>?, _ outputCapacity: Int64,
    _ events: UnsafeMutablePointer<sdsp_event>?, _ eventCapacity: Int64, _ result: UnsafeMutablePointer<sdsp_frontend_result>?,
    _ summary: UnsafeMutablePointer<sdsp_frontend_summary>?
) -> sdsp_status {
    withFrontEnd(pointer) { handle throws(ABIFailure) in
        let pcm = try outputBuffer(output, outputCapacity, "output")
        let destination = try outputBuffer(events, eventCapacity, "events")
        let needed = handle.frontEnd.maxFlushOutputCount
        guard pcm.count >= needed else {
            throw ABIFailure(
                status: SDSP_ERROR_BUFFER_TOO_SMALL,
                message: "output capacity \(outputCapacity) is smaller than the flush's bound of \(needed) samples")
        }
        let done = handle.frontEnd.flush(into: pcm, events: handle.events(capacity: destination.count))
        let copied = handle.copyEvents(into: destination)
        var record = sdsp_frontend_result()
        record.produced = Int64(done.produced)
        record.events = Int64(copied.written)
        record.dropped_events = Int64(copied.dropped)
        result?.pointee = record
        summary?.pointee = sdsp_frontend_summary(done.summary)
    }
}

@_cdecl("sdsp_frontend_reset")
public func sdspFrontEndReset(_ pointer: OpaquePointer?) -> sdsp_status {
    withFrontEnd(pointer) { handle throws(ABIFailure) in handle.frontEnd.reset() }
}

@_cdecl("sdsp_frontend_latency_seconds")
public func sdspFrontEndLatencySeconds(_ pointer: OpaquePointer?) -> Double {
    guard let pointer else { return .nan }
    return Unmanaged<FrontEndHandle>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue().frontEnd.latencySeconds
}

@_cdecl("sdsp_frontend_destroy")
public func sdspFrontEndDestroy(_ pointer: OpaquePointer?) {
    guard let pointer else { return }
    Unmanaged<FrontEndHandle>.fromOpaque(UnsafeRawPointer(pointer)).release()
}
