import DSPCore
import DSPSpectral
import Foundation
import Testing
import TestSupport

/// Analytic checks of the per-frame features on signals whose answers are known.
@Suite struct SpectralAnalyzerTests {
    static let rate = 16_000.0

    static func sine(_ frequency: Double, amplitude: Float = 0.5, seconds: Double = 1) -> [Float] {
        (0..<Int(seconds * rate)).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / rate)) }
    }

    static func features(_ signal: [Float], chunk: Int? = nil) throws -> [SpectralFeatures] {
        let analyzer = try SpectralAnalyzer()
        var out: [SpectralFeatures] = []
        signal.withUnsafeBufferPointer { all in
            let step = chunk ?? max(1, all.count)
            var offset = 0
            while offset < all.count {
                let end = min(all.count, offset + step)
                analyzer.process(UnsafeBufferPointer(rebasing: all[offset..<end])) { out.append($0.features) }
                offset = end
            }
        }
        analyzer.flush { out.append($0.features) }
        return out
    }

    /// The window's history starts as zeros: frame k (k < N/H − 1) holds (k + 1)·H real samples
    /// at the window's end, and a steady signal's frame power reads Σw² over those samples ÷ Σw²
    /// of its full value (14.2, 3.0 and 0.17 dB low at 1024 / 256, as the type's doc says).
    @Test func primedFramesReadTheWindowsShareOfRealSamples() throws {
        let frames = try Self.features(Self.sine(1000, amplitude: 0.5))
        let n = 1024, hop = 256
        let w2 = (0..<n).map { i -> Double in let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n)); return w * w }
        let total = w2.reduce(0, +)
        var deficits: [Double] = []
        for k in 0..<3 {
            let share = w2[(n - (k + 1) * hop)...].reduce(0, +) / total
            #expect(abs(Double(frames[k].framePower) / (0.125 * share) - 1) < 0.02, "frame \(k)")
            deficits.append(-10 * log10(share))
        }
        #expect(abs(deficits[0] - 14.2) < 0.05 && abs(deficits[1] - 3.0) < 0.05 && abs(deficits[2] - 0.17) < 0.01)
        #expect(abs(Double(frames[3].framePower) / 0.125 - 1) < 0.02)
    }

    @Test func sineFeaturesMatchTheory() throws {
        let frames = try Self.features(Self.sine(1000, amplitude: 0.5))
        // Frames whose window is entirely inside the signal.
        let steady = frames.dropFirst(4).dropLast(2)
        for f in steady {
            #expect(abs(f.hopPower - 0.125) < 0.002)                       // A²/2
            #expect(abs(f.framePower - 0.125) < 0.002)
            #expect(abs(f.centroidHz - 1000) < 20)
            #expect(abs(f.zeroCrossingRate - Float(2 * 1000 / Self.rate)) < 0.005)
            #expect(f.flatness < 0.01)
            #expect(f.entropy < 0.3)
        }
    }

    @Test func pitchAndHarmonicityOfAHarmonicTone() throws {
        // 150 Hz with 10 harmonics of falling amplitude: a voice-like periodic signal.
        let signal: [Float] = (0..<16_000).map { n in
            var x = 0.0
            for h in 1...10 { x += sin(2 * Double.pi * 150 * Double(h) * Double(n) / Self.rate) / Double(h) }
            return Float(0.2 * x)
        }
        let steady = try Self.features(signal).dropFirst(4).dropLast(2)
        for f in steady {
            #expect(abs(f.pitchHz - 150) < 1.5, "pitch \(f.pitchHz)")
            #expect(f.harmonicity > 0.95)
        }
    }

    @Test func whiteNoiseIsFlatAndAperiodic() throws {
        var rng = SplitMix64(seed: 7)
        let noise = (0..<32_000).map { _ in Float(rng.unitInterval() - 0.5) }
        let steady = try Self.features(noise).dropFirst(4).dropLast(2)
        let meanFlatness = steady.map(\.flatness).reduce(0, +) / Float(steady.count)
        let meanEntropy = steady.map(\.entropy).reduce(0, +) / Float(steady.count)
        let meanHarmonicity = steady.map(\.harmonicity).reduce(0, +) / Float(steady.count)
        #expect(meanFlatness > 0.45)        // the flatness of a periodogram of white noise ≈ e^−γ ≈ 0.56
        #expect(meanEntropy > 0.9)
        #expect(meanHarmonicity < 0.3)
        #expect(abs(steady.map(\.zeroCrossingRate).reduce(0, +) / Float(steady.count) - 0.5) < 0.05)
    }

    @Test func silenceGivesZeros() throws {
        let frames = try Self.features([Float](repeating: 0, count: 4000))
        #expect(frames.count == 16)                        // 4000 / 256 = 15.6 → 16 hops
        for f in frames {
            #expect(f.hopPower == 0 && f.framePower == 0 && f.pitchHz == 0 && f.harmonicity == 0)
            #expect(f.flatness == 0 && f.entropy == 0 && f.centroidHz == 0)
        }
    }

    @Test func everySampleBelongsToOneHop() throws {
        for count in [0, 1, 255, 256, 257, 1023, 1024, 5000] {
            let frames = try Self.features([Float](repeating: 0.1, count: count))
            #expect(frames.map(\.validCount).reduce(0, +) == count, "count \(count)")
            for (i, f) in frames.enumerated() {
                #expect(f.index == Int64(i))
                #expect(f.time == Double(i * 256) / Self.rate)
            }
        }
    }

    @Test func chunkingDoesNotChangeResults() throws {
        var rng = SplitMix64(seed: 11)
        let signal = (0..<20_000).map { n in Float(0.3 * sin(Double(n) * 0.05) + 0.1 * (rng.unitInterval() - 0.5)) }
        let whole = try Self.features(signal)
        for chunk in [1, 100, 1024, 4097] {
            #expect(try Self.features(signal, chunk: chunk) == whole, "chunk \(chunk)")
        }
    }

    @Test func fastLogIsAccurate() {
        var worst: Float = 0
        var x: Float = 1e-30
        while x < 1e30 {
            worst = max(worst, abs(FastLog.log2(x) - log2(x)))
            x *= 1.013
        }
        #expect(worst < 4e-5)
        #expect(abs(FastLog.log2(0) + 126) < 1e-4)
    }

    @Test func rejectsBadConfigurations() {
        #expect(throws: ConfigurationError.self) { try SpectralAnalyzer(configuration: .init(sampleRate: 1000)) }
        #expect(throws: ConfigurationError.self) { try SpectralAnalyzer(configuration: .init(windowLength: 1023)) }
        #expect(throws: ConfigurationError.self) { try SpectralAnalyzer(configuration: .init(hopLength: 2000)) }
        #expect(throws: ConfigurationError.self) { try SpectralAnalyzer(configuration: .init(pitchRangeHz: 10...400)) }
    }
}

