internal import CDSPKernels
import DSPCore
import DSPSpectral

/// Estimates the background-noise level under speech, music and several talkers from the
/// power spectra of the analysis hops: the noise, not the foreground.
///
/// **Method.** The spectrum (bins 1 … N/2 − 1: no DC, no Nyquist, the bins whose sum is the
/// frame's mean square) is cut into ``Configuration-swift.struct/bandCount`` bands of equal
/// width. Each band keeps a histogram of its per-hop level (1 dB bins from −150 to +10 dB) with
/// exponential forgetting (time constant ``Configuration-swift.struct/windowSeconds``). The
/// band's noise level is the *median of its noise-only hops*, found without a speech decision:
/// foreground sound only ever adds power, so the hops louder than the noise median by more than
/// the noise's own spread (3 dB, which a 16-bin band of Gaussian noise exceeds in about 2 % of
/// hops; wider for a fluctuating background, below) are foreground, and among the rest the noise
/// median is the mixture's quantile at half their share. Starting from the 10 % quantile, three
/// rounds of
/// `share = 1 − weight(level ≥ L + 3 dB) / weight`, `L = quantile(max(0.05, share) / 2)`
/// settle on it (quantile regression in the spirit of Stahl, Fischer & Bippus, "Quantile based
/// noise estimation for spectral subtraction and Wiener filtering", ICASSP 2000, with the
/// quantile chosen from the occupancy rather than fixed). The median becomes a mean power with
/// the band's chi-square shape: a band of `K` Hann-windowed bins has about `ν = 0.95·K` degrees
/// of freedom, and mean ÷ median = `(1 − 2/(9ν))⁻³` (Wilson–Hilferty; +0.19 dB for 16 bins,
/// checked on Gaussian noise by the tests). The noise level is the sum of the bands' powers,
/// in dBFS like the spectrum: the mean power of the background in the analysed band (at the
/// default 16 kHz, about 16 Hz to 8 kHz). A background that fluctuates much more than steady
/// noise (a looped effect, babble) reads low: the hops of its loud phases count as foreground
/// (docs/scene-measures.md gives the figures); the next paragraph covers the one case where
/// the detector can tell.
///
/// **Looped and bursty backgrounds.** A short burst looped every second or so or faster (a
/// recorded effect, a rhythmic machine) has 0.5 s levels within a few dB of its mean power, while its hops
/// spread over 30 dB or more: the rule above reads its quiet phases as the background, 15–30 dB
/// low. Where the caller passes the detector's speech probability
/// (``update(_:musicProbability:speechProbability:)``, as ``AcousticDetector`` does), a hop
/// with speech probability under ``quietSpeechThreshold`` and music probability under
/// ``quietMusicThreshold``, with ``quietGuardHops`` such hops on either side (the 64 ms window
/// reaches 4 hops into its neighbours; the hops after are waited for, so a quiet hop counts 4
/// hops late), is *quiet*: the detector hears no foreground in it. The quiet hops' total power
/// goes into a ring of the last ``quietBlockHops`` (0.5 s of quiet hops, from one pause or
/// several), and every ``quietBlockStride`` quiet hops the ring's mean power, a *quiet block*,
/// is counted in one more forgetting histogram. A *burst* is a quiet hop ``burstRiseDB`` above
/// the least of the (up to ``quietGuardHops``) quiet hops before it in the same pause: the
/// background itself rising with nothing heard. Once ``burstChain`` bursts have followed one
/// another within ``burstIntervalSeconds`` each, and for ``burstMemorySeconds`` after the last
/// such, the estimate moves to the median of the quiet blocks (what a 0.5 s level reads) where
/// that lies above it: not at all up to ``quietLowDB`` above, fully from ``quietHighDB``, linear
/// in dB between; the quiet blocks must hold at least ``quietShareMinimum`` of the window's
/// hops. Recurrence is the gate because the quiet hops are not all noise: a reverberant tail or
/// a quiet word the detector misses after speech makes the quiet blocks read 10–30 dB over a
/// steady background in reverberant rooms, and gives a burst now and then, but not three in a
/// row each within 2 s. A stream with no speech probability (``update(_:)``,
/// ``update(_:musicProbability:)``, ``process(_:into:)``), or whose bursts do not recur, reads
/// exactly what it read without this path. Looped bursts under dialogue are mostly not caught:
/// their rises fall in the short pauses too rarely to recur within 2 s (docs/scene-measures.md
/// gives the figures).
///
/// **Looped backgrounds** (``Configuration-swift.struct/loopedBackgrounds``, on by default). A
/// loop the detector hears as speech or as music (a game's looped effect, a machine's hum with a
/// slow wobble) leaves neither quiet hops nor valleys that show its level; what it does show is
/// its period. With the option on, where the caller passes a speech probability, every hop's
/// total power also goes into a `LoopedBackground`, which finds the period of the last 6 s of
/// hop levels (0.2–2.6 s, twice in the window at least) and the loop's level read phase by phase
/// (the least level at each phase over the repetitions, so speech over the loop is left out
/// where one repetition lacks it; the median of that profile's 0.5 s levels). Under a talker,
/// whose speech breaks the envelope's correlation, the period is looked for again over the hops
/// the detector hears no speech in (with a hop's guard on either side), where they cover enough
/// of the period's phases. Where its score
/// reaches ``loopScoreThreshold`` (a loop scores 0.99–1.00; speech, music, rooms and steady
/// noise stay below it), the estimate moves to that level where it lies above it, as for the
/// quiet blocks, under music too. A stream with no speech probability, or whose background does
/// not repeat, reads exactly what it reads with the option off. Cost: 814 bytes per stream at
/// the defaults (the hop levels and whether speech was heard, as bytes) and an analysis every
/// 1.5 s of stream (every 0.5 s while a loop is being read); in the pipeline about 0.9 % more
/// instructions (docs/scene-measures.md, *Looped backgrounds* and *Loops under speech*). Off,
/// every reading is what it was before it existed.
///
/// **Reverberant rooms.** While someone speaks in a long room (RT60 over a second), the
/// reverberant field fills every pause of a 2 s window and spreads as narrowly as a steady noise,
/// so the rule above reads the field as the background, 20–35 dB over a noise that shows only
/// before the first word and after the last. Every ``holdCheckpointSeconds`` (at fixed stream
/// positions, so readings do not depend on when they are made: the ends of the
/// ``holdCheckpointFrameSeconds`` frames where an ``AnalysisChain``'s environment reads
/// ``levelDBFS``, which then reuses the checkpoint's band readings), each band's reading is *held*
/// when at least ``holdShare`` of the window's hops are noise-only and the band does not
/// fluctuate: evidence of the background itself. A reading more than ``holdMarginDB`` above the
/// held level replaces it only when ``holdRiseCheckpoints`` checkpoints in a row hold it, or
/// when ``holdConsensus`` of the bands rise so at once (a reverberant field passes the test in a
/// few bands now and then; a new background stays, and a broadband one rises everywhere). A held
/// level counts for ``holdSeconds`` unless a newer one replaces it. A reading more than
/// ``holdMarginDB`` above the band's held level reads the held level instead, unless the band's
/// steady level answered (a background that got louder) or the held level is digital silence.
/// A louder noise under speech is held down like the field until the checkpoints hold it, and
/// the field of more than ``holdSeconds`` of unbroken speech is read again
/// (docs/scene-measures.md gives the figures).
///
/// **A louder background.** When the room turns loud while someone speaks, the histograms'
/// quiet weight holds the reading down until it falls under a tenth of the window (4–5 s at the
/// defaults) and the speech hides the new level from the steady-level test. At each checkpoint
/// a band has *risen* when every hop of its last second lies more than ``riseDB``
/// above its reading, and shows a *floor* when more than a quarter of those hops lie within
/// ``floorSpreadDB`` of their least level: a new background under the foreground (a decaying
/// reverberant field, or speech that fills the band, spreads its lowest hops wider). Where
/// ``riseConsensus`` of the bands show a new background (a floor, or a steady level answering),
/// no hop of the last second was heard as music (probability at least
/// ``quietMusicThreshold``: sustained notes hold floors too) and the music path is not blending
/// in, each risen band forgets its histogram weight more
/// than ``forgetMarginDB`` under that least level and holds its new reading at once. A louder
/// background is then read 1–2 s after it starts where the speech leaves floors in enough
/// bands; a band-limited one (a hum alone, or noise that lies under the voice's upper bands)
/// waits for the window as before (docs/scene-measures.md gives the figures).
///
/// **Under music.** Sustained notes hold a band's level as steady as a background, so the
/// histograms above read music as noise. Where the detector hears music (``update(_:musicProbability:)``
/// with a probability of at least ``musicThreshold``, the smoothed probability of
/// ``AcousticDetector``'s music model), the hop also feeds a second set of band histograms with
/// a statistic that partials barely move: the band's *median bin* × its bin count (a partial's
/// Hann main lobe covers 4 of a band's 15–16 bins at the defaults, so the median lies in the
/// valleys between harmonics), through the same occupancy rule (steady-noise rounds only). On
/// Gaussian noise the median bin's noise-only median sits ``valleyCalibrationDB`` under the
/// band's mean power (Hann-windowed bands of 15–16 bins, measured by the tests), which is added
/// back. Each band then
/// reads the lower of the two estimates (music only ever adds power), and the total moves in dB
/// from the plain estimate to that one as the forgetting-weighted share of music hops rises from
/// ``musicShareLow`` to ``musicShareHigh``. Below ``musicShareLow`` nothing changes: a stream
/// without music reads exactly what it read without the music input. A background with strong
/// partials of its own under music (hum, a whining machine) reads low on this path, and music
/// far above a dense background leaves no valley to read (docs/scene-measures.md gives the
/// figures).
///
/// Digital silence is a background too: silent hops count at the histogram's floor, and a band
/// whose noise median sits there contributes no power, so a recording with digitally silent
/// pauses reads −∞ (no noise). A hop with a non-finite power is not counted.
///
/// **Calls.** ``update(_:musicProbability:speechProbability:)`` adds one hop's power spectrum
/// with the music and speech probabilities (what ``AcousticDetector`` does on every hop;
/// ``update(_:musicProbability:)`` is the same with the speech unknown, ``update(_:)`` also with
/// no music); ``levelDBFS`` computes the estimate on demand (a few thousand operations, made
/// only when a measurement is due). As a ``/DSPCore/StreamingProcessor`` it takes power spectra
/// (with no music probability) back to back (``Configuration-swift.struct/binCount`` per hop, a partial one carried) and writes
/// the level after each hop. Nothing allocates after `init`; results do not depend on chunking.
public final class NoiseLevelEstimator: StreamingProcessor, @unchecked Sendable {
    // @unchecked: the histograms and scratch below are reached only holding `ownership` (see
    // StreamOwnership).
    /// Input element: a power-spectrum bin (mean-square units, as
    /// ``/DSPSpectral/SpectralFrame/powerSpectrum``).
    public typealias InputSample = Float
    /// Output element: the noise level after a hop, dBFS (−∞ for a silent background or before
    /// any hop).
    public typealias OutputSample = Float

