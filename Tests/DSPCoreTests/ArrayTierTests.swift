import DSPCore
import Testing
import TestSupport

/// DSPCore's allocating tier — arrays and spans in, arrays out — against the hot tier on the
/// same input, bit for bit, with the empty and one-sample streams.
@Suite("DSPCore: the array tier equals the hot tier")
struct ArrayTierTests {
    static let input = StreamingUnitContractTests.hostile(3 * 9_001 + 2, seed: 21)

    @Test("Resampler", arguments: [(48_000, 16_000, 1, true), (44_100, 16_000, 2, false), (16_000, 48_000, 1, false)])
    func resampler(rates: (Int, Int, Int, Bool)) throws {
        let (from, to, channels, trims) = rates
        let failures = try checkArrayTier(
            { try Resampler(inputRate: from, outputRate: to, channelCount: channels, trimsLeadingDelay: trims) },
            input: Self.input, same: sameBits)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("Downmixer, StreamConditioner, Reframer, Int16Converter")
    func units() throws {
        var failures = try checkArrayTier({ try Downmixer(channelCount: 3) }, input: Self.input, same: sameBits)
        failures += try checkArrayTier(
            { try StreamConditioner(configuration: .init(inputRate: 48_000, channelCount: 2)) }, input: Self.input,
            same: sameBits)
        failures += try checkArrayTier(
            { try Reframer(configuration: .init(frameLength: 1024, hopLength: 512)) }, input: Self.input, same: sameBits)
        failures += checkArrayTier(
            { Int16Converter(dither: .triangular(seed: 5)) }, input: Self.input, same: { $0 == $1 })
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("Resampler.resample: the trimmed resampler on the whole array, round(N × out / in) frames")
    func resample() throws {
        let x = Array(Self.input[..<(2 * 4_801)])
        let y = try Resampler.resample(x, from: 48_000, to: 16_000, channelCount: 2)
        let hot = try Resampler(inputRate: 48_000, outputRate: 16_000, channelCount: 2, trimsLeadingDelay: true)
        #expect(y.map(\.bitPattern) == runStream(hot, x, chunking: .whole).map(\.bitPattern))
        #expect(y.count == 2 * 1_600)  // round(4801 / 3) = 1600 frames
        #expect(try Resampler.resample([], from: 44_100, to: 16_000).isEmpty)
        #expect(throws: ConfigurationError.self) { try Resampler.resample(x, from: 48_000, to: 16_000, channelCount: 0) }
    }

    @Test("Int16Conversion on arrays and spans equals the buffer kernels")
    func int16Conversion() {
        var x = Self.input
        x += [1, -1, 1.5, -1.5, -0.0, .nan, .infinity, -.infinity, 0.5 / 32768, 1.5 / 32768]
        let hot = [Int16](unsafeUninitializedCapacity: x.count) { buffer, count in
            _ = x.withUnsafeBufferPointer { Int16Conversion.convert($0, into: buffer) }
            count = x.count
        }
        #expect(Int16Conversion.int16(x) == hot)
        #expect(Int16Conversion.int16(x.span) == hot)
        let back = [Float](unsafeUninitializedCapacity: hot.count) { buffer, count in
            hot.withUnsafeBufferPointer { Int16Conversion.convert($0, into: buffer) }
            count = hot.count
        }
        #expect(Int16Conversion.float(hot).map(\.bitPattern) == back.map(\.bitPattern))
        #expect(Int16Conversion.float(hot.span).map(\.bitPattern) == back.map(\.bitPattern))
        let bytes = [UInt8](unsafeUninitializedCapacity: 2 * x.count) { buffer, count in
            _ = x.withUnsafeBufferPointer { Int16Conversion.convert($0, intoLittleEndianBytes: UnsafeMutableRawBufferPointer(buffer)) }
            count = 2 * x.count
        }
        #expect(Int16Conversion.littleEndianBytes(x) == bytes)
        #expect(Int16Conversion.littleEndianBytes(x.span) == bytes)
        #expect(bytes[0] == UInt8(truncatingIfNeeded: UInt16(bitPattern: hot[0])))
        // Edge cases: empty arrays.
        #expect(Int16Conversion.int16([Float]()).isEmpty)
        #expect(Int16Conversion.float([Int16]()).isEmpty)
        #expect(Int16Conversion.littleEndianBytes([Float]()).isEmpty)
    }

    @Test("outputs(for:): one array per chunk, then the flush; the same samples as the hot tier")
    func asyncOutputs() async throws {
        let x = Array(Self.input[..<20_000])
        let reference = runStream(try Resampler(inputRate: 48_000, outputRate: 16_000), x, chunking: .whole)
        let sizes = Chunking.random.sizes(total: x.count, seed: 4)
        let chunks = AsyncStream<[Float]> { continuation in
            var offset = 0
            for size in sizes {
                continuation.yield(Array(x[offset..<(offset + size)]))
                offset += size
            }
            continuation.finish()
        }
        let resampler = try Resampler(inputRate: 48_000, outputRate: 16_000)
        var elements: [[Float]] = []
        for try await output in resampler.outputs(for: chunks) { elements.append(output) }
        #expect(elements.count == sizes.count + 1)  // one per chunk, then the flush
        #expect(!elements[sizes.count].isEmpty && elements[sizes.count].count <= resampler.maxFlushOutputCount)
        #expect(elements.joined().map(\.bitPattern) == reference.map(\.bitPattern))
        // The flush reset the unit: a second stream gives the same output again.
        var again: [Float] = []
        for try await output in resampler.outputs(for: [x].async) { again += output }
        #expect(again.map(\.bitPattern) == reference.map(\.bitPattern))
    }

    @Test("outputs(for:): an error from the chunks is rethrown and the unit reset")
    func asyncOutputsError() async throws {
        struct Broken: Error {}
        let resampler = try Resampler(inputRate: 48_000, outputRate: 16_000)
        let chunks = AsyncThrowingStream<[Float], any Error> { continuation in
            continuation.yield(Array(Self.input[..<1_000]))
            continuation.finish(throwing: Broken())
        }
        var received = 0
        await #expect(throws: Broken.self) {
            for try await _ in resampler.outputs(for: chunks) { received += 1 }
        }
        #expect(received == 1)
        // Reset, not left mid-stream: the next stream is a fresh one.
        let x = Array(Self.input[..<5_000])
        #expect(resampler.processAll(x).map(\.bitPattern)
            == runStream(try Resampler(inputRate: 48_000, outputRate: 16_000), x, chunking: .whole).map(\.bitPattern))
    }

    @Test("outputs(for:): a cancelled task ends the sequence without a flush")
    func asyncOutputsCancelled() async throws {
        let (chunks, continuation) = AsyncStream<[Float]>.makeStream()
        continuation.yield(Array(Self.input[..<3_000]))
        let x = Array(Self.input[..<5_000])
        let (progress, received) = AsyncStream<Int>.makeStream()
        let task = Task {
            let resampler = try Resampler(inputRate: 48_000, outputRate: 16_000)
            var count = 0
            for try await _ in resampler.outputs(for: chunks) {
                count += 1
                received.yield(count)
            }
            // The unit was reset: a new stream starts from scratch.
            return (count, resampler.processAll(x))
        }
        for await _ in progress { break }  // the first chunk's output arrived; the stream waits for more
        task.cancel()
        let (count, after) = try await task.value
        #expect(count == 1)  // the chunk's output only: no flush element after the cancellation
        #expect(after.map(\.bitPattern)
            == runStream(try Resampler(inputRate: 48_000, outputRate: 16_000), x, chunking: .whole).map(\.bitPattern))
        continuation.finish()
    }
}

extension Array where Element: Sendable {
    /// The array as a one-element-at-a-time asynchronous sequence (for tests).
    var async: AsyncStream<Element> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}
