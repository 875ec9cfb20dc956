// The detector's pure-tone test: steady tones, and sounds whose spectrum holds still, are not speech.
internal import CDSPKernels
import DSPCore
import DSPSpectral
#if canImport(Glibc)
import Glibc
#endif

/// Tells a steady pure tone — one partial, or two that are not harmonics of one note: test
/// tones, beeps, sweeps, DTMF digits, dial, ring-back and busy tones — by the hop's power
/// spectrum, so that ``AcousticDetector`` does not report it as speech
/// (``AcousticDetector/Configuration-swift.struct/gatesPureTones``).
///
/// A hop is *tonal* when, over the analysis band (100–7000 Hz by default), at least
/// ``shareThreshold`` (99 %) of its power lies within ``halfWidthHz`` (±78 Hz: the Hann window's
/// main lobe and a slow sweep's glide over a 64 ms window) of its largest bin, or of that and the
/// largest bin outside it when their frequencies are not within ``harmonicTolerance`` (3 %) of an
/// integer ratio (a harmonic instrument's two strongest partials are; DTMF pairs, 350 + 440 Hz,
/// 440 + 480 Hz and 480 + 620 Hz are not). A run counts tonal hops in a row, each within
/// ``steadyStepDB`` (1 dB) of the level of the hop before (a tonal hop that steps further starts a
/// new run); from the ``minimumRun``-th (the eighth: 128 ms) on,
/// ``update(_:bandPowers:features:levelDBFS:hopStart:sounding:)`` answers true. Real voices can hold
/// one partial at 99 % for a few hops (a held vowel of a high voice); they swell and fade, a tone
/// holds its level (docs/detection.md, Fitting, "Pure tones by their spectrum").
///
/// **A spectrum that holds still.** A steady sound of many partials (a square or sawtooth wave, a
/// buzzer, a synthesizer's held chord) fails the share test, but it holds its whole spectrum, where
/// a voice moves its pitch, formants and level from one hop to the next. A second run counts hops
/// that *hold still*: in every band of ``/DSPSpectral/SpectralFrame/bandPowers`` within
/// ``stillRangeDB`` (30 dB) of the loudest band of the run's first hop (in that hop or this one),
/// the power lies within ``stillToleranceDB`` (±1 dB) of the first hop's. The run is anchored to its
/// first hop, so a slow drift ends it; a hop that does not hold still starts a new run. From its
/// ``minimumRun``-th hop on the gate answers true as for a tone (docs/detection.md, Fitting, "A
/// spectrum that holds still").
///
/// Per-stream state: each run's length and its first hop's position, the last hop's level, and
/// the still run's first band powers (at most 64 bands, inline). Tables: none. The spectrum is
/// read only for hops under three bounds the share test implies:
/// ``entropyBound`` and ``flatnessBound`` (the analyzer takes both over the same band, exact for a
/// hop with 99 % of its power in at most 2·(2·half-width + 1) bins) and ``mayBeTonal(_:)`` on the
/// band powers — about a fifth of clean speech's hops.
struct PureToneGate {
    /// The share of the band's power the one or two windows must hold.
    static let shareThreshold: Float = 0.99
    /// Half the width of a peak's window, Hz.
    static let halfWidthHz = 78.125
    /// How far, relative, two peaks' frequency ratio may lie from an integer and still count as
    /// harmonics of one note.
    static let harmonicTolerance: Float = 0.03
    /// Steady tonal hops in a row before the gate answers true.
    static let minimumRun = 8
    /// How far, dB, a tonal hop's level may lie from the hop before it for the run to go on.
    static let steadyStepDB: Float = 1

