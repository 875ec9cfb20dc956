import DSPAnalysis
import DSPCore
import Testing
import TestSupport

/// The meters' allocating tier — arrays and spans in, arrays and summaries out — against the
/// hot tier on the same input, bit for bit, with the empty and one-sample streams.
@Suite("DSPAnalysis: the array tier equals the hot tier")
struct ArrayTierTests {
    /// Two seconds of stereo at 48 kHz, with a burst past full scale and a NaN.
    static let input: [Float] = {
        var x = testSignal(count: 2 * 96_000 + 3, seed: 31)
        for i in 40_000..<41_000 { x[i] *= 4 }
        x[50_001] = .nan
        return x
    }()

    @Test("LoudnessMeter: readings and summary (analyze)")
    func loudness() throws {
        let make = { try LoudnessMeter(configuration: .init(sampleRate: 48_000, channelLayout: .stereo)) }
        var failures = try checkArrayTier(make, input: Self.input, same: sameDescription)
        failures += try checkAnalyze(make, input: Self.input, same: sameDescription)
        #expect(failures.isEmpty, "\(failures)")
        // The summary is a measurement, not a default: the burst is loud.
        #expect(try make().analyze(Self.input).summary.integratedLUFS > -40)
    }

    @Test("LevelAnalyzer: frames and summary (analyze)")
    func levelAnalyzer() throws {
        let make = { try LevelAnalyzer(configuration: .init(sampleRate: 48_000, channelCount: 2, frameLength: 1024)) }
        var failures = try checkArrayTier(make, input: Self.input, same: sameDescription)
        failures += try checkAnalyze(make, input: Self.input, same: sameDescription)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("TruePeakMeter: peaks and summary (analyze)")
    func truePeak() throws {
        let make = { try TruePeakMeter(configuration: .init(sampleRate: 48_000, channelCount: 2)) }
        var failures = try checkArrayTier(make, input: Self.input, same: sameBits)
        failures += try checkAnalyze(make, input: Self.input, same: sameBits)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("LevelMeter.measure on an array and a span equals the buffer kernel")
    func levelMeter() throws {
        let meter = try LevelMeter(clipThreshold: 0.9)
        let hot = Self.input.withUnsafeBufferPointer { meter.measure($0) }
        #expect(sameDescription(meter.measure(Self.input), hot))
        #expect(sameDescription(meter.measure(Self.input.span), hot))
        #expect(hot.clippedCount > 0 && hot.nonFiniteCount == 1)
        // Edge cases: empty and one sample.
        #expect(meter.measure([Float]()) == .empty)
        #expect(meter.measure([Float]().span) == .empty)
        #expect(meter.measure([0.5]) == [Float(0.5)].withUnsafeBufferPointer { meter.measure($0) })
    }
}
