// Streaming polyphase FIR resampler for rational ratios L/M: the public type, its state and
// the cascade of stages (the stages' code is in Resampler+*Stage.swift).

/// Converts interleaved Float audio between two integer sample rates by an exact rational
/// ratio, streaming, without allocating after construction.
///
/// The ratio `outputRate / inputRate` is reduced to L/M. A linear-phase prototype low-pass
/// (equiripple, see ``DesignMethod`` and ``Quality``) at the rate L × `inputRate` is split into
/// L phases;
/// output frame m is the dot product of phase `(m·M + t₀) mod L` with the input frames ending at
/// `⌊(m·M + t₀) / L⌋`. The phase is an integer pair (frame, phase) advanced by M per output:
/// no floating-point time, no drift. t₀ shifts the output grid so the delay is a whole number
/// of output samples (``outputDelay``), which makes ``trimsLeadingDelay`` exact.
///
/// Downsampling by 2.5 or more runs in two stages (``intermediateRate``): 48, 88.2 and 96 →
/// 16 kHz first halve the rate with a half-band filter (``halfBandLength``); 44.1 → 16 kHz
/// first resamples to 24 kHz with a short wide-transition polyphase filter,
/// then 24 → 16 kHz with the sharp one. The reported delay is the exact total.
///
/// - Interleaved multichannel: every channel uses the same filter.
/// - Input counts need not be whole frames: a trailing partial frame is carried to the next
///   call; ``flush(into:)`` completes a still-partial frame with zeros.
/// - Non-finite input is not an error and is not dropped: a NaN or ±∞ sample makes exactly the
///   outputs whose filter windows hold it NaN or ±∞, whatever the chunking; every other output
///   is what a finite input would give (see `docs/resampling.md`).
/// - Output is bit-identical however the input is chunked. The dot products run in a C kernel
///   dispatched at load time to the CPU's widest unit (AVX-512F, AVX+FMA or SSE2 on x86-64);
///   its summation order is fixed, so results never vary between runs on one machine, but may
///   differ in the last bits between CPUs (fused vs separate multiply-add).
///
/// ```swift
/// let resampler = try Resampler(inputRate: 48_000, outputRate: 16_000)
/// let produced = resampler.process(input, into: output).produced
/// ```
public final class Resampler: StreamingProcessor, @unchecked Sendable {
    // @unchecked: the history, carry and phase below are reached only holding `ownership` (see
    // StreamOwnership); a first stage is this object's alone.
    /// Input element: Float32 samples, nominal full scale ±1.
    public typealias InputSample = Float
    /// Output element: Float32 samples, nominal full scale ±1.
    public typealias OutputSample = Float

    /// The settings, as validated.
    public let configuration: Configuration
    /// Input sample rate, in Hz.
    public let inputRate: Int
    /// Output sample rate, in Hz.
    public let outputRate: Int
    /// Interleaved channels per frame.
    public let channelCount: Int
    /// The filter preset.
    public let quality: Quality
    /// Whether the leading ``outputDelay`` frames are dropped and ``flush(into:)`` pads the
    /// stream to exactly `round(N × outputRate / inputRate)` frames for N input frames.
    public let trimsLeadingDelay: Bool
    /// L, the reduced numerator of `outputRate / inputRate` (the number of filter phases of a
    /// single-stage resampler; with a half-band first stage the polyphase stage has its own).
    public let interpolationFactor: Int
    /// M, the reduced denominator of `outputRate / inputRate`.
    public let decimationFactor: Int
    /// Length of the polyphase stage's prototype filter, in taps at L × its input rate
    /// (``inputRate``, or half of it after a half-band stage).
    public let filterLength: Int
    /// Taps the polyphase stage evaluates per output sample (per channel), zero padding
    /// included (the half-band stage adds 2K + 1 per half-rate sample).
    public let tapsPerPhase: Int
    /// How the prototype filter was designed (equiripple for every common rate pair).
    public let designMethod: DesignMethod
    /// Length of the half-band first stage in input-rate taps (4K − 1), or 0 without one.
    /// 48, 88.2 and 96 → 16 kHz run in two stages: this half-band decimates by two, then the
    /// polyphase stage (``filterLength``, ``tapsPerPhase``) resamples from `inputRate / 2`.
    public let halfBandLength: Int
    /// The rate between the two stages of a two-stage resampler, in Hz: `inputRate / 2` after
    /// a half-band, 24 000 for 44.1 → 16 kHz (a polyphase first stage);
    /// nil for one stage. ``filterLength``, ``tapsPerPhase`` and ``designMethod`` describe the
    /// stage from this rate to ``outputRate``.
    public let intermediateRate: Int?
    /// The polyphase first stage (`inputRate → intermediateRate`, its own design, no trimming),
    /// when there is one. Internal: it is driven by this resampler only.
    let firstStage: Resampler?
    /// ``firstStage`` as an unretained pointer, for the processing path: testing and calling it
    /// there copies no reference (a retain/release the allocation checker counts as a possible
    /// deallocation). ``firstStage`` owns the object.
    let firstStagePointer: UnsafeMutableRawPointer?
    let ownership = StreamOwnership()

