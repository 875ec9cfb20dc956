// docs/front-end.md's "Calls" block, compiled and run by QuickStartTests: one chunk, then the
// hang-up.

import DSPPipeline

/// What the block calls a recognizer: anything that takes the 16 kHz samples.
struct SnippetRecognizer {
    var send: (Slice<UnsafeMutableBufferPointer<Int16>>) -> Void
}

func frontEndCalls(
    _ chunk: UnsafeBufferPointer<Float>, recognizer: SnippetRecognizer, handle: (FrontEndEvent) -> Void
) throws -> FrontEndFlushResult {
    // snippet: front-end-calls
    let frontEnd = try SpeechFrontEnd(configuration: .init(inputRate: 48_000, channelCount: 2))
    // Buffers sized once, for the largest push the service accepts (here 2048 frames) and the flush:
    let sizes = frontEnd.bufferSizes(forMaxInputCount: 4096)
    let output = UnsafeMutableBufferPointer<Int16>.allocate(capacity: sizes.outputCapacity)
    let events = FrontEndEventBuffer(capacity: sizes.eventCapacity)

    // For every chunk the client sends:
    let result = frontEnd.process(chunk, into: output, events: events)
    recognizer.send(output[..<result.produced])
    for event in events { handle(event) }

    // When the client hangs up:
    let end = frontEnd.flush(into: output, events: events)   // the tail, the last events, a summary
    // snippet end
    recognizer.send(output[..<end.produced])
    output.deallocate()
    return end
}
