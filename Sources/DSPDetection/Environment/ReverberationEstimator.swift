import DSPCore
import DSPSpectral

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Blind estimate of a room's reverberation time RT60 and clarity C50 from reverberant speech
/// alone (no impulse response), on the 16 kHz mono analysis stream.
///
/// **Method** (free-decay analysis after Ratnam et al., "Blind estimation of reverberation
/// time", JASA 114(5), 2003, and Prego et al., "A blind algorithm for reverberation-time
/// estimation using subband decomposition of speech signals", JASA 131(4), 2012):
/// 1. Every ``hopLength`` samples (16 ms) the last ``frameLength`` samples (128 at 16 kHz) are
///    Hann-windowed and transformed (``/DSPSpectral/RealFFT``: FFTW, or the built-in FFT without
///    the `FFTW` trait); the power in two bands of two octaves each (354–1414 Hz: the 500 Hz and
///    1 kHz octaves; 1414–5657 Hz: 2 and 4 kHz) is smoothed over frames by one pole (0.3: at most
///    −5.2 dB per frame, so RT60 ≥ 0.18 s is measurable) and taken in dB
///    (``/DSPSpectral/FastLog``). A ``NoiseFloorTracker`` (2 s minimum statistics) follows each
///    band's floor; a background level given from outside (``setBackground(_:band:from:)``)
///    lowers it where it lies under it. In a long room the tracked floor rises with the
///    reverberant field while someone speaks; `AnalysisChain` gives the background-noise
///    estimate, which holds the field out, so the decays there stay measurable.
/// 2. A *free decay* starts where a band's level falls from a peak at least
///    ``Configuration/minimumFallDB`` + ``Configuration/floorMarginDB`` above the floor, and
///    lasts while the level stays under the peak, rises by at most 3 dB from one frame to the
///    next (a reverberant tail fluctuates; a stricter test keeps only decays that happen to
///    fluctuate downwards, and under-reads long rooms), and stays above floor + margin and
///    −100 dBFS; at most 1.5 s.
/// 3. The late part of each decay — from 50 ms after the peak, when the direct sound and the
///    speech's own offset are over — is fitted by least squares (at least
///    ``Configuration/minimumDecaySeconds`` of it, falling ≥ ``Configuration/minimumFallDB``
///    overall); `60 / slope` is that decay's RT60, and the peak's height over the fitted line
///    at the peak is its *jump* (the direct sound's share of the level before the offset).
///    Both go into fixed histograms (RT60: 2 % bins from 0.1 to 5 s; jump: 0.25 dB bins), so
///    the unit's memory and the result do not depend on the stream's length or chunking.
/// 4. RT60 = `m^1.4` with `m` the ``Configuration/rt60Quantile`` (median) of the decays' RT60s:
///    observed decays are compressed towards 0.5–1 s (short rooms read long because the
///    speech's own decays and the smoothing are slower than the room; long rooms read short
///    because speech pauses cut decays before their slow part). The exponent was fitted on two
///    voices (en-us, de) and is tested on two others (es, en-f3).
/// 5. C50 from a diffuse exponential tail (Schroeder) plus the direct sound: with
///    `q = e^(13.8·0.05/RT60) − 1` (the tail's energy before 50 ms over that after) and
///    `DRR = 10^(jump/10) − 1` (the median jump), `C50 = 10·log10(q + DRR·(1 + q))`.
///    Without a direct sound it reduces to the classic `10·log10(e^(0.69/RT60) − 1)`.
///
/// **Accuracy measured** (`ReverberationEstimatorTests`): 12 s of espeak-ng speech (es + en-f3)
/// convolved with synthetic room responses — a direct impulse plus exponentially decaying
/// Gaussian noise, RT60 0.3, 0.6, 1.0 and 1.4 s at direct-to-reverberant ratios −5, 0 and
/// +5 dB — against the truth from the response (Schroeder backward integration with a T20 fit;
/// C50 from the direct sound): 11 of 12 rooms estimated (1.4 s at −5 dB found 16 decays, under
/// the 20 needed), RT60 within 25 % in 10 of 11 (worst +39 %, 1.0 s at −5 dB; near-field
/// rooms, +5 dB, read about 20 % short), C50 median absolute error 1.6 dB (worst 3.5 dB, mostly
/// under-reading: the jump under-estimates a strong direct sound). Dry speech reads RT60
/// ≤ 0.3 s, C50 ≥ 10 dB.
///
/// **Cost.** One 128-point FFT per 16 ms hop and a few operations per band and frame: about
/// 20 µs per second of 16 kHz audio (1.25 ns per input sample, ≈ 50 000× real time; release
/// build, one core of this project's x86-64 build machine, default SSE codegen).
///
/// **Limits.** The model assumes one exponential decay in both bands (real rooms decay
/// faster at high frequencies: the estimate is a 350 Hz–5.7 kHz average); steady noise within
/// about 20 dB of the speech shortens the measurable decays; music, continuous speech without
/// pauses and babble give few decays (``ReverberationEstimate/Status/tooFewDecays``) or
/// decays of the source rather than the room. The calibration comes from synthetic speech and
/// synthetic rooms: treat the figures as a scene measure (dry, moderate, very reverberant),
/// not as an acoustic measurement.
///
/// **Non-finite input.** A frame holding a NaN or ±∞ sample ends every decay in progress
/// (they are dropped) and is counted in ``ReverberationEstimate/nonFiniteFrameCount``; the
/// half of each hop outside the frame is not looked at.
///
/// **Contract.** A ``/DSPCore/StreamingProcessor`` that writes no output: ``maxOutputCount(forInputCount:)``
/// and ``maxFlushOutputCount`` are 0 and ``process(_:into:)`` consumes all its input. The
/// estimate so far is ``estimate`` (on demand, allocation-free); ``flush(into:)`` ends the
/// stream, keeps its estimate for ``finalize()`` and leaves the unit as after ``reset()``.
/// Frames sit at fixed stream positions, so results are bit-identical however the input is
/// chunked. Nothing allocates after `init`.
///
/// ```swift
/// let reverb = try ReverberationEstimator()
/// _ = reverb.process(samples16k, into: UnsafeMutableBufferPointer(start: nil, count: 0))
/// let room = reverb.finalize()
/// print(room.rt60Seconds ?? .nan, room.c50DB ?? .nan, room.decayCount)
/// ```
public final class ReverberationEstimator: StreamAnalyzer, @unchecked Sendable {
    // @unchecked: the FFT, the band trackers and the decay histograms below are reached only holding `ownership`
    // (see StreamOwnership); the FFT is this object's alone.
    /// Input element: a mono sample, nominally in [−1, 1].
    public typealias InputSample = Float
    /// Output element: none is ever written (the estimate is read with ``estimate`` and
    /// ``finalize()``); the type only names what the unit measures.
    public typealias OutputSample = ReverberationEstimate

