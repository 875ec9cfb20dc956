import Foundation

/// Signals shared by more than one test target.
public enum TestSignals {
    /// A stream that visits the edge cases: noise, a tone, silence, NaN and ±Inf bursts,
    /// near-overflow samples, then noise again.
    public static func hostileStream() -> [Float] {
        var g = SplitMix64(seed: 5)
        var x: [Float] = []
        for _ in 0..<16_000 { x.append(Float.random(in: -0.1...0.1, using: &g)) }
        for i in 0..<16_000 { x.append(0.3 * Float(sin(2 * Double.pi * 220 * Double(i) / 16_000))) }
        x += [Float](repeating: 0, count: 8000)
        for i in 0..<4000 { x.append(i % 97 == 0 ? .nan : Float.random(in: -0.5...0.5, using: &g)) }
        for i in 0..<4000 { x.append(i % 131 == 0 ? (i % 2 == 0 ? .infinity : -.infinity) : 0.01) }
        for _ in 0..<4000 { x.append(3e38 * Float.random(in: -1...1, using: &g)) }
        for _ in 0..<4000 { x.append(Float.random(in: -1e-30...1e-30, using: &g)) }
        for _ in 0..<16_000 { x.append(Float.random(in: -0.2...0.2, using: &g)) }
        return x
    }
}
