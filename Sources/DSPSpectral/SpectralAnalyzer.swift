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
/// ```swift
/// let analyzer = try SpectralAnalyzer()                       // 16 kHz: 64 ms every 16 ms
/// analyzer.process(samples) { frame in print(frame.features.pitchHz) }
/// analyzer.flush { frame in … }
/// ```
public final class SpectralAnalyzer {
    /// Analysis geometry and ranges. Defaults suit speech at 16 kHz.
    public struct Configuration: Equatable, Sendable {
        /// Sample rate of the stream, Hz. Range 8000…96000; default 16000.
        public var sampleRate: Double
        /// Window (and FFT) length in samples: even, 64…16384; default 1024 (64 ms at 16 kHz,
        /// long enough for two periods of a 60 Hz voice).
        public var windowLength: Int
        /// Samples between frames, 1…`windowLength`; default 256 (16 ms at 16 kHz).
        public var hopLength: Int
        /// Pitch search range, Hz; default 60…400 (adult and child voices). The upper bound must
        /// be below `sampleRate / 4` and the lower bound's period must fit twice in the window.
        public var pitchRangeHz: ClosedRange<Double>
        /// Bins used for flatness and entropy, Hz; default 100…7000 (below the Nyquist
        /// frequency; clipped to it).
        public var analysisBandHz: ClosedRange<Double>
        /// Number of mel-spaced bands for band powers, 4…64; default 20.
        public var bandCount: Int
        /// Band layout: lower edge of the first and upper edge of the last band, Hz; default
        /// 80…7800 (clipped below the Nyquist frequency).
        public var bandRangeHz: ClosedRange<Double>

        /// Creates a configuration; every parameter has the documented default.
        public init(
            sampleRate: Double = 16_000, windowLength: Int = 1024, hopLength: Int = 256,
            pitchRangeHz: ClosedRange<Double> = 60...400, analysisBandHz: ClosedRange<Double> = 100...7000,
            bandCount: Int = 20, bandRangeHz: ClosedRange<Double> = 80...7800
        ) {
            self.sampleRate = sampleRate
            self.windowLength = windowLength
            self.hopLength = hopLength
            self.pitchRangeHz = pitchRangeHz
            self.analysisBandHz = analysisBandHz
            self.bandCount = bandCount
            self.bandRangeHz = bandRangeHz
        }
    }

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

    private let sampleRate: Double
    /// The stream, `ringCapacity` samples: the frame being assembled is
    /// `ring[frameStart ..< frameStart + windowLength]`, its first `fill` samples present. Each
    /// frame advances `frameStart` by a hop, so consecutive frames need no copy; only when the
    /// next frame would run past the end are its `fill` samples moved to the front (once every
    /// `(ringCapacity − N) / hop` frames, instead of moving `N − hop` samples every frame).
    private let ring: UnsafeMutablePointer<Float>
    private let ringCapacity: Int
    private var frameStart = 0
    private var fill = 0
    private let fft: RealFFT
    /// The autocorrelation's transform (see `analyze`): `N/2` points when `N` is a multiple of
    /// 4 (the half-size DCT-I route), else `N` points (the mirrored |Y|²).
    private let autocorrelationFFT: RealFFT
    /// `sin(πj/(N/2))` and `cos(πj/(N/2))` for `j < N/4`, the half-size route's twiddles
    /// (empty when it is not used).
    private let halfSine: UnsafeMutableBufferPointer<Float>
    private let halfCosine: UnsafeMutableBufferPointer<Float>
    private let window: UnsafeMutableBufferPointer<Float>
    private let windowSum: Float
    private let powerScale: Float
    /// The windowed frame: ``RealFFT/forwardInput`` (owned by `fft`, which keeps it intact).
    private let windowed: UnsafeMutableBufferPointer<Float>
    /// ``RealFFT/interleavedSpectrum``: `Y[k]`, then `|Y[k]|²` for the autocorrelation.
    private let spectrum: UnsafeMutablePointer<Float>
    private let power: UnsafeMutableBufferPointer<Float>
    /// The autocorrelation for lags 0 … max lag + 1.
    private let autocorrelation: UnsafeMutableBufferPointer<Float>
    /// `r_w(τ)/r_w(0)` of the window, for τ up to the longest lag.
    private let windowAutocorrelation: UnsafeMutableBufferPointer<Float>
    /// Boersma's octave cost per lag: `0.01 · log2(τ / τ_min)`.
    private let octaveCost: UnsafeMutableBufferPointer<Float>
    private let bandPowers: UnsafeMutableBufferPointer<Float>
    private let previousBandLevels: UnsafeMutableBufferPointer<Float>
    /// This frame's band levels (dB), `bandCount` rounded up to a multiple of eight.
    private let bandLevels: UnsafeMutableBufferPointer<Float>
    /// First bin of each band, `bandCount + 1` values (the last is one past the end).
    private let bandBins: UnsafeMutableBufferPointer<Int>
    private let analysisBins: Range<Int>
    private let lagRange: ClosedRange<Int>
    private var frameIndex: Int64 = 0
    /// Up to four complete frames' window dot products `Σ x·w` and hop energies `Σ x²`, taken
    /// together before the frames are analysed one by one (``process(_:_:)``).
    private let batchWindowDots: UnsafeMutablePointer<Float>
    private let batchHopEnergies: UnsafeMutablePointer<Float>
    private var hasPrevious = false

