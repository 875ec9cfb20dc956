// SpectralAnalyzer: the type, its buffers and the one-frame analysis (the spectral
// descriptors). Framing, the mel band layout, pitch and the four-frame batch path are in
// SpectralAnalyzer+Framing/+MelBands/+Pitch/+Batch.swift.

internal import CDSPKernels
import DSPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A short-time Fourier analysis of a mono stream that computes, per frame, the spectral and
/// temporal features the detectors use (``SpectralFeatures``).
///
/// Samples are pushed in buffers of any length; every ``hopLength`` samples the analyzer
/// windows the last ``windowLength`` samples (periodic Hann), transforms them with
/// ``RealFFT`` and calls back with a ``SpectralFrame``. Frames are causal (a frame never looks
/// past the end of its hop) and depend only on stream positions, so results do not depend on
/// how the input is chunked. At end of stream ``flush(_:)`` emits the frame for a final
/// partial hop, so every input sample belongs to exactly one frame's hop.
///
/// Everything is allocated in `init`; ``process(_:_:)`` does not allocate or lock. The per-frame
/// loops run in dispatched C kernels (`CDSPKernels`, AVX2 where the CPU has it) that perform
/// the same floating-point operations in the same order as plain Swift would, so features are
/// identical on every CPU; the window is written straight into the FFT's own buffer and the
/// spectrum read in its interleaved layout, with no copies.
///
/// Two tiers: as a ``/DSPCore/StreamingProcessor`` it writes each frame's ``SpectralFeatures`` into
/// a caller's buffer (``process(_:into:)``, ``flush(into:)``); ``process(_:_:)`` and
/// ``flush(_:)`` instead lend each ``SpectralFrame`` — the features and views of the frame's
/// spectra, valid during the call — to a closure, for consumers of the spectra themselves.
///
/// ```swift
/// let analyzer = try SpectralAnalyzer()                       // 16 kHz: 64 ms every 16 ms
/// analyzer.process(samples) { frame in print(frame.features.pitchHz) }
/// analyzer.flush { frame in … }
/// ```
public final class SpectralAnalyzer: StreamingProcessor, @unchecked Sendable {
    // @unchecked: the ring, the FFT and the per-frame scratch below are reached only holding
    // `ownership` (see StreamOwnership); the FFT is this object's alone, and the spectra it
    // lends (SpectralFrame) are valid only inside the call that lends them.
    /// The configuration, as validated.
    public let configuration: Configuration
    /// Window length `N`, samples.
    public let windowLength: Int
    /// Hop, samples.
    public let hopLength: Int
    /// Bins in the power spectrum, `N/2 + 1`.
    public var binCount: Int { windowLength / 2 + 1 }
    /// Band edges in Hz, `bandCount + 1` values (mel-spaced).
    public let bandEdgesHz: [Float]
    /// Latency, samples: frames are analysed four at a time (``process(_:_:)``), so a frame's
    /// result can wait until the end of the fourth hop of its batch: `4 × hopLength` at most.
    public var outputDelay: Int { 4 * hopLength }
    let ownership = StreamOwnership()

    /// Takes the ownership flag; two overlapping calls stop the program.
    @inline(__always)
    func enter() {
        if !ownership.acquire() { preconditionFailure("SpectralAnalyzer: overlapping calls from two threads (one stream, one caller at a time)") }
    }

