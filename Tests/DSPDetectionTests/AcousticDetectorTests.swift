import DSPCore
import DSPDetection
import DSPIO
import DSPSpectral
import Foundation
import Testing
import TestSupport

/// What one run of the detector produced, for comparison.
struct DetectionRun: Equatable {
    var probabilities: [[Float]] = []
    var decisions: [[Bool]] = []
    var changes: [String] = []
    /// The context cues (speech-band SNR maximum and active fraction, modulation maximum, flux
    /// peakiness, harmonicity and SNR deviations, the sixteen earlier values) per frame.
    var contextCues: [[Float]] = []
    /// ``SpectralFeatures/isFinite`` per frame.
    var finite: [Bool] = []
    /// ``DetectionCues/levelDBFS`` per frame (what the silence floor reads).
    var levels: [Float] = []
    var summary = DetectionSummary()
    var endChanges: [Int64?] = []
}

enum DetectionHarness {
    static let testAudio = TestAudio.directory

    /// A TestAudio file as 16 kHz mono (channel mean; resampled when needed).
    static func mono16k(_ name: String) throws -> [Float] {
        let reader = try AudioFileReader(path: testAudio.appendingPathComponent(name).path)
        defer { reader.close() }
        let channels = reader.channelCount
        var interleaved = [Float](repeating: 0, count: reader.frameCount * channels)
        var filled = 0
        while filled < interleaved.count {
            let got = try interleaved.withUnsafeMutableBufferPointer {
                try reader.read(into: UnsafeMutableBufferPointer(rebasing: $0[filled...]))
            }
            if got == 0 { break }
            filled += got
        }
        var mono = [Float](repeating: 0, count: filled / channels)
        for i in mono.indices {
            var sum: Float = 0
            for c in 0..<channels { sum += interleaved[i * channels + c] }
            mono[i] = sum / Float(channels)
        }
        if reader.sampleRate == 16_000 { return mono }
        let resampler = try Resampler(inputRate: reader.sampleRate, outputRate: 16_000, channelCount: 1, trimsLeadingDelay: true)
        return resampler.processAll(mono)
    }

    /// Runs `detector` over `signal` in pushes of `chunks` (cycled), then flushes.
    static func run(_ detector: AcousticDetector, _ signal: [Float], chunks: [Int]) -> DetectionRun {
        var result = DetectionRun()
        let record = { (d: DetectionFrame) in
            result.probabilities.append([d.speechProbability, d.musicProbability, d.multiSpeakerProbability])
            result.decisions.append([d.isSpeech, d.isMusic, d.isMultiSpeaker])
            result.finite.append(d.features.isFinite)
            result.levels.append(d.cues.levelDBFS)
            let c = d.cues
            result.contextCues.append([c.speechBandSNRMaxDB, c.speechBandActiveFraction, c.modulationMaxDB, c.fluxPeakiness,
                                       c.harmonicityDeviation, c.speechBandSNRDeviationDB]
                                      + (0..<16).map { c.earlierValues[$0] })
            for (name, change) in [("speech", d.speechChange), ("music", d.musicChange), ("multi", d.multiSpeakerChange)] {
                if change != .none { result.changes.append("\(name) \(change)") }
            }
        }
        signal.withUnsafeBufferPointer { all in
            var offset = 0
            var k = 0
            while offset < all.count {
                let end = min(all.count, offset + chunks[k % chunks.count])
                detector.process(UnsafeBufferPointer(rebasing: all[offset..<end]), record)
                offset = end
                k += 1
            }
        }
        let end = detector.flush(record)
        result.summary = end.summary
        result.endChanges = [end.speechEndedAt, end.musicEndedAt, end.multiSpeakerEndedAt]
        return result
    }
}