    // Four frames at once (``analyzeFour(_:)``): slot `f`'s buffers. Slot 0 is the one-frame
    // path's (`windowed`, `spectrum`, `power`, `bandPowers`, `autocorrelation`); the pointer
    // tables are the C kernels' `float *[4]` arguments.
    private static let slots = 4
    /// Slot `f`'s windowed frame and spectrum: `fft`'s buffer set `f`.
    private let windowedSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    private let spectrumSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    /// `power` + `f·binCount`, writable and read-only.
    private let powerSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    private let powerInputSlots: UnsafeMutablePointer<UnsafePointer<Float>?>
    /// `bandPowers` + `f·bandCount`.
    private let bandPowerSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    /// `autocorrelationFFT`'s buffer set `f`: twiddled input, spectrum.
    private let lagInputSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    private let lagSpectrumSlots: UnsafeMutablePointer<UnsafePointer<Float>?>
    /// `autocorrelation` + `f·(max lag + 2)`.
    private let autocorrelationSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    /// Slot `f`'s `|Y[k]|²`, `binCount` contiguous floats (the half-size route reads them there,
    /// not from the spectrum's real parts), writable and read-only views.
    private let magnitudeSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    private let magnitudeInputSlots: UnsafeMutablePointer<UnsafePointer<Float>?>
    private let magnitudes: UnsafeMutableBufferPointer<Float>
    /// Per-slot scalars: power sums (8), totals, weighted frequencies, roll-off targets, `f1`
    /// (4 each), roll-off bins (4), features (4).
    private let slotSums: UnsafeMutablePointer<Float>
    private let slotRolloff: UnsafeMutablePointer<Int>
    private let slotFeatures: UnsafeMutablePointer<SpectralFeatures>

    /// Builds the window, the FFT plans and all buffers.
    ///
    /// - Throws: ``ConfigurationError`` naming the first parameter out of range.
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
        let quarter = useHalf ? n / 4 : 0
        halfSine = .allocate(capacity: quarter)
        halfCosine = .allocate(capacity: quarter)
        for j in 0..<quarter {
            halfSine[j] = Float(sin(Double.pi * Double(j) / Double(n / 2)))
            halfCosine[j] = Float(cos(Double.pi * Double(j) / Double(n / 2)))
        }
        let bins = n / 2 + 1
        let binHz = c.sampleRate / Double(n)

