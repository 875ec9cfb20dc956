import DSPCore

/// Levels of one frame of Float32 samples (full scale = 1.0).
///
/// Non-finite samples (NaN, ±Inf) are counted in ``nonFiniteCount`` and left out of every
/// other measure, which are taken over the ``sampleCount`` finite samples. A frame with no
/// finite sample, or only zeros, has level −∞ dBFS.
@frozen
public struct FrameLevel: Equatable, Sendable {
    /// Finite samples measured.
    public var sampleCount: Int
    /// Mean square of the finite samples, `(1/N) Σ x²`.
    public var meanSquare: Double
    /// Largest finite |x|.
    public var peak: Float
    /// Mean of the finite samples, `(1/N) Σ x` (DC offset, in full-scale units).
    public var dcOffset: Double
    /// Finite samples with |x| ≥ the meter's clip threshold (default 1.0).
    public var clippedCount: Int
    /// NaN and ±Inf samples, excluded from the other measures.
    public var nonFiniteCount: Int

    /// Creates a frame level from its parts.
    @inlinable
    public init(sampleCount: Int, meanSquare: Double, peak: Float, dcOffset: Double, clippedCount: Int, nonFiniteCount: Int) {
        self.sampleCount = sampleCount
        self.meanSquare = meanSquare
        self.peak = peak
        self.dcOffset = dcOffset
        self.clippedCount = clippedCount
        self.nonFiniteCount = nonFiniteCount
    }

    /// A frame with no samples.
    public static let empty = FrameLevel(sampleCount: 0, meanSquare: 0, peak: 0, dcOffset: 0, clippedCount: 0, nonFiniteCount: 0)

    /// RMS level, `10·log10(mean x²)` dBFS: a full-scale sine reads −3.01 dBFS, a full-scale
    /// square 0 dBFS, silence −∞.
    @inlinable
    public var rmsDBFS: Double { Decibels.fromPower(meanSquare) }

    /// RMS level referenced to a sine (AES17): ``rmsDBFS`` + 3.01 dB, so a full-scale sine
    /// reads 0 dB FS and a full-scale square +3.01.
    @inlinable
    public var rmsDBFSSineReferenced: Double { rmsDBFS + Decibels.aes17SineOffset }

    /// Sample peak, `20·log10(max |x|)` dBFS.
    @inlinable
    public var peakDBFS: Double { Decibels.fromAmplitude(Double(peak)) }
}