@Suite struct AcousticDetectorTests {
    @Test func resultsDoNotDependOnChunking() throws {
        let signal = try DetectionHarness.mono16k("speech_overlap_16k.wav")
        let detector = try AcousticDetector()
        let whole = DetectionHarness.run(detector, signal, chunks: [signal.count])
        #expect(whole.summary.frameCount == (signal.count + 255) / 256)
        var rng = SplitMix64(seed: 5)
        let random = (0..<64).map { _ in 1 + Int(rng.next() % 4096) }
        for chunks in [[1024], [1], [100, 7, 3000], random] where chunks != [1] || signal.count < 200_000 {
            #expect(DetectionHarness.run(detector, signal, chunks: chunks) == whole, "chunks \(chunks.prefix(3))")
        }
    }

    @Test func resetAndFlushStartAFreshStream() throws {
        let signal = try DetectionHarness.mono16k("speech_en-us_16k.wav")
        let detector = try AcousticDetector()
        let first = DetectionHarness.run(detector, signal, chunks: [1024])
        // flush() reset the detector: a second run is identical.
        #expect(DetectionHarness.run(detector, signal, chunks: [1024]) == first)
        // So does reset() after half a stream.
        signal.withUnsafeBufferPointer { detector.process(UnsafeBufferPointer(rebasing: $0[..<40_000])) { _ in } }
        detector.reset()
        #expect(DetectionHarness.run(detector, signal, chunks: [1024]) == first)
    }

    @Test func emptyAndSilentStreams() throws {
        let detector = try AcousticDetector()
        let empty = DetectionHarness.run(detector, [], chunks: [1024])
        #expect(empty.summary.frameCount == 0 && empty.summary.durationSeconds == 0 && empty.summary.speechRatio == 0)
        let silence = DetectionHarness.run(detector, [Float](repeating: 0, count: 32_000), chunks: [1024])
        #expect(silence.summary.durationSeconds == 2)
        #expect(silence.probabilities.allSatisfy { $0 == [0, 0, 0] })
        #expect(silence.summary.medianNoiseFloorDBFS == -.infinity)
        let one = DetectionHarness.run(detector, [0.5], chunks: [1])
        #expect(one.summary.frameCount == 1)
    }

    @Test func nonFiniteSamplesAreSilenceAndLeaveNoTrace() throws {
        let speech = try DetectionHarness.mono16k("speech_en-us_16k.wav")
        let detector = try AcousticDetector()
        // NaN, +Inf and −Inf in the middle: no crash, finite probabilities, and the frames whose
        // windows do not contain them are unaffected by them except through segment state.
        var damaged = speech
        damaged[20_000] = .nan
        damaged[40_000] = .infinity
        damaged[60_000] = -.infinity
        let run = DetectionHarness.run(detector, damaged, chunks: [1024])
        #expect(run.probabilities.allSatisfy { $0.allSatisfy { $0.isFinite && $0 >= 0 && $0 <= 1 } })
        #expect(run.contextCues.allSatisfy { $0.allSatisfy(\.isFinite) })
        #expect(run.summary.frameCount == (damaged.count + 255) / 256)
        // The frames covering a damaged sample are the four hops whose 64 ms windows hold it.
        var hits = 0
        let analyzer = try SpectralAnalyzer()
        damaged.withUnsafeBufferPointer { analyzer.process($0) { if !$0.features.isFinite { hits += 1 } } }
        #expect(hits == 12)
        // Those frames are silence for the models (probability 0): each reported probability is
        // the frame before's times its smoothing, exactly as `a·p + (1−a)·0` gives it.
        #expect(run.finite.filter { !$0 }.count == 12)
        let c = detector.configuration
        let smoothing = [c.speechSmoothing, c.musicSmoothing, c.multiSpeakerSmoothing]
        for k in run.finite.indices where !run.finite[k] {
            for i in 0..<3 {
                #expect(run.probabilities[k][i] == smoothing[i] * run.probabilities[k - 1][i], "frame \(k), probability \(i)")
            }
        }
        #expect(run.probabilities.indices.contains { !run.finite[$0] && run.probabilities[$0][0] > 0 })
    }

