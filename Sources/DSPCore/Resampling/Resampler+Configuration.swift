// What a Resampler is built for: the configuration, its limits and their validation.

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

    /// What a resampler is built for.
    public struct Configuration: Equatable, Sendable {
        /// Input sample rate, Hz. Range ``Resampler/supportedRates`` (1000…768 000); no default.
        public var inputRate: Int
        /// Output sample rate, Hz. Range ``Resampler/supportedRates`` (1000…768 000); no
        /// default. The reduced ratio `outputRate / inputRate = L / M` must have
        /// L ≤ ``Resampler/maximumPhaseCount`` and a bank of at most
        /// ``Resampler/maximumCoefficientCount`` coefficients (true of all common audio rates).
        public var outputRate: Int
        /// Interleaved channels per frame. Range ``Resampler/supportedChannelCounts`` (1…64);
        /// default 1.
        public var channelCount: Int
        /// Filter preset. Default ``Resampler/Quality/default``.
        public var quality: Quality
        /// Drop the leading delay and make process + flush emit exactly
        /// `round(N × outputRate / inputRate)` frames for N input frames. Default false.
        public var trimsLeadingDelay: Bool

        /// Creates a configuration; see each property for its range and default.
        public init(
            inputRate: Int, outputRate: Int, channelCount: Int = 1,
            quality: Quality = .default, trimsLeadingDelay: Bool = false
        ) {
            self.inputRate = inputRate
            self.outputRate = outputRate
            self.channelCount = channelCount
            self.quality = quality
            self.trimsLeadingDelay = trimsLeadingDelay
        }

        /// Throws the first setting out of range: the rates, the channel count, and a reduced
        /// ratio whose numerator exceeds ``Resampler/maximumPhaseCount`` (parameter
        /// `"outputRate/inputRate"`). The bank size is checked when the filter is designed.
        public func validate() throws(ConfigurationError) {
            try ConfigurationError.check("inputRate", inputRate, in: Resampler.supportedRates)
            try ConfigurationError.check("outputRate", outputRate, in: Resampler.supportedRates)
            try ConfigurationError.check("channelCount", channelCount, in: Resampler.supportedChannelCounts)
            let divisor = Resampler.greatestCommonDivisor(inputRate, outputRate)
            let l = outputRate / divisor
            let m = inputRate / divisor
            guard l <= Resampler.maximumPhaseCount else {
                throw ConfigurationError(
                    parameter: "outputRate/inputRate",
                    value: "\(outputRate)/\(inputRate) (reduced \(l)/\(m))",
                    expected: "a ratio whose reduced numerator is at most \(Resampler.maximumPhaseCount)"
                )
            }
        }
    }
}
