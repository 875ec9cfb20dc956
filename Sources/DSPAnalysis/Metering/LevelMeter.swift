import DSPCore
internal import CDSPKernels

/// Measures RMS, peak, DC offset and clipping of a block of samples.
///
/// A stateless kernel: ``measure(_:)-(UnsafeBufferPointer<Float>)`` looks at one buffer (a
/// frame, or any block) and never allocates. Sums run over 8 Float32 lanes within blocks of 4096
/// samples and are combined in Double, so a long block keeps full precision. For streams,
/// ``LevelAnalyzer`` frames the input and keeps a summary.
public struct LevelMeter: Sendable {
    /// The fraction of full scale at or beyond which a sample counts as clipped. Range (0, ∞);
    /// default 1.0 (full scale). Use e.g. 0.999 to catch recordings clipped just below full scale.
    public let clipThreshold: Float
    /// The samples' full-scale values (``SampleFullScale/float``, ±1, by default; an integer
    /// format's rails, e.g. +32767/32768 and −1 for 16 bits).
    public let fullScale: SampleFullScale
    /// A sample `x ≥ clipHigh` counts as clipped: `clipThreshold × fullScale.positive`.
    public let clipHigh: Float
    /// A sample `x ≤ clipLow` counts as clipped: `clipThreshold × fullScale.negative`.
    public let clipLow: Float

    /// Creates a meter; throws if the threshold is not a positive finite value.
    ///
    /// A finite sample is clipped when `x ≥ clipThreshold × fullScale.positive` or
    /// `x ≤ clipThreshold × fullScale.negative`. With the default ``SampleFullScale/float`` that
    /// is `|x| ≥ clipThreshold`; with an integer format's full scale a threshold of 1.0 counts
    /// exactly the samples at its two rail codes.
    public init(clipThreshold: Float = 1.0, fullScale: SampleFullScale = .float) throws(ConfigurationError) {
        guard clipThreshold.isFinite, clipThreshold > 0 else {
            throw ConfigurationError(parameter: "clipThreshold", value: clipThreshold, expected: "finite, > 0")
        }
        let high = clipThreshold * fullScale.positive
        let low = clipThreshold * fullScale.negative
        guard high.isFinite, low.isFinite, high > 0, low < 0 else {
            throw ConfigurationError(parameter: "clipThreshold", value: clipThreshold, expected: "finite clip levels at this full scale")
        }
        self.clipThreshold = clipThreshold
        self.fullScale = fullScale
        clipHigh = high
        clipLow = low
    }

    /// Measures `samples`. Never allocates.
    ///
    /// The sums run in the C kernel `cdsp_level_measure` (CDSPKernels, dispatched to AVX-512F,
    /// AVX2 or SSE2 at run time), which performs the operations of the eight-lane Swift loop
    /// it replaced in the same order, without fusing a multiply and an add: the results are
    /// bit-identical (the tests keep that loop as the reference). Samples beyond full scale are
    /// measured as they are (a float file may hold them): a level above 0 dBFS is a true value,
    /// and a block whose Float sums would overflow (samples beyond about 1.8e19) is summed in
    /// Double, so any finite input gives finite levels.
    public func measure(_ samples: UnsafeBufferPointer<Float>) -> FrameLevel {
        guard let base = samples.baseAddress, !samples.isEmpty else { return .empty }
        var sums = cdsp_level_sums()
        cdsp_level_measure(base, samples.count, clipHigh, clipLow, &sums)
        let nonFinite = Int(sums.non_finite)
        let finiteCount = samples.count - nonFinite
        let n = Double(Swift.max(finiteCount, 1))
        return FrameLevel(
            sampleCount: finiteCount, meanSquare: sums.sum_squares / n, peak: sums.peak,
            dcOffset: sums.sum / n, clippedCount: Int(sums.clipped), nonFiniteCount: nonFinite)
    }
}
