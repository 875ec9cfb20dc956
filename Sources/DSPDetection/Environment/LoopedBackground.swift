internal import CDSPKernels
import DSPCore
import DSPSpectral

/// A background that repeats itself: the period of the hops' total level and the level of what
/// repeats, for ``NoiseLevelEstimator`` (its *Looped backgrounds*).
///
/// A looped effect (a game's engine or alarm, a machine's cycle) lies on the hops' total
/// level as the same envelope again and again. The last ``windowSeconds`` of hop levels, at
/// ``stepDB`` resolution, are correlated with themselves at every lag up to
/// ``longestPeriodSeconds`` (Pearson; the products in `cdsp_loop_dot`); the period is the lag whose correlation peaks highest above the
/// lowest correlation at any shorter lag (a smooth envelope, such as speech under a room's
/// reverberation, correlates well at short lags but has no such peak). Its *score* is the lesser
/// of the peak and that rise. The background's level is then read phase by phase: at each phase
/// of the period, the least level over the repetitions in the window (speech over the loop only
/// adds power, so one repetition without it at that phase is enough); the level is the median,
/// over the phases, of the 0.5 s block levels of that profile.
///
/// A coarse pass comes first: the same score over pairs of hops (their mean level) and lags in
/// pairs, a quarter of the products; where it stays under ``gateScore`` the full search does not
/// run.
///
/// *Under a foreground.* Speech over a loop breaks the envelope's correlation (a loop under a
/// talker scores 0.1–0.9). Each stored hop is also marked *clear* when the detector hears no
/// speech in it (probability under ``clearSpeechThreshold``), nor within ``speechGuardHops``
/// hops of a hop it does, and it is not digital silence. Where the whole window's search scores
/// under ``maskedBelowScore`` and the window holds both clear hops and others, the search runs
/// again over the pairs of clear hops only (a lag with fewer than ``leastPairsShare`` of the
/// window's hops in clear pairs scores 0), coarse pass first; its period is read where it
/// scores higher and its clear pairs cover ``leastCoverage`` of the period's phases (half that
/// for a period, or its second or third multiple, that such a search read within the last
/// window), and each
/// phase's least level is then taken over the clear repetitions (over all of them where none
/// is clear).
///
/// Analysed every ``refreshSeconds`` while the last analysis scored at least ``busyScore`` (a
/// loop is being read, or something near one), and every ``idleRefreshSeconds`` otherwise: a
/// loop is found at most a second later than at the faster pace (the window must hold two
/// periods before it scores at all), for a third of the analyses where nothing repeats. At the
/// same hops whatever the caller's chunking; never allocates after `init`.
final class LoopedBackground {
    /// The span of hop levels analysed, seconds.
    static let windowSeconds = 6.0
    /// The least span analysed, seconds (before it the stream has no reading).
    static let shortestWindowSeconds = 2.0
    /// The shortest and longest periods looked for, seconds.
    static let shortestPeriodSeconds = 0.2
    static let longestPeriodSeconds = 2.6
    /// The resolution of the stored hop levels, dB (levels −127.5…0 dBFS in a byte; below is 0).
    static let stepDB: Float = 0.5
    /// Hop levels stored past the window before the newest are moved to the front.
    static let slackHops = 32
    /// Time between analyses while the last one scored at least ``busyScore``, seconds.
    static let refreshSeconds = 0.5
    /// Time between analyses otherwise, seconds.
    static let idleRefreshSeconds = 1.5
    /// The least score of the coarse pass (pairs of hops averaged, lags in pairs) for the full
    /// search to run. Chosen on dev: of 2532 analyses of the dev files, every one whose full score
    /// reached 0.99 scored at least 0.918 coarse; at 0.5 the coarse pass ends 70 % of them and
    /// every dev and test record is what the full search gives.
    static let gateScore = 0.5
    /// The least score that keeps the faster pace: under the estimator's threshold (0.99), so
    /// that a loop whose score wavers around it is not left unread for 1.5 s.
    static let busyScore: Float = 0.9
    /// The span of the block levels whose median is the loop's level, seconds (the 0.5 s
    /// blocks the scene corpus's truth is measured on).
    static let blockSeconds = 0.5
    /// How much higher a longer period's score must be to be taken over a shorter one.
    static let longerLagMargin = 0.005
    /// A hop whose speech probability is under this is clear (with the guard below). Chosen on
    /// dev from 0.3–0.7 (docs/scene-measures.md, *Loops under speech*).
    static let clearSpeechThreshold: Float = 0.5
    /// Hops on either side of a speech hop that are not clear (a word's onset and decay).
    /// Chosen on the scene corpus's dev split from 0, 1 and 2 (docs/scene-measures.md, *Loops
    /// under speech*).
    static let speechGuardHops = 1
    /// The least share of the window's hops that a lag's clear pairs must number to score
    /// (chosen on dev from 0.03, 0.05, 0.1 and 0.15: fewer pairs find more loops, and the
    /// coverage below keeps out what they would let in).
    static let leastPairsShare = 0.03
    /// The least share of the period's phases that the clear pairs must cover for the period to
    /// be read (chosen on dev from 0.3, 0.35, 0.4 and 0.5: a reverberant room's pauses lined up
    /// at a lag covered 0.21–0.27 while scoring 0.955–0.997; loops under speech covered 0.41–0.83).
    static let leastCoverage = 0.4
    /// The search over clear hops runs only where the whole window's scores under this, the
    /// estimator's ``NoiseLevelEstimator/loopScoreThreshold`` (a loop read without speech over
    /// it reads as before).
    static let maskedBelowScore = NoiseLevelEstimator.loopScoreThreshold

