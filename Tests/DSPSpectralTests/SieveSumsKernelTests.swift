import CDSPKernels
import Testing
import TestSupport

// `cdsp_sieve_sums` (CDSPDetection.h), the harmonic sieve's score sums, against its documented
// definition written out one lane and one term at a time in Swift: the same bits, with windows
// (the register look-ups at level avx512) and without (loads at every level), at the level this
// process runs (CI runs this suite at every level: .ci/run). `HarmonicSieveTests` checks the
// sieve built on it against the sieve's own definition.

@Suite struct SieveSumsKernelTests {
    /// One grid of inputs: `groups` groups of 16 lanes, `stride` rows each.
    struct Grid {
        var near: [Float]
        var peaks: [Float]
        var harmonics: [Int32]
        var halves: [Int32]
        var counts: [UInt8]
        var bases: [Int32]
        var narrow: [UInt8]
        let groups: Int
        let stride: Int
    }

    /// A grid like the sieve's: each row's lanes with a term there draw their bins from a 64-bin
    /// window (a window of `width` bins, so up to 64; rows whose bins span under 32 are marked
    /// narrow). The entries past a lane's count point at the table's last bin, which holds NaN:
    /// the kernel must never read them. The tables hold noise-like levels, and (when `edges`)
    /// NaN, ±∞, −0 and a denormal.
    static func grid(seed: UInt64, groups: Int, stride: Int, tableCount: Int, width: Int, edges: Bool) -> Grid {
        var g = SplitMix64(seed: seed)
        let unread = tableCount - 1
        var near = (0..<tableCount).map { _ in Float(g.uniform()) * 30 }
        var peaks = (0..<tableCount).map { _ in Float(g.uniform()) * 20 }
        if edges {
            near[5] = .nan; peaks[9] = .infinity; near[13] = -.infinity
            near[21] = -0.0; peaks[22] = -0.0; near[30] = Float(bitPattern: 0x0000_0100)
        }
        near[unread] = .nan
        peaks[unread] = .nan
        var harmonics = [Int32](repeating: Int32(unread), count: groups * stride * 16)
        var halves = harmonics
        var counts = [UInt8](repeating: 0, count: groups * 16)
        var bases = [Int32](repeating: 0, count: 2 * groups * stride)
        var narrow = [UInt8](repeating: 0, count: groups * stride)
        let top = tableCount - 1 - 64   // windows stay within the table, below the unread bin
        for group in 0..<groups {
            let depth = 1 + Int(g.next() % UInt64(stride))
            // Lane l has terms in rows 0 ..< count(l), at least one lane the whole depth.
            let terms = (0..<16).map { l in l == Int(g.next() % 16) ? depth : Int(g.next() % UInt64(depth + 1)) }
            let full = terms.contains(depth) ? terms : [depth] + terms.dropFirst()
            for l in 0..<16 { counts[group * 16 + l] = UInt8(full[l]) }
            for i in 0..<depth {
                let row = group * stride + i
                let base = Int32(g.next() % UInt64(top)), halfBase = Int32(g.next() % UInt64(top))
                bases[2 * row] = base
                bases[2 * row + 1] = halfBase
                var high: Int32 = 0, highHalf: Int32 = 0
                for l in 0..<16 where i < full[l] {
                    harmonics[row * 16 + l] = base + Int32(g.next() % UInt64(width))
                    halves[row * 16 + l] = halfBase + Int32(g.next() % UInt64(width))
                    high = max(high, harmonics[row * 16 + l] - base)
                    highHalf = max(highHalf, halves[row * 16 + l] - halfBase)
                }
                narrow[row] = (high < 32 ? 1 : 0) | (highHalf < 32 ? 2 : 0)
            }
        }
        return Grid(
            near: near, peaks: peaks, harmonics: harmonics, halves: halves, counts: counts, bases: bases,
            narrow: narrow, groups: groups, stride: stride)
    }

    /// The definition: per lane, `on` and `off` from +0, one term after another.
    static func reference(_ x: Grid) -> [Float] {
        var sums = [Float](repeating: 0, count: x.groups * 16)
        for g in 0..<x.groups {
            for l in 0..<16 {
                var on: Float = 0, off: Float = 0
                for i in 0..<Int(x.counts[g * 16 + l]) {
                    let e = (g * x.stride + i) * 16 + l
                    on += x.near[Int(x.harmonics[e])]
                    off += x.peaks[Int(x.halves[e])]
                }
                sums[g * 16 + l] = on - off
            }
        }
        return sums
    }

    /// The kernel's sums, with the windows or without.
    static func kernel(_ x: Grid, windows: Bool) -> [Float] {
        var sums = [Float](repeating: .nan, count: x.groups * 16)
        x.near.withUnsafeBufferPointer { near in
            x.peaks.withUnsafeBufferPointer { peaks in
                x.bases.withUnsafeBufferPointer { bases in
                    x.narrow.withUnsafeBufferPointer { narrow in
                        cdsp_sieve_sums(
                            near.baseAddress!, peaks.baseAddress!, x.harmonics, x.halves, x.counts, x.groups, x.stride,
                            windows ? bases.baseAddress! : nil, windows ? narrow.baseAddress! : nil, &sums)
                    }
                }
            }
        }
        return sums
    }

    static func bits(_ xs: [Float]) -> [UInt32] { xs.map { $0.isNaN ? 0x7FC0_0000 : $0.bitPattern } }

    @Test("The sums equal the lane-by-lane definition bit for bit, with windows and without", arguments: [
        (1, 4, 15, 300, 64, false), (2, 4, 15, 300, 64, true), (3, 1, 1, 80, 1, false), (4, 7, 9, 513, 40, true),
        (5, 2, 15, 194, 64, true), (6, 3, 12, 200, 32, true), (7, 4, 15, 513, 20, false),
    ])
    func matchesDefinition(seed: Int, groups: Int, stride: Int, tableCount: Int, width: Int, edges: Bool) {
        let x = Self.grid(seed: UInt64(seed), groups: groups, stride: stride, tableCount: tableCount, width: width, edges: edges)
        let expected = Self.bits(Self.reference(x))
        #expect(Self.bits(Self.kernel(x, windows: true)) == expected)
        #expect(Self.bits(Self.kernel(x, windows: false)) == expected)
        // Not vacuous: the sums are not all zero, and with windows wider than a bin not all alike.
        #expect(expected.contains { $0 != 0 })
        if width > 1 { #expect(Set(expected).count > groups * 4) }
    }
}
