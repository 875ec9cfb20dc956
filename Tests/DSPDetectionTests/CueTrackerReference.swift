@testable import DSPDetection
import DSPSpectral

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The cue tracker, its rolling windows and the noise-floor tracker as they were before the
// rolling statistics were computed window group by window group (CueTracker.rollingStatistics),
// the ring index wrapped without integer division and the noise minimum walked along the bands
// (commit fdac231): the plain loops, kept as the reference that CueTrackerReferenceTests holds
// the library's cues to, bit for bit.

/// Tracks the background-noise power per band by minimum statistics.
///
/// Each band's power is smoothed (`S_b ← α·S_b + (1−α)·P_b`, α = ``smoothing``) and the
/// noise estimate is the minimum of `S_b` over the last ``windowSeconds`` (kept as the minima
/// of `subwindowCount` sub-windows, so the sliding minimum costs O(1) per frame), times a bias
/// factor that compensates for the minimum of a fluctuating power lying below its mean.
/// Speech pauses of a few hundred milliseconds inside the window are enough for the estimate
/// to find the noise under continuous speech. Reference: R. Martin, "Noise power spectral
/// density estimation based on optimal smoothing and minimum statistics", IEEE Trans. Speech
/// and Audio Processing 9(5), 2001 (a simplified form: fixed α and bias).
///
/// Before the first full window the estimate is the minimum seen so far. Never allocates
/// after `init`.
final class ReferenceNoiseFloorTracker {
    /// Bands tracked.
    let bandCount: Int
    /// Smoothing factor α of the band powers, per frame.
    let smoothing: Float
    /// Bias factor the minimum is multiplied by (≥ 1).
    let bias: Float
    /// Length of the minimum search, seconds.
    let windowSeconds: Double

    private let subwindowCount: Int
    private let subwindowFrames: Int
    private let smoothed: UnsafeMutableBufferPointer<Float>
    /// `subwindowCount × bandCount` minima of completed sub-windows (a ring).
    private let minima: UnsafeMutableBufferPointer<Float>
    private let current: UnsafeMutableBufferPointer<Float>
    private let noise: UnsafeMutableBufferPointer<Float>
    private var framesInSubwindow = 0
    private var completedSubwindows = 0
    private var ringIndex = 0
    private var started = false

    /// Creates a tracker for `bandCount` bands updated every `frameSeconds`.
    ///
    /// - Parameters:
    ///   - bandCount: Bands, ≥ 1.
    ///   - frameSeconds: Time between updates, seconds (the analysis hop).
    ///   - windowSeconds: Minimum-search length, seconds; default 1.5.
    ///   - smoothing: α, 0…0.99; default 0.7 (about 50 ms at a 16 ms hop).
    ///   - bias: Factor on the minimum; default 1.6 (+2 dB).
    init(bandCount: Int, frameSeconds: Double, windowSeconds: Double = 1.5, smoothing: Float = 0.7, bias: Float = 1.6) {
        precondition(bandCount >= 1 && frameSeconds > 0 && windowSeconds > 0)
        self.bandCount = bandCount
        self.smoothing = smoothing
        self.bias = bias
        self.windowSeconds = windowSeconds
        subwindowCount = 6
        subwindowFrames = max(1, Int((windowSeconds / frameSeconds / Double(subwindowCount)).rounded()))
        smoothed = .allocate(capacity: bandCount); smoothed.initialize(repeating: 0)
        minima = .allocate(capacity: bandCount * subwindowCount); minima.initialize(repeating: .infinity)
        current = .allocate(capacity: bandCount); current.initialize(repeating: .infinity)
        noise = .allocate(capacity: bandCount); noise.initialize(repeating: 0)
    }

    deinit {
        smoothed.deallocate(); minima.deallocate(); current.deallocate(); noise.deallocate()
    }

    /// The noise estimate per band, in the units of the band powers.
    var noisePowers: UnsafeBufferPointer<Float> { UnsafeBufferPointer(noise) }
    /// The smoothed band powers.
    var smoothedPowers: UnsafeBufferPointer<Float> { UnsafeBufferPointer(smoothed) }

