/// A configuration value a unit refused at construction.
///
/// Units validate every parameter in their initializer, quoting the bad value, so that
/// `process` never has to.
public struct ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The parameter's name, as spelled in the configuration type.
    public var parameter: String
    /// The refused value, rendered as text.
    public var value: String
    /// What the parameter accepts, e.g. `"1...65536"`.
    public var expected: String

    /// Creates an error for `parameter`, which was `value` but must be `expected`.
    public init(parameter: String, value: String, expected: String) {
        self.parameter = parameter
        self.value = value
        self.expected = expected
    }

    /// Creates an error quoting any value's description.
    public init(parameter: String, value: some CustomStringConvertible, expected: String) {
        self.init(parameter: parameter, value: value.description, expected: expected)
    }

    public var description: String {
        "invalid \(parameter): \(value) (expected \(expected))"
    }

    /// Throws unless `value` lies in `range`.
    @inlinable
    public static func check<T: Comparable & CustomStringConvertible>(
        _ parameter: String, _ value: T, in range: ClosedRange<T>
    ) throws(ConfigurationError) {
        guard range.contains(value) else {
            throw ConfigurationError(parameter: parameter, value: value, expected: "\(range.lowerBound)...\(range.upperBound)")
        }
    }

    /// Throws unless `value` is finite and lies in `range`.
    @inlinable
    public static func check(
        _ parameter: String, _ value: Double, in range: ClosedRange<Double>
    ) throws(ConfigurationError) {
        guard value.isFinite, range.contains(value) else {
            throw ConfigurationError(parameter: parameter, value: value, expected: "finite, \(range.lowerBound)...\(range.upperBound)")
        }
    }
}
