import CDSPKernels
import Foundation
import Testing
import TestSupport

// The C kernels' dispatch level (CDSPDispatch.h) and their outputs across levels.
//
// `CDSP_DISPATCH_LEVEL=sse2|fma|v3|avx512` pins the level at start-up (capped by the CPU), so a
// test process runs one level; CI runs the kernel tests once per level the machine has
// (.ci/run). Across processes, levels are compared through committed hashes: every dispatched
// kernel runs on fixed pseudo-random inputs (edge values included) and its outputs' bits go
// into one FNV-1a hash per kernel, checked against `Goldens/kernel-hashes.csv`.
//
// - Kernels compiled with contraction off (FFT, spectral, metering, models, conversion) or
//   without a multiply-add (window sums, the even/odd split) must give the same bits at every
//   level: one hash, `all`.
// - Kernels compiled with contraction on (the resampler's polyphase and half-band kernels,
//   K-weighting: `acc + c·x` is fused where the copy has FMA) give one hash for the SSE2 copy
//   (`sse2`) and one for every copy with FMA (`fma v3 avx512`: fused the same way at every
//   width). Their accuracy is held by their own tests against Double references within
//   stated tolerances (ResamplerTests, StaggeredKernelTests, KWeightingBlockTests), which CI
//   runs at every level too.
//
// NaN results hash as one canonical NaN: the payload and sign of a NaN depend on operand order
// in the instruction, which the standard leaves free. Where every level agrees on everything
// else the hash is the same; `RECORD_GOLDEN=1` rewrites this level's rows (run it once at
// `CDSP_DISPATCH_LEVEL=sse2` and once at a level with FMA for the contracted kernels) and
// still fails.

/// The dispatch levels by number, as `CDSP_DISPATCH_LEVEL` spells them.
private let levelNames = ["sse2", "fma", "v3", "avx512"]

@Suite("C kernel dispatch")
struct KernelDispatchTests {
    @Test("The level is the best the CPU supports, capped by CDSP_DISPATCH_LEVEL")
    func level() {
        let level = Int(cdsp_dispatch_level())
        let supported = Int(cdsp_dispatch_supported_level())
        #if arch(x86_64) && os(Linux)
        #expect(supported >= Int(CDSP_LEVEL_SSE2), "x86-64 Linux builds dispatch")
        #endif
        #expect(String(cString: cdsp_dispatch_level_name(Int32(level))) == (level >= 0 ? levelNames[level] : "none"))
        let requested = ProcessInfo.processInfo.environment["CDSP_DISPATCH_LEVEL"] ?? ""
        if requested.isEmpty {
            #expect(level == supported)
        } else if let cap = levelNames.firstIndex(of: requested) {
            #expect(level == min(cap, supported), "CDSP_DISPATCH_LEVEL=\(requested), CPU \(supported)")
        } else {
            #expect(level == supported, "an unknown value is ignored")
            Issue.record("CDSP_DISPATCH_LEVEL=\(requested) is not a level (sse2, fma, v3, avx512): the kernels ignore it")
        }
    }

    @Test("The model kernel's batch gives every vector the bits one call gives it, at this level")
    func modelRowsBatchIsSingleCalls() {
        #expect(KernelHashes.modelRowsBatch() == KernelHashes.modelRowsBatch(single: true))
    }

    @Test("Every kernel's outputs match the committed hash for its arithmetic at this level")
    func hashes() throws {
        let level = Int(cdsp_dispatch_level())
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Goldens/kernel-hashes.csv")
        let computed = KernelHashes.all()
        let fused = level >= Int(CDSP_LEVEL_FMA)
        if ProcessInfo.processInfo.environment["RECORD_GOLDEN"] == "1" {
            guard level >= 0 else {
                Issue.record("RECORD_GOLDEN=1 needs a build with dispatch (x86-64 Linux)")
                return
            }
            var rows = (try? GoldenRows(url: url))?.rows ?? [:]
            for (name, contracted, hash) in computed {
                rows[GoldenRows.key(name, levels: contracted ? (fused ? "fma v3 avx512" : "sse2") : "all")] = hash
            }
            try GoldenRows(rows: rows).write(to: url)
            Issue.record("RECORD_GOLDEN=1: rewrote \(url.lastPathComponent) at level \(levelNames[level]); review the diff, commit it with the reason, rerun without RECORD_GOLDEN")
            return
        }
        let golden = try GoldenRows(url: url)
        for (name, contracted, hash) in computed {
            if contracted && level < 0 { continue }  // no dispatch: fused or not is the build's choice
            let levels = contracted ? (fused ? "fma v3 avx512" : "sse2") : "all"
            let expected = golden.rows[GoldenRows.key(name, levels: levels)]
            #expect(expected != nil, "\(name) (\(levels)): no committed hash")
            if let expected {
                #expect(hash == expected, "\(name) at \(level >= 0 ? levelNames[level] : "none"): \(hash), committed (\(levels)) \(expected)")
            }
        }
    }
}

