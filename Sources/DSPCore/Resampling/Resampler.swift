// Streaming polyphase FIR resampler for rational ratios L/M.

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
/// - Interleaved multichannel: every channel uses the same filter.
/// - Input counts need not be whole frames: a trailing partial frame is carried to the next
///   call; ``flush(into:)`` completes a still-partial frame with zeros.
/// - Output is bit-identical however the input is chunked. The dot products run in a C kernel
///   dispatched at load time to the CPU's widest unit (AVX-512F, AVX+FMA or SSE2 on x86-64);
///   its summation order is fixed, so results never vary between runs on one machine, but may
///   differ in the last bits between CPUs (fused vs separate multiply-add).
///
/// ```swift
/// let resampler = try Resampler(inputRate: 48_000, outputRate: 16_000)
/// let produced = resampler.process(input, into: output).produced
/// ```
public final class Resampler: StreamingProcessor {
    /// Input element: Float32 samples, nominal full scale ±1.
    public typealias InputSample = Float
    /// Output element: Float32 samples, nominal full scale ±1.
    public typealias OutputSample = Float

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
    /// L, the reduced numerator of `outputRate / inputRate` (the number of filter phases).
    public let interpolationFactor: Int
    /// M, the reduced denominator of `outputRate / inputRate`.
    public let decimationFactor: Int
    /// Length of the prototype filter, in taps at the rate L × ``inputRate``.
    public let filterLength: Int
    /// Taps evaluated per output sample (per channel), zero padding included.
    public let tapsPerPhase: Int
    /// How the prototype filter was designed (equiripple for every common rate pair).
    public let designMethod: DesignMethod

    /// Latency from input to output, in output frames: output frame `outputDelay` is the
    /// input's time zero. Exact — the output grid is offset so that the delay is whole.
    /// Zero when ``trimsLeadingDelay`` is true (the leading frames are dropped).
    public var outputDelay: Int { trimsLeadingDelay ? 0 : delayFrames }

    /// ``outputDelay`` in seconds: `outputDelay / outputRate`.
    public var outputDelaySeconds: Double { Double(outputDelay) / Double(outputRate) }

    /// The filter's group delay in seconds, `(K − 1) / 2 / (L × inputRate)` — the algorithmic
    /// latency of a real-time stream, independent of ``trimsLeadingDelay``. At most one output
    /// period above the untrimmed ``outputDelaySeconds``.
    public var groupDelaySeconds: Double {
        Double(layout.prototypeDelay) / (Double(interpolationFactor) * Double(inputRate))
    }

    // MARK: Fixed design

    let layout: PolyphaseLayout
    /// Whole-output-sample delay d = ⌊D / M⌋.
    let delayFrames: Int
    /// Grid offset t₀ = D − d·M, in prototype samples.
    let gridOffset: Int
    /// ⌊M / L⌋ and M mod L: the per-output advance of (frame, phase).
    let frameStep: Int
    let phaseStep: Int
    /// Frames per channel in the history buffer: T − 1 kept frames + a block of new ones.
    let historyCapacity: Int
    /// Phase rows, L × T floats.
    let bank: UnsafeMutablePointer<Float>
    /// Planar history, channelCount × historyCapacity floats.
    let history: UnsafeMutablePointer<Float>
    /// The partial interleaved frame carried between calls, channelCount floats.
    let carry: UnsafeMutablePointer<Float>

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
    public init(
        inputRate: Int, outputRate: Int, channelCount: Int = 1,
        quality: Quality = .default, trimsLeadingDelay: Bool = false
    ) throws(ConfigurationError) {
        let layout = try Self.validatedLayout(
            inputRate: inputRate, outputRate: outputRate, channelCount: channelCount, quality: quality)
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channelCount = channelCount
        self.quality = quality
        self.trimsLeadingDelay = trimsLeadingDelay
        var stored = layout
        stored.designTaps = []
        self.layout = stored
        interpolationFactor = layout.phaseCount
        decimationFactor = layout.step
        filterLength = layout.prototypeLength
        tapsPerPhase = layout.tapsPerPhase
        designMethod = layout.method
        delayFrames = layout.prototypeDelay / layout.step
        gridOffset = layout.prototypeDelay - delayFrames * layout.step
        frameStep = layout.step / layout.phaseCount
        phaseStep = layout.step % layout.phaseCount
        historyCapacity = layout.tapsPerPhase - 1 + Swift.max(4096, layout.tapsPerPhase)
        // 64-byte aligned: with T a multiple of 16 every row starts on a cache line, so the
        // kernel's 16-float coefficient loads never split one (measurable at L > 1, where
        // rows are read from L2).
        bank = UnsafeMutableRawPointer.allocate(byteCount: layout.coefficientCount * MemoryLayout<Float>.stride, alignment: 64)
            .bindMemory(to: Float.self, capacity: layout.coefficientCount)
        layout.fill(bank, inputRate: inputRate)
        history = .allocate(capacity: channelCount * historyCapacity)
        history.initialize(repeating: 0, count: channelCount * historyCapacity)
        carry = .allocate(capacity: channelCount)
        carry.initialize(repeating: 0, count: channelCount)
        reset()
    }

