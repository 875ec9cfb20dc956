import DSPCore
import DSPSpectral

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Estimates the effective audio bandwidth of a stream at its own sample rate: catches
/// telephone audio upsampled to 48 kHz, wideband audio, codec low-passes and true fullband.
///
/// **Method.** Every ``hopLength`` samples (1/8 s by default) one frame of ``frameLength``
/// samples (the power of two nearest to 20 ms: 1024 at 44.1/48 kHz, 256 at 16 kHz, 4096 at
/// 192 kHz) is windowed (4-term Blackman–Harris, sidelobes −92 dB, so that a steep roll-off
/// stays steep) and transformed (``/DSPSpectral/RealFFT``: FFTW, or the built-in FFT without the
/// `FFTW` trait); frames whose RMS is below ``Configuration/silenceThresholdDBFS`` are skipped, the
/// power spectra of the others summed: the long-term average spectrum (LTAS). At the end
/// (``estimate``, ``finalize()``) the LTAS is grouped into 1/24-octave bands from 100 Hz to the
/// Nyquist frequency (at least one FFT bin each); `L(b)` is band `b`'s mean power per bin, in dB.
///
/// 1. **Reference level** `R`: the mean power per bin of the LTAS from 100 Hz to 4 kHz (the
///    band every channel carries, where speech and most music have their power), but at least
///    the loudest band's level less 40 dB (so that a signal with nothing below 4 kHz is measured
///    against itself).
/// 2. **Signal**: a band is content only if `L(b) ≥ R − signalRangeDB` (50 dB by default).
///    Deeper content is a channel's, not the signal's: 16-bit dither (−96 dBFS, flat or
///    noise-shaped up to the Nyquist frequency) and a codec's images of its passband lie 52 dB
///    and more below `R` for speech at −24 dBFS, while a white noise floor 35 dB under the speech
///    (as in issue 19's scene material) lies 40–45 dB below it.
/// 3. **Edge**: the reference of band `b` is `W(b)`, the mean of `max(L, R − signalRangeDB)`
///    over the bands starting from ½ to ¼ octave below band `b`'s start. Band `b` is inside the
///    bandwidth when it is content and `L(b) ≥ W(b) − edgeDepthDB` (10 dB by default): it has
///    not fallen 10 dB below the spectrum under it. The bandwidth is where the highest such band
///    gives way to the one above it: the frequency, interpolated linearly in log-frequency
///    between the two bands' centres, at which `L(b) − max(W(b) − edgeDepthDB, R − signalRangeDB)`
///    crosses 0 dB. When the highest band is inside, the bandwidth is `sampleRate / 2`
///    (``BandwidthEstimate/Status/nyquist``).
///
/// Why these numbers. A resampler's or codec's low-pass turns the spectrum down by 40–100 dB
/// within half an octave or much less, faster than speech or music fall (a few dB per octave,
/// 20–30 dB per octave at the top of a voice), so a band 10 dB under the spectrum ½–¼ octave
/// below it is on a filter's skirt. Comparing with a reference ¼–½ octave away rather than with
/// the next band puts the reading at the skirt's −10 dB point even for the wide skirts of
/// polyphase resamplers: scipy's Kaiser-windowed `resample_poly`, down and back up, goes from
/// −1 dB at 0.8 of its cut-off to −40 dB at 1.2 and is −9 dB at the cut-off itself, and white
/// noise through it reads 1.007–1.028 of the cut-off (4, 8, 11.025 and 16 kHz at 44.1 and
/// 48 kHz). The foot of the skirt, where the earlier version read (4.65–4.95 kHz for an 8 kHz
/// channel), is not the edge. A tone or narrow-band signal gives the frequency its energy ends
/// at (a 1 kHz sine: about 1.16 kHz, the window's main lobe; class narrowband): the estimate
/// describes the content, not the recording chain. The idea —
/// the highest frequency of the long-term spectrum before it drops to the floor — is that of
/// spectrum-based codec cut-off checks (e.g. Spek-style "fake lossless" analysis); the
/// reference, the floor and the edge criterion are ours.
///
/// **Accuracy measured.** Unit tests (`BandwidthEstimatorTests`): white noise, pink noise
/// (generated and TestAudio's) and three espeak-ng voices at 48 kHz band-limited by
/// ``/DSPCore/Resampler`` round trips through 8, 16, 22.05, 32 and 44.1 kHz, and unlimited: 36 of
/// 36 classed correctly, every bandwidth within 10 % of the nominal (noise 0.943–0.958 of r/2: the
/// resampler passes to 0.875 and stops at 1.0 of r/2, so its −10 dB point is there; speech
/// 0.91–0.96); an 8 kHz channel at 44.1 and 48 kHz through the resampler with 16-bit dither, a
/// scipy-like Kaiser round trip (the skirt the earlier estimator read at 4.65–4.8 kHz) and a
/// brick wall: 3.83–4.04 kHz; speech over a white floor 35 dB down, open (the floor reaches
/// 22.05 kHz), through a scipy-like 22.05 kHz round trip with dither (10.1 kHz), through
/// 32 kHz with only the floor above 7.75 kHz (15.0 kHz) and under an MP3-like 11 kHz brick
/// wall (11.0 kHz); an 8 kHz channel under noise-shaped dither 55 dB below the speech band
/// (3.95 kHz; fullband with a 60 dB signal range). Issue 19's scene material, dev split (39
/// files: scipy round trips through 8, 22.05 and 44.1 kHz, AMR-NB and Opus at 8 kHz, MP3 with
/// an 11 kHz low-pass, each over a white floor 35 dB down): class exact 39 of 39, bandwidth
/// median error 2.2 %, 90th percentile 8.2 %, 38 of 39 within 10 % (the 39th, an Opus file
/// whose decoded speech already falls from 3.2 kHz, reads 3.3 kHz); see
/// `docs/scene-measures.md`. The bundled espeak-ng speech is synthesised at 22.05 kHz: at 48 kHz
/// it reads about 10.2–10.4 kHz (super-wideband), not fullband.
///
/// Limitations: frames sample 1/6 of the input at 48 kHz, so content that is brief *and* alone
/// in its band (a fast sweep's top, a single click) can fall between frames. The reading is
/// where the *content* falls: a signal whose own spectrum falls 10 dB or more a little below
/// the channel's edge — a voice synthesised at 16 kHz over a noise floor that fills less than
/// about half an octave above it, an Opus decoder's weak top band — reads its own fall; a
/// tonal signal with a strong partial just above a gentle skirt (a violin through a scipy 4 kHz
/// round trip: 4.5 kHz) reads up to 15 % high. Content 50 dB under the 100 Hz–4 kHz level is
/// ignored by design, so a noise floor at more than about 40 dB SNR does not widen the reading.
///
/// **Cost.** Only one frame per hop is read: 8 FFTs of 1024 points per second at 48 kHz; the
/// samples between frames are skipped, not copied. Measured (release build, one core of this
/// project's x86-64 build machine, default SSE codegen, 1024-sample pushes): about 19–22 µs per
/// second of 48 kHz audio (0.4 ns per input sample, ≈ 50 000× real time), 4.6 µs per second at
/// 16 kHz. The estimate (on demand, once per file in `dspscore`) is about 300 logarithms and as
/// many sums over the bands.
///
/// **Non-finite input.** A frame holding a NaN or ±∞ sample (or whose energy overflows a Float,
/// |x| ≳ 1e18) is skipped and counted in ``BandwidthEstimate/nonFiniteFrameCount``; samples
/// between frames are not looked at.
///
/// **Contract.** A ``/DSPCore/StreamingProcessor`` that writes no output:
/// ``maxOutputCount(forInputCount:)`` and ``maxFlushOutputCount`` are 0 and ``process(_:into:)``
/// consumes all its input. The estimate so far is ``estimate`` (computed on demand,
/// allocation-free); ``flush(into:)`` ends the stream, keeps its estimate for ``finalize()`` and
/// leaves the estimator as after ``reset()``. Frames sit at fixed stream positions, so the estimate
/// is bit-identical however the input is chunked. Nothing allocates after `init`.
///
/// ```swift
/// let bandwidth = try BandwidthEstimator(configuration: .init(sampleRate: 48_000))
/// _ = bandwidth.process(samples, into: UnsafeMutableBufferPointer(start: nil, count: 0))
/// let result = bandwidth.finalize()
/// print(result.bandwidthHz ?? .nan, result.bandwidthClass?.description ?? "none")
/// ```
public final class BandwidthEstimator: StreamAnalyzer, @unchecked Sendable {
    // @unchecked: the FFT, the frame and the spectrum sum below are reached only holding `ownership`
    // (see StreamOwnership); the FFT is this object's alone.
    /// Input element: a mono sample, nominally in [−1, 1].
    public typealias InputSample = Float
    /// Output element: none is ever written (the estimate is read with ``estimate`` and
    /// ``finalize()``); the type only names what the unit measures.
    public typealias OutputSample = BandwidthEstimate

