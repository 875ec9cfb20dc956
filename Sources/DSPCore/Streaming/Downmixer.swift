/// Turns interleaved multichannel audio into mono.
///
/// ``Mode/average`` is the equal-weight mean of the channels, `y = (x₁ + … + x_C) / C`: a
/// signal identical in every channel keeps its level, uncorrelated channels drop by
/// `10·log10(C)` dB. ``Mode/channel(_:)`` picks one channel.
///
/// **Non-finite samples.** A NaN or ±Inf input sample counts as 0 (silence) in the mix: one
/// bad sample neither poisons its frame's other channels nor, downstream, a resampler's whole
/// filter window. Callers that must know count them on the input (`SpeechFrontEnd`'s
/// clipping stage does). A mono input of finite samples comes out unchanged. Input buffers may end in the
/// middle of an interleaved frame: the partial frame is carried to the next call. If the
/// stream ends inside a frame, ``flush(into:)`` emits it with the missing channels taken as
/// zero and counts them in ``paddedSampleCount`` — nothing is dropped silently.
public final class Downmixer: StreamingProcessor, @unchecked Sendable {
    // @unchecked: the carry below is reached only holding `ownership` (see StreamOwnership).
    /// How channels combine.
    public enum Mode: Equatable, Sendable {
        /// Equal-weight mean of all channels (default).
        case average
        /// One channel, zero-based.
        case channel(Int)
    }

    /// What a downmixer is built for.
    public struct Configuration: Equatable, Sendable {
        /// Interleaved channels in the input. Range 1…64; no default.
        public var channelCount: Int
        /// How channels combine. Default ``Mode/average``; ``Mode/channel(_:)`` takes an index
        /// in `0..<channelCount`.
        public var mode: Mode

        /// Creates a configuration; see each property for its range and default.
        public init(channelCount: Int, mode: Mode = .average) {
            self.channelCount = channelCount
            self.mode = mode
        }

        /// Throws the first setting out of range (`channelCount`, then `mode.channel`).
        public func validate() throws(ConfigurationError) {
            try ConfigurationError.check("channelCount", channelCount, in: 1...64)
            if case .channel(let index) = mode {
                try ConfigurationError.check("mode.channel", index, in: 0...channelCount - 1)
            }
        }
    }

    /// The settings, as validated.
    public let configuration: Configuration
    /// Interleaved channels in the input. Range 1…64.
    public let channelCount: Int
    /// How channels combine.
    public let mode: Mode

    @usableFromInline let partial: UnsafeMutablePointer<Float>
    @usableFromInline var partialCount = 0
    var padded = 0
    let ownership = StreamOwnership()

    /// Channel samples invented (as zero) by ``flush(into:)`` to complete a final partial
    /// frame, since construction or ``reset()``.
    public var paddedSampleCount: Int {
        enter(); defer { ownership.release() }
        return padded
    }

    /// Takes the ownership flag; two overlapping calls stop the program.
    @inline(__always)
    func enter() {
        if !ownership.acquire() { preconditionFailure("Downmixer: overlapping calls from two threads (one stream, one caller at a time)") }
    }

    /// Creates a downmixer; throws if the channel count or selected channel is out of range.
    public convenience init(channelCount: Int, mode: Mode = .average) throws(ConfigurationError) {
        try self.init(configuration: Configuration(channelCount: channelCount, mode: mode))
    }

    /// Validates `configuration` and allocates the partial-frame carry.
    public init(configuration: Configuration) throws(ConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        channelCount = configuration.channelCount
        mode = configuration.mode
        partial = .allocate(capacity: channelCount)
        partial.initialize(repeating: 0, count: channelCount)
    }

    deinit { partial.deallocate() }

    /// No delay.
    public var outputDelay: Int { 0 }

    /// Mono samples that `inputCount` more interleaved samples complete.
    public func maxOutputCount(forInputCount inputCount: Int) -> Int {
        enter(); defer { ownership.release() }
        return (partialCount + inputCount) / channelCount
    }

    /// At most one padded frame.
    public var maxFlushOutputCount: Int { 1 }

    /// Mixes one interleaved frame starting at `frame` (non-finite samples as 0).
    @inline(__always)
    func mix(_ frame: UnsafePointer<Float>) -> Float {
        switch mode {
        case .channel(let index):
            return Self.finite(frame[index])
        case .average:
            var sum: Float = 0
            for c in 0..<channelCount { sum += Self.finite(frame[c]) }
            return sum * (1 / Float(channelCount))
        }
    }

    /// Mixes whole frames of `input` into `output`; a trailing partial frame is carried.
    public func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>
    ) -> ProcessResult {
        process(input, into: output, knownFinite: false)
    }

    /// ``process(_:into:)`` for a caller that knows `input` holds no NaN or ±Inf, so the mix
    /// skips its check for them (``StreamConditioner`` passes what the front end's clip
    /// counter saw).
    func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>, knownFinite: Bool
    ) -> ProcessResult {
        enter(); defer { ownership.release() }
        guard var source = input.baseAddress, !input.isEmpty else {
            return ProcessResult(consumed: 0, produced: 0)
        }
        var consumed = 0
        var produced = 0
        // Complete a carried partial frame first.
        if partialCount > 0 {
            let n = Swift.min(channelCount - partialCount, input.count)
            // Completing the frame needs room for its output sample.
            if partialCount + n == channelCount, output.isEmpty { return ProcessResult(consumed: 0, produced: 0) }
            (partial + partialCount).update(from: source, count: n)
            partialCount += n
            consumed = n
            source += n
            if partialCount < channelCount { return ProcessResult(consumed: consumed, produced: 0) }
            output[0] = mix(partial)
            produced = 1
            partialCount = 0
        }
        let frames = Swift.min((input.count - consumed) / channelCount, output.count - produced)
        if frames > 0, let base = output.baseAddress {
            let destination = base + produced
            switch mode {
            case .average:
                Self.averageFinite(source, channels: channelCount, frames: frames, into: destination, knownFinite: knownFinite)
            case .channel: for i in 0..<frames { destination[i] = mix(source + i * channelCount) }
            }
        }
        consumed += frames * channelCount
        produced += frames
        source += frames * channelCount
        // Carry what completes no frame: a trailing partial frame, or — when the room ran out —
        // the next frame's first `channelCount − 1` samples (they need no output yet).
        let rest = Swift.min(input.count - consumed, channelCount - 1)
        if rest > 0 {
            partial.update(from: source, count: rest)
            partialCount = rest
            consumed += rest
        }
        return ProcessResult(consumed: consumed, produced: produced)
    }

    /// Emits a carried partial frame with the missing channels as zero (counted in
    /// ``paddedSampleCount``) and ends the stream.
    /// - Precondition: `output` holds at least ``maxFlushOutputCount`` (1) sample when a partial
    ///   frame is carried.
    public func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        enter(); defer { ownership.release() }
        guard partialCount > 0 else { return 0 }
        precondition(!output.isEmpty, "Downmixer.flush: output smaller than maxFlushOutputCount (1)")
        (partial + partialCount).update(repeating: 0, count: channelCount - partialCount)
        padded += channelCount - partialCount
        output[0] = mix(partial)
        partialCount = 0
        return 1
    }

    /// Forgets a carried partial frame and the padding count.
    public func reset() {
        enter(); defer { ownership.release() }
        partialCount = 0
        padded = 0
    }
}

extension Downmixer: MemoryAccounting {
    /// The partial interleaved frame carried between calls.
    public var memoryFootprint: MemoryFootprint { .owned(MemoryFootprint.bytes(Float.self, channelCount)) }
}
