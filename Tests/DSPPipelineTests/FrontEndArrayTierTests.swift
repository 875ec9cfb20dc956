import DSPCore
import DSPDetection
import Foundation
import Testing
import TestSupport
@testable import DSPPipeline

/// The front end's allocating tier (arrays, spans, `FrontEndOutput`, the AsyncSequence adaptor)
/// and its buffer sizing, against the hot tier on the same input.
@Suite("SpeechFrontEnd: the array tier, the async sequence and buffer sizing")
struct FrontEndArrayTierTests {
    /// Speech in stereo at 44.1 kHz (segments, environment, levels) with a burst driven past full
    /// scale and a NaN (clipping), cut to six seconds.
    static let signal: TestSignal = {
        var signal = try! TestSignal(file: "speech_2ch_en-us_de_44k1.flac")
        signal.samples = Array(signal.samples.prefix(2 * 6 * 44_100))
        for i in (2 * 44_100)..<(2 * 44_100 + 400) { signal.samples[i] *= 8 }
        signal.samples[3 * 44_100 + 1] = .nan
        return signal
    }()

    static func makeFrontEnd() throws -> SpeechFrontEnd {
        try SpeechFrontEnd(configuration: .init(inputRate: signal.sampleRate, channelCount: signal.channelCount))
    }

    /// The hot tier: one push, then the flush.
    static let reference: FrontEndRun = run(try! makeFrontEnd(), signal.samples, push: signal.samples.count)

    /// An allocating-tier output as a run, to compare with the hot tier's.
    static func asRun(_ output: FrontEndOutput) -> FrontEndRun {
        FrontEndRun(output: output.pcm, events: output.events, dropped: 0, summary: output.summary ?? FrontEndSummary())
    }

    @Test("processAll on an array and a span equals the hot tier; the reference has every kind of event")
    func processAll() throws {
        let reference = Self.reference
        #expect(reference.eventsByKind.allSatisfy { !$0.isEmpty }, "segments, environment, clipping and levels")
        #expect(reference.events.contains { if case .started(.speech, _) = $0 { true } else { false } })
        let frontEnd = try Self.makeFrontEnd()
        let all = frontEnd.processAll(Self.signal.samples)
        #expect(all.summary != nil)
        #expect(Self.asRun(all).difference(from: reference) == nil)
        // The same object again: the flush reset it.
        #expect(Self.asRun(frontEnd.processAll(Self.signal.samples)).difference(from: reference) == nil)
        let samples = Self.signal.samples
        let viaSpan = try Self.makeFrontEnd().processAll(samples.span)
        #expect(Self.asRun(viaSpan).difference(from: reference) == nil)
    }

    @Test("process in random chunks (arrays and spans) + flush() equals the hot tier")
    func chunks() throws {
        let samples = Self.signal.samples
        for useSpans in [false, true] {
            let frontEnd = try Self.makeFrontEnd()
            var total = FrontEndOutput()
            var offset = 0
            for size in Chunking.random.sizes(total: samples.count, seed: useSpans ? 8 : 7) {
                let output = useSpans
                    ? frontEnd.process(samples[offset..<(offset + size)].span) : frontEnd.process(Array(samples[offset..<(offset + size)]))
                #expect(output.summary == nil)
                total.append(output)
                offset += size
            }
            let end = frontEnd.flush()
            #expect(end.summary != nil)
            total.append(end)
            #expect(Self.asRun(total).difference(from: Self.reference) == nil, "spans: \(useSpans)")
        }
    }

    @Test("edge cases: an empty stream, one sample, half an interleaved frame")
    func edges() throws {
        for samples: [Float] in [[], [0.5], [0.5, -0.5, 0.25]] {
            let hot = run(try Self.makeFrontEnd(), samples, push: Swift.max(1, samples.count))
            let output = try Self.makeFrontEnd().processAll(samples)
            #expect(Self.asRun(output).difference(from: hot) == nil, "\(samples.count) samples")
            #expect(output.summary?.inputFrameCount == Int64((samples.count + 1) / 2))
        }
        #expect(try Self.makeFrontEnd().process([Float]()) == FrontEndOutput())
        #expect(try Self.makeFrontEnd().flush().pcm.isEmpty)
    }

    @Test("pcmLittleEndianBytes: two bytes per sample, low byte first")
    func bytes() {
        let output = FrontEndOutput(pcm: [0, 1, -1, 0x1234, .min, .max])
        #expect(output.pcmLittleEndianBytes == [0, 0, 1, 0, 0xFF, 0xFF, 0x34, 0x12, 0x00, 0x80, 0xFF, 0x7F])
        #expect(FrontEndOutput().pcmLittleEndianBytes.isEmpty)
    }

