import DSPCore
import RealModule
internal import CDSPKernels

/// The polyphase interpolator: phases 1 ..< L of a Kaiser-windowed sinc (phase 0 is the
/// identity and is covered by the sample peak).
///
/// The prototype is symmetric, so at 4× phase 2 is symmetric and phase 3 is phase 1 reversed.
/// The kernel folds the taps: with `s_t = x[n−t] + x[n−T+1+t]` and `d_t = x[n−t] − x[n−T+1+t]`,
/// `y₂ = Σ c₂[t]·s_t`, and `max(|y₁|, |y₃|) = |Σ P[t]·s_t| + |Σ Q[t]·d_t|` with
/// `P, Q = (c₁[t] ± c₁[T−1−t])/2` (since `max(|a+b|, |a−b|) = |a| + |b|`): 1.5·T multiplies per
/// output instead of 3·T.
final class TruePeakKernel {
    let factor: Int
    let taps = TruePeakMeter.tapsPerPhase
    /// Broadcast folded coefficients for `t < T/2`: at 4× `[P, Q, c₂]` per tap, at 2× `[c₁]`.
    let coefficients: UnsafeMutablePointer<SIMD8<Float>>
    /// Largest `Σ|h|` over the phases, with margin for Float rounding: `|y| ≤ bound · max|x|`.
    let bound: Float

    init(factor: Int) {
        precondition(factor == 2 || factor == 4)
        precondition(TruePeakMeter.tapsPerPhase == Int(CDSP_TP_TAPS))  // the C kernel's fixed tap count
        self.factor = factor
        let phases = Self.design(factor: factor)
        let taps = TruePeakMeter.tapsPerPhase, half = taps / 2
        // c_p[t] multiplies x[n − t]; the phases are stored oldest input first.
        func c(_ p: Int, _ t: Int) -> Float { phases[p][taps - 1 - t] }
        if factor == 4 {
            coefficients = .allocate(capacity: 3 * half)
            for t in 0..<half {
                (coefficients + 3 * t).initialize(to: SIMD8(repeating: (c(1, t) + c(1, taps - 1 - t)) / 2))
                (coefficients + 3 * t + 1).initialize(to: SIMD8(repeating: (c(1, t) - c(1, taps - 1 - t)) / 2))
                (coefficients + 3 * t + 2).initialize(to: SIMD8(repeating: c(2, t)))
            }
        } else {
            coefficients = .allocate(capacity: half)
            for t in 0..<half { (coefficients + t).initialize(to: SIMD8(repeating: c(1, t))) }
        }
        var l1: Float = 0
        for p in 1..<factor { l1 = Swift.max(l1, phases[p].reduce(0) { $0 + Swift.abs($1) }) }
        bound = l1 * (1 + 1e-5)
    }

    deinit { coefficients.deallocate() }

    /// The phases of the interpolator for `factor`, each oldest input first, normalised to
    /// unity DC gain. Phase `p` estimates `x(n − T/2 + p/L)` from `x[n − T + 1] … x[n]`.
    /// Mirror symmetry (phase `L − p` is phase `p` reversed) is imposed exactly.
    static func design(factor: Int) -> [[Float]] {
        let taps = TruePeakMeter.tapsPerPhase
        let length = factor * taps + 1
        let centre = factor * taps / 2
        let beta = TruePeakMeter.kaiserBeta
        var h = [Double](repeating: 0, count: length)
        for k in 0...centre {
            let m = Double(k - centre) / Double(factor)
            let sinc = m == 0 ? 1 : Double.sin(Double.pi * m) / (Double.pi * m)
            let r = Double(k - centre) / Double(centre)
            h[k] = sinc * besselI0(beta * Swift.max(0, 1 - r * r).squareRoot()) / besselI0(beta)
            h[length - 1 - k] = h[k]
        }
        return (0..<factor).map { p in
            // h[p + L·t] multiplies x[n − t]: reverse so the oldest input comes first.
            var phase = (0..<taps).map { h[p + factor * $0] }
            if p == 0 { phase = (0..<taps).map { $0 == taps / 2 ? 1 : 0 } }
            let sum = phase.reduce(0, +)
            return phase.reversed().map { Float($0 / sum) }
        }
    }

    /// Modified Bessel function of the first kind, order 0 (power series).
    static func besselI0(_ x: Double) -> Double {
        var sum = 1.0, term = 1.0, k = 1.0
        let q = x * x / 4
        while term > 1e-17 * sum {
            term *= q / (k * k)
            sum += term
            k += 1
        }
        return sum
    }

    /// The largest `|y|` over phases 1 ..< L for outputs `0 ..< count`, where output `i` uses
    /// `x[i − T + 1] … x[i]`; `x[−T ..< 0]` must hold the history and `x[count ..< count + 8]`
    /// must be readable.
    func peak(_ x: UnsafePointer<Float>, count: Int) -> Float {
        factor == 4 ? peak4(x, count: count) : peak2(x, count: count)
    }

    private static let lanes = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)

    @inline(__always)
    private static func magnitude(_ v: SIMD8<Float>) -> SIMD8<Float> { v.replacing(with: -v, where: v .< 0) }

    /// The 4× case in C (`cdsp_truepeak4`, CDSPKernels/MeteringTruePeak.c): the same folded sums, lane
    /// for lane and tap for tap, as 8-float vectors (AVX2: about half the instructions of
    /// `SIMD8<Float>` in baseline SSE), products rounded before adding: bit-identical results.
    private func peak4(_ x: UnsafePointer<Float>, count: Int) -> Float {
        UnsafeRawPointer(coefficients).withMemoryRebound(to: Float.self, capacity: 24 * (taps / 2)) {
            cdsp_truepeak4(x, count, $0)
        }
    }

    private func peak2(_ x: UnsafePointer<Float>, count: Int) -> Float {
        let c = coefficients
        let half = taps / 2, last = 4 * (taps - 1)
        var m = SIMD8<Float>()
        var i = 0
        while i < count {
            var y = SIMD8<Float>()
            let base = UnsafeRawPointer(x + i)
            for t in 0..<half {
                let newer = base.loadUnaligned(fromByteOffset: -4 * t, as: SIMD8<Float>.self)
                let older = base.loadUnaligned(fromByteOffset: 4 * t - last, as: SIMD8<Float>.self)
                y += c[t] * (newer + older)
            }
            var peak = Self.magnitude(y)
            if count - i < 8 { peak.replace(with: 0, where: Self.lanes .>= Int32(count - i)) }
            m = m.replacing(with: peak, where: peak .> m)
            i += 8
        }
        return m.max()
    }
}

extension TruePeakKernel {
    /// Bytes of the coefficients (three vectors per tap pair at ×4, one otherwise).
    var allocatedBytes: Int { MemoryFootprint.bytes(SIMD8<Float>.self, (factor == 4 ? 3 : 1) * (taps / 2)) }
}
