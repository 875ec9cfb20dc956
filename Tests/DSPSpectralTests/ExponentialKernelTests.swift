import CDSPKernels
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// `cdsp_exp` (Exponential.c) promises glibc's `expf` as its FMA compilation computes it. Held
// here, at whatever level the process runs (CI pins each level: .ci/run), to an independent
// Swift transcription of that algorithm (glibc's sysdeps/ieee754/flt-32/e_expf.c and
// e_exp2f_data.c, with `addingProduct` — a correctly rounded fused multiply-add — where
// `__expf_fma` fuses), bit for bit, and, where glibc's `expf` is that compilation (x86-64 with
// AVX2 and FMA: dispatch level v3 and above), to `expf` itself.

/// glibc's `__exp2f_data.tab`: `2^(i/32)`'s bits minus `i << 47`.
private let table: [UInt64] = [
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
    0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
    0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
    0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
    0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
    0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540,
]

/// glibc's fast path for |x| < 88, its products fused as `__expf_fma` fuses them.
private func referenceExp(_ x: Float) -> Float {
    let invLn2N = 0x1.71547652b82fep+5, shift = 0x1.8p+52
    let c0 = 0x1.c6af84b912394p-20, c1 = 0x1.ebfce50fac4f3p-13, c2 = 0x1.62e42ff0c52d6p-6
    let xd = Double(x)
    let shifted = shift.addingProduct(invLn2N, xd)
    let ki = shifted.bitPattern
    let kd = shifted - shift
    let r = (-kd).addingProduct(invLn2N, xd)
    let s = Double(bitPattern: table[Int(ki & 31)] &+ (ki << 47))
    let z = c1.addingProduct(c0, r)
    let r2 = r * r
    var y = (1.0).addingProduct(c2, r)
    y = y.addingProduct(z, r2)
    return Float(y * s)
}

/// Whether `x` leaves glibc's fast path (|x| ≥ 88, ±∞, NaN): the kernel calls `expf` there.
private func isSpecial(_ x: Float) -> Bool { (x.bitPattern >> 20) & 0x7ff >= 0x42b }

private func same(_ a: Float, _ b: Float) -> Bool { a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN) }

@Suite("cdsp_exp: glibc's expf, eight lanes at a time")
struct ExponentialKernelTests {
    /// Every 1021st float of each sign below 90 in magnitude, the edges of the fast path, ±0,
    /// denormals, ±∞ and NaN; in one call of every count 0…19 (tails) and one long call.
    static let inputs: [Float] = {
        var x: [Float] = []
        for sign: UInt32 in [0, 0x8000_0000] {
            var bits: UInt32 = 0
            while bits < 0x42B4_0000 { x.append(Float(bitPattern: bits | sign)); bits += 1021 }
        }
        let edges: [Float] = [
            88, -88, Float(88).nextDown, -Float(88).nextDown, 89, -103, -104, -150, 0, -0.0,
            .leastNonzeroMagnitude, .infinity, -.infinity, .nan, 9, -9, 18, -18, 30, -30,
        ]
        x += edges
        return x
    }()

    @Test("Bit for bit the algorithm's transcription (and expf where glibc runs it), tails included")
    func matchesReference() {
        let x = Self.inputs
        var y = [Float](repeating: .nan, count: x.count)
        x.withUnsafeBufferPointer { xs in
            y.withUnsafeMutableBufferPointer { ys in cdsp_exp(xs.baseAddress!, ys.baseAddress!, x.count) }
        }
        #if canImport(Glibc)
        let glibcFMA = Int(cdsp_dispatch_level()) >= Int(CDSP_LEVEL_V3)
        #else
        let glibcFMA = false
        #endif
        var misses = 0, glibcMisses = 0
        for (xi, yi) in zip(x, y) {
            let expected = isSpecial(xi) ? expf(xi) : referenceExp(xi)
            if !same(yi, expected) {
                if misses < 5 { Issue.record("cdsp_exp(\(xi)) = \(yi), reference \(expected)") }
                misses += 1
            }
            if glibcFMA && !same(yi, expf(xi)) { glibcMisses += 1 }
        }
        #expect(misses == 0, "\(misses) of \(x.count) differ from the reference")
        #expect(glibcMisses == 0, "\(glibcMisses) of \(x.count) differ from glibc's expf")
        // Tails: every count below 20, in place.
        for count in 0..<20 {
            var z = Array(x[1000..<(1000 + count)])
            z.withUnsafeMutableBufferPointer { zs in
                if let base = zs.baseAddress { cdsp_exp(base, base, count) }
            }
            for i in 0..<count { #expect(same(z[i], y[1000 + i]), "count \(count), lane \(i)") }
        }
    }
}
