import DSPCore
import Testing
import TestSupport

/// The shared streaming-unit harness (`checkStreamingUnit`: one buffer, 1024-sample pushes,
/// random pushes, single samples, flush and reset equivalence, exact lengths) over DSPCore's
/// units.
@Suite("DSPCore units keep the streaming contract")
struct StreamingUnitContractTests {
    /// A signal with a NaN, an infinity and a denormal in it.
    static func hostile(_ count: Int, seed: UInt64) -> [Float] {
        var x = testSignal(count: count, seed: seed)
        if count > 300 { x[100] = .nan; x[200] = .infinity; x[300] = .leastNonzeroMagnitude }
        return x
    }

    @Test("Downmixer", arguments: [1, 2, 3, 6])
    func downmixer(channels: Int) throws {
        let input = Self.hostile(9_001 * channels + 1, seed: 3)  // ends inside a frame
        let failures = try checkStreamingUnit(
            { try Downmixer(channelCount: channels) }, input: input,
            expectedCount: (input.count + channels - 1) / channels, same: sameBits)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("StreamConditioner: exact round(N × 16000 / rate) outputs", arguments: [
        (48_000, 1), (44_100, 2), (16_000, 2), (16_000, 1), (22_050, 1), (8_000, 3),
    ])
    func conditioner(rate: Int, channels: Int) throws {
        let frames = rate / 3 + 17
        let input = Self.hostile(frames * channels, seed: 5)
        let failures = try checkStreamingUnit(
            { try StreamConditioner(configuration: .init(inputRate: rate, channelCount: channels)) }, input: input,
            expectedCount: (2 * frames * 16_000 + rate) / (2 * rate), singleSamples: channels == 1, same: sameBits)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("StreamConditioner: a NaN or ±Inf input sample is silence, not a poisoned window")
    func conditionerNonFinite() throws {
        let conditioner = try StreamConditioner(configuration: .init(inputRate: 48_000, channelCount: 2))
        var input = [Float](repeating: 0, count: 2 * 4800)
        input[1000] = .nan
        input[3001] = .infinity
        let out = conditioner.processAll(input)
        #expect(out.count == 1600)
        #expect(out.allSatisfy { $0 == 0 })
        // The same stream with the bad samples as zeros is the same output, bit for bit.
        var clean = input
        clean[1000] = 0
        clean[3001] = 0
        #expect(conditioner.processAll(clean).map(\.bitPattern) == out.map(\.bitPattern))
    }

    @Test("Resampler", arguments: [(48_000, 16_000), (44_100, 16_000), (16_000, 48_000)])
    func resampler(input rate: Int, output: Int) throws {
        let frames = rate / 4 + 5
        let failures = try checkStreamingUnit(
            { try Resampler(inputRate: rate, outputRate: output, trimsLeadingDelay: true) },
            input: testSignal(count: frames, seed: 9), expectedCount: (2 * frames * output + rate) / (2 * rate),
            same: sameBits)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("Reframer: whole frames, exactly enough to cover every sample", arguments: [
        (1024, 1024), (512, 128), (400, 160), (7, 3), (1, 1),
    ])
    func reframer(frame: Int, hop: Int) throws {
        for count in [0, 1, frame - 1, frame, 5 * hop + frame + 3, 9_001] {
            let input = testSignal(count: count, seed: 17)
            // Frames start every hop until one reaches the last sample (one frame for a short
            // stream, none for an empty one).
            let frames = count == 0 ? 0 : count <= frame ? 1 : (count - frame + hop - 1) / hop + 1
            let failures = try checkStreamingUnit(
                { try Reframer(configuration: .init(frameLength: frame, hopLength: hop)) }, input: input,
                expectedCount: frames * frame, same: sameBits)
            #expect(failures.isEmpty, "\(count) samples: \(failures)")
        }
    }

    @Test("Int16Converter, with and without dither")
    func int16() throws {
        for dither in [Int16Converter.Dither.none, .triangular(seed: 11)] {
            let input = Self.hostile(20_000, seed: 13).map { $0 * 1.3 }
            let failures = checkStreamingUnit({ Int16Converter(dither: dither) }, input: input, expectedCount: input.count, same: ==)
            #expect(failures.isEmpty, "\(dither): \(failures)")
        }
    }
}

@Suite("StreamConditioner: knownFinite")
struct ConditionerKnownFiniteTests {
    @Test("a caller's finite guarantee changes nothing on finite input")
    func knownFinite() throws {
        let x = testSignal(count: 48_000, seed: 41)
        func run(_ known: Bool) throws -> [Float] {
            let c = try StreamConditioner(configuration: .init(inputRate: 48_000))
            var out = [Float](repeating: 0, count: c.outputCapacity(forInputCount: 1000) + c.maxFlushOutputCount)
            var all: [Float] = []
            var offset = 0
            while offset < x.count {
                let n = Swift.min(1000, x.count - offset)
                let r = x.withUnsafeBufferPointer { input in
                    out.withUnsafeMutableBufferPointer { c.process(UnsafeBufferPointer(rebasing: input[offset..<offset + n]), into: $0, knownFinite: known) }
                }
                all += out[..<r.produced]
                offset += n
            }
            let tail = out.withUnsafeMutableBufferPointer { c.flush(into: $0) }
            return all + out[..<tail]
        }
        #expect(try run(true).map(\.bitPattern) == run(false).map(\.bitPattern))
    }
}
