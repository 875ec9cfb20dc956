import DSPAnalysis
import DSPCore
import DSPDetection

/// What one ``SpeechFrontEnd/process(_:into:events:)`` call did.
@frozen
public struct FrontEndResult: Equatable, Sendable {
    /// Input samples (interleaved, all channels) taken: all of them unless the output buffer was
    /// smaller than ``SpeechFrontEnd/maxOutputCount(forInputCount:)``.
    public var consumed: Int
    /// 16 kHz Int16 samples written to the output buffer, from its start.
    public var produced: Int
    /// Events written to the event buffer.
    public var events: Int
    /// Events that did not fit in the event buffer and were dropped (also counted by the buffer).
    public var droppedEvents: Int

    /// Creates a result.
    @inlinable
    public init(consumed: Int, produced: Int, events: Int, droppedEvents: Int) {
        self.consumed = consumed
        self.produced = produced
        self.events = events
        self.droppedEvents = droppedEvents
    }
}

/// Buffer capacities that cover a whole stream: every ``SpeechFrontEnd/process(_:into:events:)``
/// call with up to a given number of input samples, and the ``SpeechFrontEnd/flush(into:events:)``
/// at its end (``SpeechFrontEnd/bufferSizes(forMaxInputCount:)``).
@frozen
public struct FrontEndBufferSizes: Equatable, Sendable {
    /// Int16 samples for the output buffer (0 when the output stage is off).
    public var outputCapacity: Int
    /// Events for the ``FrontEndEventBuffer``.
    public var eventCapacity: Int

    /// Creates sizes from their two counts.
    @inlinable
    public init(outputCapacity: Int, eventCapacity: Int) {
        self.outputCapacity = outputCapacity
        self.eventCapacity = eventCapacity
    }
}

/// A finished stream, from ``SpeechFrontEnd/flush(into:events:)``.
public struct FrontEndSummary: Equatable, Sendable {
    /// Input frames (per channel) consumed, a final partial frame counted as one.
    public var inputFrameCount: Int64 = 0
    /// 16 kHz samples written, flush included: `round(inputFrameCount × 16000 / inputRate)`.
    public var outputSampleCount: Int64 = 0
    /// `inputFrameCount / inputRate`, seconds.
    public var durationSeconds = 0.0
    /// Input samples counted as clipped (clipping stage).
    public var clippedSampleCount = 0
    /// Non-finite input samples (clipping stage).
    public var nonFiniteSampleCount = 0
    /// Loudness of the 16 kHz stream (loudness stage), else nil.
    public var loudness: LoudnessSummary? = nil
    /// Segment totals (detection stage), else nil.
    public var detection: DetectionSummary? = nil
    /// The environment over the stream (environment stage), else nil.
    public var environment: EnvironmentSummary? = nil
    /// The voice's F0 median and spread and the speaking rate over the stream
    /// (``/DSPDetection/ProsodyEstimator``, environment stage), else nil.
    public var prosody: ProsodyEstimate? = nil

    /// Creates an empty summary.
    public init() {}
}

/// What ``SpeechFrontEnd/flush(into:events:)`` did.
public struct FrontEndFlushResult: Equatable, Sendable {
    /// 16 kHz Int16 samples written.
    public var produced: Int
    /// Events written to the event buffer.
    public var events: Int
    /// Events dropped for lack of room.
    public var droppedEvents: Int
    /// The finished stream.
    public var summary: FrontEndSummary
}