    /// What an estimator is built for.
    public struct Configuration: Equatable, Sendable {
        /// Power-spectrum bins per hop, `N/2 + 1`. Range 5…8193; default 513 (1024-point frames).
        public var binCount: Int
        /// Time between hops, seconds. Range 0.0001…10; default 0.016 (256 samples at 16 kHz).
        public var hopSeconds: Double
        /// Bands the bins 1 … N/2 − 1 are cut into. Range 1…`binCount − 2`; default 32 (16 bins,
        /// 250 Hz, at the defaults).
        public var bandCount: Int
        /// Time constant of the histograms' forgetting, seconds. Range `hopSeconds`…600;
        /// default 2.
        public var windowSeconds: Double
        /// Whether a looped background is read by its period (the type's *Looped backgrounds*).
        /// Default on: it costs 814 bytes per stream and an analysis every 1.5 s (0.5 s while a
        /// loop is read).
        public var loopedBackgrounds: Bool

        /// Creates a configuration; see each property for its range and default.
        public init(binCount: Int = 513, hopSeconds: Double = 0.016, bandCount: Int = 32, windowSeconds: Double = 2,
                    loopedBackgrounds: Bool = true) {
            self.binCount = binCount
            self.hopSeconds = hopSeconds
            self.bandCount = bandCount
            self.windowSeconds = windowSeconds
            self.loopedBackgrounds = loopedBackgrounds
        }

        /// Throws the first setting out of range, in the order of the properties.
        public func validate() throws(ConfigurationError) {
            try ConfigurationError.check("binCount", binCount, in: 5...8193)
            try ConfigurationError.check("hopSeconds", hopSeconds, in: 0.0001...10)
            try ConfigurationError.check("bandCount", bandCount, in: 1...(binCount - 2))
            try ConfigurationError.check("windowSeconds", windowSeconds, in: hopSeconds...600)
        }
    }

    /// Histogram bins per band: 1 dB each from ``floorDB``.
    static let levelBins = 160
    /// The lowest histogram level, dB; a band level at or below it counts as silence.
    static let floorDB: Float = -150
    /// A hop this far above the noise median is foreground: a 16-bin band of Gaussian noise
    /// (ν ≈ 15) exceeds its median by 3 dB in about 2 % of hops.
    static let foregroundMarginDB: Float = 3
    /// The span of the steadiness check, seconds.
    static let steadySeconds = 1.0
    /// The largest standard deviation of a band's level, dB, that counts as steady.
    static let steadySpreadDB: Float = 2.5
    /// Rounds of the occupancy iteration: ``steadyRounds`` with the steady-noise margin, the
    /// rest only for a fluctuating background.
    static let rounds = 7
    static let steadyRounds = 3
    /// How far the lower spread must exceed a steady noise's, dB, to count as fluctuation.
    static let fluctuationThresholdDB: Float = 1.5
    /// The least noise-only share at which a band's fluctuation is measured.
    static let fluctuationShare: Float = 0.15
    /// The widest foreground margin, dB.
    static let maximumMarginDB: Float = 10
    /// The largest background spread credited, dB.
    static let maximumFluctuationDB: Float = 5
    /// A hop whose music probability reaches this feeds the valley histograms. Chosen for the
    /// music GRU of 2026-12-06 (stepped every fourth frame) on the scene corpus's dev split from
    /// 0.8, 0.9, 0.95, 0.98, 0.99 and 0.995 (docs/detection.md, *A music GRU stepped every
    /// fourth frame*): its probabilities are sharper than the ensemble's before it (0.8); at lower
    /// thresholds the recorded ice-beam hum under several talkers feeds the valleys, at 0.995
    /// too few music hops do.
    public static let musicThreshold: Float = 0.99
    /// The share of music hops (forgetting-weighted like the histograms) from which the valley
    /// estimate starts to count, and from which it alone counts (linear in dB between). On the
    /// scene corpus's dev split, 19 of the 25 music files pass 0.9 at some point; without music,
    /// the ice-beam hum passes 0.95, and five files of speech over a recorded rc-plane engine
    /// reach 0.64–0.86 for a moment.
    public static let musicShareLow: Float = 0.6
    public static let musicShareHigh: Float = 0.8
    /// How far the noise-only median of a band's median bin × its bin count lies below the
    /// band's mean power on Gaussian noise, dB (Hann-windowed bands of 15–16 bins, the default
    /// layout; checked by the tests).
    public static let valleyCalibrationDB: Float = 1.5

    /// A hop whose speech probability is below this, with a music probability below
    /// ``quietMusicThreshold``, is *quiet*: the detector hears no foreground in it. Kept for
    /// the detection models of 2026-12-06 (K2): 0.25 and 0.2, tried on the scene corpus's dev
    /// split, keep a reverberant room's missed words out of the bursts but lose a loop
    /// (docs/scene-measures.md, *The quiet hops' threshold with K2's models*).
    public static let quietSpeechThreshold: Float = 0.3
    /// The music probability under which a hop can be quiet.
    public static let quietMusicThreshold: Float = 0.5
    /// A hop counts as quiet only with this many hops with neither speech nor music before it
    /// and after it (the 64 ms window of a hop reaches 4 hops into its neighbours).
    public static let quietGuardHops = 4
    /// Quiet hops per quiet block: 31 hops of 16 ms, the 0.5 s of a block level.
    public static let quietBlockHops = 31
    /// A quiet block is counted every this many quiet hops (blocks overlap).
    public static let quietBlockStride = 8
    /// How far the quiet blocks' median must lie above the occupancy estimate before it
    /// counts at all, dB (from ``quietHighDB`` it alone counts; linear in dB between).
    public static let quietLowDB: Float = 3
    /// How far above the occupancy estimate the quiet blocks' median alone counts, dB.
    public static let quietHighDB: Float = 6
    /// A quiet hop whose total power exceeds the least of the up to ``quietGuardHops`` quiet
    /// hops before it in the same quiet stretch by this much, dB, is a burst: the background
    /// itself rises, with no speech or music heard.
    public static let burstRiseDB: Float = 10
    /// Rises within this many hops of the last one belong to the same burst.
    public static let burstSpanHops = 8
    /// Bursts recur when each follows the last within this many seconds.
    public static let burstIntervalSeconds = 2.0
    /// The quiet blocks are read once this many bursts have recurred in a row
    /// (``burstIntervalSeconds``).
    public static let burstChain = 3
    /// How long after a recurring burst the quiet blocks are read, seconds.
    public static let burstMemorySeconds = 10.0
    /// The least share of the window's hops (forgetting-weighted) that the quiet blocks must
    /// stand for (a block counted every ``quietBlockStride`` quiet hops stands for that many)
    /// before they are read.
    public static let quietShareMinimum: Float = 0.1
    /// The least score of a looped background (`LoopedBackground`: the correlation of the
    /// hops' total level with itself one period on, and its rise over every shorter lag) at which
    /// its level is read. On the scene corpus's dev split a loop alone scores 0.99–1.00 once the
    /// window holds two periods, and no file without a loop passes 0.99 (a clean talker's rhythm
    /// reached 0.987 in a 4 s window; docs/scene-measures.md, *Looped backgrounds*).
    public static let loopScoreThreshold: Float = 0.99
    /// How often each band's reading may be held, seconds of stream (the type's *Reverberant
    /// rooms*): at the end of the first ``holdCheckpointFrameSeconds`` frame that reaches each
    /// multiple of this.
    public static let holdCheckpointSeconds = 0.5
    /// The frame whose ends the checkpoints fall on, seconds: 64 ms, so that they fall on the
    /// hops where an ``AnalysisChain``'s environment reads ``levelDBFS`` at its defaults (2 Hz,
    /// 1024-sample frames at 16 kHz), and that reading reuses the checkpoint's band readings.
    public static let holdCheckpointFrameSeconds = 0.064
    /// The least noise-only share of a band's window at which its reading is held.
    public static let holdShare: Float = 0.35
    /// How far above a band's held level a reading must lie to read the held level instead, dB.
    public static let holdMarginDB: Float = 10
    /// How long a held level counts without a newer one, seconds.
    public static let holdSeconds = 10.0
    /// Checkpoints in a row at which a band's held reading must lie more than ``holdMarginDB``
    /// above its held level before it replaces it.
    public static let holdRiseCheckpoints = 3
    /// The share of the bands whose held readings must lie more than ``holdMarginDB`` above their
    /// held levels at one checkpoint for all of them to replace their held levels at once (a new
    /// broadband background).
    public static let holdConsensus: Float = 0.3
    /// How far above a band's reading every hop of the last second must lie for the
    /// band to have *risen* (the type's *A louder background*), dB.
    public static let riseDB: Float = 10
    /// A risen band shows a *floor* when more than a quarter of the last second's hops
    /// lie within this of their least level, dB (a new background under the foreground; a
    /// decaying reverberant field or speech spreads its lowest hops wider).
    public static let floorSpreadDB: Float = 3
    /// The share of the bands that must show a new background at one checkpoint (a steady level
    /// answering, or a risen band with a floor) before the risen bands forget what lies under
    /// their last second.
    public static let riseConsensus: Float = 0.25
    /// How far under the least level of a risen band's last second its forgotten
    /// weight starts, dB.
    public static let forgetMarginDB: Float = 3