    /// What an estimator is built for.
    public struct Configuration: Equatable, Sendable {
        /// The input's sample rate, Hz. Range 8000…48 000; default 16 000.
        public var sampleRate: Int
        /// Time between analysis frames, seconds; each frame is the power of two ≤ half the hop
        /// (128 samples at 16 kHz and the default hop). Range 0.008…0.032; default 0.016.
        public var hopSeconds: Double
        /// Least length of a free decay, seconds. Range 0.05…1; default 0.096 (6 frames).
        public var minimumDecaySeconds: Double
        /// Least fall of a free decay from its peak, dB. Range 3…60; default 10.
        public var minimumFallDB: Double
        /// A decay stops this close to the band's noise floor, dB. Range 0…30; default 6.
        public var floorMarginDB: Double
        /// Which quantile of the decays' RT60s is calibrated into the estimate. Range 0.01…0.99;
        /// default 0.5 (the median; the calibration was fitted for it).
        public var rt60Quantile: Double
        /// Decays needed for an estimate. Range 1…10 000; default 20.
        public var minimumDecayCount: Int

        /// Creates a configuration; see each property for its range and default.
        public init(
            sampleRate: Int = 16_000, hopSeconds: Double = 0.016, minimumDecaySeconds: Double = 0.096,
            minimumFallDB: Double = 10, floorMarginDB: Double = 6, rt60Quantile: Double = 0.5, minimumDecayCount: Int = 20
        ) {
            self.sampleRate = sampleRate
            self.hopSeconds = hopSeconds
            self.minimumDecaySeconds = minimumDecaySeconds
            self.minimumFallDB = minimumFallDB
            self.floorMarginDB = floorMarginDB
            self.rt60Quantile = rt60Quantile
            self.minimumDecayCount = minimumDecayCount
        }

