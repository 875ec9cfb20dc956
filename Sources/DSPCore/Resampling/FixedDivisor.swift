// Division by a divisor fixed when a resampler is built, for its per-push arithmetic.

/// Division of non-negative integers by a divisor fixed at set-up: a shift when it is a power of
/// two (1, the channel count of mono and stereo; L = 2 at 24 → 16 kHz), else the division.
struct FixedDivisor {
    /// The divisor, ≥ 1.
    let divisor: Int
    /// log₂(divisor) when the divisor is a power of two, else −1.
    let shift: Int

    init(_ divisor: Int) {
        precondition(divisor >= 1)
        self.divisor = divisor
        shift = divisor & (divisor - 1) == 0 ? divisor.trailingZeroBitCount : -1
    }

    /// `x / divisor` for `x ≥ 0`.
    @inline(__always)
    func quotient(_ x: Int) -> Int { shift >= 0 ? x &>> shift : x / divisor }

    /// `x % divisor` for `x ≥ 0`.
    @inline(__always)
    func remainder(_ x: Int) -> Int { shift >= 0 ? x & (divisor &- 1) : x % divisor }
}
