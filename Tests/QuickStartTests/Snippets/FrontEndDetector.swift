// docs/front-end.md's "Detection settings" block, compiled and run by QuickStartTests: a front
// end for an 8 kHz stream, without the blend and with a longer hangover.

import DSPPipeline

func frontEndForCalls() throws -> SpeechFrontEnd {
    // snippet: front-end-detector
    var configuration = SpeechFrontEnd.Configuration(inputRate: 8_000)
    configuration.detector.speechBlend = nil                     // the speech model alone
    configuration.detector.speechSegments.hangoverSeconds = 0.4  // bridge pauses up to 0.4 s
    let frontEnd = try SpeechFrontEnd(configuration: configuration)
    // snippet end
    return frontEnd
}
