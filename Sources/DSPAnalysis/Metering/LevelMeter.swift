import DSPCore
internal import CDSPKernels

/// Measures RMS, peak, DC offset and clipping of a block of samples.
///
/// A stateless kernel: ``measure(_:)`` looks at one buffer (a frame, or any block) and never
/// allocates. Sums run over 8 Float32 lanes within blocks of 4096 samples and are combined in
/// Double, so a long block keeps full precision. For streams, ``LevelAnalyzer`` frames the
/// input and keeps a summary.
public struct LevelMeter: Sendable {
    /// |x| at or above which a sample counts as clipped. Range (0, ∞); default 1.0 (full
    /// scale). Use e.g. 0.999 to catch recordings clipped just below full scale.
    public let clipThreshold: Float

    /// Creates a meter; throws if the threshold is not a positive finite value.
    public init(clipThreshold: Float = 1.0) throws(ConfigurationError) {
        guard clipThreshold.isFinite, clipThreshold > 0 else {
            throw ConfigurationError(parameter: "clipThreshold", value: clipThreshold, expected: "finite, > 0")
        }
        self.clipThreshold = clipThreshold
    }

    /// Measures `samples`. Never allocates.
    ///
    /// The sums run in the C kernel `cdsp_level_measure` (CDSPKernels, dispatched to AVX-512F,
    /// AVX2 or SSE2 at run time), which performs the operations of the eight-lane Swift loop
    /// it replaced in the same order, without fusing a multiply and an add: the results are
    /// bit-identical (the tests keep that loop as the reference).
    public func measure(_ samples: UnsafeBufferPointer<Float>) -> FrameLevel {
        guard let base = samples.baseAddress, !samples.isEmpty else { return .empty }
        var sums = cdsp_level_sums()
        cdsp_level_measure(base, samples.count, clipThreshold, &sums)
        let nonFinite = Int(sums.non_finite)
        let finiteCount = samples.count - nonFinite
        let n = Double(Swift.max(finiteCount, 1))
        return FrameLevel(
            sampleCount: finiteCount, meanSquare: sums.sum_squares / n, peak: sums.peak,
            dcOffset: sums.sum / n, clippedCount: Int(sums.clipped), nonFiniteCount: nonFinite)
    }
}