    private let lo: Int
    private let hi: Int
    private let halfWidth: Int
    /// The largest normalised spectral entropy a tonal hop can have: with `q` = 0.99 of the power
    /// in `m` bins of `K` (the most is had spread evenly), `(q·ln(m/q) + (1 − q)·ln((K − m)/(1 − q))) / ln K`,
    /// plus 0.002 for the analyzer's approximate logarithm (its error is under 10⁻⁴ here).
    let entropyBound: Float
    /// The largest spectral flatness a tonal hop can have, by the inequality of arithmetic and
    /// geometric means within and outside the `m` bins: `K·(q/m)^(m/K)·((1 − q)/(K − m))^((K − m)/K)`,
    /// times 1.05 for the same approximation.
    let flatnessBound: Float
    /// The bands of ``/DSPSpectral/SpectralFrame/bandPowers`` whose bins all lie in the band
    /// tested (the others are not read), and how many of them two windows can touch at most.
    private let innerBands: Range<Int>
    private let touchedBands: Int
    /// Steady tonal hops in a row, up to the current one.
    private(set) var run = 0
    /// The level of the run's last hop, dBFS.
    private var previousLevel: Float = 0
    /// Where the run's first hop starts, sample position (meaningful while ``run`` > 0).
    private(set) var runStart: Int64 = 0
    /// How far, dB, a band's power may lie from the still run's first hop's.
    static let stillToleranceDB: Float = 1
    /// The bands compared: those within this of the loudest band of the still run's first hop, dB.
    static let stillRangeDB: Float = 30
    /// ``stillToleranceDB`` below and above, and ``stillRangeDB`` below, as power ratios.
    private let stillLow: Float
    private let stillHigh: Float
    private let stillFloor: Float
    /// Hops in a row that hold still (at most ``minimumRun``), where the run's first hop starts,
    /// its band powers and the least power a band must have to be compared.
    private(set) var stillRun = 0
    private var stillStart: Int64 = 0
    private var anchor = SIMD64<Float>()
    private var anchorFloor: Float = 0
    /// Where the run that made the last `true` answer starts: ``runStart`` for a tone, else the
    /// still run's.
    private(set) var gatedSince: Int64 = 0

    /// The test over `bins` (the analysis band) of a spectrum with bins `binWidthHz` Hz wide
    /// (at 16 kHz with a 1024-point FFT: 442 bins, windows of ±5).
    /// `bands`: the bins of each band of the analyzer's band powers, contiguous and in order.
    init(bins: Range<Int>, binWidthHz: Double, bands: [Range<Int>]) {
        lo = bins.lowerBound
        hi = Swift.max(bins.lowerBound + 1, bins.upperBound)
        halfWidth = Swift.max(1, Int((Self.halfWidthHz / binWidthHz).rounded()))
        // The bands inside [lo, hi): a contiguous run of the band list (the rest straddle or
        // lie outside the edges). A window of 2·halfWidth + 1 bins touches at most as many bands
        // as the most any such span of bins does.
        let (first, end) = (lo, hi)
        let inside = bands.indices.filter { bands[$0].lowerBound >= first && bands[$0].upperBound <= end && !bands[$0].isEmpty }
        innerBands = (inside.first ?? 0)..<((inside.last ?? -1) + 1)
        let span = 2 * halfWidth + 1
        var most = 0
        for first in first..<Swift.max(first + 1, end - span + 1) {
            most = Swift.max(most, bands.filter { $0.overlaps(first..<(first + span)) }.count)
        }
        // The bound needs the bands to cover the tested band (they do by default: 80–7800 Hz
        // against 100–7000 Hz); where a configuration leaves part of it out, it is not used.
        let covered = (first..<end).allSatisfy { bin in bands.contains { $0.contains(bin) } }
        touchedBands = covered ? 2 * Swift.max(1, most) : Int.max
        let k = Double(hi - lo), q = Double(Self.shareThreshold)
        let m = Swift.min(Double(4 * halfWidth + 2), k - 1)
        let entropy = (q * log(m / q) + (1 - q) * log((k - m) / (1 - q))) / log(k)
        entropyBound = Float(Swift.min(1, entropy + 0.002))
        let flatness = k * pow(q / m, m / k) * pow((1 - q) / (k - m), (k - m) / k)
        flatnessBound = Float(Swift.min(1, flatness * 1.05))
        stillLow = Float(Decibels.toPower(Double(-Self.stillToleranceDB)))
        stillHigh = Float(Decibels.toPower(Double(Self.stillToleranceDB)))
        stillFloor = Float(Decibels.toPower(Double(-Self.stillRangeDB)))
    }

    /// Reads one hop (its power spectrum and band powers, flatness and normalised spectral entropy,
    /// its level and where it starts; `sounding` false for a silent or non-finite frame, which ends
    /// both runs) and answers whether it is the ``minimumRun``-th or a later steady tonal hop in a
    /// row, or of hops that hold still (``gatedSince`` then tells where that run starts). A tonal
    /// hop more than ``steadyStepDB`` from the level of the hop before it starts a new run.
    mutating func update(_ spectrum: UnsafeBufferPointer<Float>, bandPowers: UnsafeBufferPointer<Float>,
                         features: SpectralFeatures, levelDBFS: Float, hopStart: Int64, sounding: Bool) -> Bool {
        let still = holdsStill(bandPowers, hopStart: hopStart, sounding: sounding)
        let tonal = isSteadyTone(spectrum, bandPowers: bandPowers, features: features, levelDBFS: levelDBFS,
                                 hopStart: hopStart, sounding: sounding)
        if tonal { gatedSince = runStart } else if still { gatedSince = stillStart }
        return tonal || still
    }

