@testable import DSPAnalysis
import DSPCore
import Foundation
import Testing
import TestSupport

// The 4× true-peak kernel in C (`cdsp_truepeak4`, folded taps, Float32 with fused multiply-adds
// where the CPU has them) against the interpolator evaluated directly in Double: every phase's
// 24-tap dot product at every output, the history before the stream and the flush tail as
// zeros. Stated tolerance: 2e−6 relative (Float32 sums of 24 products, folded differently).

@Suite("True-peak 4× kernel")
struct TruePeakKernelTests {
    @Test("C kernel = the interpolator in Double within 2e−6 relative, any push sizes",
          arguments: [16_000, 44_100, 48_000], [1, 2, 5])
    func againstDouble(rate: Int, channels: Int) throws {
        var rng = SplitMix64(seed: UInt64(rate + channels))
        let frames = rate / 2 + 13
        // Quiet noise with bursts of an f_s/4 tone at 45° (samples at 0.71 of its peak, so the
        // true peak is up to 3 dB above the sample peak and only the interpolator finds it).
        var signal = [Float](repeating: 0, count: frames * channels)
        for n in 0..<frames {
            for c in 0..<channels {
                let burst = (n / 997) % 3 == 1 ? 0.8 * sin(Double.pi / 2 * Double(n) + Double.pi / 4) : 0
                signal[n * channels + c] = Float(0.05 * rng.uniform() + burst * (1 - 0.1 * Double(c)))
            }
        }
        let meter = try TruePeakMeter(sampleRate: rate, channelCount: channels)
        #expect(meter.oversamplingFactor == 4)
        var offset = 0
        signal.withUnsafeBufferPointer { p in
            for n in pushSizes(signal.count, maxSize: 3000, seed: 3) {
                meter.process(UnsafeBufferPointer(rebasing: p[offset..<offset + n]))
                offset += n
            }
        }
        let peaks = [Float](unsafeUninitializedCapacity: meter.maxFlushOutputCount) { buffer, count in
            count = meter.flush(into: buffer)
        }
        #expect(peaks.count == channels)
        let phases = TruePeakKernel.design(factor: 4).map { $0.map(Double.init) }
        let taps = TruePeakMeter.tapsPerPhase
        for c in 0..<channels {
            // x[n] of the channel, zero before the start and for the flush tail.
            let x = (0..<frames).map { Double(signal[$0 * channels + c]) } + [Double](repeating: 0, count: taps / 2)
            var reference = 0.0, samplePeak = 0.0
            for n in 0..<x.count {
                samplePeak = max(samplePeak, abs(x[n]))
                for p in 1..<4 {
                    var y = 0.0
                    for t in 0..<taps where n - taps + 1 + t >= 0 { y += phases[p][t] * x[n - taps + 1 + t] }
                    reference = max(reference, abs(y))
                }
            }
            reference = max(reference, samplePeak)
            let measured = Double(peaks[c])
            #expect(abs(measured - reference) <= 2e-6 * reference, "channel \(c): \(measured) vs \(reference)")
            #expect(reference > 1.3 * samplePeak)  // the interpolated peak, not the samples, decides
        }
    }
}
