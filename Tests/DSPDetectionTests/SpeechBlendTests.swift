@testable import DSPDetection
import DSPCore
import Testing
import TestSupport

/// ``SpeechBlend`` in ``AcousticDetector``: what reads the blend and what does not, the blend's
/// formula against the two opinions each run alone, the held output between strided steps,
/// chunking, the voice-alone path and validation.
@Suite struct SpeechBlendTests {
    static func detector(_ blend: SpeechBlend?, smoothing: Float? = nil, _ change: (inout AcousticDetector.Configuration) -> Void = { _ in })
        throws -> AcousticDetector
    {
        var c = AcousticDetector.Configuration()
        c.speechBlend = blend
        if let smoothing { c.speechSmoothing = smoothing }
        change(&c)
        return try AcousticDetector(configuration: c)
    }

    /// Every frame's reported voice-activity probability, multi-speaker probability, and the
    /// background estimate read on the detector's schedule (the summary's median).
    static func run(_ detector: AcousticDetector, _ signal: [Float], chunks: [Int] = [1024]) -> DetectionRun {
        DetectionHarness.run(detector, signal, chunks: chunks)
    }

    @Test("the fitted blend by default: its network at 0.5, stepped on one audible frame in two")
    func defaults() {
        let c = AcousticDetector.Configuration()
        #expect(c.speechBlend == DefaultModels.speechBlend && c.speechBlendWarmUpSeconds == 0)
        #expect(DefaultModels.speechBlend.isValid)
        #expect(DefaultModels.speechBlend.weight == 0.5 && DefaultModels.speechBlend.evaluationStride == 2)
        #expect(DefaultModels.speechBlendNetwork.inputCount == 83 && DefaultModels.speechBlendNetwork.hiddenCount == 32)
    }

    @Test("reported voice activity is (1 − w)·model + w·network, each smoothed; the multi-speaker probability and the background estimate are the model's")
    func blendFormula() throws {
        let signal = try DetectionHarness.mono16k("speech_overlap_16k.wav")
        let network = DefaultModels.speechBlend
        let model = Self.run(try Self.detector(nil), signal)
        var alone = network
        alone.weight = 1
        let net = Self.run(try Self.detector(alone), signal)
        for w: Float in [0.5, 0.25] {
            var blend = network
            blend.weight = w
            let blended = Self.run(try Self.detector(blend), signal)
            #expect(blended.probabilities.count == model.probabilities.count)
            var worst: Float = 0
            for (b, (m, n)) in zip(blended.probabilities, zip(model.probabilities, net.probabilities)) {
                worst = max(worst, abs(b[0] - ((1 - w) * m[0] + w * n[0])))
                // Music and several speakers do not read the blend.
                #expect(b[1] == m[1] && b[2] == m[2])
            }
            #expect(worst < 1e-5, "w \(w): worst \(worst)")
            #expect(blended.summary.medianNoiseFloorDBFS == model.summary.medianNoiseFloorDBFS)
        }
        // Not degenerate: the network's opinion differs from the model's on this file.
        let differing = zip(model.probabilities, net.probabilities).filter { abs($0[0] - $1[0]) > 0.1 }.count
        #expect(differing > 20, "\(differing) frames differ by more than 0.1")
    }

    @Test("weight 1, no smoothing: the reported probability is the network stepped alone over the frames' cue vectors, every stride-th audible frame")
    func networkAloneMatchesTheCompiledNetwork() throws {
        let signal = try DetectionHarness.mono16k("speech_overlap_16k.wav")
        for stride in [1, 2] {
            var blend = DefaultModels.speechBlend
            blend.weight = 1
            blend.evaluationStride = stride
            var frames: [DetectionFrame] = []
            // The network's full share from the first frame (the warm-up has its own test below).
            let detector = try Self.detector(blend, smoothing: 0) { $0.speechBlendWarmUpSeconds = 0 }
            signal.withUnsafeBufferPointer { detector.process($0) { frames.append($0) } }
            _ = detector.flush { frames.append($0) }
            // The oracle: a network of its own (itself held to the Double reference and to
            // PyTorch by DetectionNetworkTests), stepped on the cue vectors the frames report.
            let network = CompiledNetwork(blend.network)
            var lanes = [Float](repeating: 0, count: CueLane.count), p = [Float](repeating: 0, count: 3)
            var audible = 0, held: Float = 0, checked = 0
            for frame in frames {
                guard frame.cues.levelDBFS >= -70 else {
                    #expect(frame.speechProbability == 0)
                    continue
                }
                if audible % stride == 0 {
                    lanes.withUnsafeMutableBufferPointer { CueLane.fill($0.baseAddress!, features: frame.features, cues: frame.cues) }
                    lanes.withUnsafeBufferPointer { x in p.withUnsafeMutableBufferPointer { network.step(x.baseAddress!, into: $0.baseAddress!) } }
                    held = p[DetectionNetwork.Output.speech.rawValue]
                }
                audible += 1
                #expect(frame.speechProbability.bitPattern == held.bitPattern, "stride \(stride), audible frame \(audible)")
                checked += 1
            }
            #expect(checked > 200)
        }
    }

