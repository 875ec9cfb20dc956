@testable import DSPDetection
import DSPSpectral
import Foundation
import Testing
import TestSupport

/// `HarmonicSieve` (the cue tracker's two-pitch sieve) against its documented definition
/// written out with plain loops, one bin and one candidate at a time (`ReferenceSieve`): the same
/// two pitches and ratio bit for bit. The library computes the levels, peaks, near maxima and
/// score divisions eight lanes at a time and takes its candidate tables from a shared cache;
/// this is what shows those paths give the scalar definition's bits.
@Suite struct HarmonicSieveTests {
    /// The sieve as its doc comment defines it, with the same float operations in the same order.
    struct ReferenceSieve {
        let binCount: Int
        let binHz: Float
        let minimumPitchHz: Float = 70, maximumPitchHz: Float = 400, maximumHarmonicHz: Float = 3000
        let maximumHarmonics = 15

        var halfWidth: Int { max(2, Int((120 / binHz).rounded())) }
        var topBin: Int { min(binCount - 2 - halfWidth, Int(maximumHarmonicHz / binHz)) }
        var candidates: [Float] {
            let steps = Int((24 * log2(Double(maximumPitchHz / minimumPitchHz))).rounded(.down)) + 1
            return (0..<steps).map { Float(Double(minimumPitchHz) * exp2(Double($0) / 24)) }
        }

        /// Candidate `f0`'s harmonic bins and the bins half-way below each.
        func harmonics(_ f0: Float) -> [(on: Int, half: Int)] {
            var out: [(Int, Int)] = []
            var h: Float = 1
            while h * f0 / binHz <= Float(topBin - 1), Int(h) <= maximumHarmonics {
                out.append((Int((h * f0 / binHz).rounded()), Int(((h - 0.5) * f0 / binHz).rounded())))
                h += 1
            }
            return out
        }

        /// Level above the local mean over ±halfWidth (clipped to the levels computed), or 0.
        func peaks(_ power: [Float]) -> [Float] {
            let end = topBin + halfWidth + 1
            let levels = (0..<end).map { FastLog.decibels(power[$0] + 1e-12) }
            var prefix: [Float] = [0]
            for l in levels { prefix.append(prefix.last! + l) }
            var peaks = [Float](repeating: 0, count: binCount)
            for k in 0...topBin {
                let lo = max(0, k - halfWidth), hi = min(end, k + halfWidth + 1)
                peaks[k] = max(0, levels[k] - (prefix[hi] - prefix[lo]) / Float(hi - lo))
            }
            return peaks
        }

        static func nearSimpleRatio(_ steps: Int) -> Bool {
            let d = abs(steps)
            return d <= 1 || (13...15).contains(d) || (23...25).contains(d) || (37...39).contains(d)
        }

        /// The best candidate and its score: the highest score above 0 (the first of equals),
        /// then the highest candidate more than 20 steps above it scoring at least 0.85 of it.
        func best(_ peaks: [Float], excludingRatiosOf pitch: Int?) -> (Int, Float) {
            var near = [Float](repeating: 0, count: binCount)
            for k in 1..<topBin { near[k] = max(peaks[k], max(peaks[k - 1], peaks[k + 1])) }
            let f0s = candidates
            var scores = [Float](repeating: 0, count: f0s.count)
            for (c, f0) in f0s.enumerated() {
                if let pitch, Self.nearSimpleRatio(c - pitch) {
                    scores[c] = -.infinity
                    continue
                }
                let bins = harmonics(f0)
                var on: Float = 0, between: Float = 0
                for (b, half) in bins {
                    on += near[b]
                    between += peaks[half]
                }
                scores[c] = (on - between) / Float(max(1, bins.count))
            }
            var bestIndex = -1
            var bestScore: Float = 0
            for c in scores.indices where scores[c] > bestScore {
                bestScore = scores[c]
                bestIndex = c
            }
            guard bestIndex >= 0 else { return (-1, 0) }
            var chosen = bestIndex
            for c in stride(from: scores.count - 1, to: bestIndex + 20, by: -1) where scores[c] >= 0.85 * bestScore {
                chosen = c
                break
            }
            return (chosen, scores[chosen])
        }

