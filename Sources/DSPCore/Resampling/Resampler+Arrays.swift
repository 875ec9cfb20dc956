// One call from an array at one rate to an array at another, for offline work.

extension Resampler {
    /// Resamples a whole signal: `samples` (interleaved, `channelCount` channels) at `inputRate`
    /// to `outputRate`, aligned with the input (the filter's delay trimmed), exactly
    /// `round(N × outputRate / inputRate)` frames for N input frames — a resampler built with
    /// `trimsLeadingDelay: true`, fed the whole array and flushed.
    ///
    /// Allocates (the filter design included); not for real-time use. A stream keeps one
    /// ``Resampler`` and calls ``process(_:into:)``.
    /// - Throws: ``ConfigurationError`` for rates or a channel count the resampler refuses.
    public static func resample(
        _ samples: [Float], from inputRate: Int, to outputRate: Int, channelCount: Int = 1,
        quality: Quality = .default
    ) throws(ConfigurationError) -> [Float] {
        let resampler = try Resampler(
            inputRate: inputRate, outputRate: outputRate, channelCount: channelCount, quality: quality,
            trimsLeadingDelay: true)
        return resampler.processAll(samples)
    }
}
