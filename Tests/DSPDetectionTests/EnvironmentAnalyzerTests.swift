import Foundation
import Testing
import DSPCore
import DSPDetection

/// Frames of a synthetic feature stream: the analyzer's input is the detectors' output, so the
/// tests drive it with feature sequences whose measurements follow from the definitions.
private struct FeatureStream {
    var frameLength: Int
    var position: Int64 = 0

    init(frameLength: Int = 1024) { self.frameLength = frameLength }

    mutating func next(
        level: Double, speech: Bool = false, noiseFloor: Double = .nan, music: Bool = false,
        multi: Bool = false, entropy: Double = 0.5
    ) -> AnalysisFrame {
        defer { position += Int64(frameLength) }
        return AnalysisFrame(
            startSample: position, sampleCount: frameLength, levelDBFS: level,
            speechProbability: speech ? 0.9 : 0.1, isSpeech: speech, noiseFloorDBFS: noiseFloor,
            musicProbability: music ? 0.9 : 0.1, isMusic: music,
            multiSpeakerProbability: multi ? 0.9 : 0.1, isMultiSpeaker: multi, spectralEntropy: entropy)
    }
}

/// 50 ms frames at 16 kHz: ten per 0.5 s update, so windows of 0.5 s align with the updates and
/// each measurement sees exactly the frames since the previous one.
private func alignedConfiguration(policy: EnvironmentAnalyzer.RecommendationPolicy = .init()) -> EnvironmentAnalyzer.Configuration {
    EnvironmentAnalyzer.Configuration(frameLength: 800, updateRateHz: 2, windowSeconds: 0.5, policy: policy)
}

/// dBFS for a noise level on the default scale (0 dBFS = 90 dB).
private func dbfs(_ levelDB: Double) -> Double { levelDB - 90 }

