import DSPAnalysis
import DSPCore
import Testing
import TestSupport

/// The meters under the shared streaming-unit harness.
@Suite("Meters keep the streaming contract")
struct MeterContractTests {
    @Test("LoudnessMeter readings", arguments: [(48_000, LoudnessMeter.ChannelLayout.stereo), (16_000, .mono)])
    func loudness(rate: Int, layout: LoudnessMeter.ChannelLayout) throws {
        let channels = layout == .mono ? 1 : 2
        let input = testSignal(count: rate * channels + 5 * channels, seed: 21)
        let failures = try checkStreamingUnit(
            { try LoudnessMeter(configuration: .init(sampleRate: rate, channelLayout: layout)) }, input: input,
            singleSamples: false, same: ==)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("LevelAnalyzer frames")
    func levels() throws {
        let input = testSignal(count: 2 * 20_000 + 3, seed: 22).map { $0 * 1.5 }
        let failures = try checkStreamingUnit(
            { try LevelAnalyzer(configuration: .init(sampleRate: 48_000, channelCount: 2, frameLength: 1024)) }, input: input,
            same: ==)
        #expect(failures.isEmpty, "\(failures)")
    }
}
