// SpectralAnalyzer's analysis geometry and ranges, validated in `init(configuration:)`.

extension SpectralAnalyzer {
    /// Analysis geometry and ranges. Defaults suit speech at 16 kHz.
    public struct Configuration: Hashable, Sendable {
        /// Sample rate of the stream, Hz. Range 8000…96000; default 16000.
        public var sampleRate: Double
        /// Window (and FFT) length in samples: even, 64…16384; default 1024 (64 ms at 16 kHz,
        /// long enough for two periods of a 60 Hz voice).
        public var windowLength: Int
        /// Samples between frames, 1…`windowLength`; default 256 (16 ms at 16 kHz).
        public var hopLength: Int
        /// Pitch search range, Hz; default 60…400 (adult and child voices). The upper bound must
        /// be below `sampleRate / 4` and the lower bound's period must fit twice in the window.
        public var pitchRangeHz: ClosedRange<Double>
        /// Bins used for flatness and entropy, Hz; default 100…7000 (below the Nyquist
        /// frequency; clipped to it).
        public var analysisBandHz: ClosedRange<Double>
        /// Number of mel-spaced bands for band powers, 4…64; default 20.
        public var bandCount: Int
        /// Band layout: lower edge of the first and upper edge of the last band, Hz; default
        /// 80…7800 (clipped below the Nyquist frequency).
        public var bandRangeHz: ClosedRange<Double>

        /// Creates a configuration; every parameter has the documented default.
        public init(
            sampleRate: Double = 16_000, windowLength: Int = 1024, hopLength: Int = 256,
            pitchRangeHz: ClosedRange<Double> = 60...400, analysisBandHz: ClosedRange<Double> = 100...7000,
            bandCount: Int = 20, bandRangeHz: ClosedRange<Double> = 80...7800
        ) {
            self.sampleRate = sampleRate
            self.windowLength = windowLength
            self.hopLength = hopLength
            self.pitchRangeHz = pitchRangeHz
            self.analysisBandHz = analysisBandHz
            self.bandCount = bandCount
            self.bandRangeHz = bandRangeHz
        }
    }
}
