internal import CDSPKernels
import DSPCore
import RealModule

/// Momentary and short-term loudness at one point of the 10 ms grid.
@frozen
public struct LoudnessReading: Equatable, Sendable {
    /// Zero-based reading number: the reading at the end of the `index + 1`-th 10 ms step.
    public var index: Int64
    /// Stream position (frames per channel from the stream start) where the windows end.
    public var endFrame: Int64
    /// `endFrame / sampleRate`, in seconds.
    public var timeSeconds: Double
    /// Momentary loudness, LUFS: the last 400 ms. −∞ for silence.
    public var momentaryLUFS: Double
    /// Short-term loudness, LUFS: the last 3 s. −∞ for silence.
    public var shortTermLUFS: Double

    /// Creates a reading.
    @inlinable
    public init(index: Int64, endFrame: Int64, timeSeconds: Double, momentaryLUFS: Double, shortTermLUFS: Double) {
        self.index = index
        self.endFrame = endFrame
        self.timeSeconds = timeSeconds
        self.momentaryLUFS = momentaryLUFS
        self.shortTermLUFS = shortTermLUFS
    }
}

/// Loudness and peaks of a whole stream.
public struct LoudnessSummary: Equatable, Sendable {
    /// Gated integrated (programme) loudness, LUFS (BS.1770-5 gating). −∞ when no 400 ms block
    /// reaches −70 LUFS (silence, or less than 400 ms of input).
    public var integratedLUFS: Double = -.infinity
    /// The relative gate the integrated loudness used, LUFS (−∞ when none).
    public var relativeGateLUFS: Double = -.infinity
    /// 400 ms blocks (100 ms apart) that passed both gates.
    public var gatedBlockCount: Int = 0
    /// Loudness range, LU (EBU Tech 3342): the 95th minus the 10th percentile of the gated
    /// short-term loudness. 0 when no 3 s block passes the gates.
    public var loudnessRangeLU: Double = 0
    /// The 10th percentile of the gated short-term loudness, LUFS (−∞ when none).
    public var loudnessRangeLowLUFS: Double = -.infinity
    /// The 95th percentile of the gated short-term loudness, LUFS (−∞ when none).
    public var loudnessRangeHighLUFS: Double = -.infinity
    /// Largest true peak over all channels (LFE included), dBTP; `nil` when not measured,
    /// −∞ for silence.
    public var truePeakDBTP: Double? = nil
    /// Largest sample peak over all channels (LFE included), dBFS; −∞ for silence.
    public var samplePeakDBFS: Double = -.infinity
    /// Largest momentary loudness on the 10 ms grid, LUFS (−∞ when none).
    public var maxMomentaryLUFS: Double = -.infinity
    /// Largest short-term loudness on the 10 ms grid, LUFS (−∞ when none).
    public var maxShortTermLUFS: Double = -.infinity
    /// Frames (per channel) consumed.
    public var frameCount: Int64 = 0
    /// Duration in seconds, `frameCount / sampleRate`.
    public var durationSeconds: Double = 0
    /// NaN and ±Inf samples seen, measured as 0.
    public var nonFiniteCount: Int = 0

    /// Creates an empty summary.
    public init() {}
}