        /// Throws the first setting out of range, in the order of the properties.
        public func validate() throws(ConfigurationError) {
            try ConfigurationError.check("sampleRate", sampleRate, in: 8000...48_000)
            try ConfigurationError.check("hopSeconds", hopSeconds, in: 0.008...0.032)
            try ConfigurationError.check("minimumDecaySeconds", minimumDecaySeconds, in: 0.05...1)
            try ConfigurationError.check("minimumFallDB", minimumFallDB, in: 3...60)
            try ConfigurationError.check("floorMarginDB", floorMarginDB, in: 0...30)
            try ConfigurationError.check("rt60Quantile", rt60Quantile, in: 0.01...0.99)
            try ConfigurationError.check("minimumDecayCount", minimumDecayCount, in: 1...10_000)
        }
    }

    /// One band's decay in progress.
    struct Decay {
        var active = false
        /// Frames since the peak.
        var length = 0
        var peak: Float = 0
        var previous: Float = -.infinity
    }

    /// The settings, as validated.
    public let configuration: Configuration
    /// Samples from one frame to the next.
    public let hopLength: Int
    /// Samples per frame (the FFT size), a power of two ≤ `hopLength / 2`, the last of each hop.
    public let frameLength: Int
    /// Octave bands analysed: centre frequencies, Hz (500, 1000, 2000, 4000 at 16 kHz).
    public let bandCentersHz: [Double]

    /// RT60 histogram: bins `i` cover `rtLowest·rtRatio^i … ·rtRatio`, seconds.
    static let rtLowest = 0.1
    static let rtRatio = 1.02
    static let rtBinCount = 198   // to 0.1 × 1.02^198 ≈ 5.04 s
    /// Direct-sound jump histogram: 0.25 dB bins from 0 to 40 dB.
    static let jumpBinWidth = 0.25
    static let jumpBinCount = 160
    /// Frames below this band level, dBFS, count as silence.
    static let silenceDBFS: Float = -100

    /// The frame transform, planned once per size and shared; a frame's buffers come from the
    /// calling thread's workspace.
    private let fft: SharedRealFFT
    private let workspace = ScratchWorkspace()
    private let window: UnsafeMutableBufferPointer<Float>
    private let frame: UnsafeMutableBufferPointer<Float>
    private let bandRanges: [Range<Int>]
    private let bandScale: Float
    private let bandPowers: UnsafeMutableBufferPointer<Float>
    /// Band powers smoothed over frames (one pole, ``smoothing``).
    private let smoothed: UnsafeMutableBufferPointer<Float>
    /// One-pole smoothing of the band powers per frame: −5.2 dB per frame at most (about
    /// 330 dB/s at the default hop, RT60 ≥ 0.18 s measurable).
    static let smoothing: Float = 0.3
    /// Exponent of the calibration `RT60 = observed^p`, fitted on the calibration voices.
    static let calibrationExponent = 1.4
    /// A decay may rise this much from one frame to the next, dB.
    static let riseToleranceDB: Float = 3
    private let floors: NoiseFloorTracker
    /// Each band's background level from outside (``setBackground(_:band:from:)``), dBFS; +∞
    /// for none.
    private let background: UnsafeMutableBufferPointer<Float>
    /// Up to ``pendingBackgroundSlots`` waiting levels, oldest first: positions and each one's
    /// band levels (NaN where a band was not given).
    private let pendingFrom: UnsafeMutableBufferPointer<Int64>
    private let pendingLevels: UnsafeMutableBufferPointer<Float>
    private var pendingCount = 0
    /// Waiting background levels an estimator holds at most (more apply the oldest early).
    public static let pendingBackgroundSlots = 8
    private let decays: UnsafeMutablePointer<Decay>
    private let rtHistogram: UnsafeMutableBufferPointer<Int32>
    private let jumpHistogram: UnsafeMutableBufferPointer<Int32>
    private let minimumFrames: Int
    private let c50Frames: Int
    /// Longest decay followed, frames (1.5 s).
    private let maximumFrames: Int
    /// Each band's decay levels, dB: row `b` holds the peak at 0 and frame `t` after it at `t`.
    private let levels: UnsafeMutableBufferPointer<Float>
    /// Row length of ``levels``: `maximumFrames + 1`.
    private let stride: Int