/// One live audio stream's front end: Float32 audio at any rate and channel count in, 16 kHz mono
/// PCM Int16 out for a recognizer, with levels, loudness, clipping, voice activity and an
/// environment summary reported as events.
///
/// **Chain.** Interleaved input → ``/DSPCore/StreamConditioner`` (downmix, non-finite samples
/// as 0, resample to 16 kHz with the leading delay trimmed so output sample `n` is input time
/// `n / 16000` s) → ``/DSPCore/Int16Converter`` into the caller's buffer. The 16 kHz stream
/// also goes, as it is, to the ``/DSPDetection/AnalysisChain`` (detector → frame grouping →
/// ``/DSPDetection/EnvironmentAnalyzer``) — the same object `FileScorer` runs on a file, so
/// segments and measurements match a file's sample for sample — and, for the levels stage, is
/// cut into 1024-sample frames (``/DSPCore/Reframer``) and measured
/// (``/DSPAnalysis/LevelMeter``; ``/DSPAnalysis/LoudnessMeter`` without true peak).
/// Clipping is counted on the *input*, in windows of ``Configuration/clipWindowMilliseconds``.
/// Every stage can be switched off (``Stages``).
///
/// **Calls.** Configure once (``init(configuration:)`` validates and allocates everything).
/// ``process(_:into:events:)`` takes any number of input samples (zero, one, a partial
/// interleaved frame, thousands), writes the 16 kHz samples they complete into the caller's
/// buffer and the events into a caller-owned ``FrontEndEventBuffer``; it never allocates, locks
/// or logs, once the calling thread has made its first push (which allocates the thread's scratch
/// workspace, shared by every stream that thread processes: ``memory``). ``flush(into:events:)`` ends the stream (the output then has exactly
/// `round(N × 16000 / inputRate)` samples for N input frames) and ``reset()`` forgets it. Output
/// and events do not depend on how the input was chunked.
///
/// **Time.** Positions are integer counts of input frames and output samples; events carry a
/// ``StreamTime`` computed from them, so times are exact and do not drift in streams of any
/// length. Latency: the resampler's group delay (``latencySeconds``) for audio. Segment events carry the segmenter's boundaries — a start back-dated to the first
/// frame of the activity (less padding), an end after the last active frame (plus padding) —
/// and are emitted when decided: a start after the activity's minimum duration, an end after
/// the hangover. Environment events come at the end of the 64 ms frame that reaches an update
/// time.
///
/// **Threads.** One stream per instance. The class is `Sendable`: it may be created on one
/// thread and used on another, and handed between threads, with no data race — every call
/// takes an ownership flag with an atomic acquire (and releases it at return), which orders
/// each call after the previous one on whatever thread it ran. Two *overlapping* calls on one
/// instance are a programming error and stop the program with a clear message (like Swift's
/// exclusivity checks) rather than racing. No state is shared between instances, so a service
/// runs any number of streams on any number of threads.
///
/// ```swift
/// let frontEnd = try SpeechFrontEnd(configuration: .init(inputRate: 48_000, channelCount: 2))
/// let sizes = frontEnd.bufferSizes(forMaxInputCount: 2048)  // any push up to 2048 samples, and the flush
/// let output = UnsafeMutableBufferPointer<Int16>.allocate(capacity: sizes.outputCapacity)
/// let events = FrontEndEventBuffer(capacity: sizes.eventCapacity)
/// let result = frontEnd.process(input, into: output, events: events)
/// for event in events { ... }  // speech/music/several-speaker start and end, environment, clipping, levels
/// ```
///
/// The allocating tier — ``process(_:)-([Float])``, ``flush()``, ``processAll(_:)-([Float])`` and
/// ``outputs(for:)`` over an `AsyncSequence` of chunks — returns ``FrontEndOutput`` values
/// instead; it allocates per call and is not for real-time use.
public final class SpeechFrontEnd: @unchecked Sendable {
    // @unchecked: the mutable units below are reached only inside `exclusive` sections, which the
    // atomic ownership flag (DSPCore's StreamOwnership, the one every unit uses) makes mutually
    // exclusive and orders (acquire/release); see the type's documentation. Everything else is
    // immutable after init.

    /// The output rate, Hz.
    public static let outputRate = 16_000
    /// Samples per analysis frame at 16 kHz (64 ms).
    public static let analysisFrameLength = 1024
    /// Input frames (per channel) processed per internal block.
    static let blockFrames = 4096

    /// The settings this front end was built with (the environment's rate and frame length
    /// filled in).
    public let configuration: Configuration
    /// Converts between input frames and output samples.
    public let timeline: StreamTimeline
    /// The stages running.
    public var stages: Stages { configuration.stages }

