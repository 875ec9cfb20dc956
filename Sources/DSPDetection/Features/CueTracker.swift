import DSPCore
import DSPSpectral
internal import CDSPKernels

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Computes ``DetectionCues`` from the stream of ``/DSPSpectral/SpectralFrame``s: noise tracking,
/// the rolling summaries and the two-pitch analysis. Allocates in `init` only.
final class CueTracker {
    let hopSeconds: Double
    let bandCount: Int
    let noise: NoiseFloorTracker
    private let speechBands: Range<Int>

    // Rolling windows (1 s, 0.5 s, 3 s of hops).
    private var hopPowers: FloatRing
    private var zeroCrossings: FloatRing
    private var fluxes: FloatRing
    private var persistence: FloatRing
    private var voiced: FloatRing
    private var stable: FloatRing
    private var harmonicities: FloatRing
    private var secondSalience: FloatRing
    private var voicedHalfSecond: FloatRing
    private var pitches: FloatRing
    private var alternations: FloatRing
    private var centroids: FloatRing
    private var modulations: FloatRing
    private var harmonicitiesHalfSecond: FloatRing
    private var speechSNRs: FloatRing
    private var fluxesHalfSecond: FloatRing
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
    /// Floats of the pulse's scratch (the flux pairs), taken from the thread's workspace.
    private let fluxScratchCount: Int
    /// The process's workspace key (``/DSPCore/ScratchWorkspace``).
    private let workspace = ScratchWorkspace()

    // Harmonic sieve.
    private let sieve: HarmonicSieve

    private var cues = DetectionCues()
    /// Whether this frame pushed a spectral centroid (whose deviation is then updated).
    private var centroidPushed = false
    /// The frame's per-band SNRs, clamped to 0…40 dB (`bandCount` rounded up to eight).
    private let bandSNRs: UnsafeMutableBufferPointer<Float>
    private let computesMusicCues: Bool
    private let computesPitchPairs: Bool

    init(analyzer: SpectralAnalyzer, music: Bool, multipleSpeakers: Bool) {
        computesMusicCues = music
        computesPitchPairs = multipleSpeakers
        let c = analyzer.configuration
        hopSeconds = Double(c.hopLength) / c.sampleRate
        bandCount = c.bandCount
        noise = NoiseFloorTracker(bandCount: c.bandCount, frameSeconds: hopSeconds)
        let edges = analyzer.bandEdgesHz
        let first = edges.firstIndex { $0 >= 300 } ?? 0
        let last = max(first + 1, edges.lastIndex { $0 <= 4000 } ?? c.bandCount)
        speechBands = max(0, first - 1)..<min(c.bandCount, last)
        let second = max(1, Int((1 / hopSeconds).rounded()))
        let half = max(1, Int((0.5 / hopSeconds).rounded()))
        hopPowers = FloatRing(capacity: second)
        zeroCrossings = FloatRing(capacity: half)
        fluxes = FloatRing(capacity: max(8, Int((3 / hopSeconds).rounded())))
        persistence = FloatRing(capacity: second)
        voiced = FloatRing(capacity: second)
        stable = FloatRing(capacity: second)
        harmonicities = FloatRing(capacity: second)
        secondSalience = FloatRing(capacity: half)
        voicedHalfSecond = FloatRing(capacity: half)
        pitches = FloatRing(capacity: 8)
        alternations = FloatRing(capacity: second)
        centroids = FloatRing(capacity: second)
        modulations = FloatRing(capacity: second)
        harmonicitiesHalfSecond = FloatRing(capacity: half)
        speechSNRs = FloatRing(capacity: half)
        fluxesHalfSecond = FloatRing(capacity: half)
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
        fluxScratchCount = fluxes.capacity
        sieve = HarmonicSieve(binCount: bins, binHz: Float(binHz))
        lagHistory = .allocate(capacity: Self.lagSlots)
        lagHistory.initialize(repeating: .zero)
        bandSNRs = .allocate(capacity: (c.bandCount + 7) / 8 * 8)
        bandSNRs.initialize(repeating: 0)
    }

