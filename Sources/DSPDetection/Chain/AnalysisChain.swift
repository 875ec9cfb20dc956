import DSPCore
import DSPSpectral

/// The one analysis chain: mono audio at the analysis rate (16 kHz) in; segment boundaries
/// (speech, music, several speakers) and environment measurements out, as ``AnalysisEvent``s
/// with integer sample positions.
///
/// **Chain.** ``AcousticDetector`` (64 ms frames every 16 ms hop) → ``FrameGrouper`` (hops
/// into 1024-sample ``AnalysisFrame``s) → ``EnvironmentAnalyzer`` (a measurement twice a
/// second). With the environment analyzer, ``ReverberationEstimator`` reads the samples and
/// ``ProsodyEstimator`` the detector's hops and their spectra, for the stream's summary. `SpeechFrontEnd` (live streams) and `FileScorer` (corpora) both run this object
/// on the output of `StreamConditioner`, so a stream and the same audio scored as a file give
/// the same segments and measurements, sample for sample and value for value.
///
/// **Batches.** The detector's spectral analyzer emits its hops a batch at a time
/// (`detector.analysis.framesPerBatch`, 1…4, four by default): four is the cheapest per hop,
/// one spreads the work evenly over pushes of about a hop. The batch size changes when events
/// are emitted, never what they say: segments and measurements are the same, value for value,
/// whatever the batch size (a measurement reads the reverberation estimate over the samples up
/// to the end of the frame it measures).
///
/// **Calls.** Configured once. ``process(_:into:)`` takes any number of samples and writes the
/// events they complete into a caller-owned buffer; with `events.count ≥`
/// ``maxOutputCount(forInputCount:)`` it takes them all, otherwise as many as guarantee the
/// events fit. ``flush(into:)`` ends the stream (a final partial hop and frame, open segments
/// closed at the stream's end, a last measurement); ``finalize()`` returns the summary and
/// resets; ``reset()`` forgets the stream. Never allocates after `init`; results do not depend
/// on how the input was chunked. One stream, one thread at a time.
public final class AnalysisChain: StreamAnalyzer, @unchecked Sendable {
    // @unchecked: the frame grouper and the flushed summary below are reached only holding
    // `ownership` (see StreamOwnership); the units, public, guard themselves.
    /// What the chain runs.
    public struct Configuration: Equatable, Sendable {
        /// The detector (rate, models, segmenters, which detections run). Default: 16 kHz,
        /// everything on.
        public var detector: AcousticDetector.Configuration
        /// The environment analyzer, or nil for none. Its `sampleRate` and `frameLength` are
        /// set from the detector's rate and ``frameLength``. Default: the documented defaults.
        public var environment: EnvironmentAnalyzer.Configuration?
        /// Samples per analysis frame (the environment's unit): a multiple of the detector's
        /// hop. Default 1024 (64 ms at 16 kHz).
        public var frameLength: Int

        /// Creates a configuration.
        public init(
            detector: AcousticDetector.Configuration = .init(),
            environment: EnvironmentAnalyzer.Configuration? = .init(), frameLength: Int = 1024
        ) {
            self.detector = detector
            self.environment = environment
            self.frameLength = frameLength
        }
    }

    /// A finished stream's totals.
    public struct Summary: Equatable, Sendable {
        /// Segment totals and the detector's noise-floor median.
        public var detection: DetectionSummary
        /// The environment over the stream, when the environment analyzer runs.
        public var environment: EnvironmentSummary?
        /// The stream's reverberation (RT60, C50), when the environment analyzer runs.
        public var reverberation: ReverberationEstimate? = nil
        /// The voice's pitch and speaking rate, when the environment analyzer runs.
        public var prosody: ProsodyEstimate? = nil
    }