/// `Goldens/kernel-hashes.csv`: `kernel,levels,fnv1a64`, one row per kernel and arithmetic.
private struct GoldenRows {
    var rows: [String: String]

    static func key(_ kernel: String, levels: String) -> String { kernel + "," + levels }

    init(rows: [String: String]) { self.rows = rows }

    init(url: URL) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        var rows: [String: String] = [:]
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: ",")
            guard fields.count == 3 else { continue }
            rows[Self.key(String(fields[0]), levels: String(fields[1]))] = String(fields[2])
        }
        self.rows = rows
    }

    func write(to url: URL) throws {
        let body = rows.keys.sorted().map { $0 + "," + rows[$0]! + "\n" }.joined()
        try ("kernel,levels,fnv1a64\n" + body).write(to: url, atomically: true, encoding: .utf8)
    }
}

/// FNV-1a (64 bits) over values' bit patterns, little-endian; every NaN as 0x7FC00000 (Float)
/// or 0x7FF8000000000000 (Double).
private struct FNV1a {
    private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    mutating func add(bits: UInt64, bytes: Int) {
        for i in 0..<bytes {
            value = (value ^ ((bits >> (8 * UInt64(i))) & 0xFF)) &* 0x0000_0100_0000_01B3
        }
    }

    mutating func add(_ x: Float) { add(bits: UInt64(x.isNaN ? 0x7FC0_0000 : x.bitPattern), bytes: 4) }
    mutating func add(_ x: Double) { add(bits: x.isNaN ? 0x7FF8_0000_0000_0000 : x.bitPattern, bytes: 8) }
    mutating func add(_ x: Int) { add(bits: UInt64(bitPattern: Int64(x)), bytes: 8) }
    mutating func add(_ x: UnsafeMutablePointer<Float>, _ count: Int) { for i in 0..<count { add(x[i]) } }
    mutating func add(_ xs: [Float]) { for x in xs { add(x) } }

    var hex: String { "0x" + String(value, radix: 16).leftPadded(to: 16) }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

/// The buffers of one hash's inputs and outputs: `count` values each (plus 64 zeros after them,
/// for kernels that read whole vectors past their inputs' ends), freed together when the arena
/// goes. Each function keeps its arena alive to its end (`withExtendedLifetime` in a `defer`):
/// a pointer into an arena says nothing to ARC, which may otherwise free it after its last use,
/// before the C call that reads it (as release builds do).
fileprivate final class Arena {
    private var frees: [() -> Void] = []

    func values<T>(count: Int, zero: T, _ value: (Int) -> T) -> UnsafeMutablePointer<T> {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: count + 64)
        for i in 0..<(count + 64) { (pointer + i).initialize(to: i < count ? value(i) : zero) }
        frees.append { pointer.deinitialize(count: count + 64); pointer.deallocate() }
        return pointer
    }

    func floats(_ count: Int, _ value: (Int) -> Float) -> UnsafeMutablePointer<Float> { values(count: count, zero: 0, value) }
    func doubles(_ count: Int, _ value: (Int) -> Double) -> UnsafeMutablePointer<Double> { values(count: count, zero: 0, value) }

    deinit { for free in frees { free() } }
}

/// The kernels' outputs on fixed inputs, one hash per kernel.
private enum KernelHashes {
    /// Uniform in −1 … 1, with some edge values (±0, a denormal, near-overflow products
    /// excluded) at fixed places when `edges`.
    static func noise(_ count: Int, seed: UInt64, edges: Bool = false) -> [Float] {
        var g = SplitMix64(seed: seed)
        var x = (0..<count).map { _ in Float(g.uniform()) }
        if edges && count > 40 {
            x[3] = -0.0
            x[11] = 0
            x[17] = Float(bitPattern: 0x0001_0000)  // a denormal
            x[23] = -1
            x[31] = 1
        }
        return x
    }

    /// Non-negative values (power-like).
    static func positive(_ count: Int, seed: UInt64) -> [Float] { noise(count, seed: seed).map { $0 * $0 * 4 } }

