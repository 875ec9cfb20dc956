import CDSPKernels
import Foundation
import DSPSpectral
import Testing

// The C kernels behind SpectralAnalyzer promise the Swift loops' exact operations (eight
// `SIMD8<Float>` lanes, lanes summed in order, scalar tail, no fused multiply-add). These
// tests hold them to it bit for bit against those Swift loops, written out here as they stood
// in SpectralAnalyzer, on noise of many lengths and on edge values — on whatever clone the
// machine's CPU selects (AVX-512F, AVX2+FMA or SSE2).

/// A deterministic pseudo-random signal in −1 ... 1.
private func noise(count: Int, seed: UInt64) -> [Float] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Float(Double(Int64(bitPattern: state) >> 11) / Double(1 << 52))
    }
}

private func load(_ p: UnsafePointer<Float>, _ i: Int) -> SIMD8<Float> {
    UnsafeRawPointer(p + i).loadUnaligned(as: SIMD8<Float>.self)
}

/// The Swift reference: the eight-lane dot product the analyzer used before `cdsp_spectral_dot`.
private func referenceDot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
    var acc = SIMD8<Float>()
    var i = 0
    while i + 8 <= count {
        acc += load(a, i) * load(b, i)
        i += 8
    }
    var sum = acc.sum()
    while i < count { sum += a[i] * b[i]; i += 1 }
    return sum
}

/// The Swift reference: SpectralAnalyzer's power loop over split real/imaginary parts.
private func referencePower(
    real: [Float], imaginary: [Float], scale: Float
) -> (power: [Float], magnitude: [Float], total: Float, weighted: Float) {
    let bins = real.count
    var power = [Float](repeating: 0, count: bins), magnitudes = [Float](repeating: 0, count: bins)
    var totals = SIMD8<Float>(), moments = SIMD8<Float>()
    var index = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
    var k = 0
    real.withUnsafeBufferPointer { re in
        imaginary.withUnsafeBufferPointer { im in
            while k + 8 <= bins {
                let r = load(re.baseAddress!, k), i = load(im.baseAddress!, k)
                let magnitude = r * r + i * i
                let p = magnitude * scale
                for j in 0..<8 { power[k + j] = p[j]; magnitudes[k + j] = magnitude[j] }
                totals += p
                moments += p * index
                index += 8
                k += 8
            }
        }
    }
    var total = totals.sum(), weighted = moments.sum()
    while k < bins {
        let magnitude = real[k] * real[k] + imaginary[k] * imaginary[k]
        let p = magnitude * scale
        power[k] = p
        magnitudes[k] = magnitude
        total += p
        weighted += p * Float(k)
        k += 1
    }
    return (power, magnitudes, total, weighted)
}

/// The Swift reference: SpectralAnalyzer's flatness/entropy sums.
private func referenceLogSums(_ power: [Float], _ range: Range<Int>) -> (Float, Float, Float) {
    var sums = SIMD8<Float>(), logs = SIMD8<Float>(), weightedLogs = SIMD8<Float>()
    var k = range.lowerBound
    power.withUnsafeBufferPointer { pw in
        while k + 8 <= range.upperBound {
            let p = load(pw.baseAddress!, k) + 1e-12
            let l = FastLog.log2(p)
            sums += p
            logs += l
            weightedLogs += p * l
            k += 8
        }
    }
    var bandSum = sums.sum(), logSum = logs.sum(), weightedLogSum = weightedLogs.sum()
    while k < range.upperBound {
        let p = power[k] + 1e-12
        let l = FastLog.log2(p)
        bandSum += p
        logSum += l
        weightedLogSum += p * l
        k += 1
    }
    return (bandSum, logSum, weightedLogSum)
}

/// The Swift reference: SpectralAnalyzer's lag loop.
private func referencePitch(
    _ ac: [Float], _ windowAC: [Float], _ cost: [Float], _ lags: ClosedRange<Int>, _ inverseR0: Float
) -> (Int, Float) {
    var bestLag = 0
    var bestScore: Float = 0
    var bestRho: Float = 0
    for lag in lags {
        let rho = ac[lag] * inverseR0 / windowAC[lag]
        let score = rho - cost[lag]
        if score > bestScore, ac[lag] >= ac[lag - 1], ac[lag] >= ac[lag + 1] {
            bestScore = score
            bestLag = lag
            bestRho = rho
        }
    }
    return (bestLag, bestRho)
}

