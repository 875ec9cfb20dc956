/// The cues the detectors decide from, per analysis frame: the frame's
/// ``/DSPSpectral/SpectralFeatures`` put in context (relative to the tracked noise floor, and
/// summarised over the last 0.5–3 s).
///
/// All are causal and level-relative except ``levelDBFS`` and ``noiseFloorDBFS``, so the
/// detectors work the same from −45 to −6 dBFS.
@frozen
public struct DetectionCues: Equatable, Sendable {
    /// Frame level, dBFS: `10·log10(framePower)` (full-scale sine −3.01); −∞ for silence.
    public var levelDBFS: Float
    /// Tracked background noise, dBFS: `10·log10(Σ_b N_b)` over the band noise estimates
    /// (``NoiseFloorTracker``); −∞ before any sound.
    public var noiseFloorDBFS: Float
    /// Segmental SNR, dB: mean over all bands of `clamp(10·log10(S_b / N_b), 0, 40)`, `S_b` the
    /// smoothed band power and `N_b` its noise estimate.
    public var snrDB: Float
    /// The same over the bands between 300 and 4000 Hz (the speech band).
    public var speechBandSNRDB: Float
    /// Syllable-rate modulation depth, dB: RMS over ~0.5 s of the speech-band level (dB)
    /// band-passed around 4 Hz (2nd-order, Q 0.7). Speech ≈ 6–12 dB; steady noise < 2 dB.
    /// Reference: E. Scheirer, M. Slaney, "Construction and evaluation of a robust multifeature
    /// speech/music discriminator", ICASSP 1997 (4 Hz modulation energy).
    public var modulationDB: Float
    /// Fraction of the last second's hops whose power is below half the second's mean power
    /// (Scheirer & Slaney's "percentage of low-energy frames"): high for speech, low for music.
    public var lowEnergyRatio: Float
    /// Fraction of the frame's spectral peaks (100–5000 Hz, ≥ 6 dB above both neighbours two
    /// bins away) that were also peaks (±1 bin) 128 ms earlier, averaged over the last second:
    /// sustained notes score high, speech harmonics that glide score lower, noise low.
    public var peakPersistence: Float
    /// Rhythmic regularity: the highest normalised autocorrelation of the spectral flux over
    /// the last 3 s at lags of 0.3–1.0 s (50–200 beats per minute), 0…1.
    public var pulse: Float
    /// Fraction of the last second's frames that are voiced (harmonicity ≥ 0.5 and SNR ≥ 3 dB).
    public var voicedRatio: Float
    /// Fraction of the last second's voiced frames whose pitch is within 2 % of the pitch
    /// 64 ms earlier: held notes score high.
    public var stablePitchRatio: Float
    /// Mean harmonicity over the last second.
    public var harmonicityMean: Float
    /// Second-pitch salience over the last 0.5 s: the harmonic-sieve salience of the strongest
    /// pitch left after cancelling the harmonics of the strongest one, relative to it, averaged
    /// over the voiced frames (0 when none). One talker ≈ 0–0.3; two ≈ 0.4–1. Reference:
    /// A. Klapuri, "Multiple fundamental frequency estimation based on harmonicity and spectral
    /// smoothness", IEEE Trans. Speech and Audio Processing 11(6), 2003 (iterative estimation
    /// and cancellation).
    public var secondPitchSalience: Float
    /// Dominant pitch of the frame from the harmonic sieve, Hz (0 when unvoiced).
    public var dominantPitchHz: Float
    /// Second pitch, Hz (0 when none).
    public var secondPitchHz: Float
    /// Voiced/unvoiced alternations per second over the last second: syllables make speech
    /// alternate several times a second; held notes and drums rarely do.
    public var voicingAlternationRate: Float
    /// Standard deviation of `log2` of the spectral centroid over the last second's frames
    /// with sound (SNR ≥ 3 dB), octaves: vowels and fricatives make speech's spectral shape
    /// move more than most music's.
    public var centroidDeviation: Float
    /// Mean zero-crossing rate over the last 0.5 s.
    public var zeroCrossingMean: Float
    /// Standard deviation of the zero-crossing rate over the last 0.5 s (the classic
    /// multi-talker heuristic; alone it flags most single talkers too).
    public var zeroCrossingDeviation: Float
    /// Best band of the speech band, dB: `max_b clamp(10·log10(S_b / N_b), 0, 40)` over the
    /// bands between 300 and 4000 Hz. Speech under band-limited noise (hum, brown or pink
    /// noise, a fan) stands out in a few bands while the mean over all of them
    /// (``speechBandSNRDB``) stays low.
    public var speechBandSNRMaxDB: Float
    /// Fraction of the speech bands (300–4000 Hz) whose clamped SNR is at least 6 dB, 0…1.
    public var speechBandActiveFraction: Float
    /// Highest ``modulationDB`` over the last second, dB: syllable-rate modulation that was
    /// there a moment ago (speech keeps it up across words; steady sounds never reach it).
    public var modulationMaxDB: Float
    /// Onset sharpness: the highest spectral flux (``/DSPSpectral/SpectralFeatures/fluxDB``) of the last
    /// 0.5 s over its mean, `max / (mean + 0.1 dB)`. Drum hits make a few frames of very high
    /// flux between quiet ones (≈ 5–15); speech and sustained notes change more evenly. Available
    /// 0.5 s into a stream, long before the 3 s rhythm cue (``pulse``).
    public var fluxPeakiness: Float
    /// Standard deviation of the harmonicity over the last 0.5 s: speech alternates voiced and
    /// unvoiced sounds, steady tones and noise do not.
    public var harmonicityDeviation: Float
    /// Standard deviation of ``speechBandSNRDB`` over the last 0.5 s, dB: speech over a steady
    /// background makes the speech-band SNR come and go syllable by syllable.
    public var speechBandSNRDeviationDB: Float
    /// Eight of the frame's instantaneous values as they were 4 hops (64 ms) and 8 hops (128 ms)
    /// earlier: elements 0–7 are ``snrDB``, ``speechBandSNRDB``,
    /// ``/DSPSpectral/SpectralFeatures/harmonicity``, ``/DSPSpectral/SpectralFeatures/flatness``,
    /// ``/DSPSpectral/SpectralFeatures/entropy``, ``/DSPSpectral/SpectralFeatures/centroidHz``,
    /// ``/DSPSpectral/SpectralFeatures/fluxDB`` and ``/DSPSpectral/SpectralFeatures/zeroCrossingRate``
    /// of frame `n − 4`, elements 8–15 the same of frame
    /// `n − 8` (0 before the stream's 5th and 9th frames). Temporal context for the models:
    /// with them a frame's cues carry their own recent trajectory (a syllable's rise and fall,
    /// an utterance ending), where the 0.5–1 s summaries only carry their level.
    /// Frames with non-finite samples are not counted (they leave every history untouched).
    public var earlierValues: SIMD16<Float>
    /// The frame's SNR per analysis band, dB: `clamp(10·log10(S_b / N_b), 0, 40)` for the first
    /// ``CueLane/bandLaneCount`` bands of ``/DSPSpectral/SpectralAnalyzer/bandEdgesHz`` (the
    /// values ``snrDB`` averages), 0 past the analyzer's band count. Level-independent: the
    /// shape of what stands out of the background (formants, a tone, a band-limited noise).
    public var bandSNRsDB: SIMD32<Float>
    /// The frame's spectral envelope per analysis band, dB: `10·log10(P_b + 1e-12)` minus its
    /// mean over the bands, clamped to −60…60 dB, for the first ``CueLane/bandLaneCount`` bands
    /// (0 past the analyzer's band count, and for digital silence). Level-independent timbre.
    public var bandShapeDB: SIMD32<Float>

    /// All-zero cues with −∞ levels.
    @inlinable
    public init() {
        levelDBFS = -.infinity; noiseFloorDBFS = -.infinity; snrDB = 0; speechBandSNRDB = 0
        modulationDB = 0; lowEnergyRatio = 0; peakPersistence = 0; pulse = 0; voicedRatio = 0
        stablePitchRatio = 0; harmonicityMean = 0; secondPitchSalience = 0; dominantPitchHz = 0
        secondPitchHz = 0; zeroCrossingMean = 0; zeroCrossingDeviation = 0
        voicingAlternationRate = 0; centroidDeviation = 0
        speechBandSNRMaxDB = 0; speechBandActiveFraction = 0; modulationMaxDB = 0; fluxPeakiness = 0
        harmonicityDeviation = 0; speechBandSNRDeviationDB = 0; earlierValues = .zero
        bandSNRsDB = .zero; bandShapeDB = .zero
    }
}
