// SpectralAnalyzer's four-frame batch path: four complete, finite frames analysed side by
// side (the latency-bound kernels after the FFT run the four frames together), bit-identical
// to the one-frame path.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
internal import CDSPKernels

extension SpectralAnalyzer {
    /// Whether the four frames whose sums `cdsp_spectral_frame_dots` just took all have a
    /// finite mean and hop energy (the one-frame path's test; a non-finite frame goes that way).
    @inline(__always)
    func allFinite(_ scratch: Scratch) -> Bool {
        let batchWindowDots = scratch.batchWindowDots, batchHopEnergies = scratch.batchHopEnergies
        var finite = true
        for f in 0..<4 {
            finite = finite && (batchWindowDots[f] / windowSum).isFinite && batchHopEnergies[f].isFinite
        }
        return finite
    }

    /// Analyses the four complete frames at `ring + frameStart + f·hop` (`f < 4`, every one
    /// finite: ``allFinite(_:)``, sums in `batchWindowDots`/`batchHopEnergies`), then hands the
    /// four to `body` together, in order. Each frame goes through exactly ``analyze(_:validCount:sums:_:_:)``'s
    /// operations in its order, in its own slot's buffers; the latency-bound kernels after the
    /// FFT (power sums, band sums, roll-off, the autocorrelation's prefix sum) run the four
    /// frames side by side (`CDSPSpectral.h`), so every feature is bit-identical to the
    /// one-frame path's. The flux, which links a frame to the one before, is taken in frame
    /// order.
    func analyzeFour(_ scratch: Scratch, _ body: (UnsafeBufferPointer<SpectralFrame>) -> Void) {
        let s = scratch
        let batchWindowDots = s.batchWindowDots, batchHopEnergies = s.batchHopEnergies
        let windowedSlots = s.windowedSlots, spectrumSlots = s.spectrumSlots, powerSlots = s.powerSlots
        let powerInputSlots = s.powerInputSlots, bandPowerSlots = s.bandPowerSlots, lagInputSlots = s.lagInputSlots
        let lagSpectrumSlots = s.lagSpectrumSlots, autocorrelationSlots = s.autocorrelationSlots
        let magnitudeSlots = s.magnitudeSlots, magnitudeInputSlots = s.magnitudeInputSlots
        let slotSums = s.slotSums, slotRolloff = s.slotRolloff, slotFeatures = s.slotFeatures
        let bandLevels = s.bandLevels, fftScratch = s.fftScratch
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
            fft.forward(input: windowedSlots[f]!, spectrum: spectrumSlots[f]!, scratch: fftScratch)
            slotFeatures[f] = features
        }

        let half = halfSine.count > 0
        if half {
            // |Y|² contiguous for the half-size twiddle below (the one-frame path leaves it in the
            // spectrum's real parts; the values are the same).
            cdsp_spectral_power4_magnitudes(spectrumSlots, bins, 2 * powerScale, powerSlots, magnitudeSlots, slotSums)
        } else {
            cdsp_spectral_power4(spectrumSlots, bins, 2 * powerScale, powerSlots, slotSums)
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
            slotFeatures[f].framePower = total.isNaN ? .nan : total  // one NaN whatever the kernel's sign
            totals[f] = total
            weighted[f] = weightedFrequency
            targets[f] = 0.85 * total
        }

        cdsp_spectral_band_sums4(powerInputSlots, bandBins.baseAddress!, bandCount, bandPowerSlots)
        for f in 0..<4 {
            var flux: Float = 0
            Self.decibels(bandPowerSlots[f]!, plus: 1e-10, count: bandCount, into: bandLevels)
            for b in 0..<bandCount {
                let level = bandLevels[b]
                if hasPrevious { flux += max(0, level - previousBandLevels[b]) }
                previousBandLevels[b] = level
            }
            slotFeatures[f].fluxDB = hasPrevious ? flux / Float(bandCount) : 0
            hasPrevious = true
        }

        cdsp_spectral_rolloff4(powerInputSlots, bins, targets, slotRolloff)
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
                autocorrelationFFT.forward(input: lagInputSlots[f]!, spectrum: lagSpectrumSlots[f]!, scratch: fftScratch)
                cdsp_spectral_real_parts(lagSpectrumSlots[f]!, lagCount, autocorrelationSlots[f]!)
            }
        }
        if half && anyVoiced {
            // All four frames twiddled (a silent frame's result is not used), the transforms and
            // lags only for the frames with power.
            cdsp_spectral_half_twiddle4(
                magnitudeInputSlots, n / 2, halfSine.baseAddress!, halfCosine.baseAddress!, lagInputSlots, f1s)
            for f in 0..<4 where totals[f] > 1e-14 {
                autocorrelationFFT.forward(input: lagInputSlots[f]!, spectrum: lagSpectrumSlots[f]!, scratch: fftScratch)
            }
            if allVoiced {
                cdsp_spectral_half_lags4(s.lagSpectrumInputSlots, f1s, lagCount, autocorrelationSlots)
            } else {
                for f in 0..<4 where totals[f] > 1e-14 {
                    cdsp_spectral_half_lags(lagSpectrumSlots[f]!, f1s[f], lagCount, autocorrelationSlots[f]!)
                }
            }
        }

        for f in 0..<4 {
            if totals[f] > 1e-14 { pickPitch(autocorrelationSlots[f]!, into: &slotFeatures[f]) }
            s.slotFrames[f] = SpectralFrame(
                features: slotFeatures[f],
                powerSpectrum: UnsafeBufferPointer(start: powerInputSlots[f]!, count: bins),
                bandPowers: UnsafeBufferPointer(start: bandPowerSlots[f]!, count: bandCount),
                windowedSamples: UnsafeBufferPointer(start: windowedSlots[f]!, count: n),
                binWidthHz: binHz)
        }
        body(UnsafeBufferPointer(start: s.slotFrames, count: 4))
    }
}
