import DSPCore

/// The error a unit's initializer refused its configuration with, or nil when it accepted it.
///
/// `#expect(refusal { try Unit(configuration: bad) }?.parameter == "field")` checks that a bad
/// field is refused and named; `.value` is the quoted bad value. Any other error traps.
public func refusal<T>(_ make: () throws -> T) -> ConfigurationError? {
    do {
        _ = try make()
        return nil
    } catch let error as ConfigurationError {
        return error
    } catch {
        preconditionFailure("not a ConfigurationError: \(error)")
    }
}

/// Builds a unit from each configuration of `cases`, each of which must be refused with a
/// ``ConfigurationError`` naming `parameter` and quoting `value`. Returns the failures, empty
/// when all hold.
public func checkRefusals<Configuration, Unit>(
    _ cases: [(Configuration, parameter: String, value: String)], _ make: (Configuration) throws -> Unit
) -> [String] {
    cases.compactMap { configuration, parameter, value in
        let error = refusal { try make(configuration) }
        guard error?.parameter != parameter || error?.value != value else { return nil }
        return "\(configuration): expected \(parameter) = \(value) refused, got \(error.map(String.init(describing:)) ?? "no error")"
    }
}