    /// What an estimator is built for.
    public struct Configuration: Equatable, Sendable {
        /// The input's sample rate, Hz. Range 8000…384 000; no default.
        public var sampleRate: Int
        /// Analysis frame length, seconds; the FFT size is the power of two nearest to
        /// `sampleRate × frameSeconds`. Range 0.005…0.2; default 0.02 (1024 points at 48 kHz).
        public var frameSeconds: Double
        /// Frames analysed per second of input (the hop is `round(sampleRate / framesPerSecond)`
        /// samples, at least one frame). Range 0.5…200; default 8.
        public var framesPerSecond: Double
        /// Frames with an RMS below this level, dBFS, are skipped as silence. Range −200…0;
        /// default −80.
        public var silenceThresholdDBFS: Double
        /// How far below the reference level `R` (the mean level of 100 Hz–4 kHz) content still
        /// counts as signal, dB (see ``BandwidthEstimator``). Range 20…120; default 50.
        public var signalRangeDB: Double
        /// How far a band must lie below the spectrum ½–¼ octave under it to be past the edge, dB
        /// (see ``BandwidthEstimator``). Range 3…30; default 10.
        public var edgeDepthDB: Double
        /// Least input time the frames with signal must stand for before there is an estimate,
        /// seconds. Range 0…3600; default 0.5.
        public var minimumAnalyzedSeconds: Double

