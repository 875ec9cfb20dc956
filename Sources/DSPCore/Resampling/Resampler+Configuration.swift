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

    /// x⁻¹ mod n for gcd(x, n) = 1 (extended Euclid); 0 when n = 1.
    static func modularInverse(_ x: Int, modulo n: Int) -> Int {
        guard n > 1 else { return 0 }
        var (r0, r1) = (n, x % n)
        var (t0, t1) = (0, 1)
        while r1 != 0 {
            let q = r0 / r1
            (r0, r1) = (r1, r0 - q * r1)
            (t0, t1) = (t1, t0 - q * t1)
        }
        return (t0 % n + n) % n
    }

    /// Validates the configuration and returns the designed bank layout of the polyphase
    /// stage and, for two-stage downsampling, the half-band first stage.
    ///
    /// Two stages when the input rate is even and at least 2.5 × the output rate (48, 44.1,
    /// 88.2, 96 → 16 kHz): a half-band decimator to `inputRate / 2`, then the polyphase stage
    /// from there. Otherwise the polyphase stage alone, from `inputRate`.
    static func validatedLayout(
        inputRate: Int, outputRate: Int, channelCount: Int, quality: Quality
    ) throws(ConfigurationError) -> (layout: PolyphaseLayout, halfBand: HalfBandDesign?) {
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
        if inputRate % 2 == 0, 2 * inputRate >= 5 * outputRate {
            let stageRate = inputRate / 2
            let stageDivisor = greatestCommonDivisor(stageRate, outputRate)
            let edgeHz = Quality.stopbandEdgeRatio * Double(outputRate) / 2
            if outputRate / stageDivisor <= maximumPhaseCount,
               let halfBand = HalfBandDesign.design(inputRate: inputRate, edgeHz: edgeHz, attenuationDB: quality.equirippleAttenuationDB) {
                let layout = PolyphaseLayout(
                    phaseCount: outputRate / stageDivisor, step: stageRate / stageDivisor,
                    inputRate: stageRate, outputRate: outputRate, quality: quality)
                if layout.coefficientCount <= maximumCoefficientCount { return (layout, halfBand) }
            }
        }
        let layout = PolyphaseLayout(phaseCount: l, step: m, inputRate: inputRate, outputRate: outputRate, quality: quality)
        guard layout.coefficientCount <= maximumCoefficientCount else {
            throw ConfigurationError(
                parameter: "outputRate/inputRate",
                value: "\(outputRate)/\(inputRate) (reduced \(l)/\(m), \(layout.coefficientCount) coefficients)",
                expected: "a ratio whose filter bank has at most \(maximumCoefficientCount) coefficients"
            )
        }
        return (layout, nil)
    }
}
