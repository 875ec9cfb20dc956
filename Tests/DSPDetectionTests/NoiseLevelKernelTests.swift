import CDSPKernels
import Testing

/// The background-noise estimator's C kernels (CDSPNoiseLevel.h) against plain Swift oracles
/// written from the contract: whole-row running sums and linear scans, the occupancy rounds as
/// the estimator ran them in Swift before the kernels, per-hop counting and per-band sums.
/// Every comparison is bit for bit: the kernels promise the same operations in the same order.
@Suite("NoiseLevelEstimator C kernels")
struct NoiseLevelKernelTests {
    static let parameters = cdsp_noise_median_params(
        floor_db: -150, bins: 160, rounds: 7, steady_rounds: 3, margin_db: 3, fluctuation_share: 0.15,
        maximum_fluctuation_db: 5, fluctuation_threshold_db: 1.5, maximum_margin_db: 10)

    /// A fixed LCG's uniform in [0, 1).
    struct Generator {
        var state: UInt64
        init(seed: UInt64) { state = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407 }
        mutating func next() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(state >> 40) / Float(1 << 24)
        }
        mutating func int(_ range: Range<Int>) -> Int { range.lowerBound + Int(next() * Float(range.count)) % range.count }
    }

    /// A histogram row with weight only in `low ... high`: a bump of noise, a louder foreground
    /// bump and scattered bins, with zeros inside the span and forgetting-weight-like values.
    static func row(_ g: inout Generator, low: Int, high: Int) -> [Float] {
        var h = [Float](repeating: 0, count: 160)
        let centre = g.int(low..<(high + 1)), loud = g.int(low..<(high + 1))
        for i in low...high {
            let d = Float(i - centre), e = Float(i - loud)
            var w = 40 * Float.exp(-d * d / 18) + 12 * Float.exp(-e * e / 30)
            if g.next() < 0.2 { w = 0 }
            if g.next() < 0.1 { w += 3 * g.next() }
            h[i] = w * (0.5 + g.next())
        }
        h[low] = Swift.max(h[low], 0.01)
        h[high] = Swift.max(h[high], 0.01)
        return h
    }

    // MARK: Oracles (the contract, in plain Swift)

    static func cumulative(_ h: [Float]) -> [Float] {
        var c = [Float](repeating: 0, count: h.count + 1)
        var running: Float = 0
        for i in 0..<h.count { running += h[i]; c[i + 1] = running }
        return c
    }

    static func quantile(_ h: [Float], _ c: [Float], _ target: Float) -> Float {
        let floor: Float = -150
        guard c[h.count] >= target else { return floor + Float(h.count) }
        var i = 0
        while !(c[i + 1] >= target) { i += 1 }
        while h[i] <= 0, i + 1 < h.count { i += 1 }
        return floor + Float(i) + Swift.max(0, Swift.min(1, (target - c[i]) / Swift.max(h[i], .leastNormalMagnitude)))
    }

    static func weight(_ h: [Float], _ c: [Float], atOrAbove level: Float) -> Float {
        let position = Swift.max(0, level + 150)
        let first = Int(position.rounded(.down))
        guard first < h.count else { return 0 }
        return h[first] * (1 - (position - Float(first))) + (c[h.count] - c[first + 1])
    }

    /// The occupancy rounds: level, share, whether fluctuating, and the excess (nil without one).
    static func median(_ h: [Float], total: Float, chiSquare: Float, steadyOnly: Bool) -> (Float, Float, Bool, Float?) {
        let c = cumulative(h)
        var level = quantile(h, c, total * 0.1)
        var share: Float = 0.2
        let steady = chiSquare.squareRoot()
        var fluctuating = false
        for round in 0..<7 {
            var margin: Float = 3
            if round >= 3, !steadyOnly, share >= 0.15 {
                let lower = quantile(h, c, total * share * 0.1587)
                let spread = Swift.min(5, level - lower)
                if round == 3 { fluctuating = lower > -150 + 1 && spread >= steady + 1.5 }
                if fluctuating { margin = Swift.min(10, Swift.max(margin, 2 * spread)) }
            }
            if round >= 3 && (steadyOnly || !fluctuating) { break }
            let above = weight(h, c, atOrAbove: level + margin)
            share = Swift.max(0.05, 1 - above / total)
            level = quantile(h, c, total * share * 0.5)
        }
        guard fluctuating else { return (level, share, false, nil) }
        let lower = quantile(h, c, total * share * 0.1587)
        guard lower > -150 + 1 else { return (level, share, true, nil) }
        let spread = Swift.min(5, level - lower)
        return (level, share, true, Swift.max(0, spread * spread - chiSquare))
    }

    // MARK: Tests

    @Test("a quantile of the occupied bins is the whole row's, bit for bit (targets 0 … past the total)")
    func quantiles() {
        var g = Generator(seed: 7)
        var scratch = [Float](repeating: .nan, count: 161)
        withUnsafePointer(to: Self.parameters) { p in
            for _ in 0..<400 {
                let low = g.int(0..<150), high = Swift.min(159, low + g.int(0..<60))
                let h = Self.row(&g, low: low, high: high)
                let c = Self.cumulative(h)
                for target in [0, c[160] * g.next(), c[160] * 0.1, c[160], c[160] * 1.01] {
                    let got = cdsp_noise_quantile(h, Int32(low), Int32(high), target, &scratch, p)
                    #expect(got.bitPattern == Self.quantile(h, c, target).bitPattern, "row \(low)...\(high), target \(target)")
                }
            }
        }
    }

    @Test("a band's reading equals the occupancy rounds', steady and fluctuating, bit for bit")
    func medians() {
        var g = Generator(seed: 11)
        var scratch = [Float](repeating: .nan, count: 161)
        var fluctuatingSeen = 0, excessSeen = 0
        withUnsafePointer(to: Self.parameters) { p in
            for trial in 0..<600 {
                let low = g.int(0..<150), high = Swift.min(159, low + 1 + g.int(0..<60))
                let h = Self.row(&g, low: low, high: high)
                let total = h.reduce(0, +)
                let chiSquare = trial % 3 == 0 ? 0.2 : 1.8 + 2 * g.next()
                let steadyOnly = trial % 5 == 0
                let r = cdsp_noise_median(h, Int32(low), Int32(high), total, chiSquare, steadyOnly ? 1 : 0, &scratch, p)
                let (level, share, fluctuating, excess) = Self.median(h, total: total, chiSquare: chiSquare, steadyOnly: steadyOnly)
                #expect(r.level.bitPattern == level.bitPattern && r.share.bitPattern == share.bitPattern, "trial \(trial)")
                #expect((r.fluctuating != 0) == fluctuating && (r.has_excess != 0) == (excess != nil), "trial \(trial)")
                if let excess { #expect(r.excess.bitPattern == excess.bitPattern, "trial \(trial)") }
                if fluctuating { fluctuatingSeen += 1 }
                if excess != nil { excessSeen += 1 }
            }
            // An empty row reads the floor with share 0.
            let empty = cdsp_noise_median([Float](repeating: 0, count: 160), 160, -1, 0, 1, 0, &scratch, p)
            #expect(empty.level == -150 && empty.share == 0 && empty.fluctuating == 0)
        }
        // The trials reach every path.
        #expect(fluctuatingSeen > 20 && excessSeen > 20)
    }

    @Test("counting hops into the band histograms: each bin gets the hops' weights in hop order; the spans widen")
    func counting() {
        var g = Generator(seed: 3)
        let bands = 11, ringHops = 9, bins = 160
        for trial in 0..<50 {
            let levels = (0..<(bands * ringHops)).map { _ in g.next() < 0.05 ? Float(10) : -150 + 170 * g.next() }
                .map { Swift.min(-150 + Float(bins), Swift.max(-150, $0)) }
            var histograms = (0..<(bands * bins)).map { _ in g.next() < 0.3 ? g.next() : 0 }
            var occupied = (0..<bands).flatMap { _ -> [Int32] in g.next() < 0.3 ? [160, -1] : [Int32(g.int(40..<80)), Int32(g.int(80..<120))] }
            var expectedHistograms = histograms, expectedOccupied = occupied
            let first = g.int(0..<ringHops), hops = 1 + g.int(0..<ringHops)
            let weight = 0.5 + g.next(), growth: Float = 1.008
            var w = weight, h = first
            for _ in 0..<hops {
                for b in 0..<bands {
                    let bin = Swift.min(bins - 1, Int((levels[h * bands + b] + 150).rounded(.down)))
                    expectedHistograms[b * bins + bin] += w
                    expectedOccupied[2 * b] = Swift.min(expectedOccupied[2 * b], Int32(bin))
                    expectedOccupied[2 * b + 1] = Swift.max(expectedOccupied[2 * b + 1], Int32(bin))
                }
                w *= growth
                h = (h + 1) % ringHops
            }
            withUnsafePointer(to: Self.parameters) { p in
                cdsp_noise_count(&histograms, &occupied, levels, bands, ringHops, first, hops, weight, growth, p)
            }
            #expect(histograms.map(\.bitPattern) == expectedHistograms.map(\.bitPattern), "trial \(trial)")
            #expect(occupied == expectedOccupied, "trial \(trial)")
        }
    }

    @Test("band sums add each band's bins in order; a NaN, an infinity or an overflow is reported")
    func bandSums() {
        var g = Generator(seed: 5)
        // Bands of 15 and 16 bins (the defaults' straight-line sums), others, an empty band and
        // a spectrum that ends inside the last band.
        let widths = [16, 15, 16, 3, 17, 0, 15, 1, 40, 16]
        var starts = [1]
        for w in widths { starts.append(starts.last! + w) }
        for trial in 0..<200 {
            var power = (0..<(starts.last! + 2)).map { _ in g.next() * g.next() * 1e3 }
            let count = trial % 4 == 0 ? starts.last! - 7 : power.count
            if trial % 10 == 1 { power[starts[4] + 2] = .nan }
            if trial % 10 == 2 { power[starts[0]] = .infinity }
            if trial % 10 == 3 { power[starts[1]] = 3e38; power[starts[1] + 1] = 3e38 }
            var sums = [Float](repeating: .nan, count: widths.count)
            let finite = cdsp_noise_band_sums(power, count, starts, widths.count, &sums)
            var expected = [Float](repeating: 0, count: widths.count)
            for b in 0..<widths.count {
                var sum: Float = 0
                var k = starts[b]
                while k < Swift.min(starts[b + 1], count) { sum += power[k]; k += 1 }
                expected[b] = sum
            }
            #expect(sums.map(\.bitPattern) == expected.map(\.bitPattern), "trial \(trial)")
            #expect((finite != 0) == expected.allSatisfy(\.isFinite), "trial \(trial)")
            if (1...3).contains(trial % 10) && trial % 4 != 0 { #expect(finite == 0, "trial \(trial)") }
        }
    }

    /// `cdsp_loop_dot` (the looped-background correlations; dispatched, so CI runs it at every
    /// level the CPU has): the integer sum of products, exactly, for every length to 70 and the
    /// defaults' 375, at any offset, up to all bytes 255.
    @Test("cdsp_loop_dot is the exact sum of products at every length and offset")
    func loopDot() {
        var generator = Generator(seed: 29)
        let bytes = (0..<800).map { _ in UInt8(generator.next() * 256) }
        let full = [UInt8](repeating: 255, count: 375)
        func oracle(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> UInt32 {
            zip(a, b).reduce(UInt32(0)) { $0 + UInt32($1.0) * UInt32($1.1) }
        }
        bytes.withUnsafeBufferPointer { p in
            for n in Array(0...70) + [163, 212, 375] {
                for (i, j) in [(0, 1), (3, 40), (17, 163), (400, 5)] {
                    let got = cdsp_loop_dot(p.baseAddress! + i, p.baseAddress! + j, Int32(n))
                    #expect(got == oracle(bytes[i..<(i + n)], bytes[j..<(j + n)]), "n \(n) at \(i), \(j)")
                }
            }
        }
        full.withUnsafeBufferPointer { p in
            #expect(cdsp_loop_dot(p.baseAddress!, p.baseAddress!, 375) == 375 * 255 * 255)
        }
    }

    /// `cdsp_loop_masked_sums` (the looped-background correlations under a foreground;
    /// dispatched): the pairs whose two mask bytes are 1, their sums, sums of squares and of
    /// products, exactly, for every length to 70 and the defaults' 375, at any offset, up to all
    /// bytes 255 and all pairs kept.
    @Test("cdsp_loop_masked_sums is the exact sums over the pairs both masks keep")
    func loopMaskedSums() {
        var generator = Generator(seed: 31)
        let bytes = (0..<800).map { _ in UInt8(generator.next() * 256) }
        let marks = (0..<800).map { _ in UInt8(generator.next() < 0.4 ? 1 : 0) }
        func oracle(_ i: Int, _ j: Int, _ n: Int) -> [UInt32] {
            var s = [UInt32](repeating: 0, count: 6)
            for k in 0..<n where marks[i + k] == 1 && marks[j + k] == 1 {
                let x = UInt32(bytes[i + k]), y = UInt32(bytes[j + k])
                s[0] += 1; s[1] += x; s[2] += y; s[3] += x * x; s[4] += y * y; s[5] += x * y
            }
            return s
        }
        var sums = [UInt32](repeating: 0, count: 6)
        bytes.withUnsafeBufferPointer { p in
            marks.withUnsafeBufferPointer { m in
                for n in Array(0...70) + [163, 212, 375] {
                    for (i, j) in [(0, 1), (3, 40), (17, 163), (400, 5)] {
                        cdsp_loop_masked_sums(p.baseAddress! + i, p.baseAddress! + j, m.baseAddress! + i, m.baseAddress! + j,
                                              Int32(n), &sums)
                        #expect(sums == oracle(i, j, n), "n \(n) at \(i), \(j)")
                    }
                }
            }
        }
        let full = [UInt8](repeating: 255, count: 375), kept = [UInt8](repeating: 1, count: 375)
        cdsp_loop_masked_sums(full, full, kept, kept, 375, &sums)
        let count: UInt32 = 375, sum: UInt32 = 375 * 255, squares: UInt32 = 375 * 255 * 255
        #expect(sums == [count, sum, sum, squares, squares, squares])
    }
}