    /// Hop levels, oldest first, `count` of them; moved to the front when the slack runs out.
    private let levels: UnsafeMutableBufferPointer<UInt8>
    /// Whether each stored hop is clear (1) or not (0), beside `levels`.
    private let clear: UnsafeMutableBufferPointer<UInt8>
    /// Hops still to be marked not clear after the last speech hop.
    private var guardLeft = 0
    /// The period last read by the search over clear hops (0: none within the last window).
    private var clearPeriod = 0
    /// Hops since the search over clear hops last read a period.
    private var sinceClearRead = 0
    private var count = 0
    private let windowHops: Int
    private let shortestWindowHops: Int
    private let shortestLag: Int
    private let longestLag: Int
    let refreshHops: Int
    let idleRefreshHops: Int
    private let blockHops: Int
    private var sinceAnalysis = 0

    /// The last analysis: its score (0 when there is none), period in hops and level, dB.
    private(set) var score: Float = 0
    private(set) var periodHops = 0
    private(set) var levelDB: Float = -.infinity

    init(hopSeconds: Double) {
        windowHops = Swift.max(4, Int((Self.windowSeconds / hopSeconds).rounded()))
        shortestWindowHops = Swift.max(4, Int((Self.shortestWindowSeconds / hopSeconds).rounded()))
        shortestLag = Swift.max(2, Int((Self.shortestPeriodSeconds / hopSeconds).rounded()))
        longestLag = Swift.max(shortestLag + 1, Int((Self.longestPeriodSeconds / hopSeconds).rounded()))
        refreshHops = Swift.max(1, Int((Self.refreshSeconds / hopSeconds).rounded()))
        idleRefreshHops = Swift.max(refreshHops, Int((Self.idleRefreshSeconds / hopSeconds).rounded()))
        blockHops = Swift.max(1, Int((Self.blockSeconds / hopSeconds).rounded()))
        levels = .allocate(capacity: windowHops + Self.slackHops)
        levels.initialize(repeating: 0)
        clear = .allocate(capacity: windowHops + Self.slackHops)
        clear.initialize(repeating: 0)
        // The shared table is built here, once per process, not by the first analysis (which
        // runs inside a stream's `process`, where nothing may allocate).
        precondition(Self.powers.count == 256)
    }

    deinit {
        levels.deallocate()
        clear.deallocate()
    }

    /// Adds one hop's total power (mean-square units) and the detector's speech probability for
    /// it (0…1); analyses when the pace (``refreshHops`` or ``idleRefreshHops``) is due, in
    /// `scratch` (at least ``scratchBytes``; the caller's, free between calls). Returns whether
    /// it analysed.
    @discardableResult
    func add(power: Float, speechProbability: Float, scratch: UnsafeMutableRawBufferPointer) -> Bool {
        let byte = Self.byte(power)
        if count == levels.count {
            // Keep the newest `windowHops - 1`, oldest first.
            let keep = windowHops - 1
            let base = levels.baseAddress!
            base.update(from: base + (count - keep), count: keep)
            let marks = clear.baseAddress!
            marks.update(from: marks + (count - keep), count: keep)
            count = keep
        }
        levels[count] = byte
        if speechProbability < Self.clearSpeechThreshold {
            clear[count] = guardLeft == 0 && byte > 0 ? 1 : 0
            if guardLeft > 0 { guardLeft -= 1 }
        } else {
            clear[count] = 0
            var j = count - 1
            while j >= 0, j >= count - Self.speechGuardHops { clear[j] = 0; j -= 1 }
            guardLeft = Self.speechGuardHops
        }
        count += 1
        sinceAnalysis += 1
        if clearPeriod > 0 {
            sinceClearRead += 1
            if sinceClearRead > windowHops { clearPeriod = 0 }
        }
        guard sinceAnalysis >= (score >= Self.busyScore ? refreshHops : idleRefreshHops) else { return false }
        sinceAnalysis = 0
        analyse(scratch: scratch)
        return true
    }