/// Values that stress the arithmetic: zeros of both signs, denormals, the float extremes,
/// infinities and NaN.
private let edgeValues: [Float] = [
    0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, 1e-30, 1, -1,
    .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .infinity, -.infinity, .nan, 3.5e18, -7e-20,
]

/// Noise of `count` values at several scales, with edge values mixed in when `edges`.
private func signal(count: Int, seed: UInt64, scale: Float, edges: Bool) -> [Float] {
    var x = noise(count: count, seed: seed).map { $0 * scale }
    if edges, count > 0 {
        for (j, e) in edgeValues.enumerated() where (j * 37) % count < count {
            x[(Int(seed) &* 13 &+ j * 37) % count] = e
        }
    }
    return x
}

private func same(_ a: Float, _ b: Float) -> Bool { a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN) }

@Suite("Spectral C kernels match the Swift loops bit for bit")
struct SpectralKernelTests {
    static let lengths = [0, 1, 7, 8, 9, 15, 16, 17, 63, 256, 443, 513, 1024, 1031]

    @Test("dot", arguments: lengths)
    func dot(count: Int) {
        for (seed, scale, edges) in [(1 as UInt64, Float(1), false), (2, 1e-3, false), (3, 1e15, false), (4, 1, true)] {
            let a = signal(count: count, seed: seed, scale: scale, edges: edges)
            let b = signal(count: count, seed: seed + 100, scale: 1, edges: false)
            a.withUnsafeBufferPointer { pa in
                b.withUnsafeBufferPointer { pb in
                    let base = pa.baseAddress ?? UnsafePointer(bitPattern: 16)!
                    let bb = pb.baseAddress ?? UnsafePointer(bitPattern: 16)!
                    let c = cdsp_spectral_dot(base, bb, count)
                    let swift = referenceDot(base, bb, count: count)
                    #expect(same(c, swift), "count \(count) seed \(seed): C \(c) Swift \(swift)")
                }
            }
        }
    }

