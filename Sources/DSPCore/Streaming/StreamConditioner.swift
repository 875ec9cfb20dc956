/// Interleaved audio at any rate in, mono audio at the analysis rate out: the one conditioning
/// step in front of every analysis (``Downmixer`` then ``Resampler``, the resampler's leading
/// delay trimmed).
///
/// The live front end, the file scorer and the benchmark tool all condition audio through this
/// unit, so a stream and the same audio read from a file reach the analysis as the same
/// samples, bit for bit, however they were chunked.
///
/// **Policy.** Channels are mixed as ``Configuration-swift.struct/downmix`` says; a NaN or ±Inf
/// input sample counts as 0 (``Downmixer``'s non-finite policy), so one bad sample never
/// poisons a resampler window. Output sample `n` is input time `n / outputRate` (the leading
/// delay is trimmed); after ``flush(into:)`` the stream holds exactly
/// `round(N × outputRate / inputRate)` samples for N input frames. A final partial interleaved
/// frame is completed with zeros (``paddedSampleCount``).
///
/// **Calls.** ``process(_:into:)`` takes any number of interleaved samples and writes the mono
/// samples they complete; with `output.count ≥` ``maxOutputCount(forInputCount:)`` it takes them
/// all, otherwise as many as fit. It never allocates; results do not depend on chunking.
public final class StreamConditioner: StreamingProcessor, @unchecked Sendable {
    // @unchecked: the units and the block below are reached only holding `ownership` (see
    // StreamOwnership); the downmixer and resampler are this object's alone.
    /// What the conditioner is built for.
    public struct Configuration: Equatable, Sendable {
        /// Input sample rate, Hz. Range 1000…768 000.
        public var inputRate: Int
        /// Interleaved input channels. Range 1…64; default 1.
        public var channelCount: Int
        /// Output (analysis) rate, Hz. Range 1000…768 000; default 16 000.
        public var outputRate: Int
        /// How channels become mono. Default ``Downmixer/Mode/average``.
        public var downmix: Downmixer.Mode
        /// Resampler preset. Default ``Resampler/Quality/default``.
        public var quality: Resampler.Quality

        /// Creates a configuration.
        public init(
            inputRate: Int, channelCount: Int = 1, outputRate: Int = 16_000, downmix: Downmixer.Mode = .average,
            quality: Resampler.Quality = .default
        ) {
            self.inputRate = inputRate
            self.channelCount = channelCount
            self.outputRate = outputRate
            self.downmix = downmix
            self.quality = quality
        }

        /// Checks the ranges above (the resampler's own limits on the ratio are checked when
        /// it is built).
        public func validate() throws(ConfigurationError) {
            try ConfigurationError.check("inputRate", inputRate, in: 1000...768_000)
            try ConfigurationError.check("outputRate", outputRate, in: 1000...768_000)
            try ConfigurationError.check("channelCount", channelCount, in: 1...64)
        }
    }

    /// Input frames (per channel) downmixed per internal block (the block buffer is scratch:
    /// nothing in it outlives a call, so it comes from the calling thread's
    /// scratch workspace, not the stream). The front end pushes 1024 frames.
    public static let blockFrames = 1024

    /// The resampler's history block, frames (`Resampler.defaultHistoryBlockFrames` is 4096):
    /// per stream the histories then hold T − 1 + 1024 frames per stage instead of T − 1 +
    /// 4096 (12 kB less per 48 kHz stream than with 2048). A history compacts when less than
    /// half a block is free, so a block of ``blockFrames`` may now take two kernel calls.
    /// Outputs are the same bit for bit (they never depend on where the histories compact).
    static let resamplerHistoryBlockFrames = 1024

    /// The settings, as validated.
    public let configuration: Configuration
    private let downmixer: Downmixer
    private let resampler: Resampler?
    private let ownership = StreamOwnership()
    /// The calling thread's scratch, for the downmixed block.
    private let workspace = ScratchWorkspace()
    /// Workspace bytes of the downmixed block (``blockFrames`` + 1 floats).
    private static let monoBytes = ScratchWorkspace.bytes(Float.self, blockFrames + 1)

