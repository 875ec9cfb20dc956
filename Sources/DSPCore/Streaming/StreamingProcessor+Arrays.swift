// The allocating tier of every streaming unit: arrays and spans in, arrays out. Each call runs
// the unit's own `process(_:into:)` / `flush(into:)` on buffers it allocates, so its output is
// the hot tier's, bit for bit.

extension StreamingProcessor {
    /// Processes one chunk of a stream and returns the output it completes (no flush: call
    /// ``flush()`` at the end of the stream). Takes all of `input`.
    ///
    /// Allocates; not for real-time use (the hot tier is ``process(_:into:)``).
    public func process(_ input: [InputSample]) -> [OutputSample] {
        input.withUnsafeBufferPointer { collect(processing: $0) }
    }

    /// Processes one chunk of a stream held in a span; as ``process(_:)-([Self.InputSample])``.
    ///
    /// Allocates; not for real-time use.
    public func process(_ input: Span<InputSample>) -> [OutputSample] {
        input.withUnsafeBufferPointer { collect(processing: $0) }
    }

    /// Ends the stream and returns what the unit still held (``flush(into:)``); the unit is then
    /// ready for a new stream.
    ///
    /// Allocates; not for real-time use.
    public func flush() -> [OutputSample] {
        [OutputSample](unsafeUninitializedCapacity: maxFlushOutputCount) { buffer, count in
            count = flush(into: buffer)
        }
    }

    /// Processes a whole stream and flushes, returning every output: `process(input) + flush()`.
    ///
    /// Allocating convenience for offline work and tests — not for real-time use.
    public func processAll(_ input: [InputSample]) -> [OutputSample] {
        var result = process(input)
        result += flush()
        return result
    }

    /// Processes a whole stream held in a span and flushes; as
    /// ``processAll(_:)-([Self.InputSample])``.
    ///
    /// Allocates; not for real-time use.
    public func processAll(_ input: Span<InputSample>) -> [OutputSample] {
        var result = process(input)
        result += flush()
        return result
    }

    /// Runs `input` through ``process(_:into:)`` with output buffers of
    /// ``maxOutputCount(forInputCount:)`` until all of it is taken, returning the output.
    package func collect(processing input: UnsafeBufferPointer<InputSample>) -> [OutputSample] {
        var result: [OutputSample] = []
        var offset = 0
        while offset < input.count {
            let remaining = UnsafeBufferPointer(rebasing: input[offset...])
            var consumed = 0
            let chunk = [OutputSample](unsafeUninitializedCapacity: maxOutputCount(forInputCount: remaining.count)) {
                buffer, count in
                let counts = process(remaining, into: buffer)
                consumed = counts.consumed
                count = counts.produced
            }
            precondition(consumed > 0, "\(Self.self): no progress with an output buffer of maxOutputCount(forInputCount:)")
            offset += consumed
            if result.isEmpty { result = chunk } else { result += chunk }
        }
        return result
    }
}

/// What a ``StreamAnalyzer`` made of a whole stream: its per-step outputs and its summary.
public struct StreamAnalysis<Output, Summary> {
    /// Every output, flush included, in stream order.
    public var outputs: [Output]
    /// The stream's summary (``StreamAnalyzer/finalize()``).
    public var summary: Summary

    /// Creates an analysis from its parts.
    public init(outputs: [Output], summary: Summary) {
        self.outputs = outputs
        self.summary = summary
    }
}

extension StreamAnalysis: Sendable where Output: Sendable, Summary: Sendable {}
extension StreamAnalysis: Equatable where Output: Equatable, Summary: Equatable {}

extension StreamAnalyzer {
    /// Analyses a whole stream: processes `input`, flushes and finalizes, returning every output
    /// and the summary. The unit is then ready for a new stream; a stream already begun on it is
    /// continued, not restarted (call ``StreamingProcessor/reset()`` first to start afresh).
    ///
    /// Allocates; not for real-time use.
    public func analyze(_ input: [InputSample]) -> StreamAnalysis<OutputSample, Summary> {
        let outputs = processAll(input)
        return StreamAnalysis(outputs: outputs, summary: finalize())
    }

    /// Analyses a whole stream held in a span; as ``analyze(_:)-([Self.InputSample])``.
    ///
    /// Allocates; not for real-time use.
    public func analyze(_ input: Span<InputSample>) -> StreamAnalysis<OutputSample, Summary> {
        let outputs = processAll(input)
        return StreamAnalysis(outputs: outputs, summary: finalize())
    }
}
