/// SplitMix64 (Steele, Lea & Flood 2014), seeded: the one reproducible generator of the test
/// targets (chunk sizes, noise, adversarial samples). Not for anything but tests.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The generator's state; the next value depends only on it.
    public var state: UInt64

    /// A generator whose first state is `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [−1, 1): the top 53 bits, scaled.
    public mutating func uniform() -> Double { Double(next() >> 11) * 0x1p-52 - 1 }

    /// Uniform in [0, 1): the top 53 bits, scaled.
    public mutating func unitInterval() -> Double { Double(next() >> 11) * 0x1p-53 }
}