    /// Whether nothing is stored and nothing read.
    var isEmpty: Bool { count == 0 && score == 0 }

    /// Forgets every hop (a gap in the stream's speech probabilities, or a reset).
    func reset() {
        count = 0
        guardLeft = 0
        clearPeriod = 0
        sinceClearRead = 0
        sinceAnalysis = 0
        score = 0
        periodHops = 0
        levelDB = -.infinity
    }

    /// The period and the level of the last `min(count, windowHops)` hops.
    private func analyse(scratch: UnsafeMutableRawBufferPointer) {
        let n = Swift.min(count, windowHops)
        score = 0
        periodHops = 0
        levelDB = -.infinity
        guard n >= shortestWindowHops else { return }
        let a = UnsafePointer(levels.baseAddress! + (count - n))
        // The coarse pass: pairs of hops averaged, the same score over lags in pairs. Where it
        // stays under ``gateScore`` nothing repeats closely enough for the full search to score
        // near ``busyScore``, and the analysis ends without a reading.
        let m = n / 2
        let coarse = scratch.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let first = n - 2 * m
        for j in 0..<m { coarse[j] = UInt8((Int(a[first + 2 * j]) + Int(a[first + 2 * j + 1]) + 1) / 2) }
        let gate = Self.peak(UnsafePointer(coarse), count: m, shortest: Swift.max(1, shortestLag / 2), longest: (longestLag + 1) / 2)
        if gate.score >= Self.gateScore {
            let found = Self.peak(a, count: n, shortest: shortestLag, longest: longestLag)
            if found.lag > 0 {
                score = Float(found.score)
                periodHops = found.lag
                levelDB = blockMedian(a, marks: nil, count: n, period: found.lag, scratch: scratch)
            }
        }
        if score < Self.maskedBelowScore { analyseClear(n: n, scratch: scratch) }
    }

    /// The search over the clear hops of the last `n` (the type's *Under a foreground*), taken
    /// where it scores higher than the whole window's.
    private func analyseClear(n: Int, scratch: UnsafeMutableRawBufferPointer) {
        let a = UnsafePointer(levels.baseAddress! + (count - n))
        let marks = UnsafePointer(clear.baseAddress! + (count - n))
        var clearHops = 0
        for i in 0..<n { clearHops &+= Int(marks[i]) }
        let leastPairs = Int((Self.leastPairsShare * Double(n)).rounded(.up))
        // All clear: the whole window's search has said it all; too few: no lag can score.
        guard clearHops < n, clearHops >= leastPairs else { return }
        // The coarse pass over pairs of hops: a pair is clear when both its hops are.
        let m = n / 2
        let coarse = scratch.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let coarseMarks = coarse + m
        let first = n - 2 * m
        for j in 0..<m {
            let i = first + 2 * j
            coarse[j] = UInt8((Int(a[i]) + Int(a[i + 1]) + 1) / 2)
            coarseMarks[j] = marks[i] & marks[i + 1]
        }
        let gate = Self.clearPeak(UnsafePointer(coarse), marks: UnsafePointer(coarseMarks), count: m,
                                  shortest: Swift.max(1, shortestLag / 2), longest: (longestLag + 1) / 2,
                                  leastPairs: (leastPairs + 1) / 2)
        guard gate.score >= Self.gateScore else { return }
        let found = Self.clearPeak(a, marks: marks, count: n, shortest: shortestLag, longest: longestLag,
                                   leastPairs: leastPairs)
        guard found.lag > 0, Float(found.score) > score else { return }
        // The clear pairs must cover the period's phases: a few pauses whose decays happen to
        // line up one lag apart correlate as well as a loop, over a handful of phases only.
        let covered = scratch.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let lag = found.lag
        for k in 0..<lag { covered[k] = 0 }
        var phase = 0
        for t in 0..<(n - lag) {
            covered[phase] |= marks[t] & marks[t + lag]
            phase = phase + 1 == lag ? 0 : phase + 1
        }
        var coveredPhases = 0
        for k in 0..<lag { coveredPhases += Int(covered[k]) }
        // A period already read this way (or its second or third multiple, within a hop per
        // multiple) needs half the coverage: a talker who speaks more leaves fewer clear pairs,
        // while what repeats stays where it was.
        var needed = Self.leastCoverage
        if clearPeriod > 0 {
            for k in 1...3 where abs(lag - k * clearPeriod) <= k { needed = Self.leastCoverage / 2 }
        }
        guard Double(coveredPhases) >= needed * Double(lag) else { return }
        if found.score >= Double(Self.maskedBelowScore) {
            if needed == Self.leastCoverage { clearPeriod = lag }
            sinceClearRead = 0
        }
        score = Float(found.score)
        periodHops = found.lag
        levelDB = blockMedian(a, marks: marks, count: n, period: found.lag, scratch: scratch)
    }

