import DSPCore

extension LoudnessMeter {
    /// Interleaved channels and their BS.1770 weights `G_c`.
    public enum ChannelLayout: Equatable, Sendable {
        /// One channel, weight 1.0.
        case mono
        /// L, R: weights 1.0, 1.0.
        case stereo
        /// L, R, C, Ls, Rs: weights 1.0, 1.0, 1.0, 1.41, 1.41 (the EBU test set's 5-channel order).
        case surround5_0
        /// L, R, C, LFE, Ls, Rs (ITU-R BS.775 / SMPTE / WAVE order): weights 1.0, 1.0, 1.0, 0
        /// (LFE excluded), 1.41, 1.41.
        case surround5_1
        /// Any layout: one weight per interleaved channel, each in 0…10; 0 excludes a channel
        /// from loudness (its peaks are still measured). E.g. `[2.0]` for dual mono.
        case custom(weights: [Double])

        /// The weight BS.1770 gives the surround channels, `≈ 10^{1.5/10}`.
        public static let surroundWeight = 1.41

        /// Interleaved channels in a frame.
        public var channelCount: Int { weights.count }

        /// The per-channel weights, in interleaved order.
        public var weights: [Double] {
            switch self {
            case .mono: return [1]
            case .stereo: return [1, 1]
            case .surround5_0: return [1, 1, 1, Self.surroundWeight, Self.surroundWeight]
            case .surround5_1: return [1, 1, 1, 0, Self.surroundWeight, Self.surroundWeight]
            case .custom(let weights): return weights
            }
        }
    }

    /// Meter settings.
    public struct Configuration: Equatable, Sendable {
        /// Sample rate in Hz; the meter runs at this rate (no resampling). Range
        /// 8 000…768 000; default 48 000.
        public var sampleRate: Int
        /// Interleaved channels and their weights. 1…64 channels; default ``ChannelLayout/mono``.
        public var channelLayout: ChannelLayout
        /// How K-weighting is derived at ``sampleRate``; default
        /// ``KWeightingFilter/Design/matched`` (the 48 kHz response at every rate).
        /// ``KWeightingFilter/Design/bilinear`` reproduces libebur128 at every rate.
        public var kWeighting: KWeightingFilter.Design
        /// Whether to measure true peak (the dominant cost after K-weighting). Default true.
        public var measuresTruePeak: Bool
        /// Hop between the 3 s short-term blocks that loudness range uses, in milliseconds.
        /// Range 10…3000, a multiple of 10; default 100 (EBU Tech 3342: at least 10 Hz).
        /// 1000 reproduces libebur128, whose blocks overlap by 2 s.
        public var loudnessRangeHopMilliseconds: Int

        /// Creates a configuration.
        public init(
            sampleRate: Int = 48_000, channelLayout: ChannelLayout = .mono,
            kWeighting: KWeightingFilter.Design = .matched, measuresTruePeak: Bool = true,
            loudnessRangeHopMilliseconds: Int = 100
        ) {
            self.sampleRate = sampleRate
            self.channelLayout = channelLayout
            self.kWeighting = kWeighting
            self.measuresTruePeak = measuresTruePeak
            self.loudnessRangeHopMilliseconds = loudnessRangeHopMilliseconds
        }

        /// Throws the first setting out of range.
        func validate() throws(ConfigurationError) {
            try ConfigurationError.check("sampleRate", sampleRate, in: 8_000...768_000)
            try ConfigurationError.check("channelLayout.channelCount", channelLayout.channelCount, in: 1...64)
            for (i, weight) in channelLayout.weights.enumerated() {
                try ConfigurationError.check("channelLayout.weights[\(i)]", weight, in: 0...10)
            }
            try ConfigurationError.check("loudnessRangeHopMilliseconds", loudnessRangeHopMilliseconds, in: 10...3000)
            guard loudnessRangeHopMilliseconds % 10 == 0 else {
                throw ConfigurationError(
                    parameter: "loudnessRangeHopMilliseconds", value: loudnessRangeHopMilliseconds,
                    expected: "a multiple of 10")
            }
        }
    }
}
