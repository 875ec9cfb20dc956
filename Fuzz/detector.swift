// Fuzz target `detector`: bytes → an AcousticDetector configuration (music and multi-speaker
// detection on or off, smoothing, silence floor, and half the time a DetectionNetwork whose
// shape and weights come from the bytes: lanes, 0–2 convolutions, GRU width, weights up to
// ±1e30) and a mono stream (NaN, ±Inf, −0, denormals, ±1e38, tones above full scale) → the
// stream twice through one detector: one push with one batch size, then random pushes (0 …
// 4999 samples) with another, each ended by flush. Checks the detector's documented promises:
// every frame is the same bit for bit whatever the batch size and the push sizes (features,
// probabilities, decisions, segment changes), so is the end of the stream (segment ends, the
// summary); a flushed detector behaves as a new one; every probability lies in 0…1, and on a
// frame whose window held a NaN or ±Inf (silence for the models) none rises. Nothing crashes,
// hangs or leaks.
// Run: scripts/fuzz.sh detector SECONDS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import DSPDetection
import DSPSpectral

/// Reads the fuzzer's bytes front to back; zeros once they run out. (`frontend.swift` has the
/// same reader and sample synthesis: `scripts/fuzz.sh` links one source file per target, and
/// `frontend` stays as its 7b52f94 campaign runs it, so the two are not factored out.)
private struct ByteReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    mutating func byte() -> UInt8 {
        defer { index += 1 }
        return index < bytes.count ? bytes[index] : 0
    }
    mutating func uint16() -> Int { Int(byte()) | Int(byte()) << 8 }
    /// A finite weight: mostly within ±4, sometimes ±1e30 or a denormal.
    mutating func weight() -> Float {
        let b = byte()
        switch b & 0xE0 {
        case 0xE0: return b & 1 == 0 ? 1e30 : -1e30
        case 0xC0: return b & 1 == 0 ? .leastNonzeroMagnitude : -0.0
        default: return (Float(b) - 96) / 24
        }
    }
    mutating func weights(_ count: Int) -> [Float] { (0..<count).map { _ in weight() } }
}

/// Detectors by configuration, reused (a flushed detector starts a new stream; building one
/// plans FFTs and compiles models, which would otherwise dominate each run).
private enum Detectors {
    nonisolated(unsafe) static var cache: [(AcousticDetector.Configuration, AcousticDetector)] = []

    static func detector(for configuration: AcousticDetector.Configuration) -> AcousticDetector? {
        if let hit = cache.first(where: { $0.0 == configuration }) { return hit.1 }
        guard let made = try? AcousticDetector(configuration: configuration) else { return nil }
        if cache.count >= 32 { cache.removeFirst() }
        cache.append((configuration, made))
        return made
    }
}

/// `precondition` that prints its message in optimized builds too (which drop it), so that a
/// finding says what failed.
private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        let text = "detector: \(message())\n"
        text.withCString { _ = write(2, $0, strlen($0)) }
        fatalError()
    }
}

/// The lanes a network may read: every ``CueLane`` but the two probabilities.
private let readableLanes = (0..<CueLane.count).filter {
    $0 != CueLane.musicProbability.rawValue && $0 != CueLane.speechProbability.rawValue
}

/// A network of the shape the bytes give; always valid (shapes agree, every value finite).
private func network(_ input: inout ByteReader) -> DetectionNetwork {
    let inputs = 1 + Int(input.byte() % 8)
    let lanes = (0..<inputs).map { _ in readableLanes[input.uint16() % readableLanes.count] }
    var convolutions: [DetectionNetwork.Convolution] = []
    var width = inputs
    for _ in 0..<Int(input.byte() % 3) {
        let taps = 1 + Int(input.byte() % 4), outputs = 1 + Int(input.byte() % 6)
        convolutions.append(.init(width: taps, outputCount: outputs, weights: input.weights(outputs * taps * width), bias: input.weights(outputs)))
        width = outputs
    }
    let hidden = 1 + Int(input.byte() % 6)
    let scale = (0..<inputs).map { _ in Float(1 + Int(input.byte() % 64)) / 8 }
    return DetectionNetwork(
        inputLanes: lanes, inputMean: input.weights(inputs), inputScale: scale, convolutions: convolutions,
        hiddenCount: hidden, recurrentInputWeights: input.weights(3 * hidden * width), recurrentInputBias: input.weights(3 * hidden),
        recurrence: GatedRecurrence(weights: input.weights(3 * hidden * hidden), bias: input.weights(3 * hidden)),
        outputWeights: input.weights(3 * hidden), outputBias: input.weights(3))
}

private let specials: [Float] = [
    .nan, -.nan, .infinity, -.infinity, 0, -0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
    .leastNormalMagnitude, 1e38, -1e38, .greatestFiniteMagnitude, 1, -1, 32767.0 / 32768.0, 0.5,
]

/// What a frame must reproduce under any batch size and push sizes.
private struct FrameRecord: Equatable {
    var startSample: Int64
    var index: Int64
    var validCount: Int
    var isFinite: Bool
    var bits: [UInt32]
    var decisions: [Bool]
    var changes: [ActivitySegmenter.Transition]