    /// The settings, as validated (the environment's rate and frame length filled in).
    public let configuration: Configuration
    /// The detector.
    public let detector: AcousticDetector
    /// The detector's spectral analyzer, held here too: a call reads it through a stored
    /// property of its own, which takes no reference count (through `detector.analyzer` each
    /// call retained and released it: an atomic write on an object header that other streams
    /// may have evicted from the caches).
    private let analyzer: SpectralAnalyzer
    /// The environment analyzer, if configured.
    public let environment: EnvironmentAnalyzer?
    /// The blind reverberation estimate over the stream, with the environment analyzer.
    public let reverberation: ReverberationEstimator?
    /// The background-noise estimator's bands under each of the reverberation estimator's
    /// decay bands (centre ÷ 2 … centre × 2).
    private let reverberationBackgroundBands: [Range<Int>]
    /// F0 median and spread over voiced speech and the speaking rate, from the detector's hops
    /// and spectra, with the environment analyzer.
    public let prosody: ProsodyEstimator?
    /// An empty estimate list (allocated after every check in `init`: an `init` that throws
    /// frees nothing, so nothing may be allocated before its last check).
    private let noEstimates: UnsafeMutableBufferPointer<ReverberationEstimate>
    /// The reverberation estimate at the end of each frame the environment analyzer will measure
    /// whose hops the detector has not emitted yet (they wait for the rest of their batch), in
    /// stream order: `pendingEnds[i]` is where `pendingEstimates[i]` was read. At most
    /// `⌊(framesPerBatch × hop − 1) / frameLength⌋ + 1` (one at the front end's sizes).
    private let pendingEstimates: UnsafeMutableBufferPointer<ReverberationEstimate>
    private let pendingEnds: UnsafeMutableBufferPointer<Int64>
    private var pendingCount = 0
    /// Samples given to the reverberation estimator this stream.
    private var position: Int64 = 0
    /// The end of the next frame the environment analyzer will measure (``measuredFrameEnd(after:)``).
    private var nextMeasuredEnd: Int64 = 0
    /// The analysis rate, Hz.
    public let sampleRate: Int
    /// Unchecked exclusivity: reached only holding the stream's ownership flag, so the run-time
    /// check of each hop's `grouper.add` (a call into the Swift runtime) proves nothing more.
    @exclusivity(unchecked) private var grouper: FrameGrouper
    /// A flushed stream's summary, until ``finalize()``.
    private var flushed: Summary?
    /// Room for the environment's last measurement at flush.
    private let lastMeasurement: UnsafeMutableBufferPointer<EnvironmentMeasurement>
    private let ownership = StreamOwnership()
    /// The process's workspace key (``/DSPCore/ScratchWorkspace``).
    private let workspace = ScratchWorkspace()
    /// Bytes a call takes from the calling thread's workspace: the detector's and the
    /// reverberation estimator's per-call buffers, reserved at the start of every call.
    private let workspaceBytes: Int

    /// Allocates the calling thread's scratch workspace for this chain's calls now, if it
    /// does not hold enough yet, so that the first call on this thread allocates nothing (a
    /// thread's workspace is otherwise allocated by its first call: ``/DSPCore/MemoryFootprint/workspaceBytes``).
    /// Call it once on each worker thread at start-up where even that first allocation matters.
    /// Never needed for correctness; safe on any thread.
    public func reserveWorkspace() {
        workspace.enter(reserving: workspaceBytes).leave()
    }

    /// Takes the ownership flag; two overlapping calls stop the program.
    @inline(__always)
    private func enter() {
        if !ownership.acquire() { preconditionFailure("AnalysisChain: overlapping calls from two threads (one stream, one caller at a time)") }
    }

    /// At most this many events per hop: a transition of each of the three activities and
    /// one measurement.
    public static let eventsPerHop = 4

    /// Validates `configuration` and allocates everything (FFT plans included).
    public init(configuration: Configuration = Configuration()) throws(ConfigurationError) {
        var configuration = configuration
        let rate = configuration.detector.analysis.sampleRate
        guard rate.rounded() == rate, rate >= 1, rate <= 1_000_000 else {
            throw ConfigurationError(parameter: "detector.analysis.sampleRate", value: "\(rate)", expected: "a whole number of Hz")
        }
        sampleRate = Int(rate)
        detector = try AcousticDetector(configuration: configuration.detector)
        analyzer = detector.analyzer
        grouper = try FrameGrouper(frameLength: configuration.frameLength, hopLength: detector.analyzer.hopLength)
        if var environment = configuration.environment {
            environment.sampleRate = sampleRate
            environment.frameLength = configuration.frameLength
            configuration.environment = environment
            self.environment = try EnvironmentAnalyzer(configuration: environment)
            let reverberation = try ReverberationEstimator(configuration: .init(sampleRate: sampleRate))
            self.reverberation = reverberation
            let analysis = configuration.detector.analysis
            let binHz = analysis.sampleRate / Double(analysis.windowLength)
            let noiseLevel = detector.noiseLevel
            reverberationBackgroundBands = reverberation.bandCentersHz.map { centre in
                noiseLevel.bands(centeredIn: (centre / 2 / binHz)..<(centre * 2 / binHz))
            }
            prosody = try ProsodyEstimator(configuration: .init(
                sampleRate: sampleRate, windowLength: analysis.windowLength, hopLength: analysis.hopLength,
                activeSpeechProbability: configuration.detector.speechSegments.offThreshold))
            let held = detector.analyzer.framesPerBatch * detector.analyzer.hopLength
            let pending = (held - 1) / configuration.frameLength + 1
            pendingEstimates = .allocate(capacity: pending)
            pendingEstimates.initialize(repeating: .empty)
            pendingEnds = .allocate(capacity: pending)
            pendingEnds.initialize(repeating: 0)
        } else {
            environment = nil
            reverberation = nil
            reverberationBackgroundBands = []
            prosody = nil
            pendingEstimates = .allocate(capacity: 0)
            pendingEnds = .allocate(capacity: 0)
        }
        noEstimates = .allocate(capacity: 0)
        lastMeasurement = .allocate(capacity: 1)
        self.configuration = configuration
        workspaceBytes = detector.workspaceBytes + (reverberation?.memoryFootprint.workspaceBytes ?? 0)
        nextMeasuredEnd = measuredFrameEnd(after: 0)
    }

