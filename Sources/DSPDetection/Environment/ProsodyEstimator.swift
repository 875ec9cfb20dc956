import DSPCore
import DSPSpectral

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The voice's pitch (median and spread of F0 over voiced speech) and speaking rate (syllable
/// nuclei per second of speech), live and per stream, from what ``AcousticDetector`` already
/// computes on every hop: no pitch tracker and no FFT of its own.
///
/// **Input.** One call of ``add(_:powerSpectrum:)`` per detector hop (64 ms frames every 16 ms
/// at 16 kHz), with the hop's ``DetectionFrame`` and the power spectrum it was detected from
/// (``AcousticDetector/process(_:lendingSpectra:)`` lends both; ``AnalysisChain`` does this
/// whenever its environment analyzer runs).
///
/// **F0.** A hop is *voiced* when the detector calls it speech (``DetectionFrame/isSpeech``) and
/// its pitch is clear: autocorrelation harmonicity (``/DSPSpectral/SpectralFeatures/harmonicity``)
/// at least ``Configuration-swift.struct/minimumHarmonicity`` (0.5). The detector has two pitches
/// per hop: the autocorrelation's (``/DSPSpectral/SpectralFeatures/pitchHz``, Boersma's method,
/// parabolic lag interpolation) and, on voiced hops, its harmonic sieve's
/// (``DetectionCues/dominantPitchHz``, a 1/24-octave grid, 70–400 Hz). The candidate is the
/// autocorrelation pitch, unless the sieve reads twice it (±4 %: the autocorrelation locked onto
/// two periods) or it has none; the sieve is not taken otherwise, because its tie rule (the highest
/// candidate within 15 % of the best) reads three times the pitch of low voices with strong upper
/// harmonics — on the validation material's voiced hops the sieve was off by more than 7 % on 6.6 %
/// of them (4.7 % at three times the pitch), the autocorrelation on 1.1 %. The autocorrelation
/// pitch is already interpolated between lags and is taken as it is; a sieve candidate, on its
/// grid, is refined on the power spectrum: harmonic by harmonic, the first eight up to 2.5 kHz, the
/// strongest bin near `h·f0` (within 3 % of `h·f0`, at most a third of the harmonic spacing, at
/// least one bin) that is a local maximum is located to a fraction of a bin by a parabola through
/// the log power of it and its neighbours, and `f0` becomes the power-weighted least-squares slope
/// `Σ w·h·f_h / Σ w·h²`, which predicts the next harmonic; a refinement from fewer than two
/// harmonics, or more than 4 % from the candidate, keeps the candidate. (Refining every hop's
/// pitch this way moved the dev median error from 0.41 % to 0.33 % for about 2 % of the whole
/// front end's time: not worth it against issue 19's budget.)
///
/// *Octave errors:* once 0.25 s of voiced speech is in, a pitch more than 0.75 octave from the
/// running median is halved or doubled towards it (counted in
/// ``ProsodyEstimate/octaveCorrectionCount``) and kept only if that brings it within 0.5 octave
/// of the median (a pitch read at three times folds to 1.5 times and is dropped). Pitches go
/// into a histogram of 1/48-octave bins from 50 to 504 Hz (160 bins: fixed memory, and a result
/// that does not depend on the stream's length or chunking); the median is interpolated within
/// its bin, the spread is the standard deviation of the bin centres, Hz (the bins' 1.4 % width
/// adds about 0.4 % of F0 in quadrature).
///
/// **Speaking rate.** The envelope is the power of the hop's spectrum between
/// ``Configuration-swift.struct/speechBandHz`` (150–4000 Hz: every vowel's first two formants,
/// close vowels' 250–300 Hz F1 included), in dB. Syllable nuclei are its peaks that rise and
/// then fall by at least ``Configuration-swift.struct/syllableDipDB`` (3 dB; peak picking with
/// hysteresis) on a speech hop whose harmonicity is at least 0.3 (a vowel is voiced), within
/// 20 dB of the loudest speech hop so far, and at least
/// ``Configuration-swift.struct/minimumSyllableSeconds`` after the previous nucleus (after
/// Mermelstein, "Automatic segmentation of speech into syllabic units", JASA 58(4), 1975, and de
/// Jong & Wempe, "Praat script to detect syllable nuclei and measure speech rate
/// automatically", Behavior Research Methods 41(2), 2009). *Speech time* is this unit's own:
/// the hops the detector calls speech that are active — speech probability at least
/// ``Configuration-swift.struct/activeSpeechProbability``, the segmenter's off threshold, so
/// not the segment's 0.3 s hangover — and whose envelope is within
/// ``Configuration-swift.struct/activityRangeDB`` (40 dB) of the loudest speech hop so far,
/// with pauses shorter than ``Configuration-swift.struct/bridgedPauseSeconds`` (0.1 s) bridged:
/// time spent speaking, pauses between words and phrases of 0.1 s or more left out. The rate is
/// nuclei ÷ speech time.
///
/// **Accuracy measured.** Synthetic voices (`ProsodyEstimatorTests`: a harmonic source through
/// five vowels' formants with a slow F0 swing): F0 median within 0.6 % at 90–250 Hz, spread
/// within 1.5 %, syllable rates of 3–6 per second within 5 %. The scene corpus's `pitch_rate`
/// files (TTS voices resynthesised at a set F0 median and spread and speaking rate; dev split,
/// see `docs/scene-measures.md` for the figures and the command): F0 median within 1.3 % in
/// nine files of ten (worst 3.9 %), speaking rate within 11 %. Limits: F0 below about 70 Hz
/// (creak, the bottom of low voices) is weakly periodic in a 64 ms window and mostly missed,
/// which reads the lowest voices' median up by 1–4 %; the spread reads low where intonation's
/// extremes are weakly voiced; fast speech's unstressed syllables merge (the rate reads low
/// above about 6 syllables per second) and noise within 10 dB of the speech hides weak
/// syllables.
///
/// **Cost.** Per hop, a sum over the band's 250 bins (eight lanes at a time) and a logarithm;
/// on voiced speech hops a histogram increment, a 160-bin scan for the running median every 8
/// of them, and the harmonic refinement when the sieve's pitch is taken. No FFT, no allocation:
/// about 1 % of `SpeechFrontEnd`'s time (`dspbench run pipeline`, this unit's `add` stubbed out
/// for the comparison).
///
/// **Contract.** Hops in stream order; the estimate so far is ``estimate`` (on demand,
/// allocation-free), lagging the input by the last syllable's fall. ``flush()`` ends the stream
/// and keeps its estimate for ``finalize()``; ``reset()`` forgets the stream. Everything is
/// allocated in `init`; ``add(_:powerSpectrum:)`` never allocates (`@_noAllocation` in release
/// builds). One stream, one thread at a time.
///
/// ```swift
/// let prosody = try ProsodyEstimator()
/// detector.process(samples, lendingSpectra: { hop, frame in
///     prosody.add(hop, powerSpectrum: frame.powerSpectrum)
/// })
/// let voice = prosody.finalize()
/// print(voice.f0MedianHz ?? .nan, voice.f0SpreadHz ?? .nan, voice.speakingRate ?? .nan)
/// ```
public final class ProsodyEstimator: @unchecked Sendable {
    // @unchecked: the histogram and the counts below are reached only holding `ownership` (see
    // StreamOwnership).
    /// What an estimator is built for: the detector's analysis and the decision settings.
    public struct Configuration: Equatable, Sendable {
        /// The analysis sample rate, Hz. Range 8000…48 000; default 16 000.
        public var sampleRate: Int
        /// Samples per analysis frame `N` (the power spectrum has `N/2 + 1` bins). Range
        /// 256…16 384; default 1024 (64 ms at 16 kHz).
        public var windowLength: Int
        /// Samples between hops. Range 1…``windowLength``; default 256 (16 ms at 16 kHz).
        public var hopLength: Int
        /// Least autocorrelation harmonicity of a voiced hop, 0…1; default 0.5.
        public var minimumHarmonicity: Float
        /// Voiced speech needed for the F0 statistics, seconds. Range 0.016…60; default 0.5.
        public var minimumVoicedSeconds: Double
        /// Speech time needed for the speaking rate, seconds. Range 0.1…60; default 1.
        public var minimumSpeechSeconds: Double
        /// The band of the syllable envelope, Hz; within 20 Hz…the Nyquist frequency. Default
        /// 150…4000 (the first formant of close vowels, 250–300 Hz, included).
        public var speechBandHz: ClosedRange<Double>
        /// Rise and fall of the envelope (dB) that make a peak a syllable nucleus. Range
        /// 0.5…30; default 3.
        public var syllableDipDB: Double
        /// Least time between two nuclei, seconds. Range 0…1; default 0.05.
        public var minimumSyllableSeconds: Double
        /// A speech hop counts as speaking time within this many dB of the loudest speech hop
        /// so far. Range 10…100; default 40.
        public var activityRangeDB: Double
        /// Pauses in speaking time shorter than this are bridged (counted as speaking), seconds.
        /// Range 0…2; default 0.1.
        public var bridgedPauseSeconds: Double
        /// A speech hop counts as speaking time only with a speech probability
        /// (``DetectionFrame/speechProbability``) at least this high, 0…1: the detector's
        /// segment stays open through its hangover, which is not speaking. Default 0.45, the
        /// default speech segmenter's off threshold (``AnalysisChain`` sets the one it runs).
        public var activeSpeechProbability: Float