    /// The settings, as validated.
    public let configuration: Configuration
    /// The band layout, one copy shared by every estimator with the same bins and bands
    /// (``NoiseBandTables/cache``); the three views below read it (held here so that the hot
    /// loops load them as before, not through the table object).
    private let bandTables: NoiseBandTables
    /// First bin of each band, and one past the last band (`bandCount + 1` entries).
    private let bandStarts: UnsafeMutableBufferPointer<Int>
    /// Mean ÷ median of each band's noise power.
    private let meanToMedian: UnsafeMutableBufferPointer<Float>
    /// The squared spread (dB²) between the median and the 15.9 % quantile that a band of
    /// steady Gaussian noise shows by its chi-square shape alone (Wilson–Hilferty, `z = −1`).
    private let chiSquareSpread: UnsafeMutableBufferPointer<Float>
    /// `2 × bandCount × levelBins` forgetting-weighted counts: the band levels of every hop
    /// (rows `0..<bandCount`), then the valley levels of the music hops (rows
    /// `bandCount..<2 × bandCount`).
    private let histograms: UnsafeMutableBufferPointer<Float>
    /// Total weight per histogram row.
    private let totals: UnsafeMutableBufferPointer<Float>
    /// One band's bins (scratch for the median bin).
    private let valleyScratch: UnsafeMutableBufferPointer<Float>
    /// Per-hop valley levels (scratch).
    private let valleys: UnsafeMutableBufferPointer<Float>
    /// Batcher's odd–even merge sort of 16 inputs (63 compare-exchanges, branch-free): the
    /// median bin of a band of at most 16 bins (15–16 at the defaults), padded with +∞. One
    /// copy shared by every estimator (``SortingNetwork/cache``).
    private let network: SortingNetwork
    /// The total power of the last ``quietBlockHops`` quiet hops (a ring), and of the up to
    /// ``quietGuardHops`` quiet hops still waiting for their quiet successors (a ring).
    private let quietHops: UnsafeMutableBufferPointer<Float>
    private let pendingHops: UnsafeMutableBufferPointer<Float>
    private var quietIndex = 0
    private var quietCount = 0
    private var pendingIndex = 0
    private var pendingCount = 0
    /// Hops since the last hop heard as music (``quietMusicThreshold``), capped at ``recentHops``.
    private var hopsSinceMusic = 0
    /// Hops since the last hop with speech or music (or with no speech probability).
    private var hopsSinceForeground = 0
    /// Quiet hops in the ring since the last hop with speech or music.
    private var quietRun = 0
    /// Hops since the last burst (``burstRiseDB``), capped; and the cap.
    private var hopsSinceBurst = Int.max / 2
    private let burstMemoryHops: Int
    /// The hop of the last burst, bursts recurring in a row up to it, and the longest interval
    /// that keeps them in a row (hops).
    private var lastBurst = Int.min / 2
    private var burstsInRow = 0
    private let burstIntervalHops: Int
    /// ``burstRiseDB`` as a power ratio.
    private let burstRatio = Float(Decibels.toPower(Double(burstRiseDB)))
    /// The forgetting-weighted count of music hops and of all hops.
    private var musicWeight: Float = 0
    private var hopWeight: Float = 0
    /// Per-hop band levels (scratch).
    private let levels: UnsafeMutableBufferPointer<Float>
    /// One band's cumulative histogram, `levelBins + 1` entries (scratch for the quantiles,
    /// `cdsp_noise_median`), filled only over the band's occupied bins and read only there (below
    /// them it counts as 0, above them as the total). Between readings it is the looped
    /// background's analysis scratch (`LoopedBackground.scratchBytes`).
    private let cumulative: UnsafeMutableBufferPointer<Float>
    /// Each histogram row's lowest and highest bin counted since the last reset (the bins
    /// outside hold no weight, so the quantile scans skip them; `levelBins` and −1 when none).
    private let occupied: UnsafeMutableBufferPointer<(low: Int32, high: Int32)>
    /// The histogram readings' constants, for the C kernels (CDSPNoiseLevel.h).
    private static let medianParameters = cdsp_noise_median_params(
        floor_db: floorDB, bins: Int32(levelBins), rounds: Int32(rounds), steady_rounds: Int32(steadyRounds),
        margin_db: foregroundMarginDB, fluctuation_share: fluctuationShare, maximum_fluctuation_db: maximumFluctuationDB,
        fluctuation_threshold_db: fluctuationThresholdDB, maximum_margin_db: maximumMarginDB)
    /// Whether every band is 16 bins wide from bin 1 (not the default layout, whose 32 bands hold
    /// 15–16 bins), summed 16 at a time.
    private let sixteenBinBands: Bool
    /// The leading bands, a multiple of eight, that are each at most 16 bins wide (all 32 at the
    /// defaults): their median bins are found eight bands at a time.
    private let narrowBands: Int
    private let growth: Float
    /// The last ``steadySeconds`` of band levels, hop-major (`recentHops × bandCount`), for
    /// the steadiness check.
    private let recent: UnsafeMutableBufferPointer<Float>
    private let recentHops: Int
    private var recentIndex = 0
    private var recentCount = 0
    private var weight: Float = 1
    private var hops = 0
    /// The last hops whose band levels are in ``recent`` but not yet counted in the band
    /// histograms (at most ``recentHops``), and the forgetting weight of the first of them: the
    /// counts are made in a burst where they are read (``currentLevel()``), before ``recent``
    /// would overwrite a row, and before a rescale. Each bin receives the same additions in the
    /// same order as if they were made hop by hop, so every result is bit-identical; a push
    /// whose stream other streams have evicted from the caches no longer misses on 32
    /// scattered histogram lines a hop (docs/front-end.md).
    private var uncountedHops = 0
    private var uncountedWeight: Float = 1
    /// Each band's held level, dB (+∞ when none); the checkpoints since it was held (capped at
    /// 255, far above the ``holdSeconds`` ÷ ``holdCheckpointSeconds`` it counts for); and the
    /// checkpoints in a row at which a reading above the margin could have been held.
    private let held: UnsafeMutableBufferPointer<Float>
    /// Each band's background power in the last ``levelDBFS`` reading (mean-square units, what
    /// the plain level sums); NaN before any reading of the stream and where that reading was
    /// made under music.
    private let readPowers: UnsafeMutableBufferPointer<Float>
    private let heldAge: UnsafeMutableBufferPointer<UInt8>
    private let heldRise: UnsafeMutableBufferPointer<UInt8>
    /// Each band's least level over the last ``steadySeconds`` at a checkpoint where it has
    /// risen (``riseDB``), NaN where not (scratch of ``holdReadings()``).
    private let risenFloors: UnsafeMutableBufferPointer<Float>
    /// The hops between checkpoints (on average), and how many a held level counts for.
    private let holdCheckpointHops: Int
    private let holdHops: Int
    /// The checkpoints' schedule in thousandths of a hop: ``holdCheckpointSeconds``, the next
    /// multiple of it, and ``holdCheckpointFrameSeconds`` in whole hops.
    private let checkpointMilliHops: Int
    private var nextCheckpointMilliHops: Int
    private let checkpointFrameHops: Int
    /// The band readings of the last checkpoint, and its hop count: a ``levelDBFS`` reading at
    /// the same hop (nothing counted since) reuses them.
    private let checkpointReadings: UnsafeMutableBufferPointer<BandReading>
    private var checkpointHop = -1
    /// The partial input hop carried between ``process(_:into:)`` calls.
    private let carry: UnsafeMutableBufferPointer<Float>
    private var carryCount = 0
    /// The hops' total levels, read for a looped background (the type's *Looped backgrounds*;
    /// nil with the option off).
    private let loop: LoopedBackground?

