@testable import DSPCore
import Testing
import TestSupport

/// The downmixer's non-finite policy (`Downmixer.averageFinite`, the mix every analysis sees)
/// against the scalar definition: the mean of each frame's channels with NaN and ±Inf taken as
/// 0, for the vectorised mono and stereo paths, their scalar tails and the general path.
@Suite("Downmixer: non-finite samples count as 0")
struct DownmixerNonFiniteTests {
    @Test("vector paths equal the scalar definition", arguments: [1, 2, 3, 6])
    func matchesDefinition(channels: Int) {
        let frames = 8 * 5 + 3   // five vector steps and a scalar tail
        var generator = SplitMix64(seed: UInt64(channels))
        var block = (0..<frames * channels).map { _ in Float.random(in: -1...1, using: &generator) }
        let specials: [Float] = [.nan, .infinity, -.infinity, .signalingNaN]
        for (n, index) in stride(from: 1, to: block.count, by: 7).enumerated() { block[index] = specials[n % specials.count] }
        var out = [Float](repeating: -99, count: frames)
        block.withUnsafeBufferPointer { b in
            out.withUnsafeMutableBufferPointer { o in
                Downmixer.averageFinite(b.baseAddress!, channels: channels, frames: frames, into: o.baseAddress!)
            }
        }
        for i in 0..<frames {
            var sum: Float = 0
            for c in 0..<channels where block[i * channels + c].isFinite { sum += block[i * channels + c] }
            let expected = channels == 2 ? sum * 0.5 : sum * (1 / Float(channels))
            #expect(out[i].isFinite)
            #expect(abs(out[i] - expected) <= 1e-6, "frame \(i): \(out[i]) vs \(expected)")
        }
    }

    @Test("allFinite is false exactly when a NaN or ±Inf is present, at every position", arguments: [0, 1, 7, 8, 9, 16, 31, 32, 33, 43, 75])
    func allFinite(count: Int) {
        var x = (0..<count).map { Float($0) * 0.25 - 3 }
        if count > 0 { x[count - 1] = .greatestFiniteMagnitude; x[0] = -.greatestFiniteMagnitude }
        #expect(x.withUnsafeBufferPointer { Downmixer.allFinite(UnsafeBufferPointer(rebasing: $0[..<count])) })
        for special: Float in [.nan, .infinity, -.infinity, .signalingNaN] {
            for position in 0..<count {
                var y = x
                y[position] = special
                #expect(!y.withUnsafeBufferPointer { Downmixer.allFinite(UnsafeBufferPointer(rebasing: $0[..<count])) }, "\(special) at \(position) of \(count)")
            }
        }
        // Subnormals, ±0 and the largest magnitudes are finite.
        let edge: [Float] = [0, -0, .leastNonzeroMagnitude, -.leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1, 2, 3]
        #expect(edge.withUnsafeBufferPointer { Downmixer.allFinite($0) })
    }

    @Test("process applies the policy in every mode, and a partial frame too", arguments: [1, 2, 3])
    func process(channels: Int) throws {
        let input: [Float] = [0.5, .nan, -.infinity, 0.25, .infinity, 1, -1, .nan, 0.75, 0.125]
        for mode: Downmixer.Mode in [.average, .channel(channels - 1)] {
            let downmixer = try Downmixer(channelCount: channels, mode: mode)
            let out = downmixer.processAll(input)
            #expect(out.count == (input.count + channels - 1) / channels)
            let padded = input + [Float](repeating: 0, count: out.count * channels - input.count)
            for (i, y) in out.enumerated() {
                let frame = padded[i * channels..<(i + 1) * channels].map { $0.isFinite ? $0 : 0 }
                let expected: Float
                switch mode {
                case .average: expected = channels == 2 ? (frame[0] + frame[1]) * 0.5 : frame.reduce(0, +) * (1 / Float(channels))
                case .channel(let c): expected = frame[c]
                }
                #expect(y == expected, "\(mode) frame \(i)")
            }
        }
    }
}