        /// Creates a configuration; see each property for its range and default.
        public init(
            sampleRate: Int = 16_000, windowLength: Int = 1024, hopLength: Int = 256, minimumHarmonicity: Float = 0.5,
            minimumVoicedSeconds: Double = 0.5, minimumSpeechSeconds: Double = 1, speechBandHz: ClosedRange<Double> = 150...4000,
            syllableDipDB: Double = 3, minimumSyllableSeconds: Double = 0.05, activityRangeDB: Double = 40,
            bridgedPauseSeconds: Double = 0.1, activeSpeechProbability: Float = 0.45
        ) {
            self.sampleRate = sampleRate
            self.windowLength = windowLength
            self.hopLength = hopLength
            self.minimumHarmonicity = minimumHarmonicity
            self.minimumVoicedSeconds = minimumVoicedSeconds
            self.minimumSpeechSeconds = minimumSpeechSeconds
            self.speechBandHz = speechBandHz
            self.syllableDipDB = syllableDipDB
            self.minimumSyllableSeconds = minimumSyllableSeconds
            self.activityRangeDB = activityRangeDB
            self.bridgedPauseSeconds = bridgedPauseSeconds
            self.activeSpeechProbability = activeSpeechProbability
        }

        /// Throws the first setting out of range, in the order of the properties.
        public func validate() throws(ConfigurationError) {
            try ConfigurationError.check("sampleRate", sampleRate, in: 8000...48_000)
            try ConfigurationError.check("windowLength", windowLength, in: 256...16_384)
            try ConfigurationError.check("hopLength", hopLength, in: 1...windowLength)
            try ConfigurationError.check("minimumHarmonicity", Double(minimumHarmonicity), in: 0...1)
            try ConfigurationError.check("minimumVoicedSeconds", minimumVoicedSeconds, in: 0.016...60)
            try ConfigurationError.check("minimumSpeechSeconds", minimumSpeechSeconds, in: 0.1...60)
            let nyquist = Double(sampleRate) / 2
            guard speechBandHz.lowerBound.isFinite, speechBandHz.upperBound.isFinite, speechBandHz.lowerBound >= 20,
                  speechBandHz.upperBound <= nyquist, speechBandHz.upperBound - speechBandHz.lowerBound >= 100
            else {
                throw ConfigurationError(
                    parameter: "speechBandHz", value: "\(speechBandHz)", expected: "20...\(nyquist) Hz, at least 100 Hz wide")
            }
            try ConfigurationError.check("syllableDipDB", syllableDipDB, in: 0.5...30)
            try ConfigurationError.check("minimumSyllableSeconds", minimumSyllableSeconds, in: 0...1)
            try ConfigurationError.check("activityRangeDB", activityRangeDB, in: 10...100)
            try ConfigurationError.check("bridgedPauseSeconds", bridgedPauseSeconds, in: 0...2)
            try ConfigurationError.check("activeSpeechProbability", Double(activeSpeechProbability), in: 0...1)
        }
    }