/// Loudness per ITU-R BS.1770-5 and EBU R 128 (Tech 3341 "EBU mode", Tech 3342 loudness
/// range), with sample and true peak, for mono, stereo, 5.0, 5.1 or any weighted layout.
///
/// **Measure.** Each channel `c` is K-weighted (``KWeightingFilter``, designed at the input
/// rate) to `y_c`; the loudness of an interval is
/// `L = −0.691 + 10·log10( Σ_c G_c · (1/N) Σ_n y_c[n]² )` LUFS, with the ``ChannelLayout``
/// weights `G_c` (1.0 for L, R, C; 1.41 for Ls, Rs; 0 for LFE). A full-scale 997 Hz sine in one
/// channel reads −3.01 LUFS; silence reads −∞.
///
/// **The 10 ms grid.** The weighted energy `Σ_c G_c Σ y²` of every 10 ms step (frames
/// `⌊k·f_s/100⌋ ..< ⌊(k+1)·f_s/100⌋`) goes into a ring of 300, and each 100 ms block's sum is
/// taken once, when the block closes. At the end of each step the momentary loudness (last 40
/// steps, 400 ms) is summed afresh from the ring, and the short-term loudness (last 300 steps,
/// 3 s) from the closed blocks inside its window and the steps at its two ends — exactly, with
/// no running sum and so no drift — and written as a ``LoudnessReading``. Before the first 400 ms / 3 s the missing past counts as silence (so
/// readings ramp up, as in libebur128). Readings depend only on stream positions, never on
/// how the input was chunked.
///
/// **Integrated loudness** (BS.1770-5 gating): 400 ms blocks every 100 ms (75 % overlap) —
/// the momentary value at every 10th step from 400 ms on — gated at −70 LUFS and then at
/// 10 LU below the mean of the blocks that passed. **Loudness range** (Tech 3342): 3 s blocks
/// every ``Configuration/loudnessRangeHopMilliseconds`` (100 ms by default) from 3 s on,
/// gated at −70 LUFS and 20 LU below their mean, then `L₉₅ − L₁₀`. Both gate from a fixed
/// histogram of 0.05 LU bins with 32-bit counts beside the exact energy sum (see
/// <doc:Loudness>): fixed memory (16 kB), no allocation per block; integrated loudness within
/// 0.003 LU of exact gating (blocks within 0.05 LU of the relative gate apart), loudness range
/// within 0.05 LU.
///
/// **Peaks.** Sample peak and true peak (``TruePeakMeter``: 4× below 96 kHz, 2× below
/// 192 kHz) per channel, every channel including LFE.
///
/// **Edge cases.** NaN and ±Inf samples are measured as 0 and counted
/// (``LoudnessSummary/nonFiniteCount``). A buffer may end inside a frame; the partial frame is
/// carried. Silence gives −∞ loudness and peaks and 0 LU range.
///
/// **Streaming.** ``process(_:)`` measures and keeps only the running values;
/// ``process(_:into:)`` also writes one ``LoudnessReading`` per completed 10 ms step.
/// ``flush(into:)`` completes a final partial step with silence and writes its reading
/// (padding never creates integrated or range blocks) and runs the true-peak interpolator out.
/// ``finalize()`` flushes, returns the ``LoudnessSummary`` and resets. Nothing allocates after
/// `init`.
///
/// References: ITU-R BS.1770-5 (2023); EBU R 128 (2023); EBU Tech 3341 v4 (2023); EBU Tech
/// 3342 v4 (2023). The tests compare against libebur128 1.2.6 (default, non-histogram mode).
public final class LoudnessMeter: StreamAnalyzer, @unchecked Sendable {
    // @unchecked: the filters, ring, histograms and counts below are reached only holding
    // `ownership` (see StreamOwnership); the filter bank and channel front end are this
    // object's alone.
    /// The settings this meter was built with.
    public let configuration: Configuration
    /// The K-weighting filter in use.
    public let kWeighting: KWeightingFilter
    /// Interleaved channels.
    public let channelCount: Int
    /// Sample rate in Hz.
    public var sampleRate: Int { configuration.sampleRate }
    /// True-peak oversampling factor (4, 2 or 1), or 0 when true peak is off.
    public let truePeakOversampling: Int

    private let bank: KWeightingBank
    private let frontEnd: ChannelFrontEnd
    /// Filtered channels (weight > 0) and their weights times the high-pass gain².
    private let filtered: UnsafeMutablePointer<Int>
    private let filteredCount: Int
    private let weights: UnsafeMutablePointer<Double>
    private let carry: UnsafeMutablePointer<Float>
    private var carryCount = 0