    @Test("a strided network's output is held between its steps; chunking changes nothing")
    func strideHoldsAndChunkingIsFree() throws {
        let signal = try DetectionHarness.mono16k("speech_overlap_16k.wav")
        var blend = DefaultModels.speechBlend
        blend.weight = 1
        for stride in [1, 2, 3] {
            blend.evaluationStride = stride
            // Smoothing and the warm-up off: the reported probability is the network's output itself.
            let detector = try Self.detector(blend, smoothing: 0) { $0.speechBlendWarmUpSeconds = 0 }
            let whole = Self.run(detector, signal, chunks: [signal.count])
            var audible: [Float] = []
            for (p, cues) in zip(whole.probabilities, whole.levels) where cues >= -70 { audible.append(p[0]) }
            #expect(audible.count > 200)
            var changesWithinStride = 0
            for k in audible.indices where k % stride != 0 && audible[k] != audible[k - 1] { changesWithinStride += 1 }
            #expect(changesWithinStride == 0, "stride \(stride)")
            if stride > 1 {
                let moves = audible.indices.dropFirst().filter { $0 % stride == 0 && audible[$0] != audible[$0 - 1] }.count
                #expect(moves > audible.count / stride / 2, "stride \(stride): the held output never moves")
            }
            var rng = SplitMix64(seed: UInt64(stride))
            let random = (0..<64).map { _ in 1 + Int(rng.next() % 4096) }
            for chunks in [[1024], [100, 7, 3000], random] {
                #expect(Self.run(detector, signal, chunks: chunks) == whole, "stride \(stride), chunks \(chunks.prefix(3))")
            }
            detector.reset()
            #expect(Self.run(detector, signal, chunks: [333]) == whole)
        }
    }

    @Test("the warm-up: the network's share rises with the frame's position from 0 at the stream's start to the blend's weight, the same under any chunking and after reset")
    func warmUp() throws {
        let signal = try DetectionHarness.mono16k("speech_overlap_16k.wav")
        var blend = DefaultModels.speechBlend
        blend.weight = 1
        // Smoothing off, so each frame's reported probability is the mix itself: the oracle mixes
        // the speech model's run (no blend) and the network's (full share from the first frame)
        // as the detector does, in Float, in the same order.
        let model = Self.run(try Self.detector(nil, smoothing: 0), signal)
        let network = Self.run(try Self.detector(blend, smoothing: 0) { $0.speechBlendWarmUpSeconds = 0 }, signal)
        let detector = try Self.detector(blend, smoothing: 0) { $0.speechBlendWarmUpSeconds = 0.5 }
        let warmed = Self.run(detector, signal)
        try #require(warmed.probabilities.count == model.probabilities.count && model.probabilities.count == network.probabilities.count)
        let warmUpSamples = Float(0.5 * 16_000)
        var inWarmUp = 0, moved = 0
        for k in warmed.probabilities.indices {
            let position = Float(k * 256)
            let weight = position < warmUpSamples ? 1 * (position / warmUpSamples) : 1
            let expected = (1 - weight) * model.probabilities[k][0] + weight * network.probabilities[k][0]
            #expect(warmed.probabilities[k][0].bitPattern == expected.bitPattern, "frame \(k)")
            if position < warmUpSamples {
                inWarmUp += 1
                if warmed.probabilities[k][0] != network.probabilities[k][0] { moved += 1 }
            }
        }
        #expect(inWarmUp == 32 && moved > 10, "\(inWarmUp) frames in the warm-up, \(moved) moved")
        for chunks in [[100, 7, 3000], [1]] { #expect(Self.run(detector, signal, chunks: chunks) == warmed, "chunks \(chunks)") }
        detector.reset()
        #expect(Self.run(detector, signal, chunks: [333]) == warmed)
        #expect(throws: ConfigurationError.self) { _ = try Self.detector(blend) { $0.speechBlendWarmUpSeconds = -1 } }
        #expect(throws: ConfigurationError.self) { _ = try Self.detector(blend) { $0.speechBlendWarmUpSeconds = .nan } }
    }

    @Test("voice activity alone (music and several speakers off) and a replacing network do not use the blend")
    func notUsedWithoutFullCues() throws {
        let signal = try DetectionHarness.mono16k("speech_en-us_16k.wav")
        let off: (inout AcousticDetector.Configuration) -> Void = { $0.detectsMusic = false; $0.detectsMultipleSpeakers = false }
        #expect(Self.run(try Self.detector(DefaultModels.speechBlend, off), signal) == Self.run(try Self.detector(nil, off), signal))
        let replacing: (inout AcousticDetector.Configuration) -> Void = { $0.network = DefaultModels.speechBlendNetwork }
        #expect(Self.run(try Self.detector(DefaultModels.speechBlend, replacing), signal) == Self.run(try Self.detector(nil, replacing), signal))
        // With the full cues it is used.
        #expect(Self.run(try Self.detector(DefaultModels.speechBlend), signal) != Self.run(try Self.detector(nil), signal))
    }

    @Test("a weight outside 0…1, a stride outside 1…16 or an invalid network is a configuration error")
    func validation() {
        var bad: [String: SpeechBlend] = [:]
        var b = DefaultModels.speechBlend
        b.weight = 1.5; bad["weight 1.5"] = b
        b = DefaultModels.speechBlend; b.weight = -0.1; bad["weight -0.1"] = b
        b = DefaultModels.speechBlend; b.weight = .nan; bad["weight NaN"] = b
        b = DefaultModels.speechBlend; b.evaluationStride = 0; bad["stride 0"] = b
        b = DefaultModels.speechBlend; b.evaluationStride = 17; bad["stride 17"] = b
        b = DefaultModels.speechBlend; b.network.hiddenCount = 31; bad["network shape"] = b
        for (name, blend) in bad {
            #expect(!blend.isValid, "\(name)")
            #expect(throws: ConfigurationError.self, "\(name)") { _ = try Self.detector(blend) }
        }
        b = DefaultModels.speechBlend; b.weight = 0; b.evaluationStride = 16
        #expect(b.isValid)
    }
}