    @Test func rejectsBadConfigurations() {
        var c = AcousticDetector.Configuration()
        c.speechSmoothing = 1.5
        #expect(throws: ConfigurationError.self) { try AcousticDetector(configuration: c) }
        c = AcousticDetector.Configuration()
        c.musicSegments.offThreshold = 0.9
        #expect(throws: ConfigurationError.self) { try AcousticDetector(configuration: c) }
        c = AcousticDetector.Configuration()
        c.speechModel.inputScale[0] = 0
        #expect(throws: ConfigurationError.self) { try AcousticDetector(configuration: c) }
        c = AcousticDetector.Configuration()
        c.multiSpeakerModel.hiddenBias.append(0)
        #expect(throws: ConfigurationError.self) { try AcousticDetector(configuration: c) }
        // A model may not read a probability computed after it in the frame.
        for (lane, assign) in [
            (CueLane.speechProbability, { (c: inout AcousticDetector.Configuration, m: ProbabilityModel) in c.speechModel = m }),
            (.musicProbability, { $0.musicModel = $1 }), (.speechProbability, { $0.musicModel = $1 }),
            (.musicProbability, { $0.standaloneSpeechModel = $1 }),
        ] {
            c = AcousticDetector.Configuration()
            let reading = ProbabilityModel(
                inputCount: 1, inputLanes: [lane.rawValue], inputMean: [0], inputScale: [1], hiddenWeights: [],
                hiddenBias: [], outputWeights: [1], outputBias: 0)
            assign(&c, reading)
            #expect(throws: ConfigurationError.self, "\(lane)") { try AcousticDetector(configuration: c) }
        }
        c = AcousticDetector.Configuration()
        c.multiSpeakerModel = ProbabilityModel(
            inputCount: 1, inputLanes: [CueLane.speechProbability.rawValue], inputMean: [0], inputScale: [1],
            hiddenWeights: [], hiddenBias: [], outputWeights: [1], outputBias: 0)
        #expect(throws: Never.self) { try AcousticDetector(configuration: c) }
        for end: Float in [-0.1, 0.2, 1.5, .nan] {          // below the off threshold 0.45, above 1, NaN
            c = AcousticDetector.Configuration()
            c.speechSegments.offThreshold = 0.45
            c.speechSegments.endThreshold = end
            #expect(throws: ConfigurationError.self) { try AcousticDetector(configuration: c) }
        }
        c = AcousticDetector.Configuration()
        c.speechSegments.endThreshold = 1
        #expect(throws: Never.self) { try AcousticDetector(configuration: c) }
    }

    @Test func defaultModelsAreConsistent() {
        for model in [DefaultModels.music, DefaultModels.speech, DefaultModels.multiSpeaker, DefaultModels.standaloneSpeech] {
            #expect(model.isValid)
            // Every default model reads the band lanes.
            #expect(CueLane.bandSNRLanes.allSatisfy { model.reads(CueLane(rawValue: $0)!) })
            #expect(CueLane.bandShapeLanes.allSatisfy { model.reads(CueLane(rawValue: $0)!) })
        }
        #expect(!DefaultModels.music.reads(.musicProbability) && !DefaultModels.music.reads(.speechProbability))
        #expect(DefaultModels.speech.reads(.musicProbability) && !DefaultModels.speech.reads(.speechProbability))
        #expect(DefaultModels.multiSpeaker.reads(.speechProbability))
        #expect(!DefaultModels.standaloneSpeech.reads(.pulse) && !DefaultModels.standaloneSpeech.reads(.musicProbability))
        #expect(CueLane.allCases.count == CueLane.count)
        #expect(CueLane.bandSNRLanes.count == CueLane.bandLaneCount && CueLane.bandShapeLanes.count == CueLane.bandLaneCount)
        #expect(CueLane.bandShapeLanes.upperBound == CueLane.streamSeconds.rawValue && CueLane.streamSeconds.rawValue == CueLane.count - 1)
        #expect(Set(CueLane.allCases.map(\.name)).count == CueLane.count)
    }