    /// Takes the ownership flag; two overlapping calls stop the program.
    @inline(__always)
    private func enter() {
        if !ownership.acquire() { preconditionFailure("StreamConditioner: overlapping calls from two threads (one stream, one caller at a time)") }
    }

    /// Validates `configuration` and allocates everything (the resampler's filter design
    /// included).
    public init(configuration: Configuration) throws(ConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        downmixer = try Downmixer(channelCount: configuration.channelCount, mode: configuration.downmix)
        resampler = configuration.inputRate == configuration.outputRate
            ? nil
            : try Resampler(
                configuration: Resampler.Configuration(
                    inputRate: configuration.inputRate, outputRate: configuration.outputRate,
                    quality: configuration.quality, trimsLeadingDelay: true),
                historyBlockFrames: Self.resamplerHistoryBlockFrames)
    }

    /// 0: the resampler's leading delay is trimmed, output sample `n` is input time
    /// `n / outputRate`.
    public var outputDelay: Int { 0 }

    /// Algorithmic latency, seconds: the resampler's group delay (0 without resampling).
    public var latencySeconds: Double { resampler?.groupDelaySeconds ?? 0 }

    /// Channel samples invented as zero to complete a final partial frame, this stream.
    public var paddedSampleCount: Int {
        enter(); defer { ownership.release() }
        return downmixer.paddedSampleCount
    }

    /// The exact number of samples the next ``process(_:into:)`` writes for `inputCount`
    /// interleaved samples (it depends on the carried phase and partial frame).
    public func maxOutputCount(forInputCount inputCount: Int) -> Int {
        enter(); defer { ownership.release() }
        return nextOutputCount(forInputCount: inputCount)
    }

    /// ``maxOutputCount(forInputCount:)`` for a caller holding the flag.
    private func nextOutputCount(forInputCount inputCount: Int) -> Int {
        let frames = downmixer.maxOutputCount(forInputCount: Swift.max(0, inputCount))
        return resampler?.maxOutputCount(forInputCount: frames) ?? frames
    }

    /// An output capacity enough for any call with up to `inputCount` samples in any state,
    /// for sizing buffers once: `⌊(⌈inputCount / channels⌉ + 1) × outputRate / inputRate⌋ + 2`.
    public func outputCapacity(forInputCount inputCount: Int) -> Int {
        let c = configuration
        let frames = (Swift.max(0, inputCount) + c.channelCount - 1) / c.channelCount
        return (frames + 1) * c.outputRate / c.inputRate + 2
    }