        /// Creates a configuration; see each property for its range and default.
        public init(
            sampleRate: Int, frameSeconds: Double = 0.02, framesPerSecond: Double = 8, silenceThresholdDBFS: Double = -80,
            signalRangeDB: Double = 50, edgeDepthDB: Double = 10, minimumAnalyzedSeconds: Double = 0.5
        ) {
            self.sampleRate = sampleRate
            self.frameSeconds = frameSeconds
            self.framesPerSecond = framesPerSecond
            self.silenceThresholdDBFS = silenceThresholdDBFS
            self.signalRangeDB = signalRangeDB
            self.edgeDepthDB = edgeDepthDB
            self.minimumAnalyzedSeconds = minimumAnalyzedSeconds
        }

        /// Throws the first setting out of range, in the order of the properties.
        public func validate() throws(ConfigurationError) {
            try ConfigurationError.check("sampleRate", sampleRate, in: 8000...384_000)
            try ConfigurationError.check("frameSeconds", frameSeconds, in: 0.005...0.2)
            try ConfigurationError.check("framesPerSecond", framesPerSecond, in: 0.5...200)
            try ConfigurationError.check("silenceThresholdDBFS", silenceThresholdDBFS, in: -200...0)
            try ConfigurationError.check("signalRangeDB", signalRangeDB, in: 20...120)
            try ConfigurationError.check("edgeDepthDB", edgeDepthDB, in: 3...30)
            try ConfigurationError.check("minimumAnalyzedSeconds", minimumAnalyzedSeconds, in: 0...3600)
        }
    }

