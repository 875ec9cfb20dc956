import DSPCore
@testable import DSPDetection
import DSPSpectral
import Testing
import TestSupport

/// LoopedBackground: the period and level of a background that repeats itself, found from the
/// hops' total level (under speech from the hops the detector hears no speech in), and no period
/// where nothing repeats.
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
                if loop.add(power: power, speechProbability: 0, scratch: scratch) { scores.append(loop.score) }
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
            if loop.add(power: power, speechProbability: 0, scratch: scratch) {
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
        for k in 0..<500 { loop.add(power: k % 50 < 2 ? 1 : 1e-4, speechProbability: 0, scratch: scratch) }
        #expect(loop.score > 0.99 && loop.periodHops == 50, "score \(loop.score), period \(loop.periodHops) hops")
        loop.reset()
        #expect(loop.score == 0 && loop.periodHops == 0 && loop.levelDB == -.infinity && loop.isEmpty)
    }

    /// Hop powers of a loop of 50 hops (0.8 s: a burst 20 dB over its floor, decaying by 2 dB a
    /// hop) under a talker: speech 15–35 dB over the floor in runs of `talk` hops with pauses of
    /// `pause` (a seeded generator; the first `hops` hops, then `laterHops` more with `laterTalk`
    /// and `laterPause`), and the detector's probability 0.9 in the runs and 0.1 in the pauses.
    /// Returns the hops, their probabilities and the loop's 0.5 s level (the median over the
    /// phases of the 31-hop block level, as `LoopedBackground` reads it).
    static func loopUnderTalker(hops: Int, talk: ClosedRange<Int> = 10...40, pause: ClosedRange<Int> = 5...20,
                                laterHops: Int = 0, laterTalk: ClosedRange<Int> = 10...40,
                                laterPause: ClosedRange<Int> = 5...20) -> (power: [Float], speech: [Float], loopDB: Double) {
        let floor: Float = 1e-5
        let profile = (0..<50).map { k in floor * (1 + 100 * Float(Decibels.toPower(Double(-2 * k)))) }
        var state: UInt64 = 23
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        var power: [Float] = [], speech: [Float] = []
        while power.count < hops + laterHops {
            let later = power.count >= hops
            let (talkRange, pauseRange) = later ? (laterTalk, laterPause) : (talk, pause)
            let talk = talkRange.lowerBound + next(talkRange.count), pause = pauseRange.lowerBound + next(pauseRange.count)
            for _ in 0..<talk {
                power.append(profile[power.count % 50] + floor * Float(Decibels.toPower(Double(15 + next(21)))))
                speech.append(0.9)
            }
            for _ in 0..<pause {
                power.append(profile[power.count % 50])
                speech.append(0.1)
            }
        }
        let blocks = (0..<50).map { phase in (0..<31).map { Double(profile[(phase + $0) % 50]) }.reduce(0, +) / 31 }
        let loopDB = Decibels.fromPower(blocks.sorted()[25])
        return (Array(power.prefix(hops + laterHops)), Array(speech.prefix(hops + laterHops)), loopDB)
    }

    @Test("a loop under a talker: found from the hops heard without speech, its period and its level")
    func loopUnderSpeech() throws {
        let (power, speech, loopDB) = Self.loopUnderTalker(hops: 1_875)
        let loop = LoopedBackground(hopSeconds: 256.0 / 16_000)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: loop.scratchBytes, alignment: 16)
        defer { scratch.deallocate() }
        for (p, s) in zip(power, speech) { loop.add(power: p, speechProbability: s, scratch: scratch) }
        #expect(loop.score >= NoiseLevelEstimator.loopScoreThreshold && loop.periodHops == 50,
                "score \(loop.score), period \(loop.periodHops) hops")
        // Each phase's least over its clear repetitions is the loop alone (0.5 dB steps); a phase
        // the talker covers in every repetition keeps its least over all of them, which speech
        // can only raise: never more than 1 dB low, at most 2.5 dB high (here 1.8 dB: a few
        // phases of the burst are covered by speech in all seven repetitions of the window).
        let error = Double(loop.levelDB) - loopDB
        #expect(error >= -1 && error <= 2.5, "level \(loop.levelDB) for the loop's \(loopDB) dBFS")
        // Without the detector's word (every hop heard without speech), the talker hides it.
        let blind = LoopedBackground(hopSeconds: 256.0 / 16_000)
        var best: Float = 0
        for p in power where blind.add(power: p, speechProbability: 0, scratch: scratch) { best = Swift.max(best, blind.score) }
        #expect(best < NoiseLevelEstimator.loopScoreThreshold, "the talker's hops scored \(best) as a loop")
    }

    @Test("pauses whose decays line up one lag apart are not a loop (they cover too few of its phases)")
    func alignedPauses() throws {
        // Speech for 30 s, with a 16-hop pause every 100 hops in which the level decays the same
        // way each time: the clear pairs at lag 100 correlate perfectly, over 14 of its phases.
        let loop = LoopedBackground(hopSeconds: 256.0 / 16_000)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: loop.scratchBytes, alignment: 16)
        defer { scratch.deallocate() }
        var state: UInt64 = 7
        var best: Float = 0
        for k in 0..<1_875 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let inPause = k % 100 >= 84
            let power = inPause ? Float(Decibels.toPower(Double(-30 - 2 * (k % 100 - 84))))
                : Float(Decibels.toPower(-30 + Double((state >> 33) % 20)))
            if loop.add(power: power, speechProbability: inPause ? 0.1 : 0.9, scratch: scratch) {
                best = Swift.max(best, loop.score)
            }
        }
        #expect(best < NoiseLevelEstimator.loopScoreThreshold, "aligned pauses scored \(best), period \(loop.periodHops)")
    }

    @Test("a loop read under a talker stays read where the talker's pauses come to cover fewer of its phases (half the coverage for its period)")
    func loopUnderDenserSpeech() throws {
        // 12 s of the talker above, then 18 s in which the talker pauses at the same 19 phases of
        // every repetition of the loop (10–28 of its 50): clear pairs one period apart correlate
        // perfectly but cover 17 phases, 0.34 of the period, under the 0.4 a new period needs.
        let (first, firstSpeech, loopDB) = Self.loopUnderTalker(hops: 750)
        var power = first, speech = firstSpeech
        var state: UInt64 = 5
        let floor: Float = 1e-5
        for k in 750..<1_875 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let phase = k % 50
            let loop = floor * (1 + 100 * Float(Decibels.toPower(Double(-2 * phase))))
            let pause = (10...28).contains(phase)
            power.append(pause ? loop : loop + floor * Float(Decibels.toPower(Double(15 + Int((state >> 33) % 21)))))
            speech.append(pause ? 0.1 : 0.9)
        }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1_024, alignment: 16)
        defer { scratch.deallocate() }
        func run(_ range: Range<Int>) -> (reads: Int, analyses: Int, period: Int, level: Float) {
            let loop = LoopedBackground(hopSeconds: 256.0 / 16_000)
            var reads = 0, analyses = 0
            for k in range where loop.add(power: power[k], speechProbability: speech[k], scratch: scratch) {
                // Analyses whose window lies wholly in the later part.
                guard k >= 750 + 375 else { continue }
                analyses += 1
                if loop.score >= NoiseLevelEstimator.loopScoreThreshold { reads += 1 }
            }
            return (reads, analyses, loop.periodHops, loop.levelDB)
        }
        let whole = run(0..<power.count)
        #expect(whole.reads == whole.analyses && whole.period % 50 == 0,
                "read in \(whole.reads) of \(whole.analyses) analyses, period \(whole.period) hops")
        // The burst's phases are under speech in every repetition: they keep the least of loop
        // and speech, so the level can read high here, never low.
        #expect(Double(whole.level) >= loopDB - 1, "level \(whole.level) for the loop's \(loopDB) dBFS")
        let later = run(750..<power.count)
        #expect(later.reads == 0, "the later part alone read the loop in \(later.reads) of \(later.analyses) analyses")
    }
}
