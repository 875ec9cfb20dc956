@testable import DSPDetection
import Testing

/// The music path's statistic, each band's median bin × its bin count, against the median the
/// test takes itself (`sorted()`), for band layouts that take the eight-bands-at-a-time network,
/// the one-band network and the selection, and for spectra shorter than the layout.
@Suite("NoiseLevelEstimator median bins")
struct NoiseLevelEstimatorMedianBinTests {
    /// Power bins from a fixed LCG: exponential-like values with exact repeats and zeros mixed in.
    static func spectrum(count: Int, seed: UInt64) -> [Float] {
        var state = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return (0..<count).map { k in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let u = Float(state >> 40) / Float(1 << 24)
            switch state % 11 {
            case 0: return 0
            case 1: return 0.25  // the same value in many bins
            default: return u * u * Float(1 + k % 7)
            }
        }
    }

    /// What the music path must read for `power` with `bandCount` bands of `binCount` bins:
    /// the median of each band's bins (the mean of the middle two for an even count) × the
    /// band's width, over the bins `power` holds.
    static func expected(_ power: [Float], binCount: Int, bandCount: Int) -> [Float] {
        let usable = binCount - 2
        let n = Swift.min(power.count, binCount)
        return (0..<bandCount).map { b in
            let start = 1 + b * usable / bandCount, end = 1 + (b + 1) * usable / bandCount
            let bins = Array(power[Swift.min(start, n)..<Swift.min(end, n)]).sorted()
            guard !bins.isEmpty else { return 0 }
            let w = bins.count
            let median = w % 2 == 0 ? 0.5 * (bins[w / 2 - 1] + bins[w / 2]) : bins[w / 2]
            return median * Float(end - start)
        }
    }

    @Test("each band's median bin is the sorted median, whichever path finds it",
          arguments: [(513, 32), (513, 40), (513, 36), (513, 30), (513, 12), (257, 24), (129, 9)])
    func medianBinsMatchSorting(layout: (binCount: Int, bandCount: Int)) throws {
        let estimator = try NoiseLevelEstimator(configuration: .init(binCount: layout.binCount, bandCount: layout.bandCount))
        for seed in UInt64(1)...20 {
            // Whole spectra, and spectra that end inside the layout (the last bands partly or
            // wholly missing).
            for count in [layout.binCount, layout.binCount * 3 / 4, layout.binCount / 3] {
                let power = Self.spectrum(count: count, seed: seed &* 31 &+ UInt64(count))
                let read = power.withUnsafeBufferPointer { estimator.medianBinsForTesting($0) }
                let want = Self.expected(power, binCount: layout.binCount, bandCount: layout.bandCount)
                #expect(read == want, "layout \(layout), \(count) bins, seed \(seed)")
            }
        }
    }
}
