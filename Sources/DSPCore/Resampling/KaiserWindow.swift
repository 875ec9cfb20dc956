// Kaiser window and the Kaiser design formulas, in Double (used at construction only).

/// The Kaiser window and its empirical design formulas (Kaiser 1974; Oppenheim & Schafer,
/// *Discrete-Time Signal Processing*, 3rd ed., §7.6).
enum KaiserWindow {
    /// The shape parameter β for a stopband attenuation of `attenuationDB` decibels:
    /// β = 0.1102 (A − 8.7) for A > 50, 0.5842 (A − 21)^0.4 + 0.07886 (A − 21) for 21 ≤ A ≤ 50, else 0.
    static func beta(attenuationDB a: Double) -> Double {
        if a > 50 { return 0.1102 * (a - 8.7) }
        if a >= 21 {
            let x = a - 21
            return 0.5842 * root(x, 0.4) + 0.07886 * x
        }
        return 0
    }

    /// The window length, in taps, that reaches `attenuationDB` with a transition band of
    /// `transitionWidthRadians` (radians per sample): N = (A − 7.95) / (2.285 Δω) + 1, rounded up.
    static func length(attenuationDB a: Double, transitionWidthRadians dw: Double) -> Int {
        let n = (a - 7.95) / (2.285 * dw)
        return Int(n.rounded(.up)) + 1
    }

    /// The zeroth-order modified Bessel function of the first kind, I₀(x), by its power series
    /// Σ ((x/2)^k / k!)², summed until the term falls below 1e-17 of the total.
    static func besselI0(_ x: Double) -> Double {
        let half = x / 2
        var term = 1.0
        var sum = 1.0
        var k = 1.0
        while true {
            let factor = half / k
            term *= factor * factor
            sum += term
            if term < sum * 1e-17 { break }
            k += 1
        }
        return sum
    }

    /// The value of a `length`-tap Kaiser window with shape `beta` at tap `index` (0-based):
    /// w[n] = I₀(β √(1 − (2n/(N−1) − 1)²)) / I₀(β).
    static func value(at index: Int, length: Int, beta: Double, inverseI0Beta: Double) -> Double {
        guard length > 1 else { return 1 }
        let r = 2 * Double(index) / Double(length - 1) - 1
        let arg = Swift.max(0, 1 - r * r)
        return besselI0(beta * arg.squareRoot()) * inverseI0Beta
    }

    /// x^p for x ≥ 0 (0 for x ≤ 0).
    private static func root(_ x: Double, _ p: Double) -> Double {
        guard x > 0 else { return 0 }
        return Elementary.power(x, p)
    }
}