    /// Feeds one frame's band powers and updates the estimate.
    ///
    /// - Precondition: `bandPowers.count == bandCount`.
    func update(_ bandPowers: UnsafeBufferPointer<Float>) {
        precondition(bandPowers.count == bandCount)
        let a = smoothing
        if !started {
            for b in 0..<bandCount { smoothed[b] = bandPowers[b] }
            started = true
        } else {
            for b in 0..<bandCount { smoothed[b] = a * smoothed[b] + (1 - a) * bandPowers[b] }
        }
        for b in 0..<bandCount { current[b] = min(current[b], smoothed[b]) }
        // Minimum over the completed sub-windows in the ring and the current one.
        for b in 0..<bandCount {
            var m = current[b]
            for s in 0..<min(completedSubwindows, subwindowCount) { m = min(m, minima[s * bandCount + b]) }
            noise[b] = m * bias
        }
        framesInSubwindow += 1
        if framesInSubwindow == subwindowFrames {
            for b in 0..<bandCount {
                minima[ringIndex * bandCount + b] = current[b]
                current[b] = .infinity
            }
            ringIndex = (ringIndex + 1) % subwindowCount
            completedSubwindows += 1
            framesInSubwindow = 0
        }
    }

    /// Forgets the estimate.
    func reset() {
        smoothed.update(repeating: 0)
        minima.update(repeating: .infinity)
        current.update(repeating: .infinity)
        noise.update(repeating: 0)
        framesInSubwindow = 0
        completedSubwindows = 0
        ringIndex = 0
        started = false
    }
}

/// A fixed-capacity ring of the last `capacity` values, with their running sum.
struct ReferenceFloatRing {
    let storage: UnsafeMutableBufferPointer<Float>
    private(set) var count = 0
    private var next = 0
    private(set) var sum: Double = 0

    init(capacity: Int) {
        storage = .allocate(capacity: max(1, capacity))
        storage.initialize(repeating: 0)
    }

    func deallocate() { storage.deallocate() }
    var capacity: Int { storage.count }
    var mean: Float { count > 0 ? Float(sum / Double(count)) : 0 }

    mutating func push(_ value: Float) {
        if count == capacity { sum -= Double(storage[next]) } else { count += 1 }
        storage[next] = value
        sum += Double(value)
        next = (next + 1) % capacity
    }

    /// The value pushed `age` pushes ago (0 = the latest); 0 when not yet there.
    func value(age: Int) -> Float {
        guard age < count else { return 0 }
        return storage[(next - 1 - age + 2 * capacity) % capacity]
    }

    /// Largest value held (0 when empty).
    var maximum: Float {
        guard count > 0 else { return 0 }
        var m = storage[0]
        for i in 1..<count { m = max(m, storage[i]) }
        return m
    }

    /// Population standard deviation of the values held (0 when empty).
    var deviation: Float {
        guard count > 0 else { return 0 }
        let m = mean
        var v: Float = 0
        for i in 0..<count {
            let d = storage[i] - m
            v += d * d
        }
        return (v / Float(count)).squareRoot()
    }

    mutating func reset() {
        storage.update(repeating: 0)
        count = 0
        next = 0
        sum = 0
    }
}

/// Computes ``DetectionCues`` from the stream of ``SpectralFrame``s: noise tracking, the
/// rolling summaries and the two-pitch analysis. Allocates in `init` only.
final class ReferenceCueTracker {
    let hopSeconds: Double
    let bandCount: Int
    let noise: ReferenceNoiseFloorTracker
    private let speechBands: Range<Int>

    // Rolling windows (1 s, 0.5 s, 3 s of hops).
    private var hopPowers: ReferenceFloatRing
    private var zeroCrossings: ReferenceFloatRing
    private var fluxes: ReferenceFloatRing
    private var persistence: ReferenceFloatRing
    private var voiced: ReferenceFloatRing
    private var stable: ReferenceFloatRing
    private var harmonicities: ReferenceFloatRing
    private var secondSalience: ReferenceFloatRing
    private var voicedHalfSecond: ReferenceFloatRing
    private var pitches: ReferenceFloatRing
    private var alternations: ReferenceFloatRing
    private var centroids: ReferenceFloatRing
    private var modulations: ReferenceFloatRing
    private var harmonicitiesHalfSecond: ReferenceFloatRing
    private var speechSNRs: ReferenceFloatRing
    private var fluxesHalfSecond: ReferenceFloatRing
    private var previousVoiced = false
    // The instantaneous values of the last `lagSlots` frames (DetectionCues.earlierValues), the
    // newest at `lagHead`; `lagCount` frames seen (up to lagSlots).
    private static let lagSlots = 9
    private let lagHistory: UnsafeMutableBufferPointer<SIMD8<Float>>
    private var lagHead = 0
    private var lagCount = 0