    let sampleRate: Double
    /// The stream, `ringCapacity` samples: the frame being assembled is
    /// `ring[frameStart ..< frameStart + windowLength]`, its first `fill` samples present. Each
    /// frame advances `frameStart` by a hop, so consecutive frames need no copy; only when the
    /// next frame would run past the end are its `fill` samples moved to the front (once every
    /// `(ringCapacity − N) / hop` frames, instead of moving `N − hop` samples every frame).
    let ring: UnsafeMutablePointer<Float>
    let ringCapacity: Int
    var frameStart = 0
    var fill = 0
    let fft: RealFFT
    /// The autocorrelation's transform (see `analyze`): `N/2` points when `N` is a multiple of
    /// 4 (the half-size DCT-I route), else `N` points (the mirrored |Y|²).
    let autocorrelationFFT: RealFFT
    /// `sin(πj/(N/2))` and `cos(πj/(N/2))` for `j < N/4`, the half-size route's twiddles
    /// (empty when it is not used).
    let halfSine: UnsafeMutableBufferPointer<Float>
    let halfCosine: UnsafeMutableBufferPointer<Float>
    /// The configuration's fixed tables (``Tables``), shared: `window`, `halfSine`,
    /// `halfCosine`, `windowAutocorrelation`, `octaveCost` and `bandBins` point into them.
    let tables: Tables
    let window: UnsafeMutableBufferPointer<Float>
    let windowSum: Float
    let powerScale: Float
    /// The windowed frame: ``RealFFT/forwardInput`` (owned by `fft`, which keeps it intact).
    let windowed: UnsafeMutableBufferPointer<Float>
    /// ``RealFFT/interleavedSpectrum``: `Y[k]`, then `|Y[k]|²` for the autocorrelation.
    let spectrum: UnsafeMutablePointer<Float>
    let power: UnsafeMutableBufferPointer<Float>
    /// The autocorrelation for lags 0 … max lag + 1.
    let autocorrelation: UnsafeMutableBufferPointer<Float>
    /// `r_w(τ)/r_w(0)` of the window, for τ up to the longest lag.
    let windowAutocorrelation: UnsafeMutableBufferPointer<Float>
    /// Boersma's octave cost per lag: `0.01 · log2(τ / τ_min)`.
    let octaveCost: UnsafeMutableBufferPointer<Float>
    let bandPowers: UnsafeMutableBufferPointer<Float>
    let previousBandLevels: UnsafeMutableBufferPointer<Float>
    /// This frame's band levels (dB), `bandCount` rounded up to a multiple of eight.
    let bandLevels: UnsafeMutableBufferPointer<Float>
    /// First bin of each band, `bandCount + 1` values (the last is one past the end).
    let bandBins: UnsafeMutableBufferPointer<Int>
    let analysisBins: Range<Int>
    let lagRange: ClosedRange<Int>
    var frameIndex: Int64 = 0
    /// Samples pushed this stream.
    var samplesPushed: Int64 = 0
    /// Up to four complete frames' window dot products `Σ x·w` and hop energies `Σ x²`, taken
    /// together before the frames are analysed one by one (``process(_:_:)``).
    let batchWindowDots: UnsafeMutablePointer<Float>
    let batchHopEnergies: UnsafeMutablePointer<Float>
    var hasPrevious = false

    // Four frames at once (``analyzeFour(_:)``): slot `f`'s buffers. Slot 0 is the one-frame
    // path's (`windowed`, `spectrum`, `power`, `bandPowers`, `autocorrelation`); the pointer
    // tables are the C kernels' `float *[4]` arguments.
    static let slots = 4
    /// Slot `f`'s windowed frame and spectrum: `fft`'s buffer set `f`.
    let windowedSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    let spectrumSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    /// `power` + `f·binCount`, writable and read-only.
    let powerSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    let powerInputSlots: UnsafeMutablePointer<UnsafePointer<Float>?>
    /// `bandPowers` + `f·bandCount`.
    let bandPowerSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    /// `autocorrelationFFT`'s buffer set `f`: twiddled input, spectrum.
    let lagInputSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    let lagSpectrumSlots: UnsafeMutablePointer<UnsafePointer<Float>?>
    /// `autocorrelation` + `f·(max lag + 2)`.
    let autocorrelationSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    /// Slot `f`'s `|Y[k]|²`, `binCount` contiguous floats (the half-size route reads them there,
    /// not from the spectrum's real parts), writable and read-only views.
    let magnitudeSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    let magnitudeInputSlots: UnsafeMutablePointer<UnsafePointer<Float>?>
    let magnitudes: UnsafeMutableBufferPointer<Float>
    /// Per-slot scalars: power sums (8), totals, weighted frequencies, roll-off targets, `f1`
    /// (4 each), roll-off bins (4), features (4).
    let slotSums: UnsafeMutablePointer<Float>
    let slotRolloff: UnsafeMutablePointer<Int>
    let slotFeatures: UnsafeMutablePointer<SpectralFeatures>

