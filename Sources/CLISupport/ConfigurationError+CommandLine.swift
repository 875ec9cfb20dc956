import DSPCore

extension ConfigurationError {
    /// The error in a command line's words: the parameter named by the option (or the input
    /// property) that set it, from `names` (API name → e.g. `--frame-length`), e.g.
    /// `invalid --frame-length: 0 (expected 1...65536)`. A parameter not in `names` keeps its
    /// API name.
    package func commandLineDescription(_ names: [String: String]) -> String {
        "invalid \(names[parameter] ?? parameter): \(value) (expected \(expected))"
    }
}
