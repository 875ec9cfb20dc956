// The half-band first stage of two-stage downsampling: design (Parks–McClellan with equal
// weights and symmetric bands, whose optimum is half-band) and its taps.

/// A half-band low-pass at the input rate f_s that decimates by two: length N = 4K − 1, centre
/// tap exactly ½, every other tap exactly 0, so each output costs 2K multiply-adds on the odd
/// input frames plus one on the even frame at the centre.
///
/// Passband [0, e], stopband [f_s/2 − e, f_s/2] (the band edges of a half-band are symmetric
/// about f_s/4), with e the resampler's stopband edge (1.0625 × the low Nyquist frequency):
/// everything the second stage keeps passes, and everything that would fold below e on
/// decimation is rejected by the preset's attenuation.
struct HalfBandDesign {
    /// K: the filter has 2K nonzero off-centre taps.
    var pairCount: Int
    /// The 2K off-centre taps in the order the kernel reads the odd frames, oldest first:
    /// g_{K−1}, …, g_0, g_0, …, g_{K−1}, where g_i multiplies the frames 2i + 1 from the centre.
    var oddTaps: [Double]

    /// Filter length 4K − 1, in input-rate taps.
    var length: Int { 4 * pairCount - 1 }

    /// The shortest half-band meeting the edge and attenuation, verified on a dense grid after
    /// forcing the exact half-band structure; nil if none of at most 4 × 64 − 1 taps does.
    static func design(inputRate: Int, edgeHz: Double, attenuationDB: Double) -> HalfBandDesign? {
        let fp = edgeHz / Double(inputRate)
        guard fp > 0, fp < 0.25 else { return nil }
        let fs = 0.5 - fp
        let bound = Elementary.power(10, -attenuationDB / 20)
        // Kaiser/Herrmann estimate with δp = δs, minus a little, as the first trial.
        let estimate = (attenuationDB - 13) / (14.6 * (fs - fp)) + 1
        var k = Swift.max(2, Int(estimate / 4) - 1)
        while k <= 64 {
            if let taps = Remez.lowPass(length: 4 * k - 1, passbandEdge: fp, stopbandEdge: fs, stopWeight: 1)?.taps {
                let center = 2 * k - 1
                // g_i = tap at centre ± (2i + 1), averaged over the two (equal) sides, scaled so
                // that ½ + 2 Σ g_i = 1 (unity DC gain).
                var g = (0..<k).map { i in (taps[center + 2 * i + 1] + taps[center - 2 * i - 1]) / 2 }
                var sum = 0.0
                for value in g { sum += value }
                let scale = 0.25 / sum
                g = g.map { $0 * scale }
                if worstStopband(g, from: fs) <= bound {
                    return HalfBandDesign(pairCount: k, oddTaps: g.reversed() + g)
                }
            }
            k += 1
        }
        return nil
    }

    /// max |H(f)| over [fs, ½] (cycles per sample), H(f) = ½ + 2 Σ g_i cos(2π f (2i + 1)), on
    /// a grid of 16 points per tap.
    private static func worstStopband(_ g: [Double], from fs: Double) -> Double {
        let points = 64 * g.count * 4
        var worst = 0.0
        for j in 0...points {
            let f = fs + (0.5 - fs) * Double(j) / Double(points)
            var h = 0.5
            for (i, value) in g.enumerated() {
                h += 2 * value * Elementary.cosine(2 * Double.pi * f * Double(2 * i + 1))
            }
            worst = Swift.max(worst, Swift.abs(h))
        }
        return worst
    }
}
