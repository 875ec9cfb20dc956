/// Where a frame from a ``Reframer`` lies in the stream.
@frozen
public struct FrameInfo: Equatable, Sendable {
    /// Zero-based frame number in the stream.
    public var index: Int64
    /// Stream position of the frame's first sample (in samples from the stream start).
    public var startSample: Int64
    /// Samples of real input in the frame; less than the frame length only for the final,
    /// zero-padded frames that ``Reframer/flush(_:)`` emits.
    public var validCount: Int

    /// Creates frame metadata.
    @inlinable
    public init(index: Int64, startSample: Int64, validCount: Int) {
        self.index = index
        self.startSample = startSample
        self.validCount = validCount
    }
}

/// Cuts a stream of samples, pushed in buffers of any length, into fixed-length frames.
///
/// Frames are `frameLength` samples long and start every `hopLength` samples (`hop < frame`
/// overlaps them). Samples that do not yet complete a frame are carried to the next call; at
/// end of stream ``flush(_:)`` emits the remaining partial frames, zero-padded, reporting
/// their true length, so that every input sample appears in at least one frame. Frame
/// boundaries depend only on stream positions, never on how the input was chunked.
///
/// Frames can be received through a closure (no copy when the input buffer already holds a
/// whole frame) or written into a caller buffer via ``process(_:into:)``.
public final class Reframer: StreamingProcessor, @unchecked Sendable {
    // @unchecked: the frame storage and counts below are reached only holding `ownership` (see
    // StreamOwnership).
    /// Frame geometry.
    public struct Configuration: Equatable, Sendable {
        /// Samples per frame. Range 1…1 048 576; default 1024.
        public var frameLength: Int
        /// Samples between frame starts. Range 1…`frameLength`; default `frameLength`.
        public var hopLength: Int

        /// Creates a configuration; `hopLength` defaults to `frameLength` (no overlap).
        public init(frameLength: Int = 1024, hopLength: Int? = nil) {
            self.frameLength = frameLength
            self.hopLength = hopLength ?? frameLength
        }

        /// Throws the first setting out of range (`frameLength`, then `hopLength`).
        public func validate() throws(ConfigurationError) {
            try ConfigurationError.check("frameLength", frameLength, in: 1...1 << 20)
            try ConfigurationError.check("hopLength", hopLength, in: 1...frameLength)
        }
    }

    /// The settings, as validated.
    public let configuration: Configuration
    /// Samples per frame.
    public let frameLength: Int
    /// Samples between frame starts.
    public let hopLength: Int

    /// Holds the samples of the frame being assembled, from stream position
    /// `framesEmitted × hopLength`.
    @usableFromInline let storage: UnsafeMutablePointer<Float>
    @usableFromInline var fill = 0
    @usableFromInline var emittedCount: Int64 = 0
    @usableFromInline var consumedCount: Int64 = 0
    @usableFromInline let ownership = StreamOwnership()
    /// Frames emitted in this stream.
    public var framesEmitted: Int64 {
        enter(); defer { ownership.release() }
        return emittedCount
    }
    /// Samples consumed in this stream.
    public var samplesConsumed: Int64 {
        enter(); defer { ownership.release() }
        return consumedCount
    }

    /// Takes the ownership flag; two overlapping calls stop the program.
    @inlinable @inline(__always)
    func enter() {
        if !ownership.acquire() { preconditionFailure("Reframer: overlapping calls from two threads (one stream, one caller at a time)") }
    }

    /// Creates a re-framer; throws if the geometry is out of range.
    public init(configuration: Configuration = Configuration()) throws(ConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        frameLength = configuration.frameLength
        hopLength = configuration.hopLength
        storage = .allocate(capacity: frameLength)
        storage.initialize(repeating: 0, count: frameLength)
    }

    deinit { storage.deallocate() }

    /// Frames are emitted as soon as complete: no delay beyond the frame itself.
    public var outputDelay: Int { 0 }

    /// The stream position of the first sample of the frame being assembled.
    @inlinable
    var pendingStart: Int64 { emittedCount * Int64(hopLength) }

    /// Complete frames that `inputCount` more samples would finish.
    public func frameCount(forInputCount inputCount: Int) -> Int {
        enter(); defer { ownership.release() }
        return completedFrames(forInputCount: inputCount)
    }

    /// ``frameCount(forInputCount:)`` for a caller holding the flag.
    func completedFrames(forInputCount inputCount: Int) -> Int {
        let available = fill + inputCount
        return available >= frameLength ? (available - frameLength) / hopLength + 1 : 0
    }

    /// Output capacity, in samples, for `inputCount` more samples: whole frames only.
    public func maxOutputCount(forInputCount inputCount: Int) -> Int {
        enter(); defer { ownership.release() }
        return completedFrames(forInputCount: inputCount) * frameLength
    }

    /// The most samples ``flush(into:)`` writes: enough frames to cover a full carry.
    public var maxFlushOutputCount: Int {
        ((frameLength + hopLength - 1) / hopLength) * frameLength
    }

