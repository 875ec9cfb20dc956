import DSPCore
import DSPDetection
import Testing
@testable import DSPPipeline

/// `SpeechFrontEnd.Configuration.detectionHopsPerBatch` (1…4): the same Int16 output, events and
/// summary, bit for bit, whatever the batch size and the chunking; the size queries still size
/// every buffer.
@Suite("SpeechFrontEnd: detection hops per batch 1…4")
struct FrontEndBatchSizeTests {
    static func frontEnd(_ signal: TestSignal, batch: Int) throws -> SpeechFrontEnd {
        try SpeechFrontEnd(configuration: .init(
            inputRate: signal.sampleRate, channelCount: signal.channelCount, detectionHopsPerBatch: batch))
    }

    /// Speech at 48 kHz mono, cut to eight seconds.
    static let mono48k: TestSignal = {
        var signal = try! TestSignal(file: "speech_en-us_48k.flac")
        signal.samples = Array(signal.samples.prefix(8 * 48_000))
        return signal
    }()

    @Test("output, events and summary are identical for every batch size, in 1024-frame, random and tight-buffer pushes",
          arguments: [0, 1])
    func identical(signalIndex: Int) throws {
        let signal = signalIndex == 0 ? FrontEndArrayTierTests.signal : Self.mono48k
        let reference = run(try Self.frontEnd(signal, batch: 4), signal.samples, push: signal.samples.count)
        #expect(reference.eventsByKind[0].count >= 2 && reference.eventsByKind[1].count >= 4, "segments and measurements")
        for batch in 1...4 {
            let frontEnd = try Self.frontEnd(signal, batch: batch)
            let blocks = run(frontEnd, signal.samples, push: 1024 * signal.channelCount)
            #expect(blocks.difference(from: reference) == nil, "batch \(batch), 1024-frame pushes: \(blocks.difference(from: reference) ?? "")")
            var sizes = PushSizes(state: UInt64(batch), range: 1...4096)
            let random = run(frontEnd, signal.samples) { sizes.next() }
            #expect(random.difference(from: reference) == nil, "batch \(batch), random pushes: \(random.difference(from: reference) ?? "")")
            var sizes2 = PushSizes(state: 99, range: 1...4096)
            let tight = run(frontEnd, signal.samples, outputRoom: 100) { sizes2.next() }
            #expect(tight.difference(from: reference) == nil, "batch \(batch), a 100-sample output buffer")
        }
    }

    @Test("bufferSizes(forMaxInputCount:) takes every push whole and drops nothing, for every batch size",
          arguments: [1, 2, 3, 4])
    func bufferSizes(batch: Int) throws {
        let signal = FrontEndArrayTierTests.signal
        let reference = run(try Self.frontEnd(signal, batch: 4), signal.samples, push: signal.samples.count)
        for maxInput in [97, 2048] {
            let frontEnd = try Self.frontEnd(signal, batch: batch)
            let sizes = frontEnd.bufferSizes(forMaxInputCount: maxInput)
            let output = UnsafeMutableBufferPointer<Int16>.allocate(capacity: sizes.outputCapacity)
            defer { output.deallocate() }
            let events = FrontEndEventBuffer(capacity: sizes.eventCapacity)
            var pushes = PushSizes(state: UInt64(maxInput + batch), range: 1...maxInput)
            var result = FrontEndRun()
            signal.samples.withUnsafeBufferPointer { input in
                var offset = 0
                while offset < input.count {
                    let n = Swift.min(pushes.next(), input.count - offset)
                    let chunk = UnsafeBufferPointer(rebasing: input[offset..<(offset + n)])
                    #expect(frontEnd.maxOutputCount(forInputCount: n) <= sizes.outputCapacity)
                    let counts = frontEnd.process(chunk, into: output, events: events)
                    #expect(counts.consumed == n && counts.droppedEvents == 0)
                    #expect(events.count <= frontEnd.maxEventCount(forInputCount: n))
                    result.output += output[..<counts.produced]
                    result.events += events
                    offset += n
                }
            }
            let end = frontEnd.flush(into: output, events: events)
            #expect(end.droppedEvents == 0 && events.count <= frontEnd.maxFlushEventCount)
            result.output += output[..<end.produced]
            result.events += events
            result.summary = end.summary
            #expect(result.difference(from: reference) == nil, "pushes up to \(maxInput)")
        }
    }

    @Test("the setting is validated (1…4); a stream owns and shares the same memory whatever it is")
    func configuration() throws {
        for bad in [0, 5] {
            #expect(throws: ConfigurationError(parameter: "detectionHopsPerBatch", value: "\(bad)", expected: "1...4")) {
                try SpeechFrontEnd(configuration: .init(inputRate: 48_000, detectionHopsPerBatch: bad))
            }
        }
        #expect(SpeechFrontEnd.Configuration(inputRate: 48_000).detectionHopsPerBatch == 4)
        let four = try SpeechFrontEnd.memoryFootprint(for: .init(inputRate: 48_000))
        for batch in 1...3 {
            // The same owned and shared bytes; the thread's event buffer holds fewer held hops' events.
            let memory = try SpeechFrontEnd.memoryFootprint(for: .init(inputRate: 48_000, detectionHopsPerBatch: batch)).total
            #expect(memory.ownedBytes == four.total.ownedBytes && memory.sharedBytes == four.total.sharedBytes)
            #expect(memory.workspaceBytes <= four.total.workspaceBytes)
        }
    }
}