@Suite("EnvironmentAnalyzer: definitions, schedule, hysteresis")
struct EnvironmentAnalyzerTests {
    @Test("configuration errors quote the bad value")
    func validation() {
        #expect(throws: ConfigurationError.self) { try EnvironmentAnalyzer(configuration: .init(updateRateHz: 0)) }
        #expect(throws: ConfigurationError.self) { try EnvironmentAnalyzer(configuration: .init(windowSeconds: .nan)) }
        #expect(throws: ConfigurationError.self) {
            try EnvironmentAnalyzer(configuration: .init(noiseThresholds: .init(quiet: 50, moderate: 45)))
        }
        #expect(throws: ConfigurationError.self) {
            try EnvironmentAnalyzer(configuration: .init(policy: .init(holdSeconds: -1)))
        }
        do {
            _ = try EnvironmentAnalyzer(configuration: .init(sampleRate: 0))
            Issue.record("sampleRate 0 accepted")
        } catch {
            #expect(error.parameter == "sampleRate")
            #expect(error.value == "0")
        }
    }

    @Test("measurements fall on the first frame end at or past each k × 0.5 s, exactly, for 10 hours")
    func scheduleOverTenHours() throws {
        let analyzer = try EnvironmentAnalyzer()
        #expect(analyzer.updateIntervalSamples == 8000)
        var stream = FeatureStream()
        let frames = 36_000 * 16_000 / 1024  // 10 h of 1024-sample frames at 16 kHz: 562 500
        var k: Int64 = 1
        var count = 0
        var last: EnvironmentMeasurement?
        for _ in 0..<frames {
            let frame = stream.next(level: -50)
            if let m = analyzer.add(frame) {
                // The first frame end reaching k·8000: ⌈k·8000 / 1024⌉ · 1024.
                let expected = (k * 8000 + 1023) / 1024 * 1024
                if m.endSample != expected { Issue.record("measurement \(k) at \(m.endSample), expected \(expected)"); break }
                #expect(m.timeSeconds == Double(expected) / 16_000)
                k = m.endSample / 8000 + 1
                count += 1
                last = m
            }
        }
        // 36 000 s at 2 Hz: every boundary up to 72 000 gets one measurement (frames are shorter
        // than the interval, so none is skipped).
        #expect(count == 72_000)
        #expect(last?.endSample == Int64(36_000 * 16_000))
        #expect(last?.timeSeconds == 36_000)
        let summary = analyzer.finalize()
        #expect(summary.durationSeconds == 36_000)
        #expect(summary.secondsInCategory.quiet == 36_000)  // −50 dBFS = 40 dB
    }

    @Test("background noise is the non-speech frames' level, not the speech; SNR and clarity follow")
    func noiseNotSpeech() throws {
        let analyzer = try EnvironmentAnalyzer(configuration: alignedConfiguration())
        var stream = FeatureStream(frameLength: 800)
        var measurement: EnvironmentMeasurement?
        for i in 0..<10 {
            // Alternating −50 dBFS noise and −20 dBFS speech frames.
            measurement = analyzer.add(i % 2 == 0 ? stream.next(level: -50) : stream.next(level: -20, speech: true))
        }
        let m = try #require(measurement)
        #expect(m.endSample == 8000)
        #expect(m.noiseSource == .nonSpeechFrames)
        #expect(abs(m.noiseDBFS - -50) < 1e-9)
        #expect(abs(m.noiseLevelDB - 40) < 1e-9)
        #expect(abs(m.speechDBFS - -20) < 1e-9)
        #expect(m.speechFraction == 0.5)
        let snr = 10 * log10((1e-2 - 1e-5) / 1e-5)
        #expect(abs((m.speechToNoiseDB ?? .nan) - snr) < 1e-9)
        #expect(abs(m.speechClarity - 1 / (1 + exp(-(snr - 12) / 4))) < 1e-12)
        #expect(m.noiseCategory == .quiet)
        #expect(m.categoryKey == "40_false_false")
        #expect(m.windowSeconds == 0.5)
    }

    @Test("fallbacks: the tracker when the window is all speech, else the quietest frame")
    func noiseFallbacks() throws {
        let analyzer = try EnvironmentAnalyzer(configuration: alignedConfiguration())
        var stream = FeatureStream(frameLength: 800)
        var m: EnvironmentMeasurement?
        for i in 0..<10 { m = analyzer.add(stream.next(level: i < 5 ? -30 : -20, speech: true, noiseFloor: -60)) }
        #expect(m?.noiseSource == .noiseTracker)
        #expect(abs((m?.noiseDBFS ?? 0) - -60) < 1e-9)
        for i in 0..<10 { m = analyzer.add(stream.next(level: i < 5 ? -30 : -20, speech: true)) }
        #expect(m?.noiseSource == .quietestFrame)
        #expect(abs((m?.noiseDBFS ?? 0) - -30) < 1e-9)
        // One non-speech frame (50 ms) is under the 0.1 s minimum: still the fallback.
        for i in 0..<10 { m = analyzer.add(stream.next(level: i == 0 ? -70 : -20, speech: i != 0, noiseFloor: -65)) }
        #expect(m?.noiseSource == .noiseTracker)
        #expect(abs((m?.noiseDBFS ?? 0) - -65) < 1e-9)
    }

    @Test("category key: 5 dB steps on the positive scale, clamped at 0, music and speakers flags")
    func categoryKey() throws {
        let cases: [(Double, Bool, Bool, String, NoiseCategory)] = [
            (-45, false, true, "45_false_true", .moderate),
            (-47.5, true, false, "40_true_false", .quiet),
            (-55.0001, false, false, "30_false_false", .veryQuiet),
            (-55, false, false, "35_false_false", .quiet),
            (-25, false, false, "65_false_false", .veryLoud),
            (-35, false, false, "55_false_false", .loud),
            (-100, false, false, "0_false_false", .veryQuiet),
            (-.infinity, false, false, "0_false_false", .veryQuiet),
        ]
        for (level, music, multi, key, category) in cases {
            let analyzer = try EnvironmentAnalyzer(configuration: alignedConfiguration())
            var stream = FeatureStream(frameLength: 800)
            var m: EnvironmentMeasurement?
            for _ in 0..<10 { m = analyzer.add(stream.next(level: level, music: music, multi: multi)) }
            #expect(m?.categoryKey == key, "level \(level)")
            #expect(m?.noiseCategory == category, "level \(level)")
            #expect(m?.musicDetected == music)
            #expect(m?.multipleSpeakersDetected == multi)
        }
    }

    @Test("detection needs the configured fraction of the window; complexity is the mean entropy of non-silent frames")
    func fractionsAndComplexity() throws {
        let analyzer = try EnvironmentAnalyzer(configuration: alignedConfiguration())
        var stream = FeatureStream(frameLength: 800)
        var m: EnvironmentMeasurement?
        for i in 0..<10 {
            m = analyzer.add(stream.next(level: i < 2 ? -.infinity : -40, music: i < 6, multi: i < 4, entropy: i < 2 ? 0.99 : Double(i) / 10))
        }
        #expect(m?.musicFraction == 0.6)
        #expect(m?.musicDetected == true)
        #expect(m?.multiSpeakerFraction == 0.4)
        #expect(m?.multipleSpeakersDetected == false)
        // Frames 2…9 (silent frames 0, 1 excluded): mean of 0.2…0.9 = 0.55.
        #expect(abs((m?.frequencyComplexity ?? 0) - 0.55) < 1e-12)
    }

    @Test("non-finite inputs: NaN level is silence, NaN entropy 0, NaN noise floor no estimate")
    func nonFinite() throws {
        let analyzer = try EnvironmentAnalyzer(configuration: alignedConfiguration())
        var stream = FeatureStream(frameLength: 800)
        var m: EnvironmentMeasurement?
        for _ in 0..<10 { m = analyzer.add(stream.next(level: .nan, speech: true, noiseFloor: .nan, entropy: .nan)) }
        #expect(m?.noiseSource == .quietestFrame)
        #expect(m?.noiseDBFS == -.infinity)
        #expect(m?.speechToNoiseDB == -.infinity)
        #expect(m?.speechClarity == 0)
        #expect(m?.frequencyComplexity == 0)
        #expect(m?.categoryKey == "0_false_false")
    }

    @Test("a noise level hovering at the threshold never flips the recommendation")
    func hoveringAtThreshold() throws {
        let analyzer = try EnvironmentAnalyzer(configuration: alignedConfiguration())
        var stream = FeatureStream(frameLength: 800)
        var seed: UInt64 = 42
        var preferredAccurate = 0
        var measurements = 0
        // 10 minutes of noise wandering within ±2.9 dB of the 55 dB threshold (margin 3).
        for _ in 0..<(600 * 20) {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let offset = (Double(seed >> 11) / Double(1 << 53) * 2 - 1) * 2.9
            if let m = analyzer.add(stream.next(level: dbfs(55 + offset))) {
                measurements += 1
                if m.noiseLevelDB >= 55 { preferredAccurate += 1 }
                #expect(m.recommendation == .fast)
            }
        }
        #expect(measurements == 1200)
        #expect(preferredAccurate > 300)  // the signal really crosses the bare threshold often
        let summary = analyzer.finalize()
        #expect(summary.recommendationChangeCount == 0)
        #expect(summary.secondsFast == 600)
    }

    @Test("a change happens at the first measurement ≥ hold time after the preference began, and back")
    func transitionsAfterHold() throws {
        let analyzer = try EnvironmentAnalyzer(configuration: alignedConfiguration())
        var stream = FeatureStream(frameLength: 800)
        var log: [(Double, RecognizerRecommendation, RecognizerRecommendation)] = []
        func run(seconds: Int, levelDB: Double) {
            for _ in 0..<(seconds * 20) {
                if let m = analyzer.add(stream.next(level: dbfs(levelDB))) { log.append((m.timeSeconds, m.preferredRecommendation, m.recommendation)) }
            }
        }
        run(seconds: 10, levelDB: 45)     // quiet: fast
        run(seconds: 1, levelDB: 62)      // loud for 1 s only: not long enough
        run(seconds: 4, levelDB: 45)
        run(seconds: 10, levelDB: 62)     // loud from t = 15 s
        run(seconds: 10, levelDB: 54)     // back under 55 but within the margin: stays accurate
        run(seconds: 10, levelDB: 45)     // quiet from t = 35 s
        let changes = zip(log, log.dropFirst()).filter { $0.0.2 != $0.1.2 }.map { ($0.1.0, $0.1.2) }
        // Loud from 15 s: first preferring measurement at 15.5 s, switch at 17.5 s; quiet from
        // 35 s: first at 35.5 s, switch at 37.5 s.
        #expect(changes.count == 2)
        #expect(changes.first?.0 == 17.5)
        #expect(changes.first?.1 == .accurate)
        #expect(changes.last?.0 == 37.5)
        #expect(changes.last?.1 == .fast)
        // The 1 s burst was preferred twice but never adopted.
        #expect(log.filter { $0.0 > 10 && $0.0 <= 11 }.allSatisfy { $0.1 == .accurate && $0.2 == .fast })
        let summary = analyzer.finalize()
        #expect(summary.recommendationChangeCount == 2)
        #expect(summary.lastRecommendationChangeSeconds == 37.5)
        #expect(summary.secondsAccurate == 20)
        #expect(summary.secondsFast + summary.secondsAccurate == 45)
        // 62 dB is loud: the measurements at 10.5, 11 and 15.5…25 s, 0.5 s each; 54 dB is moderate.
        #expect(summary.secondsInCategory.loud == 11)
        #expect(summary.secondsInCategory.moderate == 34)  // the rest: 45 dB is moderate too (45 ≤ x < 55)
    }

    @Test("music, several speakers and unclear speech call for accurate; each can be switched off")
    func otherConditions() throws {
        func final(policy: EnvironmentAnalyzer.RecommendationPolicy, _ frame: (inout FeatureStream) -> AnalysisFrame) throws -> RecognizerRecommendation {
            let analyzer = try EnvironmentAnalyzer(configuration: alignedConfiguration(policy: policy))
            var stream = FeatureStream(frameLength: 800)
            for _ in 0..<200 { _ = analyzer.add(frame(&stream)) }
            return analyzer.recommendation
        }
        #expect(try final(policy: .init()) { $0.next(level: -60, music: true) } == .accurate)
        #expect(try final(policy: .init(accurateOnMusic: false)) { $0.next(level: -60, music: true) } == .fast)
        #expect(try final(policy: .init()) { $0.next(level: -60, multi: true) } == .accurate)
        #expect(try final(policy: .init(accurateOnMultipleSpeakers: false)) { $0.next(level: -60, multi: true) } == .fast)
        // Speech frames 3 dB above −60 dBFS noise (every other frame): SNR 0 dB, clarity ≈ 0.05.
        var speechFrame = false
        let unclear: (inout FeatureStream) -> AnalysisFrame = { stream in
            speechFrame.toggle()
            return stream.next(level: speechFrame ? -57 : -60, speech: speechFrame)
        }
        #expect(try final(policy: .init(), unclear) == .accurate)
        speechFrame = false
        #expect(try final(policy: .init(minimumClarity: 0), unclear) == .fast)
        // Clear speech (40 dB above the noise) stays fast.
        var clearFrame = false
        #expect(try final(policy: .init()) { stream in
            clearFrame.toggle()
            return stream.next(level: clearFrame ? -20 : -60, speech: clearFrame)
        } == .fast)
        // An accurate initial recommendation in a quiet room comes back to fast.
        #expect(try final(policy: .init(initialRecommendation: .accurate)) { $0.next(level: -60) } == .fast)
    }

    @Test("reset gives the same measurements; flush emits the tail once")
    func resetAndFlush() throws {
        let analyzer = try EnvironmentAnalyzer()
        func run() -> [EnvironmentMeasurement] {
            var stream = FeatureStream()
            var out: [EnvironmentMeasurement] = []
            for i in 0..<100 {
                if let m = analyzer.add(stream.next(level: -40 - Double(i % 7), speech: i % 3 == 0, music: i % 5 == 0)) { out.append(m) }
            }
            out += [EnvironmentMeasurement](unsafeUninitializedCapacity: 1) { $1 = analyzer.flush(into: $0) }
            return out
        }
        let first = run()
        analyzer.reset()
        let second = run()
        #expect(first == second)
        // 100 frames = 102 400 samples: boundaries 8000…96 000 (12) plus the flushed tail.
        #expect(first.count == 13)
        #expect(first.last?.endSample == 102_400)
        let summary = analyzer.finalize()
        #expect(summary.measurementCount == 13)
        #expect(summary.durationSeconds == 6.4)
        // The flush left a fresh stream: flushing it measures nothing, and its summary is empty.
        #expect([EnvironmentMeasurement](unsafeUninitializedCapacity: 1) { $1 = analyzer.flush(into: $0) }.isEmpty)
        #expect(analyzer.finalize().measurementCount == 0)
        let categories = NoiseCategory.allCases.map { summary.secondsInCategory[$0] }.reduce(0, +)
        #expect(abs(categories - 6.4) < 1e-12)
    }
}