    /// Takes the ownership flag; two overlapping calls stop the program.
    @inline(__always)
    func enter() {
        if !ownership.acquire() { preconditionFailure("Resampler: overlapping calls from two threads (one stream, one caller at a time)") }
    }

    /// Latency from input to output, in output frames: output frame `outputDelay` is the
    /// input's time zero. Exact — the output grid is offset so that the delay is whole.
    /// Zero when ``trimsLeadingDelay`` is true (the leading frames are dropped).
    public var outputDelay: Int { trimsLeadingDelay ? 0 : delayFrames }

    /// ``outputDelay`` in seconds: `outputDelay / outputRate`.
    public var outputDelaySeconds: Double { Double(outputDelay) / Double(outputRate) }

    /// The filter's group delay in seconds, `(K − 1) / 2 / (L × inputRate)` for one stage;
    /// with a first stage the sum of both stages' delays (after a half-band, `(2K_h − 1) /
    /// inputRate + (K − 1) / 2 / (L₂ × inputRate / 2)`) — the algorithmic latency of a real-time stream,
    /// independent of ``trimsLeadingDelay``. At most one output period above the untrimmed
    /// ``outputDelaySeconds``.
    public var groupDelaySeconds: Double {
        let stage = Double(layout.prototypeDelay) / Double(layout.phaseCount) / Double(stageRate)
        if let firstStage { return firstStage.groupDelaySeconds + stage }
        return stage + (halfBandTaps > 0 ? Double(halfBandTaps - 1) / 2 / Double(stageRate) : 0)
    }

    // MARK: Fixed design