    /// Validates `configuration` and allocates everything.
    public init(configuration: Configuration = Configuration()) throws(ConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        let bands = configuration.bandCount
        let key = NoiseBandTables.Key(binCount: configuration.binCount, bandCount: bands)
        bandTables = NoiseBandTables.cache.table(for: key) { NoiseBandTables(key) }
        bandStarts = bandTables.starts
        meanToMedian = bandTables.meanToMedian
        chiSquareSpread = bandTables.chiSquareSpread
        histograms = .allocate(capacity: (2 * bands + 1) * Self.levelBins)
        histograms.initialize(repeating: 0)
        totals = .allocate(capacity: 2 * bands + 1)
        totals.initialize(repeating: 0)
        quietHops = .allocate(capacity: Self.quietBlockHops)
        quietHops.initialize(repeating: 0)
        pendingHops = .allocate(capacity: Self.quietGuardHops)
        pendingHops.initialize(repeating: 0)
        var widest = 1
        for b in 0..<bands { widest = Swift.max(widest, bandStarts[b + 1] - bandStarts[b]) }
        valleyScratch = .allocate(capacity: Swift.max(widest, 16))
        valleyScratch.initialize(repeating: 0)
        valleys = .allocate(capacity: bands)
        valleys.initialize(repeating: 0)
        levels = .allocate(capacity: (bands + 7) / 8 * 8)
        levels.initialize(repeating: 0)
        let loop = configuration.loopedBackgrounds ? LoopedBackground(hopSeconds: configuration.hopSeconds) : nil
        self.loop = loop
        cumulative = .allocate(capacity: Swift.max(Self.levelBins + 1, ((loop?.scratchBytes ?? 0) + 3) / 4))
        cumulative.initialize(repeating: 0)
        occupied = .allocate(capacity: 2 * bands + 1)
        occupied.initialize(repeating: (Int32(Self.levelBins), -1))
        let starts = bandStarts
        sixteenBinBands = (0..<bands).allSatisfy { starts[$0 + 1] - starts[$0] == 16 }
        let firstWide = (0..<bands).first { starts[$0 + 1] - starts[$0] > 16 } ?? bands
        narrowBands = firstWide / 8 * 8
        network = SortingNetwork.cache.table(for: 16) { SortingNetwork(inputs: 16) }
        growth = Float(Double.exp(configuration.hopSeconds / configuration.windowSeconds))
        burstIntervalHops = Swift.max(1, Int((Self.burstIntervalSeconds / configuration.hopSeconds).rounded()))
        burstMemoryHops = Swift.max(1, Int((Self.burstMemorySeconds / configuration.hopSeconds).rounded()))
        recentHops = Swift.max(2, Int((Self.steadySeconds / configuration.hopSeconds).rounded()))
        recent = .allocate(capacity: recentHops * bands)
        recent.initialize(repeating: 0)
        carry = .allocate(capacity: configuration.binCount)
        carry.initialize(repeating: 0)
        held = .allocate(capacity: bands)
        held.initialize(repeating: .infinity)
        readPowers = .allocate(capacity: bands)
        readPowers.initialize(repeating: .nan)
        heldAge = .allocate(capacity: bands)
        heldAge.initialize(repeating: 0)
        heldRise = .allocate(capacity: bands)
        heldRise.initialize(repeating: 0)
        risenFloors = .allocate(capacity: bands)
        risenFloors.initialize(repeating: .nan)
        holdCheckpointHops = Swift.max(1, Int((Self.holdCheckpointSeconds / configuration.hopSeconds).rounded()))
        checkpointMilliHops = Swift.max(1, Int((Self.holdCheckpointSeconds / configuration.hopSeconds * 1000).rounded()))
        nextCheckpointMilliHops = checkpointMilliHops
        checkpointFrameHops = Swift.max(1, Int((Self.holdCheckpointFrameSeconds / configuration.hopSeconds).rounded()))
        checkpointReadings = .allocate(capacity: bands)
        checkpointReadings.initialize(repeating: BandReading(level: Self.floorDB))
        holdHops = Swift.max(1, Int((Self.holdSeconds / configuration.hopSeconds).rounded()))
    }

    deinit {
        histograms.deallocate()
        totals.deallocate(); levels.deallocate(); cumulative.deallocate(); carry.deallocate(); recent.deallocate()
        occupied.deallocate(); valleyScratch.deallocate(); valleys.deallocate()
        quietHops.deallocate(); pendingHops.deallocate(); held.deallocate(); heldAge.deallocate(); heldRise.deallocate(); risenFloors.deallocate(); readPowers.deallocate()
        checkpointReadings.deallocate()
    }

    private let ownership = StreamOwnership()

    /// Takes the ownership flag; two overlapping calls stop the program.
    @inline(__always)
    private func enter() {
        if !ownership.acquire() { preconditionFailure("NoiseLevelEstimator: overlapping calls from two threads (one stream, one caller at a time)") }
    }

    /// Hops counted since the stream began.
    public var hopCount: Int {
        enter(); defer { ownership.release() }
        return hops
    }

    /// Adds one hop's power spectrum (``Configuration-swift.struct/binCount`` bins; extra bins
    /// are ignored, missing ones read as 0). A hop with a non-finite bin is not counted.
    /// Never allocates.
    public func update(_ power: UnsafeBufferPointer<Float>) {
        enter(); defer { ownership.release() }
        add(power, musicProbability: 0, speechProbability: .nan)
    }

    /// ``update(_:)`` for a hop with music probability `musicProbability` (0…1; NaN reads as 0):
    /// at ``musicThreshold`` or above the hop also feeds the valley histograms read under music.
    /// Never allocates.
    public func update(_ power: UnsafeBufferPointer<Float>, musicProbability: Float) {
        enter(); defer { ownership.release() }
        add(power, musicProbability: musicProbability, speechProbability: .nan)
    }

    /// ``update(_:musicProbability:)`` for a hop whose speech probability is also known
    /// (`speechProbability`, 0…1; NaN reads as unknown, never quiet): a hop the detector hears
    /// neither speech nor music in also feeds the quiet blocks and the burst check read for a
    /// looped or bursty background (the type's *Looped and bursty backgrounds*). Never allocates.
    public func update(_ power: UnsafeBufferPointer<Float>, musicProbability: Float, speechProbability: Float) {
        enter(); defer { ownership.release() }
        add(power, musicProbability: musicProbability, speechProbability: speechProbability)
    }

    /// ``update(_:musicProbability:speechProbability:)`` for a caller holding the flag.
    private func add(_ power: UnsafeBufferPointer<Float>, musicProbability: Float, speechProbability: Float) {
        let bands = configuration.bandCount
        let n = Swift.min(power.count, configuration.binCount)
        var finite = true
        if sixteenBinBands, n >= bandStarts[bands], let base = power.baseAddress {
            let raw = UnsafeRawPointer(base + 1)
            for b in 0..<bands {
                let sum = raw.loadUnaligned(fromByteOffset: b * 64, as: SIMD16<Float>.self).sum()
                if !sum.isFinite { finite = false }
                levels[b] = sum
            }
        } else if let base = power.baseAddress {
            // Each band's bins in order (`cdsp_noise_band_sums`).
            finite = cdsp_noise_band_sums(base, n, bandStarts.baseAddress!, bands, levels.baseAddress!) != 0
        } else {
            for b in 0..<bands { levels[b] = 0 }
        }
        guard finite else { return }
        let isMusic = musicProbability >= Self.musicThreshold
        if musicProbability >= Self.quietMusicThreshold { hopsSinceMusic = 0 } else if hopsSinceMusic < recentHops { hopsSinceMusic += 1 }
        if isMusic { medianBins(power, count: n) }
        // (Through `loop!`, not a binding: a binding took a reference count every hop.)
        if loop != nil, speechProbability.isNaN {
            if !loop!.isEmpty { loop!.reset() }
        } else if loop != nil {
            var sum = SIMD8<Float>()
            var b = 0
            while b + 8 <= bands {
                sum += UnsafeRawPointer(levels.baseAddress! + b).loadUnaligned(as: SIMD8<Float>.self)
                b += 8
            }
            var power = sum.sum()
            while b < bands { power += levels[b]; b += 1 }
            // The quantiles' scratch is free between readings (and 644 bytes at the defaults).
            loop!.add(power: power, speechProbability: speechProbability, scratch: UnsafeMutableRawBufferPointer(cumulative))
        }
        // NaN probabilities fail both comparisons: a hop of unknown content is never quiet.
        if speechProbability < Self.quietSpeechThreshold, !(musicProbability >= Self.quietMusicThreshold) {
            hopsSinceForeground += 1
            if hopsSinceForeground > Self.quietGuardHops {
                var sum: Float = 0
                for b in 0..<bands { sum += levels[b] }
                addQuiet(sum)
            }
        } else {
            hopsSinceForeground = 0
            pendingCount = 0
            quietRun = 0
        }
        if hopsSinceBurst < burstMemoryHops { hopsSinceBurst += 1 }
        var b = 0
        // Levels in dB, held to the histogram's span, eight bands at a time. (The bins are found
        // one band at a time: the standard library's SIMD float-to-integer conversion is a
        // generic loop, slower than the scalar one.)
        let top = Self.levelBins - 1
        let lowest = SIMD8<Float>(repeating: Self.floorDB)
        let highest = SIMD8<Float>(repeating: Self.floorDB + Float(Self.levelBins))
        while b + 8 <= bands {
            let p = UnsafeRawPointer(levels.baseAddress! + b).loadUnaligned(as: SIMD8<Float>.self)
            // Clamped by lane selects (`clamped(lowerBound:upperBound:)` calls the generic
            // pointwise min and max, not inlined here; the levels are never NaN).
            var level = FastLog.decibels(p)
            level.replace(with: lowest, where: level .< lowest)
            level.replace(with: highest, where: level .> highest)
            UnsafeMutableRawPointer(levels.baseAddress! + b).storeBytes(of: level, as: SIMD8<Float>.self)
            b += 8
        }
        while b < bands {
            levels[b] = Swift.min(Self.floorDB + Float(Self.levelBins), Swift.max(Self.floorDB, FastLog.decibels(levels[b])))
            b += 1
        }
        if uncountedHops == recentHops { countUncounted() }
        let row = recent.baseAddress! + recentIndex * bands
        row.update(from: levels.baseAddress!, count: bands)
        if uncountedHops == 0 { uncountedWeight = weight }
        uncountedHops += 1
        var b8 = 0
        while b8 + 8 <= bands {  // eight bands a lane each: the same additions
            let t = UnsafeMutableRawPointer(totals.baseAddress! + b8)
            t.storeBytes(of: t.loadUnaligned(as: SIMD8<Float>.self) + SIMD8(repeating: weight), as: SIMD8<Float>.self)
            b8 += 8
        }
        while b8 < bands { totals[b8] += weight; b8 += 1 }
        if isMusic {
            for b in 0..<bands {
                let level = Swift.min(Self.floorDB + Float(Self.levelBins), Swift.max(Self.floorDB, FastLog.decibels(valleys[b])))
                let index = Int32(Swift.min(top, Int((level - Self.floorDB).rounded(.down))))
                let row = bands + b
                histograms[row * Self.levelBins + Int(index)] += weight
                totals[row] += weight
                let span = occupied[row]
                if index < span.low || index > span.high {
                    occupied[row] = (Swift.min(span.low, index), Swift.max(span.high, index))
                }
            }
            musicWeight += weight
        }
        hopWeight += weight
        recentIndex = recentIndex + 1 == recentHops ? 0 : recentIndex + 1
        recentCount = Swift.min(recentCount + 1, recentHops)
        hops += 1
        weight *= growth
        if weight > 1e20 { rescale(1e-20) }
        if hops % checkpointFrameHops == 0, hops * 1000 >= nextCheckpointMilliHops {
            holdReadings()
            nextCheckpointMilliHops = (hops * 1000 / checkpointMilliHops + 1) * checkpointMilliHops
        }
    }