    // 4 Hz band-pass of the speech-band level (a biquad at the frame rate) and its power.
    private let bandPass: (b0: Float, b2: Float, a1: Float, a2: Float)
    private var x1: Float = 0, x2: Float = 0, y1: Float = 0, y2: Float = 0
    private var modulationPower: Float = 0
    private let modulationSmoothing: Float
    private var levelStarted = false

    // Spectral peak masks, one bit per bin, for the last `peakLag + 1` frames.
    private let peakWords: Int
    private let peakLag = 8
    private let peakMasks: UnsafeMutableBufferPointer<UInt64>
    private var peakFrame = 0
    private let peakBins: Range<Int>

    // Pulse: recomputed every 8 frames, on the flux averaged over pairs of frames.
    private let pulseLags: ClosedRange<Int>
    private var lastPulse: Float = 0
    private var frameCounter = 0
    private let fluxScratch: UnsafeMutableBufferPointer<Float>

    // Harmonic sieve.
    private let sieve: HarmonicSieve

    private var cues = DetectionCues()
    private let computesMusicCues: Bool
    private let computesPitchPairs: Bool

    init(analyzer: SpectralAnalyzer, music: Bool, multipleSpeakers: Bool) {
        computesMusicCues = music
        computesPitchPairs = multipleSpeakers
        let c = analyzer.configuration
        hopSeconds = Double(c.hopLength) / c.sampleRate
        bandCount = c.bandCount
        noise = ReferenceNoiseFloorTracker(bandCount: c.bandCount, frameSeconds: hopSeconds)
        let edges = analyzer.bandEdgesHz
        let first = edges.firstIndex { $0 >= 300 } ?? 0
        let last = max(first + 1, edges.lastIndex { $0 <= 4000 } ?? c.bandCount)
        speechBands = max(0, first - 1)..<min(c.bandCount, last)
        let second = max(1, Int((1 / hopSeconds).rounded()))
        let half = max(1, Int((0.5 / hopSeconds).rounded()))
        hopPowers = ReferenceFloatRing(capacity: second)
        zeroCrossings = ReferenceFloatRing(capacity: half)
        fluxes = ReferenceFloatRing(capacity: max(8, Int((3 / hopSeconds).rounded())))
        persistence = ReferenceFloatRing(capacity: second)
        voiced = ReferenceFloatRing(capacity: second)
        stable = ReferenceFloatRing(capacity: second)
        harmonicities = ReferenceFloatRing(capacity: second)
        secondSalience = ReferenceFloatRing(capacity: half)
        voicedHalfSecond = ReferenceFloatRing(capacity: half)
        pitches = ReferenceFloatRing(capacity: 8)
        alternations = ReferenceFloatRing(capacity: second)
        centroids = ReferenceFloatRing(capacity: second)
        modulations = ReferenceFloatRing(capacity: second)
        harmonicitiesHalfSecond = ReferenceFloatRing(capacity: half)
        speechSNRs = ReferenceFloatRing(capacity: half)
        fluxesHalfSecond = ReferenceFloatRing(capacity: half)
        // RBJ band-pass (constant 0 dB peak gain) at 4 Hz, Q 0.7, at the frame rate.
        let frameRate = 1 / hopSeconds
        let w0 = 2 * Double.pi * min(4, frameRate / 4) / frameRate
        let alpha = sin(w0) / (2 * 0.7)
        let a0 = 1 + alpha
        bandPass = (Float(alpha / a0), Float(-alpha / a0), Float(-2 * cos(w0) / a0), Float((1 - alpha) / a0))
        modulationSmoothing = Float(exp(-hopSeconds / 0.5))
        let binHz = c.sampleRate / Double(c.windowLength)
        let bins = c.windowLength / 2 + 1
        peakBins = max(2, Int(100 / binHz))..<min(bins - 2, Int(5000 / binHz))
        peakWords = (bins + 63) / 64
        peakMasks = .allocate(capacity: peakWords * (peakLag + 1))
        peakMasks.initialize(repeating: 0)
        pulseLags = max(1, Int((0.3 / hopSeconds).rounded()))...max(2, Int((1.0 / hopSeconds).rounded()))
        fluxScratch = .allocate(capacity: fluxes.capacity)
        fluxScratch.initialize(repeating: 0)
        sieve = HarmonicSieve(binCount: bins, binHz: Float(binHz))
        lagHistory = .allocate(capacity: Self.lagSlots)
        lagHistory.initialize(repeating: .zero)
    }