    /// The settings, as validated.
    public let configuration: Configuration
    /// Bins in each power spectrum, `windowLength / 2 + 1`.
    public let binCount: Int
    /// Hz per bin.
    private let binHz: Float
    private let bandRange: Range<Int>
    private let histogram: UnsafeMutableBufferPointer<Int32>
    private let octaveCheckHops: Int
    private let minimumSyllableHops: Int64
    private let bridgeSamples: Int64

    // Stream.
    private var hops = 0
    private var samples: Int64 = 0
    private var flushed: ProsodyEstimate?
    // F0.
    private var voicedHops = 0
    private var voicedSamples: Int64 = 0
    private var octaveCorrections = 0
    /// The running median's histogram bin (fractional), valid once
    /// `voicedHops ≥ octaveCheckHops`.
    private var runningMedianBin: Float = 0
    // Envelope peaks (hysteresis peak picking on the dB envelope).
    private var lookingForPeak = true
    private var peakLevel: Float = -.infinity
    private var peakHop = 0
    private var peakCounts = false
    private var valleyLevel: Float = .infinity
    private var lastNucleusHop = Int.min / 2
    private var syllables = 0
    // Speaking time.
    private var loudest: Float = -.infinity
    private var activeSamples: Int64 = 0
    private var gapSamples: Int64 = 0
    private var hasActive = false