    @Test func switchingDetectionsOff() throws {
        var c = AcousticDetector.Configuration()
        c.detectsMusic = false
        c.detectsMultipleSpeakers = false
        let detector = try AcousticDetector(configuration: c)
        let run = DetectionHarness.run(detector, try DetectionHarness.mono16k("music_piano_bass_drums_44k1.flac"), chunks: [1024])
        #expect(run.probabilities.allSatisfy { $0[1] == 0 && $0[2] == 0 })
        #expect(run.summary.musicSeconds == 0 && run.summary.multiSpeakerSeconds == 0)
        // Voice activity alone (its own model) agrees with the full stack on speech and noise.
        let speech = try DetectionHarness.mono16k("speech_en-us_16k.wav")
        let alone = DetectionHarness.run(detector, speech, chunks: [1024]).summary.speechRatio
        let full = DetectionHarness.run(try AcousticDetector(), speech, chunks: [1024]).summary.speechRatio
        #expect(alone >= 0.8 && abs(alone - full) <= 0.1, "speech alone \(alone), full \(full)")
        let noise = try DetectionHarness.mono16k("noise_pink_48k_s24.flac")
        #expect(DetectionHarness.run(detector, noise, chunks: [1024]).summary.speechRatio <= 0.1)
    }
}

/// The context cues (``DetectionCues/modulationMaxDB`` and the others added with them) follow
/// their documented formulas over the frame stream, and respond to what they are meant to.
@Suite struct ContextCueTests {
    struct Frame {
        var features: SpectralFeatures
        var cues: DetectionCues
    }

    static func frames(_ signal: [Float]) throws -> [Frame] {
        let detector = try AcousticDetector()
        var out: [Frame] = []
        signal.withUnsafeBufferPointer { detector.process($0) { out.append(Frame(features: $0.features, cues: $0.cues)) } }
        return out
    }

    static func window(_ values: [Float], endingAt i: Int, length: Int) -> ArraySlice<Float> {
        values[max(0, i - length + 1)...i]
    }

    static func deviation(_ v: ArraySlice<Float>) -> Float {
        let mean = v.reduce(0, +) / Float(v.count)
        return (v.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Float(v.count)).squareRoot()
    }

    @Test func followTheirFormulas() throws {
        let frames = try Self.frames(try DetectionHarness.mono16k("speech_overlap_16k.wav"))
        #expect(frames.count > 200)
        let modulation = frames.map(\.cues.modulationDB)
        let harmonicity = frames.map(\.features.harmonicity)
        let flux = frames.map(\.features.fluxDB)
        let snr = frames.map(\.cues.speechBandSNRDB)
        for (i, f) in frames.enumerated() {
            // 1 s = 63 hops of 16 ms (62.5 rounded), 0.5 s = 31.
            #expect(f.cues.modulationMaxDB == Self.window(modulation, endingAt: i, length: 63).max()!)
            let h = Self.deviation(Self.window(harmonicity, endingAt: i, length: 31))
            #expect(abs(f.cues.harmonicityDeviation - h) <= 1e-4 * max(1, h), "frame \(i)")
            let s = Self.deviation(Self.window(snr, endingAt: i, length: 31))
            #expect(abs(f.cues.speechBandSNRDeviationDB - s) <= 1e-3 * max(1, s), "frame \(i)")
            let w = Self.window(flux, endingAt: i, length: 31)
            let peakiness = w.max()! / (w.reduce(0, +) / Float(w.count) + 0.1)
            #expect(abs(f.cues.fluxPeakiness - peakiness) <= 1e-4 * max(1, peakiness), "frame \(i)")
            #expect(f.cues.speechBandSNRMaxDB >= f.cues.speechBandSNRDB && f.cues.speechBandSNRMaxDB <= 40)
            #expect(f.cues.speechBandActiveFraction >= 0 && f.cues.speechBandActiveFraction <= 1)
        }
    }

    /// The eight instantaneous values of ``DetectionCues/earlierValues``, in its order.
    static func instantaneous(_ f: Frame) -> [Float] {
        [f.cues.snrDB, f.cues.speechBandSNRDB, f.features.harmonicity, f.features.flatness, f.features.entropy,
         f.features.centroidHz, f.features.fluxDB, f.features.zeroCrossingRate]
    }