    init(_ frame: DetectionFrame) {
        let f = frame.features
        startSample = frame.startSample
        index = f.index
        validCount = f.validCount
        isFinite = f.isFinite
        bits = [f.hopPower, f.framePower, f.centroidHz, f.rolloffHz, f.flatness, f.entropy, f.fluxDB, f.zeroCrossingRate,
                f.harmonicity, f.pitchHz, frame.speechProbability, frame.musicProbability, frame.multiSpeakerProbability]
            .map(\.bitPattern)
        decisions = [frame.isSpeech, frame.isMusic, frame.isMultiSpeaker]
        changes = [frame.speechChange, frame.musicChange, frame.multiSpeakerChange]
    }

    /// The three reported probabilities.
    static func probabilities(_ frame: DetectionFrame) -> [Float] {
        [frame.speechProbability, frame.musicProbability, frame.multiSpeakerProbability]
    }

    /// Every probability within 0…1; on a frame whose window held a NaN or ±Inf (silence for
    /// the models: raw probabilities 0) none rises above the frame before's (smoothing decays).
    static func check(_ frame: DetectionFrame, after previous: [Float]) {
        for (p, before) in zip(probabilities(frame), previous) {
            require(p >= 0 && p <= 1, "probability \(p) outside 0…1 at frame \(frame.features.index)")
            require(frame.features.isFinite || p <= before, "non-finite frame \(frame.features.index): probability \(before) → \(p)")
        }
    }
}

/// The stream's end, comparable.
private struct EndRecord: Equatable {
    var endSample: Int64
    var ends: [Int64?]
    var summary: DetectionSummary
    var noiseBits: UInt32

    init(_ end: DetectionEnd) {
        endSample = end.endSample
        ends = [end.speechEndedAt, end.musicEndedAt, end.multiSpeakerEndedAt]
        summary = end.summary
        noiseBits = end.backgroundNoiseDBFS.bitPattern
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDetector(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var input = ByteReader(bytes: UnsafeBufferPointer(start: data, count: size))
    let options = input.byte()
    var configuration = AcousticDetector.Configuration()
    configuration.detectsMusic = options & 1 != 0
    configuration.detectsMultipleSpeakers = options & 2 != 0
    configuration.speechSmoothing = Float(input.byte() % 100) / 100
    configuration.silenceFloorDBFS = -Float(input.byte() % 121)
    if options & 4 != 0 { configuration.network = network(&input) }
    let batches = (1 + Int(options >> 3) % 4, 1 + Int(options >> 5) % 4)

    // The stream: up to 1.5 s at 16 kHz, its samples drawn from the specials and the bytes.
    let samples = min(input.uint16(), 24_000)
    let signal = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(1, samples))
    defer { signal.deallocate() }
    let pattern = max(1, size - input.index)
    for i in 0..<samples {
        let b = Int(input.bytes.isEmpty ? 0 : input.bytes[(input.index + i % pattern) % input.bytes.count])
        switch b & 0xC0 {
        case 0x00: signal[i] = specials[b % specials.count]
        case 0x40: signal[i] = Float(b - 0x60) / 32  // ±1
        default: signal[i] = sinf(Float(i) * Float(b) / 97) * Float(b) / 200  // tones, some above full scale
        }
    }

    var runs: [([FrameRecord], EndRecord)] = []
    for (pass, batch) in [batches.0, batches.1].enumerated() {
        configuration.analysis.framesPerBatch = batch
        guard let detector = Detectors.detector(for: configuration) else { return 0 }
        var frames: [FrameRecord] = []
        var previous: [Float] = [0, 0, 0]
        let record = { (frame: DetectionFrame) in
            FrameRecord.check(frame, after: previous)
            previous = FrameRecord.probabilities(frame)
            frames.append(FrameRecord(frame))
        }
        if pass == 0 {
            detector.process(UnsafeBufferPointer(rebasing: signal[0..<samples]), record)
        } else {
            var consumed = 0
            var seed = UInt32(truncatingIfNeeded: size) &* 2_654_435_761 | 1
            while consumed < samples {
                seed ^= seed << 13
                seed ^= seed >> 17
                seed ^= seed << 5
                let count = min(samples - consumed, Int(seed % 5000))
                detector.process(UnsafeBufferPointer(rebasing: signal[consumed..<consumed + count]), record)
                consumed += count
            }
        }
        let end = detector.flush(record)
        runs.append((frames, EndRecord(end)))
    }
    require(runs[0].0.count == runs[1].0.count, "\(runs[0].0.count) frames in one push (batch \(batches.0)), \(runs[1].0.count) in pushes (batch \(batches.1))")
    for (a, b) in zip(runs[0].0, runs[1].0) {
        require(a == b, "frame \(a.index) differs between one push (batch \(batches.0)) and pushes (batch \(batches.1)): \(a) against \(b)")
    }
    require(runs[0].1 == runs[1].1, "stream end differs: \(runs[0].1) against \(runs[1].1)")
    return 0
}