    /// The still run (the type's *A spectrum that holds still*): counts the hop and answers
    /// whether the run has reached ``minimumRun``.
    private mutating func holdsStill(_ bandPowers: UnsafeBufferPointer<Float>, hopStart: Int64, sounding: Bool) -> Bool {
        let n = bandPowers.count
        guard sounding, n <= 64 else {
            stillRun = 0
            return false
        }
        let floor = anchorFloor
        let same = stillRun > 0 && withUnsafeBytes(of: &anchor) { raw in
            let a = raw.assumingMemoryBound(to: Float.self)
            for b in 0..<n {
                let first = a[b], p = bandPowers[b]
                if first < floor && p < floor { continue }
                if !(p >= first * stillLow && p <= first * stillHigh) { return false }
            }
            return true
        }
        if same {
            stillRun = Swift.min(stillRun + 1, Self.minimumRun)
            return stillRun >= Self.minimumRun
        }
        // A new run from this hop (the bands past `n` are never read).
        stillRun = 1
        stillStart = hopStart
        var peak: Float = 0
        withUnsafeMutableBytes(of: &anchor) { raw in
            let a = raw.assumingMemoryBound(to: Float.self)
            for b in 0..<n {
                let p = bandPowers[b]
                a[b] = p
                peak = Swift.max(peak, p)
            }
        }
        anchorFloor = peak * stillFloor
        return stillRun >= Self.minimumRun
    }

    /// The tone run: counts the hop when it is a steady tonal one and answers whether the run has
    /// reached ``minimumRun``.
    private mutating func isSteadyTone(_ spectrum: UnsafeBufferPointer<Float>, bandPowers: UnsafeBufferPointer<Float>,
                                       features: SpectralFeatures, levelDBFS: Float, hopStart: Int64, sounding: Bool) -> Bool {
        guard sounding, features.entropy <= entropyBound, features.flatness <= flatnessBound, spectrum.count >= hi,
              mayBeTonal(bandPowers), isTonal(spectrum.baseAddress!) else {
            run = 0
            return false
        }
        if run > 0 && abs(levelDBFS - previousLevel) <= Self.steadyStepDB {
            run = Swift.min(run + 1, Self.minimumRun)
        } else {
            run = 1
            runStart = hopStart
        }
        previousLevel = levelDBFS
        return run >= Self.minimumRun
    }

    /// Starts a new stream.
    mutating func reset() {
        stillRun = 0
        stillStart = 0
        gatedSince = 0
        run = 0
        previousLevel = 0
        runStart = 0
    }

    /// Whether the band powers leave the share test possible: a tonal hop leaves at most 1 % of
    /// the tested band's power outside its windows, so no more than ``touchedBands`` of the bands
    /// inside it can each hold more than 1 % of all the bands' power (which is at least the tested
    /// band's: the bands cover it). 1.01 % and the band list's order of additions keep rounding
    /// on the safe side.
    func mayBeTonal(_ bandPowers: UnsafeBufferPointer<Float>) -> Bool {
        guard innerBands.upperBound <= bandPowers.count else { return true }
        var all: Float = 0
        for p in bandPowers { all += p }
        let floor = 0.0101 * all
        var above = 0
        for b in innerBands where bandPowers[b] > floor { above += 1 }
        return above <= touchedBands
    }

    /// The share test on one spectrum (at least `hi` bins).
    func isTonal(_ p: UnsafePointer<Float>) -> Bool {
        var sums: (Float, Float, Float) = (0, 0, 0)
        var peaks: (Int, Int) = (0, 0)
        withUnsafeMutableBytes(of: &sums) { s in
            withUnsafeMutableBytes(of: &peaks) { k in
                cdsp_tone_peaks(p, lo, hi, halfWidth, s.baseAddress!.assumingMemoryBound(to: Float.self),
                                k.baseAddress!.assumingMemoryBound(to: Int.self))
            }
        }
        let (total, first, second) = sums
        guard total > 0, total.isFinite else { return false }
        let need = Self.shareThreshold * total
        if first >= need { return true }
        guard first + second >= need, peaks.0 != peaks.1 else { return false }
        let ratio = Float(Swift.max(peaks.0, peaks.1)) / Float(Swift.min(peaks.0, peaks.1))
        let nearest = ratio.rounded()
        return abs(ratio - nearest) > Self.harmonicTolerance * ratio
    }
}