    let layout: PolyphaseLayout
    /// Input rate of the polyphase stage: ``inputRate``, or half of it after the half-band.
    let stageRate: Int
    /// Whole-output-sample delay d = ⌊D / M⌋.
    let delayFrames: Int
    /// Grid offset t₀ = D − d·M, in prototype samples.
    let gridOffset: Int
    /// ⌊M / L⌋ and M mod L: the per-output advance of (frame, phase).
    let frameStep: Int
    let phaseStep: Int
    /// (M mod L)⁻¹ mod L: phase p is stored in bank row `p × slotStep mod L`, so consecutive
    /// outputs (phase + M mod L) read consecutive rows.
    let slotStep: Int
    /// L, M and the channel count as divisors for the per-push arithmetic (shifts where they
    /// are powers of two).
    let phaseDivisor: FixedDivisor
    let stepDivisor: FixedDivisor
    let channelDivisor: FixedDivisor
    /// Whether the polyphase stage uses the across-outputs kernel for small ratios (L ≤ 4,
    /// M ≤ 8: 48 → 16 kHz's 24 → 16 stage, 32 → 16, 8 → 16, 16 → 48 kHz …).
    let usesSmallKernel: Bool
    /// The staggered-groups tables, when the stage uses that kernel (large L, a multiple of 8:
    /// 44.1 → 24 kHz, 22.05 → 16 kHz, 11.025 → 16 kHz …).
    let staggered: StaggeredBank?
    /// Interleaved scratch for a polyphase first stage's output when there are several
    /// channels (channelCount × historyCapacity floats; one float otherwise).
    let firstStageScratch: UnsafeMutablePointer<Float>
    /// Frames per channel in the history buffer: T − 1 kept frames + a block of new ones.
    let historyCapacity: Int
    /// The stage's immutable coefficient tables, shared by every resampler with the same
    /// design (``ResamplerTables``); ``bank``, ``staggered`` and ``halfBandCoefficients`` point
    /// into them.
    let tables: ResamplerTables
    /// The shared design this resampler was built from (``ResamplerPlan``), held so that
    /// resamplers built while this one lives reuse it; nil for a first stage (its parent holds
    /// the plan).
    let plan: ResamplerPlan?
    /// Phase rows, L × T floats (``tables``).
    let bank: UnsafeMutablePointer<Float>
    /// Planar history, channelCount × historyCapacity floats.
    let history: UnsafeMutablePointer<Float>
    /// The partial interleaved frame carried between calls, channelCount floats.
    let carry: UnsafeMutablePointer<Float>
    /// 2K: taps of the half-band's FIR over the odd input frames (0: single stage).
    let halfBandTaps: Int
    /// Bytes this instance allocated in `init` (the first stage and the shared tables apart).
    let allocatedBytes: Int
    /// Those 2K taps (oldest frame first), Float32; one unused float when single-stage
    /// (``tables``).
    let halfBandCoefficients: UnsafeMutablePointer<Float>
    /// Pairs of input frames per channel in the half-band history.
    let halfBandCapacity: Int
    /// Planar half-band history: channel c's even frames at `c × 2 × (halfBandCapacity + 16)`,
    /// its odd frames `halfBandCapacity + 16` further (16 floats of slack each for the
    /// kernel's last vector).
    let halfBandHistory: UnsafeMutablePointer<Float>

    // MARK: Stream state

    /// History frames written (per channel); the next frame goes to this index.
    var writeIndex = 0
    /// History index of the newest frame the next output reads.
    var nextFrame = 0
    /// Phase (row) of the next output, 0..<L.
    var nextPhase = 0
    /// Leading outputs still to drop (trimsLeadingDelay).
    var skipRemaining = 0
    /// Samples held in ``carry``.
    var carryCount = 0
    /// Whole input frames taken in this stream.
    var streamFrames = 0
    /// Output frames written in this stream.
    var streamOutputFrames = 0
    /// Half-band: the pair (even, odd input frame) the next input frame goes into.
    var pairIndex = 0
    /// Half-band: 1 when that pair already holds its even frame, else 0.
    var pendingEven = 0
    /// Half-band outputs (polyphase-stage frames) in this stream.
    var stageFrames = 0

    /// Creates a resampler, designing its filter bank.
    ///
    /// - Parameters:
    ///   - inputRate: Input sample rate in Hz, an integer in 1000...768000.
    ///   - outputRate: Output sample rate in Hz, an integer in 1000...768000. The reduced ratio
    ///     `outputRate / inputRate = L / M` must have L ≤ ``maximumPhaseCount`` and a bank of at
    ///     most ``maximumCoefficientCount`` coefficients (true of all common audio rates).
    ///   - channelCount: Interleaved channels, 1...64. Default 1.
    ///   - quality: Filter preset. Default ``Quality/default``.
    ///   - trimsLeadingDelay: Drop the leading delay and make process + flush emit exactly
    ///     `round(N × outputRate / inputRate)` frames for N input frames. Default false.
    /// - Throws: ``ConfigurationError`` quoting the first invalid value.
    public convenience init(
        inputRate: Int, outputRate: Int, channelCount: Int = 1,
        quality: Quality = .default, trimsLeadingDelay: Bool = false
    ) throws(ConfigurationError) {
        try self.init(configuration: Configuration(
            inputRate: inputRate, outputRate: outputRate, channelCount: channelCount, quality: quality,
            trimsLeadingDelay: trimsLeadingDelay))
    }