    /// The settings, as validated.
    public let configuration: Configuration
    /// Samples per analysis frame (the FFT size), a power of two.
    public let frameLength: Int
    /// Samples from one frame's start to the next one's (≥ ``frameLength``).
    public let hopLength: Int
    /// Width of one FFT bin, Hz.
    public var binHz: Double { Double(configuration.sampleRate) / Double(frameLength) }

    /// Lowest band edge, Hz.
    static let lowestEdgeHz = 100.0
    /// Bands per octave.
    static let bandsPerOctave = 24.0
    /// The reference level is the mean power per bin from `referenceLowHz` to `referenceHighHz`.
    static let referenceLowHz = 100.0
    /// Upper end of the reference band, Hz (or the Nyquist frequency, at 8 kHz).
    static let referenceHighHz = 4000.0
    /// The reference level is at least the loudest band's level less this, dB.
    static let referenceBelowPeakDB = 40.0
    /// The edge reference of a band spans the bands starting from 2^−`windowFarOctaves` to
    /// 2^−`windowNearOctaves` of the band's start.
    static let windowFarOctaves = 0.5
    /// See ``windowFarOctaves``.
    static let windowNearOctaves = 0.25
    /// ``BandwidthEstimate/edgeDropDB`` compares the edge's reference with the bands from this
    /// far above the edge up, octaves (past a resampler's skirt).
    static let depthGuardOctaves = 0.25

    private let fft: RealFFT
    private let window: UnsafeMutableBufferPointer<Float>
    /// The frame being gathered (raw samples).
    private let frame: UnsafeMutableBufferPointer<Float>
    /// Σ of the analysed frames' power spectra, per bin.
    private let powerSum: UnsafeMutableBufferPointer<Double>
    /// First bin of each band, plus one past the last band's last bin (`bandCount + 1` values).
    private let bandStarts: UnsafeMutableBufferPointer<Int>
    private let bandCount: Int
    /// For each band `b`, the first band of its edge reference (the first band starting at or
    /// above band `b`'s start × 2^−½) and one past its last (the first starting at or above
    /// the start × 2^−¼): `2 × bandCount` values, an empty range when no band fits.
    private let windowBands: UnsafeMutableBufferPointer<Int>
    /// Bins of the reference band (100 Hz–4 kHz, bin centres).
    private let referenceBins: Range<Int>
    /// Band levels, dB (scratch for the estimate).
    private let bandLevels: UnsafeMutableBufferPointer<Double>
    /// Running sums of the band levels clamped to the signal floor (scratch; `bandCount + 1`).
    private let clampedSums: UnsafeMutableBufferPointer<Double>
    private let silencePower: Float

    /// Samples consumed in this stream.
    private var position: Int64 = 0
    /// Stream position of the current frame's start.
    private var frameStart: Int64 = 0
    private var analyzedFrames = 0
    private var silentFrames = 0
    private var nonFiniteFrames = 0
    /// The ended stream's estimate, kept by ``flush(into:)`` for ``finalize()``.
    private var flushed: BandwidthEstimate?