    /// Validates `configuration` and allocates everything.
    public init(configuration: Configuration = Configuration()) throws(ConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        binCount = configuration.windowLength / 2 + 1
        let hz = Double(configuration.sampleRate) / Double(configuration.windowLength)
        binHz = Float(hz)
        let lo = Swift.max(1, Int((configuration.speechBandHz.lowerBound / hz).rounded()))
        let hi = Swift.min(binCount - 1, Int((configuration.speechBandHz.upperBound / hz).rounded()))
        bandRange = lo..<Swift.max(lo + 1, hi + 1)
        histogram = .allocate(capacity: ProsodyTuning.histogramBinCount)
        histogram.initialize(repeating: 0)
        let hopSeconds = Double(configuration.hopLength) / Double(configuration.sampleRate)
        octaveCheckHops = Swift.max(1, Int((ProsodyTuning.octaveCheckSeconds / hopSeconds).rounded()))
        minimumSyllableHops = Int64((configuration.minimumSyllableSeconds / hopSeconds).rounded())
        bridgeSamples = Int64((configuration.bridgedPauseSeconds * Double(configuration.sampleRate)).rounded())
    }

    deinit { histogram.deallocate() }

    private let ownership = StreamOwnership()

    /// Takes the ownership flag; two overlapping calls stop the program.
    @inline(__always)
    private func enter() {
        if !ownership.acquire() { preconditionFailure("ProsodyEstimator: overlapping calls from two threads (one stream, one caller at a time)") }
    }

    // MARK: Streaming

    /// Adds one detector hop and the power spectrum it was detected from (`binCount` bins,
    /// scaled as ``/DSPSpectral/SpectralFrame/powerSpectrum``). Never allocates.
    #if !DEBUG  // enforced by the optimizer's performance checks; debug builds cannot see through calls
    @_noAllocation
    #endif
    public func add(_ hop: DetectionFrame, powerSpectrum: UnsafeBufferPointer<Float>) {
        enter(); defer { ownership.release() }
        let bins = binCount   // not `self` in the precondition's closure (no retain to release)
        precondition(powerSpectrum.count >= bins, "ProsodyEstimator.add: power spectrum shorter than binCount")
        flushed = nil
        hops += 1
        let count = Int64(Swift.max(0, hop.sampleCount))
        samples += count
        let f = hop.features
        guard f.isFinite else {
            // A window holding NaN or ±∞: a pause for the speaking time; no pitch, no envelope.
            if hasActive { gapSamples += count }
            return
        }
        let speech = hop.isSpeech
        if speech, f.harmonicity >= configuration.minimumHarmonicity {
            let candidate = ProsodyTuning.candidate(sieve: hop.cues.dominantPitchHz, autocorrelation: f.pitchHz)
            // The autocorrelation pitch is already interpolated between lags; the sieve's sits on
            // its 1/24-octave grid and is refined on the harmonics.
            if candidate > 0 {
                addPitch(candidate == f.pitchHz ? candidate : refine(candidate, powerSpectrum.baseAddress!), samples: count)
            }
        }
        track(
            level: bandLevel(powerSpectrum.baseAddress!), speech: speech,
            active: hop.speechProbability >= configuration.activeSpeechProbability, voiced: f.harmonicity >= ProsodyTuning.nucleusHarmonicity,
            samples: count)
    }

