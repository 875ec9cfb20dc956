import DSPAnalysis

/// The per-sample K-weighting recursion: both sections in direct form I, in Double — what
/// `LoudnessMeter` ran before the block kernel (`KWeightingBank`, C `cdsp_kweighting_*`), kept
/// here as the reference the tests check that kernel against.
///
/// Direct form I keeps the loop-carried dependency of each section to one multiply and one
/// subtraction (`y[n] = (b·x − a₂·y[n−2]) − a₁·y[n−1]`); the two sections pipeline. The
/// high-pass runs with numerator `[1, −2, 1]`; its gain `b0` is applied to the energy
/// (``gainSquared``). Per channel the state is six values: `x[n−1], x[n−2], u[n−1], u[n−2],
/// v[n−1], v[n−2]` (`u` = shelf output, `v` = high-pass output before gain).
struct KWeightingKernel {
    let b0: Double, b1: Double, b2: Double, a1: Double, a2: Double
    let c1: Double, c2: Double
    /// The high-pass numerator gain squared: multiply energies by this.
    let gainSquared: Double
    static let stateCount = 6

    init(_ filter: KWeightingFilter) {
        b0 = filter.shelf.b0
        b1 = filter.shelf.b1
        b2 = filter.shelf.b2
        a1 = filter.shelf.a1
        a2 = filter.shelf.a2
        c1 = filter.highPass.a1
        c2 = filter.highPass.a2
        gainSquared = filter.highPass.b0 * filter.highPass.b0
    }

    /// Filters `count` samples of one channel and adds `Σ v²` to `energy`.
    @inline(__always)
    func run(_ x: UnsafePointer<Float>, count: Int, state: UnsafeMutablePointer<Double>, energy: inout Double) {
        var x1 = state[0], x2 = state[1], u1 = state[2], u2 = state[3], v1 = state[4], v2 = state[5]
        var sum = energy
        for i in 0..<count {
            let x0 = Double(x[i])
            let u0 = (b0 * x0 + b1 * x1 + b2 * x2 - a2 * u2) - a1 * u1
            let v0 = ((u0 + u2) - (u1 + u1) - c2 * v2) - c1 * v1
            sum += v0 * v0
            x2 = x1
            x1 = x0
            u2 = u1
            u1 = u0
            v2 = v1
            v1 = v0
        }
        energy = sum
        state[0] = x1
        state[1] = x2
        state[2] = u1
        state[3] = u2
        state[4] = v1
        state[5] = v2
    }

    /// Sets decayed filter outputs (|u|, |v| < 1e−30) to exact zero so that silence after
    /// sound reaches −∞ and never runs into denormals.
    @inline(__always)
    static func settle(_ state: UnsafeMutablePointer<Double>) {
        for i in 2..<stateCount where Swift.abs(state[i]) < 1e-30 { state[i] = 0 }
    }
}