    /// Holds each band's reading where its window shows the background itself (at least
    /// ``holdShare`` noise-only, not fluctuating): at once when it lies within
    /// ``holdMarginDB`` of the held level or rises with ``holdConsensus`` of the bands, else at
    /// the ``holdRiseCheckpoints``-th checkpoint in a row; forgets a held level older than
    /// ``holdSeconds``. First, where the bands show a louder background (``riseConsensus``), the
    /// risen bands forget the weight under their last ``steadySeconds`` (the type's *A louder
    /// background*) and hold their new readings. Called at fixed hops
    /// (``holdCheckpointSeconds``).
    private func holdReadings() {
        countUncounted()
        let bands = configuration.bandCount
        var steady = RingStatistics()
        // A new background shows as a steady level answering or as a risen band with a floor.
        var evidence = 0
        var least = SIMD8<Float>(), leastFirst = -1
        for b in 0..<bands {
            if b % 8 == 0 { steady = ringMeans(from: b) }
            let reading = bandMedian(b, ring: &steady)
            checkpointReadings[b] = reading
            risenFloors[b] = .nan
            if reading.steady {
                evidence += 1
            } else if recentCount == recentHops, reading.level > Self.floorDB + 1 {
                if leastFirst != b / 8 * 8 {
                    leastFirst = b / 8 * 8
                    least = ringLeast(from: leastFirst)
                }
                let floor = least[b - leastFirst]
                if floor > reading.level + Self.riseDB {
                    risenFloors[b] = floor
                    if ringHasFloor(b, at: floor) { evidence += 1 }
                }
            }
        }
        // Not with music about: sustained notes hold floors too (and where the music path blends
        // in, it reads the valleys).
        let underMusic = hopsSinceMusic < recentHops || (hopWeight > 0 && musicWeight / hopWeight > Self.musicShareLow)
        let louder = Float(evidence) >= Self.riseConsensus * Float(bands) && !underMusic
        if louder {
            for b in 0..<bands where !risenFloors[b].isNaN {
                forget(b, below: risenFloors[b] - Self.forgetMarginDB)
                steady = ringMeans(from: b / 8 * 8)
                checkpointReadings[b] = bandMedian(b, ring: &steady)
            }
        }
        // `levels` holds each band's reading where it may be held, NaN where not.
        var rising = 0
        for b in 0..<bands {
            let reading = checkpointReadings[b]
            let holdable = reading.share >= Self.holdShare && !reading.fluctuating
            levels[b] = holdable ? reading.level : .nan
            if holdable, reading.level > held[b] + Self.holdMarginDB, held[b] > Self.floorDB + 1 { rising += 1 }
        }
        checkpointHop = hops
        let together = Float(rising) >= Self.holdConsensus * Float(bands)
        for b in 0..<bands {
            let level = levels[b]
            if heldAge[b] < .max { heldAge[b] += 1 }
            if louder, !risenFloors[b].isNaN {
                // The louder background itself: its reading is held at once.
                held[b] = checkpointReadings[b].level
                heldAge[b] = 0
                heldRise[b] = 0
            } else if !level.isNaN {
                if level > held[b] + Self.holdMarginDB, held[b] > Self.floorDB + 1, !together {
                    // A reverberant field passes in a band now and then; a new background stays.
                    if heldRise[b] < .max { heldRise[b] += 1 }
                    guard Int(heldRise[b]) >= Self.holdRiseCheckpoints else { continue }
                }
                held[b] = level
                heldAge[b] = 0
                heldRise[b] = 0
            } else {
                heldRise[b] = 0
                if Int(heldAge[b]) * holdCheckpointHops > holdHops { held[b] = .infinity }
            }
        }
    }

    /// The least level over the last ``steadySeconds`` (the ring, full) of bands `first` …
    /// `first + 7` (+∞ in the lanes past the last band), eight bands a lane each.
    private func ringLeast(from first: Int) -> SIMD8<Float> {
        let bands = configuration.bandCount
        var least = SIMD8<Float>(repeating: .infinity)
        if first + 8 <= bands {
            let ring = UnsafeRawPointer(recent.baseAddress! + first)
            for h in 0..<recentHops {
                let level = ring.loadUnaligned(fromByteOffset: 4 * h * bands, as: SIMD8<Float>.self)
                least.replace(with: level, where: level .< least)
            }
            return least
        }
        for lane in 0..<Swift.min(8, bands - first) {
            for h in 0..<recentHops { least[lane] = Swift.min(least[lane], recent[h * bands + first + lane]) }
        }
        return least
    }

    /// Whether more than a quarter of band `b`'s hops over the last ``steadySeconds`` lie
    /// within ``floorSpreadDB`` of `floor`, their least level: a floor.
    private func ringHasFloor(_ b: Int, at floor: Float) -> Bool {
        let bands = configuration.bandCount
        let top = floor + Self.floorSpreadDB
        var near = 0
        for h in 0..<recentHops where recent[h * bands + b] <= top { near += 1 }
        return near > recentHops / 4
    }

    /// Removes band `b`'s histogram weight in the bins below the one holding `level` (dB): what
    /// a louder background left behind (the type's *A louder background*). The band's total and
    /// occupied span are made anew from the bins that remain.
    private func forget(_ b: Int, below level: Float) {
        let row = b * Self.levelBins
        let span = occupied[b]
        guard span.low <= span.high else { return }
        let cut = Swift.min(Self.levelBins, Swift.max(0, Int((level - Self.floorDB).rounded(.down))))
        guard cut > Int(span.low) else { return }
        for i in Int(span.low)..<Swift.min(cut, Int(span.high) + 1) { histograms[row + i] = 0 }
        var low = Int32(Self.levelBins), high: Int32 = -1
        var total: Float = 0
        for i in Int(span.low)...Int(span.high) where histograms[row + i] > 0 {
            if low == Int32(Self.levelBins) { low = Int32(i) }
            high = Int32(i)
            total += histograms[row + i]
        }
        occupied[b] = (low, high)
        totals[b] = total
    }

    /// Counts the ``uncountedHops`` hops (oldest first) in the band histograms: each hop's
    /// band levels from ``recent``, at its forgetting weight (the first hop's times ``growth``
    /// per hop, as ``add(_:musicProbability:speechProbability:)`` made it).
    private func countUncounted() {
        guard uncountedHops > 0 else { return }
        var first = recentIndex - uncountedHops
        if first < 0 { first += recentHops }
        // Each bin receives the hops' weights in hop order; each band's occupied span takes in
        // the bins counted (`cdsp_noise_count`).
        UnsafeMutableRawPointer(occupied.baseAddress!).withMemoryRebound(to: Int32.self, capacity: 2 * occupied.count) { spans in
            withUnsafePointer(to: Self.medianParameters) { parameters in
                cdsp_noise_count(histograms.baseAddress!, spans, recent.baseAddress!, configuration.bandCount, recentHops,
                                 first, uncountedHops, uncountedWeight, growth, parameters)
            }
        }
        uncountedHops = 0
    }