    /// Ends the stream: keeps its estimate for ``finalize()`` and readies the estimator for a new
    /// stream (as after ``reset()``). A nucleus whose fall has not been seen is not counted.
    public func flush() {
        enter(); defer { ownership.release() }
        let ended = currentEstimate()
        resetStream()
        flushed = ended
    }

    /// The ended stream's estimate: the one ``flush()`` kept, or — without a flush — the current
    /// stream's, which is then ended (the estimator is left as after ``reset()``).
    public func finalize() -> ProsodyEstimate {
        enter(); defer { ownership.release() }
        if let flushed {
            self.flushed = nil
            return flushed
        }
        let result = currentEstimate()
        resetStream()
        return result
    }

    /// Forgets the stream (and a flushed stream's estimate).
    public func reset() {
        enter(); defer { ownership.release() }
        resetStream()
    }

    private func resetStream() {
        flushed = nil
        hops = 0
        samples = 0
        histogram.update(repeating: 0)
        voicedHops = 0
        voicedSamples = 0
        octaveCorrections = 0
        runningMedianBin = 0
        lookingForPeak = true
        peakLevel = -.infinity
        peakHop = 0
        peakCounts = false
        valleyLevel = .infinity
        lastNucleusHop = Int.min / 2
        syllables = 0
        loudest = -.infinity
        activeSamples = 0
        gapSamples = 0
        hasActive = false
    }

    // MARK: Pitch

    /// The candidate refined on the harmonics of the power spectrum `p` (see the type's
    /// documentation), or the candidate itself when the harmonics do not support a refinement.
    @inline(__always)
    func refine(_ candidate: Float, _ p: UnsafePointer<Float>) -> Float {
        let spacing = candidate / binHz                  // bins between harmonics
        let harmonics = Swift.min(ProsodyTuning.maximumHarmonics, Int(ProsodyTuning.maximumHarmonicHz / candidate))
        var f0 = candidate
        var weightedProducts: Float = 0, weightedSquares: Float = 0
        var found = 0
        var h = 1
        while h <= harmonics {
            let hf = Float(h)
            let centre = hf * f0 / binHz
            let radius = Swift.max(1, Swift.min(0.33 * spacing, 0.03 * centre))
            let low = centre - radius, truncated = Int(Swift.max(0, low))
            let lo = Swift.max(1, Float(truncated) < low ? truncated + 1 : truncated)   // ⌈low⌉
            let hi = Swift.min(binCount - 2, Int(centre + radius))                      // ⌊centre + radius⌋ (positive)
            if hi < lo { break }
            var k = lo
            var best = p[lo]
            var i = lo + 1
            while i <= hi {
                if p[i] > best {
                    best = p[i]
                    k = i
                }
                i += 1
            }
            // A peak: above both neighbours (an edge of the search that is still rising is a
            // neighbour's skirt, not this harmonic).
            if best > 1e-14, best > p[k - 1], best >= p[k + 1] {
                let a = FastLog.log2(p[k - 1] + 1e-30), b = FastLog.log2(best), c = FastLog.log2(p[k + 1] + 1e-30)
                let denominator = a - 2 * b + c
                let offset = denominator < 0 ? Swift.max(-0.5, Swift.min(0.5, 0.5 * (a - c) / denominator)) : 0
                let frequency = (Float(k) + offset) * binHz
                let w = best
                weightedProducts += w * hf * frequency
                weightedSquares += w * hf * hf
                found += 1
                f0 = weightedProducts / weightedSquares
            }
            h += 1
        }
        guard found >= 2, abs(f0 - candidate) <= 0.04 * candidate else { return candidate }
        return f0
    }

