@testable import DSPAnalysis
import Testing
import TestSupport

/// The level C kernels against the Swift reference loops (LevelKernelReference.swift), bit for bit.
@Suite("Level and loudness front-end C kernels = the Swift loops they replaced")
struct LevelKernelTests {
    /// Samples of one kind: audio-like values, or adversarial ones (specials mixed in at random
    /// places with probability `specialRate`).
    static func samples(_ count: Int, specialRate: Double, _ rng: inout SplitMix64) -> [Float] {
        let specials: [Float] = [
            .nan, -.nan, .infinity, -.infinity, -0.0, 0, 1, -1, .leastNonzeroMagnitude, -.leastNormalMagnitude,
            0.999, -0.999, 1.0000001, .greatestFiniteMagnitude, 0.5, 32767 / 32768, -32767 / 32768, 1e20, -3e19,
        ]
        return (0..<count).map { _ in
            if Double.random(in: 0..<1, using: &rng) < specialRate { return specials.randomElement(using: &rng)! }
            return Float.random(in: -1.2...1.2, using: &rng) * Float.random(in: 0...1, using: &rng)
        }
    }

    static func same(_ a: FrameLevel, _ b: FrameLevel) -> Bool {
        a.sampleCount == b.sampleCount && a.meanSquare.bitPattern == b.meanSquare.bitPattern
            && a.peak.bitPattern == b.peak.bitPattern && a.dcOffset.bitPattern == b.dcOffset.bitPattern
            && a.clippedCount == b.clippedCount && a.nonFiniteCount == b.nonFiniteCount
    }

    static let lengths = Array(0...40) + [63, 64, 65, 1023, 1024, 1025, 4095, 4096, 4097, 4103, 4104, 8191, 8192, 8200, 12_345, 65_536]

    @Test("LevelMeter.measure: every length near the lane and block boundaries, finite and with specials (beyond 1.8e19 too), two thresholds and 16-bit rails")
    func measure() throws {
        var rng = SplitMix64(seed: 0x1E7E_15)
        var checked = 0
        for length in Self.lengths {
            for rate in [0.0, 0.001, 0.05, 1.0] {
                for (threshold, fullScale) in [(Float(1.0), SampleFullScale.float), (0.999, .float), (1.0, .integer(bits: 16))] {
                    let x = Self.samples(length, specialRate: rate, &rng)
                    let meter = try LevelMeter(clipThreshold: threshold, fullScale: fullScale)
                    let ours = x.withUnsafeBufferPointer { meter.measure($0) }
                    let reference = x.withUnsafeBufferPointer {
                        referenceMeasure($0, clipHigh: threshold * fullScale.positive, clipLow: threshold * fullScale.negative)
                    }
                    #expect(Self.same(ours, reference), "length \(length), special rate \(rate), threshold \(threshold): \(ours) vs \(reference)")
                    checked += 1
                }
            }
        }
        #expect(checked == Self.lengths.count * 12)
    }

    @Test("ChannelFrontEnd.load, mono and stereo: channels, peaks and counts bit for bit", arguments: [1, 2])
    func load(channels: Int) {
        var rng = SplitMix64(seed: 0x10AD + UInt64(channels))
        let maxFrames = 4800
        let frontEnd = ChannelFrontEnd(channelCount: channels, maxChunkFrames: maxFrames, oversampling: 0)
        var expectedBad = 0
        var expectedPeaks = [Float](repeating: 0, count: channels)
        for frames in Array(0...40) + [63, 64, 65, 160, 441, 480, 1023, 4800] {
            for rate in [0.0, 0.01, 0.3] {
                let x = Self.samples(frames * channels, specialRate: rate, &rng)
                let reference = x.withUnsafeBufferPointer { referenceLoad($0.baseAddress ?? UnsafePointer(bitPattern: 8)!, frames: frames, channelCount: channels) }
                x.withUnsafeBufferPointer { frontEnd.load($0.baseAddress ?? UnsafePointer(bitPattern: 8)!, frames: frames) }
                expectedBad += reference.bad
                for c in 0..<channels {
                    let ours = Array(UnsafeBufferPointer(start: frontEnd.channel(c), count: frames))
                    #expect(ours.map(\.bitPattern) == reference.channels[c].map(\.bitPattern), "frames \(frames), channel \(c)")
                    #expect(frontEnd.chunkPeaks[c].bitPattern == reference.peaks[c].bitPattern, "frames \(frames), channel \(c) peak")
                    expectedPeaks[c] = Swift.max(expectedPeaks[c], reference.peaks[c])
                    #expect(frontEnd.samplePeaks[c].bitPattern == expectedPeaks[c].bitPattern)
                }
                #expect(frontEnd.nonFiniteCount == expectedBad, "frames \(frames)")
            }
        }
        #expect(expectedBad > 0)
    }
}