    @Test("window", arguments: lengths)
    func window(count: Int) {
        let x = signal(count: count, seed: 9, scale: 2, edges: true)
        let w = noise(count: count, seed: 10)
        var out = [Float](repeating: .nan, count: count)
        let mean: Float = 0.123_456_7
        x.withUnsafeBufferPointer { px in
            w.withUnsafeBufferPointer { pw in
                out.withUnsafeMutableBufferPointer { po in
                    if count > 0 { cdsp_spectral_window(px.baseAddress!, pw.baseAddress!, mean, count, po.baseAddress!) }
                }
            }
        }
        for i in 0..<count { #expect(same(out[i], (x[i] - mean) * w[i]), "index \(i)") }
    }

    @Test("power spectrum, totals and moments", arguments: [1, 2, 7, 8, 9, 33, 257, 513, 1025])
    func power(bins: Int) {
        for (seed, scale, edges) in [(11 as UInt64, Float(300), false), (12, 1e-20, false), (13, 1e19, false), (14, 1, true)] {
            let real = signal(count: bins, seed: seed, scale: scale, edges: edges)
            let imaginary = signal(count: bins, seed: seed + 50, scale: scale, edges: false)
            var interleaved = [Float](repeating: 0, count: 2 * bins)
            for k in 0..<bins { interleaved[2 * k] = real[k]; interleaved[2 * k + 1] = imaginary[k] }
            var power = [Float](repeating: .nan, count: bins)
            var sums = [Float](repeating: .nan, count: 2)
            let scaleFactor: Float = 2.384e-7
            cdsp_spectral_power(&interleaved, bins, scaleFactor, &power, &sums)
            let reference = referencePower(real: real, imaginary: imaginary, scale: scaleFactor)
            #expect(same(sums[0], reference.total), "bins \(bins) seed \(seed): total C \(sums[0]) Swift \(reference.total)")
            #expect(same(sums[1], reference.weighted), "bins \(bins) seed \(seed): moment C \(sums[1]) Swift \(reference.weighted)")
            for k in 0..<bins {
                #expect(same(power[k], reference.power[k]), "bin \(k)")
                #expect(same(interleaved[2 * k], reference.magnitude[k]), "|Y|² at bin \(k)")
                #expect(interleaved[2 * k + 1].bitPattern == 0, "imaginary part at bin \(k) zeroed")
            }
        }
    }

    @Test("log sums for flatness and entropy", arguments: [(7, 449), (0, 0), (3, 4), (5, 13), (1, 513), (100, 108)])
    func logSums(lo: Int, hi: Int) {
        for (seed, scale, edges) in [(21 as UInt64, Float(1e-3), false), (22, 1e-9, false), (23, 1e30, false), (24, 1, true)] {
            // Powers are magnitudes: |noise|, with edge values (negative ones too) mixed in.
            let power = signal(count: 513, seed: seed, scale: scale, edges: edges).enumerated().map { edges && $0.offset % 3 == 0 ? $0.element : abs($0.element) }
            var sums = [Float](repeating: .nan, count: 3)
            cdsp_spectral_log_sums(power, lo, hi, &sums)
            let reference = referenceLogSums(power, lo..<hi)
            #expect(same(sums[0], reference.0), "seed \(seed) \(lo)..<\(hi): Σp C \(sums[0]) Swift \(reference.0)")
            #expect(same(sums[1], reference.1), "seed \(seed) \(lo)..<\(hi): Σlog C \(sums[1]) Swift \(reference.1)")
            #expect(same(sums[2], reference.2), "seed \(seed) \(lo)..<\(hi): Σp·log C \(sums[2]) Swift \(reference.2)")
        }
    }

    @Test("pitch pick: same lag and rho", arguments: [(40, 268), (2, 511), (5, 6), (40, 47), (40, 48), (3, 3)])
    func pitch(minLag: Int, maxLag: Int) throws {
        // Autocorrelations of real signals (a harmonic tone in noise, noise, a pure sine) and of
        // noise with edge values, through the same FFT path as the analyzer.
        let n = 1024
        let fft = try RealFFT(size: n)
        let hann: [Float] = (0..<n).map { (i: Int) -> Float in
            Float(0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n)))
        }
        var windowAC = [Float](repeating: 0, count: maxLag + 2)
        let r0 = hann.reduce(0) { $0 + Double($1) * Double($1) }
        for lag in 0...(maxLag + 1) {
            var r = 0.0
            for i in 0..<(n - lag) { r += Double(hann[i]) * Double(hann[i + lag]) }
            windowAC[lag] = Float(r / r0)
        }
        let cost: [Float] = (0...(maxLag + 1)).map { (lag: Int) -> Float in
            lag >= minLag ? Float(0.01 * log2(Double(lag) / Double(minLag))) : 0
        }
        var tone = [Float](repeating: 0, count: n)
        for t in 0..<n {
            for h in 1...6 {
                let phase = 2 * Double.pi * 137.3 * Double(h) * Double(t) / 16_000
                tone[t] += Float(sin(phase) / Double(h))
            }
        }
        let sine: [Float] = (0..<n).map { (t: Int) -> Float in Float(sin(2 * Double.pi * 211 * Double(t) / 16_000)) }
        let noisy: [Float] = zip(tone, noise(count: n, seed: 31)).map { (a: Float, b: Float) -> Float in a + 0.3 * b }
        let signals: [[Float]] = [
            noisy,
            noise(count: n, seed: 32),
            sine,
            signal(count: n, seed: 33, scale: 1, edges: true),
        ]
        for (s, x) in signals.enumerated() {
            for i in 0..<n { fft.forwardInput[i] = x[i] * hann[i] }
            fft.executeForward()
            let spectrum = fft.interleavedSpectrum
            for k in 0..<fft.binCount {
                let re = spectrum[2 * k], im = spectrum[2 * k + 1]
                spectrum[2 * k] = re * re + im * im
                spectrum[2 * k + 1] = 0
            }
            fft.executeInverse()
            let ac = Array(fft.inverseOutput)
            let inverseR0 = 1 / ac[0]
            var rho: Float = .nan
            let lag = cdsp_spectral_pitch_pick(ac, windowAC, cost, minLag, maxLag, inverseR0, &rho)
            let reference = referencePitch(ac, windowAC, cost, minLag...maxLag, inverseR0)
            #expect(lag == reference.0 && same(rho, reference.1), "signal \(s) lags \(minLag)...\(maxLag): C (\(lag), \(rho)) Swift \(reference)")
            if s == 0 && minLag <= 116 && maxLag >= 117 { #expect(lag == 116 || lag == 117, "137.3 Hz is lag 116.5") }
        }
    }

