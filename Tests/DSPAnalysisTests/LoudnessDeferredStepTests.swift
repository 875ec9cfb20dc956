import DSPAnalysis
import Foundation
import Testing
import TestSupport

/// Without readings, `LoudnessMeter.process(_:)` leaves each 10 ms step's momentary and
/// short-term window sums to be taken four steps at a time (`finishPendingSteps`); with
/// readings, `process(_:into:)` takes them step by step. Both must give the same values, bit for
/// bit: the current momentary and short-term loudness after every push, the maxima, the gating
/// histograms (integrated loudness, loudness range) and every summary field — also when the two
/// kinds of call alternate on one meter and when pushes end between steps.
@Suite struct LoudnessDeferredStepTests {
    /// Noise whose level jumps every 0.7 s (−60…0 dBFS), with a silent stretch: the windows'
    /// sums and maxima change all the time.
    static func signal(channels: Int, rate: Int, seconds: Double, seed: UInt64) -> [Float] {
        var g = SplitMix64(seed: seed)
        let frames = Int(seconds * Double(rate))
        var x = [Float](repeating: 0, count: frames * channels)
        var gain: Float = 0.1
        for i in 0..<frames {
            if i % (rate * 7 / 10) == 0 { gain = Float(pow(10.0, -3 * (Double(g.next() % 20)) / 10)) }
            let silent = i > frames / 2 && i < frames / 2 + rate / 3
            for c in 0..<channels { x[i * channels + c] = silent ? 0 : gain * Float(g.uniform()) }
        }
        return x
    }

    static func bits(_ v: Double) -> UInt64 { v.bitPattern }

    @Test("deferred window sums equal step-by-step ones", arguments: [
        (1, 48_000, LoudnessMeter.ChannelLayout.mono), (2, 44_100, .stereo), (1, 16_000, .mono), (6, 48_000, .surround5_1),
    ])
    func deferredEqualsImmediate(_ channels: Int, _ rate: Int, _ layout: LoudnessMeter.ChannelLayout) throws {
        let x = Self.signal(channels: channels, rate: rate, seconds: 9.3, seed: UInt64(rate + channels))
        let configuration = LoudnessMeter.Configuration(sampleRate: rate, channelLayout: layout)
        for (pattern, seed) in [("random pushes", UInt64(1)), ("one block", 2), ("alternating calls", 3)] {
            let deferred = try LoudnessMeter(configuration: configuration)
            let immediate = try LoudnessMeter(configuration: configuration)
            let room = UnsafeMutableBufferPointer<LoudnessReading>.allocate(capacity: 1 << 16)
            defer { room.deallocate() }
            let pushes = pattern == "one block" ? [x.count] : pushSizes(x.count, maxSize: 9000, seed: seed)
            var mismatches = 0
            x.withUnsafeBufferPointer { all in
                var offset = 0
                for (k, n) in pushes.enumerated() {
                    let chunk = UnsafeBufferPointer(rebasing: all[offset..<offset + n])
                    if pattern == "alternating calls" && k % 2 == 1 {
                        _ = deferred.process(chunk, into: room)  // room for every reading: consumes all
                    } else {
                        deferred.process(chunk)
                    }
                    _ = immediate.process(chunk, into: room)
                    offset += n
                    if Self.bits(deferred.momentaryLUFS) != Self.bits(immediate.momentaryLUFS)
                        || Self.bits(deferred.shortTermLUFS) != Self.bits(immediate.shortTermLUFS)
                        || Self.bits(deferred.integratedLUFS) != Self.bits(immediate.integratedLUFS)
                        || Self.bits(deferred.loudnessRangeLU) != Self.bits(immediate.loudnessRangeLU) {
                        mismatches += 1
                    }
                }
            }
            #expect(mismatches == 0, "\(pattern): \(mismatches) pushes with differing current values")
            _ = deferred.flush(into: room)
            _ = immediate.flush(into: room)
            // Every summary field, Doubles by their shortest round-trip text (distinct per bit pattern).
            #expect(String(describing: deferred.finalize()) == String(describing: immediate.finalize()), "\(pattern) summary")
        }
    }
}
