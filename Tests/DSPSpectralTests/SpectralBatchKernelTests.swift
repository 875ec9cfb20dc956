import CDSPKernels
import DSPCore
import DSPSpectral
import Foundation
import Testing

// The four-frame kernels of SpectralBatch.c against the one-frame kernels of Spectral.c
// (themselves held to the Swift loops in SpectralKernelTests), and the roll-off search against
// SpectralAnalyzer's Swift loop, bit for bit, on whatever clone the CPU selects; and each FFT
// implementation's extra buffer sets (FFTW's new-array execute) against set 0.

/// A deterministic signal in −1 … 1 (a 64-bit LCG).
private func signal(count: Int, seed: UInt64) -> [Float] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Float(Double(Int64(bitPattern: state) >> 11) / Double(1 << 52))
    }
}

/// Four spectra (or power spectra) of `count` floats for `seed`, frame `f` from `seed + f`, some
/// with edge values: NaN, ±Inf, near-overflow, subnormals, −0, zeros.
private func frames(count: Int, seed: UInt64, nonNegative: Bool) -> [[Float]] {
    (0..<4).map { f in
        var x = signal(count: count, seed: seed &* 7 &+ UInt64(f))
        if nonNegative { x = x.map { abs($0) * 1e-3 } }
        switch (seed + UInt64(f)) % 9 {
        case 5: x[count / 2] = .nan
        case 6: x[count - 1] = .infinity; x[0] = nonNegative ? 0 : -.infinity
        case 7: for i in x.indices where i % 3 == 0 { x[i] = 3e38 }
        case 8: for i in x.indices { x[i] = i % 2 == 0 ? .leastNonzeroMagnitude : (nonNegative ? 0 : -0.0) }
        default: break
        }
        if seed % 4 == 3 && f == 2 { x = [Float](repeating: 0, count: count) }
        return x
    }
}

/// Runs `body` with four mutable buffers as a C `float *[4]` table.
private func withTable<R>(
    _ arrays: inout [[Float]], _ body: (UnsafePointer<UnsafeMutablePointer<Float>?>) -> R
) -> R {
    let a = UnsafeMutablePointer<Float>.allocate(capacity: arrays[0].count)
    let b = UnsafeMutablePointer<Float>.allocate(capacity: arrays[1].count)
    let c = UnsafeMutablePointer<Float>.allocate(capacity: arrays[2].count)
    let d = UnsafeMutablePointer<Float>.allocate(capacity: arrays[3].count)
    let all = [a, b, c, d]
    defer { all.forEach { $0.deallocate() } }
    for f in 0..<4 { all[f].initialize(from: arrays[f], count: arrays[f].count) }
    let table: [UnsafeMutablePointer<Float>?] = all
    let result = table.withUnsafeBufferPointer { body($0.baseAddress!) }
    for f in 0..<4 { arrays[f] = Array(UnsafeBufferPointer(start: all[f], count: arrays[f].count)) }
    return result
}

/// Runs a four-frame kernel with `inputs` as its `const float *[4]` table and four outputs of
/// `count` floats as its `float *[4]`, pre-filled with `fill` (so an element left unwritten
/// shows); returns the outputs.
private func fourFrames(
    _ inputs: inout [[Float]], outputCount count: Int, fill: Float,
    _ kernel: (UnsafePointer<UnsafePointer<Float>?>, UnsafePointer<UnsafeMutablePointer<Float>?>) -> Void
) -> [[Float]] {
    var outputs = [[Float]](repeating: [Float](repeating: fill, count: count), count: 4)
    withTable(&inputs) { table in
        withTable(&outputs) { out in
            table.withMemoryRebound(to: UnsafePointer<Float>?.self, capacity: 4) { kernel($0, out) }
        }
    }
    return outputs
}

private func bits(_ x: [Float]) -> [UInt32] { x.map(\.bitPattern) }

@Suite("Four-frame spectral kernels")
struct SpectralBatchKernelTests {
    static let binCounts = [513, 257, 516, 33, 9, 8, 1]