    /// Validates `configuration` and allocates everything (FFT plan included).
    public init(configuration: Configuration) throws(ConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        let rate = Double(configuration.sampleRate)
        let ideal = rate * configuration.frameSeconds
        let exponent = Int((log2(ideal)).rounded())
        frameLength = 1 << Swift.max(5, exponent)
        hopLength = Swift.max(frameLength, Int((rate / configuration.framesPerSecond).rounded()))
        fft = try RealFFT(size: frameLength)
        window = .allocate(capacity: frameLength)
        // 4-term Blackman–Harris (sidelobes −92 dB): a sharp roll-off stays sharp in the LTAS.
        for i in 0..<frameLength {
            let phase = 2 * Double.pi * Double(i) / Double(frameLength)
            let w = 0.35875 - 0.48829 * cos(phase) + 0.14128 * cos(2 * phase) - 0.01168 * cos(3 * phase)
            (window.baseAddress! + i).initialize(to: Float(w))
        }
        frame = .allocate(capacity: frameLength)
        frame.initialize(repeating: 0)
        let bins = frameLength / 2 + 1
        powerSum = .allocate(capacity: bins)
        powerSum.initialize(repeating: 0)
        // Bands: 1/24-octave edges from 100 Hz, each at least one bin, up to the Nyquist bin.
        var starts: [Int] = []
        let binWidth = rate / Double(frameLength)
        var start = Swift.max(1, Int((Self.lowestEdgeHz / binWidth).rounded()))
        var edge = Self.lowestEdgeHz
        while start < bins {
            starts.append(start)
            var next = start
            while next <= start, next < bins {
                edge *= pow(2, 1 / Self.bandsPerOctave)
                next = Int((edge / binWidth).rounded())
            }
            start = Swift.min(next, bins)
        }
        starts.append(bins)
        bandCount = starts.count - 1
        bandStarts = .allocate(capacity: starts.count)
        _ = bandStarts.initialize(from: starts)
        windowBands = .allocate(capacity: 2 * bandCount)
        for b in 0..<bandCount {
            let far = Double(starts[b]) * pow(2, -Self.windowFarOctaves)
            let near = Double(starts[b]) * pow(2, -Self.windowNearOctaves)
            let first = (0..<b).first { Double(starts[$0]) >= far } ?? b
            let end = Swift.max(first, (first..<b).first { Double(starts[$0]) >= near } ?? b)
            (windowBands.baseAddress! + 2 * b).initialize(to: first)
            (windowBands.baseAddress! + 2 * b + 1).initialize(to: end)
        }
        let referenceLow = Int((Self.referenceLowHz / binWidth).rounded(.up))
        let referenceHigh = Swift.min(bins - 1, Int((Self.referenceHighHz / binWidth).rounded(.down)))
        referenceBins = referenceLow..<Swift.max(referenceLow, referenceHigh + 1)
        bandLevels = .allocate(capacity: bandCount)
        bandLevels.initialize(repeating: 0)
        clampedSums = .allocate(capacity: bandCount + 1)
        clampedSums.initialize(repeating: 0)
        silencePower = Float(pow(10, configuration.silenceThresholdDBFS / 10))
    }

    /// Builds an estimator for `sampleRate` with the other settings at their defaults.
    /// - Precondition: `sampleRate` is in 8000…384 000 (a ``/DSPCore/ConfigurationError`` traps).
    public convenience init(sampleRate: Int) {
        try! self.init(configuration: Configuration(sampleRate: sampleRate))
    }

    deinit {
        window.deallocate(); frame.deallocate(); powerSum.deallocate(); bandStarts.deallocate(); windowBands.deallocate()
        bandLevels.deallocate(); clampedSums.deallocate()
    }

    // MARK: Streaming contract

    /// 0: the unit writes no output.
    public var outputDelay: Int { 0 }
    private let ownership = StreamOwnership()

    /// Takes the ownership flag; two overlapping calls stop the program.
    @inline(__always)
    private func enter() {
        if !ownership.acquire() { preconditionFailure("BandwidthEstimator: overlapping calls from two threads (one stream, one caller at a time)") }
    }

    /// 0: the unit writes no output.
    public func maxOutputCount(forInputCount inputCount: Int) -> Int { 0 }

    /// 0: ``flush(into:)`` writes nothing.
    public var maxFlushOutputCount: Int { 0 }

