import CDSPKernels
import Testing
import TestSupport

// `cdsp_peak_mask` (CDSPDetection.h), the cue tracker's spectral-peak test, against the
// documented definition written out one bin at a time in Swift: the same mask bits and counts
// at the level this process runs (CI runs this suite at every level: .ci/run).

@Suite struct PeakMaskKernelTests {
    /// Power-spectrum-like values: squares of noise with spikes every few bins, ties between
    /// neighbours, and (when `edges`) NaN, +∞, zeros and values around the 1e-11 floor.
    static func spectrum(_ count: Int, seed: UInt64, edges: Bool) -> [Float] {
        var g = SplitMix64(seed: seed)
        var p = (0..<count).map { _ in Float(g.uniform()) * Float(g.uniform()) }
        for k in stride(from: Int(g.next() % 5), to: count, by: 3 + Int(g.next() % 7)) { p[k] *= 40 }
        for k in stride(from: 1, to: count - 1, by: 23) { p[k + 1] = p[k] }   // ties
        if edges {
            for k in stride(from: 5, to: count, by: 37) { p[k] = .nan }
            for k in stride(from: 19, to: count, by: 41) { p[k] = .infinity }
            for k in stride(from: 8, to: count, by: 29) { p[k] = 0 }
            for k in stride(from: 13, to: count, by: 31) { p[k] = k % 2 == 0 ? 1e-11 : 1.5e-11 }
        }
        return p
    }

    /// The definition, bin by bin: the mask and the two counts.
    static func reference(_ p: [Float], _ lo: Int, _ hi: Int, words: Int, previous: [UInt64]?) -> ([UInt64], Int, Int) {
        var mask = [UInt64](repeating: 0, count: words)
        for k in lo..<hi {
            let m = max(p[k - 2], p[k + 2])
            if p[k] > 4 * m, p[k] >= p[k - 1], p[k] >= p[k + 1], p[k] > 1e-11 { mask[k / 64] |= 1 << UInt64(k % 64) }
        }
        var peaks = 0, kept = 0
        for k in 0..<(64 * words) where mask[k / 64] >> UInt64(k % 64) & 1 == 1 {
            peaks += 1
            guard let previous else { continue }
            let near = (max(0, k - 1)...min(64 * words - 1, k + 1)).contains { previous[$0 / 64] >> UInt64($0 % 64) & 1 == 1 }
            if near { kept += 1 }
        }
        return (mask, peaks, previous == nil ? 0 : kept)
    }

    @Test("the mask and counts equal the definition bin by bin, NaN and ties included")
    func matchesDefinition() {
        let count = 513, words = (count + 63) / 64
        var g = SplitMix64(seed: 77)
        var mismatches = 0, peaksSeen = 0
        for trial in 0..<300 {
            let p = Self.spectrum(count, seed: UInt64(trial), edges: trial % 2 == 1)
            let ranges = [(6, 320), (2, count - 2), (2, 10), (5, 13), (60, 70), (57, 129), (100, 101)]
            let (lo, hi) = ranges[trial % ranges.count]
            let previous: [UInt64]? = trial % 3 == 0 ? nil : (0..<words).map { _ in g.next() & g.next() }
            let (expected, peaks, kept) = Self.reference(p, lo, hi, words: words, previous: previous)
            peaksSeen += peaks
            var mask = [UInt64](repeating: .max, count: words)   // the kernel zeroes it first
            var counts = [Int](repeating: -1, count: 2)
            p.withUnsafeBufferPointer { pp in
                if let previous {
                    previous.withUnsafeBufferPointer { cdsp_peak_mask(pp.baseAddress!, lo, hi, &mask, words, $0.baseAddress!, &counts) }
                } else {
                    cdsp_peak_mask(pp.baseAddress!, lo, hi, &mask, words, nil, &counts)
                }
            }
            if mask != expected || counts != [peaks, kept] { mismatches += 1 }
        }
        #expect(mismatches == 0, "\(mismatches) of 300 spectra differ from the definition")
        #expect(peaksSeen > 3000, "the spectra have peaks to find: \(peaksSeen)")
    }
}
