import DSPCore
import Testing
import TestSupport

/// Each DSPCore unit's `init(configuration:)` refuses every out-of-range field, naming it and
/// quoting the value; the convenience initializers build the same configuration.
@Suite("DSPCore units validate their configuration")
struct UnitConfigurationTests {
    @Test("Resampler")
    func resampler() throws {
        typealias C = Resampler.Configuration
        let refused: [(C, parameter: String, value: String)] = [
            (C(inputRate: 999, outputRate: 16_000), "inputRate", "999"),
            (C(inputRate: 768_001, outputRate: 16_000), "inputRate", "768001"),
            (C(inputRate: 48_000, outputRate: 0), "outputRate", "0"),
            (C(inputRate: 48_000, outputRate: 768_001), "outputRate", "768001"),
            (C(inputRate: 48_000, outputRate: 16_000, channelCount: 0), "channelCount", "0"),
            (C(inputRate: 48_000, outputRate: 16_000, channelCount: 65), "channelCount", "65"),
            // 48 000 / 44 101 is already reduced: 48 000 phases.
            (C(inputRate: 44_101, outputRate: 48_000), "outputRate/inputRate", "48000/44101 (reduced 48000/44101)"),
        ]
        let failures = checkRefusals(refused) { try Resampler(configuration: $0) }
        #expect(failures.isEmpty, "\(failures)")
        // validate() alone refuses the same (the bank size is the one check it leaves to the design).
        #expect(checkRefusals(refused) { try $0.validate() }.isEmpty)
        let configuration = C(inputRate: 44_100, outputRate: 16_000, channelCount: 2, quality: .high, trimsLeadingDelay: true)
        let resampler = try Resampler(configuration: configuration)
        #expect(resampler.configuration == configuration)
        let convenient = try Resampler(inputRate: 44_100, outputRate: 16_000, channelCount: 2, quality: .high, trimsLeadingDelay: true)
        #expect(convenient.configuration == configuration)
        let input = testSignal(count: 2 * 4_411, seed: 3)
        #expect(resampler.processAll(input).map(\.bitPattern) == convenient.processAll(input).map(\.bitPattern))
    }

    @Test("Downmixer")
    func downmixer() throws {
        typealias C = Downmixer.Configuration
        let refused: [(C, parameter: String, value: String)] = [
            (C(channelCount: 0), "channelCount", "0"),
            (C(channelCount: 65), "channelCount", "65"),
            (C(channelCount: 2, mode: .channel(2)), "mode.channel", "2"),
            (C(channelCount: 2, mode: .channel(-1)), "mode.channel", "-1"),
        ]
        let failures = checkRefusals(refused) { try Downmixer(configuration: $0) }
        #expect(failures.isEmpty, "\(failures)")
        #expect(try Downmixer(channelCount: 6, mode: .channel(5)).configuration == C(channelCount: 6, mode: .channel(5)))
    }

    @Test("Int16Converter: every dither is in range")
    func int16() throws {
        for dither in [Int16Converter.Dither.none, .triangular(seed: 0), .triangular(seed: .max)] {
            let configuration = Int16Converter.Configuration(dither: dither)
            #expect(refusal { try configuration.validate() } == nil)
            #expect(Int16Converter(configuration: configuration).configuration == configuration)
            #expect(Int16Converter(dither: dither).configuration == configuration)
        }
    }

    @Test("Reframer")
    func reframer() throws {
        typealias C = Reframer.Configuration
        let refused: [(C, parameter: String, value: String)] = [
            (C(frameLength: 0), "frameLength", "0"),
            (C(frameLength: (1 << 20) + 1), "frameLength", "1048577"),
            (C(frameLength: 512, hopLength: 0), "hopLength", "0"),
            (C(frameLength: 512, hopLength: 513), "hopLength", "513"),
        ]
        let failures = checkRefusals(refused) { try Reframer(configuration: $0) }
        #expect(failures.isEmpty, "\(failures)")
        #expect(try Reframer(configuration: C(frameLength: 400, hopLength: 160)).configuration == C(frameLength: 400, hopLength: 160))
    }
}
