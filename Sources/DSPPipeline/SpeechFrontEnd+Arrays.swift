// The front end's allocating tier: arrays and spans in, `FrontEndOutput` values out. Each call
// runs the hot tier (`process(_:into:events:)`, `flush(into:events:)`) on buffers sized by the
// front end's own bounds, so PCM and events are the hot tier's, bit for bit.

import DSPCore

/// What a ``SpeechFrontEnd`` made of one chunk of input, or of the end of the stream: the
/// allocating tier's counterpart of a caller's output buffer and ``FrontEndEventBuffer``.
public struct FrontEndOutput: Equatable, Sendable {
    /// 16 kHz mono PCM for the recognizer (empty when the output stage is off).
    public var pcm: [Int16]
    /// The events, in the order the front end wrote them (within one kind, stream order).
    public var events: [FrontEndEvent]
    /// The finished stream's summary: set on the output of ``SpeechFrontEnd/flush()`` (the last
    /// output of a stream), nil on every other.
    public var summary: FrontEndSummary?

    /// Creates an output.
    public init(pcm: [Int16] = [], events: [FrontEndEvent] = [], summary: FrontEndSummary? = nil) {
        self.pcm = pcm
        self.events = events
        self.summary = summary
    }

    /// `pcm` as PCM S16LE bytes (2 per sample), the wire format recognizers take.
    ///
    /// Allocates; not for real-time use.
    public var pcmLittleEndianBytes: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 2 * pcm.count)
        for (i, sample) in pcm.enumerated() {
            let value = UInt16(bitPattern: sample)
            bytes[2 * i] = UInt8(truncatingIfNeeded: value)
            bytes[2 * i + 1] = UInt8(truncatingIfNeeded: value >> 8)
        }
        return bytes
    }
}

extension SpeechFrontEnd {
    /// Processes one chunk of the stream (interleaved Float32, any count) and returns the PCM and
    /// events it completes. Takes all of `input`; no event is dropped.
    ///
    /// Allocates (the arrays and an event buffer per call); not for real-time use — the hot tier
    /// is ``process(_:into:events:)``.
    public func process(_ input: [Float]) -> FrontEndOutput {
        input.withUnsafeBufferPointer { collect(processing: $0) }
    }

    /// Processes one chunk of the stream held in a span; as ``process(_:)-([Float])``.
    ///
    /// Allocates; not for real-time use.
    public func process(_ input: Span<Float>) -> FrontEndOutput {
        input.withUnsafeBufferPointer { collect(processing: $0) }
    }

    /// Ends the stream (``flush(into:events:)``): the tail of the PCM, the last events and the
    /// stream's ``FrontEndOutput/summary``. The front end is then ready for a new stream.
    ///
    /// Allocates; not for real-time use.
    public func flush() -> FrontEndOutput {
        let events = FrontEndEventBuffer(capacity: maxFlushEventCount)
        var summary = FrontEndSummary()
        let pcm = [Int16](unsafeUninitializedCapacity: maxFlushOutputCount) { buffer, count in
            let result = flush(into: buffer, events: events)
            assert(result.droppedEvents == 0, "maxFlushEventCount is a bound")
            summary = result.summary
            count = result.produced
        }
        return FrontEndOutput(pcm: pcm, events: Array(events), summary: summary)
    }

    /// Processes a whole stream and flushes: the PCM and events of `process(input)` followed by
    /// those of `flush()`, with the stream's summary.
    ///
    /// Allocates; not for real-time use.
    public func processAll(_ input: [Float]) -> FrontEndOutput {
        var output = process(input)
        output.append(flush())
        return output
    }

    /// Processes a whole stream held in a span and flushes; as ``processAll(_:)-([Float])``.
    ///
    /// Allocates; not for real-time use.
    public func processAll(_ input: Span<Float>) -> FrontEndOutput {
        var output = process(input)
        output.append(flush())
        return output
    }

    /// Runs `input` through the hot tier with buffers of ``outputCapacity(forInputCount:)`` and
    /// ``maxEventCount(forInputCount:)``, pushing until all of it is taken.
    private func collect(processing input: UnsafeBufferPointer<Float>) -> FrontEndOutput {
        var output = FrontEndOutput()
        let events = FrontEndEventBuffer(capacity: maxEventCount(forInputCount: input.count))
        var offset = 0
        while offset < input.count {
            let chunk = UnsafeBufferPointer(rebasing: input[offset...])
            var consumed = 0
            let pcm = [Int16](unsafeUninitializedCapacity: outputCapacity(forInputCount: chunk.count)) { buffer, count in
                let result = process(chunk, into: buffer, events: events)
                assert(result.droppedEvents == 0, "maxEventCount(forInputCount:) is a bound")
                consumed = result.consumed
                count = result.produced
            }
            precondition(consumed > 0, "SpeechFrontEnd: no progress with an output buffer of outputCapacity(forInputCount:)")
            output.append(FrontEndOutput(pcm: pcm, events: Array(events)))
            offset += consumed
        }
        return output
    }
}

extension FrontEndOutput {
    /// Appends `other`'s PCM and events and takes its summary when it has one.
    mutating func append(_ other: FrontEndOutput) {
        if pcm.isEmpty { pcm = other.pcm } else { pcm += other.pcm }
        if events.isEmpty { events = other.events } else { events += other.events }
        if let summary = other.summary { self.summary = summary }
    }
}
