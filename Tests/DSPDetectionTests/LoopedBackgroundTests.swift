import DSPCore
@testable import DSPDetection
import DSPSpectral
import Testing
import TestSupport

/// LoopedBackground: the period and level of a background that repeats itself, found from the
/// hops' total level, and no period where nothing repeats.
@Suite("LoopedBackground")
struct LoopedBackgroundTests {
    /// The scores of `signal`'s analyses (16 kHz, the detector's 16 ms hops), its last period
    /// and level.
    static func analyse(_ signal: [Float]) throws -> (scores: [Float], periodHops: Int, levelDB: Float) {
        let analyzer = try SpectralAnalyzer()
        let loop = LoopedBackground(hopSeconds: 256.0 / 16_000)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: loop.scratchBytes, alignment: 16)
        defer { scratch.deallocate() }
        var scores: [Float] = []
        signal.withUnsafeBufferPointer { p in
            analyzer.process(p) { frame in
                var power: Float = 0
                for k in 1..<frame.powerSpectrum.count { power += frame.powerSpectrum[k] }
                if loop.add(power: power, scratch: scratch) { scores.append(loop.score) }
            }
        }
        return (scores, loop.periodHops, loop.levelDB)
    }

    @Test("a looped burst: its period within a hop, a score of at least 0.99, its 0.5 s level within 1.5 dB",
          arguments: [6_400, 14_400, 40_000])
    func loop(periodSamples: Int) throws {
        let (x, _) = NoiseLevelEstimatorTests.loopedBursts(seconds: 10, periodSamples: periodSamples, peakDBFS: -30,
                                                           decayDB: 35, floorBelowDB: 50)
        // The truth: the median level of the signal's 0.5 s windows starting at every hop (every
        // phase of the loop, where the scene corpus's fixed blocks sample a few).
        var energy = [0.0]
        for v in x { energy.append(energy.last! + Double(v) * Double(v)) }
        let windows = stride(from: 0, through: x.count - 8_000, by: 256).map { Decibels.fromPower((energy[$0 + 8_000] - energy[$0]) / 8_000) }
        let truth = windows.sorted()[windows.count / 2]
        let result = try Self.analyse(x)
        let period = Double(periodSamples) / 256
        #expect(abs(Double(result.periodHops) - period) <= 1, "period \(result.periodHops) hops for \(period)")
        #expect((result.scores.last ?? 0) >= NoiseLevelEstimator.loopScoreThreshold, "scores \(result.scores)")
        // Each phase's least over the repetitions is the burst at that phase, so the median of
        // the profile's 0.5 s levels is the signal's (the spectrum's bins sum to the mean square).
        // Stored in 0.5 dB steps: within 1.5 dB.
        #expect(abs(Double(result.levelDB) - truth) <= 1.5, "level \(result.levelDB) for 0.5 s blocks at \(truth) dBFS")
    }

    @Test("speech, steady noise and a reverberant talker: no score reaches the threshold")
    func nothingRepeats() throws {
        let speech = try AnalysisChainTests.mono16k("speech_en-us_16k.wav")
        let noise = NoiseLevelEstimatorTests.noise(count: speech.count, dBFS: -50, seed: 5)
        let h = ReverberationEstimatorTests.roomResponse(rt60: 1.2, drrDB: 0, seed: 7)
        let room = try ReverberationEstimatorTests.convolve(speech, h)
        for (name, x) in [("speech", speech), ("noise", noise), ("speech over noise", zip(speech, noise).map { $0 + $1 }),
                          ("reverberant speech", room)] {
            let scores = try Self.analyse(x).scores
            #expect((scores.max() ?? 0) < NoiseLevelEstimator.loopScoreThreshold, "\(name): scores \(scores)")
        }
    }

    @Test("the pace: every 1.5 s while nothing repeats, every 0.5 s once a score reaches 0.9")
    func pace() throws {
        let loop = LoopedBackground(hopSeconds: 256.0 / 16_000)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: loop.scratchBytes, alignment: 16)
        defer { scratch.deallocate() }
        #expect(loop.refreshHops == 31 && loop.idleRefreshHops == 94)
        // Noise for 10 s (625 hops), then a click every 50 hops (0.8 s) over a steady floor for 10 s.
        var state: UInt32 = 1
        var analysed: [Int] = []
        var busyFrom: Int?
        for k in 0..<1_250 {
            state = state &* 1_664_525 &+ 1_013_904_223
            let noise = 1e-4 * (1 + Float(state >> 8) / Float(1 << 24))
            let power: Float = k < 625 ? noise : (k % 50 < 2 ? 1 : 1e-4)
            if loop.add(power: power, scratch: scratch) {
                analysed.append(k + 1)
                if busyFrom == nil, loop.score >= LoopedBackground.busyScore { busyFrom = k + 1 }
            }
        }
        let steps = zip(analysed.dropFirst(), analysed).map { $0 - $1 }
        let first = try #require(busyFrom, "the clicks never scored \(LoopedBackground.busyScore)")
        for (at, step) in zip(analysed.dropFirst(), steps) {
            // The step that ends at `at` was chosen by the score of the analysis before it.
            #expect(step == (at - step >= first ? 31 : 94), "an analysis after \(step) hops at hop \(at)")
        }
        #expect(first > 625 && first < 625 + 5 * 94, "the clicks first scored 0.9 at hop \(first)")
        #expect(loop.score >= NoiseLevelEstimator.loopScoreThreshold)
    }

    @Test("reset forgets the hops; a window shorter than two seconds gives no reading")
    func resetAndShortWindow() throws {
        let (x, _) = NoiseLevelEstimatorTests.loopedBursts(seconds: 1.9, periodSamples: 6_400, peakDBFS: -30,
                                                          decayDB: 35, floorBelowDB: 50)
        let short = try Self.analyse(x)
        #expect(short.scores.allSatisfy { $0 == 0 } && short.periodHops == 0 && short.levelDB == -.infinity)
        let loop = LoopedBackground(hopSeconds: 256.0 / 16_000)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: loop.scratchBytes, alignment: 16)
        defer { scratch.deallocate() }
        // A click every 50 hops (0.8 s), 40 dB over a steady floor.
        for k in 0..<500 { loop.add(power: k % 50 < 2 ? 1 : 1e-4, scratch: scratch) }
        #expect(loop.score > 0.99 && loop.periodHops == 50, "score \(loop.score), period \(loop.periodHops) hops")
        loop.reset()
        #expect(loop.score == 0 && loop.periodHops == 0 && loop.levelDB == -.infinity && loop.isEmpty)
    }
}