    /// Takes all of `input` (the output buffer is not touched and may be empty), gathering and
    /// analysing the frames it completes. Never allocates.
    public func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<BandwidthEstimate>
    ) -> ProcessResult {
        enter(); defer { ownership.release() }
        guard let source = input.baseAddress, !input.isEmpty else { return ProcessResult(consumed: 0, produced: 0) }
        if flushed != nil { flushed = nil }
        let end = position + Int64(input.count)
        let length = Int64(frameLength)
        while frameStart < end {
            let frameEnd = frameStart + length
            // The part of [frameStart, frameEnd) this buffer covers.
            let from = Swift.max(frameStart, position)
            let to = Swift.min(frameEnd, end)
            if to > from {
                (frame.baseAddress! + Int(from - frameStart)).update(
                    from: source + Int(from - position), count: Int(to - from))
            }
            guard to == frameEnd else { break }
            analyzeFrame()
            frameStart += Int64(hopLength)
        }
        position = end
        return ProcessResult(consumed: input.count, produced: 0)
    }

    /// Transforms the gathered frame and adds its power spectrum to the sum.
    private func analyzeFrame() {
        let n = frameLength
        // Eight partial sums, not one chain of dependent additions (the sum may differ from a
        // sequential one in its last bits: it is compared with the silence threshold only).
        var lanes = SIMD8<Float>()
        var i = 0
        let x = UnsafeRawPointer(frame.baseAddress!)
        while i + 8 <= n {
            let v = x.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self)
            lanes += v * v
            i += 8
        }
        var energy = lanes.sum()
        while i < n {
            energy += frame[i] * frame[i]
            i += 1
        }
        guard energy.isFinite else {
            nonFiniteFrames += 1
            return
        }
        guard energy >= silencePower * Float(n), energy > 0 else {
            silentFrames += 1
            return
        }
        let input = fft.forwardInput
        for i in 0..<n { input[i] = frame[i] * window[i] }
        fft.executeForward()
        let spectrum = fft.interleavedSpectrum
        for k in 0..<(n / 2 + 1) {
            let re = spectrum[2 * k], im = spectrum[2 * k + 1]
            powerSum[k] += Double(re * re + im * im)
        }
        analyzedFrames += 1
    }

    /// Ends the stream: keeps its estimate for ``finalize()`` and readies the estimator for a
    /// new stream (as after ``reset()``). A final partial frame is not analysed. Writes nothing.
    public func flush(into output: UnsafeMutableBufferPointer<BandwidthEstimate>) -> Int {
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
        powerSum.update(repeating: 0)
        position = 0
        frameStart = 0
        analyzedFrames = 0
        silentFrames = 0
        nonFiniteFrames = 0
        flushed = nil
    }

    /// The ended stream's estimate: the one ``flush(into:)`` kept, or — without a flush — the
    /// current stream's, which is then ended (the estimator is left as after ``reset()``).
    public func finalize() -> BandwidthEstimate {
        enter(); defer { ownership.release() }
        if let flushed {
            self.flushed = nil
            return flushed
        }
        let result = currentEstimate()
        resetStream()
        return result
    }

    // MARK: Estimating

    /// The estimate over the stream so far (after a ``flush(into:)``, the flushed stream's).
    /// Computed on demand from the long-term spectrum (a logarithm per band, sums over the bins
    /// and bands, one exponential); never allocates.
    public var estimate: BandwidthEstimate {
        enter(); defer { ownership.release() }
        return currentEstimate()
    }

    /// ``estimate`` for a caller holding the flag.
    private func currentEstimate() -> BandwidthEstimate {
        if let flushed { return flushed }
        let rate = Double(configuration.sampleRate)
        var result = BandwidthEstimate.empty
        result.inputSeconds = Double(position) / rate
        result.analyzedFrameCount = analyzedFrames
        result.silentFrameCount = silentFrames
        result.nonFiniteFrameCount = nonFiniteFrames
        result.analyzedSeconds = Double(analyzedFrames) * Double(hopLength) / rate
        guard analyzedFrames > 0, result.analyzedSeconds >= configuration.minimumAnalyzedSeconds else { return result }

        // Band levels in dB, with a floor far below anything a Float spectrum resolves.
        var peak = 0.0
        for k in 0..<(frameLength / 2 + 1) { peak = Swift.max(peak, powerSum[k]) }
        let floor = Swift.max(peak * 1e-30, Double.leastNormalMagnitude)
        var loudest = -Double.infinity
        for b in 0..<bandCount {
            let lo = bandStarts[b], hi = bandStarts[b + 1]
            var sum = 0.0
            for k in lo..<hi { sum += powerSum[k] }
            bandLevels[b] = 10 * log10(sum / Double(hi - lo) + floor)
            loudest = Swift.max(loudest, bandLevels[b])
        }

        // The reference level and the signal floor under it.
        var referenceSum = 0.0
        for k in referenceBins { referenceSum += powerSum[k] }
        let referenceLevel = Swift.max(
            10 * log10(referenceSum / Double(Swift.max(1, referenceBins.count)) + floor), loudest - Self.referenceBelowPeakDB)
        let signalFloor = referenceLevel - configuration.signalRangeDB
        clampedSums[0] = 0
        for b in 0..<bandCount { clampedSums[b + 1] = clampedSums[b] + Swift.max(bandLevels[b], signalFloor) }

        // The highest band inside the bandwidth, and where its margin crosses 0 dB.
        var inside = -1
        var insideMargin = 0.0
        for b in stride(from: bandCount - 1, through: 0, by: -1) {
            let m = margin(b, signalFloor: signalFloor)
            if m >= 0 {
                inside = b
                insideMargin = m
                break
            }
        }
        guard inside >= 0, inside < bandCount - 1 else {
            // The top band is inside (or, which the reference level rules out, no band is).
            result.status = .nyquist
            result.bandwidthHz = rate / 2
            result.bandwidthClass = BandwidthClass(bandwidthHz: rate / 2)
            result.edgeDropDB = nil
            return result
        }
        let above = margin(inside + 1, signalFloor: signalFloor)
        let t = insideMargin / (insideMargin - above)
        let lowCentre = log(centreHz(inside)), highCentre = log(centreHz(inside + 1))
        let edgeHz = Swift.min(rate / 2, exp(lowCentre + t * (highCentre - lowCentre)))
        // The depth of the fall: the edge's reference against everything from ¼ octave above it.
        let stopBin = edgeHz * pow(2, Self.depthGuardOctaves) / binHz
        var highestAbove = -Double.infinity
        for b in (inside + 1)..<bandCount where Double(bandStarts[b]) >= stopBin {
            highestAbove = Swift.max(highestAbove, bandLevels[b])
        }
        result.status = .rollOff
        result.bandwidthHz = edgeHz
        result.bandwidthClass = BandwidthClass(bandwidthHz: edgeHz)
        result.edgeDropDB = highestAbove > -.infinity ? windowLevel(inside + 1) - highestAbove : nil
        return result
    }
}