    @Test func earlierValuesAreFourAndEightFramesBack() throws {
        // Damaged samples make 12 non-finite frames, which the history skips: frame k of the
        // finite ones carries the values of finite frames k − 4 and k − 8 (zero before the start).
        var signal = try DetectionHarness.mono16k("speech_overlap_16k.wav")
        signal[30_000] = .nan
        signal[50_000] = .infinity
        signal[70_000] = -.infinity
        let all = try Self.frames(signal)
        let frames = all.filter(\.features.isFinite)
        #expect(all.count - frames.count == 12 && frames.count > 200)
        for (k, f) in frames.enumerated() {
            let back4 = k >= 4 ? Self.instantaneous(frames[k - 4]) : [Float](repeating: 0, count: 8)
            let back8 = k >= 8 ? Self.instantaneous(frames[k - 8]) : [Float](repeating: 0, count: 8)
            #expect((0..<16).map { f.cues.earlierValues[$0] } == back4 + back8, "frame \(k)")
        }
        // The lanes the models read (CueLane 27–42) are those values.
        var lanes = [Float](repeating: 0, count: CueLane.count)
        let f = frames[100]
        lanes.withUnsafeMutableBufferPointer { CueLane.fill($0.baseAddress!, features: f.features, cues: f.cues) }
        #expect(Array(lanes[CueLane.firstEarlierLane..<CueLane.firstEarlierLane + 16]) == (0..<16).map { f.cues.earlierValues[$0] })
        #expect(CueLane(rawValue: CueLane.firstEarlierLane) == .snrDB4 && CueLane.zeroCrossingRate8.rawValue == CueLane.musicInputCount - 1)
    }

    /// The band lanes against their definition, computed here from the frame's band powers:
    /// the envelope is each band's level less the mean level (clamped to ±60 dB), and the
    /// per-band SNRs average to the frame's SNR cue.
    @Test func bandLanesFollowTheirDefinition() throws {
        let detector = try AcousticDetector()
        let analyzer = try SpectralAnalyzer()
        var shapes: [[Float]] = [], cues: [DetectionCues] = []
        let signal = try DetectionHarness.mono16k("speech_en-us_16k.wav")
        signal.withUnsafeBufferPointer { all in
            analyzer.process(all) { frame in
                let levels = (0..<CueLane.bandLaneCount).map { 10 * log10(Double(frame.bandPowers[$0]) + 1e-12) }
                let mean = levels.reduce(0, +) / Double(levels.count)
                shapes.append(levels.map { Float(min(60, max(-60, $0 - mean))) })
            }
            detector.process(all) { cues.append($0.cues) }
        }
        #expect(cues.count == shapes.count && cues.count > 300)
        var worst: Float = 0
        for (c, shape) in zip(cues, shapes) {
            for b in 0..<CueLane.bandLaneCount { worst = max(worst, abs(c.bandShapeDB[b] - shape[b])) }
            let snrs = (0..<CueLane.bandLaneCount).map { c.bandSNRsDB[$0] }
            #expect(snrs.allSatisfy { (0...40).contains($0) })
            #expect(abs(snrs.reduce(0, +) / Float(CueLane.bandLaneCount) - c.snrDB) < 1e-3)
            #expect((CueLane.bandLaneCount..<32).allSatisfy { c.bandSNRsDB[$0] == 0 && c.bandShapeDB[$0] == 0 })
        }
        #expect(worst < 0.01, "largest envelope difference \(worst) dB (FastLog against log10)")
        // And the lanes the models read are those values.
        var lanes = [Float](repeating: 0, count: CueLane.count)
        let c = cues[200]
        lanes.withUnsafeMutableBufferPointer { CueLane.fill($0.baseAddress!, features: SpectralFeatures(), cues: c) }
        #expect(Array(lanes[CueLane.bandSNRLanes]) == (0..<20).map { c.bandSNRsDB[$0] })
        #expect(Array(lanes[CueLane.bandShapeLanes]) == (0..<20).map { c.bandShapeDB[$0] })
    }

