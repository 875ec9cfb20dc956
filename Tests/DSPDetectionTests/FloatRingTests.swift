@testable import DSPDetection
import Testing
import TestSupport

/// `FloatRing`'s running mean against an independent oracle: the mean of the last N values
/// computed directly from the pushed sequence (no running sum).
@Suite("FloatRing")
struct FloatRingTests {
    static func oracle(_ values: [Float], capacity: Int) -> Double {
        let window = values.suffix(capacity)
        return window.reduce(0.0) { $0 + Double($1) } / Double(window.count)
    }

    @Test("one huge outlier leaves no residue once it has left the window", arguments: [7, 31, 64])
    func outlier(capacity: Int) {
        var ring = FloatRing(capacity: capacity)
        defer { ring.deallocate() }
        var rng = SplitMix64(seed: UInt64(capacity))
        var pushed: [Float] = []
        func push(_ v: Float) {
            ring.push(v)
            pushed.append(v)
        }
        for _ in 0..<3 * capacity { push(Float.random(in: 0.5...1.5, using: &rng)) }
        push(1e12)
        push(-3e11)
        // While the outliers are in the window, the mean follows them.
        #expect(abs(Double(ring.mean) - Self.oracle(pushed, capacity: capacity)) <= 1e-6 * 1e12)
        // Two windows later (the outliers left, and the ring has wrapped since), the mean of
        // small values is exact to Float rounding, as if the outliers had never been.
        for _ in 0..<2 * capacity { push(Float.random(in: 0.5...1.5, using: &rng)) }
        let expected = Self.oracle(pushed, capacity: capacity)
        #expect(abs(Double(ring.mean) - expected) <= 1e-6 * expected, "mean \(ring.mean), oracle \(expected)")
        // And it stays exact for a long stream of them.
        for _ in 0..<100_000 { push(Float.random(in: 0.5...1.5, using: &rng)) }
        let later = Self.oracle(pushed, capacity: capacity)
        #expect(abs(Double(ring.mean) - later) <= 1e-6 * later)
    }
}