    deinit {
        hopPowers.deallocate(); zeroCrossings.deallocate(); fluxes.deallocate()
        persistence.deallocate(); voiced.deallocate(); stable.deallocate()
        harmonicities.deallocate(); secondSalience.deallocate(); voicedHalfSecond.deallocate()
        pitches.deallocate(); peakMasks.deallocate(); fluxScratch.deallocate()
        alternations.deallocate(); centroids.deallocate()
        modulations.deallocate(); harmonicitiesHalfSecond.deallocate(); speechSNRs.deallocate()
        fluxesHalfSecond.deallocate(); lagHistory.deallocate()
    }

    func reset() {
        noise.reset()
        hopPowers.reset(); zeroCrossings.reset(); fluxes.reset(); persistence.reset()
        voiced.reset(); stable.reset(); harmonicities.reset(); secondSalience.reset()
        voicedHalfSecond.reset(); pitches.reset(); alternations.reset(); centroids.reset()
        modulations.reset(); harmonicitiesHalfSecond.reset(); speechSNRs.reset(); fluxesHalfSecond.reset()
        previousVoiced = false
        x1 = 0; x2 = 0; y1 = 0; y2 = 0; modulationPower = 0; levelStarted = false
        peakMasks.update(repeating: 0); peakFrame = 0
        lastPulse = 0; frameCounter = 0
        lagHistory.update(repeating: .zero); lagHead = 0; lagCount = 0
        cues = DetectionCues()
    }