    private var position: Int64 = 0
    private var frames = 0
    private var nonFiniteFrames = 0
    private var decayCount = 0
    private var flushed: ReverberationEstimate?

    /// Validates `configuration` and allocates everything (FFT plan included).
    public init(configuration: Configuration = Configuration()) throws(ConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        let rate = Double(configuration.sampleRate)
        hopLength = Int((rate * configuration.hopSeconds).rounded())
        var n = 1
        while n * 2 <= hopLength / 2 { n *= 2 }
        frameLength = n
        fft = try SharedRealFFT.shared(size: frameLength)
        workspaceBytes = ScratchWorkspace.bytes(Float.self, frameLength) + ScratchWorkspace.bytes(Float.self, 2 * (frameLength / 2 + 1))
            + ScratchWorkspace.bytes(Float.self, Swift.max(1, fft.scratchCount))
        window = .allocate(capacity: frameLength)
        let hann = try Window(.hann, length: frameLength)
        _ = window.initialize(from: hann.coefficients)
        frame = .allocate(capacity: frameLength)
        frame.initialize(repeating: 0)
        let binHz = rate / Double(frameLength)
        // Two bands of two octaves each: 354–1414 Hz (the 500 Hz and 1 kHz octaves) and
        // 1414–5657 Hz (2 and 4 kHz), or up to the Nyquist frequency.
        var centers: [Double] = []
        var ranges: [Range<Int>] = []
        for center in [707.0, 2828.0] where center * 2 <= rate / 2 * 1.5 {
            let lo = Swift.max(1, Int((center / 2 / binHz).rounded()))
            let hi = Swift.min(frameLength / 2, Int((center * 2 / binHz).rounded()))
            centers.append(center)
            ranges.append(lo..<Swift.max(lo + 1, hi))
        }
        bandCentersHz = centers
        bandRanges = ranges
        // Σ|X[k]|² over a band × scale = the band's mean square (a full-scale sine: 0.5).
        bandScale = Float(2 / (Double(frameLength) * hann.sumOfSquares))
        bandPowers = .allocate(capacity: centers.count)
        bandPowers.initialize(repeating: 0)
        smoothed = .allocate(capacity: centers.count)
        smoothed.initialize(repeating: 0)
        floors = try NoiseFloorTracker(configuration: .init(
            bandCount: centers.count, frameSeconds: Double(hopLength) / rate, windowSeconds: 2))
        background = .allocate(capacity: centers.count)
        background.initialize(repeating: .infinity)
        pendingFrom = .allocate(capacity: Self.pendingBackgroundSlots)
        pendingFrom.initialize(repeating: 0)
        pendingLevels = .allocate(capacity: Self.pendingBackgroundSlots * centers.count)
        pendingLevels.initialize(repeating: .nan)
        decays = .allocate(capacity: centers.count)
        decays.initialize(repeating: Decay(), count: centers.count)
        rtHistogram = .allocate(capacity: Self.rtBinCount)
        rtHistogram.initialize(repeating: 0)
        jumpHistogram = .allocate(capacity: Self.jumpBinCount)
        jumpHistogram.initialize(repeating: 0)
        minimumFrames = Swift.max(3, Int((configuration.minimumDecaySeconds * rate / Double(hopLength)).rounded()))
        maximumFrames = Int((1.5 * rate / Double(hopLength)).rounded())
        stride = maximumFrames + 1
        levels = .allocate(capacity: centers.count * stride)
        levels.initialize(repeating: 0)
        c50Frames = Swift.max(1, Int((0.05 * rate / Double(hopLength)).rounded()))
    }

    deinit {
        window.deallocate(); frame.deallocate(); bandPowers.deallocate(); smoothed.deallocate(); decays.deinitialize(count: bandCentersHz.count); decays.deallocate()
        rtHistogram.deallocate(); jumpHistogram.deallocate(); levels.deallocate(); background.deallocate(); pendingFrom.deallocate(); pendingLevels.deallocate()
    }

    // MARK: Streaming contract

    /// 0: the unit writes no output.
    public var outputDelay: Int { 0 }
    private let ownership = StreamOwnership()

    /// Takes the ownership flag; two overlapping calls stop the program.
    @inline(__always)
    private func enter() {
        if !ownership.acquire() { preconditionFailure("ReverberationEstimator: overlapping calls from two threads (one stream, one caller at a time)") }
    }
    /// 0: the unit writes no output.
    public func maxOutputCount(forInputCount inputCount: Int) -> Int { 0 }
    /// 0: ``flush(into:)`` writes nothing.
    public var maxFlushOutputCount: Int { 0 }

