// Parks–McClellan (Remez exchange) design of odd-length, linear-phase low-pass filters, in
// Double, used at construction only.

/// Equiripple low-pass design by the Remez exchange algorithm (Parks & McClellan 1972; the
/// barycentric form of Rabiner, McClellan & Parks 1975).
///
/// Designs a type-I filter (odd length N = 2n + 1, symmetric) whose amplitude
/// A(ω) = Σₖ aₖ cos kω minimises max |W(ω)(D(ω) − A(ω))| with D = 1, W = 1 on [0, f_p] and
/// D = 0, W = `stopWeight` on [f_s, ½] (frequencies in cycles per sample). At the optimum the
/// passband deviation is δ and the stopband deviation δ / `stopWeight`.
enum Remez {
    /// A designed filter: its taps and passband deviation δ (stopband: δ / stopWeight).
    struct Result {
        var taps: [Double]
        var passbandDeviation: Double
    }

    /// Designs the filter, or returns nil if the exchange does not converge (the caller falls
    /// back to a Kaiser design) or, since |δ| only grows over the iterations, as soon as |δ|
    /// exceeds `abandonAbove`.
    static func lowPass(
        length: Int, passbandEdge fp: Double, stopbandEdge fs: Double, stopWeight: Double,
        abandonAbove: Double = .infinity
    ) -> Result? {
        guard length >= 3, length % 2 == 1, fp > 0, fs > fp, fs < 0.5 else { return nil }
        let half = (length - 1) / 2
        let r = half + 1  // cosine coefficients; r + 1 extremal frequencies
        let density = 8
        let step = 0.5 / Double(r * density)

        // Dense grid, band by band; `passEnd` is the last passband index.
        let passCount = Swift.max(Int((fp / step).rounded(.up)), 2)
        let stopCount = Swift.max(Int(((0.5 - fs) / step).rounded(.up)), 2)
        let g = passCount + stopCount + 2
        var gridX = [Double](repeating: 0, count: g)
        var gridD = [Double](repeating: 0, count: g)
        var gridW = [Double](repeating: 0, count: g)
        for i in 0...passCount {
            gridX[i] = Elementary.cosine(2 * Double.pi * fp * Double(i) / Double(passCount))
            gridD[i] = 1
            gridW[i] = 1
        }
        for i in 0...stopCount {
            let f = fs + (0.5 - fs) * Double(i) / Double(stopCount)
            gridX[passCount + 1 + i] = Elementary.cosine(2 * Double.pi * f)
            gridD[passCount + 1 + i] = 0
            gridW[passCount + 1 + i] = stopWeight
        }
        let passEnd = passCount
        guard g > r + 1 else { return nil }

        var extremal = (0...r).map { $0 * (g - 1) / r }
        var x = [Double](repeating: 0, count: r + 1)
        var weights = [Double](repeating: 0, count: r + 1)
        var values = [Double](repeating: 0, count: r)
        var nodeWeights = [Double](repeating: 0, count: r)
        var error = [Double](repeating: 0, count: g)
        var delta = 0.0
        var converged = false

        for _ in 0..<60 {
            for i in 0...r { x[i] = gridX[extremal[i]] }
            // Barycentric weights 1 / Π 2(xᵢ − xⱼ) (the factor 2 keeps the products in range).
            for i in 0...r {
                var product = 1.0
                for j in 0...r where j != i { product *= 2 * (x[i] - x[j]) }
                weights[i] = 1 / product
            }
            var numerator = 0.0
            var denominator = 0.0
            for i in 0...r {
                let sign: Double = i % 2 == 0 ? 1 : -1
                numerator += weights[i] * gridD[extremal[i]]
                denominator += weights[i] * sign / gridW[extremal[i]]
            }
            delta = numerator / denominator
            guard delta.isFinite, absolute(delta) <= abandonAbove else { return nil }
            for i in 0..<r {
                let sign: Double = i % 2 == 0 ? 1 : -1
                values[i] = gridD[extremal[i]] - sign * delta / gridW[extremal[i]]
                nodeWeights[i] = weights[i] * 2 * (x[i] - x[r])
            }
            // The O(g·r) evaluation, on raw buffers (fast in debug builds too).
            gridX.withUnsafeBufferPointer { gx in
                gridD.withUnsafeBufferPointer { gd in
                    gridW.withUnsafeBufferPointer { gw in
                        x.withUnsafeBufferPointer { nodes in
                            values.withUnsafeBufferPointer { v in
                                nodeWeights.withUnsafeBufferPointer { w in
                                    error.withUnsafeMutableBufferPointer { e in
                                        let px = nodes.baseAddress!
                                        let pv = v.baseAddress!
                                        let pw = w.baseAddress!
                                        for j in 0..<g {
                                            let a = interpolate(gx[j], px, pv, pw, r)
                                            e[j] = gw[j] * (gd[j] - a)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }

            // Local extrema of the error, band edges included; then alternate and trim to r + 1.
            var candidates: [Int] = []
            for j in 0..<g {
                let e = error[j]
                let hasPrevious = j > 0 && j != passEnd + 1
                let hasNext = j < g - 1 && j != passEnd
                let okPrevious = !hasPrevious || (e > 0 ? e >= error[j - 1] : e <= error[j - 1])
                let okNext = !hasNext || (e > 0 ? e > error[j + 1] : e < error[j + 1])
                if okPrevious && okNext { candidates.append(j) }
            }
            alternate(&candidates, error)
            while candidates.count > r + 1 {
                if candidates.count == r + 2 {
                    if absolute(error[candidates[0]]) < absolute(error[candidates[r + 1]]) {
                        candidates.removeFirst()
                    } else {
                        candidates.removeLast()
                    }
                } else {
                    var smallest = 0
                    for k in 1..<candidates.count where absolute(error[candidates[k]]) < absolute(error[candidates[smallest]]) {
                        smallest = k
                    }
                    candidates.remove(at: smallest)
                    alternate(&candidates, error)
                }
            }
            guard candidates.count == r + 1 else { return nil }
            var largest = 0.0
            for j in candidates { largest = Swift.max(largest, absolute(error[j])) }
            let same = candidates == extremal
            extremal = candidates
            if same || (largest - absolute(delta)) <= 1e-6 * largest {
                converged = true
                break
            }
        }
        guard converged else { return nil }

        // Taps from A(ω) sampled at ωₖ = 2πk/N by the inverse cosine transform.
        let n = Double(length)
        var amplitude = [Double](repeating: 0, count: r)
        for k in 0..<r {
            let t = Elementary.cosine(2 * Double.pi * Double(k) / n)
            amplitude[k] = x.withUnsafeBufferPointer { px in
                values.withUnsafeBufferPointer { pv in
                    nodeWeights.withUnsafeBufferPointer { pw in
                        interpolate(t, px.baseAddress!, pv.baseAddress!, pw.baseAddress!, r)
                    }
                }
            }
        }
        var taps = [Double](repeating: 0, count: length)
        for m in 0...half {
            var sum = amplitude[0]
            for k in 1..<r { sum += 2 * amplitude[k] * Elementary.cosine(2 * Double.pi * Double(k * m) / n) }
            taps[half + m] = sum / n
            taps[half - m] = sum / n
        }
        return Result(taps: taps, passbandDeviation: absolute(delta))
    }

    /// Barycentric interpolation of `values` at nodes `x[0..<r]`.
    @inline(__always)
    private static func interpolate(
        _ t: Double, _ x: UnsafePointer<Double>, _ values: UnsafePointer<Double>, _ w: UnsafePointer<Double>, _ r: Int
    ) -> Double {
        var numerator = 0.0
        var denominator = 0.0
        var i = 0
        while i < r {
            let difference = t - x[i]
            if difference < 1e-15 && difference > -1e-15 { return values[i] }
            let q = w[i] / difference
            numerator += q * values[i]
            denominator += q
            i += 1
        }
        return numerator / denominator
    }

    /// |x| without the generic `abs` (slow in debug builds).
    @inline(__always)
    private static func absolute(_ x: Double) -> Double { x < 0 ? -x : x }

    /// Keeps, of every run of same-signed neighbours, the one with the largest |E|.
    private static func alternate(_ candidates: inout [Int], _ error: [Double]) {
        var result: [Int] = []
        result.reserveCapacity(candidates.count)
        for j in candidates {
            if let last = result.last, (error[last] > 0) == (error[j] > 0) {
                if absolute(error[j]) > absolute(error[last]) { result[result.count - 1] = j }
            } else {
                result.append(j)
            }
        }
        candidates = result
    }
}