    deinit {
        UnsafeMutableRawPointer(bank).deallocate()
        history.deallocate()
        carry.deallocate()
    }

    // MARK: StreamingProcessor

    /// The exact number of samples the next ``process(_:into:)`` call writes for `inputCount`
    /// input samples (given a large enough buffer): a multiple of ``channelCount``. It depends
    /// on the carried phase: 1024 samples at 48 → 16 kHz give 341 or 342.
    #if !DEBUG  // enforced by the optimizer's performance checks; debug builds cannot see through calls
    @_noAllocation
    #endif
    public func maxOutputCount(forInputCount inputCount: Int) -> Int {
        // Counts beyond 2⁴⁰ samples (over 8 months of mono 48 kHz audio) are clamped, so the
        // arithmetic cannot overflow.
        let frames = (carryCount + Swift.min(Swift.max(0, inputCount), 1 << 40)) / channelCount
        return Swift.max(0, dueOutputs(afterFrames: frames) - skipRemaining) * channelCount
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
        guard let source = input.baseAddress, input.count > 0 else { return ProcessResult(consumed: 0, produced: 0) }
        let channels = channelCount
        let capacityFrames = output.count / channels
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
            if writeIndex == historyCapacity { compact() }
            written = push(carry, frameCount: 1, into: destination, limit: Int.max)
        }
        var framesLeft = (input.count - consumed) / channels
        while framesLeft > 0 {
            if writeIndex == historyCapacity { compact() }
            let room = historyCapacity - writeIndex
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
    /// ((K − 1 + L) / M + 3)`, independent of state, so a buffer can be sized at setup.
    public var maxFlushOutputCount: Int {
        channelCount * ((layout.prototypeLength - 1 + layout.phaseCount) / layout.step + 3)
    }

    /// The exact number of samples the next ``flush(into:)`` writes.
    public var pendingFlushOutputCount: Int { flushPlan().emitted * channelCount }

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
            if writeIndex == historyCapacity { compact() }
            let skippedBefore = skipRemaining
            let count = push(carry, frameCount: 1, into: destination, limit: walk)
            written += count
            walk -= count + (skippedBefore - skipRemaining)
        }
        while walk > 0 {
            if writeIndex == historyCapacity { compact() }
            // Frames needed so that the walk-th next output is due.
            let last = nextFrame + (nextPhase + (walk - 1) * layout.step) / layout.phaseCount
            let n = Swift.min(last + 1 - writeIndex, historyCapacity - writeIndex)
            let before = skipRemaining
            let count = push(nil, frameCount: Swift.max(n, 0), into: destination + written * channels, limit: walk)
            written += count
            walk -= count + (before - skipRemaining)
        }
        reset()
        return written * channels
    }

    /// Forgets the stream: zero history, initial phase, no carried samples. Never allocates.
    #if !DEBUG  // enforced by the optimizer's performance checks; debug builds cannot see through calls
    @_noAllocation
    #endif
    public func reset() {
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
    }

    // MARK: Internals

    /// Outputs (skipped ones included) that become due once `frames` more frames are written:
    /// those k ≥ 0 with nextFrame + ⌊(nextPhase + k·M) / L⌋ < writeIndex + frames.
    @inline(__always)
    func dueOutputs(afterFrames frames: Int) -> Int {
        let ahead = writeIndex + frames - nextFrame
        guard ahead > 0 else { return 0 }
        return (ahead * layout.phaseCount - nextPhase + layout.step - 1) / layout.step
    }

    /// The most frames that can be written without producing more than `outputCapacity`
    /// (unskipped) outputs.
    @inline(__always)
    func allowedFrames(outputCapacity: Int) -> Int {
        let outputs = Swift.min(outputCapacity + skipRemaining, 1 << 40)
        return (outputs * layout.step + nextPhase) / layout.phaseCount + nextFrame - writeIndex
    }

    /// What a flush does: `walked` outputs to advance over (skipped ones included) and
    /// `emitted` of them written.
    func flushPlan() -> (walked: Int, emitted: Int) {
        let padded = carryCount > 0 ? 1 : 0
        let frames = streamFrames + padded
        guard frames > 0 else { return (0, 0) }
        let l = layout.phaseCount
        let m = layout.step
        if trimsLeadingDelay {
            // round(N·L/M), halves up; N·L stays far below Int.max for any real stream.
            let target = (2 * frames * l + m) / (2 * m)
            let emitted = Swift.max(0, target - streamOutputFrames)
            return (skipRemaining + emitted, emitted)
        }
        // Outputs k with nextPhase + k·M + (nextFrame − end + 1)·L ≤ K − 1, where end is the
        // history index after the last real frame: their windows still reach that frame.
        let end = writeIndex + padded
        let base = nextPhase + (nextFrame - end + 1) * l
        let last = layout.prototypeLength - 1
        let count = base <= last ? (last - base) / m + 1 : 0
        return (count, count)
    }

    /// Moves the newest T − 1 frames of every channel to the front of its history.
    func compact() {
        let kept = layout.tapsPerPhase - 1
        let shift = writeIndex - kept
        guard shift > 0 else { return }
        for channel in 0..<channelCount {
            let base = history + channel * historyCapacity
            PolyphaseKernel.copy(base, base + shift, kept)
        }
        writeIndex -= shift
        nextFrame -= shift
    }

    /// Writes `frameCount` interleaved frames from `source` (zeros if nil) into the history —
    /// which must have room — then computes every due output, at most `limit` walked
    /// (skipped ones included), into `output`. Returns the frames written to `output`.
    @inline(__always)
    func push(_ source: UnsafePointer<Float>?, frameCount: Int, into output: UnsafeMutablePointer<Float>, limit: Int) -> Int {
        let channels = channelCount
        let capacity = historyCapacity
        let start = writeIndex
        if let source {
            if channels == 1 {
                PolyphaseKernel.copy(history + start, source, frameCount)
            } else {
                for channel in 0..<channels {
                    let destination = history + channel * capacity + start
                    var s = source + channel
                    for i in 0..<frameCount {
                        destination[i] = s.pointee
                        s += channels
                    }
                }
            }
        } else {
            for channel in 0..<channels {
                PolyphaseKernel.zero(history + channel * capacity + start, frameCount)
            }
        }
        let end = start + frameCount
        writeIndex = end
        if source != nil { streamFrames += frameCount }

        var frame = nextFrame
        var phase = nextPhase
        var skip = skipRemaining
        var walked = 0
        let l = layout.phaseCount
        let m = layout.step
        // Leading outputs to drop (trimsLeadingDelay): at most d of them per stream.
        while skip > 0 && frame < end && walked < limit {
            skip -= 1
            walked += 1
            PolyphaseKernel.advance(&frame, &phase, frameStep, phaseStep, l)
        }
        // Every remaining due output (frame + ⌊(phase + k·M)/L⌋ < end), up to the limit, in one
        // call of the dispatched C kernel.
        var written = 0
        if frame < end && walked < limit {
            written = Swift.min((((end - frame) * l - phase) + m - 1) / m, limit - walked)
        }
        if written > 0 {
            let taps = layout.tapsPerPhase
            PolyphaseKernel.polyphase(
                bank, taps, history + (frame - (taps - 1)), capacity, channels,
                phase, frameStep, phaseStep, l, written, output)
            let advance = phase + written * m
            frame += advance / l
            phase = advance % l
        }
        nextFrame = frame
        nextPhase = phase
        skipRemaining = skip
        streamOutputFrames += written
        return written
    }
}