    /// Updates every cue with one frame and returns them.
    func update(_ frame: SpectralFrame) -> DetectionCues {
        let f = frame.features
        guard f.isFinite else {
            // Non-finite input: silence for the detectors, no state touched.
            var silent = cues
            silent.levelDBFS = -.infinity
            return silent
        }
        cues.levelDBFS = f.framePower > 0 ? FastLog.decibels(f.framePower) : -.infinity

        // Noise floor and SNRs.
        // Digital silence carries no information about the background: keep the estimate.
        if f.framePower > 1e-12 { noise.update(frame.bandPowers) }
        let noisePowers = noise.noisePowers
        let smoothed = noise.smoothedPowers
        var noiseTotal: Float = 0
        var snrSum: Float = 0
        var speechSNRSum: Float = 0
        var speechPower: Float = 0
        var speechSNRMax: Float = 0
        var activeBands = 0
        var bandLevels = [Float](repeating: 0, count: bandCount)
        cues.bandSNRsDB = .zero
        cues.bandShapeDB = .zero
        for b in 0..<bandCount {
            noiseTotal += noisePowers[b]
            let snr = FastLog.decibels((smoothed[b] + 1e-12) / (noisePowers[b] + 1e-12))
            let clamped = min(40, max(0, snr))
            if b < 20 { cues.bandSNRsDB[b] = clamped }
            bandLevels[b] = FastLog.decibels(frame.bandPowers[b] + 1e-12)
            snrSum += clamped
            if speechBands.contains(b) {
                speechSNRSum += clamped
                speechPower += frame.bandPowers[b]
                speechSNRMax = max(speechSNRMax, clamped)
                if clamped >= 6 { activeBands += 1 }
            }
        }
        cues.noiseFloorDBFS = noiseTotal > 0 ? FastLog.decibels(noiseTotal) : -.infinity
        let shaped = Array(bandLevels.prefix(20))
        let meanLevel = shaped.reduce(0, +) / Float(max(1, shaped.count))
        for (b, level) in shaped.enumerated() { cues.bandShapeDB[b] = min(60, max(-60, level - meanLevel)) }
        cues.snrDB = snrSum / Float(bandCount)
        cues.speechBandSNRDB = speechSNRSum / Float(max(1, speechBands.count))
        cues.speechBandSNRMaxDB = speechSNRMax
        cues.speechBandActiveFraction = Float(activeBands) / Float(max(1, speechBands.count))
        speechSNRs.push(cues.speechBandSNRDB)
        cues.speechBandSNRDeviationDB = speechSNRs.deviation

        // Syllable-rate modulation of the speech-band level.
        let level = FastLog.decibels(speechPower + 1e-10)
        if !levelStarted { x1 = level; x2 = level; levelStarted = true }
        let y = bandPass.b0 * level + bandPass.b2 * x2 - bandPass.a1 * y1 - bandPass.a2 * y2
        x2 = x1; x1 = level; y2 = y1; y1 = y
        modulationPower = modulationSmoothing * modulationPower + (1 - modulationSmoothing) * y * y
        cues.modulationDB = modulationPower.squareRoot()
        modulations.push(cues.modulationDB)
        cues.modulationMaxDB = modulations.maximum

        // Low-energy frames over the last second.
        hopPowers.push(f.hopPower)
        let halfMean = 0.5 * hopPowers.mean
        var low = 0
        for i in 0..<hopPowers.count where hopPowers.storage[i] < halfMean { low += 1 }
        cues.lowEnergyRatio = hopPowers.count > 0 && halfMean > 0 ? Float(low) / Float(hopPowers.count) : 0

        // Zero crossings over the last half second.
        zeroCrossings.push(f.zeroCrossingRate)
        let zcrMean = zeroCrossings.mean
        var zcrVariance: Float = 0
        for i in 0..<zeroCrossings.count {
            let d = zeroCrossings.storage[i] - zcrMean
            zcrVariance += d * d
        }
        cues.zeroCrossingMean = zcrMean
        cues.zeroCrossingDeviation = (zcrVariance / Float(max(1, zeroCrossings.count))).squareRoot()

        // Voicing, pitch stability, harmonicity.
        let isVoiced = f.harmonicity >= 0.5 && cues.snrDB >= 3
        voiced.push(isVoiced ? 1 : 0)
        cues.voicedRatio = voiced.mean
        harmonicities.push(f.harmonicity)
        cues.harmonicityMean = harmonicities.mean
        harmonicitiesHalfSecond.push(f.harmonicity)
        cues.harmonicityDeviation = harmonicitiesHalfSecond.deviation
        let earlier = pitches.value(age: 3)
        pitches.push(isVoiced ? f.pitchHz : 0)
        if isVoiced {
            let steady = earlier > 0 && abs(f.pitchHz - earlier) <= 0.02 * earlier
            stable.push(steady ? 1 : 0)
        }
        cues.stablePitchRatio = stable.mean
        alternations.push(isVoiced != previousVoiced ? 1 : 0)
        previousVoiced = isVoiced
        cues.voicingAlternationRate = Float(alternations.sum / (Double(alternations.capacity) * hopSeconds))
        if cues.snrDB >= 3, f.centroidHz > 0 {
            centroids.push(FastLog.log2(f.centroidHz))
            let mean = centroids.mean
            var variance: Float = 0
            for i in 0..<centroids.count {
                let d = centroids.storage[i] - mean
                variance += d * d
            }
            cues.centroidDeviation = (variance / Float(centroids.count)).squareRoot()
        }

        // Peak persistence over 128 ms.
        if computesMusicCues { cues.peakPersistence = updatePeaks(frame.powerSpectrum) }

        // Rhythm.
        fluxes.push(f.fluxDB)
        fluxesHalfSecond.push(f.fluxDB)
        cues.fluxPeakiness = fluxesHalfSecond.maximum / (fluxesHalfSecond.mean + 0.1)  // never empty: just pushed
        frameCounter += 1
        if computesMusicCues, frameCounter % 8 == 0 { lastPulse = computePulse() }
        cues.pulse = lastPulse

        // Two pitches.
        if computesPitchPairs, isVoiced || (cues.snrDB >= 6 && f.harmonicity >= 0.3) {
            let result = sieve.analyze(frame.powerSpectrum)
            cues.dominantPitchHz = result.first
            cues.secondPitchHz = result.second
            secondSalience.push(result.ratio)
            voicedHalfSecond.push(1)
        } else {
            cues.dominantPitchHz = 0
            cues.secondPitchHz = 0
            secondSalience.push(0)
            voicedHalfSecond.push(0)
        }
        let voicedCount = voicedHalfSecond.sum
        cues.secondPitchSalience = voicedCount > 0 ? Float(secondSalience.sum / voicedCount) : 0

        // This frame's instantaneous values, and theirs 4 and 8 frames ago.
        lagHead = lagHead + 1 == Self.lagSlots ? 0 : lagHead + 1
        lagHistory[lagHead] = SIMD8(cues.snrDB, cues.speechBandSNRDB, f.harmonicity, f.flatness,
                                    f.entropy, f.centroidHz, f.fluxDB, f.zeroCrossingRate)
        lagCount = min(lagCount + 1, Self.lagSlots)
        cues.earlierValues = SIMD16(lowHalf: values(before: 4), highHalf: values(before: 8))
        return cues
    }