    private let ownership = StreamOwnership()
    private let channelCount: Int
    private let writesOutput: Bool
    private let needsStream: Bool
    private let emitsLevels: Bool
    private let conditioner: StreamConditioner?
    private let converter: Int16Converter?
    private let reframer: Reframer?
    private let meter: LevelMeter
    private let loudness: LoudnessMeter?
    private let clipCounter: InputClipCounter?
    private let chain: AnalysisChain?
    /// Room for the conditioned 16 kHz samples of one block (or a flush), taken from the
    /// calling thread's workspace for each call.
    private let streamCapacity: Int
    /// Room for the chain's events of one block (or a flush), from the workspace likewise.
    private let chainEventCapacity: Int
    /// The process's workspace key (``/DSPCore/ScratchWorkspace``).
    private let workspace = ScratchWorkspace()
    /// Bytes a call takes from the calling thread's workspace: the block buffers above and what
    /// the conditioner and the chain take inside the call, reserved at the start of every call.
    private let workspaceBytes: Int

    private var inputSamplesConsumed: Int64 = 0
    private var outputSamplesWritten: Int64 = 0
    /// What the next snapshot publishes (the owner's copy) and where it is published; the last
    /// environment measurement is published apart, when there is a new one (twice a second), so
    /// a push publishes a few words.
    private var live = FrontEndProgress()
    private let published = SnapshotCell(FrontEndProgress())
    private let publishedEnvironment = SnapshotCell<EnvironmentMeasurement?>(nil)
    /// A measurement made during this call, to publish at its end.
    private var latestMeasurement: EnvironmentMeasurement?

    /// Creates a front end; throws ``/DSPCore/ConfigurationError`` quoting the first bad setting.
    public init(configuration: Configuration) throws(ConfigurationError) {
        try configuration.validate()
        var configuration = configuration
        configuration.environment.sampleRate = Self.outputRate
        configuration.environment.frameLength = Self.analysisFrameLength
        self.configuration = configuration
        let stages = configuration.stages
        let rate = configuration.inputRate
        channelCount = configuration.channelCount
        timeline = try StreamTimeline(inputRate: rate, outputRate: Self.outputRate)
        writesOutput = stages.contains(.output)
        let analyses: Stages = [.levels, .loudness, .detection, .environment]
        needsStream = writesOutput || !stages.isDisjoint(with: analyses)
        emitsLevels = stages.contains(.levels) && configuration.emitsLevelEvents

        conditioner = needsStream
            ? try StreamConditioner(configuration: .init(
                inputRate: rate, channelCount: channelCount, outputRate: Self.outputRate,
                downmix: configuration.downmix, quality: configuration.resamplerQuality))
            : nil
        converter = writesOutput ? Int16Converter(dither: configuration.dither) : nil
        reframer = stages.isDisjoint(with: [.levels, .loudness])
            ? nil : try Reframer(configuration: .init(frameLength: Self.analysisFrameLength))
        meter = try LevelMeter(clipThreshold: 1.0)
        loudness = stages.contains(.loudness)
            ? try LoudnessMeter(configuration: .init(sampleRate: Self.outputRate, channelLayout: .mono, measuresTruePeak: false))
            : nil
        clipCounter = stages.contains(.clipping)
            ? try InputClipCounter(
                clipThreshold: configuration.clipThreshold, timeline: timeline, channelCount: channelCount,
                windowFrames: Swift.max(1, rate * configuration.clipWindowMilliseconds / 1000))
            : nil
        chain = stages.contains(.detection)
            ? try AnalysisChain(configuration: .init(
                detector: configuration.detector,
                environment: stages.contains(.environment) ? configuration.environment : nil,
                frameLength: Self.analysisFrameLength))
            : nil

        // Room for one block's output or a flush, whichever is larger.
        let blockOutput = conditioner?.outputCapacity(forInputCount: Self.blockFrames * channelCount) ?? 0
        let streamCapacity = Swift.max(1, blockOutput, conditioner?.maxFlushOutputCount ?? 0)
        self.streamCapacity = streamCapacity
        chainEventCapacity = chain.map { Swift.max($0.maxFlushOutputCount, $0.outputCapacity(forInputCount: streamCapacity)) } ?? 1
        workspaceBytes = ScratchWorkspace.bytes(Float.self, streamCapacity) + ScratchWorkspace.bytes(AnalysisEvent.self, chainEventCapacity)
            + (chain?.memoryFootprint.workspaceBytes ?? 0) + (conditioner?.memoryFootprint.workspaceBytes ?? 0)
    }

