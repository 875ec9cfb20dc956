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
/// partial hop, so every input sample belongs to exactly one frame's hop. The window's history
/// starts as zeros (frame 0's hop is the stream's first `hopLength` samples), so the first
/// `windowLength / hopLength − 1` frames see fewer real samples than the window holds: with the
/// default 1024-sample Hann and 256-sample hop, frames 0, 1 and 2 read a steady signal's power
/// 14.2, 3.0 and 0.17 dB low (the window's Σw² over its real samples against the whole).
///
/// The stream's state (the input ring, the last frame's band levels) is allocated in `init`; the
/// FFT plans and fixed tables are shared by every analyzer of the same configuration; a call's
/// working buffers (four frame slots of FFT buffers, spectra, powers, band powers and
/// autocorrelations) come from the calling thread's scratch workspace (`ScratchWorkspace` in
/// DSPCore), shared by every stream that thread processes and allocated on its first call.
/// ``process(_:_:)`` does not allocate or lock after that. The per-frame
/// loops run in dispatched C kernels (`CDSPKernels`, AVX2 where the CPU has it) that perform
/// the same floating-point operations in the same order as plain Swift would, so features are
/// identical on every CPU; the window is written straight into the FFT's input buffer and the
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
    // @unchecked: the ring and the stream's state below are reached only holding `ownership`
    // (see StreamOwnership); a call's buffers come from the calling thread's workspace
    // (`Scratch`, ScratchWorkspace), the shared transforms only read their plans, and the
    // spectra a frame lends (SpectralFrame) are valid only inside the call that lends them.
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
    /// Frames analysed together (``Configuration-swift.struct/framesPerBatch``, 1…4).
    public let framesPerBatch: Int
    /// Latency, samples: frames are emitted a batch at a time (``process(_:_:)``), so a frame's
    /// result can wait until the end of the last hop of its batch: `framesPerBatch × hopLength`
    /// after its hop starts, at most (`4 × hopLength` by default).
    public var outputDelay: Int { framesPerBatch * hopLength }
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
    /// The frame transform, `N` points, planned once per size and shared by every analyzer;
    /// run on this call's workspace buffers.
    let fft: SharedRealFFT
    /// The autocorrelation's transform (see `analyze`): `N/2` points when `N` is a multiple of
    /// 4 (the half-size DCT-I route), else `N` points (the mirrored |Y|²). Shared likewise.
    let autocorrelationFFT: SharedRealFFT
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
    /// `r_w(τ)/r_w(0)` of the window, for τ up to the longest lag.
    let windowAutocorrelation: UnsafeMutableBufferPointer<Float>
    /// Boersma's octave cost per lag: `0.01 · log2(τ / τ_min)`.
    let octaveCost: UnsafeMutableBufferPointer<Float>
    /// The last frame's band levels (dB), for the flux: the one per-frame value a frame reads
    /// from the one before.
    let previousBandLevels: UnsafeMutableBufferPointer<Float>
    /// First bin of each band, `bandCount + 1` values (the last is one past the end).
    let bandBins: UnsafeMutableBufferPointer<Int>
    /// The bins of ``Configuration-swift.struct/analysisBandHz`` that the flatness and the
    /// entropy are taken over.
    public let analysisBins: Range<Int>
    /// The bins each band of ``bandEdgesHz`` sums (``SpectralFrame/bandPowers``), in order (an
    /// array made on each call: for setting up, not for a hop).
    public var bandBinRanges: [Range<Int>] { (0..<bandBins.count - 1).map { bandBins[$0]..<bandBins[$0 + 1] } }
    let lagRange: ClosedRange<Int>
    var frameIndex: Int64 = 0
    /// Samples pushed this stream.
    var samplesPushed: Int64 = 0
    var hasPrevious = false

    /// Four frames are analysed at once (``analyzeFour(_:_:)``), each in its own slot of the
    /// call's `Scratch` (whatever the batch size: a push that completes four frames runs them
    /// together).
    static let slots = 4
    /// The most frames a batch holds (``Configuration-swift.struct/framesPerBatch``'s upper
    /// bound): a result can come this many hops after the samples it covers, whatever the batch.
    public static let maximumFramesPerBatch = slots
    /// The sizes of a call's `Scratch`, taken from the calling thread's workspace.
    let layout: ScratchLayout
    /// The process's workspace key (``/DSPCore/ScratchWorkspace``), read once here.
    let workspace = ScratchWorkspace()

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
        try ConfigurationError.check("framesPerBatch", c.framesPerBatch, in: 1...Self.slots)
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
        framesPerBatch = c.framesPerBatch
        // About four windows, rounded so that a refill completes a multiple of four frames
        // (large pushes then run four frames at a time throughout; see `process`).
        let framesPerRefill = ((3 * c.windowLength / c.hopLength + 1) + 3) / 4 * 4
        ringCapacity = c.windowLength + (framesPerRefill - 1) * c.hopLength
        ring = .allocate(capacity: ringCapacity)
        ring.initialize(repeating: 0, count: ringCapacity)
        let n = c.windowLength
        let useHalf = n % 4 == 0
        fft = try SharedRealFFT.shared(size: n)
        autocorrelationFFT = try SharedRealFFT.shared(size: useHalf ? n / 2 : n)
        // The window, twiddles, pitch and band tables: one copy per configuration.
        let tables = Self.Tables.cache.table(for: c.tableKey) { Self.Tables(c) }
        self.tables = tables
        halfSine = tables.halfSine
        halfCosine = tables.halfCosine
        let bins = n / 2 + 1
        let binHz = c.sampleRate / Double(n)

        window = tables.window
        windowSum = tables.windowSum
        powerScale = tables.powerScale

        lagRange = tables.lagRange
        windowAutocorrelation = tables.windowAutocorrelation
        octaveCost = tables.octaveCost

        let top = min(c.analysisBandHz.upperBound, nyquist)
        let lowBin = max(1, Int((c.analysisBandHz.lowerBound / binHz).rounded(.up)))
        let highBin = max(lowBin + 1, min(bins - 1, Int((top / binHz).rounded(.down)) + 1))
        analysisBins = lowBin..<highBin

        bandBins = tables.bandBins
        bandEdgesHz = tables.bandEdgesHz
        previousBandLevels = .allocate(capacity: c.bandCount); previousBandLevels.initialize(repeating: 0)
        layout = ScratchLayout(
            windowLength: n, lagTransformSize: autocorrelationFFT.size, lagCount: tables.lagRange.upperBound + 2,
            bandCount: c.bandCount, fftScratchCount: max(fft.scratchCount, autocorrelationFFT.scratchCount))
        prime()
    }

    deinit {
        ring.deallocate()
        previousBandLevels.deallocate()
    }

    /// Analyses one frame in slot 0 of `scratch`. `sums` are its window dot product `Σ x·w` and
    /// hop energy (over `validCount` samples) when already taken (``process(_:_:)``); `nil` takes
    /// them here.
    func analyze(
        _ frame: UnsafeBufferPointer<Float>, validCount: Int, sums: (windowDot: Float, hopEnergy: Float)? = nil,
        _ scratch: Scratch, _ body: (SpectralFrame) -> Void
    ) {
        let power = scratch.power, bandPowers = scratch.bandPowers, windowed = scratch.windowed
        let spectrum = scratch.spectrum, bandLevels = scratch.bandLevels
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

        fft.forward(input: windowed.baseAddress!, spectrum: spectrum, scratch: scratch.fftScratch)
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
        features.framePower = total.isNaN ? .nan : total  // one NaN whatever the kernel's sign

        // Bands and flux.
        let bandCount = configuration.bandCount
        var flux: Float = 0
        cdsp_spectral_band_sums(power.baseAddress!, bandBins.baseAddress!, bandCount, bandPowers.baseAddress!)
        // level_b = FastLog.decibels(sum_b + 1e-10), eight bands at a time (FastLog's SIMD8 log2
        // performs the scalar one's operations lane by lane: the same bits), then the flux sum in
        // band order.
        Self.decibels(bandPowers.baseAddress!, plus: 1e-10, count: bandCount, into: bandLevels)
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

            autocorrelate(scratch)
            pickPitch(scratch.autocorrelation.baseAddress!, into: &features)
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
    /// Owned: the input ring and the last frame's band levels. Shared: the configuration's fixed
    /// tables (window, twiddles, pitch and mel tables, built once per configuration) and the two
    /// transforms' plans and planning buffers (once per size). Workspace: one call's `Scratch`
    /// (the four slots' FFT buffers, spectra, powers, band powers, magnitudes and
    /// autocorrelations, the FFT scratch), taken from the calling thread's workspace.
    public var memoryFootprint: MemoryFootprint {
        MemoryFootprint(
            ownedBytes: MemoryFootprint.bytes(Float.self, ringCapacity) + MemoryFootprint.bytes(previousBandLevels),
            sharedBytes: tables.allocatedBytes + fft.allocatedBytes
                + (autocorrelationFFT === fft ? 0 : autocorrelationFFT.allocatedBytes),
            workspaceBytes: layout.byteCount)
    }
}
