import Foundation

/// The DFT in double precision, the oracle the FFT implementations are measured against.
///
/// `transform` is the definition `X[k] = Σ_t x[t]·e^{sign·2πi·k·t/n}`, evaluated recursively:
/// for the smallest prime factor `p` of `n`, the DFTs of the `p` interleaved subsequences
/// `x[p·j + r]` are combined as `X[k] = Σ_r e^{sign·2πi·r·k/n}·S_r[k mod n/p]` (Cooley–Tukey
/// decimation in time, exact algebra); a prime length is summed by the definition. Every angle
/// is reduced in integers first (`(r·k) mod n`), so no rounding grows with the index. Checked
/// against the plain O(n²) definition (`naive`) in `BuiltInFFTTests`.
enum DoubleDFT {
    /// `(cos, sin)` of `sign·2π·j/n` for `j < n`.
    private static func roots(_ n: Int, sign: Double) -> ([Double], [Double]) {
        var c = [Double](repeating: 0, count: n), s = c
        for j in 0..<n {
            let angle = sign * 2 * Double.pi * Double(j) / Double(n)
            c[j] = cos(angle)
            s[j] = sin(angle)
        }
        return (c, s)
    }

    /// The complex DFT of `(re, im)` with exponent sign `sign` (−1 forward, +1 inverse), unnormalised.
    static func transform(_ re: [Double], _ im: [Double], sign: Double) -> ([Double], [Double]) {
        let n = re.count
        guard n > 1 else { return (re, im) }
        var p = 2
        while p * p <= n, n % p != 0 { p += 1 }
        if n % p != 0 { p = n }
        if p == n { return naive(re, im, sign: sign) }
        let m = n / p
        let subs = (0..<p).map { r in
            transform(
                (0..<m).map { re[p * $0 + r] }, (0..<m).map { im[p * $0 + r] }, sign: sign)
        }
        let (c, s) = roots(n, sign: sign)
        var xr = [Double](repeating: 0, count: n), xi = xr
        for k in 0..<n {
            var sr = 0.0, si = 0.0
            for r in 0..<p {
                let e = (r * k) % n
                let ar = subs[r].0[k % m], ai = subs[r].1[k % m]
                sr += ar * c[e] - ai * s[e]
                si += ar * s[e] + ai * c[e]
            }
            xr[k] = sr
            xi[k] = si
        }
        return (xr, xi)
    }

    /// The definition, O(n²).
    static func naive(_ re: [Double], _ im: [Double], sign: Double) -> ([Double], [Double]) {
        let n = re.count
        let (c, s) = roots(n, sign: sign)
        var xr = [Double](repeating: 0, count: n), xi = xr
        for k in 0..<n {
            var sr = 0.0, si = 0.0
            for t in 0..<n {
                let e = (k * t) % n
                sr += re[t] * c[e] - im[t] * s[e]
                si += re[t] * s[e] + im[t] * c[e]
            }
            xr[k] = sr
            xi[k] = si
        }
        return (xr, xi)
    }

    /// Bins 0 … n/2 of the forward DFT of real `x`.
    static func realForward(_ x: [Float]) -> (re: [Double], im: [Double]) {
        let n = x.count
        let (re, im) = transform(x.map(Double.init), [Double](repeating: 0, count: n), sign: -1)
        return (Array(re[0...(n / 2)]), Array(im[0...(n / 2)]))
    }

    /// The unnormalised inverse of the Hermitian spectrum whose bins 0 … n/2 are `(re, im)`
    /// (the imaginary parts of bins 0 and n/2 taken as 0): `y[t] = Σ_k X[k]·e^{+2πi·k·t/n}`.
    static func realInverse(re: [Float], im: [Float], size n: Int) -> [Double] {
        var fr = [Double](repeating: 0, count: n), fi = fr
        for k in 0...(n / 2) {
            fr[k] = Double(re[k])
            fi[k] = k == 0 || k == n / 2 ? 0 : Double(im[k])
            if k > 0, k < n - k {
                fr[n - k] = fr[k]
                fi[n - k] = -fi[k]
            }
        }
        return transform(fr, fi, sign: 1).0
    }

    /// `sqrt(Σ|a − b|² / Σ|b|²)` over paired real and imaginary parts.
    static func relativeRMS(_ a: (re: [Double], im: [Double]), _ b: (re: [Double], im: [Double])) -> Double {
        var error = 0.0, reference = 0.0
        for k in b.re.indices {
            let dr = a.re[k] - b.re[k], di = a.im[k] - b.im[k]
            error += dr * dr + di * di
            reference += b.re[k] * b.re[k] + b.im[k] * b.im[k]
        }
        return (error / reference).squareRoot()
    }
}
