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
