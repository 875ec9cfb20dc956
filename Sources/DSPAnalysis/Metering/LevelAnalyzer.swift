import DSPCore

/// The level of one analysis frame, placed in the stream.
@frozen
public struct TimedFrameLevel: Equatable, Sendable {
    /// Zero-based analysis frame number.
    public var index: Int64
    /// Stream position of the frame's first sample frame (per channel, from stream start).
    public var startFrame: Int64
    /// Sample frames (per channel) of real input in the analysis frame.
    public var frameCount: Int
    /// Start time in seconds, `startFrame / sampleRate`.
    public var startSeconds: Double
    /// The frame's levels over all its channels' samples.
    public var level: FrameLevel

    /// Creates a timed frame level.
    @inlinable
    public init(index: Int64, startFrame: Int64, frameCount: Int, startSeconds: Double, level: FrameLevel) {
        self.index = index
        self.startFrame = startFrame
        self.frameCount = frameCount
        self.startSeconds = startSeconds
        self.level = level
    }
}

/// Levels of a whole stream.
public struct LevelSummary: Equatable, Sendable {
    /// Analysis frames measured (the last may be partial).
    public var analysisFrameCount: Int64 = 0
    /// Sample frames (per channel) consumed.
    public var sampleFrameCount: Int64 = 0
    /// The stream's level as if one frame: every finite sample of every channel.
    public var overall: FrameLevel = .empty
    /// The loudest analysis frame's RMS level in dBFS (−∞ when none).
    public var loudestFrameRMSDBFS: Double = -.infinity
    /// The quietest analysis frame's RMS level in dBFS (+∞ when none) — a rough noise floor.
    public var quietestFrameRMSDBFS: Double = .infinity
    /// Duration in seconds, `sampleFrameCount / sampleRate`.
    public var durationSeconds: Double = 0

    /// Creates an empty summary.
    public init() {}
}

/// Per-frame and whole-stream levels of an interleaved stream.
///
/// Cuts the stream into analysis frames of ``frameLength`` sample frames (1024 by default,
/// over all channels: a stereo frame holds 2048 samples) with a ``/DSPCore/Reframer`` — so results
/// do not depend on chunking — and measures each with a ``LevelMeter``. Conforms to
/// ``/DSPCore/StreamingProcessor`` with one ``TimedFrameLevel`` out per analysis frame;
/// ``flush(into:)`` measures the final partial frame over its real samples only. The summary
/// accumulates in ``summary`` and is returned by ``finalize()``.
public final class LevelAnalyzer: StreamAnalyzer, @unchecked Sendable {
    // @unchecked: the re-framer and the running sums below are reached only holding `ownership`
    // (see StreamOwnership).
    /// Analyzer settings.
    public struct Configuration: Equatable, Sendable {
        /// Sample rate in Hz, for timestamps. Range 1…1 000 000; default 16 000.
        public var sampleRate: Int = 16_000
        /// Interleaved channels. Range 1…64; default 1.
        public var channelCount: Int = 1
        /// Sample frames (per channel) per analysis frame. Range 1…65 536; default 1024.
        public var frameLength: Int = 1024
        /// The fraction of full scale at or beyond which a sample counts as clipped; default 1.0
        /// (see ``LevelMeter/init(clipThreshold:fullScale:)``).
        public var clipThreshold: Float = 1.0
        /// The samples' full-scale values: ``SampleFullScale/float`` (±1) by default, an integer
        /// format's rails for integer files (so clipping is counted at both rail codes).
        public var fullScale: SampleFullScale = .float

        /// Creates a configuration.
        public init(
            sampleRate: Int = 16_000, channelCount: Int = 1, frameLength: Int = 1024, clipThreshold: Float = 1.0,
            fullScale: SampleFullScale = .float
        ) {
            self.sampleRate = sampleRate
            self.channelCount = channelCount
            self.frameLength = frameLength
            self.clipThreshold = clipThreshold
            self.fullScale = fullScale
        }
    }

    /// The settings this analyzer was built with.
    public let configuration: Configuration
    /// Sample frames per analysis frame.
    public var frameLength: Int { configuration.frameLength }
    /// The per-frame kernel.
    public let meter: LevelMeter
    private let reframer: Reframer
    /// The summary of the stream so far.
    public var summary: LevelSummary {
        enter(); defer { ownership.release() }
        return running
    }
    private var running = LevelSummary()
    private let ownership = StreamOwnership()
    private var sumSquares = 0.0
    private var sum = 0.0
    private var consumedSamples: Int64 = 0
    /// A flushed stream's summary, until ``finalize()`` or the next stream's first samples.
    private var flushedSummary: LevelSummary?

    /// Creates an analyzer; throws if a setting is out of range.
    public init(configuration: Configuration = Configuration()) throws(ConfigurationError) {
        try ConfigurationError.check("sampleRate", configuration.sampleRate, in: 1...1_000_000)
        try ConfigurationError.check("channelCount", configuration.channelCount, in: 1...64)
        try ConfigurationError.check("frameLength", configuration.frameLength, in: 1...65_536)
        self.configuration = configuration
        meter = try LevelMeter(clipThreshold: configuration.clipThreshold, fullScale: configuration.fullScale)
        reframer = try Reframer(configuration: .init(frameLength: configuration.frameLength * configuration.channelCount))
    }

    /// Takes the ownership flag; two overlapping calls stop the program.
    @inline(__always)
    private func enter() {
        if !ownership.acquire() { preconditionFailure("LevelAnalyzer: overlapping calls from two threads (one stream, one caller at a time)") }
    }