    /// The lag in `shortest ... longest` (at most `count / 2`) whose correlation peaks highest
    /// above the lowest correlation at any shorter lag, and its score (the lesser of the peak
    /// and that rise); lag 0 when none peaks.
    private static func peak(_ a: UnsafePointer<UInt8>, count n: Int, shortest: Int, longest: Int) -> (lag: Int, score: Double) {
        var sum = 0, sumSquares = 0
        for i in 0..<n { let v = Int(a[i]); sum += v; sumSquares += v * v }
        // Sums over the leading n − lag values (x) and the trailing ones (y), kept as lag grows.
        var sx = sum, sy = sum, sxx = sumSquares, syy = sumSquares
        var search = PeakSearch(shortest: shortest, longest: longest)
        var lag = 1
        while lag <= Swift.min(longest + 1, n / 2) {
            let x = Int(a[n - lag]), y = Int(a[lag - 1])
            sx -= x; sxx -= x * x; sy -= y; syy -= y * y
            let m = n - lag
            let sxy = Double(cdsp_loop_dot(a, a + lag, Int32(m)))
            search.add(lag: lag, correlation: pearson(count: Double(m), sx: Double(sx), sy: Double(sy),
                                                       sxx: Double(sxx), syy: Double(syy), sxy: sxy))
            lag += 1
        }
        return (search.bestLag, search.best)
    }

