// The front end over an asynchronous sequence of audio chunks: what a service that receives a
// stream (a WebSocket, gRPC, a microphone tap) iterates. The allocating tier.

extension SpeechFrontEnd {
    /// The front end's output for each chunk of `chunks` (interleaved Float32 at the configured
    /// rate and channel count), then the end of the stream: an asynchronous sequence of
    /// ``FrontEndOutput``s.
    ///
    /// ```swift
    /// for try await output in frontEnd.outputs(for: chunks) {
    ///     recognizer.send(output.pcm)
    ///     for event in output.events { handle(event) }
    ///     if let summary = output.summary { log(summary) }  // the last element
    /// }
    /// ```
    ///
    /// - Each chunk gives one element (``process(_:)-([Float])``: its PCM and events, both
    ///   possibly empty). When `chunks` ends, one last element holds ``flush()``'s tail, last
    ///   events and the stream's ``FrontEndOutput/summary``, and the front end is ready for a
    ///   new stream. PCM and events are those of the hot tier on the same samples, however they
    ///   were chunked.
    /// - When `chunks` throws, the error is rethrown and the front end is reset (the partial
    ///   stream is dropped, no summary).
    /// - When the iterating task is cancelled (a client hung up), the sequence ends at its next
    ///   element without a flush and the front end is reset: no tail, no summary.
    /// - Leaving the loop early (`break`) leaves the stream open: call ``flush()`` for its end
    ///   or ``reset()`` to drop it.
    /// - Iterate once: the iterator drives the front end, and two iterations at once would be
    ///   overlapping calls, which stop the program.
    ///
    /// Allocates per chunk; not for real-time use (the hot tier is
    /// ``process(_:into:events:)`` on buffers sized by ``bufferSizes(forMaxInputCount:)``).
    public func outputs<Chunks: AsyncSequence>(for chunks: Chunks) -> FrontEndOutputs<Chunks>
    where Chunks.Element == [Float] {
        FrontEndOutputs(frontEnd: self, chunks: chunks)
    }
}

/// A ``SpeechFrontEnd``'s outputs over an asynchronous sequence of input chunks
/// (``SpeechFrontEnd/outputs(for:)``): one ``FrontEndOutput`` per chunk, then the end of the
/// stream with its summary.
public struct FrontEndOutputs<Chunks: AsyncSequence>: AsyncSequence where Chunks.Element == [Float] {
    /// One chunk's PCM and events (the last element: the flush's, with the summary).
    public typealias Element = FrontEndOutput
    /// The chunks' error type.
    public typealias Failure = Chunks.Failure

    let frontEnd: SpeechFrontEnd
    let chunks: Chunks

    /// Starts iterating: each element processes the next chunk.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(frontEnd: frontEnd, chunks: chunks.makeAsyncIterator())
    }

    /// Pulls a chunk, processes it, returns its output; flushes once the chunks end.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let frontEnd: SpeechFrontEnd
        var chunks: Chunks.AsyncIterator
        var finished = false

        /// The next chunk's output, the end of the stream after the last chunk, then nil.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(Chunks.Failure) -> FrontEndOutput? {
            if finished { return nil }
            let chunk: [Float]?
            do {
                chunk = try await chunks.next(isolation: actor)
            } catch {
                finished = true
                frontEnd.reset()
                throw error
            }
            if Task.isCancelled {
                finished = true
                frontEnd.reset()
                return nil
            }
            guard let chunk else {
                finished = true
                return frontEnd.flush()
            }
            return frontEnd.process(chunk)
        }

        /// The next element; see ``next(isolation:)``.
        public mutating func next() async throws(Chunks.Failure) -> FrontEndOutput? {
            try await next(isolation: nil)
        }
    }
}

extension FrontEndOutputs: Sendable where Chunks: Sendable {}
