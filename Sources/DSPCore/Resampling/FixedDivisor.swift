// Division by a divisor fixed when a resampler is built, for its per-push arithmetic.

/// Division of non-negative integers by a divisor fixed at set-up: a shift when it is a power of
/// two (1, the channel count of mono and stereo; L = 2 at 24 → 16 kHz); otherwise, for
/// dividends below 2³² (every per-push quantity), one 64 × 64-bit multiply by ⌈2⁶⁴ / divisor⌉
/// (Lemire, Kaser & Kurz, "Faster remainder by direct computation", 2019: exact for all 32-bit
/// dividends and divisors), instead of a hardware division; the division for larger ones.
struct FixedDivisor {
    /// The divisor, ≥ 1.
    let divisor: Int
    /// log₂(divisor) when the divisor is a power of two, else −1.
    let shift: Int
    /// ⌈2⁶⁴ / divisor⌉ when the divisor is below 2³² and not a power of two, else 0.
    let reciprocal: UInt64

    init(_ divisor: Int) {
        precondition(divisor >= 1)
        self.divisor = divisor
        shift = divisor & (divisor - 1) == 0 ? divisor.trailingZeroBitCount : -1
        reciprocal = shift < 0 && divisor < 1 << 32 ? UInt64.max / UInt64(divisor) + 1 : 0
    }

    /// `x / divisor` for `x ≥ 0`.
    @inline(__always)
    func quotient(_ x: Int) -> Int {
        if shift >= 0 { return x &>> shift }
        if UInt(bitPattern: x) < 1 << 32 && reciprocal != 0 {
            return Int(truncatingIfNeeded: reciprocal.multipliedFullWidth(by: UInt64(truncatingIfNeeded: x)).high)
        }
        return x / divisor
    }

    /// `x % divisor` for `x ≥ 0`.
    @inline(__always)
    func remainder(_ x: Int) -> Int { shift >= 0 ? x & (divisor &- 1) : x &- quotient(x) &* divisor }
}