    @Test("pitch pick: ties, plateaus, NaN, ±Inf and every lag range, against the scalar rule")
    func pitchPickTiesAndEdges() {
        // Values from a small set, so that equal scores fall in different lanes and blocks and
        // local maxima form plateaus; the lag range moves across block boundaries.
        let values: [Float] = [0.1, 0.2, 0.3, 0.5, 0.5, 0.7, -0.2, 0, .nan, .infinity, 0.3]
        var state: UInt64 = 77
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        var mismatches: [String] = []
        for trial in 0..<3000 {
            let count = 40 + next(260)
            let palette = trial % 3 == 0 ? values : Array(values.prefix(8))
            let ac = (0..<count).map { _ in palette[next(palette.count)] }
            let windowAC = (0..<count).map { _ in trial % 2 == 0 ? Float(1) : [Float(1), 0.5, 0.75][next(3)] }
            let cost = (0..<count).map { _ in trial % 4 < 2 ? Float(0) : [Float(0), 0.01, 0.1][next(3)] }
            let minLag = 1 + next(20)
            let maxLag = min(count - 2, minLag + next(count))
            guard maxLag >= minLag else { continue }
            let inverseR0: Float = trial % 5 == 0 ? 0.5 : 1
            var rho: Float = .nan
            let lag = cdsp_spectral_pitch_pick(ac, windowAC, cost, minLag, maxLag, inverseR0, &rho)
            let reference = referencePitch(ac, windowAC, cost, minLag...maxLag, inverseR0)
            if lag != reference.0 || !same(rho, reference.1) {
                mismatches.append("trial \(trial) lags \(minLag)...\(maxLag): C (\(lag), \(rho)) Swift \(reference)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches: \(mismatches.prefix(3))")
    }

    @Test("band sums: each band added in ascending order from 0")
    func bandSums() {
        let power = signal(count: 513, seed: 51, scale: 1e-3, edges: false).map { abs($0) }
        // The analyzer's 20 mel bands at 16 kHz / 1024, plus uneven and empty layouts.
        let layouts: [[Int]] = [
            [5, 7, 9, 12, 15, 18, 21, 25, 29, 34, 40, 46, 53, 61, 70, 80, 92, 105, 120, 137, 156],
            [0, 1, 2, 3, 100, 101, 300, 513],
            [10, 10, 10, 11, 40, 41, 42, 43, 44],
            [0, 513],
            [3, 3],
        ]
        for edges in layouts {
            let count = edges.count - 1
            var out = [Float](repeating: .nan, count: count)
            cdsp_spectral_band_sums(power, edges, count, &out)
            for b in 0..<count {
                var sum: Float = 0
                for k in edges[b]..<edges[b + 1] { sum += power[k] }
                #expect(out[b].bitPattern == sum.bitPattern, "edges \(edges) band \(b)")
            }
        }
    }

    @Test("sign changes", arguments: [0, 1, 2, 7, 8, 9, 16, 17, 255, 256, 257])
    func signChanges(count: Int) {
        for seed in [61 as UInt64, 62] {
            var x = signal(count: count, seed: seed, scale: 1, edges: seed == 62)
            if count > 3 { x[1] = -0.0; x[2] = 0 }
            for previous in [0 as UInt32, 1] {
                var expected: UInt32 = 0
                var last = previous
                for v in x {
                    expected += (v.bitPattern >> 31) ^ last
                    last = v.bitPattern >> 31
                }
                let got = x.withUnsafeBufferPointer {
                    cdsp_spectral_sign_changes($0.baseAddress ?? UnsafePointer(bitPattern: 16)!, count, previous)
                }
                #expect(got == expected, "count \(count) seed \(seed) previous \(previous)")
            }
        }
    }

    @Test("pitch pick: ties go to the first lag; nothing above 0 gives lag 0")
    func pitchTies() {
        // Flat-topped peaks: equal scores at consecutive local maxima.
        var ac = [Float](repeating: 0.1, count: 64)
        for lag in [10, 11, 12, 30, 31] { ac[lag] = 0.5 }
        let windowAC = [Float](repeating: 1, count: 64), cost = [Float](repeating: 0, count: 64)
        var rho: Float = 0
        let lag = cdsp_spectral_pitch_pick(ac, windowAC, cost, 2, 60, 1, &rho)
        #expect(lag == referencePitch(ac, windowAC, cost, 2...60, 1).0)
        #expect(lag == 10 && rho == 0.5)
        let negative = [Float](repeating: -0.2, count: 64)
        rho = .nan
        #expect(cdsp_spectral_pitch_pick(negative, windowAC, cost, 2, 60, 1, &rho) == 0)
        #expect(rho == 0)
    }
}

@Suite("Autocorrelation as a forward transform of the mirrored |Y|²")
struct MirroredAutocorrelationTests {
    @Test("mirror and real_parts move exactly the documented values", arguments: [2, 4, 16, 18, 64, 1024, 1030])
    func layout(n: Int) {
        let bins = n / 2 + 1
        let spectrum = noise(count: 2 * bins, seed: UInt64(n))
        var even = [Float](repeating: .nan, count: n)
        cdsp_spectral_mirror(spectrum, n, &even)
        for k in 0...(n / 2) { #expect(even[k].bitPattern == spectrum[2 * k].bitPattern, "even[\(k)]") }
        for k in 1..<(n / 2) { #expect(even[n - k].bitPattern == spectrum[2 * k].bitPattern, "even[n − \(k)]") }
        var real = [Float](repeating: .nan, count: bins)
        cdsp_spectral_real_parts(spectrum, bins, &real)
        for k in 0..<bins { #expect(real[k].bitPattern == spectrum[2 * k].bitPattern) }
    }

    @Test("equals the c2r inverse of |Y|² to float rounding", arguments: [64, 1024, 4096])
    func matchesInverse(n: Int) throws {
        let fft = try RealFFT(size: n), even = try RealFFT(size: n)
        let hann = (0..<n).map { (t: Int) -> Float in Float(0.5 - 0.5 * cos(2 * Double.pi * Double(t) / Double(n))) }
        for (s, x) in [noise(count: n, seed: 41), (0..<n).map { (t: Int) -> Float in Float(sin(Double(t) * 0.37) + 0.01 * sin(Double(t) * 2.1)) }].enumerated() {
            for t in 0..<n { fft.forwardInput[t] = x[t] * hann[t] }
            fft.executeForward()
            var sums: [Float] = [0, 0], power = [Float](repeating: 0, count: fft.binCount)
            cdsp_spectral_power(fft.interleavedSpectrum.baseAddress!, fft.binCount, 1, &power, &sums)
            cdsp_spectral_mirror(fft.interleavedSpectrum.baseAddress!, n, even.forwardInput.baseAddress!)
            even.executeForward()
            var viaForward = [Float](repeating: 0, count: fft.binCount)
            cdsp_spectral_real_parts(even.interleavedSpectrum.baseAddress!, fft.binCount, &viaForward)
            fft.executeInverse()
            // Both are Σ_k |Y[k]|²·cos(2πk·τ/N) in float; they differ by rounding only, which
            // scales with r(0) (the largest value) and log N.
            let r0 = fft.inverseOutput[0]
            #expect(r0 > 0)
            for lag in 0..<fft.binCount {
                #expect(abs(viaForward[lag] - fft.inverseOutput[lag]) <= 2e-6 * r0, "signal \(s) lag \(lag)")
                // The mirrored sequence is even, so the imaginary parts are rounding noise.
                #expect(abs(even.interleavedSpectrum[2 * lag + 1]) <= 2e-6 * r0)
            }
        }
    }
}

@Suite("Autocorrelation from a half-size transform (DCT-I via an N/2-point r2c)")
struct HalfSizeAutocorrelationTests {
    /// The half-size route on `fft`'s spectrum (after `cdsp_spectral_power`): all `N/2 + 1` lags.
    private static func halfRoute(_ fft: RealFFT, _ half: RealFFT) -> [Float] {
        let n = fft.size, m = n / 2
        let sine = (0..<(m / 2)).map { Float(sin(Double.pi * Double($0) / Double(m))) }
        let cosine = (0..<(m / 2)).map { Float(cos(Double.pi * Double($0) / Double(m))) }
        var f1: Float = .nan
        cdsp_spectral_half_twiddle(fft.interleavedSpectrum.baseAddress!, m, sine, cosine, half.forwardInput.baseAddress!, &f1)
        half.executeForward()
        var ac = [Float](repeating: .nan, count: m + 1)
        cdsp_spectral_half_lags(half.interleavedSpectrum.baseAddress!, f1, m + 1, &ac)
        return ac
    }

    /// Powers of two: 4e-6·r(0). N = 1028 (N/2 = 2·257, FFTW's generic prime-257 code): 1e-5·r(0),
    /// where the mirrored route itself also errs by ~4e-6·r(0).
    @Test("matches the exact DCT-I and the mirrored N-point route within 4e-6·r(0) (1e-5·r(0) for N = 1028) at every lag", arguments: [8, 64, 1024, 1028, 4096])
    func matchesMirrored(n: Int) throws {
        let tolerance: Float = n.nonzeroBitCount == 1 ? 4e-6 : 1e-5
        let fft = try RealFFT(size: n), even = try RealFFT(size: n), half = try RealFFT(size: n / 2)
        let hann = (0..<n).map { (t: Int) -> Float in Float(0.5 - 0.5 * cos(2 * Double.pi * Double(t) / Double(n))) }
        let signals: [[Float]] = [
            noise(count: n, seed: 43),
            (0..<n).map { Float(sin(Double($0) * 0.37) + 0.01 * sin(Double($0) * 2.1)) },
            (0..<n).map { Float(sin(2 * Double.pi * 150 * Double($0) / 16_000)) * 1e-3 },
            [Float](repeating: 0.25, count: n),
        ]
        for (s, x) in signals.enumerated() {
            for t in 0..<n { fft.forwardInput[t] = x[t] * hann[t] }
            fft.executeForward()
            var sums: [Float] = [0, 0], power = [Float](repeating: 0, count: fft.binCount)
            cdsp_spectral_power(fft.interleavedSpectrum.baseAddress!, fft.binCount, 1, &power, &sums)
            let viaHalf = Self.halfRoute(fft, half)
            cdsp_spectral_mirror(fft.interleavedSpectrum.baseAddress!, n, even.forwardInput.baseAddress!)
            even.executeForward()
            var mirrored = [Float](repeating: 0, count: fft.binCount)
            cdsp_spectral_real_parts(even.interleavedSpectrum.baseAddress!, fft.binCount, &mirrored)
            // Exact: r(τ) = Σ_k |Y[k]|² cos(2πkτ/N), in Double from the same |Y|².
            let p = (0..<fft.binCount).map { Double(fft.interleavedSpectrum[2 * $0]) }
            let r0 = mirrored[0]
            #expect(r0 > 0)
            for lag in [0, 1, 2, 3, n / 4, n / 2 - 1, n / 2] {
                var exact = p[0] + (lag % 2 == 0 ? 1 : -1) * p[n / 2]
                for k in 1..<(n / 2) { exact += 2 * p[k] * cos(2 * Double.pi * Double(k * lag) / Double(n)) }
                #expect(abs(Double(viaHalf[lag]) - exact) <= Double(tolerance * r0), "signal \(s) lag \(lag): \(viaHalf[lag]) vs \(exact)")
            }
            for lag in 0...(n / 2) {
                #expect(abs(viaHalf[lag] - mirrored[lag]) <= tolerance * r0, "signal \(s) lag \(lag): \(viaHalf[lag]) vs \(mirrored[lag])")
            }
        }
    }

    @Test("lag counts shorter than N/2 + 1 give the same leading lags, bit for bit", arguments: [1, 2, 3, 15, 16, 17, 33, 272])
    func prefixCounts(count: Int) throws {
        let n = 1024
        let fft = try RealFFT(size: n), half = try RealFFT(size: n / 2)
        _ = fft.forwardInput.update(fromContentsOf: noise(count: n, seed: 5))
        fft.executeForward()
        var sums: [Float] = [0, 0], power = [Float](repeating: 0, count: fft.binCount)
        cdsp_spectral_power(fft.interleavedSpectrum.baseAddress!, fft.binCount, 1, &power, &sums)
        let all = Self.halfRoute(fft, half)
        var some = [Float](repeating: .nan, count: count + 1)
        var f1: Float = 0
        let m = n / 2
        let sine = (0..<(m / 2)).map { Float(sin(Double.pi * Double($0) / Double(m))) }
        let cosine = (0..<(m / 2)).map { Float(cos(Double.pi * Double($0) / Double(m))) }
        cdsp_spectral_half_twiddle(fft.interleavedSpectrum.baseAddress!, m, sine, cosine, half.forwardInput.baseAddress!, &f1)
        half.executeForward()
        cdsp_spectral_half_lags(half.interleavedSpectrum.baseAddress!, f1, count, &some)
        // The scan runs in blocks of eight bins, the rest one at a time: where the block ends
        // depends on count, so compare within the documented tolerance, and nothing past count.
        for lag in 0..<count { #expect(abs(some[lag] - all[lag]) <= 1e-6 * all[0], "lag \(lag)") }
        #expect(some[count].isNaN, "wrote past count")
    }

    @Test("the analyzer finds the same pitch by either route (N = 1024 half-size, N = 1028 half-size, N = 1026 mirrored)", arguments: [1024, 1026, 1028])
    func analyzerPitch(windowLength: Int) throws {
        let rate = 16_000.0
        let signal: [Float] = (0..<16_000).map { t in
            var x = 0.0
            for h in 1...10 { x += sin(2 * Double.pi * 150 * Double(h) * Double(t) / rate) / Double(h) }
            return Float(0.2 * x)
        }
        let analyzer = try SpectralAnalyzer(configuration: .init(windowLength: windowLength))
        var frames: [SpectralFeatures] = []
        signal.withUnsafeBufferPointer { analyzer.process($0) { frames.append($0.features) } }
        let steady = frames.dropFirst(5)
        #expect(steady.count > 40)
        for f in steady {
            #expect(abs(f.pitchHz - 150) < 1.5, "pitch \(f.pitchHz)")
            #expect(f.harmonicity > 0.95)
        }
    }
}

@Suite("RealFFT in-place transforms")
struct RealFFTInPlaceTests {
    @Test("executeForward/executeInverse give the split API's values bit for bit",
          arguments: FFTImplementation.available, [2, 64, 480, 1024, 1030, 4096])
    func sameAsSplit(implementation: FFTImplementation, size: Int) throws {
        let fft = try RealFFT(size: size, implementation: implementation)
        let x = noise(count: size, seed: UInt64(size))
        var re = [Float](repeating: 0, count: fft.binCount), im = re
        x.withUnsafeBufferPointer { px in
            re.withUnsafeMutableBufferPointer { r in im.withUnsafeMutableBufferPointer { fft.forward(px, real: r, imaginary: $0) } }
        }
        var split = [Float](repeating: 0, count: size)
        re.withUnsafeBufferPointer { r in
            im.withUnsafeBufferPointer { i in split.withUnsafeMutableBufferPointer { fft.inverse(real: r, imaginary: i, into: $0) } }
        }
        _ = fft.forwardInput.update(fromContentsOf: x)
        fft.executeForward()
        for k in 0..<fft.binCount {
            #expect(fft.interleavedSpectrum[2 * k].bitPattern == re[k].bitPattern, "re \(k)")
            #expect(fft.interleavedSpectrum[2 * k + 1].bitPattern == im[k].bitPattern, "im \(k)")
        }
        // Garbage in the ignored imaginary parts of DC and Nyquist must not matter.
        fft.interleavedSpectrum[1] = 99
        fft.interleavedSpectrum[2 * fft.binCount - 1] = -7
        fft.executeInverse()
        for t in 0..<size { #expect(fft.inverseOutput[t].bitPattern == split[t].bitPattern, "t \(t)") }
        // The inverse leaves the forward input alone.
        for t in 0..<size { #expect(fft.forwardInput[t].bitPattern == x[t].bitPattern) }
    }
}