    deinit {
        hopPowers.deallocate(); zeroCrossings.deallocate(); fluxes.deallocate()
        persistence.deallocate(); voiced.deallocate(); stable.deallocate()
        harmonicities.deallocate(); secondSalience.deallocate(); voicedHalfSecond.deallocate()
        pitches.deallocate(); peakMasks.deallocate()
        alternations.deallocate(); centroids.deallocate()
        modulations.deallocate(); harmonicitiesHalfSecond.deallocate(); speechSNRs.deallocate()
        fluxesHalfSecond.deallocate(); lagHistory.deallocate(); bandSNRs.deallocate()
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
        clampedSNRs(smoothed.baseAddress!, noisePowers.baseAddress!)
        for b in 0..<bandCount {
            noiseTotal += noisePowers[b]
            let clamped = bandSNRs[b]
            snrSum += clamped
            if speechBands.contains(b) {
                speechSNRSum += clamped
                speechPower += frame.bandPowers[b]
                speechSNRMax = max(speechSNRMax, clamped)
                if clamped >= 6 { activeBands += 1 }
            }
        }
        cues.noiseFloorDBFS = noiseTotal > 0 ? FastLog.decibels(noiseTotal) : -.infinity
        bandLanes(frame.bandPowers)
        cues.snrDB = snrSum / Float(bandCount)
        cues.speechBandSNRDB = speechSNRSum / Float(max(1, speechBands.count))
        cues.speechBandSNRMaxDB = speechSNRMax
        cues.speechBandActiveFraction = Float(activeBands) / Float(max(1, speechBands.count))
        speechSNRs.push(cues.speechBandSNRDB)

        // Syllable-rate modulation of the speech-band level.
        let level = FastLog.decibels(speechPower + 1e-10)
        if !levelStarted { x1 = level; x2 = level; levelStarted = true }
        let y = bandPass.b0 * level + bandPass.b2 * x2 - bandPass.a1 * y1 - bandPass.a2 * y2
        x2 = x1; x1 = level; y2 = y1; y1 = y
        modulationPower = modulationSmoothing * modulationPower + (1 - modulationSmoothing) * y * y
        cues.modulationDB = modulationPower.squareRoot()
        modulations.push(cues.modulationDB)

        // Low-energy frames over the last second (counted with the modulation maximum below).
        hopPowers.push(f.hopPower)

        // Zero crossings over the last half second (their deviation below).
        zeroCrossings.push(f.zeroCrossingRate)
        cues.zeroCrossingMean = zeroCrossings.mean

        // Voicing, pitch stability, harmonicity.
        let isVoiced = f.harmonicity >= 0.5 && cues.snrDB >= 3
        voiced.push(isVoiced ? 1 : 0)
        cues.voicedRatio = voiced.mean
        harmonicities.push(f.harmonicity)
        cues.harmonicityMean = harmonicities.mean
        harmonicitiesHalfSecond.push(f.harmonicity)
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
            centroidPushed = true  // its deviation is taken with the one-second windows
        }

        // Peak persistence over 128 ms.
        if computesMusicCues { cues.peakPersistence = updatePeaks(frame.powerSpectrum) }

        // Rhythm.
        fluxes.push(f.fluxDB)
        fluxesHalfSecond.push(f.fluxDB)
        rollingStatistics()
        centroidPushed = false
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

