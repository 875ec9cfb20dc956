// Differential tests against libebur128 1.2.6 on real and synthetic programme: TestAudio WAV
// files (speech, noise, tones, sweep) and a synthetic music excerpt.
import DSPAnalysis
import Foundation
import Testing

struct ReferenceFile: Sendable, CustomTestStringConvertible {
    var name: String
    var testDescription: String { name }
}

@Suite("Loudness vs libebur128 on programme material")
struct LoudnessReferenceTests {
    static let files = [
        "speech_en-us_16k.wav", "speech_overlap_16k.wav", "speech_en-f3_16k.wav", "speech_clipped_16k.wav",
        "noise_white_16k.wav", "noise_brown_16k.wav", "sine_440_0dBFS_16k.wav", "square_250_-6dBFS_16k.wav",
        "sine_1k_-20dBFS_48k_f32.wav", "sweep_log_20-20k_48k_f32.wav", "dc_offset_440_48k_s24.wav",
    ].map(ReferenceFile.init)

    /// With libebur128's K-weighting (and its 1 s LRA hop), integrated loudness must agree to
    /// ±0.01 LU and LRA to ±0.05 LU (one gating-histogram bin: L95 and L10 are bin centres,
    /// each within 0.025 LU); the default design must agree exactly at 48 kHz and is
    /// reported elsewhere. Sample peaks agree exactly.
    func compare(_ name: String, _ signal: [Float], rate: Int, channels: Int) {
        let layout: LoudnessMeter.ChannelLayout = channels == 1 ? .mono : .stereo
        let reference = ReferenceResult(signal, channels: channels, sampleRate: rate)
        let compatible = measureLoudness(signal, .init(
            sampleRate: rate, channelLayout: layout, kWeighting: .bilinear, loudnessRangeHopMilliseconds: 1000))
        let ours = measureLoudness(signal, .init(sampleRate: rate, channelLayout: layout))
        let dI = compatible.summary.integratedLUFS - reference.integrated
        let dLRA = compatible.summary.loudnessRangeLU - reference.range
        print("| \(name) | \(rate) | \(String(format: "%.4f", reference.integrated)) | \(String(format: "%.4f", compatible.summary.integratedLUFS)) | \(String(format: "%+.1e", dI)) | \(String(format: "%.4f", ours.summary.integratedLUFS)) | \(String(format: "%+.4f", ours.summary.integratedLUFS - reference.integrated)) | \(String(format: "%.3f / %+.1e", reference.range, dLRA)) | \(String(format: "%.3f", ours.summary.loudnessRangeLU)) | \(String(format: "%.3f / %.3f", reference.truePeakDBTP, ours.summary.truePeakDBTP!)) |")
        #expect(abs(dI) <= 0.01, "\(name): I \(compatible.summary.integratedLUFS) vs libebur128 \(reference.integrated)")
        #expect(abs(dLRA) <= 0.05, "\(name): LRA \(compatible.summary.loudnessRangeLU) vs libebur128 \(reference.range)")
        #expect(abs(compatible.summary.samplePeakDBFS - reference.samplePeakDBFS) < 1e-6)
        if rate == 48_000 { #expect(ours.summary.integratedLUFS == compatible.summary.integratedLUFS) }
        // Both oversample 4×; ours has the flatter interpolator, so it never reads much lower.
        #expect(ours.summary.truePeakDBTP! >= ours.summary.samplePeakDBFS)
        #expect(ours.summary.truePeakDBTP! > reference.truePeakDBTP - 0.05)
    }

    @Test("TestAudio WAV files", arguments: files)
    func wavFiles(_ file: ReferenceFile) throws {
        let wav = try WAVFile(named: file.name)
        compare(file.name, wav.samples, rate: wav.sampleRate, channels: wav.channelCount)
    }

    @Test("synthetic music, stereo 44.1 kHz")
    func music() {
        compare("synthetic music (stereo)", LoudnessConformanceSignals.music(sampleRate: 44_100), rate: 44_100, channels: 2)
    }

    /// The default design at 16 kHz against libebur128 at 48 kHz (its normative filter) on the
    /// same speech upsampled 3× by a long windowed-sinc interpolator: the rate no longer
    /// changes the reading (libebur128 at 16 kHz reads ~0.1 LU high).
    @Test("speech at 16 kHz reads as the same speech at 48 kHz", arguments: ["speech_en-us_16k.wav", "speech_overlap_16k.wav"])
    func rateIndependence(_ name: String) throws {
        let wav = try WAVFile(named: name)
        let ours = measureLoudness(wav.samples, .init(sampleRate: 16_000))
        let at16 = ReferenceResult(wav.samples, channels: 1, sampleRate: 16_000)
        let at48 = ReferenceResult(upsample3(wav.samples), channels: 1, sampleRate: 48_000)
        print("rate independence \(name): ours@16k \(ours.summary.integratedLUFS), libebur128@48k(upsampled) \(at48.integrated), libebur128@16k \(at16.integrated)")
        #expect(abs(ours.summary.integratedLUFS - at48.integrated) < 0.01)
        #expect(abs(at16.integrated - at48.integrated) > 0.05)
    }

    /// 3× band-limited interpolation: Kaiser-windowed sinc (β = 10), 64 taps per phase, cut off
    /// at 0.95 of the input Nyquist (7.6 kHz).
    func upsample3(_ x: [Float]) -> [Float] {
        let taps = 64, factor = 3, length = taps * factor
        let cutoff = 0.95 / Double(2 * factor)  // cycles per output sample
        func besselI0(_ v: Double) -> Double {
            var sum = 1.0, term = 1.0, k = 1.0
            while term > 1e-16 * sum { term *= (v * v / 4) / (k * k); sum += term; k += 1 }
            return sum
        }
        var h = [Double](repeating: 0, count: length)
        for k in 0..<length {
            let m = Double(k) - Double(length - 1) / 2
            let sinc = m == 0 ? 2 * cutoff : sin(2 * .pi * cutoff * m) / (.pi * m)
            let r = 2 * Double(k) / Double(length - 1) - 1
            h[k] = Double(factor) * sinc * besselI0(10 * (1 - r * r).squareRoot()) / besselI0(10)
        }
        var out = [Float](repeating: 0, count: x.count * factor)
        x.withUnsafeBufferPointer { xp in
            h.withUnsafeBufferPointer { hp in
                out.withUnsafeMutableBufferPointer { op in
                    for n in 0..<op.count {
                        var acc = 0.0
                        // y[n] = Σ_k h[k] · z[n − k], z zero-stuffed: only k ≡ n (mod 3) hit samples.
                        var k = n % factor
                        while k < length {
                            let i = (n - k) / factor
                            if i >= 0 && i < xp.count { acc += hp[k] * Double(xp[i]) }
                            k += factor
                        }
                        op[n] = Float(acc)
                    }
                }
            }
        }
        // Undo the interpolator's delay of (length − 1)/2 output samples.
        return Array(out[((length - 1) / 2)...]) + [Float](repeating: 0, count: (length - 1) / 2)
    }
}
