import DSPSpectral
import Testing

/// `FastLog`'s eight-lane functions against the scalar ones, bit for bit: the analyzer's band
/// levels and the cue tracker's band SNRs use the lanes in place of the scalar calls, and the
/// detectors' outputs must not move.
@Suite struct FastLogTests {
    /// Every 4099th bit pattern (all signs, exponents, subnormals, ±Inf, NaNs) plus edge values.
    static func samples() -> [Float] {
        var values: [Float] = [
            0, -0.0, .leastNonzeroMagnitude, .leastNormalMagnitude, .leastNormalMagnitude.nextDown, 1e-12, 1e-10,
            1, Float(1).nextUp, 2, 0.5, .greatestFiniteMagnitude, .infinity, -.infinity, .nan, -1, -.leastNormalMagnitude,
        ]
        var bits: UInt32 = 0
        while true {
            values.append(Float(bitPattern: bits))
            let (next, overflow) = bits.addingReportingOverflow(4099)
            if overflow { break }
            bits = next
        }
        while values.count % 8 != 0 { values.append(1) }
        return values
    }

    @Test("SIMD8 log2 and decibels equal the scalar functions lane by lane")
    func lanesMatchScalar() {
        let values = Self.samples()
        var differing = 0
        for start in stride(from: 0, to: values.count, by: 8) {
            var v = SIMD8<Float>()
            for l in 0..<8 { v[l] = values[start + l] }
            let log2 = FastLog.log2(v), decibels = FastLog.decibels(v)
            for l in 0..<8 {
                if log2[l].bitPattern != FastLog.log2(v[l]).bitPattern { differing += 1 }
                if decibels[l].bitPattern != FastLog.decibels(v[l]).bitPattern { differing += 1 }
            }
        }
        #expect(values.count > 1_000_000)
        #expect(differing == 0)
    }
}