    /// Allocates the calling thread's scratch workspace for this front end's calls now, if it
    /// does not hold enough yet, so that the first call on this thread allocates nothing (a
    /// thread's workspace is otherwise allocated by its first call: ``/DSPCore/MemoryFootprint/workspaceBytes``).
    /// Call it once on each worker thread at start-up where even that first allocation matters.
    /// Never needed for correctness; safe on any thread.
    public func reserveWorkspace() {
        workspace.enter(reserving: workspaceBytes).leave()
    }

    /// What this stream's units allocated, per stage (``FrontEndMemory``). Reads only what
    /// `init` fixed: safe from any thread.
    public var memory: FrontEndMemory {
        var stages: [FrontEndMemory.Stage] = []
        func add(_ name: String, _ footprint: MemoryFootprint?) {
            if let footprint { stages.append(.init(name: name, footprint: footprint)) }
        }
        add("conditioner", conditioner?.memoryFootprint)
        add("output", converter?.memoryFootprint)
        add("levels", reframer?.memoryFootprint)
        add("loudness", loudness?.memoryFootprint)
        add("clipping", clipCounter.map { _ in MemoryFootprint() })
        add("detection", chain.map { $0.memoryFootprint + MemoryFootprint(ownedBytes: -($0.environment?.memoryFootprint.ownedBytes ?? 0)) })
        add("environment", chain?.environment?.memoryFootprint)
        add("buffers", MemoryFootprint(workspaceBytes: ScratchWorkspace.bytes(Float.self, streamCapacity)
            + ScratchWorkspace.bytes(AnalysisEvent.self, chainEventCapacity)))
        return FrontEndMemory(stages: stages)
    }

    // MARK: Sizes and latency

    /// The output is aligned with the input (the resampler's leading delay is trimmed): 0.
    public var outputDelay: Int { 0 }

    /// Algorithmic latency of the audio path, seconds: the resampler's group delay (0 at
    /// 16 kHz). Analysis events also wait for their frame or for the segmenter's decision.
    public var latencySeconds: Double { conditioner?.latencySeconds ?? 0 }

    /// The output capacity, in Int16 samples, that guarantees the next call with `inputCount`
    /// samples consumes them all (0 when the output stage is off). Exact for the current state,
    /// so for the thread that processes the stream (like `process`, it takes the ownership
    /// flag); size buffers at setup with ``outputCapacity(forInputCount:)``, which, like the
    /// other bounds, reads only the configuration and is safe from any thread.
    public func maxOutputCount(forInputCount inputCount: Int) -> Int {
        exclusive { writesOutput ? streamCount(forInputCount: inputCount) : 0 }
    }

    /// An output capacity, in Int16 samples, enough for any call with up to `inputCount` input
    /// samples in *any* state — for sizing buffers once at setup (0 when the output stage is
    /// off): `⌊(⌈inputCount / channelCount⌉ + 1) × 16000 / inputRate⌋ + 2`.
    /// ``maxOutputCount(forInputCount:)`` is the exact need of the next call, which depends on
    /// the state (the first call of a stream writes less: the resampler's delay is trimmed).
    public func outputCapacity(forInputCount inputCount: Int) -> Int {
        guard writesOutput else { return 0 }
        let frames = (Swift.max(0, inputCount) + channelCount - 1) / channelCount
        return (frames + 1) * Self.outputRate / configuration.inputRate + 2
    }

    /// The most samples ``flush(into:events:)`` writes.
    public var maxFlushOutputCount: Int {
        writesOutput ? conditioner?.maxFlushOutputCount ?? 0 : 0
    }

    /// An upper bound on the events one ``process(_:into:events:)`` call with `inputCount`
    /// samples writes, in any state: a levels event per analysis frame it can complete, up to
    /// four chain events (three segment boundaries and a measurement) per 16 ms hop, and one
    /// per clipping window.
    public func maxEventCount(forInputCount inputCount: Int) -> Int {
        let frames = (Swift.max(0, inputCount) + channelCount - 1) / channelCount + 1
        let outputs = frames * Self.outputRate / configuration.inputRate + 2
        return eventCount(forStreamCount: outputs) + (clipCounter.map { frames / $0.windowFrames + 1 } ?? 0)
    }