    /// Steps in the short-term window (3 s).
    private static let windowSteps = 300
    /// Steps in the momentary window (400 ms).
    private static let momentaryWindowSteps = 40
    /// Steps whose window sums may wait (see ``closeDeferredStep()``).
    private static let maxPendingSteps = 4
    /// Ring entries: the short-term window plus the waiting steps, whose windows reach that far
    /// back.
    private static let ringLength = windowSteps + maxPendingSteps
    /// The ring, each entry stored twice (at `p` and `p + ringLength`) so that every window
    /// of the last `count` ≤ 300 entries is contiguous.
    private let ring: UnsafeMutablePointer<Double>
    private var ringPosition = 0
    /// Steps per block of the short-term sums (100 ms).
    private static let blockSteps: Int64 = 10
    /// Block sums kept: a short-term window and the waiting steps' windows span at most 31.
    private static let blockRingLength: Int64 = 32
    /// The sum of each closed block's `blockSteps` ring entries (oldest first, one after the
    /// other), at `block mod blockRingLength`: computed once when its last step is stored.
    private let blockSums: UnsafeMutablePointer<Double>
    /// Steps closed whose momentary and short-term sums are not computed yet (at most
    /// ``maxPendingSteps``), and the ring position after each one's entry.
    private var pendingCount = 0
    private let pendingEnds: UnsafeMutablePointer<Int>
    /// Completed 10 ms steps.
    private var stepCount: Int64 = 0
    /// Frames of the current step consumed, and its length.
    private var stepFill = 0
    private var stepLength: Int
    private let momentaryScale: Double
    private let shortTermScale: Double
    private let rangeHopSteps: Int64
    private var momentaryEnergy = 0.0
    private var shortTermEnergy = 0.0
    private var maxMomentaryEnergy = 0.0
    private var maxShortTermEnergy = 0.0
    private var consumedFrames: Int64 = 0
    /// A flushed stream's summary, until ``finalize()`` or the next stream's first samples.
    private var flushedSummary: LoudnessSummary?
    private let blocks = GatingHistogram()
    private let shortTermBlocks = GatingHistogram()
    private let ownership = StreamOwnership()

    /// Takes the ownership flag; two overlapping calls stop the program.
    @inline(__always)
    private func enter() {
        if !ownership.acquire() { preconditionFailure("LoudnessMeter: overlapping calls from two threads (one stream, one caller at a time)") }
    }

    /// Creates a meter; throws if a setting is out of range.
    public init(configuration: Configuration = Configuration()) throws(ConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        let fs = configuration.sampleRate
        kWeighting = try KWeightingFilter(sampleRate: Double(fs), design: configuration.kWeighting)
        let gainSquared = kWeighting.highPass.b0 * kWeighting.highPass.b0
        let weights = configuration.channelLayout.weights
        channelCount = weights.count
        truePeakOversampling = configuration.measuresTruePeak ? TruePeakMeter.oversamplingFactor(forSampleRate: fs) : 0
        let maxStep = (fs + 99) / 100
        frontEnd = ChannelFrontEnd(channelCount: channelCount, maxChunkFrames: maxStep, oversampling: truePeakOversampling)
        let used = weights.indices.filter { weights[$0] > 0 }
        filteredCount = used.count
        filtered = .allocate(capacity: Swift.max(used.count, 1))
        self.weights = .allocate(capacity: Swift.max(used.count, 1))
        for (i, c) in used.enumerated() {
            (filtered + i).initialize(to: c)
            (self.weights + i).initialize(to: weights[c] * gainSquared)
        }
        bank = KWeightingBank(kWeighting, channelCount: used.count)
        carry = .allocate(capacity: channelCount)
        carry.initialize(repeating: 0, count: channelCount)
        ring = .allocate(capacity: 2 * Self.ringLength)
        ring.initialize(repeating: 0, count: 2 * Self.ringLength)
        blockSums = .allocate(capacity: Int(Self.blockRingLength))
        blockSums.initialize(repeating: 0, count: Int(Self.blockRingLength))
        pendingEnds = .allocate(capacity: Self.maxPendingSteps)
        pendingEnds.initialize(repeating: 0, count: Self.maxPendingSteps)
        stepLength = fs / 100
        momentaryScale = 1 / (0.4 * Double(fs))
        shortTermScale = 1 / (3 * Double(fs))
        rangeHopSteps = Int64(configuration.loudnessRangeHopMilliseconds / 10)
    }