    /// Takes all of `input` (the output buffer is not touched and may be empty), analysing the
    /// frames it completes. Never allocates.
    public func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<ReverberationEstimate>
    ) -> ProcessResult {
        enter(); defer { ownership.release() }
        guard let source = input.baseAddress, !input.isEmpty else { return ProcessResult(consumed: 0, produced: 0) }
        if flushed != nil { flushed = nil }
        let hop = Int64(hopLength)
        let skip = Int64(hopLength - frameLength)
        var offset = 0
        while offset < input.count {
            let phase = Int((position + Int64(offset)) % hop)
            let take = Swift.min(input.count - offset, hopLength - phase)
            // The part of [phase, phase + take) inside the frame [skip, hop).
            let from = Swift.max(phase, Int(skip)), to = phase + take
            if to > from {
                (frame.baseAddress! + (from - Int(skip))).update(from: source + offset + (from - phase), count: to - from)
            }
            offset += take
            if phase + take == hopLength {
                // The hop started at `position + offset − hopLength`.
                while pendingCount > 0, pendingFrom[0] <= position + Int64(offset) - hop { applyOldestPending() }
                analyzeFrame()
            }
        }
        position += Int64(input.count)
        return ProcessResult(consumed: input.count, produced: 0)
    }

    /// Ends the stream: keeps its estimate for ``finalize()`` and readies the estimator for a
    /// new stream (as after ``reset()``). Decays still running are not counted. Writes nothing.
    public func flush(into output: UnsafeMutableBufferPointer<ReverberationEstimate>) -> Int {
        enter(); defer { ownership.release() }
        let ended = currentEstimate()
        resetStream()
        flushed = ended
        return 0
    }

    /// Forgets the stream (and a flushed stream's estimate).
    public func reset() {
        enter(); defer { ownership.release() }
        resetStream()
    }

    private func resetStream() {
        position = 0
        frames = 0
        nonFiniteFrames = 0
        decayCount = 0
        floors.reset()
        smoothed.update(repeating: 0)
        for b in 0..<bandCentersHz.count { decays[b] = Decay() }
        rtHistogram.update(repeating: 0)
        jumpHistogram.update(repeating: 0)
        background.update(repeating: .infinity)
        pendingLevels.update(repeating: .nan)
        pendingCount = 0
        flushed = nil
    }

    /// Sets band `band`'s background level, dBFS, for the frames whose hop starts at or after
    /// stream sample `position` (at once when the stream is already there): a decay's floor is
    /// then the lower of it and the band's own tracked floor. The tracked floor (the least level
    /// over about 2 s) rises with a long room's reverberant field while someone speaks, so few
    /// decays clear it there; a background estimate that holds the field out (`AnalysisChain`
    /// gives ``NoiseLevelEstimator``'s, summed over the band, at each environment measurement,
    /// from a fixed distance after it so that the position does not depend on how far the
    /// estimator had read) keeps them. +∞ (as after ``reset()``) leaves the tracked floor alone.
    /// Levels wait in order of their positions (given in that order); with more than
    /// ``pendingBackgroundSlots`` waiting, the oldest applies early. Never allocates.
    public func setBackground(_ levelDBFS: Float, band: Int, from position: Int64 = 0) {
        enter(); defer { ownership.release() }
        guard band >= 0, band < bandCentersHz.count, !levelDBFS.isNaN else { return }
        guard position > self.position else {
            background[band] = levelDBFS
            return
        }
        let bands = bandCentersHz.count
        if pendingCount == 0 || pendingFrom[pendingCount - 1] != position {
            if pendingCount == Self.pendingBackgroundSlots { applyOldestPending() }
            pendingFrom[pendingCount] = position
            pendingCount += 1
        }
        pendingLevels[(pendingCount - 1) * bands + band] = levelDBFS
    }

    /// Moves the oldest waiting levels in.
    private func applyOldestPending() {
        let bands = bandCentersHz.count
        for b in 0..<bands where !pendingLevels[b].isNaN { background[b] = pendingLevels[b] }
        for i in 1..<Swift.max(1, pendingCount) {
            pendingFrom[i - 1] = pendingFrom[i]
            for b in 0..<bands { pendingLevels[(i - 1) * bands + b] = pendingLevels[i * bands + b] }
        }
        pendingCount -= 1
        for b in 0..<bands { pendingLevels[pendingCount * bands + b] = .nan }
    }

    /// The ended stream's estimate: the one ``flush(into:)`` kept, or — without a flush — the
    /// current stream's, which is then ended (the estimator is left as after ``reset()``).
    public func finalize() -> ReverberationEstimate {
        enter(); defer { ownership.release() }
        if let flushed {
            self.flushed = nil
            return flushed
        }
        let result = currentEstimate()
        resetStream()
        return result
    }

    // MARK: Analysis

    private func analyzeFrame() {
        frames += 1
        let n = frameLength
        let scope = workspace.enter(reserving: workspaceBytes)
        defer { scope.leave() }
        let input = scope.take(Float.self, count: n)
        let spectrum = scope.take(Float.self, count: 2 * (n / 2 + 1))
        let fftScratch = scope.take(Float.self, count: Swift.max(1, fft.scratchCount))
        // The frame's energy only decides whether it is finite (a sum of squares that overflows
        // counts as non-finite, like a NaN or ±Inf sample): eight partial sums, so the loop is
        // not one long chain of dependent additions.
        var lanes = SIMD8<Float>()
        var i = 0
        let x = UnsafeRawPointer(frame.baseAddress!), w = UnsafeRawPointer(window.baseAddress!)
        let y = UnsafeMutableRawPointer(input)
        while i + 8 <= n {
            let v = x.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self)
            y.storeBytes(of: v * w.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self), toByteOffset: 4 * i, as: SIMD8<Float>.self)
            lanes += v * v
            i += 8
        }
        var energy = lanes.sum()
        while i < n {
            input[i] = frame[i] * window[i]
            energy += frame[i] * frame[i]
            i += 1
        }
        let bandCount = bandCentersHz.count
        guard energy.isFinite else {
            nonFiniteFrames += 1
            for b in 0..<bandCount { decays[b] = Decay() }
            return
        }
        fft.forward(input: input, spectrum: spectrum, scratch: fftScratch)
        for b in 0..<bandCount {
            var sum: Float = 0
            for k in bandRanges[b] { sum += spectrum[2 * k] * spectrum[2 * k] + spectrum[2 * k + 1] * spectrum[2 * k + 1] }
            bandPowers[b] = sum * bandScale
        }
        floors.update(UnsafeBufferPointer(bandPowers))
        let noise = floors.noisePowers
        let a = Self.smoothing
        for b in 0..<bandCount {
            smoothed[b] = smoothed[b] == 0 ? bandPowers[b] : a * smoothed[b] + (1 - a) * bandPowers[b]
            let level = FastLog.decibels(smoothed[b])
            let floor = Swift.min(FastLog.decibels(noise[b]), background[b])
            track(&decays[b], band: b, level: level, floor: floor)
        }
    }

    /// Bytes a frame's analysis takes from the workspace: the windowed frame, its spectrum and
    /// the FFT's scratch (worked out once, in `init`).
    private let workspaceBytes: Int

    /// Advances one band's decay detector by a frame at `level` (dBFS) over `floor` (dBFS).
    @inline(__always)
    private func track(_ d: inout Decay, band: Int, level: Float, floor: Float) {
        let margin = Float(configuration.floorMarginDB)
        let audible = level > Self.silenceDBFS && level > floor + margin
        if d.active {
            if audible, level <= d.previous + Self.riseToleranceDB, level < d.peak, d.length < maximumFrames {
                d.length += 1
                levels[band * stride + d.length] = level
                d.previous = level
                return
            }
            finish(d, band: band)
            d = Decay()
        }
        // A fall from the previous frame starts a decay there.
        if audible, level < d.previous, d.previous > floor + margin + Float(configuration.minimumFallDB) {
            let peak = d.previous
            d = Decay()
            d.active = true
            d.peak = peak
            d.length = 1
            levels[band * stride] = peak
            levels[band * stride + 1] = level
        }
        d.previous = level
    }

    /// Fits a finished decay's late part (from ``c50Frames`` after the peak: the direct sound
    /// and the speech's own offset are over) and adds it to the histograms if it qualifies.
    private func finish(_ d: Decay, band: Int) {
        let first = c50Frames
        guard d.length - first + 1 >= minimumFrames else { return }
        let row = levels.baseAddress! + band * stride
        var sumT = 0.0, sumTT = 0.0, sumL = 0.0, sumTL = 0.0
        for t in first...d.length {
            let x = Double(t), l = Double(row[t])
            sumT += x; sumTT += x * x; sumL += l; sumTL += x * l
        }
        let count = Double(d.length - first + 1)
        let slopeDenominator = count * sumTT - sumT * sumT
        guard slopeDenominator > 0 else { return }
        let slope = (count * sumTL - sumT * sumL) / slopeDenominator   // dB per frame
        let intercept = (sumL - slope * sumT) / count
        let fall = Double(d.peak) - Double(row[d.length])
        guard slope < 0, fall >= configuration.minimumFallDB else { return }
        let rt60 = -60 / slope * Double(hopLength) / Double(configuration.sampleRate)
        let rtBin = Int((log(rt60 / Self.rtLowest) / log(Self.rtRatio)).rounded(.down))
        rtHistogram[Swift.min(Self.rtBinCount - 1, Swift.max(0, rtBin))] += 1
        let jump = Double(d.peak) - intercept
        let jumpBin = Int((jump / Self.jumpBinWidth).rounded(.down))
        jumpHistogram[Swift.min(Self.jumpBinCount - 1, Swift.max(0, jumpBin))] += 1
        decayCount += 1
    }

    // MARK: Estimating

    /// The estimate over the stream so far (after a ``flush(into:)``, the flushed stream's).
    /// Computed on demand from the decay histograms; never allocates.
    public var estimate: ReverberationEstimate {
        enter(); defer { ownership.release() }
        return currentEstimate()
    }

    /// ``estimate`` for a caller holding the flag.
    private func currentEstimate() -> ReverberationEstimate {
        if let flushed { return flushed }
        var result = ReverberationEstimate.empty
        result.decayCount = decayCount
        result.frameCount = frames
        result.nonFiniteFrameCount = nonFiniteFrames
        result.inputSeconds = Double(position) / Double(configuration.sampleRate)
        guard decayCount >= configuration.minimumDecayCount else { return result }
        let rtIndex = CountHistogram.quantile(rtHistogram, configuration.rt60Quantile, total: decayCount)
        let observed = Self.rtLowest * pow(Self.rtRatio, rtIndex)
        // Calibration (see the type's documentation): observed decays are compressed towards
        // 0.5–1 s; RT60 = observed^1.4 maps them back.
        let rt60 = pow(observed, Self.calibrationExponent)
        let jump = CountHistogram.quantile(jumpHistogram, 0.5, total: decayCount) * Self.jumpBinWidth
        // Diffuse tail (Schroeder): the reverberant energy before 50 ms over that after.
        let q = exp(13.8155 * 0.05 / rt60) - 1
        let drr = Swift.max(0, pow(10, jump / 10) - 1)
        result.status = .estimated
        result.rt60Seconds = rt60
        result.directToReverberantDB = 10 * log10(Swift.max(drr, 1e-6))
        result.c50DB = 10 * log10(q + drr * (1 + q))
        return result
    }
}

extension ReverberationEstimator: MemoryAccounting {
    /// The window, the frame, band powers, decay states, histograms and the floor tracker,
    /// owned; the transform's plan, shared; a frame's FFT buffers, from the thread's workspace.
    public var memoryFootprint: MemoryFootprint {
        .owned(MemoryFootprint.bytes(window) + MemoryFootprint.bytes(frame) + MemoryFootprint.bytes(bandPowers) + MemoryFootprint.bytes(smoothed)
            + MemoryFootprint.bytes(Decay.self, bandCentersHz.count) + MemoryFootprint.bytes(rtHistogram)
            + MemoryFootprint.bytes(jumpHistogram) + MemoryFootprint.bytes(levels) + MemoryFootprint.bytes(Range<Int>.self, bandRanges.count)
            + MemoryFootprint.bytes(Double.self, bandCentersHz.count) + MemoryFootprint.bytes(background) + MemoryFootprint.bytes(pendingFrom) + MemoryFootprint.bytes(pendingLevels))
            + floors.memoryFootprint + MemoryFootprint(sharedBytes: fft.allocatedBytes, workspaceBytes: workspaceBytes)
    }
}