    /// (kernel, contracted, hash) for every dispatched kernel.
    static func all() -> [(String, Bool, String)] {
        let transforms = fft()
        return [
            ("cdsp_widen_pcm16", false, widen()),
            ("cdsp_fft_forward", false, transforms.forward), ("cdsp_fft_inverse", false, transforms.inverse),
            ("cdsp_fftw_real_split", false, fftwRealSplit()),
            ("cdsp_model_rows", false, modelRows()), ("cdsp_model_rows_batch", false, modelRowsBatch()),
            ("cdsp_exp", false, exponential()),
            ("cdsp_loudness_window_sums4", false, windowSums()),
            ("cdsp_truepeak4", false, truePeak()),
            ("cdsp_level_measure", false, levelMeasure()),
            ("cdsp_level_load_mono", false, loadMono()), ("cdsp_level_load_stereo", false, loadStereo()),
            ("cdsp_spectral_dot", false, dot()), ("cdsp_spectral_window", false, window()),
            ("cdsp_spectral_power", false, power()), ("cdsp_spectral_log_sums", false, logSums()),
            ("cdsp_spectral_pitch_pick", false, pitchPick()), ("cdsp_spectral_mirror", false, mirror()),
            ("cdsp_spectral_real_parts", false, realParts()), ("cdsp_spectral_half_twiddle", false, halfTwiddle()),
            ("cdsp_spectral_half_lags", false, halfLags()), ("cdsp_spectral_band_sums", false, bandSums()),
            ("cdsp_peak_mask", false, peakMask()), ("cdsp_sieve_sums", false, sieveSums()), ("cdsp_spectral_sign_changes", false, signChanges()), ("cdsp_spectral_frame_dots", false, frameDots()),
            ("cdsp_spectral_copy", false, copy()), ("cdsp_spectral_power4", false, power4(magnitudes: false)),
            ("cdsp_spectral_power4_magnitudes", false, power4(magnitudes: true)),
            ("cdsp_spectral_half_twiddle4", false, halfTwiddle4()), ("cdsp_spectral_band_sums4", false, bandSums4()),
            ("cdsp_spectral_rolloff4", false, rolloff4()), ("cdsp_spectral_half_lags4", false, halfLags4()),
            ("cdsp_split_even_odd", false, splitEvenOdd()),
            ("cdsp_polyphase", true, polyphase()), ("cdsp_polyphase_small", true, polyphaseSmall()),
            ("cdsp_polyphase_groups", true, polyphaseGroups()), ("cdsp_halfband", true, halfband()),
            ("cdsp_kweighting_run+close_step", true, kWeighting()),
        ]
    }

    // MARK: Conversion, FFT, models, loudness windows, metering