    deinit {
        filtered.deallocate()
        weights.deallocate()
        carry.deallocate()
        ring.deallocate()
        blockSums.deallocate()
        pendingEnds.deallocate()
    }

    // MARK: Streaming contract

    /// Readings are emitted at the end of each 10 ms step: no delay beyond the step.
    public var outputDelay: Int { 0 }

    /// Stream position (frames) of the end of step `k`: `⌊k·f_s/100⌋`.
    @inline(__always)
    private func boundary(_ k: Int64) -> Int64 { k * Int64(configuration.sampleRate) / 100 }

    /// Readings that `inputCount` more samples complete.
    public func maxOutputCount(forInputCount inputCount: Int) -> Int {
        enter(); defer { ownership.release() }
        return readingCount(forInputCount: inputCount)
    }

    /// ``maxOutputCount(forInputCount:)`` for a caller holding the flag.
    private func readingCount(forInputCount inputCount: Int) -> Int {
        let position = consumedFrames + Int64((carryCount + inputCount) / channelCount)
        // Steps k with boundary(k) ≤ position: k ≤ (100·(position + 1) − 1) / f_s.
        return Int((100 * (position + 1) - 1) / Int64(configuration.sampleRate) - stepCount)
    }

    /// At most one reading (the padded final step).
    public var maxFlushOutputCount: Int { 1 }

    /// Measures `input` (interleaved), keeping the running values and summary; no readings
    /// are written. Never allocates (checked by the compiler where `@_noAllocation` exists).
    #if hasAttribute(_noAllocation)
    @_noAllocation
    #endif
    public func process(_ input: UnsafeBufferPointer<Float>) {
        enter(); defer { ownership.release() }
        run(input, into: nil)
    }