    /// An upper bound on the events ``flush(into:events:)`` writes.
    public var maxFlushEventCount: Int {
        eventCount(forStreamCount: conditioner?.maxFlushOutputCount ?? 0) + (chain?.maxFlushOutputCount ?? 0) + 2
    }

    /// Buffer capacities for a whole stream whose pushes hold at most `maxInputCount` samples
    /// (interleaved, all channels): the larger of ``outputCapacity(forInputCount:)`` and
    /// ``maxFlushOutputCount`` for the output, of ``maxEventCount(forInputCount:)`` and
    /// ``maxFlushEventCount`` for the events. Buffers of these sizes take every such push whole
    /// and drop no event, flush included. Reads only the configuration: safe from any thread.
    public func bufferSizes(forMaxInputCount maxInputCount: Int) -> FrontEndBufferSizes {
        FrontEndBufferSizes(
            outputCapacity: Swift.max(outputCapacity(forInputCount: maxInputCount), maxFlushOutputCount),
            eventCapacity: Swift.max(maxEventCount(forInputCount: maxInputCount), maxFlushEventCount))
    }

    /// Levels and chain events that `count` more 16 kHz samples can complete.
    private func eventCount(forStreamCount count: Int) -> Int {
        let levels = emitsLevels ? count / Self.analysisFrameLength + 1 : 0
        return levels + (chain?.outputCapacity(forInputCount: count) ?? 0)
    }

    /// Integrated loudness of the stream so far (BS.1770-5 gating), LUFS; nil when the loudness
    /// stage is off. Computed on each call from the gating histogram: not for every push. For
    /// the thread that processes the stream (it takes the ownership flag); a monitoring thread
    /// reads ``snapshot()`` instead.
    public var integratedLoudnessLUFS: Double? {
        exclusive { loudness?.integratedLUFS }
    }

    // MARK: Processing