    @Test func streamSecondsLaneCountsTheStreamUpToItsCap() {
        // Lane 85: the hop's start in seconds from the stream's start, held at the cap after it.
        var lanes = [Float](repeating: -1, count: CueLane.count)
        for (time, expected) in [(0.0, Float(0)), (0.016, Float(0.016)), (1.5, Float(1.5)), (2.0, CueLane.streamSecondsCap),
                                 (600.0, CueLane.streamSecondsCap)] {
            var f = SpectralFeatures()
            f.time = time
            lanes.withUnsafeMutableBufferPointer { CueLane.fill($0.baseAddress!, features: f, cues: DetectionCues()) }
            #expect(lanes[CueLane.streamSeconds.rawValue] == expected)
        }
        #expect(CueLane.streamSeconds.name == "stream_seconds" && CueLane.streamSeconds.isCue)
    }

    @Test func respondToSpeechUnderNoiseAndToDrums() throws {
        // Speech under brown noise at about −5 dB SNR (power over the whole file): the best
        // speech band rises with the speech, the mean over the bands hardly does.
        let speech = try DetectionHarness.mono16k("speech_en-us_16k.wav")
        let noise = try DetectionHarness.mono16k("noise_brown_16k.wav")
        let n = min(speech.count, noise.count)
        func power(_ x: ArraySlice<Float>) -> Float { x.map { $0 * $0 }.reduce(0, +) / Float(x.count) }
        let gain = (power(speech[..<n]) / power(noise[..<n]) * 3.16).squareRoot()
        let mixed = (0..<n).map { speech[$0] + gain * noise[$0] }
        let frames = try Self.frames(mixed)
        // Frames of speech and of pause, from the clean speech's own frame levels.
        let clean = try Self.frames(Array(speech[..<n]))
        var active: [Frame] = [], pause: [Frame] = []
        for (i, f) in frames.enumerated() where i >= 94 {     // after the first 1.5 s
            if clean[i].cues.levelDBFS > -35 { active.append(f) } else if clean[i].cues.levelDBFS < -60 { pause.append(f) }
        }
        #expect(active.count > 50 && pause.count > 10, "\(active.count) speech frames, \(pause.count) pauses")
        func mean(_ fs: [Frame], _ key: (DetectionCues) -> Float) -> Float { fs.map { key($0.cues) }.reduce(0, +) / Float(fs.count) }
        let maxRise = mean(active, \.speechBandSNRMaxDB) - mean(pause, \.speechBandSNRMaxDB)
        let meanRise = mean(active, \.speechBandSNRDB) - mean(pause, \.speechBandSNRDB)
        #expect(maxRise >= 6 && maxRise > meanRise, "best band +\(maxRise) dB, mean of bands +\(meanRise) dB")
        // Drums make sharper flux peaks than speech (medians after the first 0.5 s).
        func medianPeakiness(_ name: String) throws -> Float {
            let v = try Self.frames(try DetectionHarness.mono16k(name)).dropFirst(31).map(\.cues.fluxPeakiness).sorted()
            return v[v.count / 2]
        }
        let drums = try medianPeakiness("music_drums_44k1.flac"), talk = try medianPeakiness("speech_en-us_16k.wav")
        #expect(drums > talk, "drums \(drums), speech \(talk)")
    }
}

@Suite struct ActivitySegmenterTests {
    static let config = ActivitySegmenter.Configuration(
        onThreshold: 0.6, offThreshold: 0.4, minimumActiveSeconds: 0.05, hangoverSeconds: 0.1, paddingSeconds: 0.02)

    /// Feeds probabilities, one per 10 ms frame (160 samples at 16 kHz), and lists the
    /// transitions.
    static func transitions(_ ps: [Float]) -> [ActivitySegmenter.Transition] {
        var s = ActivitySegmenter(configuration: config, sampleRate: 16_000)
        var out: [ActivitySegmenter.Transition] = []
        for (i, p) in ps.enumerated() {
            let t = s.update(probability: p, start: Int64(i) * 160, count: 160)
            if t != .none { out.append(t) }
        }
        let end = s.finish(at: Int64(ps.count) * 160)
        if end != .none { out.append(end) }
        return out
    }