    static func widen() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var g = SplitMix64(seed: 1)
        let count = 1037
        let input = arena.values(count: count, zero: Int16(0)) { i in
            i == 0 ? .min : i == 1 ? .max : i == 2 ? -1 : Int16(truncatingIfNeeded: g.next())
        }
        let out = arena.floats(count) { _ in .nan }
        cdsp_widen_pcm16(input, out, count)
        var h = FNV1a()
        h.add(out, count)
        return h.hex
    }

    /// Sizes on the vector route (M a multiple of 8, ≥ 64), the scalar route and Bluestein's.
    static func fft() -> (forward: String, inverse: String) {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var f = FNV1a(), b = FNV1a()
        for size in [2, 30, 128, 202, 400, 512, 1000, 1024, 4096, 4802] {
            var plan = cdsp_fft_plan()
            guard cdsp_fft_plan_init(&plan, size) == 0 else { continue }
            let table = arena.floats(plan.table_count) { _ in 0 }
            _ = cdsp_fft_plan_tables(&plan, table)
            let scratch = arena.floats(plan.scratch_count) { _ in 0 }
            let x = noise(size, seed: UInt64(size), edges: true)
            let input = arena.floats(size) { x[$0] }
            let spectrum = arena.floats(size + 2) { _ in .nan }
            cdsp_fft_forward(&plan, table, input, spectrum, scratch)
            f.add(spectrum, size + 2)
            let output = arena.floats(size) { _ in .nan }
            cdsp_fft_inverse(&plan, table, spectrum, output, scratch)
            b.add(output, size)
        }
        return (f.hex, b.hex)
    }

    /// Half sizes M below one vector of pairs, with a scalar tail, and whole vectors.
    static func fftwRealSplit() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        for m in [2, 6, 16, 38, 64, 256, 512] {
            let z = noise(2 * (m + 1), seed: UInt64(m), edges: true)
            let spectrum = arena.floats(2 * (m + 1)) { z[$0] }
            let cosine = arena.floats(m / 2) { Float(cos(2 * Double.pi * Double($0) / Double(2 * m))) }
            let sine = arena.floats(m / 2) { Float(sin(2 * Double.pi * Double($0) / Double(2 * m))) }
            cdsp_fftw_real_split(spectrum, m, cosine, sine)
            h.add(spectrum, 2 * (m + 1))
        }
        return h.hex
    }

    /// The (inputs, rows) shapes of the model kernels' hashes.
    static let modelShapes = [(37, 21), (8, 8), (3, 1), (64, 40)]

    /// Shape `(n, rows)`'s weights and biases in `arena`, in this process's layout
    /// (`cdsp_model_group_rows`: groups of sixteen rows at avx512, else eight). Row `r`'s weights
    /// are the same at every level: the noise laid out by groups of eight rows (the layout of
    /// every level when the hash was first recorded), placed in the level's groups.
    static func modelWeights(_ arena: Arena, _ n: Int, _ rows: Int) -> (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) {
        let eights = (rows + 7) / 8 * 8
        let w = noise(eights * n, seed: UInt64(n * 100 + rows))
        let g = cdsp_model_group_rows(), padded = (rows + g - 1) / g * g
        let wt = arena.floats(padded * n) { k in
            let row = (k / (g * n)) * g + k % g, i = (k / g) % n
            return row < eights ? w[((row / 8) * n + i) * 8 + row % 8] : 0
        }
        return (wt, arena.floats(padded) { i in i < rows ? Float(i) * 0.01 - 0.1 : 0 })
    }

    static func modelRows() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        for (n, rows) in modelShapes {
            let (wt, bias) = modelWeights(arena, n, rows)
            let xv = noise(n, seed: 7, edges: false)
            let x = arena.floats(n) { xv[$0] }
            let pre = arena.floats(rows) { _ in .nan }
            cdsp_model_rows(wt, bias, x, n, rows, pre)
            h.add(pre, rows)
        }
        return h.hex
    }

    /// `cdsp_model_rows_batch` over batches of 1 to 4 vectors (`x[k]`: noise of seed 7 + k;
    /// the last with edge values), every vector's rows hashed in order. With `single`,
    /// `cdsp_model_rows` on each vector alone instead: the batch's contract is that hash.
    static func modelRowsBatch(single: Bool = false) -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        for (n, rows) in modelShapes {
            let (wt, bias) = modelWeights(arena, n, rows)
            for count in 1...4 {
                let xs = (0..<count).map { k in
                    let v = noise(n, seed: UInt64(7 + k), edges: k == 3)
                    return UnsafePointer(arena.floats(n) { v[$0] })
                }
                let pres = (0..<count).map { _ in arena.floats(rows) { _ in .nan } }
                if single {
                    for k in 0..<count { cdsp_model_rows(wt, bias, xs[k], n, rows, pres[k]) }
                } else {
                    let inputs: [UnsafePointer<Float>?] = xs, outputs: [UnsafeMutablePointer<Float>?] = pres
                    cdsp_model_rows_batch(wt, bias, inputs, count, n, rows, outputs)
                }
                for k in 0..<count { h.add(pres[k], rows) }
            }
        }
        return h.hex
    }

    static func exponential() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        for (count, scale) in [(37, Float(20)), (8, 1), (3, 9), (200, 60), (0, 1)] {
            let v = noise(count, seed: UInt64(count * 31 + 5), edges: true)
            let x = arena.floats(count) { v[$0] * scale }
            let y = arena.floats(count) { _ in .nan }
            cdsp_exp(x, y, count)
            h.add(y, count)
        }
        return h.hex
    }

    static func windowSums() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let count = 400
        let w = (0..<4).map { k in
            let v = positive(count, seed: UInt64(40 + k))
            return arena.doubles(count) { Double(v[$0]) * 1e-3 }
        }
        let pointers: [UnsafePointer<Double>?] = w.map { UnsafePointer($0) }
        var out = [Double](repeating: .nan, count: 4)
        pointers.withUnsafeBufferPointer { cdsp_loudness_window_sums4($0.baseAddress, count, &out) }
        for v in out { h.add(v) }
        return h.hex
    }

    static func truePeak() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let taps = Int(CDSP_TP_TAPS)
        let c = noise(3 * taps / 2, seed: 5)
        let coef = arena.floats(24 * taps / 2) { i in c[i / 8] }  // per tap: P, Q, c2, each in 8 lanes
        let history = taps - 1
        for count in [1, 7, 8, 100, 1000] {
            let x = noise(history + count, seed: UInt64(count), edges: true)
            let buffer = arena.floats(history + count) { x[$0] }
            h.add(cdsp_truepeak4(buffer + history, count, coef))
        }
        return h.hex
    }

    static func levelSums(_ s: cdsp_level_sums) -> [Double] {
        [s.sum_squares, s.sum, Double(s.peak), Double(s.clipped), Double(s.non_finite)]
    }

    static func levelMeasure() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let count = 10_007
        var x = noise(count, seed: 11, edges: true).map { $0 * 1.1 }
        x[100] = .nan
        x[4200] = .infinity
        x[9000] = 3e19  // its block's lane sums overflow Float
        let buffer = arena.floats(count) { x[$0] }
        for (high, low) in [(Float(1), Float(-1)), (Float(32767.0 / 32768), Float(-1))] {
            for n in [count, 4096, 17, 5000] {
                var sums = cdsp_level_sums()
                cdsp_level_measure(buffer, n, high, low, &sums)
                for v in levelSums(sums) { h.add(v) }
            }
        }
        return h.hex
    }

    static func loadMono() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        var x = noise(1003, seed: 12, edges: true)
        x[50] = .nan
        x[51] = -.infinity
        let input = arena.floats(x.count) { x[$0] }
        let dst = arena.floats(x.count) { _ in .nan }
        var bad: Int64 = 0
        h.add(cdsp_level_load_mono(input, x.count, dst, &bad))
        h.add(dst, x.count)
        h.add(Int(bad))
        return h.hex
    }

    static func loadStereo() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let frames = 1003
        var x = noise(2 * frames, seed: 13, edges: true)
        x[60] = .nan
        x[61] = .infinity
        let input = arena.floats(x.count) { x[$0] }
        let left = arena.floats(frames) { _ in .nan }, right = arena.floats(frames) { _ in .nan }
        var peaks: [Float] = [0, 0]
        var bad: Int64 = 0
        cdsp_level_load_stereo(input, frames, left, right, &peaks, &bad)
        h.add(left, frames)
        h.add(right, frames)
        h.add(peaks)
        h.add(Int(bad))
        return h.hex
    }

    // MARK: Spectral, one frame

    static func dot() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        for count in [0, 1, 7, 8, 100, 1023] {
            let a = noise(count, seed: 20, edges: true), b = noise(count, seed: 21)
            let pa = arena.floats(count) { a[$0] }, pb = arena.floats(count) { b[$0] }
            h.add(cdsp_spectral_dot(pa, pb, count))
        }
        return h.hex
    }

    static func window() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let count = 1001
        let x = noise(count, seed: 22, edges: true), w = positive(count, seed: 23)
        let px = arena.floats(count) { x[$0] }, pw = arena.floats(count) { w[$0] }, out = arena.floats(count) { _ in .nan }
        cdsp_spectral_window(px, pw, 0.0123, count, out)
        h.add(out, count)
        return h.hex
    }

    static func power() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        for bins in [257, 5, 513] {
            let s = noise(2 * bins, seed: UInt64(bins), edges: true)
            let spectrum = arena.floats(2 * bins) { s[$0] }
            let power = arena.floats(bins) { _ in .nan }
            var sums: [Float] = [0, 0]
            cdsp_spectral_power(spectrum, bins, 1.0 / 512, power, &sums)
            h.add(spectrum, 2 * bins)
            h.add(power, bins)
            h.add(sums)
        }
        return h.hex
    }

    static func logSums() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        var p = positive(513, seed: 24)
        p[5] = 0
        p[6] = 1e-30
        let power = arena.floats(p.count) { p[$0] }
        for (lo, hi) in [(0, 513), (3, 200), (100, 107)] {
            var sums: [Float] = [0, 0, 0]
            cdsp_spectral_log_sums(power, lo, hi, &sums)
            h.add(sums)
        }
        return h.hex
    }

    static func pitchPick() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let count = 400
        let a = noise(count, seed: 25)
        let ac = arena.floats(count) { i in 1 - Float(i) / 500 + 0.3 * a[i] }
        let windowAC = arena.floats(count) { i in Float(1 - Double(i) / 800) }
        let octave = arena.floats(count) { i in Float(Double(i) * 1e-4) }
        for (lo, hi) in [(20, 320), (1, 398), (30, 36)] {
            var rho: Float = .nan
            h.add(cdsp_spectral_pitch_pick(ac, windowAC, octave, lo, hi, 1.0 / ac[0], &rho))
            h.add(rho)
        }
        return h.hex
    }

    static func mirror() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        for n in [512, 30, 66] {
            let s = positive(n + 2, seed: UInt64(n))
            let spectrum = arena.floats(n + 2) { s[$0] }
            let even = arena.floats(n) { _ in .nan }
            cdsp_spectral_mirror(spectrum, n, even)
            h.add(even, n)
        }
        return h.hex
    }

    static func realParts() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let count = 301
        let s = noise(2 * count, seed: 26, edges: true)
        let interleaved = arena.floats(2 * count) { s[$0] }, out = arena.floats(count) { _ in .nan }
        cdsp_spectral_real_parts(interleaved, count, out)
        h.add(out, count)
        return h.hex
    }

    /// Stand-ins for sin(πj/m) and cos(πj/m), j < m/2 (any values serve; no libm, so the
    /// inputs are the same wherever the test runs).
    static func twiddles(_ m: Int, _ arena: Arena) -> (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) {
        let s = positive(m / 2, seed: UInt64(m) + 1000), c = noise(m / 2, seed: UInt64(m) + 2000)
        return (arena.floats(m / 2) { s[$0] / 4 }, arena.floats(m / 2) { c[$0] })
    }

    static func halfTwiddle() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        for m in [256, 6, 40] {
            let s = positive(2 * (m + 1), seed: UInt64(m))
            let spectrum = arena.floats(2 * (m + 1)) { s[$0] }
            let (sine, cosine) = twiddles(m, arena)
            let y = arena.floats(m) { _ in .nan }
            var f1: Float = .nan
            cdsp_spectral_half_twiddle(spectrum, m, sine, cosine, y, &f1)
            h.add(y, m)
            h.add(f1)
        }
        return h.hex
    }

    static func halfLags() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        for (m, count) in [(256, 257), (256, 100), (10, 11)] {
            let s = noise(2 * (m / 2 + 1), seed: UInt64(m + count))
            let spectrum = arena.floats(s.count) { s[$0] }
            let ac = arena.floats(count) { _ in .nan }
            cdsp_spectral_half_lags(spectrum, 0.75, count, ac)
            h.add(ac, count)
        }
        return h.hex
    }

    static let edges: [Int] = [0, 1, 1, 3, 7, 12, 20, 33, 50, 80, 120, 121, 180, 256]

    static func bandSums() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let p = positive(257, seed: 27)
        let power = arena.floats(p.count) { p[$0] }
        let out = arena.floats(edges.count - 1) { _ in .nan }
        edges.withUnsafeBufferPointer { cdsp_spectral_band_sums(power, $0.baseAddress, edges.count - 1, out) }
        h.add(out, edges.count - 1)
        return h.hex
    }

    static func peakMask() -> String {
        var h = FNV1a()
        let words = 9
        var g = SplitMix64(seed: 5)
        for (seed, lo, hi, withPrevious) in [(1, 6, 320, false), (2, 2, 511, true), (3, 57, 129, true), (4, 5, 13, true)] {
            let p = PeakMaskKernelTests.spectrum(513, seed: UInt64(seed), edges: seed % 2 == 0)
            let previous = (0..<words).map { _ in g.next() & g.next() }
            var mask = [UInt64](repeating: 0, count: words)
            var counts = [Int](repeating: 0, count: 2)
            p.withUnsafeBufferPointer { pp in
                previous.withUnsafeBufferPointer {
                    cdsp_peak_mask(pp.baseAddress!, lo, hi, &mask, words, withPrevious ? $0.baseAddress! : nil, &counts)
                }
            }
            for word in mask { h.add(bits: word, bytes: 8) }
            h.add(counts[0])
            h.add(counts[1])
        }
        return h.hex
    }

    static func sieveSums() -> String {
        var h = FNV1a()
        for (seed, groups, stride, tableCount, edges) in [(11, 4, 15, 300, true), (12, 3, 8, 513, false)] {
            let x = SieveSumsKernelTests.grid(
                seed: UInt64(seed), groups: groups, stride: stride, tableCount: tableCount, width: 64, edges: edges)
            h.add(SieveSumsKernelTests.kernel(x, windows: true))
            h.add(SieveSumsKernelTests.kernel(x, windows: false))
        }
        return h.hex
    }

    static func signChanges() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let x = noise(1001, seed: 28, edges: true)
        let input = arena.floats(x.count) { x[$0] }
        for (count, previous) in [(1001, UInt32(0)), (1001, 1), (7, 1), (64, 0)] {
            h.add(Int(cdsp_spectral_sign_changes(input, count, previous)))
        }
        return h.hex
    }

    static func frameDots() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let n = 400, stride = 160
        let x = noise(n + 4 * stride, seed: 29, edges: true), w = positive(n, seed: 30)
        let first = arena.floats(x.count) { x[$0] }, window = arena.floats(n) { w[$0] }
        for frames in 1...4 {
            let dots = arena.floats(4) { _ in .nan }, energies = arena.floats(4) { _ in .nan }
            cdsp_spectral_frame_dots(first, stride, frames, window, n, 240, 160, dots, energies)
            h.add(dots, frames)
            h.add(energies, frames)
        }
        return h.hex
    }

    static func copy() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let x = noise(1003, seed: 31, edges: true)
        let source = arena.floats(x.count) { x[$0] }, destination = arena.floats(x.count) { _ in .nan }
        cdsp_spectral_copy(destination, source, x.count)
        h.add(destination, x.count)
        return h.hex
    }

    // MARK: Spectral, four frames

    static func power4(magnitudes: Bool) -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let bins = 257
        let spectra = (0..<4).map { f in
            let s = noise(2 * bins, seed: UInt64(40 + f), edges: true)
            return arena.floats(2 * bins) { s[$0] }
        }
        let powers = (0..<4).map { _ in arena.floats(bins) { _ in .nan } }
        let mags = (0..<4).map { _ in arena.floats(bins) { _ in .nan } }
        var sums = [Float](repeating: .nan, count: 8)
        let sp: [UnsafeMutablePointer<Float>?] = spectra.map { $0 }
        let pp: [UnsafeMutablePointer<Float>?] = powers.map { $0 }
        let mp: [UnsafeMutablePointer<Float>?] = mags.map { $0 }
        if magnitudes {
            cdsp_spectral_power4_magnitudes(sp, bins, 1.0 / 512, pp, mp, &sums)
        } else {
            cdsp_spectral_power4(sp, bins, 1.0 / 512, pp, &sums)
        }
        for f in 0..<4 {
            h.add(spectra[f], 2 * bins)
            h.add(powers[f], bins)
            if magnitudes { h.add(mags[f], bins) }
        }
        h.add(sums)
        return h.hex
    }

    static func halfTwiddle4() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let m = 256
        let mags = (0..<4).map { f in
            let s = positive(m + 1, seed: UInt64(50 + f))
            return arena.floats(m + 1) { s[$0] }
        }
        let ys = (0..<4).map { _ in arena.floats(m) { _ in .nan } }
        let (sine, cosine) = twiddles(m, arena)
        var f1s = [Float](repeating: .nan, count: 4)
        let mp: [UnsafePointer<Float>?] = mags.map { UnsafePointer($0) }
        let yp: [UnsafeMutablePointer<Float>?] = ys.map { $0 }
        cdsp_spectral_half_twiddle4(mp, m, sine, cosine, yp, &f1s)
        for y in ys { h.add(y, m) }
        h.add(f1s)
        return h.hex
    }

    static func bandSums4() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let powers = (0..<4).map { f in
            let p = positive(257, seed: UInt64(60 + f))
            return arena.floats(257) { p[$0] }
        }
        let outs = (0..<4).map { _ in arena.floats(edges.count - 1) { _ in .nan } }
        let pp: [UnsafePointer<Float>?] = powers.map { UnsafePointer($0) }
        let op: [UnsafeMutablePointer<Float>?] = outs.map { $0 }
        edges.withUnsafeBufferPointer { cdsp_spectral_band_sums4(pp, $0.baseAddress, edges.count - 1, op) }
        for o in outs { h.add(o, edges.count - 1) }
        return h.hex
    }

    static func rolloff4() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let bins = 257
        let powers = (0..<4).map { f in
            let p = positive(bins, seed: UInt64(70 + f))
            return arena.floats(bins) { p[$0] }
        }
        let pp: [UnsafePointer<Float>?] = powers.map { UnsafePointer($0) }
        for targets: [Float] in [[10, 100, 200, 1e9], [0.5, .nan, 50, 150]] {
            var out = [Int](repeating: -1, count: 4)
            cdsp_spectral_rolloff4(pp, bins, targets, &out)
            for o in out { h.add(o) }
        }
        return h.hex
    }

    static func halfLags4() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let m = 256, count = 257
        let spectra = (0..<4).map { f in
            let s = noise(2 * (m / 2 + 1), seed: UInt64(80 + f))
            return arena.floats(s.count) { s[$0] }
        }
        let acs = (0..<4).map { _ in arena.floats(count) { _ in .nan } }
        let sp: [UnsafePointer<Float>?] = spectra.map { UnsafePointer($0) }
        let ap: [UnsafeMutablePointer<Float>?] = acs.map { $0 }
        cdsp_spectral_half_lags4(sp, [0.5, -0.25, 1, 0], count, ap)
        for a in acs { h.add(a, count) }
        return h.hex
    }

    // MARK: Resampling (contracted), K-weighting (contracted)

    static func splitEvenOdd() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let x = noise(2 * 3 * 101, seed: 90, edges: true)
        let src = arena.floats(x.count) { x[$0] }
        for (stride, pairs) in [(1, 101), (3, 101), (1, 7)] {
            let even = arena.floats(pairs) { _ in .nan }, odd = arena.floats(pairs) { _ in .nan }
            cdsp_split_even_odd(src, stride, pairs, even, odd)
            h.add(even, pairs)
            h.add(odd, pairs)
        }
        return h.hex
    }

    /// (phases L, frame_step, phase_step, channels, count): M = frame_step·L + phase_step.
    static let polyphaseCases: [(Int, Int, Int, Int, Int)] = [
        (1, 2, 0, 1, 50),     // one row, four outputs at a time
        (3, 1, 2, 1, 40),     // phase order (count ≥ 2L)
        (3, 1, 2, 1, 5),      // four rows at a time
        (3, 1, 2, 5, 30),     // multichannel
        (4, 2, 3, 1, 33),
    ]

    static func polyphase() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let taps = 40
        let stride = 1200
        for (l, frameStep, phaseStep, channels, count) in polyphaseCases {
            let b = noise(l * taps, seed: UInt64(100 + l))
            let bank = arena.floats(b.count) { b[$0] }
            let w = noise(channels * stride, seed: 101, edges: true)
            let window = arena.floats(w.count) { w[$0] }
            let out = arena.floats(count * channels) { _ in .nan }
            cdsp_polyphase(
                bank, taps, window, stride, channels, l > 1 ? 1 : 0, 2 % l, frameStep, phaseStep, l, count, out)
            h.add(out, count * channels)
        }
        return h.hex
    }

    static func polyphaseSmall() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let stride = 2000
        // (L, frame_step, phase_step, taps, channels, count)
        for (l, frameStep, phaseStep, taps, channels, count) in [
            (2, 1, 1, 37, 1, 300), (1, 2, 0, 48, 1, 257), (2, 1, 1, 37, 2, 200), (3, 2, 1, 29, 1, 101),
            (4, 1, 3, 64, 1, 150),
        ] {
            let b = noise(l * taps, seed: UInt64(110 + l))
            let bank = arena.floats(b.count) { b[$0] }
            let w = noise(channels * stride, seed: 111, edges: true)
            let window = arena.floats(w.count) { w[$0] }
            let out = arena.floats(count * channels) { _ in .nan }
            cdsp_polyphase_small(bank, taps, window, stride, channels, 0, 0, frameStep, phaseStep, l, count, out)
            h.add(out, count * channels)
        }
        return h.hex
    }

    /// Two chunk patterns (5 and 6 frames), widths 1 (four chains), 3 (two chains: paired
    /// runs) and 8 (one chain); coefficients all nonzero.
    static func polyphaseGroups() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let spans: [UInt32] = [5, 6]
        for width in [1, 3, 8] {
            let offsets: [UInt32] = [0, spans[0] * UInt32(width) * 8]
            let c = noise(Int(spans[0] + spans[1]) * width * 8, seed: UInt64(120 + width))
            let coef = arena.floats(c.count) { c[$0] }
            let groups = 20
            let chunks = groups + width - 1
            let frames = (0..<chunks).reduce(0) { $0 + Int(spans[$1 % 2]) }
            let xv = noise(frames, seed: 121, edges: true)
            let x = arena.floats(frames) { xv[$0] }
            let out = arena.floats(8 * groups) { _ in .nan }
            cdsp_polyphase_groups(
                coef, offsets, spans, 2, width, x, x, frames, 0, 0, frames, 0, groups, 3, 8 * groups - 5,
                out, 1)
            h.add(out, 8 * groups - 5)
        }
        return h.hex
    }

    static func halfband() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let taps = 24
        let c = noise(taps, seed: 130)
        let coef = arena.floats(taps) { c[$0] }
        for count in [200, 64, 5, 131] {
            let e = noise(count, seed: 131, edges: true), o = noise(count + taps, seed: 132)
            let even = arena.floats(count) { e[$0] }, odd = arena.floats(count + taps) { o[$0] }
            let out = arena.floats(count) { _ in .nan }
            cdsp_halfband(even, odd, coef, taps, 0.5, count, out)
            h.add(out, count)
        }
        return h.hex
    }

    /// BS.1770's 48 kHz K-weighting design, three 400 ms steps in uneven pushes.
    static func kWeighting() -> String {
        let arena = Arena()
        defer { withExtendedLifetime(arena) {} }
        var h = FNV1a()
        let k = UnsafeMutablePointer<cdsp_kweighting>.allocate(capacity: 1)
        defer { k.deallocate() }
        cdsp_kweighting_design(
            1.53512485958697, -2.69169618940638, 1.19839281085285, -1.69065929318241, 0.73248077421585,
            -1.99004745483398, 0.99007225036621, k)
        var channel = cdsp_kweighting_channel()
        let step = 19_203
        let xv = noise(3 * step, seed: 140, edges: true)
        let x = arena.floats(xv.count) { xv[$0] }
        var at = 0
        for _ in 0..<3 {
            var filled = 0
            for push in [1000, 7, 1, 4096, 13_000, 1099] {
                let n = min(push, step - filled)
                cdsp_kweighting_run(k, &channel, filled, x + at, n)
                filled += n
                at += n
            }
            h.add(cdsp_kweighting_close_step(k, &channel, step))
            withUnsafeBytes(of: channel.state) { raw in for v in raw.bindMemory(to: Double.self) { h.add(v) } }
        }
        return h.hex
    }
}