    /// Validates `configuration` and designs the filter bank — or takes the design of a
    /// resampler with the same rates and quality that is still alive (the internal, shared
    /// `ResamplerPlan`; the same bits either way).
    /// - Throws: ``ConfigurationError`` quoting the first invalid value (see
    ///   ``Configuration/validate()``), or a ratio whose bank would exceed
    ///   ``maximumCoefficientCount`` coefficients.
    public convenience init(configuration: Configuration) throws(ConfigurationError) {
        try self.init(configuration: configuration, historyBlockFrames: Self.defaultHistoryBlockFrames)
    }

    /// ``init(configuration:)`` with histories of `historyBlockFrames` new frames per stage
    /// (see ``defaultHistoryBlockFrames``; ``StreamConditioner`` uses smaller ones).
    /// The design is the shared ``ResamplerPlan`` of the configuration's rates and quality.
    convenience init(configuration: Configuration, historyBlockFrames: Int) throws(ConfigurationError) {
        let plan = try ResamplerPlan.shared(for: configuration)
        self.init(configuration: configuration, layout: plan.layout, first: plan.first, historyBlockFrames: historyBlockFrames, plan: plan)
    }

    /// History frames per channel beyond the filter's T − 1 (``historyCapacity`` = T − 1 +
    /// `max(B, T)`): a standalone resampler's block. Pushes of up to B/2 frames are never cut
    /// in two kernel calls.
    static let defaultHistoryBlockFrames = 4096

