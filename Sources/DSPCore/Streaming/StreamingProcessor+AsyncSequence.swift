// A streaming unit over an asynchronous sequence of chunks: one output array per chunk, then
// the flush. The allocating tier (`process(_:)` and `flush()` on arrays), so not for real-time
// use.

extension StreamingProcessor {
    /// The unit's output for each chunk of `chunks`, then its flush: an asynchronous sequence
    /// for a stream that arrives in pieces (a socket, a file read in blocks, a microphone tap).
    ///
    /// Each chunk gives one element, ``StreamingProcessor/process(_:)-([Self.InputSample])``'s
    /// output (empty when the chunk completed nothing); when `chunks` ends, one last element holds
    /// ``StreamingProcessor/flush()``'s output and the unit is ready for a new stream. Output is
    /// the same as the hot tier's on the same samples however they were chunked.
    ///
    /// - When `chunks` throws, the error is rethrown and the unit is reset (the partial stream
    ///   is dropped).
    /// - When the iterating task is cancelled, the sequence ends at its next element without a
    ///   flush, and the unit is reset.
    /// - Iterate once: the iterator drives the unit, so two iterations at once would interleave
    ///   two streams on one unit.
    ///
    /// Allocates per chunk; not for real-time use.
    public func outputs<Chunks: AsyncSequence>(for chunks: Chunks) -> ProcessorOutputs<Self, Chunks>
    where Chunks.Element == [InputSample] {
        ProcessorOutputs(unit: self, chunks: chunks)
    }
}

/// A ``StreamingProcessor``'s outputs over an asynchronous sequence of input chunks
/// (``StreamingProcessor/outputs(for:)``): one array per chunk, then the flush.
public struct ProcessorOutputs<Unit: StreamingProcessor, Chunks: AsyncSequence>: AsyncSequence
where Chunks.Element == [Unit.InputSample] {
    /// One chunk's output (or the flush's, last).
    public typealias Element = [Unit.OutputSample]
    /// The chunks' error type.
    public typealias Failure = Chunks.Failure

    let unit: Unit
    let chunks: Chunks

    /// Starts iterating: each element processes the next chunk.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(unit: unit, chunks: chunks.makeAsyncIterator())
    }

    /// Pulls a chunk, processes it, returns its output; flushes once the chunks end.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let unit: Unit
        var chunks: Chunks.AsyncIterator
        var finished = false

        /// The next chunk's output, the flush after the last chunk, then nil.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(Chunks.Failure) -> Element? {
            if finished { return nil }
            let chunk: [Unit.InputSample]?
            do {
                chunk = try await chunks.next(isolation: actor)
            } catch {
                finished = true
                unit.reset()
                throw error
            }
            if Task.isCancelled {
                finished = true
                unit.reset()
                return nil
            }
            guard let chunk else {
                finished = true
                return unit.flush()
            }
            return unit.process(chunk)
        }

        /// The next element; see ``next(isolation:)``.
        public mutating func next() async throws(Chunks.Failure) -> Element? {
            try await next(isolation: nil)
        }
    }
}

extension ProcessorOutputs: Sendable where Unit: Sendable, Chunks: Sendable {}