    /// Folds `f0` towards the running median if it is an octave off, and counts it.
    @inline(__always)
    private func addPitch(_ hz: Float, samples count: Int64) {
        guard hz.isFinite, hz > 0 else { return }
        var position = ProsodyTuning.binsPerOctave * FastLog.log2(hz / ProsodyTuning.lowestHz)
        if voicedHops >= octaveCheckHops {
            let limit = ProsodyTuning.octaveFoldLimit * ProsodyTuning.binsPerOctave
            let distance = position - runningMedianBin
            if abs(distance) > limit {
                let folded = position - (distance > 0 ? ProsodyTuning.binsPerOctave : -ProsodyTuning.binsPerOctave)
                guard abs(folded - runningMedianBin) <= ProsodyTuning.foldedAcceptLimit * ProsodyTuning.binsPerOctave else { return }
                position = folded
                octaveCorrections += 1
            }
        }
        guard position >= 0, position < Float(ProsodyTuning.histogramBinCount) else { return }
        histogram[Int(position)] += 1
        voicedHops += 1
        voicedSamples += count
        // The running median moves slowly: recomputed when the check starts and every 8 voiced
        // hops after (a 160-bin scan).
        if voicedHops >= octaveCheckHops, (voicedHops - octaveCheckHops) % 8 == 0 {
            runningMedianBin = Float(CountHistogram.quantile(histogram, 0.5, total: voicedHops))
        }
    }

    // MARK: Rate

    /// The power between the speech band's edges, dB.
    @inline(__always)
    private func bandLevel(_ p: UnsafePointer<Float>) -> Float {
        // Eight lanes at a time (the order is fixed, so the sum is the same on every call).
        var k = bandRange.lowerBound
        let end = bandRange.upperBound
        var lanes = SIMD8<Float>.zero
        while k + 8 <= end {
            lanes += UnsafeRawPointer(p + k).loadUnaligned(as: SIMD8<Float>.self)
            k += 8
        }
        var sum = lanes.sum()
        while k < end {
            sum += p[k]
            k += 1
        }
        return FastLog.decibels(sum + 1e-20)
    }

    /// Advances the speaking time and the nucleus picker by one hop.
    @inline(__always)
    private func track(level: Float, speech: Bool, active: Bool, voiced: Bool, samples count: Int64) {
        if speech { loudest = Swift.max(loudest, level) }
        // Speaking time: speech hops that are active (not the segment's hangover) within the
        // activity range; short pauses bridged.
        if speech, active, level >= loudest - Float(configuration.activityRangeDB) {
            if hasActive, gapSamples < bridgeSamples { activeSamples += gapSamples }
            activeSamples += count
            gapSamples = 0
            hasActive = true
        } else if hasActive {
            gapSamples += count
        }
        // Nuclei: peaks with a rise and a fall of at least the dip.
        let dip = Float(configuration.syllableDipDB)
        let hop = hops - 1
        if lookingForPeak {
            if level > peakLevel {
                peakLevel = level
                peakHop = hop
                peakCounts = speech && voiced
            }
            if level < peakLevel - dip {
                if peakLevel - valleyLevel >= dip, peakCounts, peakLevel >= loudest - ProsodyTuning.peakRangeDB,
                   Int64(peakHop - lastNucleusHop) >= minimumSyllableHops {
                    syllables += 1
                    lastNucleusHop = peakHop
                }
                lookingForPeak = false
                valleyLevel = level
            }
        } else {
            if level < valleyLevel { valleyLevel = level }
            if level > valleyLevel + dip {
                lookingForPeak = true
                peakLevel = level
                peakHop = hop
                peakCounts = speech && voiced
            }
        }
    }

    // MARK: Estimating

    /// The estimate over the stream so far (after a ``flush()``, the flushed stream's). Computed
    /// on demand from the histogram and the counts; never allocates.
    public var estimate: ProsodyEstimate {
        enter(); defer { ownership.release() }
        return currentEstimate()
    }