    /// Builds a validated plan (``validatedLayout(_:)``) whose histories take blocks of
    /// `historyBlockFrames` frames (B, see ``defaultHistoryBlockFrames``). Outputs do not
    /// depend on B (nor on chunking): a smaller one only compacts the histories more often.
    /// `isFirstStage` marks a polyphase first stage, whose tables have their own key; `plan` is
    /// the shared plan `layout` and `first` come from, held by the resampler.
    init(
        configuration: Configuration, layout: PolyphaseLayout, first: FirstStage,
        historyBlockFrames: Int = Resampler.defaultHistoryBlockFrames, isFirstStage: Bool = false,
        plan: ResamplerPlan? = nil
    ) {
        self.plan = plan
        let inputRate = configuration.inputRate
        let outputRate = configuration.outputRate
        let channelCount = configuration.channelCount
        let quality = configuration.quality
        var halfBand: HalfBandDesign? = nil
        var firstStage: Resampler? = nil
        var stageRate = inputRate
        switch first {
        case .none:
            break
        case let .halfBand(design):
            halfBand = design
            stageRate = inputRate / 2
        case let .polyphase(rate, firstLayout):
            firstStage = Resampler(
                configuration: Configuration(
                    inputRate: inputRate, outputRate: rate, channelCount: channelCount, quality: quality),
                layout: firstLayout, first: .none, historyBlockFrames: historyBlockFrames, isFirstStage: true)
            stageRate = rate
        }
        self.firstStage = firstStage
        firstStagePointer = firstStage.map { Unmanaged.passUnretained($0).toOpaque() }
        intermediateRate = halfBand == nil && firstStage == nil ? nil : stageRate
        self.configuration = configuration
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channelCount = channelCount
        self.quality = quality
        trimsLeadingDelay = configuration.trimsLeadingDelay
        var stored = layout
        stored.designTaps = []
        self.layout = stored
        let divisor = Self.greatestCommonDivisor(inputRate, outputRate)
        interpolationFactor = outputRate / divisor
        decimationFactor = inputRate / divisor
        filterLength = layout.prototypeLength
        tapsPerPhase = layout.tapsPerPhase
        designMethod = layout.method
        self.stageRate = stageRate
        // Total delay in polyphase-prototype samples: the half-band's output n is the input at
        // time 2(n − (K − 1)), a whole K − 1 frames of the polyphase stage, i.e. (K − 1)·L₂
        // prototype samples; a polyphase first stage delays by a whole number of its output
        // frames too (its own grid offset). The output grid offset makes the sum a whole
        // number of outputs.
        let firstDelay = firstStage?.delayFrames ?? ((halfBand?.pairCount ?? 1) - 1)
        let totalDelay = layout.prototypeDelay + firstDelay * layout.phaseCount
        delayFrames = totalDelay / layout.step
        gridOffset = totalDelay - delayFrames * layout.step
        frameStep = layout.step / layout.phaseCount
        phaseStep = layout.step % layout.phaseCount
        let slotStep = Self.modularInverse(layout.step % layout.phaseCount, modulo: layout.phaseCount)
        self.slotStep = slotStep
        usesSmallKernel = layout.acrossOutputs
        phaseDivisor = FixedDivisor(layout.phaseCount)
        stepDivisor = FixedDivisor(layout.step)
        channelDivisor = FixedDivisor(channelCount)
        historyCapacity = layout.tapsPerPhase - 1 + Swift.max(historyBlockFrames, layout.tapsPerPhase)
        let key = ResamplerTables.Key(inputRate: inputRate, outputRate: outputRate, quality: quality, isFirstStage: isFirstStage)
        tables = ResamplerTables.cache.table(for: key) {
            ResamplerTables(layout: layout, stageRate: stageRate, rowStep: slotStep, halfBandTaps: halfBand?.oddTaps ?? [])
        }
        bank = tables.bank
        staggered = tables.staggered
        let scratchFloats = firstStage != nil && channelCount > 1 ? channelCount * historyCapacity : 1
        firstStageScratch = .allocate(capacity: scratchFloats)
        firstStageScratch.initialize(repeating: 0, count: scratchFloats)
        history = .allocate(capacity: channelCount * historyCapacity)
        history.initialize(repeating: 0, count: channelCount * historyCapacity)
        carry = .allocate(capacity: channelCount)
        carry.initialize(repeating: 0, count: channelCount)
        let oddTaps = halfBand?.oddTaps ?? []
        halfBandTaps = oddTaps.count
        halfBandLength = halfBand?.length ?? 0
        halfBandCoefficients = tables.halfBandCoefficients
        // Room for the kept pairs, a whole polyphase block of new ones and a partial pair.
        halfBandCapacity = oddTaps.isEmpty ? 0 : oddTaps.count - 1 + historyCapacity - (layout.tapsPerPhase - 1) + 2
        let halfBandFloats = Swift.max(1, channelCount * 2 * (halfBandCapacity + 16))
        halfBandHistory = .allocate(capacity: halfBandFloats)
        halfBandHistory.initialize(repeating: 0, count: halfBandFloats)
        allocatedBytes = MemoryFootprint.bytes(Float.self, scratchFloats + channelCount * historyCapacity + channelCount + halfBandFloats)
        reset()
    }

    deinit {
        history.deallocate()
        carry.deallocate()
        halfBandHistory.deallocate()
        firstStageScratch.deallocate()
    }

    // MARK: StreamingProcessor

    /// The exact number of samples the next ``process(_:into:)`` call writes for `inputCount`
    /// input samples (given a large enough buffer): a multiple of ``channelCount``. It depends
    /// on the carried phase: 1024 samples at 48 → 16 kHz give 341 or 342.
    #if !DEBUG  // enforced by the optimizer's performance checks; debug builds cannot see through calls
    @_noAllocation
    #endif
    public func maxOutputCount(forInputCount inputCount: Int) -> Int {
        enter(); defer { ownership.release() }
        // Counts beyond 2⁴⁰ samples (over 8 months of mono 48 kHz audio) are clamped, so the
        // arithmetic cannot overflow.
        let frames = (carryCount + Swift.min(Swift.max(0, inputCount), 1 << 40)) / channelCount
        return Swift.max(0, dueOutputs(afterFrames: stageFrameCount(frames)) - skipRemaining) * channelCount
    }

