import DSPCore
import DSPDetection
import Testing
import TestSupport

/// DSPDetection's allocating tier — arrays and spans in; events, frames, segments and summaries
/// out — against the hot tier on the same input, with the empty and one-sample streams.
@Suite("DSPDetection: the array tier equals the hot tier")
struct ArrayTierTests {
    /// Eight seconds of speech over music, 16 kHz mono.
    static func speech() throws -> [Float] {
        Array(try AnalysisChainTests.mono16k("eval_speech_music_16k.flac").prefix(8 * 16_000))
    }

    @Test("AnalysisChain: events and summary (analyze), segments paired from the hot tier's events")
    func chain() throws {
        let x = try Self.speech()
        var failures = try checkArrayTier({ try AnalysisChain() }, input: x, same: ==)
        failures += try checkAnalyze({ try AnalysisChain() }, input: x, same: ==, sameSummary: ==)
        #expect(failures.isEmpty, "\(failures)")

        // Segments: the hot tier's events, paired here independently of ActivitySegment.
        let events = runStream(try AnalysisChain(), x, chunking: .random)
        var starts: [Activity: Int64] = [:]
        var expected: [ActivitySegment] = []
        for event in events {
            if case .started(let a, let t) = event { starts[a] = t }
            if case .ended(let a, let t) = event {
                expected.append(ActivitySegment(activity: a, startSample: try #require(starts[a]), endSample: t))
            }
        }
        let segments = try AnalysisChain().analyze(x).segments
        #expect(Set(segments) == Set(expected) && segments.count == expected.count)
        #expect(segments.contains { $0.activity == .speech }, "speech in a speech file")
        #expect(segments == segments.sorted { $0.startSample < $1.startSample })
        #expect(try AnalysisChain().analyze([]).segments.isEmpty)
    }

    @Test("AcousticDetector: frames and end (analyze); its segments are the chain's")
    func detector() throws {
        let x = try Self.speech()
        let failures = try checkArrayTier({ try AcousticDetector() }, input: x, same: sameDescription)
            + checkAnalyze({ try AcousticDetector() }, input: x, same: sameDescription)
        #expect(failures.isEmpty, "\(failures)")
        let detected = try AcousticDetector().analyze(x).segments
        #expect(!detected.isEmpty)
        #expect(detected == (try AnalysisChain(configuration: .init(environment: nil)).analyze(x).segments))
        #expect(try AcousticDetector().analyze([]).segments.isEmpty)
    }

    @Test("EnvironmentAnalyzer, ReverberationEstimator, BandwidthEstimator: analyze equals process + finalize")
    func sceneEstimators() throws {
        let x = try Self.speech()
        var failures = try checkAnalyze({ try ReverberationEstimator() }, input: x, same: ==, sameSummary: ==)
        failures += try checkArrayTier({ try ReverberationEstimator() }, input: x, same: ==)
        failures += try checkAnalyze({ try BandwidthEstimator(configuration: .init(sampleRate: 16_000)) }, input: x, same: ==, sameSummary: ==)
        #expect(try BandwidthEstimator(configuration: .init(sampleRate: 16_000)).analyze(x).summary.status != .tooLittleSignal)

        // The environment analyzer's input is the chain's frames: a synthetic run of them.
        var frames: [AnalysisFrame] = []
        for i in 0..<200 {
            let speech = (i / 20) % 2 == 1
            frames.append(AnalysisFrame(
                startSample: Int64(i * 1024), sampleCount: 1024, levelDBFS: speech ? -25 : -55,
                speechProbability: speech ? 0.9 : 0.1, isSpeech: speech, noiseFloorDBFS: -58,
                musicProbability: 0.1, isMusic: false, multiSpeakerProbability: 0.1, isMultiSpeaker: false,
                spectralEntropy: 0.5))
        }
        failures += try checkArrayTier({ try EnvironmentAnalyzer() }, input: frames, same: ==)
        failures += try checkAnalyze({ try EnvironmentAnalyzer() }, input: frames, same: ==, sameSummary: ==)
        #expect(try EnvironmentAnalyzer().analyze(frames).outputs.count >= 6)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("NoiseFloorTracker and NoiseLevelEstimator on arrays")
    func noise() throws {
        let powers = testSignal(count: 8 * 700 + 3, seed: 41).map { $0 * $0 }
        var failures = try checkArrayTier(
            { try NoiseFloorTracker(configuration: .init(bandCount: 8, frameSeconds: 0.016, windowSeconds: 0.5)) },
            input: powers, same: sameBits)
        failures += try checkArrayTier(
            { try NoiseLevelEstimator(configuration: .init(binCount: 33, bandCount: 4, windowSeconds: 0.5)) },
            input: powers, same: sameBits)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("ActivitySegment.segments: pairs starts and ends per activity, ordered by start")
    func pairing() {
        let events: [AnalysisEvent] = [
            .started(.music, at: 100), .started(.speech, at: 50), .ended(.speech, at: 400),
            .started(.speech, at: 500), .ended(.music, at: 900), .ended(.speech, at: 800),
            .started(.multipleSpeakers, at: 1_000),  // never ended: no segment
            .ended(.music, at: 1_200),  // no start: no segment
        ]
        #expect(ActivitySegment.segments(from: events) == [
            ActivitySegment(activity: .speech, startSample: 50, endSample: 400),
            ActivitySegment(activity: .music, startSample: 100, endSample: 900),
            ActivitySegment(activity: .speech, startSample: 500, endSample: 800),
        ])
        #expect(ActivitySegment.segments(from: []).isEmpty)
        let segment = ActivitySegment(activity: .speech, startSample: 8_000, endSample: 24_000)
        #expect(segment.startSeconds(sampleRate: 16_000) == 0.5 && segment.endSeconds(sampleRate: 16_000) == 1.5)
        #expect(segment.sampleCount == 16_000)
    }
}