        /// First pitch, second pitch after cancelling the first's harmonics (±1 bin), ratio.
        func analyze(_ power: [Float]) -> (Float, Float, Float) {
            var p = peaks(power)
            let (first, firstScore) = best(p, excludingRatiosOf: nil)
            guard first >= 0, firstScore > 1 else { return (0, 0, 0) }
            let f1 = candidates[first]
            var h: Float = 1
            while h * f1 / binHz <= Float(topBin) {
                let b = Int((h * f1 / binHz).rounded())
                for k in max(0, b - 1)...min(topBin, b + 1) { p[k] = 0 }
                h += 1
            }
            let (second, secondScore) = best(p, excludingRatiosOf: first)
            guard second >= 0, secondScore > 0 else { return (f1, 0, 0) }
            return (f1, candidates[second], min(1, secondScore / firstScore))
        }
    }

    /// A power spectrum: a floor of noise, one or two harmonic combs with random harmonic
    /// amplitudes (formant-like tilt), and, when `edges`, zeros, +∞, NaN and huge values.
    static func spectrum(bins: Int, binHz: Float, seed: UInt64, edges: Bool) -> [Float] {
        var g = SplitMix64(seed: seed)
        func unit() -> Double { g.unitInterval() }
        var p = (0..<bins).map { _ in Float(1e-6 * (0.2 + unit())) }
        let voices = Int(g.next() % 3)   // 0, 1 or 2 combs
        for _ in 0..<voices {
            let f0 = Float(75 + 300 * unit())
            let gain = Float(pow(10, -3 * unit()))
            var h: Float = 1
            while h * f0 < binHz * Float(bins - 1) {
                let k = Int((h * f0 / binHz).rounded())
                p[k] += gain * Float(0.2 + unit()) / (h * h)
                h += 1
            }
        }
        if edges {
            for k in stride(from: Int(g.next() % 11), to: bins, by: 37) { p[k] = 0 }
            if g.next() % 2 == 0 { p[Int(g.next() % UInt64(bins))] = .infinity }
            if g.next() % 3 == 0 { p[Int(g.next() % UInt64(bins))] = .nan }
            if g.next() % 3 == 0 { p[Int(g.next() % UInt64(bins))] = 1e30 }
        }
        return p
    }

    @Test("two pitches and ratio equal the plain-loop definition bit for bit", arguments: [
        (513, Float(15.625)), (257, Float(31.25)), (1025, Float(7.8125)), (513, Float(23.4375)),
    ])
    func matchesDefinition(bins: Int, binHz: Float) {
        let sieve = HarmonicSieve(binCount: bins, binHz: binHz)
        let reference = ReferenceSieve(binCount: bins, binHz: binHz)
        var mismatches: [String] = []
        var withFirst = 0, withSecond = 0
        for trial in 0..<400 {
            let p = Self.spectrum(bins: bins, binHz: binHz, seed: UInt64(trial), edges: trial % 4 == 3)
            let got = p.withUnsafeBufferPointer { sieve.analyze($0) }
            let want = reference.analyze(p)
            if got.first > 0 { withFirst += 1 }
            if got.second > 0 { withSecond += 1 }
            let same = got.first.bitPattern == want.0.bitPattern && got.second.bitPattern == want.1.bitPattern
                && got.ratio.bitPattern == want.2.bitPattern
            if !same, mismatches.count < 5 { mismatches.append("trial \(trial): \(got) against \(want)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        // Both passes are exercised: most spectra hold a first pitch and many a second.
        #expect(withFirst >= 150 && withSecond >= 100, "first \(withFirst), second \(withSecond) of 400")
    }
}
