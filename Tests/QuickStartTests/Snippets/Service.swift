// The README's and the Getting Started article's service recipe, compiled and run by
// QuickStartTests; SnippetDriftTests checks the documents hold this text verbatim.

// snippet: service
import DSPPipeline

/// One client's stream: 48 kHz stereo Float32 in, 16 kHz mono PCM Int16 out, events on the way.
final class RecognizerSession {
    let frontEnd: SpeechFrontEnd
    let output: UnsafeMutableBufferPointer<Int16>
    let events: FrontEndEventBuffer

    /// Sizes the buffers once, for pushes of up to `maxPush` samples and for the flush.
    init(maxPush: Int) throws {
        frontEnd = try SpeechFrontEnd(configuration: .init(inputRate: 48_000, channelCount: 2))
        let sizes = frontEnd.bufferSizes(forMaxInputCount: maxPush)
        output = .allocate(capacity: sizes.outputCapacity)
        events = FrontEndEventBuffer(capacity: sizes.eventCapacity)
    }

    deinit { output.deallocate() }

    /// Every chunk the client sends (interleaved, up to `maxPush` samples). No allocation, no lock.
    func receive(_ chunk: UnsafeBufferPointer<Float>, send: (UnsafeBufferPointer<Int16>) -> Void, handle: (FrontEndEvent) -> Void) {
        let result = frontEnd.process(chunk, into: output, events: events)
        send(UnsafeBufferPointer(rebasing: output[..<result.produced]))
        for event in events { handle(event) }  // speech start/end, environment, clipping, levels
    }

    /// The client hung up: the audio's tail, the last events and the stream's summary.
    func finish(send: (UnsafeBufferPointer<Int16>) -> Void, handle: (FrontEndEvent) -> Void) -> FrontEndSummary {
        let end = frontEnd.flush(into: output, events: events)
        send(UnsafeBufferPointer(rebasing: output[..<end.produced]))
        for event in events { handle(event) }
        return end.summary
    }
}
// snippet end
