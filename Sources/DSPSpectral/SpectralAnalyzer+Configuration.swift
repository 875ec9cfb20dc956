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
        /// Frames analysed together, 1…4; default 4. A frame is emitted once the batch it belongs
        /// to is complete: frames `k·B ..< (k+1)·B` (B = `framesPerBatch`) come together, when the
        /// last of their hops has been pushed. Four takes the four-frame path (the latency-bound
        /// kernels after the FFT run four frames side by side), which costs less per frame; fewer
        /// spread the work over more pushes — with 1024-sample pushes at 48 kHz (1.33 hops at
        /// 16 kHz) a batch of four falls on one push in three, a batch of one on every push —
        /// and cut the latency (``SpectralAnalyzer/outputDelay``, `B × hopLength`). Every frame is
        /// the same, bit for bit, whatever the batch size and the push sizes: only when frames
        /// are emitted changes. (A push that completes four or more frames runs the four-frame
        /// path whatever the batch size.)
        public var framesPerBatch: Int

        /// The default number of frames analysed together (4).
        public static let defaultFramesPerBatch = 4

        /// Creates a configuration; every parameter has the documented default.
        public init(
            sampleRate: Double = 16_000, windowLength: Int = 1024, hopLength: Int = 256,
            pitchRangeHz: ClosedRange<Double> = 60...400, analysisBandHz: ClosedRange<Double> = 100...7000,
            bandCount: Int = 20, bandRangeHz: ClosedRange<Double> = 80...7800,
            framesPerBatch: Int = Configuration.defaultFramesPerBatch
        ) {
            self.sampleRate = sampleRate
            self.windowLength = windowLength
            self.hopLength = hopLength
            self.pitchRangeHz = pitchRangeHz
            self.analysisBandHz = analysisBandHz
            self.bandCount = bandCount
            self.bandRangeHz = bandRangeHz
            self.framesPerBatch = framesPerBatch
        }

        /// The configuration the fixed tables depend on: every field but ``framesPerBatch``
        /// (analyzers that differ only in their batch size share one copy).
        var tableKey: Configuration {
            var key = self
            key.framesPerBatch = Self.defaultFramesPerBatch
            return key
        }
    }
}