    /// Builds the window, the FFT plans and all buffers.
    ///
    /// - Throws: ``/DSPCore/ConfigurationError`` naming the first parameter out of range.
    public init(configuration: Configuration = Configuration()) throws(ConfigurationError) {
        let c = configuration
        try ConfigurationError.check("sampleRate", c.sampleRate, in: 8000...96_000)
        try ConfigurationError.check("windowLength", c.windowLength, in: 64...16_384)
        guard c.windowLength % 2 == 0 else {
            throw ConfigurationError(parameter: "windowLength", value: c.windowLength, expected: "even")
        }
        try ConfigurationError.check("hopLength", c.hopLength, in: 1...c.windowLength)
        try ConfigurationError.check("bandCount", c.bandCount, in: 4...64)
        let nyquist = c.sampleRate / 2
        guard c.pitchRangeHz.lowerBound > 0, c.pitchRangeHz.upperBound < c.sampleRate / 4,
              c.sampleRate / c.pitchRangeHz.lowerBound * 2 <= Double(c.windowLength)
        else {
            throw ConfigurationError(
                parameter: "pitchRangeHz", value: "\(c.pitchRangeHz)",
                expected: "above \(2 * c.sampleRate / Double(c.windowLength)) Hz, below \(c.sampleRate / 4) Hz")
        }
        guard c.analysisBandHz.lowerBound >= 0, c.analysisBandHz.lowerBound < nyquist * 0.9 else {
            throw ConfigurationError(parameter: "analysisBandHz", value: "\(c.analysisBandHz)", expected: "0 Hz ... below Nyquist")
        }
        guard c.bandRangeHz.lowerBound > 0, c.bandRangeHz.lowerBound < nyquist * 0.5 else {
            throw ConfigurationError(parameter: "bandRangeHz", value: "\(c.bandRangeHz)", expected: "above 0 Hz, lower edge below Nyquist/2")
        }
        self.configuration = c
        sampleRate = c.sampleRate
        windowLength = c.windowLength
        hopLength = c.hopLength
        // About four windows, rounded so that a refill completes a multiple of four frames
        // (large pushes then run four frames at a time throughout; see `process`).
        let framesPerRefill = ((3 * c.windowLength / c.hopLength + 1) + 3) / 4 * 4
        ringCapacity = c.windowLength + (framesPerRefill - 1) * c.hopLength
        ring = .allocate(capacity: ringCapacity)
        ring.initialize(repeating: 0, count: ringCapacity)
        fft = try RealFFT(size: c.windowLength, bufferSets: Self.slots)
        let n = c.windowLength
        let useHalf = n % 4 == 0
        autocorrelationFFT = try RealFFT(size: useHalf ? n / 2 : n, bufferSets: Self.slots)
        // The window, twiddles, pitch and band tables: one copy per configuration.
        let tables = Self.Tables.cache.table(for: c) { Self.Tables(c) }
        self.tables = tables
        halfSine = tables.halfSine
        halfCosine = tables.halfCosine
        let bins = n / 2 + 1
        let binHz = c.sampleRate / Double(n)

        window = tables.window
        windowSum = tables.windowSum
        powerScale = tables.powerScale
        windowed = fft.forwardInput
        spectrum = fft.interleavedSpectrum.baseAddress!
        power = Self.slotStorage(count: bins)

        lagRange = tables.lagRange
        autocorrelation = Self.slotStorage(count: tables.lagRange.upperBound + 2)
        windowAutocorrelation = tables.windowAutocorrelation
        octaveCost = tables.octaveCost

        let top = min(c.analysisBandHz.upperBound, nyquist)
        let lowBin = max(1, Int((c.analysisBandHz.lowerBound / binHz).rounded(.up)))
        let highBin = max(lowBin + 1, min(bins - 1, Int((top / binHz).rounded(.down)) + 1))
        analysisBins = lowBin..<highBin

        bandBins = tables.bandBins
        bandEdgesHz = tables.bandEdgesHz
        bandPowers = Self.slotStorage(count: c.bandCount)
        previousBandLevels = .allocate(capacity: c.bandCount); previousBandLevels.initialize(repeating: 0)
        bandLevels = .allocate(capacity: (c.bandCount + 7) / 8 * 8); bandLevels.initialize(repeating: 0)
        batchWindowDots = .allocate(capacity: 4); batchWindowDots.initialize(repeating: 0, count: 4)
        batchHopEnergies = .allocate(capacity: 4); batchHopEnergies.initialize(repeating: 0, count: 4)
        let slots = Self.slots
        windowedSlots = .allocate(capacity: slots)
        spectrumSlots = .allocate(capacity: slots)
        powerSlots = .allocate(capacity: slots)
        powerInputSlots = .allocate(capacity: slots)
        bandPowerSlots = .allocate(capacity: slots)
        lagInputSlots = .allocate(capacity: slots)
        lagSpectrumSlots = .allocate(capacity: slots)
        autocorrelationSlots = .allocate(capacity: slots)
        magnitudeSlots = .allocate(capacity: slots)
        magnitudeInputSlots = .allocate(capacity: slots)
        magnitudes = Self.slotStorage(count: bins)
        for f in 0..<slots {
            (magnitudeSlots + f).initialize(to: magnitudes.baseAddress! + f * bins)
            (magnitudeInputSlots + f).initialize(to: UnsafePointer(magnitudes.baseAddress! + f * bins))
            (windowedSlots + f).initialize(to: fft.forwardInput(set: f).baseAddress!)
            (spectrumSlots + f).initialize(to: fft.interleavedSpectrum(set: f).baseAddress!)
            (powerSlots + f).initialize(to: power.baseAddress! + f * bins)
            (powerInputSlots + f).initialize(to: UnsafePointer(power.baseAddress! + f * bins))
            (bandPowerSlots + f).initialize(to: bandPowers.baseAddress! + f * c.bandCount)
            (lagInputSlots + f).initialize(to: autocorrelationFFT.forwardInput(set: f).baseAddress!)
            (lagSpectrumSlots + f).initialize(to: UnsafePointer(autocorrelationFFT.interleavedSpectrum(set: f).baseAddress!))
            (autocorrelationSlots + f).initialize(to: autocorrelation.baseAddress! + f * (tables.lagRange.upperBound + 2))
        }
        slotSums = .allocate(capacity: 24); slotSums.initialize(repeating: 0, count: 24)
        slotRolloff = .allocate(capacity: slots); slotRolloff.initialize(repeating: 0, count: slots)
        slotFeatures = .allocate(capacity: slots); slotFeatures.initialize(repeating: SpectralFeatures(), count: slots)
        prime()
    }