    /// Processes `input` (interleaved Float32, any count), writing 16 kHz Int16 into `output`
    /// from its start and the events into `events` (emptied first).
    ///
    /// Takes all of `input` when `output` holds ``maxOutputCount(forInputCount:)`` samples;
    /// otherwise only as much as fits (a partial interleaved frame is carried to the next call).
    /// Events beyond `events.capacity` are dropped and counted. Never allocates, locks or logs.
    public func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Int16>,
        events: FrontEndEventBuffer
    ) -> FrontEndResult {
        exclusive {
            events.removeAll()
            let scope = workspace.enter(reserving: workspaceBytes)
            defer { scope.leave() }
            let stream = scope.buffer(Float.self, count: streamCapacity)
            let chainEvents = scope.buffer(AnalysisEvent.self, count: chainEventCapacity)
            let block = Self.blockFrames * channelCount
            var consumed = 0
            var produced = 0
            while consumed < input.count {
                var n = Swift.min(block, input.count - consumed)
                var last = false
                // The exact count only when the cheap any-state bound does not already fit.
                if writesOutput, output.count - produced < outputCapacity(forInputCount: n),
                    streamCount(forInputCount: n) > output.count - produced
                {
                    n = conditioner?.acceptedCount(n, room: output.count - produced) ?? n
                    last = true
                    if n == 0 { break }
                }
                let chunk = UnsafeBufferPointer(rebasing: input[consumed..<consumed + n])
                let nonFiniteBefore = clipCounter?.totalNonFinite
                clipCounter?.process(chunk, events: events)
                // The clip counter has just scanned the chunk: when it saw no NaN or ±Inf, the
                // conditioner need not look again. (Units through optional chaining: see analyze.)
                let finite = nonFiniteBefore != nil && clipCounter?.totalNonFinite == nonFiniteBefore
                if let count = conditioner?.process(chunk, into: stream, knownFinite: finite).produced {
                    let samples = UnsafeBufferPointer(rebasing: stream[..<count])
                    if converter != nil, count > 0 {
                        converter?.convert(samples, into: UnsafeMutableBufferPointer(rebasing: output[produced...]))
                        produced += count
                    }
                    analyze(samples, events: events, chainEvents: chainEvents)
                }
                consumed += n
                if last { break }
            }
            inputSamplesConsumed += Int64(consumed)
            outputSamplesWritten += Int64(produced)
            publishSnapshot()
            return FrontEndResult(consumed: consumed, produced: produced, events: events.count, droppedEvents: events.droppedCount)
        }
    }

    /// Ends the stream: emits what the stages hold (a partial input frame padded with zeros, the
    /// resampler's tail up to exactly `round(N × 16000 / inputRate)` output samples, the last
    /// partial analysis frame, the last clipping window, an open speech segment's end, a last
    /// environment measurement), returns the stream's summary and resets for a new stream.
    /// - Precondition: `output.count ≥` ``maxFlushOutputCount`` when the output stage is on.
    public func flush(into output: UnsafeMutableBufferPointer<Int16>, events: FrontEndEventBuffer) -> FrontEndFlushResult {
        exclusive {
            events.removeAll()
            var produced = 0
            var summary = FrontEndSummary()
            if let conditioner {
                let scope = workspace.enter(reserving: workspaceBytes)
                defer { scope.leave() }
                let stream = scope.buffer(Float.self, count: streamCapacity)
                let chainEvents = scope.buffer(AnalysisEvent.self, count: chainEventCapacity)
                let count = conditioner.flush(into: stream)
                let samples = UnsafeBufferPointer(rebasing: stream[..<count])
                if let converter, count > 0 {
                    precondition(output.count >= count, "SpeechFrontEnd.flush: output smaller than maxFlushOutputCount")
                    converter.convert(samples, into: output)
                    produced = count
                }
                analyze(samples, events: events, chainEvents: chainEvents)
                reframer?.flush { frame, info in
                    measureFrame(frame, validCount: info.validCount, startSample: info.startSample, events: events)
                }
                if let chain {
                    report(chainEvents[..<chain.flush(into: chainEvents)], events: events)
                    let end = chain.finalize()
                    summary.detection = end.detection
                    summary.environment = end.environment
                    summary.prosody = end.prosody
                }
            }
            if let clipCounter {
                clipCounter.flush(events: events)
                summary.clippedSampleCount = clipCounter.totalClipped
                summary.nonFiniteSampleCount = clipCounter.totalNonFinite
            }
            outputSamplesWritten += Int64(produced)
            summary.inputFrameCount = (inputSamplesConsumed + Int64(channelCount) - 1) / Int64(channelCount)
            summary.outputSampleCount = outputSamplesWritten
            summary.durationSeconds = Double(summary.inputFrameCount) / Double(configuration.inputRate)
            publishSnapshot()  // the ended stream's last state, until the next stream's first call
            summary.loudness = loudness?.finalize()
            resetUnits(publishing: false)
            return FrontEndFlushResult(
                produced: produced, events: events.count, droppedEvents: events.droppedCount, summary: summary)
        }
    }

    /// Forgets the stream; the next call starts a new one. Never allocates.
    public func reset() {
        exclusive { resetUnits() }
    }

    /// The stream's state as of the end of its last ``process(_:into:events:)`` or
    /// ``flush(into:events:)`` call (after a ``reset()``, an empty one). Safe from any thread at
    /// any time, also while another thread is inside `process`: it never waits for the stream
    /// and the stream never waits for it (a sequence lock over atomics). For monitoring; the
    /// events remain the complete record.
    public func snapshot() -> FrontEndSnapshot {
        // The measurement first: the writer publishes it after the counts of the same call, so
        // the counts read next are at least as new (a measurement never lies past them).
        var environment: EnvironmentMeasurement? = nil
        publishedEnvironment.read(into: &environment)
        var progress = FrontEndProgress()
        published.read(into: &progress)
        return FrontEndSnapshot(progress, environment: environment)
    }

    // MARK: Internals

    /// Runs `body` holding the ownership flag.
    @inline(__always)
    private func exclusive<T>(_ body: () -> T) -> T {
        guard ownership.acquire() else {
            preconditionFailure("SpeechFrontEnd: overlapping calls on one instance from two threads (one stream, one caller at a time)")
        }
        defer { ownership.release() }
        return body()
    }

    private func resetUnits(publishing: Bool = true) {
        conditioner?.reset()
        converter?.reset()
        reframer?.reset()
        loudness?.reset()
        clipCounter?.reset()
        chain?.reset()
        inputSamplesConsumed = 0
        outputSamplesWritten = 0
        live = FrontEndProgress()
        latestMeasurement = nil
        if publishing {
            published.publish(live)
            publishedEnvironment.publish(nil)
        }
    }

    /// Brings the owner's snapshot up to date and publishes it (end of each call). The
    /// integrated loudness is recomputed only when the stream crossed a half-second boundary.
    private func publishSnapshot() {
        let halfSeconds = Int64(Self.outputRate / 2)
        let crossed = outputSamplesWritten / halfSeconds != live.outputSampleCount / halfSeconds
        live.inputFrameCount = (inputSamplesConsumed + Int64(channelCount) - 1) / Int64(channelCount)
        live.outputSampleCount = outputSamplesWritten
        if loudness != nil {  // (optional chaining, not `if let`: see analyze)
            live.momentaryLUFS = loudness?.momentaryLUFS ?? .nan
            live.shortTermLUFS = loudness?.shortTermLUFS ?? .nan
            if crossed || live.integratedLUFS.isNaN { live.integratedLUFS = loudness?.integratedLUFS ?? .nan }
        }
        if let clipCounter {
            live.clippedSampleCount = clipCounter.totalClipped
            live.nonFiniteSampleCount = clipCounter.totalNonFinite
        }
        published.publish(live)
        if let measurement = latestMeasurement {
            publishedEnvironment.publish(measurement)
            latestMeasurement = nil
        }
    }

    /// 16 kHz samples that `inputCount` more input samples complete.
    private func streamCount(forInputCount inputCount: Int) -> Int {
        conditioner?.maxOutputCount(forInputCount: inputCount) ?? 0
    }

    /// Levels (per 1024-sample frame) and the analysis chain over 16 kHz samples; `chainEvents`
    /// is the call's room for the chain's events.
    private func analyze(
        _ samples: UnsafeBufferPointer<Float>, events: FrontEndEventBuffer,
        chainEvents: UnsafeMutableBufferPointer<AnalysisEvent>
    ) {
        guard samples.count > 0 else { return }
        reframer?.process(samples) { frame, info in
            measureFrame(frame, validCount: info.validCount, startSample: info.startSample, events: events)
        }
        // Units are called through optional chaining, not bound with `if let`: a binding took
        // a reference count per call (an atomic write on an object header that other streams
        // may have evicted from the caches).
        if let result = chain?.process(samples, into: chainEvents) {
            assert(result.consumed == samples.count, "chainEvents is sized for a whole block")
            report(chainEvents[..<result.produced], events: events)
        }
    }

    /// The chain's events as front-end events, timed on the stream's timeline.
    private func report(_ list: Slice<UnsafeMutableBufferPointer<AnalysisEvent>>, events: FrontEndEventBuffer) {
        for event in list {
            switch event {
            case .started(let activity, let at):
                events.append(.started(activity, at: timeline.time(outputSample: at)))
                live.setActive(activity, true)
            case .ended(let activity, let at):
                events.append(.ended(activity, at: timeline.time(outputSample: at)))
                live.setActive(activity, false)
            case .environment(let m):
                events.append(.environment(m, at: timeline.time(outputSample: m.endSample)))
                latestMeasurement = m
            }
        }
    }

    /// Levels and loudness for one 1024-sample frame.
    private func measureFrame(
        _ frame: UnsafeBufferPointer<Float>, validCount: Int, startSample: Int64, events: FrontEndEventBuffer
    ) {
        let valid = UnsafeBufferPointer(rebasing: frame[..<validCount])
        loudness?.process(valid)
        let momentary = loudness?.momentaryLUFS ?? .nan
        let shortTerm = loudness?.shortTermLUFS ?? .nan
        if emitsLevels {
            let level = meter.measure(valid)
            events.append(.levels(FrameLevelReport(
                start: timeline.time(outputSample: startSample), sampleCount: validCount,
                rmsDBFS: level.rmsDBFS, peakDBFS: level.peakDBFS, momentaryLUFS: momentary, shortTermLUFS: shortTerm)))
        }
    }
}
