import DSPCore
@testable import DSPDetection
import DSPSpectral
import Foundation
import Testing
import TestSupport

/// The detector's per-call buffers (spectral slots, sieve, models) come from the calling
/// thread's workspace: a callback that runs another stream's detector on the same thread takes
/// its buffers above the lent frame's, so both streams give what they give alone.
@Suite("AcousticDetector: per-call buffers in the thread's workspace")
struct DetectorWorkspaceTests {
    /// A frame's probabilities, features and lent power spectrum, as bit patterns.
    static func record(_ d: DetectionFrame, _ s: SpectralFrame) -> [UInt32] {
        [d.speechProbability, d.musicProbability, d.multiSpeakerProbability, d.features.pitchHz,
         d.features.harmonicity, d.cues.dominantPitchHz, d.cues.secondPitchHz, d.cues.pulse].map(\.bitPattern)
            + s.powerSpectrum.map(\.bitPattern) + s.bandPowers.map(\.bitPattern)
    }

    /// A voiced-like test signal: harmonics of a wandering pitch plus noise.
    static func signal(count: Int, seed: UInt64, f0: Float) -> [Float] {
        let noise = testSignal(count: count, seed: seed)
        return (0..<count).map { i in
            let t = Float(i) / 16_000
            let f = f0 * (1 + 0.05 * sinf(2 * .pi * 0.7 * t))
            var x: Float = 0
            for h in 1...6 { x += 0.1 / Float(h) * sinf(2 * .pi * f * Float(h) * t) }
            return x + 0.02 * noise[i]
        }
    }

    static func alone(_ x: [Float], push: Int) throws -> [[UInt32]] {
        let detector = try AcousticDetector()
        var out: [[UInt32]] = []
        x.withUnsafeBufferPointer { p in
            var i = 0
            while i < p.count {
                let n = Swift.min(push, p.count - i)
                detector.process(UnsafeBufferPointer(rebasing: p[i..<(i + n)]), lendingSpectra: { out.append(record($0, $1)) })
                i += n
            }
        }
        _ = detector.flush(lendingSpectra: { out.append(record($0, $1)) })
        return out
    }

    @Test("a lending callback that runs another stream's detector leaves the lent frame and both results intact",
          arguments: FFTImplementation.available)
    func reentrantCallback(_ implementation: FFTImplementation) throws {
        try FFTImplementation.$taskOverride.withValue(implementation) {
            let x = Self.signal(count: 40_000, seed: 3, f0: 140), y = Self.signal(count: 40_000, seed: 4, f0: 210)
            let expectedX = try Self.alone(x, push: 1024), expectedY = try Self.alone(y, push: 500)
            let outer = try AcousticDetector(), inner = try AcousticDetector()
            var gotX: [[UInt32]] = [], gotY: [[UInt32]] = []
            var offset = 0
            var intact = true
            y.withUnsafeBufferPointer { py in
                func feedInner() {
                    let n = Swift.min(500, py.count - offset)
                    guard n > 0 else { return }
                    inner.process(UnsafeBufferPointer(rebasing: py[offset..<(offset + n)]), lendingSpectra: { gotY.append(Self.record($0, $1)) })
                    offset += n
                }
                x.withUnsafeBufferPointer { px in
                    var i = 0
                    while i < px.count {
                        let n = Swift.min(1024, px.count - i)
                        outer.process(UnsafeBufferPointer(rebasing: px[i..<(i + n)]), lendingSpectra: { d, s in
                            let before = Self.record(d, s)
                            feedInner()
                            intact = intact && Self.record(d, s) == before
                            gotX.append(before)
                        })
                        i += n
                    }
                }
                _ = outer.flush(lendingSpectra: { gotX.append(Self.record($0, $1)) })
                while offset < py.count { feedInner() }
                _ = inner.flush(lendingSpectra: { gotY.append(Self.record($0, $1)) })
            }
            #expect(intact)
            #expect(gotX == expectedX)
            #expect(gotY == expectedY)
        }
    }

    @Test("memory: the analyzer's slots, the sieve's and the models' buffers are workspace bytes, not owned")
    func memory() throws {
        let detector = try AcousticDetector()
        let m = detector.memoryFootprint
        #expect(m.workspaceBytes == detector.workspaceBytes)
        // The analyzer's four-frame slots and its FFT's scratch: 72.8 kB with FFTW, 81.0 kB with
        // the built-in FFT (--disable-default-traits), whose scratch is larger. The rest is the
        // detector's own per-call buffers (a batch's cue lanes, the cues', sieve's and models'):
        // 25.0 kB in both builds.
        let analyzer = detector.analyzer.memoryFootprint.workspaceBytes
        #expect(analyzer > 60_000 && analyzer < 90_000, "\(detector.analyzer.memoryFootprint)")
        #expect(m.workspaceBytes - analyzer > 15_000 && m.workspaceBytes - analyzer < 40_000, "\(m)")
        // Owned: stream state. The background estimator's histograms (two sets of 32 bands ×
        // 160 levels since it reads music's valleys, 41 KB) and its 1 s ring (8 KB) are bounded
        // apart; the rest (≈ 28 KB) must stay far under what per-call buffers would add.
        let estimator = detector.noiseLevel.memoryFootprint.ownedBytes
        #expect(estimator < 60_000, "\(detector.noiseLevel.memoryFootprint)")
        #expect(m.ownedBytes - estimator < 40_000, "\(m)")
    }
}