    /// Conditions `input` (interleaved) into `output` from its start. Takes all of `input` when
    /// `output` holds ``maxOutputCount(forInputCount:)`` samples, otherwise the most that fits.
    /// Never allocates.
    public func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>
    ) -> ProcessResult {
        process(input, into: output, knownFinite: false)
    }

    /// ``process(_:into:)`` for a caller that has already scanned `input` and knows it holds no
    /// NaN or ±Inf (`knownFinite`), so mono input skips the conditioner's own check. A wrong
    /// `true` lets a non-finite sample reach the resampler (its window's outputs are then
    /// non-finite) instead of counting as 0.
    public func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>, knownFinite: Bool
    ) -> ProcessResult {
        enter(); defer { ownership.release() }
        let channels = configuration.channelCount
        if channels == 1, let resampler, knownFinite || Downmixer.allFinite(input) {
            return resampler.process(input, into: output)  // read in place; takes what fits
        }
        let block = Self.blockFrames * channels
        let scope = workspace.enter(reserving: Self.monoBytes)
        defer { scope.leave() }
        let mono = scope.buffer(Float.self, count: Self.blockFrames + 1)
        var consumed = 0
        var produced = 0
        while consumed < input.count {
            var n = Swift.min(block, input.count - consumed)
            var last = false
            // The exact count only when the cheap any-state bound does not already fit.
            let room = output.count - produced
            if room < outputCapacity(forInputCount: n), nextOutputCount(forInputCount: n) > room {
                n = accepted(n, room: room)
                last = true
                if n == 0 { break }
            }
            let chunk = UnsafeBufferPointer(rebasing: input[consumed..<consumed + n])
            produced += condition(
                chunk, into: UnsafeMutableBufferPointer(rebasing: output[produced...]), mono: mono, knownFinite: knownFinite)
            consumed += n
            if last { break }
        }
        return ProcessResult(consumed: consumed, produced: produced)
    }

    /// The most samples ``flush(into:)`` writes.
    public var maxFlushOutputCount: Int {
        guard let resampler else { return 1 }
        let c = configuration
        return resampler.maxFlushOutputCount + (c.outputRate + c.inputRate - 1) / c.inputRate + 1
    }

    /// Ends the stream: a partial interleaved frame completed with zeros, then the resampler's
    /// tail, so the stream has exactly `round(N × outputRate / inputRate)` samples; resets.
    /// - Precondition: `output.count ≥` ``maxFlushOutputCount``.
    public func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        enter(); defer { ownership.release() }
        precondition(output.count >= maxFlushOutputCount, "StreamConditioner.flush: output smaller than maxFlushOutputCount")
        let scope = workspace.enter(reserving: Self.monoBytes)
        defer { scope.leave() }
        let mono = scope.buffer(Float.self, count: 1)
        let frames = downmixer.flush(into: mono)
        var produced = 0
        if let resampler {
            if frames > 0 {
                produced = resampler.process(UnsafeBufferPointer(rebasing: mono[..<frames]), into: output).produced
            }
            produced += resampler.flush(into: UnsafeMutableBufferPointer(rebasing: output[produced...]))
        } else if frames > 0 {
            output[0] = mono[0]
            produced = 1
        }
        resetStream()
        return produced
    }

    /// Forgets the stream. Never allocates.
    public func reset() {
        enter(); defer { ownership.release() }
        resetStream()
    }

    private func resetStream() {
        downmixer.reset()
        resampler?.reset()
    }

    /// Conditions one block whose whole output fits in `output`, downmixing through `mono`
    /// (``blockFrames`` + 1 floats of workspace).
    private func condition(
        _ chunk: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>,
        mono: UnsafeMutableBufferPointer<Float>, knownFinite: Bool
    ) -> Int {
        guard let resampler else {
            return downmixer.process(chunk, into: output, knownFinite: knownFinite).produced
        }
        let monoBlock: UnsafeBufferPointer<Float>
        if configuration.channelCount == 1, knownFinite || Downmixer.allFinite(chunk) {
            monoBlock = chunk  // read in place: the mix of one finite channel is itself
        } else {
            let frames = downmixer.process(chunk, into: mono, knownFinite: knownFinite).produced
            monoBlock = UnsafeBufferPointer(rebasing: mono[..<frames])
        }
        return resampler.process(monoBlock, into: output).produced
    }

    /// The largest input count ≤ `limit` whose output fits in `room` samples (the output count
    /// is monotonic in the input count): what ``process(_:into:)`` takes with that room.
    public func acceptedCount(_ limit: Int, room: Int) -> Int {
        enter(); defer { ownership.release() }
        return accepted(limit, room: room)
    }

    /// ``acceptedCount(_:room:)`` for a caller holding the flag.
    private func accepted(_ limit: Int, room: Int) -> Int {
        var low = 0
        var high = limit
        while low < high {
            let middle = (low + high + 1) / 2
            if nextOutputCount(forInputCount: middle) <= room { low = middle } else { high = middle - 1 }
        }
        return low
    }
}

extension StreamConditioner: MemoryAccounting {
    /// The downmixer and the resampler; the downmixed block is workspace, per thread.
    public var memoryFootprint: MemoryFootprint {
        MemoryFootprint(workspaceBytes: Self.monoBytes) + downmixer.memoryFootprint + (resampler?.memoryFootprint ?? MemoryFootprint())
    }
}