    /// A rise of the quiet hops' power (``burstRiseDB``) at the current hop.
    private func burst() {
        let since = hops - lastBurst
        if since <= Self.burstSpanHops { return }
        burstsInRow = since <= burstIntervalHops ? burstsInRow + 1 : 1
        lastBurst = hops
        if burstsInRow >= Self.burstChain { hopsSinceBurst = 0 }
    }

    /// Queues a quiet hop's total power; the hop ``quietGuardHops`` earlier, now followed by as
    /// many quiet hops, joins the quiet-block ring, and every ``quietBlockStride`` hops the
    /// ring's mean power (a 0.5 s block of quiet hops) is counted in the quiet-block histogram.
    private func addQuiet(_ power: Float) {
        let guardHops = Self.quietGuardHops
        if pendingCount == guardHops {
            let ready = pendingHops[pendingIndex]
            if quietRun > 0 {
                var least = Float.infinity
                for k in 1...Swift.min(quietRun, guardHops) {
                    least = Swift.min(least, quietHops[(quietIndex + Self.quietBlockHops - k) % Self.quietBlockHops])
                }
                if ready > least * burstRatio { burst() }
            }
            quietRun += 1
            quietHops[quietIndex] = ready
            quietIndex = quietIndex + 1 == Self.quietBlockHops ? 0 : quietIndex + 1
            quietCount += 1
            if quietCount >= Self.quietBlockHops, (quietCount - Self.quietBlockHops) % Self.quietBlockStride == 0 {
                var sum: Float = 0
                for k in 0..<Self.quietBlockHops { sum += quietHops[k] }
                let level = Swift.min(Self.floorDB + Float(Self.levelBins), Swift.max(Self.floorDB, FastLog.decibels(sum / Float(Self.quietBlockHops))))
                let index = Int32(Swift.min(Self.levelBins - 1, Int((level - Self.floorDB).rounded(.down))))
                let row = 2 * configuration.bandCount
                histograms[row * Self.levelBins + Int(index)] += weight
                totals[row] += weight
                let span = occupied[row]
                if index < span.low || index > span.high {
                    occupied[row] = (Swift.min(span.low, index), Swift.max(span.high, index))
                }
            }
            if quietCount >= Self.quietBlockHops + Self.quietBlockStride { quietCount -= Self.quietBlockStride }
            pendingHops[pendingIndex] = power
            pendingIndex = pendingIndex + 1 == guardHops ? 0 : pendingIndex + 1
        } else {
            pendingHops[(pendingIndex + pendingCount) % guardHops] = power
            pendingCount += 1
        }
    }

    /// Each band's median bin × its bin count into ``valleys`` (the mean of the two middle bins
    /// for an even count), in ``valleyScratch``: through the sorting network
    /// (``SortingNetwork``) for bands of at most 16 bins, eight bands at a time (one band a
    /// lane; ``medianBinsOfEight(_:count:from:)``) where eight such bands lie within the
    /// spectrum, by selection for wider ones; no allocation.
    private func medianBins(_ power: UnsafeBufferPointer<Float>, count n: Int) {
        var first = 0
        while first + 8 <= narrowBands, bandStarts[first + 8] <= n {
            medianBinsOfEight(power, count: n, from: first)
            first += 8
        }
        for b in first..<configuration.bandCount {
            let start = bandStarts[b], end = Swift.min(bandStarts[b + 1], n)
            let width = end - start
            guard width > 0 else { valleys[b] = 0; continue }
            for k in 0..<width { valleyScratch[k] = power[start + k] }
            if width <= 16 {
                // The same order statistics through the sorting network, without branches.
                let x = valleyScratch.baseAddress!
                for k in width..<16 { x[k] = .infinity }
                for (i, k) in network.pairs {
                    let a = x[Int(i)], c = x[Int(k)]
                    x[Int(i)] = Swift.min(a, c)
                    x[Int(k)] = Swift.max(a, c)
                }
                let upper = x[width / 2]
                let median = width % 2 == 0 ? 0.5 * (x[width / 2 - 1] + upper) : upper
                valleys[b] = median * Float(bandStarts[b + 1] - bandStarts[b])
                continue
            }
            let upper = Self.select(valleyScratch, count: width, rank: width / 2)
            var median = upper
            if width % 2 == 0 {
                // The lower middle is the largest of the bins the selection left below it.
                var lower = valleyScratch[0]
                for k in 1..<(width / 2) { lower = Swift.max(lower, valleyScratch[k]) }
                median = 0.5 * (lower + upper)
            }
            valleys[b] = median * Float(bandStarts[b + 1] - bandStarts[b])
        }
    }

    /// Each band's median bin × its bin count for one spectrum, as the music path reads it: the
    /// tests' view of ``medianBins(_:count:)``. Allocates its result.
    func medianBinsForTesting(_ power: UnsafeBufferPointer<Float>) -> [Float] {
        enter(); defer { ownership.release() }
        medianBins(power, count: Swift.min(power.count, configuration.binCount))
        return Array(valleys)
    }

    /// ``medianBins(_:count:)`` for bands `first` … `first + 7`, each of at most 16 bins and
    /// within the spectrum: the same compare-exchanges of the sorting network, a band a lane, so
    /// every band's sorted bins, and so its median, are those the one-band network gives.
    private func medianBinsOfEight(_ power: UnsafeBufferPointer<Float>, count n: Int, from first: Int) {
        withUnsafeTemporaryAllocation(of: SIMD8<Float>.self, capacity: 16) { x in
            for k in 0..<16 {
                var row = SIMD8<Float>(repeating: .infinity)
                for lane in 0..<8 {
                    let start = bandStarts[first + lane]
                    if start + k < bandStarts[first + lane + 1] { row[lane] = power[start + k] }
                }
                x[k] = row
            }
            for (i, k) in network.pairs {
                let a = x[Int(i)], c = x[Int(k)]
                // Swift.min and Swift.max per lane (no NaN reaches here: the band sums are finite).
                x[Int(i)] = a.replacing(with: c, where: c .< a)
                x[Int(k)] = c.replacing(with: a, where: c .< a)
            }
            for lane in 0..<8 {
                let b = first + lane
                let width = bandStarts[b + 1] - bandStarts[b]
                let upper = x[width / 2][lane]
                let median = width % 2 == 0 ? 0.5 * (x[width / 2 - 1][lane] + upper) : upper
                valleys[b] = median * Float(width)
            }
        }
    }