    /// ``DetectionCues/bandSNRsDB`` and ``DetectionCues/bandShapeDB`` of the frame: the clamped
    /// SNRs of the first ``CueLane/bandLaneCount`` bands, and their levels less the mean level.
    ///
    /// The levels eight bands at a time (`FastLog.decibels` on `SIMD8`, lane
    /// by lane the scalar operations), their sum in band order, and the clamp
    /// `min(60, max(-60, level − mean))` eight lanes at a time with Swift's `max`/`min` picks:
    /// the bits of the one-band-at-a-time loop, written as whole vectors instead of lane by lane.
    @inline(__always)
    private func bandLanes(_ powers: UnsafeBufferPointer<Float>) {
        let n = Swift.min(bandCount, CueLane.bandLaneCount)
        var snrs = SIMD32<Float>.zero
        var shape = SIMD32<Float>.zero
        let p = powers.baseAddress!, s = bandSNRs.baseAddress!
        var mean: Float = 0
        withUnsafeMutableBytes(of: &shape) { raw in
            let levels = raw.baseAddress!.assumingMemoryBound(to: Float.self)
            var b = 0
            while b + 8 <= n {
                let v = UnsafeRawPointer(p + b).loadUnaligned(as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(levels + b).storeBytes(of: FastLog.decibels(v + 1e-12), as: SIMD8<Float>.self)
                b += 8
            }
            while b < n {
                levels[b] = FastLog.decibels(p[b] + 1e-12)
                b += 1
            }
            for b in 0..<n { mean += levels[b] }
        }
        withUnsafeMutableBytes(of: &snrs) { raw in
            raw.baseAddress!.assumingMemoryBound(to: Float.self).update(from: s, count: n)
        }
        mean /= Float(Swift.max(1, n))
        // Swift.max(-60, x) is `x >= -60 ? x : -60`; Swift.min(60, y) is `y < 60 ? y : 60`. In
        // SIMD8 pieces stored into the SIMD32 (whole-SIMD32 operations compile lane by lane).
        let lanes = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
        withUnsafeMutableBytes(of: &shape) { raw in
            var b = 0
            while b < n {
                let d = raw.load(fromByteOffset: 4 * b, as: SIMD8<Float>.self) - mean
                let low = d.replacing(with: -60, where: .!(d .>= -60))
                let clamped = low.replacing(with: 60, where: .!(low .< 60))
                let kept = SIMD8<Float>.zero.replacing(with: clamped, where: lanes &+ Int32(b) .< Int32(n))
                raw.storeBytes(of: kept, toByteOffset: 4 * b, as: SIMD8<Float>.self)
                b += 8
            }
        }
        cues.bandSNRsDB = snrs
        cues.bandShapeDB = shape
    }

    /// `bandSNRs[b] = min(40, max(0, FastLog.decibels((smoothed[b] + 1e-12) / (noise[b] + 1e-12))))`,
    /// eight bands at a time (the scalar expression's operations lane by lane: the same bits,
    /// NaN clamped to 0 as `max(0, NaN)` gives), the tail one at a time.
    @inline(__always)
    private func clampedSNRs(_ smoothed: UnsafePointer<Float>, _ noise: UnsafePointer<Float>) {
        let out = bandSNRs.baseAddress!
        var b = 0
        while b + 8 <= bandCount {
            let s = UnsafeRawPointer(smoothed + b).loadUnaligned(as: SIMD8<Float>.self)
            let n = UnsafeRawPointer(noise + b).loadUnaligned(as: SIMD8<Float>.self)
            let snr = FastLog.decibels((s + 1e-12) / (n + 1e-12))
            // Swift.max(0, x) is `x >= 0 ? x : 0`; Swift.min(40, y) is `y < 40 ? y : 40`.
            let low = snr.replacing(with: 0, where: .!(snr .>= 0))
            let clamped = low.replacing(with: 40, where: .!(low .< 40))
            UnsafeMutableRawPointer(out + b).storeBytes(of: clamped, as: SIMD8<Float>.self)
            b += 8
        }
        while b < bandCount {
            out[b] = min(40, max(0, FastLog.decibels((smoothed[b] + 1e-12) / (noise[b] + 1e-12))))
            b += 1
        }
    }

    /// The rolling statistics over the windows just pushed: the speech-band SNR, zero-crossing
    /// and harmonicity deviations and the flux peakiness (half a second), the modulation maximum,
    /// the low-energy ratio and, on frames that pushed a centroid, the centroid deviation (one
    /// second).
    ///
    /// Each is the loop of ``FloatRing/deviation`` / ``FloatRing/maximum`` (or the low-energy
    /// count) with its own accumulator, in the same order, so the values are bit-identical to
    /// computing them one window at a time; the windows of one length are walked together
    /// because they always hold the same number of values (reset together, pushed once per finite
    /// frame), so the sequential sums' latencies overlap instead of adding up. (If the counts
    /// ever differed, each window is walked on its own.)
    private func rollingStatistics() {
        // Half a second: deviations of three windows and the maximum of a fourth.
        let n = speechSNRs.count
        let snrMean = speechSNRs.mean, zcrMean = cues.zeroCrossingMean, harmonicityMean = harmonicitiesHalfSecond.mean
        let fluxMean = fluxesHalfSecond.mean
        if zeroCrossings.count == n, harmonicitiesHalfSecond.count == n, fluxesHalfSecond.count == n, n > 0 {
            let snr = speechSNRs.storage.baseAddress!, zcr = zeroCrossings.storage.baseAddress!
            let harmonicity = harmonicitiesHalfSecond.storage.baseAddress!, flux = fluxesHalfSecond.storage.baseAddress!
            var snrVariance: Float = 0, zcrVariance: Float = 0, harmonicityVariance: Float = 0
            var fluxMaximum = flux[0]  // max(x, x) is x, bit for bit: starting the loop at 0 changes nothing
            for i in 0..<n {
                let a = snr[i] - snrMean
                snrVariance += a * a
                let b = zcr[i] - zcrMean
                zcrVariance += b * b
                let c = harmonicity[i] - harmonicityMean
                harmonicityVariance += c * c
                fluxMaximum = max(fluxMaximum, flux[i])
            }
            let count = Float(n)
            cues.speechBandSNRDeviationDB = (snrVariance / count).squareRoot()
            cues.zeroCrossingDeviation = (zcrVariance / count).squareRoot()
            cues.harmonicityDeviation = (harmonicityVariance / count).squareRoot()
            cues.fluxPeakiness = fluxMaximum / (fluxMean + 0.1)
        } else {
            cues.speechBandSNRDeviationDB = speechSNRs.deviation
            var zcrVariance: Float = 0
            for i in 0..<zeroCrossings.count {
                let d = zeroCrossings.storage[i] - zcrMean
                zcrVariance += d * d
            }
            cues.zeroCrossingDeviation = (zcrVariance / Float(max(1, zeroCrossings.count))).squareRoot()
            cues.harmonicityDeviation = harmonicitiesHalfSecond.deviation
            cues.fluxPeakiness = fluxesHalfSecond.maximum / (fluxMean + 0.1)  // never empty: just pushed
        }

        // One second: the modulation maximum and the low-energy count, and (when this frame
        // pushed one) the centroid deviation, whose window fills only on frames with a centroid:
        // walked together as far as both reach, then each on its own.
        let halfMean = 0.5 * hopPowers.mean
        let m = hopPowers.count
        var low = 0
        if modulations.count == m, m > 0 {
            let power = hopPowers.storage.baseAddress!, modulation = modulations.storage.baseAddress!
            let c = centroidPushed ? centroids.count : 0
            let centroid = centroids.storage.baseAddress!
            let centroidMean = centroidPushed ? centroids.mean : 0
            var modulationMaximum = modulation[0]
            var centroidVariance: Float = 0
            let both = min(m, c)
            for i in 0..<both {
                if power[i] < halfMean { low += 1 }
                modulationMaximum = max(modulationMaximum, modulation[i])
                let d = centroid[i] - centroidMean
                centroidVariance += d * d
            }
            for i in both..<m {
                if power[i] < halfMean { low += 1 }
                modulationMaximum = max(modulationMaximum, modulation[i])
            }
            for i in both..<c {
                let d = centroid[i] - centroidMean
                centroidVariance += d * d
            }
            cues.modulationMaxDB = modulationMaximum
            if centroidPushed { cues.centroidDeviation = (centroidVariance / Float(c)).squareRoot() }
        } else {
            for i in 0..<m where hopPowers.storage[i] < halfMean { low += 1 }
            cues.modulationMaxDB = modulations.maximum
            if centroidPushed {
                let mean = centroids.mean
                var variance: Float = 0
                for i in 0..<centroids.count {
                    let d = centroids.storage[i] - mean
                    variance += d * d
                }
                cues.centroidDeviation = (variance / Float(centroids.count)).squareRoot()
            }
        }
        cues.lowEnergyRatio = m > 0 && halfMean > 0 ? Float(low) / Float(m) : 0
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
        // The peak test of every bin (`cdsp_peak_mask`, dispatched C: eight bins at a time, the
        // lanes' bits or-ed into the mask), then the peaks and those with a peak within ±1 bin
        // `peakLag` frames ago (the previous mask spread by one bin each way), counted.
        var counts: (Int, Int) = (0, 0)
        withUnsafeMutablePointer(to: &counts) {
            $0.withMemoryRebound(to: Int.self, capacity: 2) {
                cdsp_peak_mask(
                    power.baseAddress!, peakBins.lowerBound, peakBins.upperBound, mask, peakWords,
                    peakFrame >= peakLag ? UnsafePointer(previous) : nil, $0)
            }
        }
        let (peaks, kept) = counts
        peakFrame += 1
        persistence.push(peaks > 0 ? Float(kept) / Float(peaks) : 0)
        return persistence.mean
    }

    private func computePulse() -> Float {
        let n = fluxes.count / 2
        let lags = (pulseLags.lowerBound / 2)...(pulseLags.upperBound / 2)
        guard n > lags.upperBound + 4 else { return 0 }
        let scope = workspace.enter(reserving: ScratchWorkspace.bytes(Float.self, fluxScratchCount))
        defer { scope.leave() }
        let fluxScratch = scope.take(Float.self, count: fluxScratchCount)
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
        // Four lags at a time, each its own sum in `i` order (their first terms, which the
        // longer lags lack, one lag at a time; then all four together): the sequential sums'
        // latencies overlap, the bits are those of one lag at a time. The maximum in lag order.
        let x = UnsafePointer(fluxScratch)
        var lag = lags.lowerBound
        while lag + 3 <= lags.upperBound {
            var r0: Float = 0, r1: Float = 0, r2: Float = 0, r3: Float = 0
            for i in lag..<(lag + 3) { r0 += x[i] * x[i - lag] }
            for i in (lag + 1)..<(lag + 3) { r1 += x[i] * x[i - lag - 1] }
            r2 += x[lag + 2] * x[0]
            for i in (lag + 3)..<n {
                let v = x[i]
                r0 += v * x[i - lag]
                r1 += v * x[i - lag - 1]
                r2 += v * x[i - lag - 2]
                r3 += v * x[i - lag - 3]
            }
            best = Self.pulseMax(best, r0, n, lag, energy)
            best = Self.pulseMax(best, r1, n, lag + 1, energy)
            best = Self.pulseMax(best, r2, n, lag + 2, energy)
            best = Self.pulseMax(best, r3, n, lag + 3, energy)
            lag += 4
        }
        while lag <= lags.upperBound {
            var r: Float = 0
            for i in lag..<n { r += x[i] * x[i - lag] }
            best = Self.pulseMax(best, r, n, lag, energy)
            lag += 1
        }
        return min(1, max(0, best))
    }

    /// `max(best, …)` with lag `lag`'s autocorrelation `r` over `n` pairs of frames, normalised
    /// unbiased (so longer lags are not penalised) by the `energy` of the `n`.
    @inline(__always)
    private static func pulseMax(_ best: Float, _ r: Float, _ n: Int, _ lag: Int, _ energy: Float) -> Float {
        max(best, (r / Float(n - lag)) / (energy / Float(n)))
    }
}

extension CueTracker: MemoryAccounting {
    /// The cue rings, peak masks, lag history and band SNRs, the harmonic sieve and the noise
    /// tracker; the pulse's flux pairs from the thread's workspace.
    var memoryFootprint: MemoryFootprint {
        let rings = [hopPowers, zeroCrossings, fluxes, persistence, voiced, stable, harmonicities, secondSalience,
                     voicedHalfSecond, pitches, alternations, centroids, modulations, harmonicitiesHalfSecond,
                     speechSNRs, fluxesHalfSecond].reduce(0) { $0 + $1.allocatedBytes }
        return MemoryFootprint(
            ownedBytes: rings + MemoryFootprint.bytes(lagHistory) + MemoryFootprint.bytes(peakMasks)
                + MemoryFootprint.bytes(bandSNRs),
            workspaceBytes: ScratchWorkspace.bytes(Float.self, fluxScratchCount))
            + sieve.memoryFootprint + noise.memoryFootprint
    }
}
