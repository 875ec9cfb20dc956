@testable import DSPScoring
import Testing

/// `FileScorer.mixFinite` (the detection path's mix to mono) against the scalar definition:
/// the mean of each frame's channels with NaN and ±Inf taken as 0, for the vectorised mono and
/// stereo paths, their scalar tails and the general path.
@Suite("Mono mix before detection")
struct MonoMixTests {
    @Test("vector paths equal the scalar definition", arguments: [1, 2, 3, 6])
    func matchesDefinition(channels: Int) {
        let frames = 8 * 5 + 3   // five vector steps and a scalar tail
        var generator = SystemRandomNumberGenerator()
        var block = (0..<frames * channels).map { _ in Float.random(in: -1...1, using: &generator) }
        let specials: [Float] = [.nan, .infinity, -.infinity, .signalingNaN]
        for (n, index) in stride(from: 1, to: block.count, by: 7).enumerated() { block[index] = specials[n % specials.count] }
        var out = [Float](repeating: -99, count: frames)
        block.withUnsafeBufferPointer { b in
            out.withUnsafeMutableBufferPointer { o in
                FileScorer.mixFinite(b.baseAddress!, channels: channels, frames: frames, into: o.baseAddress!)
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
        #expect(FileScorer.allFinite(x, count: count))
        for special: Float in [.nan, .infinity, -.infinity, .signalingNaN] {
            for position in 0..<count {
                var y = x
                y[position] = special
                #expect(!FileScorer.allFinite(y, count: count), "\(special) at \(position) of \(count)")
            }
        }
        // Subnormals, ±0 and the largest magnitudes are finite.
        let edge: [Float] = [0, -0, .leastNonzeroMagnitude, -.leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1, 2, 3]
        #expect(FileScorer.allFinite(edge, count: edge.count))
    }
}