    /// The element of rank `rank` (0-based, ascending) of `values[0..<count]`, leaving the smaller
    /// ones before it (Hoare's selection with the middle element as pivot, in place).
    private static func select(_ values: UnsafeMutableBufferPointer<Float>, count: Int, rank: Int) -> Float {
        var low = 0, high = count - 1
        while low < high {
            let pivot = values[(low + high) / 2]
            var i = low, j = high
            while i <= j {
                while values[i] < pivot { i += 1 }
                while values[j] > pivot { j -= 1 }
                if i <= j {
                    values.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if rank <= j { high = j } else if rank >= i { low = i } else { return values[rank] }
        }
        return values[rank]
    }

    /// The share of music hops in the forgetting window, 0…1.
    public var musicShare: Float {
        enter(); defer { ownership.release() }
        return hopWeight > 0 ? musicWeight / hopWeight : 0
    }

    /// The background-noise level now, dBFS: −∞ before any hop and for a silent background.
    public var levelDBFS: Float {
        enter(); defer { ownership.release() }
        return currentLevel()
    }

    /// The background power of `bands` in the last ``levelDBFS`` reading, summed (mean-square
    /// units, as the plain estimate sums them): what lies under the signal in that part of the
    /// spectrum, with the reverberant field held out (the type's *Reverberant rooms*). 0 for
    /// digital silence; nil before the stream's first reading, for an empty range, or where
    /// that reading was made under music (the music path blending in: the plain bands are the
    /// music's as much as the background's). Bands outside `0..<bandCount` are left out.
    public func backgroundPower(bands: Range<Int>) -> Float? {
        enter(); defer { ownership.release() }
        let range = bands.clamped(to: 0..<configuration.bandCount)
        guard !range.isEmpty, !readPowers[range.lowerBound].isNaN else { return nil }
        var sum: Float = 0
        for b in range { sum += readPowers[b] }
        return sum
    }

    /// The bands whose centres lie in `bins` (power-spectrum bin indices, fractional allowed):
    /// for ``backgroundPower(bands:)`` over a frequency range.
    public func bands(centeredIn bins: Range<Double>) -> Range<Int> {
        var first = configuration.bandCount, last = -1
        for b in 0..<configuration.bandCount {
            let centre = 0.5 * Double(bandStarts[b] + bandStarts[b + 1] - 1)
            if bins.contains(centre) { first = Swift.min(first, b); last = Swift.max(last, b) }
        }
        return first <= last ? first..<(last + 1) : 0..<0
    }

    /// ``levelDBFS`` for a caller holding the flag.
    private func currentLevel() -> Float {
        countUncounted()
        let bands = configuration.bandCount
        let share = hopWeight > 0 ? musicWeight / hopWeight : 0
        let blend = Swift.min(1, Swift.max(0, (share - Self.musicShareLow) / (Self.musicShareHigh - Self.musicShareLow)))
        var total = 0.0, underMusic = 0.0
        var steady = RingStatistics()
        // At a checkpoint's hop its band readings are this reading's (the same histograms).
        let atCheckpoint = checkpointHop == hops
        for b in 0..<bands {
            let reading: BandReading
            if atCheckpoint {
                reading = checkpointReadings[b]
            } else {
                if b % 8 == 0 { steady = ringMeans(from: b) }
                reading = bandMedian(b, ring: &steady)
            }
            var level = reading.level, fluctuation = reading.fluctuation
            if !reading.steady, held[b] > Self.floorDB + 1, level > held[b] + Self.holdMarginDB {
                level = held[b]
                fluctuation = 1
            }
            var power = 0.0
            if level > Self.floorDB + 1 {
                power = Decibels.toPower(Double(level)) * Double(meanToMedian[b]) * Double(fluctuation)
            }
            total += power
            // Under music (the music path blending in) the plain band is music's as much as the
            // background's: no reading for `backgroundPower(bands:)`.
            readPowers[b] = blend > 0 ? .nan : Float(power)
            guard blend > 0 else { continue }
            var valley = power
            if totals[bands + b] > 0 {
                let valleyLevel = histogramMedian(bands + b, total: totals[bands + b], steadyOnly: true).level
                valley = valleyLevel > Self.floorDB + 1 ? Decibels.toPower(Double(valleyLevel + Self.valleyCalibrationDB)) : 0
            }
            underMusic += Swift.min(power, valley)
        }
        total = raisedByQuietBlocks(total)
        let level: Double
        if blend <= 0 {
            level = total > 0 ? Decibels.fromPower(total) : -.infinity
        } else if blend >= 1 || total <= 0 {
            // Between the two in dB; a silent side pulls the total to −∞ only when it alone counts.
            level = underMusic > 0 ? Decibels.fromPower(underMusic) : -.infinity
        } else if underMusic <= 0 {
            level = Decibels.fromPower(total)
        } else {
            let plain = Decibels.fromPower(total), music = Decibels.fromPower(underMusic)
            level = plain + Double(blend) * (music - plain)
        }
        return Float(raisedByLoop(level))
    }

    /// The quantile `fraction` of the quiet blocks' levels, dB (the floor when there are too few).
    private func quietLevel(_ fraction: Float = 0.5) -> Float {
        let row = 2 * configuration.bandCount
        let total = totals[row]
        guard hopWeight > 0, total * Float(Self.quietBlockStride) >= Self.quietShareMinimum * hopWeight else { return Self.floorDB }
        let span = occupied[row]
        guard span.low <= span.high else { return Self.floorDB }
        return withUnsafePointer(to: Self.medianParameters) { parameters in
            cdsp_noise_quantile(histograms.baseAddress! + row * Self.levelBins, span.low, span.high, total * fraction,
                                cumulative.baseAddress!, parameters)
        }
    }

    /// `total` (a power), moved towards the quiet blocks' median where bursts recur and that
    /// median lies more than ``quietLowDB`` above it (the type's *Looped and bursty
    /// backgrounds*).
    private func raisedByQuietBlocks(_ total: Double) -> Double {
        guard hopsSinceBurst < burstMemoryHops else { return total }
        let quiet = quietLevel()
        guard quiet > Self.floorDB + 1 else { return total }
        let plain = total > 0 ? Decibels.fromPower(total) : Double(Self.floorDB)
        let excess = Double(quiet) - plain
        guard excess > Double(Self.quietLowDB) else { return total }
        let blend = Swift.min(1, (excess - Double(Self.quietLowDB)) / Double(Self.quietHighDB - Self.quietLowDB))
        return Decibels.toPower(plain + blend * excess)
    }

    /// `level` (dB, −∞ for silence), moved towards the level of a looped background
    /// (`LoopedBackground`) where its score reaches ``loopScoreThreshold`` and that level lies
    /// more than ``quietLowDB`` above it (fully from ``quietHighDB``, linear in dB between), as
    /// for the quiet blocks. Under music too: the period holds where the music path would read a
    /// tonal loop's valleys (a hum the detector hears as music).
    private func raisedByLoop(_ level: Double) -> Double {
        guard let loop, loop.score >= Self.loopScoreThreshold, loop.levelDB > Self.floorDB + 1 else { return level }
        let plain = level.isFinite ? level : Double(Self.floorDB)
        let excess = Double(loop.levelDB) - plain
        guard excess > Double(Self.quietLowDB) else { return level }
        let blend = Swift.min(1, (excess - Double(Self.quietLowDB)) / Double(Self.quietHighDB - Self.quietLowDB))
        return plain + blend * excess
    }

    /// The noise-only median of band `b`'s level, dB (the floor when it has no hops). A band
    /// whose level has held steady (standard deviation ≤ ``steadySpreadDB`` over the last
    /// ``steadySeconds``, as a band of Gaussian noise does, ±1.6 dB, and speech or music do
    /// not) at more than ``foregroundMarginDB`` above the histogram's answer is a background
    /// that got louder: its steady level is the answer until the histogram catches up.
    /// `ring` holds the level means (and variances, computed here when first needed) over the
    /// ``steadySeconds`` ring of the eight bands from `ring.first` (read only when the ring is
    /// full).
    private func bandMedian(_ b: Int, ring: inout RingStatistics) -> BandReading {
        let total = totals[b]
        guard total > 0 else { return BandReading(level: Self.floorDB) }
        let reading = histogramMedian(b, total: total, steadyOnly: false)
        guard recentCount == recentHops else { return reading }
        let lane = b - ring.first
        guard ring.mean[lane] > reading.level + Self.foregroundMarginDB else { return reading }
        if !ring.hasVariance { ringVariances(&ring) }
        if ring.variance[lane] <= Self.steadySpreadDB * Self.steadySpreadDB {
            return BandReading(level: ring.mean[lane], share: 1, steady: true)
        }
        return reading
    }

    /// A band's (or a valley row's) noise-only median, dB; the factor by which the noise's mean
    /// power exceeds what its chi-square shape gives; the noise-only share of the window (0 when
    /// there is no reading); whether the background fluctuates; and whether the band's steady
    /// level answered (``bandMedian(_:ring:)``).
    private struct BandReading {
        var level: Float
        var fluctuation: Float = 1
        var share: Float = 0
        var fluctuating = false
        var steady = false
    }

    /// Eight bands' (`first` … `first + 7`) level means and, once asked for, variances over the
    /// ring.
    private struct RingStatistics {
        var first = 0
        var mean = SIMD8<Float>()
        var variance = SIMD8<Float>()
        var hasVariance = false
    }

    /// The level means over the last ``steadySeconds`` of bands `first` … `first + 7` (those
    /// that exist; zeros for the rest and before the ring is full), each band's sum over the
    /// hops in order, as one band at a time would, eight bands a lane each. The variances
    /// follow on demand (``ringVariances(_:)``): a band needs its own only when its mean lies
    /// above its reading by the margin.
    private func ringMeans(from first: Int) -> RingStatistics {
        var result = RingStatistics(first: first)
        guard recentCount == recentHops else { return result }
        let bands = configuration.bandCount
        let n = Float(recentHops)
        if first + 8 <= bands {
            let ring = UnsafeRawPointer(recent.baseAddress! + first)
            var sum = SIMD8<Float>()
            for h in 0..<recentHops { sum += ring.loadUnaligned(fromByteOffset: 4 * h * bands, as: SIMD8<Float>.self) }
            result.mean = sum / n
            return result
        }
        for lane in 0..<Swift.min(8, bands - first) {
            var sum: Float = 0
            for h in 0..<recentHops { sum += recent[h * bands + first + lane] }
            result.mean[lane] = sum / n
        }
        return result
    }

    /// Fills `statistics`' variances (n − 1) about its means, in the same lanes.
    private func ringVariances(_ statistics: inout RingStatistics) {
        statistics.hasVariance = true
        guard recentCount == recentHops else { return }
        let bands = configuration.bandCount, first = statistics.first
        let m = Float(recentHops - 1)
        let mean = statistics.mean
        if first + 8 <= bands {
            let ring = UnsafeRawPointer(recent.baseAddress! + first)
            var squares = SIMD8<Float>()
            for h in 0..<recentHops {
                let d = ring.loadUnaligned(fromByteOffset: 4 * h * bands, as: SIMD8<Float>.self) - mean
                squares += d * d
            }
            statistics.variance = squares / m
            return
        }
        for lane in 0..<Swift.min(8, bands - first) {
            var squares: Float = 0
            for h in 0..<recentHops {
                let d = recent[h * bands + first + lane] - mean[lane]
                squares += d * d
            }
            statistics.variance[lane] = squares / m
        }
    }

    /// The median of band `b`'s noise-only hops from its histogram, and the factor by which the
    /// noise's mean power exceeds what its chi-square shape alone gives (the rounds in C,
    /// `cdsp_noise_median`; the factor's exponential here).
    ///
    /// Three rounds with the steady-noise margin (``foregroundMarginDB``) settle on the noise's
    /// share and median. A background that fluctuates more than steady noise (a looped machine,
    /// hiss that swells, babble) then shows it in the lower part of its noise-only hops, which
    /// foreground never reaches: the spread `σ` between their median and their 15.9 % quantile.
    /// When that exceeds the chi-square spread by ``fluctuationThresholdDB`` and the band's
    /// noise-only share is at least ``fluctuationShare`` (below it, foreground fills the band
    /// and its lower part is no guide), further rounds widen the margin to `2σ` (at most
    /// ``maximumMarginDB``), so the loud phases of the background are not taken for foreground,
    /// and the excess spread `σₓ² = σ² − σ²_χ²`, taken as a log-normal modulation, multiplies
    /// the mean power by `exp((σₓ·ln 10 / 10)² / 2)` (σ at most ``maximumFluctuationDB``).
    ///
    /// `row` is a histogram row (band `row % bandCount`); with `steadyOnly` only the steady-noise
    /// rounds run (the valley rows, whose statistic spreads more than a band sum).
    private func histogramMedian(_ row: Int, total: Float, steadyOnly: Bool) -> BandReading {
        let span = occupied[row]
        let reading = withUnsafePointer(to: Self.medianParameters) { parameters in
            cdsp_noise_median(histograms.baseAddress! + row * Self.levelBins, span.low, span.high, total,
                              chiSquareSpread[row % configuration.bandCount], steadyOnly ? 1 : 0, cumulative.baseAddress!,
                              parameters)
        }
        guard reading.has_excess != 0 else {
            return BandReading(level: reading.level, share: reading.share, fluctuating: reading.fluctuating != 0)
        }
        return BandReading(level: reading.level, fluctuation: Float.exp(reading.excess * (0.2302585 * 0.2302585) / 2),
                           share: reading.share, fluctuating: true)
    }

    private func rescale(_ factor: Float) {
        countUncounted()
        for i in 0..<histograms.count { histograms[i] *= factor }
        for b in 0..<totals.count { totals[b] *= factor }
        musicWeight *= factor
        hopWeight *= factor
        weight *= factor
    }

    // MARK: StreamingProcessor

    /// No delay: the level after each hop.
    public var outputDelay: Int { 0 }

    /// One level per hop the input completes (with the carried partial hop).
    public func maxOutputCount(forInputCount inputCount: Int) -> Int {
        enter(); defer { ownership.release() }
        return (carryCount + Swift.max(0, inputCount)) / configuration.binCount
    }

    /// Adds the hops `input` completes (power spectra back to back), writing the level after
    /// each; takes only as many as `output` has room for. Never allocates.
    public func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) -> ProcessResult {
        enter(); defer { ownership.release() }
        let bins = configuration.binCount
        var consumed = 0
        var produced = 0
        while consumed < input.count {
            let need = bins - carryCount
            if need > input.count - consumed {
                let n = input.count - consumed
                _ = UnsafeMutableBufferPointer(rebasing: carry[carryCount..<(carryCount + n)])
                    .update(fromContentsOf: UnsafeBufferPointer(rebasing: input[consumed...]))
                carryCount += n
                consumed += n
                break
            }
            guard produced < output.count else { break }
            if carryCount > 0 {
                _ = UnsafeMutableBufferPointer(rebasing: carry[carryCount...])
                    .update(fromContentsOf: UnsafeBufferPointer(rebasing: input[consumed..<(consumed + need)]))
                add(UnsafeBufferPointer(carry), musicProbability: 0, speechProbability: .nan)
                carryCount = 0
            } else {
                add(UnsafeBufferPointer(rebasing: input[consumed..<(consumed + bins)]), musicProbability: 0, speechProbability: .nan)
            }
            consumed += need
            output[produced] = currentLevel()
            produced += 1
        }
        return ProcessResult(consumed: consumed, produced: produced)
    }

    /// Nothing: a partial hop is not a spectrum.
    public var maxFlushOutputCount: Int { 0 }

    /// Ends the stream (a carried partial hop is dropped: it is not a spectrum) and resets.
    public func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        reset()
        return 0
    }