    deinit {
        lastMeasurement.deallocate()
        noEstimates.deallocate()
        pendingEstimates.deallocate()
        pendingEnds.deallocate()
    }

    /// Latency of the per-hop results, samples: the detector's (hops are analysed a batch at a
    /// time, so up to `framesPerBatch` hops: four by default). Segment starts are back-dated;
    /// segment ends come a hangover after the activity stops.
    public var outputDelay: Int { detector.outputDelay }

    /// The most events a ``process(_:into:)`` call with `inputCount` samples writes in the
    /// current state: ``eventsPerHop`` per hop the detector emits.
    public func maxOutputCount(forInputCount inputCount: Int) -> Int {
        Self.eventsPerHop * detector.maxOutputCount(forInputCount: inputCount)
    }

    /// An event capacity enough for any call with up to `inputCount` samples in any state, for
    /// sizing buffers once: ``eventsPerHop`` × (⌊inputCount / hop⌋ + `framesPerBatch`).
    public func outputCapacity(forInputCount inputCount: Int) -> Int {
        Self.eventsPerHop * detector.outputCapacity(forInputCount: inputCount)
    }

    /// The most events ``flush(into:)`` writes: ``eventsPerHop`` for each hop the detector
    /// still holds (up to `framesPerBatch`: four by default), the last partial frame's
    /// measurement, the closing of open segments (3) and the environment's last measurement.
    public var maxFlushOutputCount: Int { Self.eventsPerHop * detector.maxFlushOutputCount + 5 }

    /// Analyses `input` and writes the events it completes into `events` from its start.
    /// Takes all of `input` when `events` holds ``maxOutputCount(forInputCount:)``, otherwise
    /// only the samples whose events are sure to fit (hops go a batch at a time, so a buffer of
    /// fewer than `framesPerBatch` × ``eventsPerHop`` events may take nothing once a batch is
    /// due). Never allocates.
    public func process(
        _ input: UnsafeBufferPointer<Float>, into events: UnsafeMutableBufferPointer<AnalysisEvent>
    ) -> ProcessResult {
        enter(); defer { ownership.release() }
        let take = analyzer.acceptedCount(input.count, room: events.count / Self.eventsPerHop)
        guard take > 0 else { return ProcessResult(consumed: 0, produced: 0) }
        let scope = workspace.enter(reserving: workspaceBytes)
        defer { scope.leave() }
        var writer = EventWriter(events)
        // Reverberation and prosody run together (with the environment analyzer) or not at all.
        // (The units are read through `self` below, not bound to locals: a binding held over
        // the loop and its closure took a reference count each call.)
        guard reverberation != nil, prosody != nil else {
            detector.process(UnsafeBufferPointer(rebasing: input[..<take])) { hop in handle(hop, &writer) }
            return ProcessResult(consumed: take, produced: writer.count)
        }
        // The detector emits hops when a batch of them completes, at fixed stream positions: cut
        // the input there and let the reverberation estimator see each piece first. A frame the
        // environment will measure reads the estimate over the samples up to its end, however
        // the stream was chunked and whatever the batch size: the input is cut at that end too,
        // and the estimate kept there until the detector emits the frame's last hop (at once
        // when its batch ends with the frame, as batches of 1, 2 or 4 hops do at the front end's
        // 1024-sample frames). The prosody estimator reads each hop with the spectrum the
        // detector computed for it.
        var start = 0
        while start < take {
            var end = Swift.min(take, start + analyzer.acceptedCount(take - start, room: 0) + 1)
            if nextMeasuredEnd - position < Int64(end - start) { end = start + Int(nextMeasuredEnd - position) }
            let piece = UnsafeBufferPointer(rebasing: input[start..<end])
            _ = self.reverberation?.process(piece, into: noEstimates)
            position += Int64(piece.count)
            if position == nextMeasuredEnd {
                precondition(pendingCount < pendingEnds.count, "AnalysisChain: more pending measurements than a batch holds")
                if let reverberation { pendingEstimates[pendingCount] = reverberation.estimate }
                pendingEnds[pendingCount] = position
                pendingCount += 1
                nextMeasuredEnd = measuredFrameEnd(after: position)
            }
            detector.process(piece, lendingSpectra: { hop, frame in
                handle(hop, &writer)
                self.prosody?.add(hop, powerSpectrum: frame.powerSpectrum)
            })
            start = end
        }
        return ProcessResult(consumed: take, produced: writer.count)
    }