    @Test("durations become whole samples: a run must last ⌈seconds × rate⌉ samples")
    func durationsInSamples() {
        let s = ActivitySegmenter(configuration: Self.config, sampleRate: 16_000)
        #expect(s.minimumActiveSamples == 800 && s.hangoverSamples == 1600 && s.paddingSamples == 320)
        // 0.25 s at 16 kHz is exactly 4000 samples, not 4001 from the binary rounding of 0.25 × 16000.
        let c = ActivitySegmenter.Configuration(
            onThreshold: 0.5, offThreshold: 0.4, minimumActiveSeconds: 0.25, hangoverSeconds: 0.3, paddingSeconds: 0.016)
        let d = ActivitySegmenter(configuration: c, sampleRate: 16_000)
        #expect(d.minimumActiveSamples == 4000 && d.hangoverSamples == 4800 && d.paddingSamples == 256)
        // At 44.1 kHz 0.3 s is 13 230 samples; 0.016 s of padding rounds to 706.
        let e = ActivitySegmenter(configuration: c, sampleRate: 44_100)
        #expect(e.hangoverSamples == 13_230 && e.paddingSamples == 706)
    }

    @Test func opensAfterTheMinimumAndBackdatesWithPadding() {
        let ps = [Float](repeating: 0, count: 10) + [Float](repeating: 0.9, count: 20) + [Float](repeating: 0, count: 30)
        let t = Self.transitions(ps)
        #expect(t.count == 2)
        guard t.count == 2, case .started(let start) = t[0], case .ended(let end) = t[1] else { return }
        #expect(start == 1600 - 320)                          // first active frame − padding
        #expect(end == 4800 + 320)                            // end of last active frame + padding
    }

