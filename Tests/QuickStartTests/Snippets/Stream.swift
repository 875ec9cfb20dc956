// The Getting Started article's async recipe, compiled and run by QuickStartTests.

import DSPPipeline

// snippet: stream
/// A stream that arrives as an `AsyncSequence` of interleaved chunks (a WebSocket, gRPC):
/// one `FrontEndOutput` per chunk, then the end of the stream with its summary.
func serve(
    _ chunks: some AsyncSequence<[Float], any Error>, send: ([Int16]) async -> Void
) async throws -> FrontEndSummary? {
    let frontEnd = try SpeechFrontEnd(configuration: .init(inputRate: 48_000, channelCount: 2))
    var summary: FrontEndSummary?
    for try await output in frontEnd.outputs(for: chunks) {
        await send(output.pcm)
        for case .started(.speech, let t) in output.events { print("speech from \(t.seconds) s") }
        summary = output.summary  // set on the last output only
    }
    return summary  // nil when the task was cancelled: no flush then
}
// snippet end
