/// The counts a ``StreamingProcessor/process(_:into:)`` call reports.
///
/// `consumed` is how many input samples were taken (all of them unless the output buffer was
/// too small); `produced` is how many output samples were written, from the start of the
/// output buffer. Counts are in samples of the respective buffer's element type.
@frozen
public struct ProcessResult: Equatable, Sendable {
    /// Input samples taken by the call.
    public var consumed: Int
    /// Output samples written by the call.
    public var produced: Int

    /// Creates a result from its two counts.
    @inlinable
    public init(consumed: Int, produced: Int) {
        self.consumed = consumed
        self.produced = produced
    }
}

/// The contract every SpeechDSP streaming unit follows.
///
/// A unit is configured once (its initializer validates and throws ``ConfigurationError``),
/// allocates everything it needs at construction, and then:
/// - ``process(_:into:)`` takes any number of input samples (zero included) and writes into a
///   caller-owned buffer, returning the counts. It never allocates, locks or logs.
/// - ``maxOutputCount(forInputCount:)`` tells how large the output buffer must be for a given
///   input count so that the whole input is consumed.
/// - ``outputDelay`` is the latency from input to output, in output samples.
/// - ``flush(into:)`` emits whatever the unit still holds at end of stream, so that no input
///   sample is lost; ``maxFlushOutputCount`` bounds it.
/// - ``reset()`` returns the unit to its freshly constructed state without allocating.
///
/// Output never depends on how the input was chunked.
public protocol StreamingProcessor: AnyObject {
    /// The element type of the input buffer.
    associatedtype InputSample
    /// The element type of the output buffer.
    associatedtype OutputSample

    /// Latency from input to output, in output samples.
    var outputDelay: Int { get }

    /// The output capacity that guarantees a call with `inputCount` samples consumes them all.
    func maxOutputCount(forInputCount inputCount: Int) -> Int

    /// Processes `input`, writing into `output` from its start. Consumes as much input as the
    /// output capacity allows; never allocates.
    func process(
        _ input: UnsafeBufferPointer<InputSample>,
        into output: UnsafeMutableBufferPointer<OutputSample>
    ) -> ProcessResult

    /// The largest number of samples ``flush(into:)`` can write.
    var maxFlushOutputCount: Int { get }

    /// Emits everything still held at end of stream and returns the count written. The unit is
    /// then ready for a new stream, as after ``reset()``.
    func flush(into output: UnsafeMutableBufferPointer<OutputSample>) -> Int

    /// Forgets all stream state; the next ``process(_:into:)`` starts a new stream.
    func reset()
}

/// A streaming unit that also summarises the stream it measured (a meter, an analyzer).
///
/// ``finalize()`` returns the ended stream's summary: the one ``StreamingProcessor/flush(into:)``
/// kept or — without a flush — the current stream's, ended first (its last outputs discarded).
/// The unit is then as after ``StreamingProcessor/reset()``.
public protocol StreamAnalyzer: StreamingProcessor {
    /// What ``finalize()`` returns.
    associatedtype Summary

    /// The ended stream's summary; leaves the unit ready for a new stream.
    func finalize() -> Summary
}