    @Test("close(at:): ends the open segment at once, padded but not past the position; a no-op when closed")
    func closeEndsAtOnce() {
        var s = ActivitySegmenter(configuration: Self.config, sampleRate: 16_000)
        // Opens after 5 frames (800 samples) of 0.9 from frame 10: start 1600 − 320.
        var opened: ActivitySegmenter.Transition = .none
        for i in 0..<20 {
            let t = s.update(probability: i >= 10 ? 0.9 : 0, start: Int64(i) * 160, count: 160)
            if t != .none { opened = t }
        }
        #expect(opened == .started(at: 1280) && s.isActive)
        // Last active frame ends at 3200; its padding (320) would reach 3520: closing at 3360 cuts it there.
        #expect(s.close(at: 3360) == .ended(at: 3360) && !s.isActive)
        #expect(s.close(at: 4000) == .none)
        // Closing far after the last active frame gives the hangover's end: last active end + padding.
        var t = ActivitySegmenter(configuration: Self.config, sampleRate: 16_000)
        for i in 0..<20 { _ = t.update(probability: i >= 10 ? 0.9 : 0, start: Int64(i) * 160, count: 160) }
        for i in 20..<25 { _ = t.update(probability: 0, start: Int64(i) * 160, count: 160) }
        #expect(t.close(at: 4000) == .ended(at: 3200 + 320))
        // A run that was opening a segment is dropped: 4 active frames, close, 2 more do not open one.
        var u = ActivitySegmenter(configuration: Self.config, sampleRate: 16_000)
        for i in 0..<4 { _ = u.update(probability: 0.9, start: Int64(i) * 160, count: 160) }
        #expect(u.close(at: 640) == .none)
        for i in 4..<6 { #expect(u.update(probability: 0.9, start: Int64(i) * 160, count: 160) == .none) }
        // The next segment never starts before the closed one's end.
        var v = ActivitySegmenter(configuration: Self.config, sampleRate: 16_000)
        for i in 0..<10 { _ = v.update(probability: 0.9, start: Int64(i) * 160, count: 160) }
        #expect(v.close(at: 1600) == .ended(at: 1600))
        var next: ActivitySegmenter.Transition = .none
        for i in 10..<20 {
            let t = v.update(probability: 0.9, start: Int64(i) * 160, count: 160)
            if t != .none { next = t }
        }
        #expect(next == .started(at: 1600))   // back-dated to 1600 − 320, held at the closed segment's end
    }

    @Test func shortBurstsAndShortGaps() {
        // A 40 ms burst (below the 50 ms minimum) never opens.
        #expect(Self.transitions([Float](repeating: 0.9, count: 4) + [Float](repeating: 0, count: 20)).isEmpty)
        // A 60 ms gap inside activity (below the 100 ms hangover) is bridged.
        let ps = [Float](repeating: 0.9, count: 20) + [Float](repeating: 0, count: 6) + [Float](repeating: 0.9, count: 20)
            + [Float](repeating: 0, count: 20)
        #expect(Self.transitions(ps).count == 2)
        // Values between the thresholds keep an open segment open.
        let hover = [Float](repeating: 0.9, count: 10) + [Float](repeating: 0.5, count: 50)
        let t = Self.transitions(hover)
        #expect(t.count == 2)
        if case .ended(let end) = t.last { #expect(end == 9600) }       // closed by finish at the end (0.6 s)
    }

    /// Feeds probabilities (10 ms frames at 16 kHz) to a segmenter with `config` and an end
    /// threshold; segments in seconds.
    static func segments(_ ps: [Float], end: Float?) -> [(Double, Double)] {
        var c = config
        c.endThreshold = end
        var s = ActivitySegmenter(configuration: c, sampleRate: 16_000)
        var out: [(Double, Double)] = []
        var start: Int64 = 0
        func seconds(_ a: Int64, _ b: Int64) -> (Double, Double) { (Double(a) / 16_000, Double(b) / 16_000) }
        for (i, p) in ps.enumerated() {
            switch s.update(probability: p, start: Int64(i) * 160, count: 160) {
            case .started(let t): start = t
            case .ended(let t): out.append(seconds(start, t))
            case .none: break
            }
        }
        if case .ended(let t) = s.finish(at: Int64(ps.count) * 160) { out.append(seconds(start, t)) }
        return out
    }

    @Test func endThresholdBackDatesTheEnd() {
        // Active 0.10–0.30 s at 0.9, a decay through 0.7 (to 0.35 s) and 0.5 (to 0.50 s), then 0.
        let ps = [Float](repeating: 0, count: 10) + [Float](repeating: 0.9, count: 20) + [Float](repeating: 0.7, count: 5)
            + [Float](repeating: 0.5, count: 15) + [Float](repeating: 0, count: 30)
        func near(_ a: [(Double, Double)], _ b: [(Double, Double)]) -> Bool {
            a.count == b.count && zip(a, b).allSatisfy { abs($0.0 - $1.0) < 1e-9 && abs($0.1 - $1.1) < 1e-9 }
        }
        // No end threshold (or one at or below the off threshold): the end follows the off threshold.
        #expect(near(Self.segments(ps, end: nil), [(0.08, 0.52)]))
        #expect(near(Self.segments(ps, end: 0.4), [(0.08, 0.52)]))
        #expect(near(Self.segments(ps, end: 0.6), [(0.08, 0.37)]))
        #expect(near(Self.segments(ps, end: 0.8), [(0.08, 0.32)]))
        // Never reached after the opening frame: the segment ends after the frame that opened it.
        #expect(near(Self.segments(ps, end: 0.95), [(0.08, 0.17)]))
        // Frames between the off and end thresholds still bridge: one segment, not two.
        let bridged = [Float](repeating: 0.9, count: 10) + [Float](repeating: 0.5, count: 30) + [Float](repeating: 0.9, count: 10)
            + [Float](repeating: 0, count: 20)
        #expect(near(Self.segments(bridged, end: 0.8), [(0, 0.52)]))
    }
}