    /// ``estimate`` for a caller holding the flag.
    private func currentEstimate() -> ProsodyEstimate {
        if let flushed { return flushed }
        let rate = Double(configuration.sampleRate)
        var result = ProsodyEstimate.empty
        result.hopCount = hops
        result.inputSeconds = Double(samples) / rate
        result.voicedSeconds = Double(voicedSamples) / rate
        result.speechSeconds = Double(activeSamples) / rate
        result.syllableCount = syllables
        result.octaveCorrectionCount = octaveCorrections
        if voicedHops > 0, result.voicedSeconds >= configuration.minimumVoicedSeconds {
            let medianBin = CountHistogram.quantile(histogram, 0.5, total: voicedHops)
            result.f0MedianHz = Double(ProsodyTuning.lowestHz) * exp2(medianBin / Double(ProsodyTuning.binsPerOctave))
            var sum = 0.0, sumSquares = 0.0
            for i in 0..<ProsodyTuning.histogramBinCount where histogram[i] > 0 {
                let centre = Double(ProsodyTuning.lowestHz) * exp2((Double(i) + 0.5) / Double(ProsodyTuning.binsPerOctave))
                let n = Double(histogram[i])
                sum += n * centre
                sumSquares += n * centre * centre
            }
            let n = Double(voicedHops)
            let mean = sum / n
            result.f0SpreadHz = Swift.max(0, sumSquares / n - mean * mean).squareRoot()
        }
        if result.speechSeconds >= configuration.minimumSpeechSeconds {
            result.speakingRate = Double(syllables) / result.speechSeconds
        }
        return result
    }
}

/// ``ProsodyEstimator``'s fixed settings and pure helpers, in an enum so that the hot path needs
/// no class metadata (the `@_noAllocation` checker's rule).
enum ProsodyTuning {
    /// The F0 histogram: bin `i` covers `lowestHz · 2^(i/48) … 2^((i+1)/48)`.
    static let lowestHz: Float = 50
    /// Histogram bins per octave.
    static let binsPerOctave: Float = 48
    /// Histogram bins: 50 Hz to 50 · 2^(160/48) ≈ 504 Hz.
    static let histogramBinCount = 160
    /// Harmonics above this frequency are not used to refine a pitch, Hz.
    static let maximumHarmonicHz: Float = 2500
    /// At most this many harmonics refine a pitch (more changed the dev figures by under 0.05 %).
    static let maximumHarmonics = 8
    /// Voiced speech after which pitches are checked for octave errors against the running
    /// median, seconds.
    static let octaveCheckSeconds = 0.25
    /// A pitch further than this from the running median, octaves, is folded by an octave.
    static let octaveFoldLimit: Float = 0.75
    /// A folded pitch is kept within this of the running median, octaves (a pitch read at three
    /// times its value folds to 1.5 times, 0.58 octave off, and is dropped).
    static let foldedAcceptLimit: Float = 0.5
    /// A nucleus must be within this many dB of the loudest speech hop so far.
    static let peakRangeDB: Float = 20
    /// Least harmonicity of the hop at a nucleus (a vowel is voiced).
    static let nucleusHarmonicity: Float = 0.3

    /// The hop's pitch candidate from the detector's two per-hop pitches: the autocorrelation
    /// pitch, unless the harmonic sieve reads twice it (±4 %: the autocorrelation locked onto
    /// two periods) or the autocorrelation has none (0 when neither has one). The sieve's tie
    /// rule, the highest candidate within 15 % of the best, makes it read three times the pitch
    /// of low voices whose upper harmonics are strong; the autocorrelation then has the period.
    @inline(__always)
    static func candidate(sieve: Float, autocorrelation: Float) -> Float {
        guard autocorrelation > 0 else { return sieve }
        guard sieve > 0 else { return autocorrelation }
        let ratio = sieve / autocorrelation
        return ratio >= 2 * 0.96 && ratio <= 2 * 1.04 ? sieve : autocorrelation
    }
}

extension ProsodyEstimator: MemoryAccounting {
    /// The F0 histogram.
    public var memoryFootprint: MemoryFootprint { .owned(MemoryFootprint.bytes(histogram)) }
}
