// The Getting Started article's speech-segments recipe, compiled and run by QuickStartTests.

import DSPCore
import DSPDetection

// snippet: segments
/// Speech segments, in seconds, of 44.1 kHz stereo audio held in an array.
func speechSegments(_ samples: [Float]) throws -> [(start: Double, end: Double)] {
    // Analyses run on 16 kHz mono: condition first (downmix, resample, delay trimmed).
    let conditioner = try StreamConditioner(configuration: .init(inputRate: 44_100, channelCount: 2))
    let mono16k = conditioner.processAll(samples)

    let chain = try AnalysisChain(configuration: .init(environment: nil))  // detection only
    let speech = chain.analyze(mono16k).segments.filter { $0.activity == .speech }
    return speech.map { ($0.startSeconds(sampleRate: 16_000), $0.endSeconds(sampleRate: 16_000)) }
}
// snippet end
