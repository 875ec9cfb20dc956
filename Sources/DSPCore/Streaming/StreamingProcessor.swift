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

extension StreamingProcessor {
    /// Processes a whole array and flushes, returning every output sample.
    ///
    /// Allocating convenience for offline work and tests — not for real-time use.
    public func processAll(_ input: [InputSample]) -> [OutputSample] {
        var result: [OutputSample] = []
        let capacity = Swift.max(maxOutputCount(forInputCount: input.count), maxFlushOutputCount)
        result.reserveCapacity(capacity)
        input.withUnsafeBufferPointer { source in
            var offset = 0
            repeat {
                let remaining = UnsafeBufferPointer(rebasing: source[offset...])
                let chunk = [OutputSample](unsafeUninitializedCapacity: maxOutputCount(forInputCount: remaining.count)) {
                    buffer, count in
                    let counts = process(remaining, into: buffer)
                    offset += counts.consumed
                    count = counts.produced
                }
                result.append(contentsOf: chunk)
            } while offset < source.count
        }
        let tail = [OutputSample](unsafeUninitializedCapacity: maxFlushOutputCount) { buffer, count in
            count = flush(into: buffer)
        }
        result.append(contentsOf: tail)
        return result
    }
}