extension BandwidthEstimator {
    /// `W(b)`: the mean of the clamped band levels over band `b`'s edge reference (½–¼ octave
    /// below it), dB; −∞ when no band lies there (the lowest half octave). Needs `clampedSums`.
    private func windowLevel(_ b: Int) -> Double {
        let first = windowBands[2 * b], end = windowBands[2 * b + 1]
        guard end > first else { return -.infinity }
        return (clampedSums[end] - clampedSums[first]) / Double(end - first)
    }

    /// How far band `b` lies above what it must reach to be inside the bandwidth,
    /// `L(b) − max(W(b) − edgeDepthDB, signalFloor)`, dB (≥ 0: inside).
    private func margin(_ b: Int, signalFloor: Double) -> Double {
        bandLevels[b] - Swift.max(windowLevel(b) - configuration.edgeDepthDB, signalFloor)
    }

    /// Geometric centre of band `b`, Hz.
    private func centreHz(_ b: Int) -> Double {
        (Double(bandStarts[b]) * Double(bandStarts[b + 1])).squareRoot() * binHz
    }
}

extension BandwidthEstimator: MemoryAccounting {
    /// The window, the frame, the spectrum sum, the band table and scratch, and the FFT's
    /// buffers.
    public var memoryFootprint: MemoryFootprint {
        .owned(MemoryFootprint.bytes(window) + MemoryFootprint.bytes(frame) + MemoryFootprint.bytes(powerSum)
            + MemoryFootprint.bytes(bandStarts) + MemoryFootprint.bytes(windowBands) + MemoryFootprint.bytes(bandLevels)
            + MemoryFootprint.bytes(clampedSums))
            + fft.memoryFootprint
    }
}