    /// ``peak(_:count:shortest:longest:)`` over the pairs of hops whose `marks` are both 1
    /// (`cdsp_loop_masked_sums`); a lag with fewer than `leastPairs` such pairs correlates 0.
    private static func clearPeak(_ a: UnsafePointer<UInt8>, marks: UnsafePointer<UInt8>, count n: Int,
                                  shortest: Int, longest: Int, leastPairs: Int) -> (lag: Int, score: Double) {
        var sums: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0, 0, 0)
        var search = PeakSearch(shortest: shortest, longest: longest)
        var lag = 1
        while lag <= Swift.min(longest + 1, n / 2) {
            withUnsafeMutableBytes(of: &sums) { raw in
                cdsp_loop_masked_sums(a, a + lag, marks, marks + lag, Int32(n - lag),
                                      raw.baseAddress!.assumingMemoryBound(to: UInt32.self))
            }
            let r = Int(sums.0) >= leastPairs
                ? pearson(count: Double(sums.0), sx: Double(sums.1), sy: Double(sums.2),
                          sxx: Double(sums.3), syy: Double(sums.4), sxy: Double(sums.5))
                : 0
            search.add(lag: lag, correlation: r)
            lag += 1
        }
        return (search.bestLag, search.best)
    }

    /// Pearson's correlation from the sums over `count` pairs (0 where either side is constant).
    @inline(__always)
    private static func pearson(count: Double, sx: Double, sy: Double, sxx: Double, syy: Double, sxy: Double) -> Double {
        let cov = sxy - sx * sy / count
        let vx = sxx - sx * sx / count
        let vy = syy - sy * sy / count
        return vx > 0 && vy > 0 ? cov / (vx * vy).squareRoot() : 0
    }

    /// The peak search of ``peak(_:count:shortest:longest:)``, fed the correlation at lags 1, 2, …
    /// in order: a peak at lag − 1 (above both neighbours) scores the lesser of its correlation
    /// and its rise over the lowest correlation at any shorter lag.
    private struct PeakSearch {
        let shortest: Int, longest: Int
        var lowest = Double.infinity
        var previous = -Double.infinity, beforePrevious = -Double.infinity
        private(set) var best = 0.0, bestLag = 0

        init(shortest: Int, longest: Int) {
            self.shortest = shortest
            self.longest = longest
        }

        @inline(__always)
        mutating func add(lag: Int, correlation r: Double) {
            let peakLag = lag - 1
            if peakLag >= shortest, peakLag <= longest, previous > 0, previous >= beforePrevious, previous >= r {
                let s = Swift.min(previous, previous - lowest)
                // A multiple of the period correlates as well: a longer lag must score higher by
                // ``longerLagMargin``.
                if bestLag == 0 ? s > best : s > best + longerLagMargin { best = s; bestLag = peakLag }
            }
            if lag >= 2 { lowest = Swift.min(lowest, previous) }
            beforePrevious = previous
            previous = r
        }
    }

    /// The median over the period's phases of the 0.5 s block level (``blockHops`` hops) of the
    /// loop read phase by phase: at each phase the least level over the repetitions in the last
    /// `count` hops; with `marks`, over its clear repetitions where it has one (a phase that
    /// speech covers in every repetition keeps the least over all of them: chosen on dev over
    /// leaving such phases out of the blocks, which reads a loop's burst low where speech hides
    /// it). −∞ when the loop is silent. `scratch` holds the profile and the block levels
    /// (2 × `period` bytes).
    private func blockMedian(_ a: UnsafePointer<UInt8>, marks: UnsafePointer<UInt8>?, count n: Int, period: Int,
                             scratch: UnsafeMutableRawBufferPointer) -> Float {
        let repeats = n / period
        let start = n - repeats * period
        let profile = scratch.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let blockLevels = profile + period
        for phase in 0..<period {
            var q = a[start + phase]
            var j = 1
            while j < repeats { q = Swift.min(q, a[start + j * period + phase]); j += 1 }
            if let marks {
                var clearLeast = 256
                for j in 0..<repeats where marks[start + j * period + phase] != 0 {
                    clearLeast = Swift.min(clearLeast, Int(a[start + j * period + phase]))
                }
                if clearLeast < 256 { q = UInt8(clearLeast) }
            }
            profile[phase] = q
        }
        let table = Self.powers
        let block = blockHops
        var sum = 0.0
        for k in 0..<block { sum += table[Int(profile[k % period])] }
        var loudest = 0.0
        for phase in 0..<period {
            loudest = Swift.max(loudest, sum)
            blockLevels[phase] = Self.byte(Float(sum / Double(block)))
            sum += table[Int(profile[(phase + block) % period])] - table[Int(profile[phase])]
        }
        guard loudest > 0 else { return -.infinity }
        return Self.medianLevel(UnsafePointer(blockLevels), count: period)
    }

    /// The median of `count` stored level bytes as a level, dB (−∞ for silence), by bisection
    /// over the byte values.
    private static func medianLevel(_ bytes: UnsafePointer<UInt8>, count: Int) -> Float {
        var lo = 0, hi = 255
        let half = (count + 1) / 2
        while lo < hi {
            let mid = (lo + hi) / 2
            var below = 0
            for k in 0..<count where Int(bytes[k]) <= mid { below += 1 }
            if below >= half { hi = mid } else { lo = mid + 1 }
        }
        return lo > 0 ? Float(lo) * stepDB - 127.5 : -.infinity
    }

    /// A power (mean-square units) as a stored byte: its level in ``stepDB`` steps from −127.5 dBFS.
    static func byte(_ power: Float) -> UInt8 {
        let db = power > 0 ? FastLog.decibels(power) : -Float.infinity
        let q = (db + 127.5) / stepDB
        return q >= 255 ? 255 : (q > 0 ? UInt8(q.rounded()) : 0)
    }

    /// The power of each stored byte (0: silence): one table for every stream, 2 kB
    /// (``sharedBytes``).
    private static let powers: [Double] = (0..<256).map { q in
        q == 0 ? 0 : Decibels.toPower(Double(Float(q) * stepDB - 127.5))
    }

    /// Bytes held.
    var bytes: Int { MemoryFootprint.bytes(levels) + MemoryFootprint.bytes(clear) }
    /// Bytes shared by every stream (the byte-to-power table).
    var sharedBytes: Int { 256 * MemoryLayout<Double>.stride }

    /// The scratch an analysis needs, bytes: the coarse pass's levels and clear marks (a byte each
    /// per pair of hops), then the profile and the block levels (a byte per phase each).
    var scratchBytes: Int { Swift.max(2 * longestLag, 2 * (windowHops / 2)) }
}