    /// Forgets the stream. Never allocates.
    public func reset() {
        enter(); defer { ownership.release() }
        histograms.update(repeating: 0)
        totals.update(repeating: 0)
        occupied.update(repeating: (Int32(Self.levelBins), -1))
        musicWeight = 0
        hopWeight = 0
        quietIndex = 0
        quietCount = 0
        pendingIndex = 0
        pendingCount = 0
        hopsSinceForeground = 0
        hopsSinceMusic = 0
        quietRun = 0
        hopsSinceBurst = Int.max / 2
        lastBurst = Int.min / 2
        burstsInRow = 0
        weight = 1
        hops = 0
        nextCheckpointMilliHops = checkpointMilliHops
        checkpointHop = -1
        uncountedHops = 0
        uncountedWeight = 1
        recentIndex = 0
        recentCount = 0
        carryCount = 0
        held.update(repeating: .infinity)
        readPowers.update(repeating: .nan)
        heldAge.update(repeating: 0)
        heldRise.update(repeating: 0)
        loop?.reset()
    }
}

extension NoiseLevelEstimator: MemoryAccounting {
    /// The band histograms and scratch (and, with ``Configuration-swift.struct/loopedBackgrounds``,
    /// the hop levels); shared: the band tables, the sorting network (and the looped background's
    /// byte-to-power table).
    public var memoryFootprint: MemoryFootprint {
        .owned(MemoryFootprint.bytes(histograms)
            + MemoryFootprint.bytes(totals) + MemoryFootprint.bytes(levels) + MemoryFootprint.bytes(cumulative)
            + MemoryFootprint.bytes(carry) + MemoryFootprint.bytes(occupied)
            + MemoryFootprint.bytes(recent) + MemoryFootprint.bytes(valleyScratch) + MemoryFootprint.bytes(valleys)
            + MemoryFootprint.bytes(quietHops) + MemoryFootprint.bytes(pendingHops)
            + MemoryFootprint.bytes(held) + MemoryFootprint.bytes(heldAge) + MemoryFootprint.bytes(heldRise)
            + MemoryFootprint.bytes(risenFloors)
            + MemoryFootprint.bytes(readPowers) + MemoryFootprint.bytes(checkpointReadings) + (loop?.bytes ?? 0))
            + MemoryFootprint(sharedBytes: MemoryFootprint.bytes(network.pairs) + bandTables.allocatedBytes + (loop?.sharedBytes ?? 0))
    }
}

extension NoiseLevelEstimator {
    /// Batcher's odd–even merge sort of `inputs` values as compare-exchange pairs `(i, k)`
    /// (`i < k`: the smaller value to row `i`), built once (``cache``) and read, never written,
    /// by every estimator on any number of threads.
    final class SortingNetwork: @unchecked Sendable {
        /// The networks in use, by input count.
        static let cache = SharedTableCache<Int, SortingNetwork>()

        let pairs: UnsafeMutableBufferPointer<(Int32, Int32)>

        /// The network of `inputs` (a power of two) values.
        init(inputs: Int) {
            var list: [(Int32, Int32)] = []
            var p = 1
            while p < inputs {
                var k = p
                while k >= 1 {
                    var j = k % p
                    while j + k < inputs {
                        for i in 0..<Swift.min(k, inputs - j - k) where (i + j) / (2 * p) == (i + j + k) / (2 * p) {
                            list.append((Int32(i + j), Int32(i + j + k)))
                        }
                        j += 2 * k
                    }
                    k /= 2
                }
                p *= 2
            }
            pairs = .allocate(capacity: list.count)
            _ = pairs.initialize(from: list)
        }

        deinit { pairs.deallocate() }
    }
}

/// The band layout of a ``NoiseLevelEstimator`` with given bins and bands: each band's first bin
/// and the chi-square constants of its width. Immutable after `init`; one copy shared by every
/// estimator of the same layout (``cache``).
final class NoiseBandTables: @unchecked Sendable {
    /// What the tables depend on.
    struct Key: Hashable, Sendable {
        let binCount: Int
        let bandCount: Int
    }

    /// The tables of every layout in use.
    static let cache = SharedTableCache<Key, NoiseBandTables>()

    /// First bin of each band, and one past the last band (`bandCount + 1` entries).
    let starts: UnsafeMutableBufferPointer<Int>
    /// Mean ÷ median of each band's noise power.
    let meanToMedian: UnsafeMutableBufferPointer<Float>
    /// The squared spread (dB²) between the median and the 15.9 % quantile of a band of steady
    /// Gaussian noise (Wilson–Hilferty, `z = −1`).
    let chiSquareSpread: UnsafeMutableBufferPointer<Float>

    init(_ key: Key) {
        let bands = key.bandCount, usable = key.binCount - 2
        starts = .allocate(capacity: bands + 1)
        meanToMedian = .allocate(capacity: bands)
        chiSquareSpread = .allocate(capacity: bands)
        for b in 0...bands { starts[b] = 1 + b * usable / bands }
        for b in 0..<bands {
            let nu = 0.95 * Double(starts[b + 1] - starts[b])
            let base = Swift.max(0.05, 1 - 2 / (9 * nu))
            meanToMedian[b] = Float(1 / (base * base * base))
            let lower = Swift.max(0.01, base - (2 / (9 * nu)).squareRoot())
            let spread = 30 * Double.log10(base / lower)
            chiSquareSpread[b] = Float(spread * spread)
        }
    }

    deinit {
        starts.deallocate(); meanToMedian.deallocate(); chiSquareSpread.deallocate()
    }

    /// Bytes of the tables.
    var allocatedBytes: Int {
        MemoryFootprint.bytes(starts) + MemoryFootprint.bytes(meanToMedian) + MemoryFootprint.bytes(chiSquareSpread)
    }
}