        window = .allocate(capacity: n)
        var sum = 0.0, sumSquares = 0.0
        for i in 0..<n {
            let w = Window.coefficient(.hann, index: i, length: n, symmetry: .periodic)
            window[i] = Float(w)
            sum += w
            sumSquares += w * w
        }
        windowSum = Float(sum)
        powerScale = Float(1 / (Double(n) * sumSquares))
        windowed = fft.forwardInput
        spectrum = fft.interleavedSpectrum.baseAddress!
        power = Self.slotStorage(count: bins)

        let minLag = max(2, Int((c.sampleRate / c.pitchRangeHz.upperBound).rounded(.down)))
        let maxLag = min(n / 2 - 1, Int((c.sampleRate / c.pitchRangeHz.lowerBound).rounded(.up)))
        lagRange = minLag...maxLag
        autocorrelation = Self.slotStorage(count: maxLag + 2)
        windowAutocorrelation = .allocate(capacity: maxLag + 2)
        octaveCost = .allocate(capacity: maxLag + 2)
        for lag in 0...(maxLag + 1) {
            octaveCost[lag] = lag >= minLag ? Float(0.01 * log2(Double(lag) / Double(minLag))) : 0
        }
        var r0 = 0.0
        for i in 0..<n { r0 += Double(window[i]) * Double(window[i]) }
        for lag in 0...(maxLag + 1) {
            var r = 0.0
            for i in 0..<(n - lag) { r += Double(window[i]) * Double(window[i + lag]) }
            windowAutocorrelation[lag] = Float(r / r0)
        }

        let top = min(c.analysisBandHz.upperBound, nyquist)
        let lowBin = max(1, Int((c.analysisBandHz.lowerBound / binHz).rounded(.up)))
        let highBin = max(lowBin + 1, min(bins - 1, Int((top / binHz).rounded(.down)) + 1))
        analysisBins = lowBin..<highBin

