// Construction-time validation: rates, channel count, and whether the reduced ratio is
// practical for a polyphase bank.

extension Resampler {
    /// Accepted sample rates, in Hz (integers).
    public static let supportedRates: ClosedRange<Int> = 1000...768_000
    /// Accepted channel counts.
    public static let supportedChannelCounts: ClosedRange<Int> = 1...64
    /// The largest interpolation factor L (phase count) of the reduced ratio
    /// `outputRate / inputRate = L / M`; 11 025 → 16 000 Hz needs 640.
    public static let maximumPhaseCount = 1024
    /// The largest filter bank, in Float32 coefficients (16 MiB).
    public static let maximumCoefficientCount = 1 << 22

    /// SIMD width the phase rows are padded to, in floats.
    static let simdWidth = 8

    /// Greatest common divisor of two positive integers (Euclid).
    static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
        var x = a
        var y = b
        while y != 0 { (x, y) = (y, x % y) }
        return x
    }

    /// Validates the configuration and returns the designed bank layout.
    static func validatedLayout(
        inputRate: Int, outputRate: Int, channelCount: Int, quality: Quality
    ) throws(ConfigurationError) -> PolyphaseLayout {
        try ConfigurationError.check("inputRate", inputRate, in: supportedRates)
        try ConfigurationError.check("outputRate", outputRate, in: supportedRates)
        try ConfigurationError.check("channelCount", channelCount, in: supportedChannelCounts)
        let divisor = greatestCommonDivisor(inputRate, outputRate)
        let l = outputRate / divisor
        let m = inputRate / divisor
        guard l <= maximumPhaseCount else {
            throw ConfigurationError(
                parameter: "outputRate/inputRate",
                value: "\(outputRate)/\(inputRate) (reduced \(l)/\(m))",
                expected: "a ratio whose reduced numerator is at most \(maximumPhaseCount)"
            )
        }
        let layout = PolyphaseLayout(phaseCount: l, step: m, inputRate: inputRate, outputRate: outputRate, quality: quality)
        guard layout.coefficientCount <= maximumCoefficientCount else {
            throw ConfigurationError(
                parameter: "outputRate/inputRate",
                value: "\(outputRate)/\(inputRate) (reduced \(l)/\(m), \(layout.coefficientCount) coefficients)",
                expected: "a ratio whose filter bank has at most \(maximumCoefficientCount) coefficients"
            )
        }
        return layout
    }
}
