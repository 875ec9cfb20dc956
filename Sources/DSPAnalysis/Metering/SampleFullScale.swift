import DSPCore

/// The sample values of a format's full-scale codes, as a reader delivers them in `Float`:
/// where a stored sample cannot go further, so where clipping shows.
///
/// Floating-point samples have no rails; full scale is ±1.0 (``float``). An integer encoding of
/// `b` bits is read as `code / 2^(b−1)`, so its rails are asymmetric: the largest positive code
/// reads `(2^(b−1) − 1) / 2^(b−1)` (+32767 → 0.999 969 48 for 16 bits) and the most negative
/// `−1.0` (−32768); −32767 is not a rail. ``integer(bits:)`` gives them. For 32-bit PCM the
/// positive rail rounds to 1.0 in `Float` — the reader cannot tell the top 64 codes apart, so
/// they all count as the rail.
@frozen
public struct SampleFullScale: Equatable, Sendable {
    /// The value of the largest positive code; > 0.
    public var positive: Float
    /// The value of the most negative code; < 0.
    public var negative: Float

    /// Creates a full scale from its two rails; throws unless `positive` is finite and > 0 and
    /// `negative` finite and < 0.
    public init(positive: Float, negative: Float) throws(ConfigurationError) {
        guard positive.isFinite, positive > 0 else {
            throw ConfigurationError(parameter: "fullScale.positive", value: positive, expected: "finite, > 0")
        }
        guard negative.isFinite, negative < 0 else {
            throw ConfigurationError(parameter: "fullScale.negative", value: negative, expected: "finite, < 0")
        }
        self.positive = positive
        self.negative = negative
    }

    private init(checked positive: Float, _ negative: Float) {
        self.positive = positive
        self.negative = negative
    }

    /// Floating-point samples: ±1.0.
    public static let float = SampleFullScale(checked: 1, -1)

    /// Two's-complement (or offset-binary) integer samples of `bits` bits (clamped to 2…32),
    /// read as `code / 2^(bits−1)`: `+(2^(bits−1) − 1) / 2^(bits−1)` and `−1`.
    public static func integer(bits: Int) -> SampleFullScale {
        let scale = Double(UInt64(1) << UInt64(Swift.min(Swift.max(bits, 2), 32) - 1))
        return SampleFullScale(checked: Float((scale - 1) / scale), -1)
    }
}