    /// The instantaneous values `age` frames before the current one (zero before the stream).
    @inline(__always)
    private func values(before age: Int) -> SIMD8<Float> {
        guard age < lagCount else { return .zero }
        let slot = lagHead - age
        return lagHistory[slot < 0 ? slot + Self.lagSlots : slot]
    }

    private func updatePeaks(_ power: UnsafeBufferPointer<Float>) -> Float {
        let slot = peakFrame % (peakLag + 1)
        let old = (peakFrame + 1) % (peakLag + 1)     // the frame `peakLag` ago
        let mask = peakMasks.baseAddress! + slot * peakWords
        let previous = peakMasks.baseAddress! + old * peakWords
        mask.update(repeating: 0, count: peakWords)
        var peaks = 0
        var kept = 0
        for k in peakBins {
            let p = power[k]
            let threshold = 4 * max(power[k - 2], power[k + 2])      // 6 dB
            if p > threshold, p >= power[k - 1], p >= power[k + 1], p > 1e-11 {
                mask[k >> 6] |= 1 << UInt64(k & 63)
                peaks += 1
                if peakFrame >= peakLag,
                   Self.isSet(previous, k) || Self.isSet(previous, k - 1) || Self.isSet(previous, k + 1) {
                    kept += 1
                }
            }
        }
        peakFrame += 1
        persistence.push(peaks > 0 ? Float(kept) / Float(peaks) : 0)
        return persistence.mean
    }

    @inline(__always)
    private static func isSet(_ mask: UnsafeMutablePointer<UInt64>, _ bin: Int) -> Bool {
        mask[bin >> 6] & (1 << UInt64(bin & 63)) != 0
    }

    private func computePulse() -> Float {
        let n = fluxes.count / 2
        let lags = (pulseLags.lowerBound / 2)...(pulseLags.upperBound / 2)
        guard n > lags.upperBound + 4 else { return 0 }
        // Pairs of frames averaged (32 ms resolution is ample for 50–200 BPM), oldest first,
        // mean removed.
        var mean: Float = 0
        for i in 0..<n {
            let v = 0.5 * (fluxes.value(age: 2 * (n - 1 - i) + 1) + fluxes.value(age: 2 * (n - 1 - i)))
            fluxScratch[i] = v
            mean += v
        }
        mean /= Float(n)
        var energy: Float = 0
        for i in 0..<n {
            fluxScratch[i] -= mean
            energy += fluxScratch[i] * fluxScratch[i]
        }
        guard energy > 1e-6 else { return 0 }
        var best: Float = 0
        for lag in lags {
            var r: Float = 0
            for i in lag..<n { r += fluxScratch[i] * fluxScratch[i - lag] }
            // Unbiased normalisation so longer lags are not penalised.
            best = max(best, (r / Float(n - lag)) / (energy / Float(n)))
        }
        return min(1, max(0, best))
    }
}