/// Ten hours of frames through one analyzer: measurement positions stay exact integers.
@Suite struct EnvironmentLongStreamTests {
    @Test("a 10-hour frame stream: every measurement at the first frame end reaching each 0.5 s")
    func tenHours() throws {
        let analyzer = try EnvironmentAnalyzer()
        let frames = 36_000 * 16_000 / 1024
        var count = 0
        var last: Int64 = 0
        for k in 0..<frames {
            let start = Int64(k) * 1024
            let speech = (100..<150).contains(k % 1000)
            let frame = AnalysisFrame(
                startSample: start, sampleCount: 1024, levelDBFS: speech ? -20 : -50, isSpeech: speech,
                noiseFloorDBFS: -50, spectralEntropy: 0.6)
            if let m = analyzer.add(frame) {
                // The first frame end at or past the next multiple of 8000 samples.
                let boundary = (last / 8000 + 1) * 8000
                #expect(m.endSample == (boundary + 1023) / 1024 * 1024)
                last = m.endSample
                count += 1
            }
        }
        #expect(count == 72_000)
        #expect(last == 576_000_000)
        // The last frame ended exactly on a measurement: the flush has nothing left to measure.
        #expect([EnvironmentMeasurement](unsafeUninitializedCapacity: 1) { $1 = analyzer.flush(into: $0) }.isEmpty)
    }
}