    /// Levels are reported per frame with no delay beyond the frame.
    public var outputDelay: Int { 0 }

    /// Analysis frames that `inputCount` more samples complete.
    public func maxOutputCount(forInputCount inputCount: Int) -> Int {
        enter(); defer { ownership.release() }
        return reframer.frameCount(forInputCount: inputCount)
    }

    /// One partial frame at most.
    public var maxFlushOutputCount: Int { 1 }

    private func record(_ frame: UnsafeBufferPointer<Float>, _ info: FrameInfo) -> TimedFrameLevel {
        let channels = configuration.channelCount
        let level = meter.measure(UnsafeBufferPointer(rebasing: frame[..<info.validCount]))
        let startFrame = info.startSample / Int64(channels)
        let frames = (info.validCount + channels - 1) / channels
        running.analysisFrameCount += 1
        sumSquares += level.meanSquare * Double(level.sampleCount)
        sum += level.dcOffset * Double(level.sampleCount)
        running.overall.sampleCount += level.sampleCount
        running.overall.peak = Swift.max(running.overall.peak, level.peak)
        running.overall.clippedCount += level.clippedCount
        running.overall.nonFiniteCount += level.nonFiniteCount
        let n = Double(Swift.max(running.overall.sampleCount, 1))
        running.overall.meanSquare = sumSquares / n
        running.overall.dcOffset = sum / n
        let rms = level.rmsDBFS
        if level.sampleCount > 0 {
            running.loudestFrameRMSDBFS = Swift.max(running.loudestFrameRMSDBFS, rms)
            running.quietestFrameRMSDBFS = Swift.min(running.quietestFrameRMSDBFS, rms)
        }
        return TimedFrameLevel(
            index: info.index, startFrame: startFrame, frameCount: frames,
            startSeconds: Double(startFrame) / Double(configuration.sampleRate), level: level)
    }

    /// Measures every analysis frame `input` completes, writing one ``TimedFrameLevel`` per
    /// frame. Consumes only as much input as there is room for. Never allocates.
    public func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<TimedFrameLevel>
    ) -> ProcessResult {
        enter(); defer { ownership.release() }
        let limit = consumableCount(input.count, room: output.count)
        var produced = 0
        reframer.process(UnsafeBufferPointer(rebasing: input[..<limit])) { frame, info in
            output[produced] = record(frame, info)
            produced += 1
        }
        updateDuration(adding: limit)
        return ProcessResult(consumed: limit, produced: produced)
    }

    /// Measures every analysis frame `input` completes and calls `body` with each.
    public func process<E: Error>(
        _ input: UnsafeBufferPointer<Float>, _ body: (TimedFrameLevel) throws(E) -> Void
    ) throws(E) {
        enter(); defer { ownership.release() }
        updateDuration(adding: input.count)
        try reframer.process(input) { (frame, info) throws(E) in try body(record(frame, info)) }
    }

    private func consumableCount(_ inputCount: Int, room: Int) -> Int {
        guard reframer.frameCount(forInputCount: inputCount) > room else { return inputCount }
        return Swift.max(0, (room + 1) * reframer.frameLength - 1 - Int(reframer.samplesConsumed % Int64(reframer.frameLength)))
    }

    private func updateDuration(adding count: Int) {
        if count > 0 { flushedSummary = nil }  // a new stream has begun
        consumedSamples += Int64(count)
        let frames = consumedSamples / Int64(configuration.channelCount)
        running.sampleFrameCount = frames
        running.durationSeconds = Double(frames) / Double(configuration.sampleRate)
    }

    /// Measures the final partial frame (its real samples only), if any, ending the stream:
    /// the analyzer is then ready for a new stream, as after ``reset()``, and keeps the ended
    /// stream's summary for ``finalize()``.
    /// - Precondition: `output` has room for ``maxFlushOutputCount`` frame.
    public func flush(into output: UnsafeMutableBufferPointer<TimedFrameLevel>) -> Int {
        enter(); defer { ownership.release() }
        var produced = 0
        drain { level in
            precondition(produced < output.count, "LevelAnalyzer.flush: output smaller than maxFlushOutputCount (1)")
            output[produced] = level
            produced += 1
        }
        return produced
    }

    /// Measures the final partial frame, if any, and calls `body` with it; ends the stream as
    /// ``flush(into:)`` does.
    public func flush<E: Error>(_ body: (TimedFrameLevel) throws(E) -> Void) throws(E) {
        enter(); defer { ownership.release() }
        try drain(body)
    }

    /// ``flush(_:)`` for a caller holding the flag.
    private func drain<E: Error>(_ body: (TimedFrameLevel) throws(E) -> Void) throws(E) {
        try reframer.flush { (frame, info) throws(E) in try body(record(frame, info)) }
        let ended = running
        resetStream()
        flushedSummary = ended
    }

    /// The ended stream's summary: the one a flush kept or — without a flush — the current
    /// stream's, flushed first (the partial frame's record discarded). Leaves the analyzer as
    /// after ``reset()``.
    public func finalize() -> LevelSummary {
        enter(); defer { ownership.release() }
        if flushedSummary == nil { drain { _ in } }
        let result = flushedSummary ?? running
        flushedSummary = nil
        return result
    }

    /// Forgets the stream.
    public func reset() {
        enter(); defer { ownership.release() }
        resetStream()
    }

    private func resetStream() {
        flushedSummary = nil
        reframer.reset()
        running = LevelSummary()
        sumSquares = 0
        sum = 0
        consumedSamples = 0
    }
}