        let bandTop = min(c.bandRangeHz.upperBound, nyquist * 0.98)
        func mel(_ f: Double) -> Double { 2595 * log10(1 + f / 700) }
        func hertz(_ m: Double) -> Double { 700 * (pow(10, m / 2595) - 1) }
        let melLow = mel(c.bandRangeHz.lowerBound), melHigh = mel(bandTop)
        var edges: [Float] = []
        bandBins = .allocate(capacity: c.bandCount + 1)
        var previousBin = -1
        for b in 0...c.bandCount {
            let f = hertz(melLow + (melHigh - melLow) * Double(b) / Double(c.bandCount))
            edges.append(Float(f))
            // Each band holds at least one bin.
            let bin = max(previousBin + 1, Int((f / binHz).rounded()))
            bandBins[b] = min(bin, bins)
            previousBin = bin
        }
        bandEdgesHz = edges
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
            (autocorrelationSlots + f).initialize(to: autocorrelation.baseAddress! + f * (maxLag + 2))
        }
        slotSums = .allocate(capacity: 24); slotSums.initialize(repeating: 0, count: 24)
        slotRolloff = .allocate(capacity: slots); slotRolloff.initialize(repeating: 0, count: slots)
        slotFeatures = .allocate(capacity: slots); slotFeatures.initialize(repeating: SpectralFeatures(), count: slots)
        prime()
    }

    deinit {
        window.deallocate(); ring.deallocate()
        halfSine.deallocate(); halfCosine.deallocate()
        power.deallocate(); autocorrelation.deallocate(); windowAutocorrelation.deallocate(); octaveCost.deallocate()
        bandPowers.deallocate(); previousBandLevels.deallocate(); bandLevels.deallocate(); bandBins.deallocate()
        batchWindowDots.deallocate(); batchHopEnergies.deallocate()
        windowedSlots.deallocate(); spectrumSlots.deallocate(); powerSlots.deallocate(); powerInputSlots.deallocate()
        bandPowerSlots.deallocate(); lagInputSlots.deallocate(); lagSpectrumSlots.deallocate()
        autocorrelationSlots.deallocate(); magnitudeSlots.deallocate(); magnitudeInputSlots.deallocate()
        magnitudes.deallocate(); slotSums.deallocate(); slotRolloff.deallocate(); slotFeatures.deallocate()
    }

    /// Zeroed storage for ``slots`` slots of `count` floats; the buffer returned is slot 0 (its
    /// `deallocate` frees all of them).
    private static func slotStorage(count: Int) -> UnsafeMutableBufferPointer<Float> {
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: slots * count)
        storage.initialize(repeating: 0, count: slots * count)
        return UnsafeMutableBufferPointer(start: storage, count: count)
    }

    /// Fills the window's history with zeros so that frame 0's hop starts at sample 0.
    private func prime() {
        let history = windowLength - hopLength
        frameStart = 0
        ring.update(repeating: 0, count: history)
        fill = history
    }

    /// Pushes `input` and calls `body` for each frame it completes, in order, four at a time:
    /// frames wait until four are complete (the last up to three of a stream come with
    /// ``flush(_:)``), so that they go through the four-frame path whatever the push size.
    /// Never allocates.
    ///
    /// The input is copied into the ring as far as it fits; the frames it completes are then
    /// analysed in order, their window dot products and hop energies (sequential eight-lane
    /// sums, latency-bound one at a time) taken four frames at a time by
    /// `cdsp_detection_frame_dots`, bit-identical to `cdsp_spectral_dot` per frame. Four
    /// complete frames whose windows are finite go through the rest of the analysis together
    /// (`analyzeFour`: the same operations per frame, bit for bit, the callbacks in frame
    /// order after the four are done); others one at a time. Frames depend only on stream
    /// positions, so how the input is chunked changes nothing.
    public func process(_ input: UnsafeBufferPointer<Float>, _ body: (SpectralFrame) -> Void) {
        guard let source = input.baseAddress else { return }
        var offset = 0
        while offset < input.count {
            let n = min(ringCapacity - frameStart - fill, input.count - offset)
            cdsp_detection_copy(ring + frameStart + fill, source + offset, n)
            fill += n
            offset += n
            var complete = fill >= windowLength ? (fill - windowLength) / hopLength + 1 : 0
            complete -= complete % 4  // whole batches only; the rest wait for their fourth frame
            while complete > 0 {
                let batch = min(4, complete)
                cdsp_detection_frame_dots(
                    ring + frameStart, hopLength, batch, window.baseAddress!, windowLength, windowLength - hopLength,
                    hopLength, batchWindowDots, batchHopEnergies)
                if batch == 4, allFinite() {
                    analyzeFour(body)
                    frameStart += 4 * hopLength
                    fill -= 4 * hopLength
                    complete -= 4
                    continue
                }
                for i in 0..<batch {
                    analyze(
                        UnsafeBufferPointer(start: ring + frameStart, count: windowLength), validCount: hopLength,
                        sums: (batchWindowDots[i], batchHopEnergies[i]), body)
                    frameStart += hopLength
                    fill -= hopLength
                }
                complete -= batch
            }
            if frameStart + windowLength > ringCapacity {
                ring.update(from: ring + frameStart, count: fill)
                frameStart = 0
            }
        }
    }

    /// Ends the stream: emits the frame of a final partial hop (zero-padded; its
    /// ``SpectralFeatures/validCount`` is the real sample count), then resets.
    public func flush(_ body: (SpectralFrame) -> Void) {
        // Complete frames still waiting for their batch, one at a time.
        while fill >= windowLength {
            analyze(UnsafeBufferPointer(start: ring + frameStart, count: windowLength), validCount: hopLength, body)
            frameStart += hopLength
            fill -= hopLength
        }
        let valid = fill - (windowLength - hopLength)
        if valid > 0 {
            (ring + frameStart + fill).update(repeating: 0, count: windowLength - fill)
            analyze(UnsafeBufferPointer(start: ring + frameStart, count: windowLength), validCount: valid, body)
        }
        reset()
    }

    /// Forgets the stream; the next ``process(_:_:)`` starts at frame 0.
    public func reset() {
        frameStart = 0
        frameIndex = 0
        hasPrevious = false
        previousBandLevels.update(repeating: 0)
        prime()
    }

    /// `out[i] = FastLog.decibels(x[i] + offset)` for `i < count`: eight values per step with
    /// ``FastLog``'s SIMD8 `decibels` (bit-identical to the scalar function), the tail one at a
    /// time.
    @inline(__always)
    static func decibels(_ x: UnsafePointer<Float>, plus offset: Float, count: Int, into out: UnsafeMutablePointer<Float>) {
        var i = 0
        while i + 8 <= count {
            let v = UnsafeRawPointer(x + i).loadUnaligned(as: SIMD8<Float>.self) + offset
            UnsafeMutableRawPointer(out + i).storeBytes(of: FastLog.decibels(v), as: SIMD8<Float>.self)
            i += 8
        }
        while i < count {
            out[i] = FastLog.decibels(x[i] + offset)
            i += 1
        }
    }

    /// Whether the four frames whose sums `cdsp_detection_frame_dots` just took all have a
    /// finite mean and hop energy (the one-frame path's test; a non-finite frame goes that way).
    @inline(__always)
    private func allFinite() -> Bool {
        var finite = true
        for f in 0..<4 {
            finite = finite && (batchWindowDots[f] / windowSum).isFinite && batchHopEnergies[f].isFinite
        }
        return finite
    }

    /// Analyses the four complete frames at `ring + frameStart + f·hop` (`f < 4`, every one
    /// finite: ``allFinite()``, sums in `batchWindowDots`/`batchHopEnergies`), then calls `body`
    /// for each in order. Each frame goes through exactly ``analyze(_:validCount:sums:_:)``'s
    /// operations in its order, in its own slot's buffers; the latency-bound kernels after the
    /// FFT (power sums, band sums, roll-off, the autocorrelation's prefix sum) run the four
    /// frames side by side (`CDSPDetection.h`), so every feature is bit-identical to the
    /// one-frame path's. The flux, which links a frame to the one before, is taken in frame
    /// order.
    private func analyzeFour(_ body: (SpectralFrame) -> Void) {
        let n = windowLength
        let bins = n / 2 + 1
        let hop = hopLength
        let hopStart = n - hop
        let binHz = Float(sampleRate) / Float(n)
        let bandCount = configuration.bandCount
        let totals = slotSums + 8, weighted = slotSums + 12, targets = slotSums + 16, f1s = slotSums + 20

        for f in 0..<4 {
            let frame = ring + frameStart + f * hop
            var features = SpectralFeatures()
            features.index = frameIndex
            features.time = Double(frameIndex) * Double(hopLength) / sampleRate
            features.validCount = hop
            frameIndex += 1
            let hopEnergy = batchHopEnergies[f]
            let crossings = cdsp_spectral_sign_changes(frame + hopStart, hop, frame[hopStart].bitPattern >> 31)
            features.hopPower = hopEnergy / Float(hop)
            features.zeroCrossingRate = hop > 1 ? Float(crossings) / Float(hop - 1) : 0
            let mean = batchWindowDots[f] / windowSum
            cdsp_spectral_window(frame, window.baseAddress!, mean, n, windowedSlots[f]!)
            fft.executeForward(set: f)
            slotFeatures[f] = features
        }

        let half = halfSine.count > 0
        if half {
            // |Y|² contiguous for the half-size twiddle below (the one-frame path leaves it in the
            // spectrum's real parts; the values are the same).
            cdsp_detection_power4_magnitudes(spectrumSlots, bins, 2 * powerScale, powerSlots, magnitudeSlots, slotSums)
        } else {
            cdsp_detection_power4(spectrumSlots, bins, 2 * powerScale, powerSlots, slotSums)
        }
        for f in 0..<4 {
            let power = powerSlots[f]!
            var total = slotSums[2 * f]
            var weightedFrequency = slotSums[2 * f + 1]
            power[0] *= 0.5
            power[bins - 1] *= 0.5
            total -= power[0] + power[bins - 1]
            weightedFrequency -= power[bins - 1] * Float(bins - 1)
            weightedFrequency *= binHz
            slotFeatures[f].framePower = total
            totals[f] = total
            weighted[f] = weightedFrequency
            targets[f] = 0.85 * total
        }

        cdsp_detection_band_sums4(powerInputSlots, bandBins.baseAddress!, bandCount, bandPowerSlots)
        for f in 0..<4 {
            var flux: Float = 0
            Self.decibels(bandPowerSlots[f]!, plus: 1e-10, count: bandCount, into: bandLevels.baseAddress!)
            for b in 0..<bandCount {
                let level = bandLevels[b]
                if hasPrevious { flux += max(0, level - previousBandLevels[b]) }
                previousBandLevels[b] = level
            }
            slotFeatures[f].fluxDB = hasPrevious ? flux / Float(bandCount) : 0
            hasPrevious = true
        }

        cdsp_detection_rolloff4(powerInputSlots, bins, targets, slotRolloff)
        let lagCount = lagRange.upperBound + 2
        var allVoiced = true, anyVoiced = false
        for f in 0..<4 {
            let total = totals[f]
            guard total > 1e-14 else { allVoiced = false; continue }
            anyVoiced = true
            let power = powerInputSlots[f]!
            slotFeatures[f].centroidHz = weighted[f] / total
            slotFeatures[f].rolloffHz = Float(slotRolloff[f]) * binHz

            var logSums: (Float, Float, Float) = (0, 0, 0)
            withUnsafeMutablePointer(to: &logSums) {
                $0.withMemoryRebound(to: Float.self, capacity: 3) {
                    cdsp_spectral_log_sums(power, analysisBins.lowerBound, analysisBins.upperBound, $0)
                }
            }
            let (bandSum, logSum, weightedLogSum) = logSums
            let count = Float(analysisBins.count)
            let meanLog = logSum / count
            let logMean = FastLog.log2(bandSum / count)
            slotFeatures[f].flatness = min(1, max(0, exp2(meanLog - logMean)))
            let entropyBits = FastLog.log2(bandSum) - weightedLogSum / bandSum
            slotFeatures[f].entropy = min(1, max(0, entropyBits / FastLog.log2(count)))

            if !half {
                cdsp_spectral_mirror(spectrumSlots[f]!, n, lagInputSlots[f]!)
                autocorrelationFFT.executeForward(set: f)
                cdsp_spectral_real_parts(lagSpectrumSlots[f]!, lagCount, autocorrelationSlots[f]!)
            }
        }
        if half && anyVoiced {
            // All four frames twiddled (a silent frame's result is not used), the transforms and
            // lags only for the frames with power.
            cdsp_detection_half_twiddle4(
                magnitudeInputSlots, n / 2, halfSine.baseAddress!, halfCosine.baseAddress!, lagInputSlots, f1s)
            for f in 0..<4 where totals[f] > 1e-14 { autocorrelationFFT.executeForward(set: f) }
            if allVoiced {
                cdsp_detection_half_lags4(lagSpectrumSlots, f1s, lagCount, autocorrelationSlots)
            } else {
                for f in 0..<4 where totals[f] > 1e-14 {
                    cdsp_spectral_half_lags(lagSpectrumSlots[f]!, f1s[f], lagCount, autocorrelationSlots[f]!)
                }
            }
        }

        for f in 0..<4 {
            if totals[f] > 1e-14 {
                let autocorrelation = autocorrelationSlots[f]!
                let r0 = autocorrelation[0]
                if r0 > 0 {
                    var bestRho: Float = 0
                    let bestLag = cdsp_spectral_pitch_pick(
                        autocorrelation, windowAutocorrelation.baseAddress!, octaveCost.baseAddress!,
                        lagRange.lowerBound, lagRange.upperBound, 1 / r0, &bestRho)
                    if bestLag > 0 {
                        slotFeatures[f].harmonicity = min(1, bestRho)
                        let left = autocorrelation[bestLag - 1], centre = autocorrelation[bestLag]
                        let right = autocorrelation[bestLag + 1]
                        let denominator = left - 2 * centre + right
                        let offset = denominator < 0 ? 0.5 * (left - right) / denominator : 0
                        slotFeatures[f].pitchHz = Float(sampleRate) / (Float(bestLag) + max(-0.5, min(0.5, offset)))
                    }
                }
            }
            body(SpectralFrame(
                features: slotFeatures[f],
                powerSpectrum: UnsafeBufferPointer(start: powerInputSlots[f]!, count: bins),
                bandPowers: UnsafeBufferPointer(start: bandPowerSlots[f]!, count: bandCount),
                windowedSamples: UnsafeBufferPointer(start: windowedSlots[f]!, count: n),
                binWidthHz: binHz))
        }
    }

    /// Analyses one frame. `sums` are its window dot product `Σ x·w` and hop energy (over
    /// `validCount` samples) when already taken (``process(_:_:)``); `nil` takes them here.
    private func analyze(
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

            // Autocorrelation = inverse DFT of |Y|² (circular; the window's tails make the wrap
            // negligible over the pitch lags), normalised and corrected for the window. |Y|² is
            // real and even, so its inverse DFT is a DCT-I of its N/2 + 1 values:
            // r(τ) = P₀ + (−1)^τ P_{N/2} + 2 Σ_{k=1}^{N/2−1} P_k cos(2πkτ/N). When 4 | N, that
            // is an N/2-point real FFT of a pre-twiddled sequence plus a prefix sum over the lags
            // needed (Numerical Recipes `cosft1`; Makhoul 1980); otherwise the forward DFT of the
            // mirrored N-point sequence. Either is cheaper than FFTW's c2r.
            let lagCount = lagRange.upperBound + 2
            if halfSine.count > 0 {
                var f1: Float = 0
                cdsp_spectral_half_twiddle(
                    spectrum, n / 2, halfSine.baseAddress!, halfCosine.baseAddress!,
                    autocorrelationFFT.forwardInput.baseAddress!, &f1)
                autocorrelationFFT.executeForward()
                cdsp_spectral_half_lags(autocorrelationFFT.interleavedSpectrum.baseAddress!, f1, lagCount, autocorrelation.baseAddress!)
            } else {
                cdsp_spectral_mirror(spectrum, n, autocorrelationFFT.forwardInput.baseAddress!)
                autocorrelationFFT.executeForward()
                cdsp_spectral_real_parts(autocorrelationFFT.interleavedSpectrum.baseAddress!, lagCount, autocorrelation.baseAddress!)
            }
            let r0 = autocorrelation[0]
            if r0 > 0 {
                // Boersma's octave cost (0.01 per octave) favours the shortest period: the local
                // maximum with the highest rho − cost above 0 (the shortest lag on ties).
                var bestRho: Float = 0
                let bestLag = cdsp_spectral_pitch_pick(
                    autocorrelation.baseAddress!, windowAutocorrelation.baseAddress!, octaveCost.baseAddress!,
                    lagRange.lowerBound, lagRange.upperBound, 1 / r0, &bestRho)
                if bestLag > 0 {
                    features.harmonicity = min(1, bestRho)
                    let left = autocorrelation[bestLag - 1], centre = autocorrelation[bestLag], right = autocorrelation[bestLag + 1]
                    let denominator = left - 2 * centre + right
                    let offset = denominator < 0 ? 0.5 * (left - right) / denominator : 0
                    features.pitchHz = Float(sampleRate) / (Float(bestLag) + max(-0.5, min(0.5, offset)))
                }
            }
        }
        body(SpectralFrame(
            features: features,
            powerSpectrum: UnsafeBufferPointer(power),
            bandPowers: UnsafeBufferPointer(bandPowers),
            windowedSamples: UnsafeBufferPointer(windowed),
            binWidthHz: binHz))
    }
}