    /// Ends the stream: analyses a final partial hop, closes the last (partial) frame and any
    /// open segment at the end of the stream, and writes the last measurement. The chain is then
    /// ready for a new stream, as after ``reset()``; the ended stream's summary is kept for
    /// ``finalize()`` until the next stream's first hop.
    /// - Precondition: `events.count ≥` ``maxFlushOutputCount``.
    public func flush(into events: UnsafeMutableBufferPointer<AnalysisEvent>) -> Int {
        enter(); defer { ownership.release() }
        return drain(into: events)
    }

    /// ``flush(into:)`` for a caller holding the flag.
    private func drain(into events: UnsafeMutableBufferPointer<AnalysisEvent>) -> Int {
        precondition(events.count >= maxFlushOutputCount, "AnalysisChain.flush: events smaller than maxFlushOutputCount")
        let scope = workspace.enter(reserving: workspaceBytes)
        defer { scope.leave() }
        var writer = EventWriter(events)
        let end = detector.flush(lendingSpectra: { hop, frame in
            handle(hop, &writer)
            prosody?.add(hop, powerSpectrum: frame.powerSpectrum)
        })
        if var frame = grouper.close() {
            frame.backgroundNoiseDBFS = Double(end.backgroundNoiseDBFS)
            frame.reverberation = reverberation?.estimate
            measure(frame, &writer)
        }
        if let t = end.speechEndedAt { writer.append(.ended(.speech, at: t)) }
        if let t = end.musicEndedAt { writer.append(.ended(.music, at: t)) }
        if let t = end.multiSpeakerEndedAt { writer.append(.ended(.multipleSpeakers, at: t)) }
        if let environment, environment.flush(into: lastMeasurement) == 1 { writer.append(.environment(lastMeasurement[0])) }
        _ = reverberation?.flush(into: noEstimates)
        let summary = Summary(
            detection: end.summary, environment: environment?.finalize(), reverberation: reverberation?.finalize(),
            prosody: prosody?.finalize())
        resetStream()
        flushed = summary
        return writer.count
    }

    /// The stream's summary (flushing first, its events discarded, if ``flush(into:)`` was not
    /// called); the chain is left as after ``reset()``.
    public func finalize() -> Summary {
        enter(); defer { ownership.release() }
        if flushed == nil {
            let scratch = UnsafeMutableBufferPointer<AnalysisEvent>.allocate(capacity: maxFlushOutputCount)
            defer { scratch.deallocate() }
            _ = drain(into: scratch)
        }
        let summary = flushed ?? Summary(detection: DetectionSummary(), environment: nil)
        flushed = nil
        return summary
    }

    /// Forgets the stream. Never allocates.
    public func reset() {
        enter(); defer { ownership.release() }
        resetStream()
    }

    private func resetStream() {
        detector.reset()
        grouper.reset()
        environment?.reset()
        reverberation?.reset()
        prosody?.reset()
        flushed = nil
        position = 0
        pendingCount = 0
        nextMeasuredEnd = measuredFrameEnd(after: 0)
    }

    /// The end of the first frame ending after stream position `p` that the environment analyzer
    /// will measure: frames end at multiples of the frame length `L`, and the analyzer measures
    /// the frame that reaches each multiple of its update interval `P`, i.e. the frame ending at
    /// `⌈m / L⌉ · L` for each multiple `m > 0` of `P` (``EnvironmentAnalyzer/measures(after:)``).
    /// `Int64.max` without an environment analyzer.
    private func measuredFrameEnd(after p: Int64) -> Int64 {
        guard let environment else { return .max }
        let length = Int64(configuration.frameLength), interval = environment.updateIntervalSamples
        let last = p / interval * interval
        if last > 0 {
            let end = (last + length - 1) / length * length
            if end > p { return end }
        }
        return (last + interval + length - 1) / length * length
    }