    /// Measures `input` (interleaved) and writes one ``LoudnessReading`` per completed 10 ms
    /// step into `output`. Consumes only as much input as there is room for readings. Never
    /// allocates (checked by the compiler where `@_noAllocation` exists).
    #if hasAttribute(_noAllocation)
    @_noAllocation
    #endif
    public func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<LoudnessReading>
    ) -> ProcessResult {
        enter(); defer { ownership.release() }
        var limit = input.count
        if readingCount(forInputCount: input.count) > output.count {
            // Frames up to one before the end of step stepCount + room + 1, plus a partial frame.
            let lastFrame = boundary(stepCount + Int64(output.count) + 1) - 1 - consumedFrames
            limit = Swift.max(0, Swift.min(input.count, Int(lastFrame) * channelCount + channelCount - 1 - carryCount))
        }
        let produced = run(UnsafeBufferPointer(rebasing: input[..<limit]), into: output.baseAddress)
        return ProcessResult(consumed: limit, produced: produced)
    }

    /// Ends the stream: a carried partial frame is completed with zeros; a partial 10 ms step
    /// is completed with silence and its reading written (no integrated or range block comes
    /// from padding); the true-peak interpolator runs out against silence. Returns the
    /// readings written (0 or 1). The meter is then ready for a new stream, as after
    /// ``reset()``; the ended stream's summary is kept for ``finalize()``. Never allocates.
    /// - Precondition: `output` has room for ``maxFlushOutputCount`` (1) reading, in every
    ///   build configuration.
    #if hasAttribute(_noAllocation)
    @_noAllocation
    #endif
    public func flush(into output: UnsafeMutableBufferPointer<LoudnessReading>) -> Int {
        enter(); defer { ownership.release() }
        return drain(into: output)
    }

    /// ``flush(into:)`` for a caller holding the flag.
    private func drain(into output: UnsafeMutableBufferPointer<LoudnessReading>) -> Int {
        precondition(!output.isEmpty, "LoudnessMeter.flush: output smaller than maxFlushOutputCount (1)")
        var produced = 0
        let destination = output.isEmpty ? nil : output.baseAddress
        if carryCount > 0 {
            // Completes at most one step; then stepFill == 0 and no padded step follows.
            zeroFloats(carry + carryCount, channelCount - carryCount)
            carryCount = 0
            measure(carry, frames: 1, into: destination, produced: &produced)
            finishPendingSteps()
        }
        if stepFill > 0 {
            let n = stepLength - stepFill
            frontEnd.loadSilence(frames: n)
            filterChunk(frames: n)
            frontEnd.finishChunk(frames: n)
            stepFill = stepLength
            let reading = closeStep(padded: true)
            if let destination {
                destination.initialize(to: reading)
                produced = 1
            }
        }
        frontEnd.flushTail()
        let ended = currentSummary()
        resetStream()
        flushedSummary = ended
        return produced
    }

    /// The ended stream's summary: the one ``flush(into:)`` kept or — without a flush — the
    /// current stream's, flushed first (its final reading discarded). The meter is left as after
    /// ``reset()``.
    public func finalize() -> LoudnessSummary {
        enter(); defer { ownership.release() }
        if flushedSummary == nil {
            var scratch = LoudnessReading(index: 0, endFrame: 0, timeSeconds: 0, momentaryLUFS: 0, shortTermLUFS: 0)
            _ = withUnsafeMutablePointer(to: &scratch) { drain(into: UnsafeMutableBufferPointer(start: $0, count: 1)) }
        }
        let result = flushedSummary ?? currentSummary()
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
        frontEnd.reset()
        bank.reset()
        carryCount = 0
        ring.update(repeating: 0, count: 2 * Self.ringLength)
        blockSums.update(repeating: 0, count: Int(Self.blockRingLength))
        ringPosition = 0
        pendingCount = 0
        stepCount = 0
        stepFill = 0
        stepLength = configuration.sampleRate / 100
        momentaryEnergy = 0
        shortTermEnergy = 0
        maxMomentaryEnergy = 0
        maxShortTermEnergy = 0
        consumedFrames = 0
        blocks.reset()
        shortTermBlocks.reset()
    }

    // MARK: Current values

    /// Momentary loudness at the last completed 10 ms step, LUFS (−∞ for silence).
    public var momentaryLUFS: Double {
        enter(); defer { ownership.release() }
        return GatingHistogram.loudness(momentaryEnergy)
    }
    /// Short-term loudness at the last completed 10 ms step, LUFS (−∞ for silence).
    public var shortTermLUFS: Double {
        enter(); defer { ownership.release() }
        return GatingHistogram.loudness(shortTermEnergy)
    }
    /// Integrated loudness so far, LUFS. Computed from the histogram on each call (its filled bins).
    public var integratedLUFS: Double {
        enter(); defer { ownership.release() }
        return LoudnessGating.integrated(blocks).lufs
    }
    /// Loudness range so far, LU. Computed from the histogram on each call.
    public var loudnessRangeLU: Double {
        enter(); defer { ownership.release() }
        return LoudnessGating.range(shortTermBlocks).lu
    }
    /// Sample peak of `channel` so far, dBFS.
    public func samplePeakDBFS(channel: Int) -> Double {
        enter(); defer { ownership.release() }
        return Decibels.fromAmplitude(Double(frontEnd.samplePeaks[channel]))
    }
    /// True peak of `channel` so far, dBTP (the sample peak when true peak is off).
    public func truePeakDBTP(channel: Int) -> Double {
        enter(); defer { ownership.release() }
        return Decibels.fromAmplitude(Double(Swift.max(frontEnd.truePeaks[channel], frontEnd.samplePeaks[channel])))
    }

    /// The summary of the stream so far (without flushing).
    public var summary: LoudnessSummary {
        enter(); defer { ownership.release() }
        return currentSummary()
    }

    /// ``summary`` for a caller holding the flag.
    private func currentSummary() -> LoudnessSummary {
        var s = LoudnessSummary()
        let integrated = LoudnessGating.integrated(blocks)
        s.integratedLUFS = integrated.lufs
        s.relativeGateLUFS = integrated.gateLUFS
        s.gatedBlockCount = integrated.count
        let range = LoudnessGating.range(shortTermBlocks)
        s.loudnessRangeLU = range.lu
        s.loudnessRangeLowLUFS = range.low
        s.loudnessRangeHighLUFS = range.high
        s.samplePeakDBFS = Decibels.fromAmplitude(Double(frontEnd.maximumSamplePeak))
        s.truePeakDBTP = truePeakOversampling > 0 ? Decibels.fromAmplitude(Double(frontEnd.maximumTruePeak)) : nil
        s.maxMomentaryLUFS = GatingHistogram.loudness(maxMomentaryEnergy)
        s.maxShortTermLUFS = GatingHistogram.loudness(maxShortTermEnergy)
        s.frameCount = consumedFrames
        s.durationSeconds = Double(consumedFrames) / Double(configuration.sampleRate)
        s.nonFiniteCount = frontEnd.nonFiniteCount
        return s
    }

    // MARK: Processing

    @discardableResult
    private func run(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutablePointer<LoudnessReading>?) -> Int {
        guard var source = input.baseAddress, !input.isEmpty else { return 0 }
        flushedSummary = nil  // a new stream has begun
        var remaining = input.count
        var produced = 0
        if carryCount > 0 {
            let n = Swift.min(channelCount - carryCount, remaining)
            copyFloats(carry + carryCount, source, n)
            carryCount += n
            source += n
            remaining -= n
            guard carryCount == channelCount else { return 0 }
            carryCount = 0
            measure(carry, frames: 1, into: output, produced: &produced)
        }
        let frames = remaining / channelCount
        measure(source, frames: frames, into: output, produced: &produced)
        remaining -= frames * channelCount
        if remaining > 0 {
            copyFloats(carry, source + frames * channelCount, remaining)
            carryCount = remaining
        }
        finishPendingSteps()
        return produced
    }

    /// Measures whole frames, step by step.
    private func measure(
        _ source: UnsafePointer<Float>, frames: Int, into output: UnsafeMutablePointer<LoudnessReading>?,
        produced: inout Int
    ) {
        var done = 0
        while done < frames {
            let n = Swift.min(frames - done, stepLength - stepFill)
            frontEnd.load(source + done * channelCount, frames: n)
            filterChunk(frames: n)
            frontEnd.finishChunk(frames: n)
            stepFill += n
            done += n
            consumedFrames += Int64(n)
            if stepFill == stepLength {
                if let output {
                    (output + produced).initialize(to: closeStep(padded: false))
                    produced += 1
                } else {
                    closeDeferredStep()
                }
            }
        }
    }

    /// K-weights the loaded chunk (the `n` frames after the step's first `stepFill`) of every
    /// weighted channel.
    private func filterChunk(frames n: Int) {
        for i in 0..<filteredCount {
            bank.run(i, frontEnd.channel(filtered[i]), count: n, filled: stepFill)
        }
    }

    /// Sum of the `count` ring entries (a multiple of 4: the 40 momentary steps) before ring position `end`,
    /// oldest first, in four lanes (entry `j` into lane `j mod 4`), then `(s0 + s1) + (s2 + s3)`.
    @inline(__always)
    private func ringSum(last count: Int, before end: Int) -> Double {
        var start = end - count
        if start < 0 { start += Self.ringLength }
        let window = ring + start  // contiguous thanks to the mirrored copy
        var s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
        var j = 0
        while j + 4 <= count {
            s0 += window[j]
            s1 += window[j + 1]
            s2 += window[j + 2]
            s3 += window[j + 3]
            j += 4
        }
        return (s0 + s1) + (s2 + s3)
    }

    /// ``ringSum(last:before:)`` for four windows at once (four ring positions), each with its
    /// own four lanes in the same order: the same four sums, bit for bit, but the four
    /// sequential chains run side by side instead of one after the other (the C kernel
    /// `cdsp_loudness_window_sums4`, CDSPKernels/LoudnessWindows.c; Swift's SIMD code for it
    /// shuffled the lanes about).
    @inline(__always)
    private func ringSums(last count: Int, before ends: UnsafePointer<Int>) -> SIMD4<Double> {
        @inline(__always) func window(_ end: Int) -> UnsafePointer<Double>? {
            var start = end - count
            if start < 0 { start += Self.ringLength }
            return UnsafePointer(ring + start)
        }
        let windows: (UnsafePointer<Double>?, UnsafePointer<Double>?, UnsafePointer<Double>?, UnsafePointer<Double>?) =
            (window(ends[0]), window(ends[1]), window(ends[2]), window(ends[3]))
        var sums = SIMD4<Double>()
        withUnsafePointer(to: windows) { w in
            w.withMemoryRebound(to: UnsafePointer<Double>?.self, capacity: 4) { w in
                withUnsafeMutablePointer(to: &sums) {
                    $0.withMemoryRebound(to: Double.self, capacity: 4) { cdsp_loudness_window_sums4(w, count, $0) }
                }
            }
        }
        return sums
    }

    /// Stores the current step's weighted energy in the ring and counts the step.
    @inline(__always)
    private func storeStepEnergy() {
        var energy = 0.0
        for i in 0..<filteredCount {
            energy += weights[i] * bank.closeStep(i, length: stepLength)
        }
        ring[ringPosition] = energy
        ring[ringPosition + Self.ringLength] = energy
        ringPosition = ringPosition + 1 == Self.ringLength ? 0 : ringPosition + 1
        stepCount += 1
        if stepCount % Self.blockSteps == 0 {
            let block = stepCount / Self.blockSteps - 1
            blockSums[Int(block % Self.blockRingLength)] = stepSum(from: block * Self.blockSteps, through: stepCount - 1)
        }
    }

    /// The ring entries of steps `first` … `last` (0-based step indices, at most ``ringLength``
    /// steps back), oldest first, added one after the other; 0 when `first > last`. Step `k`
    /// sits at ring position `k mod ringLength` (the ring starts at 0 with the stream).
    @inline(__always)
    private func stepSum(from first: Int64, through last: Int64) -> Double {
        guard first <= last else { return 0 }
        let window = ring + Int(first % Int64(Self.ringLength))  // contiguous thanks to the mirrored copy
        var total = 0.0
        for j in 0..<Int(last - first + 1) { total += window[j] }
        return total
    }

    /// The short-term window's sum for the step of index `last` (its 300 steps, those before
    /// the stream counting as silence): the closed 100 ms blocks inside the window from
    /// ``blockSums``, and the steps at its two ends not in such a block from the ring, oldest
    /// first. Every term is summed afresh from the stored step energies: no running sum, no
    /// drift; and about 50 values are read where the whole window is 300.
    private func shortTermSum(last: Int64) -> Double {
        let first = Swift.max(0, last - Int64(Self.windowSteps) + 1)
        let firstBlock = (first + Self.blockSteps - 1) / Self.blockSteps
        let lastBlock = (last + 1) / Self.blockSteps - 1
        guard firstBlock <= lastBlock else { return stepSum(from: first, through: last) }
        var total = stepSum(from: first, through: firstBlock * Self.blockSteps - 1)
        for block in firstBlock...lastBlock { total += blockSums[Int(block % Self.blockRingLength)] }
        return total + stepSum(from: (lastBlock + 1) * Self.blockSteps, through: last)
    }

    /// Updates momentary and short-term loudness, their maxima and (unless `padded`) the gating
    /// histograms from step `step`'s window sums.
    @inline(__always)
    private func account(step: Int64, momentarySum: Double, shortTermSum: Double, padded: Bool) {
        momentaryEnergy = momentarySum * momentaryScale
        shortTermEnergy = shortTermSum * shortTermScale
        maxMomentaryEnergy = Swift.max(maxMomentaryEnergy, momentaryEnergy)
        maxShortTermEnergy = Swift.max(maxShortTermEnergy, shortTermEnergy)
        if !padded {
            if step >= 40 && step % 10 == 0 { blocks.add(momentaryEnergy) }
            if step >= 300 && (step - 300) % rangeHopSteps == 0 { shortTermBlocks.add(shortTermEnergy) }
        }
    }

    /// Ends the current 10 ms step when no reading is wanted: stores its energy and leaves its
    /// window sums for ``finishPendingSteps()``, which takes four steps' sums at a time. The
    /// sums, maxima and histogram entries are those ``closeStep(padded:)`` gives, in the same
    /// order; every public entry point finishes the waiting steps before it returns.
    private func closeDeferredStep() {
        storeStepEnergy()
        pendingEnds[pendingCount] = ringPosition
        pendingCount += 1
        if pendingCount == Self.maxPendingSteps { finishPendingSteps() }
        let end = boundary(stepCount)
        stepFill = 0
        stepLength = Int(boundary(stepCount + 1) - end)
    }

    /// Computes the waiting steps' window sums (four at a time; fewer repeat the last one's
    /// window) and accounts them in step order.
    private func finishPendingSteps() {
        let count = pendingCount
        guard count > 0 else { return }
        for i in count..<Self.maxPendingSteps { pendingEnds[i] = pendingEnds[count - 1] }
        let momentary = ringSums(last: Self.momentaryWindowSteps, before: pendingEnds)
        let first = stepCount - Int64(count) + 1
        for i in 0..<count {
            let step = first + Int64(i)
            account(step: step, momentarySum: momentary[i], shortTermSum: shortTermSum(last: step - 1), padded: false)
        }
        pendingCount = 0
    }

    /// Ends the current 10 ms step: stores its weighted energy, updates momentary and
    /// short-term loudness, their maxima and (unless `padded`) the gating histograms.
    private func closeStep(padded: Bool) -> LoudnessReading {
        finishPendingSteps()
        storeStepEnergy()
        account(
            step: stepCount, momentarySum: ringSum(last: Self.momentaryWindowSteps, before: ringPosition),
            shortTermSum: shortTermSum(last: stepCount - 1), padded: padded)
        let end = boundary(stepCount)
        stepFill = 0
        stepLength = Int(boundary(stepCount + 1) - end)
        return LoudnessReading(
            index: stepCount - 1, endFrame: end, timeSeconds: Double(end) / Double(configuration.sampleRate),
            momentaryLUFS: GatingHistogram.loudness(momentaryEnergy), shortTermLUFS: GatingHistogram.loudness(shortTermEnergy))
    }
}

extension LoudnessMeter: MemoryAccounting {
    /// The channel front end (true-peak kernel included), the K-weighting bank, the channel
    /// tables and carry, the 10 ms step ring and the two gating histograms.
    public var memoryFootprint: MemoryFootprint {
        let tables = MemoryFootprint.bytes(Int.self, Swift.max(filteredCount, 1)) + MemoryFootprint.bytes(Double.self, Swift.max(filteredCount, 1))
            + MemoryFootprint.bytes(Float.self, channelCount) + MemoryFootprint.bytes(Double.self, 2 * Self.ringLength)
            + MemoryFootprint.bytes(Int.self, Self.maxPendingSteps) + MemoryFootprint.bytes(Double.self, Int(Self.blockRingLength))
        return .owned(frontEnd.allocatedBytes + bank.allocatedBytes + tables + 2 * GatingHistogram.allocatedBytes)
    }
}