    /// Resamples `input` (interleaved, any count) into `output` from its start.
    ///
    /// Takes every input sample when `output` holds ``maxOutputCount(forInputCount:)``
    /// samples; otherwise takes whole frames only as far as their output fits (one input frame
    /// can yield up to ⌈L/M⌉ output frames, so a buffer smaller than that may make no
    /// progress). A trailing partial frame is kept for the next call. Never allocates.
    #if !DEBUG  // enforced by the optimizer's performance checks; debug builds cannot see through calls
    @_noAllocation
    #endif
    public func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>
    ) -> ProcessResult {
        enter(); defer { ownership.release() }
        guard let source = input.baseAddress, input.count > 0 else { return ProcessResult(consumed: 0, produced: 0) }
        let channels = channelCount
        let capacityFrames = channelDivisor.quotient(output.count)
        let scratch = carry
        let destination = output.baseAddress ?? scratch  // never written through when capacity is 0
        var consumed = 0
        var written = 0
        if carryCount > 0 {
            let needed = channels - carryCount
            if input.count < needed {
                for i in 0..<input.count { carry[carryCount + i] = source[i] }
                carryCount += input.count
                return ProcessResult(consumed: input.count, produced: 0)
            }
            guard allowedFrames(outputCapacity: capacityFrames) >= 1 else {
                return ProcessResult(consumed: 0, produced: 0)
            }
            PolyphaseKernel.copy(carry + carryCount, source, needed)
            carryCount = 0
            consumed = needed
            makeRoom()
            written = push(carry, frameCount: 1, into: destination, limit: Int.max)
        }
        var framesLeft = channelDivisor.quotient(input.count - consumed)
        while framesLeft > 0 {
            makeRoom()
            let room = roomFrames()
            let n = Swift.min(Swift.min(framesLeft, room), allowedFrames(outputCapacity: capacityFrames - written))
            if n == 0 { break }
            written += push(source + consumed, frameCount: n, into: destination + written * channels, limit: Int.max)
            consumed += n * channels
            framesLeft -= n
        }
        if framesLeft == 0 {
            let rest = input.count - consumed
            if rest > 0 {
                PolyphaseKernel.copy(carry, source + consumed, rest)
                carryCount = rest
                consumed += rest
            }
        }
        return ProcessResult(consumed: consumed, produced: written * channels)
    }

    /// An upper bound on what ``flush(into:)`` writes, in samples: `channelCount ×
    /// ((K − 1 + L) / M + 3)` for one stage (L, M, K of the polyphase stage; plus 2K_h·L for
    /// a half-band first stage of 4K_h − 1 taps; for a polyphase first stage its own bound plus
    /// 2, times L), independent of state, so a buffer can be sized at setup.
    public var maxFlushOutputCount: Int {
        // A polyphase first stage adds its own tail plus the padded frame's outputs.
        let firstTail = firstStage.map { $0.maxFlushOutputCount / channelCount + 2 } ?? halfBandTaps
        return channelCount * ((layout.prototypeLength - 1 + (1 + firstTail) * layout.phaseCount) / layout.step + 3)
    }

    /// The exact number of samples the next ``flush(into:)`` writes.
    public var pendingFlushOutputCount: Int {
        enter(); defer { ownership.release() }
        return flushPlan().emitted * channelCount
    }

    /// Ends the stream: completes a partial frame with zeros, feeds zeros through the filter
    /// and writes the remaining output, then resets.
    ///
    /// Without ``trimsLeadingDelay`` it writes every output frame whose filter window still
    /// covers an input frame (the whole tail of the last input frame's response). With it, it
    /// writes exactly as many frames as make the stream `round(N × outputRate / inputRate)`
    /// frames long (rounding halves up). A stream with no input writes nothing.
    /// - Precondition: `output.count ≥` ``pendingFlushOutputCount`` (≤ ``maxFlushOutputCount``).
    /// - Returns: The number of samples written.
    #if !DEBUG  // enforced by the optimizer's performance checks; debug builds cannot see through calls
    @_noAllocation
    #endif
    public func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        enter(); defer { ownership.release() }
        let plan = flushPlan()
        let channels = channelCount
        precondition(output.count >= plan.emitted * channels, "Resampler.flush: output buffer too small")
        var walk = plan.walked
        var written = 0
        let scratch = carry
        let destination = output.baseAddress ?? scratch
        if carryCount > 0 {
            PolyphaseKernel.zero(carry + carryCount, channels - carryCount)
            carryCount = 0
            makeRoom()
            let skippedBefore = skipRemaining
            let count = push(carry, frameCount: 1, into: destination, limit: walk)
            written += count
            walk -= count + (skippedBefore - skipRemaining)
        }
        if firstStagePointer != nil, walk > 0 {
            // The first stage's tail (the outputs whose windows still reach real input), then
            // whatever outputs it makes due; after it the first stage's output is exact zeros.
            appendFirstStageTail()
            let before = skipRemaining
            let count = push(nil, frameCount: 0, into: destination + written * channels, limit: walk)
            written += count
            walk -= count + (before - skipRemaining)
        }
        while walk > 0 {
            makeRoom()
            // Frames needed so that the walk-th next output is due (stage frames, then the
            // input frames that complete them).
            let last = nextFrame + (nextPhase + (walk - 1) * layout.step) / layout.phaseCount
            let needed = last + 1 - writeIndex
            let n = firstStagePointer != nil
                ? Swift.min(needed, historyCapacity - writeIndex)
                : Swift.min(halfBandTaps == 0 ? needed : 2 * needed - pendingEven, roomFrames())
            let before = skipRemaining
            let count = push(nil, frameCount: Swift.max(n, 0), into: destination + written * channels, limit: walk)
            written += count
            walk -= count + (before - skipRemaining)
        }
        resetStream()
        return written * channels
    }

    /// Forgets the stream: zero history, initial phase, no carried samples. Never allocates.
    #if !DEBUG  // enforced by the optimizer's performance checks; debug builds cannot see through calls
    @_noAllocation
    #endif
    public func reset() {
        enter(); defer { ownership.release() }
        resetStream()
    }

    /// ``reset()`` for a caller holding the flag.
    @inline(__always)
    func resetStream() {
        let kept = layout.tapsPerPhase - 1
        for channel in 0..<channelCount {
            PolyphaseKernel.zero(history + channel * historyCapacity, kept)
        }
        writeIndex = kept
        nextFrame = kept + gridOffset / layout.phaseCount
        nextPhase = gridOffset % layout.phaseCount
        skipRemaining = trimsLeadingDelay ? delayFrames : 0
        carryCount = 0
        streamFrames = 0
        streamOutputFrames = 0
        if halfBandTaps > 0 {
            let keptPairs = halfBandTaps - 1
            for channel in 0..<channelCount {
                let even = halfBandHistory + channel * 2 * (halfBandCapacity + 16)
                PolyphaseKernel.zero(even, keptPairs)
                PolyphaseKernel.zero(even + halfBandCapacity + 16, keptPairs)
            }
            pairIndex = keptPairs
        }
        pendingEven = 0
        stageFrames = 0
        if firstStagePointer != nil { withFirstStage { $0.reset() } }
    }

    // MARK: Cascade
    //
    // How the stages chain: input frames → (half-band or polyphase first stage, if any) →
    // polyphase stage. The stages themselves: Resampler+HalfBandStage.swift,
    // Resampler+FirstStage.swift, Resampler+PolyphaseStage.swift.

    /// Polyphase-stage frames that `frames` more input frames complete.
    @inline(__always)
    func stageFrameCount(_ frames: Int) -> Int {
        if firstStagePointer != nil { return withFirstStage { $0.dueOutputs(afterFrames: frames) } }
        return halfBandTaps == 0 ? frames : (pendingEven + frames) / 2
    }

    /// The most input frames that can be written without producing more than `outputCapacity`
    /// (unskipped) outputs.
    @inline(__always)
    func allowedFrames(outputCapacity: Int) -> Int {
        let outputs = Swift.min(outputCapacity + skipRemaining, 1 << 40)
        let stage = phaseDivisor.quotient(outputs * layout.step + nextPhase) + nextFrame - writeIndex
        if firstStagePointer != nil { return withFirstStage { $0.allowedFrames(outputCapacity: Swift.max(stage, 0)) } }
        return halfBandTaps == 0 ? stage : 2 * Swift.max(stage, 0) + 1 - pendingEven
    }

    /// Makes room for at least one input frame, compacting each history once less than half
    /// of its block is free: a compaction copies the same kept frames whenever it happens, and
    /// doing it early means a push of up to half a block (2048 frames) is never cut in two
    /// kernel calls by a full history.
    @inline(__always)
    func makeRoom() {
        if historyCapacity - writeIndex < (historyCapacity - (layout.tapsPerPhase - 1)) / 2 { compact() }
        if halfBandTaps > 0, halfBandCapacity - pairIndex < (halfBandCapacity - (halfBandTaps - 1)) / 2 {
            compactHalfBand()
        }
        if firstStagePointer != nil { withFirstStage { $0.makeRoom() } }
    }

    /// The most input frames the histories can take now (≥ 1 after ``makeRoom()``).
    @inline(__always)
    func roomFrames() -> Int {
        let stage = historyCapacity - writeIndex
        if firstStagePointer != nil {
            return withFirstStage { Swift.min($0.roomFrames(), $0.allowedFrames(outputCapacity: stage)) }
        }
        guard halfBandTaps > 0 else { return stage }
        return Swift.min(2 * stage + 1 - pendingEven, 2 * (halfBandCapacity - pairIndex) - pendingEven)
    }

    /// What a flush does: `walked` outputs to advance over (skipped ones included) and
    /// `emitted` of them written. `extraFrames` (a first stage's view): input frames its owner
    /// will still push before flushing it (the owner's zero-padded partial frame).
    func flushPlan(extraFrames: Int = 0) -> (walked: Int, emitted: Int) {
        let padded = (carryCount > 0 ? 1 : 0) + extraFrames
        let frames = streamFrames + padded
        guard frames > 0 else { return (0, 0) }
        let l = layout.phaseCount
        let m = layout.step
        if trimsLeadingDelay {
            // round(N·L/M) with the overall ratio, halves up; N·L stays far below Int.max for
            // any real stream.
            let target = (2 * frames * interpolationFactor + decimationFactor) / (2 * decimationFactor)
            let emitted = Swift.max(0, target - streamOutputFrames)
            return (skipRemaining + emitted, emitted)
        }
        // Outputs k with nextPhase + k·M + (nextFrame − end + 1)·L ≤ K − 1, where end is the
        // history index after the last stage frame that depends on a real input frame: their
        // windows still reach it. With a half-band, stage frame j (in the stream) spans input
        // frames 2j − 4K_h + 3 … 2j + 1, so the last one reaching frame N − 1 is
        // ⌊(N + 4K_h − 4) / 2⌋.
        let end: Int
        if firstStagePointer != nil {
            // Stage frames the first stage will still write that depend on real input.
            end = writeIndex + withFirstStage { $0.flushPlan(extraFrames: padded).emitted }
        } else if halfBandTaps == 0 {
            end = writeIndex + padded
        } else {
            end = writeIndex - stageFrames + (frames + 2 * halfBandTaps - 4) / 2 + 1
        }
        let base = nextPhase + (nextFrame - end + 1) * l
        let last = layout.prototypeLength - 1
        let count = base <= last ? (last - base) / m + 1 : 0
        return (count, count)
    }
}

extension Resampler: MemoryAccounting {
    /// Owned: the histories, the carried frame and scratch; shared: the coefficient tables
    /// (bank, its staggered copy, half-band taps), one copy per design whoever holds it. The
    /// first stage's are added.
    public var memoryFootprint: MemoryFootprint {
        MemoryFootprint(ownedBytes: allocatedBytes, sharedBytes: tables.allocatedBytes) + (firstStage?.memoryFootprint ?? MemoryFootprint())
    }
}