    @Test("power4 equals cdsp_spectral_power per frame, bit for bit", arguments: binCounts)
    func power4(_ bins: Int) {
        var mismatches: [String] = []
        for seed in UInt64(0)..<12 {
            let spectra = frames(count: 2 * bins, seed: seed, nonNegative: false)
            let scale: Float = seed % 2 == 0 ? 2.5e-7 : 1.75
            // Reference: one frame at a time.
            var refSpectra = spectra, refPowers: [[Float]] = [], refSums: [Float] = []
            for f in 0..<4 {
                var power = [Float](repeating: 0, count: bins), sums: [Float] = [0, 0]
                cdsp_spectral_power(&refSpectra[f], bins, scale, &power, &sums)
                refPowers.append(power)
                refSums += sums
            }
            var ourSpectra = spectra, ourPowers = [[Float]](repeating: [Float](repeating: 1, count: bins), count: 4)
            var ourSums = [Float](repeating: 0, count: 8)
            withTable(&ourSpectra) { sp in
                withTable(&ourPowers) { pw in cdsp_spectral_power4(sp, bins, scale, pw, &ourSums) }
            }
            for f in 0..<4 where bits(ourSpectra[f]) != bits(refSpectra[f]) || bits(ourPowers[f]) != bits(refPowers[f]) {
                mismatches.append("bins \(bins) seed \(seed) frame \(f): spectrum or power")
            }
            if bits(ourSums) != bits(refSums) { mismatches.append("bins \(bins) seed \(seed): sums \(ourSums) vs \(refSums)") }

            // The contiguous-magnitude variant: the same powers and sums, |Y|² where the one-frame
            // kernel leaves it (the real parts), the spectra untouched.
            var keptSpectra = spectra, magnitudes = [[Float]](repeating: [Float](repeating: 3, count: bins), count: 4)
            ourPowers = [[Float]](repeating: [Float](repeating: 1, count: bins), count: 4)
            ourSums = [Float](repeating: 0, count: 8)
            withTable(&keptSpectra) { sp in
                withTable(&ourPowers) { pw in
                    withTable(&magnitudes) { mg in cdsp_spectral_power4_magnitudes(sp, bins, scale, pw, mg, &ourSums) }
                }
            }
            for f in 0..<4 {
                let expected = (0..<bins).map { refSpectra[f][2 * $0] }
                if bits(magnitudes[f]) != bits(expected) || bits(ourPowers[f]) != bits(refPowers[f]) || bits(keptSpectra[f]) != bits(spectra[f]) {
                    mismatches.append("magnitudes: bins \(bins) seed \(seed) frame \(f)")
                }
            }
            if bits(ourSums) != bits(refSums) { mismatches.append("magnitudes: bins \(bins) seed \(seed): sums") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(4))")
    }

    @Test("half_twiddle4 on contiguous |Y|² equals cdsp_spectral_half_twiddle per frame, bit for bit",
          arguments: [512, 256, 34, 18, 16, 8, 4, 2])
    func halfTwiddle4(_ m: Int) {
        var mismatches: [String] = []
        let sine = (0..<(m / 2)).map { Float(sin(Double.pi * Double($0) / Double(m))) }
        let cosine = (0..<(m / 2)).map { Float(cos(Double.pi * Double($0) / Double(m))) }
        for seed in UInt64(0)..<12 {
            var magnitudes = frames(count: m + 1, seed: seed, nonNegative: true)
            var reference: [[Float]] = [], referenceF1: [Float] = []
            for f in 0..<4 {
                // The one-frame kernel reads f[j] from the real parts of an interleaved spectrum.
                var spectrum = signal(count: 2 * (m + 1), seed: seed &+ 99)
                for j in 0...m { spectrum[2 * j] = magnitudes[f][j] }
                var y = [Float](repeating: 0, count: m), f1: Float = 0
                cdsp_spectral_half_twiddle(spectrum, m, sine, cosine, &y, &f1)
                reference.append(y)
                referenceF1.append(f1)
            }
            var f1s = [Float](repeating: 0, count: 4)
            let ours = fourFrames(&magnitudes, outputCount: m, fill: 5) {
                cdsp_spectral_half_twiddle4($0, m, sine, cosine, $1, &f1s)
            }
            for f in 0..<4 where bits(ours[f]) != bits(reference[f]) || f1s[f].bitPattern != referenceF1[f].bitPattern {
                if !(f1s[f].isNaN && referenceF1[f].isNaN && bits(ours[f]) == bits(reference[f])) {
                    mismatches.append("m \(m) seed \(seed) frame \(f)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(4))")
    }

    @Test("band_sums4 equals cdsp_spectral_band_sums per frame, bit for bit",
          arguments: [[0, 1, 2, 5, 9, 17, 40, 41, 80, 200, 513], [3, 3, 4, 30], [0, 513], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]])
    func bandSums4(_ edges: [Int]) {
        var mismatches: [String] = []
        let count = edges.count - 1
        for seed in UInt64(0)..<12 {
            var powers = frames(count: 513, seed: seed, nonNegative: true)
            var reference: [[Float]] = []
            for f in 0..<4 {
                var out = [Float](repeating: 0, count: count)
                cdsp_spectral_band_sums(powers[f], edges, count, &out)
                reference.append(out)
            }
            let ours = fourFrames(&powers, outputCount: count, fill: 7) { cdsp_spectral_band_sums4($0, edges, count, $1) }
            for f in 0..<4 where bits(ours[f]) != bits(reference[f]) {
                mismatches.append("edges \(edges.count) seed \(seed) frame \(f): \(ours[f].prefix(3)) vs \(reference[f].prefix(3))")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(4))")
    }

    /// SpectralAnalyzer's one-frame roll-off loop.
    static func rolloff(_ power: [Float], target: Float) -> Int {
        var cumulative: Float = 0
        for k in power.indices {
            cumulative += power[k]
            if cumulative >= target { return k }
        }
        return power.count - 1
    }

    @Test("rolloff4 equals SpectralAnalyzer's roll-off loop per frame", arguments: binCounts)
    func rolloff4(_ bins: Int) {
        var mismatches: [String] = []
        for seed in UInt64(0)..<24 {
            var powers = frames(count: bins, seed: seed, nonNegative: true)
            if seed % 6 == 1 { powers[1] = powers[1].map { -$0 } }  // negative values: sums that fall
            // Targets: 85 % of each total (the analyzer's), an exact partial sum, 0, −1, +Inf, NaN,
            // and one above the total.
            var targets: [Float] = []
            for f in 0..<4 {
                let total = powers[f].reduce(0, +)
                var partial: Float = 0
                for k in 0..<(bins / 3 + 1) { partial += powers[f][k] }
                let choices: [Float] = [0.85 * total, partial, 0, -1, .infinity, .nan, total * 2 + 1, 0.85 * total]
                targets.append(choices[Int((seed + UInt64(f)) % UInt64(choices.count))])
            }
            var out = [Int](repeating: -7, count: 4)
            withTable(&powers) { pw in
                pw.withMemoryRebound(to: UnsafePointer<Float>?.self, capacity: 4) {
                    cdsp_spectral_rolloff4($0, bins, targets, &out)
                }
            }
            for f in 0..<4 {
                let expected = Self.rolloff(powers[f], target: targets[f])
                if out[f] != expected { mismatches.append("bins \(bins) seed \(seed) frame \(f) target \(targets[f]): \(out[f]) vs \(expected)") }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(4))")
    }

    @Test("half_lags4 equals cdsp_spectral_half_lags per frame, bit for bit",
          arguments: [(257, 270), (257, 257), (129, 130), (33, 64), (5, 9), (2, 2), (9, 1)])
    func halfLags4(_ bins: Int, _ count: Int) {
        var mismatches: [String] = []
        for seed in UInt64(0)..<12 {
            var spectra = frames(count: 2 * bins, seed: seed, nonNegative: false)
            let f1: [Float] = [0.5, -3, 1e30, seed % 3 == 0 ? .nan : 0]
            var reference: [[Float]] = []
            for f in 0..<4 {
                var ac = [Float](repeating: 0, count: count)
                cdsp_spectral_half_lags(spectra[f], f1[f], count, &ac)
                reference.append(ac)
            }
            let ours = fourFrames(&spectra, outputCount: count, fill: 9) { cdsp_spectral_half_lags4($0, f1, count, $1) }
            for f in 0..<4 where bits(ours[f]) != bits(reference[f]) {
                mismatches.append("bins \(bins) count \(count) seed \(seed) frame \(f)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(4))")
    }

    @Test("RealFFT buffer sets transform as set 0 does, bit for bit", arguments: FFTImplementation.available, [1024, 512, 1030, 64, 2])
    func bufferSets(implementation: FFTImplementation, _ size: Int) throws {
        let fft = try RealFFT(size: size, bufferSets: 4, implementation: implementation)
        let plain = try RealFFT(size: size, implementation: implementation)
        for seed in UInt64(0)..<4 {
            var inputs: [[Float]] = []
            for set in 0..<4 {
                let x = signal(count: size, seed: seed &* 11 &+ UInt64(set))
                inputs.append(x)
                _ = fft.forwardInput(set: set).update(fromContentsOf: x)
            }
            for set in (0..<4).reversed() { fft.executeForward(set: set) }
            for set in 0..<4 {
                _ = plain.forwardInput.update(fromContentsOf: inputs[set])
                plain.executeForward()
                #expect(bits(Array(fft.interleavedSpectrum(set: set))) == bits(Array(plain.interleavedSpectrum)), "size \(size) set \(set)")
                #expect(bits(Array(fft.forwardInput(set: set))) == bits(inputs[set]), "input kept, set \(set)")
            }
        }
        #expect(throws: ConfigurationError.self) { try RealFFT(size: 64, bufferSets: 0) }
    }
}
