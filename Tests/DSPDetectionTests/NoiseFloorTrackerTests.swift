import DSPCore
import DSPDetection
import Testing
import TestSupport

/// NoiseFloorTracker's streaming contract (band-power frames in, noise-floor frames out) and its
/// configuration's validation.
@Suite("NoiseFloorTracker")
struct NoiseFloorTrackerTests {
    /// Band powers, frame after frame: a fluctuating floor with bursts.
    static func powers(frames: Int, bands: Int, seed: UInt64) -> [Float] {
        testSignal(count: frames * bands, seed: seed).enumerated().map { i, x in
            let burst: Float = (i / bands / 40) % 3 == 1 ? 4 : 0
            return 1e-3 + x * x + burst * Float(i % bands + 1) / Float(bands)
        }
    }

    @Test("keeps the streaming contract: one floor frame per whole input frame", arguments: [1, 8, 24])
    func contract(bands: Int) throws {
        let input = Self.powers(frames: 700, bands: bands, seed: 31) + (bands > 1 ? [0.5] : [])  // a partial frame
        let failures = try checkStreamingUnit(
            { try NoiseFloorTracker(configuration: .init(bandCount: bands, frameSeconds: 0.016, windowSeconds: 0.5)) },
            input: input, expectedCount: 700 * bands, same: sameBits)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("process(_:into:) gives what update(_:) frame by frame gives; flush counts a discarded partial frame")
    func sameAsUpdate() throws {
        let bands = 16
        let input = Self.powers(frames: 300, bands: bands, seed: 32)
        let stepped = NoiseFloorTracker(bandCount: bands, frameSeconds: 0.016)
        var expected: [Float] = []
        input.withUnsafeBufferPointer { p in
            for f in 0..<300 {
                stepped.update(UnsafeBufferPointer(rebasing: p[f * bands..<(f + 1) * bands]))
                expected += stepped.noisePowers
            }
        }
        let tracker = NoiseFloorTracker(bandCount: bands, frameSeconds: 0.016)
        #expect(tracker.processAll(input + [1, 2, 3]).map(\.bitPattern) == expected.map(\.bitPattern))
        #expect(tracker.discardedSampleCount == 3)
        // flush left the tracker as after reset(): the same stream gives the same floors.
        #expect(tracker.processAll(input).map(\.bitPattern) == expected.map(\.bitPattern))
        tracker.reset()
        #expect(tracker.discardedSampleCount == 0)
    }

    @Test("refuses each out-of-range field")
    func configuration() throws {
        typealias C = NoiseFloorTracker.Configuration
        let refused: [(C, parameter: String, value: String)] = [
            (C(bandCount: 0, frameSeconds: 0.016), "bandCount", "0"),
            (C(bandCount: 4097, frameSeconds: 0.016), "bandCount", "4097"),
            (C(bandCount: 8, frameSeconds: 0), "frameSeconds", "0.0"),
            (C(bandCount: 8, frameSeconds: 11), "frameSeconds", "11.0"),
            (C(bandCount: 8, frameSeconds: .nan), "frameSeconds", "nan"),
            (C(bandCount: 8, frameSeconds: 0.016, windowSeconds: 0.01), "windowSeconds", "0.01"),
            (C(bandCount: 8, frameSeconds: 0.016, windowSeconds: 601), "windowSeconds", "601.0"),
            (C(bandCount: 8, frameSeconds: 0.016, windowSeconds: .infinity), "windowSeconds", "inf"),
            (C(bandCount: 8, frameSeconds: 0.016, smoothing: -0.1), "smoothing", "-0.1"),
            (C(bandCount: 8, frameSeconds: 0.016, smoothing: 1), "smoothing", "1.0"),
            (C(bandCount: 8, frameSeconds: 0.016, smoothing: .nan), "smoothing", "nan"),
            (C(bandCount: 8, frameSeconds: 0.016, bias: 0.9), "bias", "0.9"),
            (C(bandCount: 8, frameSeconds: 0.016, bias: 11), "bias", "11.0"),
        ]
        let failures = checkRefusals(refused) { try NoiseFloorTracker(configuration: $0) }
        #expect(failures.isEmpty, "\(failures)")
        let defaults = C(bandCount: 24, frameSeconds: 0.016)
        #expect(defaults.windowSeconds == 1.5 && defaults.smoothing == 0.7 && defaults.bias == 1.6)
        #expect(NoiseFloorTracker(bandCount: 24, frameSeconds: 0.016).configuration == defaults)
    }
}