    deinit {
        ring.deallocate()
        power.deallocate(); autocorrelation.deallocate()
        bandPowers.deallocate(); previousBandLevels.deallocate(); bandLevels.deallocate()
        batchWindowDots.deallocate(); batchHopEnergies.deallocate()
        windowedSlots.deallocate(); spectrumSlots.deallocate(); powerSlots.deallocate(); powerInputSlots.deallocate()
        bandPowerSlots.deallocate(); lagInputSlots.deallocate(); lagSpectrumSlots.deallocate()
        autocorrelationSlots.deallocate(); magnitudeSlots.deallocate(); magnitudeInputSlots.deallocate()
        magnitudes.deallocate(); slotSums.deallocate(); slotRolloff.deallocate(); slotFeatures.deallocate()
    }

    /// Zeroed storage for ``slots`` slots of `count` floats; the buffer returned is slot 0 (its
    /// `deallocate` frees all of them).
    static func slotStorage(count: Int) -> UnsafeMutableBufferPointer<Float> {
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: slots * count)
        storage.initialize(repeating: 0, count: slots * count)
        return UnsafeMutableBufferPointer(start: storage, count: count)
    }

    /// Analyses one frame. `sums` are its window dot product `Σ x·w` and hop energy (over
    /// `validCount` samples) when already taken (``process(_:_:)``); `nil` takes them here.
    func analyze(
        _ frame: UnsafeBufferPointer<Float>, validCount: Int, sums: (windowDot: Float, hopEnergy: Float)? = nil,
        _ body: (SpectralFrame) -> Void
    ) {
        let n = windowLength
        let bins = n / 2 + 1
        var features = SpectralFeatures()
        features.index = frameIndex
        features.time = Double(frameIndex) * Double(hopLength) / sampleRate
        features.validCount = validCount
        frameIndex += 1

        // Hop energy and zero crossings, over the hop's real samples.
        let hopStart = n - hopLength
        let hopSamples = frame.baseAddress! + hopStart
        let hopEnergy = sums?.hopEnergy ?? cdsp_spectral_dot(hopSamples, hopSamples, validCount)
        // −0.0 counts as negative: harmless.
        let crossings = cdsp_spectral_sign_changes(hopSamples, validCount, frame[hopStart].bitPattern >> 31)
        features.hopPower = hopEnergy / Float(validCount)
        features.zeroCrossingRate = validCount > 1 ? Float(crossings) / Float(validCount - 1) : 0

        // Window with the (window-weighted) mean removed.
        let mean = (sums?.windowDot ?? cdsp_spectral_dot(frame.baseAddress!, window.baseAddress!, n)) / windowSum
        guard mean.isFinite, hopEnergy.isFinite else {
            // A NaN or ±Inf in the window: report the frame as non-finite with zero features,
            // and leave the flux history alone (it resumes once the window is clean again).
            features = SpectralFeatures()
            features.index = frameIndex - 1
            features.time = Double(frameIndex - 1) * Double(hopLength) / sampleRate
            features.validCount = validCount
            features.isFinite = false
            power.update(repeating: 0)
            bandPowers.update(repeating: 0)
            windowed.update(repeating: 0)
            body(SpectralFrame(
                features: features, powerSpectrum: UnsafeBufferPointer(power),
                bandPowers: UnsafeBufferPointer(bandPowers), windowedSamples: UnsafeBufferPointer(windowed),
                binWidthHz: Float(sampleRate) / Float(n)))
            return
        }
        cdsp_spectral_window(frame.baseAddress!, window.baseAddress!, mean, n, windowed.baseAddress!)

        fft.executeForward()
        let binHz = Float(sampleRate) / Float(n)
        // P[k] = |Y[k]|² · 2·scale (eight lanes, then the tail), with Σ P and Σ k·P; the
        // spectrum buffer keeps |Y|² (imaginary parts 0) for the autocorrelation below.
        var sums: (Float, Float) = (0, 0)
        withUnsafeMutablePointer(to: &sums) {
            $0.withMemoryRebound(to: Float.self, capacity: 2) {
                cdsp_spectral_power(spectrum, bins, 2 * powerScale, power.baseAddress!, $0)
            }
        }
        var total = sums.0
        var weightedFrequency = sums.1
        // Bins 0 and N/2 have no mirror image: half the interior scale.
        power[0] *= 0.5
        power[bins - 1] *= 0.5
        total -= power[0] + power[bins - 1]
        weightedFrequency -= power[bins - 1] * Float(bins - 1)
        weightedFrequency *= binHz
        features.framePower = total

        // Bands and flux.
        let bandCount = configuration.bandCount
        var flux: Float = 0
        cdsp_spectral_band_sums(power.baseAddress!, bandBins.baseAddress!, bandCount, bandPowers.baseAddress!)
        // level_b = FastLog.decibels(sum_b + 1e-10), eight bands at a time (FastLog's SIMD8 log2
        // performs the scalar one's operations lane by lane: the same bits), then the flux sum in
        // band order.
        Self.decibels(bandPowers.baseAddress!, plus: 1e-10, count: bandCount, into: bandLevels.baseAddress!)
        for b in 0..<bandCount {
            let level = bandLevels[b]
            if hasPrevious { flux += max(0, level - previousBandLevels[b]) }
            previousBandLevels[b] = level
        }
        features.fluxDB = hasPrevious ? flux / Float(bandCount) : 0
        hasPrevious = true

        if total > 1e-14 {
            features.centroidHz = weightedFrequency / total
            let target = 0.85 * total
            var cumulative: Float = 0
            var rolloffBin = bins - 1
            for k in 0..<bins {
                cumulative += power[k]
                if cumulative >= target { rolloffBin = k; break }
            }
            features.rolloffHz = Float(rolloffBin) * binHz

            // Flatness and entropy from one pass of log2 over the analysis band.
            var logSums: (Float, Float, Float) = (0, 0, 0)
            withUnsafeMutablePointer(to: &logSums) {
                $0.withMemoryRebound(to: Float.self, capacity: 3) {
                    cdsp_spectral_log_sums(power.baseAddress!, analysisBins.lowerBound, analysisBins.upperBound, $0)
                }
            }
            let (bandSum, logSum, weightedLogSum) = logSums
            let count = Float(analysisBins.count)
            let meanLog = logSum / count
            let logMean = FastLog.log2(bandSum / count)
            features.flatness = min(1, max(0, exp2(meanLog - logMean)))
            let entropyBits = FastLog.log2(bandSum) - weightedLogSum / bandSum
            features.entropy = min(1, max(0, entropyBits / FastLog.log2(count)))

            autocorrelate()
            pickPitch(autocorrelation.baseAddress!, into: &features)
        }
        body(SpectralFrame(
            features: features,
            powerSpectrum: UnsafeBufferPointer(power),
            bandPowers: UnsafeBufferPointer(bandPowers),
            windowedSamples: UnsafeBufferPointer(windowed),
            binWidthHz: binHz))
    }
}

