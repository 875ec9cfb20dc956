// The Getting Started article's loudness recipe, compiled and run by QuickStartTests.

import DSPAnalysis

/// Loudness of a whole stereo signal, then live values while a stream runs.
func loudnessExamples(_ stereo48k: [Float]) throws -> (integrated: Double, momentary: Double) {
    // snippet: loudness
    // A whole signal (BS.1770-5 / EBU R 128): integrated loudness, range and true peak.
    let meter = try LoudnessMeter(configuration: .init(sampleRate: 48_000, channelLayout: .stereo))
    let summary = meter.analyze(stereo48k).summary
    print(summary.integratedLUFS, summary.loudnessRangeLU, summary.truePeakDBTP ?? -.infinity)

    // Live: push chunks, read the momentary (400 ms) and short-term (3 s) values at any time.
    stereo48k.withUnsafeBufferPointer { meter.process($0) }
    print(meter.momentaryLUFS, meter.shortTermLUFS)
    // snippet end
    return (summary.integratedLUFS, meter.momentaryLUFS)
}
