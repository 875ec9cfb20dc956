@testable import DSPAnalysis
import Foundation
import Testing
import TestSupport

// The gating histogram (32-bit counts per 0.05 LU bin beside the exact energy sum) against the
// gating done exactly, from every block's energy kept and sorted: BS.1770-5 integrated loudness
// (absolute gate −70 LUFS, relative −10 LU) and EBU Tech 3342 loudness range (relative −20 LU,
// L95 − L10 at libebur128's ranks). The bounds are the ones the type documents.

/// Exact gating over a list of block energies.
private enum ExactGating {
    static func loudness(_ e: Double) -> Double { e > 0 ? -0.691 + 10 * log10(e) : -.infinity }
    static let absoluteGate = pow(10, (-70 + 0.691) / 10)

    /// `gateShiftLU` moves the relative gate (the histogram's bound allows any gate within one
    /// bin, 0.05 LU, of the exact one).
    static func integrated(_ energies: [Double], gateShiftLU: Double = 0) -> Double {
        let passed = energies.filter { $0 >= absoluteGate }
        guard !passed.isEmpty else { return -.infinity }
        let gate = passed.reduce(0, +) / Double(passed.count) * 0.1 * pow(10, gateShiftLU / 10)
        let kept = passed.filter { $0 >= gate }
        return loudness(kept.reduce(0, +) / Double(kept.count))
    }

    static func range(_ energies: [Double], gateShiftLU: Double = 0) -> (low: Double, high: Double)? {
        let passed = energies.filter { $0 >= absoluteGate }
        guard !passed.isEmpty else { return nil }
        let gate = passed.reduce(0, +) / Double(passed.count) * 0.01 * pow(10, gateShiftLU / 10)
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

    /// The documented bound: exact gating with the relative gate moved by at most one bin
    /// (0.05 LU: the bin holding the gate is taken whole), then 0.0028 LU for the blocks below
    /// the gate taken at bin centres (integrated) or 0.025 LU for a bin centre (percentiles).
    /// Also, loosely, integrated within 0.01 LU of exact gating at the exact gate.
    @Test("integrated within 0.0028 LU and LRA percentiles within 0.025 LU of exact gating (gate within a bin)",
          arguments: [(1 as UInt64, -23.0, 6.0, 0.3), (2, -40.0, 12.0, 0.05), (3, -10.0, 3.0, 0.6), (4, -60.0, 20.0, 0.2), (5, 5.0, 1.0, 0.0)])
    func againstExact(seed: UInt64, centre: Double, spread: Double, quietShare: Double) {
        let energies = blocks(seed: seed, count: 20_000, centre: centre, spread: spread, quietShare: quietShare)
        let histogram = GatingHistogram()
        for e in energies { histogram.add(e) }
        let shifts = [-0.05, 0, 0.05]
        let exact = shifts.map { ExactGating.integrated(energies, gateShiftLU: $0) }
        let ours = LoudnessGating.integrated(histogram).lufs
        #expect(abs(ours - exact[1]) <= 0.01, "integrated \(ours) vs exact \(exact[1])")
        #expect(ours >= exact.min()! - 0.0028 && ours <= exact.max()! + 0.0028, "integrated \(ours) vs exact \(exact)")
        let exactRanges = shifts.compactMap { ExactGating.range(energies, gateShiftLU: $0) }
        let range = LoudnessGating.range(histogram)
        if !exactRanges.isEmpty {
            let lows = exactRanges.map(\.low), highs = exactRanges.map(\.high)
            #expect(range.low >= lows.min()! - 0.025 - 1e-9 && range.low <= lows.max()! + 0.025 + 1e-9, "L10 \(range.low) vs \(lows)")
            #expect(range.high >= highs.min()! - 0.025 - 1e-9 && range.high <= highs.max()! + 0.025 + 1e-9, "L95 \(range.high) vs \(highs)")
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
        #expect(GatingHistogram.binEnergyRatio == pow(10, 0.05 / 10))
        #expect(abs(GatingHistogram.centreEnergy(1000) * pow(GatingHistogram.binEnergyRatio, 400) / GatingHistogram.centreEnergy(1400) - 1) < 1e-12)
        #expect(GatingHistogram.allocatedBytes == 8000)
    }
}
