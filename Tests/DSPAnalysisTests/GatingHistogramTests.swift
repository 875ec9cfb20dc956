@testable import DSPAnalysis
import Foundation
import Testing
import TestSupport

// The gating histogram (32-bit counts per 0.01 LU bin beside the exact energy sum) against the
// gating done exactly, from every block's energy kept and sorted: BS.1770-5 integrated loudness
// (absolute gate −70 LUFS, relative −10 LU) and EBU Tech 3342 loudness range (relative −20 LU,
// L95 − L10 at libebur128's ranks). The bounds are the ones the type documents.

/// Exact gating over a list of block energies.
private enum ExactGating {
    static func loudness(_ e: Double) -> Double { e > 0 ? -0.691 + 10 * log10(e) : -.infinity }
    static let absoluteGate = pow(10, (-70 + 0.691) / 10)

    static func integrated(_ energies: [Double]) -> Double {
        let passed = energies.filter { $0 >= absoluteGate }
        guard !passed.isEmpty else { return -.infinity }
        let gate = passed.reduce(0, +) / Double(passed.count) * 0.1
        let kept = passed.filter { $0 >= gate }
        return loudness(kept.reduce(0, +) / Double(kept.count))
    }

    static func range(_ energies: [Double]) -> (low: Double, high: Double)? {
        let passed = energies.filter { $0 >= absoluteGate }
        guard !passed.isEmpty else { return nil }
        let gate = passed.reduce(0, +) / Double(passed.count) * 0.01
        let kept = passed.filter { $0 >= gate }.sorted()
        guard !kept.isEmpty else { return nil }
        let n = kept.count
        return (loudness(kept[Int(Double(n - 1) * 0.10 + 0.5)]), loudness(kept[Int(Double(n - 1) * 0.95 + 0.5)]))
    }
}

@Suite("Loudness: gating histogram against exact gating")
struct GatingHistogramTests {
    /// Block energies at loudness levels drawn from `spread` LU around `centre` LUFS, with a
    /// share of quiet blocks (pauses) well below the relative gate.
    private func blocks(seed: UInt64, count: Int, centre: Double, spread: Double, quietShare: Double) -> [Double] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let quiet = rng.unitInterval() < quietShare
            let lufs = quiet ? centre - 15 - 50 * rng.unitInterval() : centre + spread * rng.uniform()
            return pow(10, (lufs + 0.691) / 10)
        }
    }

    @Test("integrated within 0.01 LU and LRA percentiles within 0.005 LU of exact gating",
          arguments: [(1 as UInt64, -23.0, 6.0, 0.3), (2, -40.0, 12.0, 0.05), (3, -10.0, 3.0, 0.6), (4, -60.0, 20.0, 0.2), (5, 5.0, 1.0, 0.0)])
    func againstExact(seed: UInt64, centre: Double, spread: Double, quietShare: Double) {
        let energies = blocks(seed: seed, count: 20_000, centre: centre, spread: spread, quietShare: quietShare)
        let histogram = GatingHistogram()
        for e in energies { histogram.add(e) }
        let exact = ExactGating.integrated(energies)
        let ours = LoudnessGating.integrated(histogram).lufs
        #expect(abs(ours - exact) <= 0.01, "integrated \(ours) vs exact \(exact)")
        let exactRange = ExactGating.range(energies)
        let range = LoudnessGating.range(histogram)
        if let exactRange {
            #expect(abs(range.low - exactRange.low) <= 0.005 + 1e-9, "L10 \(range.low) vs \(exactRange.low)")
            #expect(abs(range.high - exactRange.high) <= 0.005 + 1e-9, "L95 \(range.high) vs \(exactRange.high)")
        } else {
            #expect(range.lu == 0)
        }
    }

    @Test("steady blocks: integrated exact, range 0; louder than +30 LUFS still exact; reset empties")
    func steadyAndEdges() {
        let histogram = GatingHistogram()
        let e = pow(10, (-23.004 + 0.691) / 10)
        for _ in 0..<1000 { histogram.add(e) }
        #expect(abs(LoudnessGating.integrated(histogram).lufs - ExactGating.loudness(e)) < 1e-12)
        #expect(LoudnessGating.range(histogram).lu == 0)

        // Blocks above the top bin: the integrated value comes from the exact sum.
        histogram.reset()
        let loud = pow(10, (40 + 0.691) / 10)
        for _ in 0..<10 { histogram.add(loud) }
        #expect(abs(LoudnessGating.integrated(histogram).lufs - 40) < 1e-9)

        // Below −70 LUFS nothing counts; an emptied histogram reads −∞.
        histogram.reset()
        histogram.add(pow(10, (-80 + 0.691) / 10))
        #expect(LoudnessGating.integrated(histogram).lufs == -.infinity)
        #expect(histogram.blockCount == 0 && histogram.lowestFilledBin == GatingHistogram.binCount)
        // The step between bin centres, kept as a literal.
        #expect(GatingHistogram.binEnergyRatio == pow(10, 0.01 / 10))
        #expect(abs(GatingHistogram.centreEnergy(5000) * pow(GatingHistogram.binEnergyRatio, 2000) / GatingHistogram.centreEnergy(7000) - 1) < 1e-12)
    }
}
