// The Getting Started article's offline file recipe, compiled and run by QuickStartTests.

import SpeechDSP

// snippet: file
/// Reads a whole file and measures it: loudness at its own rate and layout, speech segments
/// on the 16 kHz mono stream every analysis reads.
func describe(path: String) throws -> String {
    let file = try AudioFileReader.readAll(path: path)
    let layout: LoudnessMeter.ChannelLayout = file.channelCount == 2 ? .stereo : .mono
    let loudness = try LoudnessMeter(configuration: .init(sampleRate: file.sampleRate, channelLayout: layout))
        .analyze(file.samples).summary

    let mono16k = try StreamConditioner(configuration: .init(inputRate: file.sampleRate, channelCount: file.channelCount))
        .processAll(file.samples)
    let analysis = try AnalysisChain().analyze(mono16k)
    let speech = analysis.segments.filter { $0.activity == .speech }

    return "\(file.durationSeconds) s, \(loudness.integratedLUFS) LUFS, \(speech.count) speech segments, "
        + "speech ratio \(analysis.summary.detection.speechRatio)"
}
// snippet end
