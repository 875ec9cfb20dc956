// The Getting Started article's resampler recipe, compiled and run by QuickStartTests.

import DSPCore

/// Resamples a whole array, then a stream in chunks.
func resampleExamples(_ samples48k: [Float], chunks44k: [[Float]]) throws -> (whole: [Float], stream: [Float]) {
    // snippet: resample
    // A whole signal: aligned with the input, exactly round(N × 16000 / 48000) samples.
    let speech16k = try Resampler.resample(samples48k, from: 48_000, to: 16_000)

    // A stream: one resampler per stream, chunks of any size, the tail at the end.
    let resampler = try Resampler(inputRate: 44_100, outputRate: 16_000, trimsLeadingDelay: true)
    var stream: [Float] = []
    for chunk in chunks44k { stream += resampler.process(chunk) }
    stream += resampler.flush()
    // snippet end
    return (speech16k, stream)
}