extension SpectralAnalyzer: MemoryAccounting {
    /// Owned: the input ring, the per-slot spectra, powers, band powers, autocorrelations and
    /// magnitudes, and the slot pointer tables; shared: the configuration's fixed tables (window,
    /// twiddles, pitch and mel tables, built once per configuration), and the two FFTs.
    public var memoryFootprint: MemoryFootprint {
        let s = Self.slots
        let pointerTables = 10 * MemoryFootprint.bytes(UnsafeMutablePointer<Float>?.self, s)
        let ringBytes = MemoryFootprint.bytes(Float.self, ringCapacity)
        let slotted = s * (MemoryFootprint.bytes(power) + MemoryFootprint.bytes(autocorrelation)
            + MemoryFootprint.bytes(bandPowers) + MemoryFootprint.bytes(magnitudes))
        let small = MemoryFootprint.bytes(previousBandLevels) + MemoryFootprint.bytes(bandLevels) + MemoryFootprint.bytes(Float.self, 8)
            + MemoryFootprint.bytes(Float.self, 24) + MemoryFootprint.bytes(Int.self, s) + MemoryFootprint.bytes(SpectralFeatures.self, s)
        return MemoryFootprint(ownedBytes: ringBytes + slotted + small + pointerTables, sharedBytes: tables.allocatedBytes)
            + fft.memoryFootprint + autocorrelationFFT.memoryFootprint
    }
}