    /// The reverberation estimate kept at `end` (``process(_:into:)``), if any; forgets it and
    /// any kept before it.
    private func takePendingEstimate(endingAt end: Int64) -> ReverberationEstimate? {
        var found: ReverberationEstimate?
        var used = 0
        while used < pendingCount, pendingEnds[used] <= end {
            if pendingEnds[used] == end { found = pendingEstimates[used] }
            used += 1
        }
        if used > 0 {
            for i in used..<pendingCount {
                pendingEnds[i - used] = pendingEnds[i]
                pendingEstimates[i - used] = pendingEstimates[i]
            }
            pendingCount -= used
        }
        return found
    }

    // MARK: Internals

    private func handle(_ hop: DetectionFrame, _ writer: inout EventWriter) {
        flushed = nil
        Self.transition(hop.speechChange, .speech, &writer)
        Self.transition(hop.musicChange, .music, &writer)
        Self.transition(hop.multiSpeakerChange, .multipleSpeakers, &writer)
        if var frame = grouper.add(hop) {
            // The background estimate costs a few thousand operations: made where it is used.
            if let environment, environment.measures(after: frame) {
                frame.backgroundNoiseDBFS = Double(detector.takeNoiseReading())   // also the summary's
                if let reverberation {
                    // The decays' floor: the background estimate, which holds a long room's
                    // field out, summed over each decay band; none (under music): the
                    // estimator's own floor alone. From the largest batch's hops after the
                    // frame's end: the estimator has read at most that far ahead of it, whatever
                    // the batch, so the floor moves at the same sample for every batch size.
                    let from = frame.endSample + Int64(SpectralAnalyzer.maximumFramesPerBatch * detector.analyzer.hopLength)
                    for b in 0..<reverberationBackgroundBands.count {
                        let power = detector.noiseLevel.backgroundPower(bands: reverberationBackgroundBands[b])
                        let level = power.map { $0 > 0 ? Float(Decibels.fromPower(Double($0))) : -.infinity } ?? .infinity
                        reverberation.setBackground(level, band: b, from: from)
                    }
                }
                frame.reverberation = takePendingEstimate(endingAt: frame.endSample) ?? reverberation?.estimate
            }
            measure(frame, &writer)
        }
    }

    private func measure(_ frame: AnalysisFrame, _ writer: inout EventWriter) {
        if let environment, let m = environment.add(frame) { writer.append(.environment(m)) }
    }

    @inline(__always)
    private static func transition(_ change: ActivitySegmenter.Transition, _ activity: Activity, _ writer: inout EventWriter) {
        switch change {
        case .none: break
        case .started(let at): writer.append(.started(activity, at: at))
        case .ended(let at): writer.append(.ended(activity, at: at))
        }
    }

    /// Appends into a caller's buffer whose room was checked beforehand.
    private struct EventWriter {
        let buffer: UnsafeMutableBufferPointer<AnalysisEvent>
        var count = 0

        init(_ buffer: UnsafeMutableBufferPointer<AnalysisEvent>) { self.buffer = buffer }

        mutating func append(_ event: AnalysisEvent) {
            precondition(count < buffer.count, "AnalysisChain: event buffer smaller than its bound")
            (buffer.baseAddress! + count).initialize(to: event)
            count += 1
        }
    }
}

extension AnalysisChain: MemoryAccounting {
    /// The detector, the environment analyzer, the reverberation and prosody estimators, the
    /// room for a last measurement and the estimates kept for pending measurements (the frame
    /// grouper is a stored value).
    public var memoryFootprint: MemoryFootprint {
        detector.memoryFootprint + (environment?.memoryFootprint ?? MemoryFootprint())
            + (reverberation?.memoryFootprint ?? MemoryFootprint())
            + (prosody?.memoryFootprint ?? MemoryFootprint())
            + MemoryFootprint.owned(MemoryFootprint.bytes(Range<Int>.self, reverberationBackgroundBands.count))
            + .owned(MemoryFootprint.bytes(lastMeasurement) + MemoryFootprint.bytes(pendingEstimates)
                + MemoryFootprint.bytes(pendingEnds))
    }
}
