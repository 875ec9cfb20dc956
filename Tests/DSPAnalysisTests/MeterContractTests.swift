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

    @Test("TruePeakMeter: one true peak per channel at the flush", arguments: [(48_000, 2), (96_000, 1), (16_000, 5), (192_000, 1)])
    func truePeak(rate: Int, channels: Int) throws {
        var input = testSignal(count: 3_001 * channels + 1, seed: 23)  // ends inside a frame
        input[700] = .nan
        let failures = try checkStreamingUnit(
            { try TruePeakMeter(configuration: .init(sampleRate: rate, channelCount: channels)) }, input: input,
            expectedCount: channels, same: sameBits)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("TruePeakMeter: flush keeps the ended stream's summary for finalize; a new stream drops it")
    func truePeakSummary() throws {
        let input = testSignal(count: 2 * 4_801, seed: 24)
        let meter = try TruePeakMeter(configuration: .init(channelCount: 2))
        // The reference: finalize without a flush, pushed in one buffer.
        input.withUnsafeBufferPointer { meter.process($0) }
        let reference = meter.finalize()
        #expect(reference.frameCount == 4_801 && reference.channelTruePeakDBTP.count == 2)
        #expect(reference.truePeakDBTP == reference.channelTruePeakDBTP.max())
        #expect(reference.truePeakDBTP >= reference.samplePeakDBFS)
        // finalize left the meter as after reset(): an empty stream's summary follows.
        let empty = meter.finalize()
        #expect(empty.frameCount == 0 && empty.truePeakDBTP == -.infinity && empty.channelTruePeakDBTP == [-.infinity, -.infinity])
        // Flushed in 1024-sample pushes: the flush writes the peaks, finalize returns the same summary.
        let peaks = runStream(meter, input, chunking: .blocks1024)
        #expect(peaks.map { Decibels.fromAmplitude(Double($0)) } == reference.channelTruePeakDBTP)
        #expect(meter.truePeakDBTP == -.infinity)
        #expect(meter.finalize() == reference)
        // A flushed summary is dropped by the next stream's first samples.
        _ = runStream(meter, [1, 1], chunking: .whole)
        input.withUnsafeBufferPointer { meter.process($0) }
        #expect(meter.finalize() == reference)
    }

    @Test("TruePeakMeter refuses each out-of-range field")
    func truePeakConfiguration() throws {
        typealias C = TruePeakMeter.Configuration
        let refused: [(C, parameter: String, value: String)] = [
            (C(sampleRate: 7_999), "sampleRate", "7999"),
            (C(sampleRate: 768_001), "sampleRate", "768001"),
            (C(channelCount: 0), "channelCount", "0"),
            (C(channelCount: 65), "channelCount", "65"),
        ]
        let failures = checkRefusals(refused) { try TruePeakMeter(configuration: $0) }
        #expect(failures.isEmpty, "\(failures)")
        #expect(try TruePeakMeter(sampleRate: 44_100, channelCount: 2).configuration == C(sampleRate: 44_100, channelCount: 2))
    }
}