    /// Pushes `input` and calls `body` with each frame it completes, in order. The frame
    /// buffer is valid only during the call. Never allocates.
    @inlinable
    public func process<E: Error>(
        _ input: UnsafeBufferPointer<Float>,
        _ body: (UnsafeBufferPointer<Float>, FrameInfo) throws(E) -> Void
    ) throws(E) {
        enter(); defer { ownership.release() }
        try push(input, body)
    }

    /// ``process(_:_:)`` for a caller holding the flag.
    @inlinable
    func push<E: Error>(
        _ input: UnsafeBufferPointer<Float>,
        _ body: (UnsafeBufferPointer<Float>, FrameInfo) throws(E) -> Void
    ) throws(E) {
        var offset = 0
        let count = input.count
        while offset < count {
            if fill == 0, hopLength == frameLength, count - offset >= frameLength, let base = input.baseAddress {
                // Whole frames straight from the caller's buffer.
                let info = FrameInfo(index: emittedCount, startSample: pendingStart, validCount: frameLength)
                emittedCount += 1
                consumedCount += Int64(frameLength)
                offset += frameLength
                try body(UnsafeBufferPointer(start: base + offset - frameLength, count: frameLength), info)
                continue
            }
            let n = Swift.min(frameLength - fill, count - offset)
            (storage + fill).update(from: input.baseAddress! + offset, count: n)
            fill += n
            offset += n
            consumedCount += Int64(n)
            if fill == frameLength {
                let info = FrameInfo(index: emittedCount, startSample: pendingStart, validCount: frameLength)
                try body(UnsafeBufferPointer(start: storage, count: frameLength), info)
                advance()
            }
        }
    }

    /// Drops the first `hopLength` samples of a complete frame and counts it as emitted.
    @usableFromInline
    func advance() {
        emittedCount += 1
        let keep = frameLength - hopLength
        if keep > 0 { storage.update(from: storage + hopLength, count: keep) }
        fill = keep
    }

    /// Pushes `input`, writing complete frames back to back into `output`. Consumes only as
    /// much input as there is room for frames. Never allocates.
    public func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>
    ) -> ProcessResult {
        enter(); defer { ownership.release() }
        let roomFrames = output.count / frameLength
        // Input that completes `roomFrames` frames, plus anything that only fills the carry.
        var limit = input.count
        if completedFrames(forInputCount: input.count) > roomFrames {
            // Largest k with frameCount(forInputCount: k) <= roomFrames.
            limit = Swift.max(0, roomFrames * hopLength + frameLength - 1 - fill)
        }
        var produced = 0
        push(UnsafeBufferPointer(rebasing: input[..<limit])) { frame, _ in
            UnsafeMutableBufferPointer(rebasing: output[produced..<produced + frameLength])
                .baseAddress!.update(from: frame.baseAddress!, count: frameLength)
            produced += frameLength
        }
        return ProcessResult(consumed: limit, produced: produced)
    }

    /// Ends the stream: calls `body` with the final partial frames, zero-padded, until every
    /// consumed sample has appeared in a frame, then resets for a new stream.
    @inlinable
    public func flush<E: Error>(_ body: (UnsafeBufferPointer<Float>, FrameInfo) throws(E) -> Void) throws(E) {
        enter(); defer { ownership.release() }
        try drain(body)
    }

    /// ``flush(_:)`` for a caller holding the flag.
    @inlinable
    func drain<E: Error>(_ body: (UnsafeBufferPointer<Float>, FrameInfo) throws(E) -> Void) throws(E) {
        defer { resetStream() }
        var coveredEnd = emittedCount == 0 ? 0 : (emittedCount - 1) * Int64(hopLength) + Int64(frameLength)
        while coveredEnd < consumedCount {
            let start = pendingStart
            let valid = Int(consumedCount - start)
            (storage + valid).update(repeating: 0, count: frameLength - valid)
            try body(
                UnsafeBufferPointer(start: storage, count: frameLength),
                FrameInfo(index: emittedCount, startSample: start, validCount: valid))
            coveredEnd = start + Int64(frameLength)
            advance()
            fill = Swift.max(0, valid - hopLength)
        }
    }

    /// Ends the stream, writing the final partial frames (zero-padded) into `output`; returns
    /// samples written. `output` must hold ``maxFlushOutputCount`` samples.
    public func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        enter(); defer { ownership.release() }
        var produced = 0
        drain { frame, _ in
            precondition(output.count - produced >= frameLength, "Reframer.flush: output smaller than maxFlushOutputCount")
            UnsafeMutableBufferPointer(rebasing: output[produced..<produced + frameLength])
                .baseAddress!.update(from: frame.baseAddress!, count: frameLength)
            produced += frameLength
        }
        return produced
    }

    /// Forgets the carried samples and stream position.
    public func reset() {
        enter(); defer { ownership.release() }
        resetStream()
    }

    @usableFromInline
    func resetStream() {
        fill = 0
        emittedCount = 0
        consumedCount = 0
    }
}

extension Reframer: MemoryAccounting {
    /// The frame being filled.
    public var memoryFootprint: MemoryFootprint { .owned(MemoryFootprint.bytes(Float.self, frameLength)) }
}