    @Test("bufferSizes(forMaxInputCount:): every push up to the size is taken whole, the flush fits, nothing is dropped",
          arguments: [1, 2, 97, 1024, 4096, 44_100])
    func bufferSizes(maxInput: Int) throws {
        let frontEnd = try Self.makeFrontEnd()
        let sizes = frontEnd.bufferSizes(forMaxInputCount: maxInput)
        #expect(sizes.eventCapacity >= frontEnd.maxFlushEventCount && sizes.outputCapacity >= frontEnd.maxFlushOutputCount)
        let output = UnsafeMutableBufferPointer<Int16>.allocate(capacity: sizes.outputCapacity)
        defer { output.deallocate() }
        let events = FrontEndEventBuffer(capacity: sizes.eventCapacity)
        var pushes = PushSizes(state: UInt64(maxInput), range: 1...maxInput)
        var result = FrontEndRun()
        // Single-sample pushes over six seconds are slow in a debug build: two seconds then.
        let samples = maxInput < 100 ? Array(Self.signal.samples.prefix(2 * 2 * 44_100)) : Self.signal.samples
        samples.withUnsafeBufferPointer { input in
            var offset = 0
            while offset < input.count {
                let n = Swift.min(pushes.next(), input.count - offset)
                let counts = frontEnd.process(UnsafeBufferPointer(rebasing: input[offset..<(offset + n)]), into: output, events: events)
                #expect(counts.consumed == n && counts.droppedEvents == 0)
                result.output += output[..<counts.produced]
                result.events += events
                offset += n
            }
        }
        let end = frontEnd.flush(into: output, events: events)
        #expect(end.droppedEvents == 0)
        result.output += output[..<end.produced]
        result.events += events
        result.summary = end.summary
        let hot = run(try Self.makeFrontEnd(), samples, push: samples.count)
        #expect(result.difference(from: hot) == nil)
    }

    @Test("bufferSizes covers the flush when pushes are tiny: a buffer sized for pushes alone drops events at the end")
    func flushNeedsMore() throws {
        let frontEnd = try Self.makeFrontEnd()
        // The DocC snippet once sized the event buffer for pushes only; the flush needs more.
        #expect(frontEnd.maxFlushEventCount > frontEnd.maxEventCount(forInputCount: 2))
        #expect(frontEnd.bufferSizes(forMaxInputCount: 2).eventCapacity == frontEnd.maxFlushEventCount)
        // Only the clipping stage: no output, small bounds, still a flush's worth of events.
        let clipping = try SpeechFrontEnd(configuration: .init(inputRate: 48_000, stages: [.clipping]))
        let sizes = clipping.bufferSizes(forMaxInputCount: 4096)
        #expect(sizes.outputCapacity == 0 && sizes.eventCapacity >= clipping.maxFlushEventCount)
    }

    @Test("outputs(for:): chunks through the async sequence give the hot tier's PCM and events, then the summary")
    func asyncSequence() async throws {
        let samples = Self.signal.samples
        let sizes = Chunking.random.sizes(total: samples.count, seed: 5)
        let chunks = AsyncStream<[Float]> { continuation in
            var offset = 0
            for size in sizes {
                continuation.yield(Array(samples[offset..<(offset + size)]))
                offset += size
            }
            continuation.finish()
        }
        let frontEnd = try Self.makeFrontEnd()
        var outputs: [FrontEndOutput] = []
        for try await output in frontEnd.outputs(for: chunks) { outputs.append(output) }
        #expect(outputs.count == sizes.count + 1)
        #expect(outputs.dropLast().allSatisfy { $0.summary == nil })
        #expect(outputs.last?.summary != nil)
        var total = FrontEndOutput()
        for output in outputs { total.append(output) }
        #expect(Self.asRun(total).difference(from: Self.reference) == nil)
    }

    @Test("outputs(for:): an error is rethrown and the stream dropped; a cancelled task ends without a flush")
    func asyncErrorsAndCancellation() async throws {
        struct Hangup: Error {}
        let samples = Array(Self.signal.samples.prefix(2 * 44_100))
        let hot = run(try Self.makeFrontEnd(), samples, push: samples.count)

        let frontEnd = try Self.makeFrontEnd()
        let failing = AsyncThrowingStream<[Float], any Error> { continuation in
            continuation.yield(Array(samples[..<10_000]))
            continuation.finish(throwing: Hangup())
        }
        var received = 0
        await #expect(throws: Hangup.self) {
            for try await _ in frontEnd.outputs(for: failing) { received += 1 }
        }
        #expect(received == 1)
        #expect(Self.asRun(frontEnd.processAll(samples)).difference(from: hot) == nil, "reset after the error")

        let (chunks, continuation) = AsyncStream<[Float]>.makeStream()
        continuation.yield(Array(samples[..<10_000]))
        let (progress, received2) = AsyncStream<Int>.makeStream()
        let task = Task {
            var outputs: [FrontEndOutput] = []
            for try await output in frontEnd.outputs(for: chunks) {
                outputs.append(output)
                received2.yield(outputs.count)
            }
            return outputs
        }
        for await _ in progress { break }
        task.cancel()
        let outputs = try await task.value
        #expect(outputs.count == 1 && outputs[0].summary == nil, "no flush after a cancellation")
        #expect(Self.asRun(frontEnd.processAll(samples)).difference(from: hot) == nil, "reset after the cancellation")
        continuation.finish()
    }
}
