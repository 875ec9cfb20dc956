import DSPCore
import DSPIO
@testable import DSPSpectral
import Foundation
import Testing
import TestSupport

/// `count` values uniform in −1 … 1 from `seed`.
private func uniform(count: Int, seed: UInt64) -> [Float] {
    var generator = SplitMix64(seed: seed)
    return (0..<count).map { _ in Float(generator.uniform()) }
}

/// The forward transform of `x` through `fft`'s split API, as doubles.
private func forward(_ fft: RealFFT, _ x: [Float]) -> (re: [Double], im: [Double]) {
    var re = [Float](repeating: .nan, count: fft.binCount), im = re
    x.withUnsafeBufferPointer { input in
        re.withUnsafeMutableBufferPointer { r in im.withUnsafeMutableBufferPointer { fft.forward(input, real: r, imaginary: $0) } }
    }
    return (re.map(Double.init), im.map(Double.init))
}

/// The inverse transform of `(re, im)` through `fft`'s split API, as doubles.
private func inverse(_ fft: RealFFT, re: [Float], im: [Float]) -> [Double] {
    var y = [Float](repeating: .nan, count: fft.size)
    re.withUnsafeBufferPointer { r in
        im.withUnsafeBufferPointer { i in y.withUnsafeMutableBufferPointer { fft.inverse(real: r, imaginary: i, into: $0) } }
    }
    return y.map(Double.init)
}

/// The first channel of a TestAudio file.
private func firstChannel(_ name: String) throws -> [Float] {
    let reader = try AudioFileReader(path: TestAudio.path(name))
    defer { reader.close() }
    var all = [Float](repeating: 0, count: reader.frameCount * reader.channelCount)
    var filled = 0
    try all.withUnsafeMutableBufferPointer { buffer in
        while filled < buffer.count {
            let got = try reader.read(into: UnsafeMutableBufferPointer(rebasing: buffer[filled...]))
            if got == 0 { break }
            filled += got
        }
    }
    return stride(from: 0, to: filled, by: reader.channelCount).map { all[$0] }
}

/// The built-in FFT (CDSPKernels `FFT.c`) against a double-precision DFT, and beside FFTW.
@Suite("Built-in FFT")
struct BuiltInFFTTests {
    /// Every power of two the type accepts (the library's own sizes: SpectralAnalyzer's 1024 and
    /// its 512-point autocorrelation, the bandwidth and reverberation estimators' powers of two),
    /// the non-power-of-two sizes the tests use, common window lengths (400, 480, 882 samples:
    /// 25 ms, 30 ms at 16 kHz, 20 ms at 44.1 kHz), sizes whose half is a large prime or has one
    /// (Bluestein's route: 526, 1046, 16382, 65534) and the scalar route's odd halves.
    static let sizes = (1...16).map { 1 << $0 }
        + [6, 10, 30, 122, 134, 400, 480, 882, 1000, 1026, 1028, 1030, 1046, 4410, 7808, 10_000, 16_382, 65_534, 526]

    /// The error bound held for every size, forward and inverse: relative RMS error against the
    /// double-precision DFT. Measured: at most 2.3e-7 (65534, through Bluestein), 1.2e-7 at 1024.
    static let bound = 1e-6

    @Test("the oracle's recursion equals the O(n²) definition", arguments: [1, 2, 6, 30, 64, 98, 210, 514])
    func oracle(size: Int) {
        let x = uniform(count: 2 * size, seed: UInt64(size))
        let re = (0..<size).map { Double(x[$0]) }, im = (0..<size).map { Double(x[size + $0]) }
        let fast = DoubleDFT.transform(re, im, sign: -1), slow = DoubleDFT.naive(re, im, sign: -1)
        #expect(DoubleDFT.relativeRMS(fast, slow) < 1e-14)
    }

    @Test("forward: relative RMS error against a double-precision DFT ≤ 1e-6; Im X[0] = Im X[N/2] = 0", arguments: sizes)
    func forwardAccuracy(size: Int) throws {
        let fft = try RealFFT(size: size, implementation: .builtIn)
        var worst = 0.0
        for seed in UInt64(1)...2 {
            let x = uniform(count: size, seed: seed &* 1000 &+ UInt64(size))
            let ours = forward(fft, x)
            worst = max(worst, DoubleDFT.relativeRMS(ours, DoubleDFT.realForward(x)))
            #expect(ours.im[0] == 0 && ours.im[size / 2] == 0)
        }
        #expect(worst <= Self.bound, "size \(size): \(worst)")
    }

    @Test("inverse: relative RMS error against a double-precision DFT ≤ 1e-6, Im X[0] and Im X[N/2] ignored", arguments: sizes)
    func inverseAccuracy(size: Int) throws {
        let fft = try RealFFT(size: size, implementation: .builtIn)
        let bins = size / 2 + 1
        let re = uniform(count: bins, seed: UInt64(size) &+ 7), im = uniform(count: bins, seed: UInt64(size) &+ 8)
        let ours = inverse(fft, re: re, im: im)
        let reference = DoubleDFT.realInverse(re: re, im: im, size: size)
        let zeros = [Double](repeating: 0, count: size)
        let error = DoubleDFT.relativeRMS((ours, zeros), (reference, zeros))
        #expect(error <= Self.bound, "size \(size): \(error)")
    }

    @Test("every even size 2...65536 is planned; odd and out-of-range sizes are refused")
    func sizesAccepted() throws {
        var refused: [Int] = []
        for size in stride(from: 2, through: 65_536, by: 2) where !FFTImplementation.builtIn.supports(size: size) {
            refused.append(size)
        }
        #expect(refused.isEmpty, "\(refused.prefix(8))")
        for size in [-2, 0, 1, 3, 1023, 65_538] {
            #expect(!FFTImplementation.builtIn.supports(size: size))
            #expect(throws: ConfigurationError(parameter: "size", value: "\(size)", expected: "even, 2...65536")) {
                try RealFFT(size: size, implementation: .builtIn)
            }
        }
    }

    @Test("edge inputs: zeros, −0, an impulse, Nyquist, NaN, ±Inf, subnormals", arguments: [2, 64, 1024, 1030])
    func edges(size: Int) throws {
        let fft = try RealFFT(size: size, implementation: .builtIn)
        // Zeros (and −0) give exact zeros.
        for zero in [Float(0), -0.0] {
            let z = forward(fft, [Float](repeating: zero, count: size))
            #expect(z.re.allSatisfy { $0 == 0 } && z.im.allSatisfy { $0 == 0 })
        }
        // An impulse at t = 0 gives 1 in every bin: exactly by the Stockham stages, within float
        // rounding through Bluestein's convolution (1030 = 2·5·103).
        var impulse = [Float](repeating: 0, count: size)
        impulse[0] = 1
        let flat = forward(fft, impulse)
        let stockham = size != 1030
        #expect(flat.re.allSatisfy { stockham ? $0 == 1 : abs($0 - 1) <= 1e-6 })
        #expect(flat.im.allSatisfy { stockham ? $0 == 0 : abs($0) <= 1e-6 })
        // Full-scale ±1 alternating: X[N/2] = N, every other bin ~0.
        let nyquist = forward(fft, (0..<size).map { $0 % 2 == 0 ? 1 : -1 })
        #expect(nyquist.re[size / 2] == Double(size))
        #expect((0..<(size / 2)).allSatisfy { abs(nyquist.re[$0]) + abs(nyquist.im[$0]) <= 1e-4 * Double(size) })
        // One NaN makes every bin NaN; one infinity leaves no bin finite.
        var x = uniform(count: size, seed: 5)
        x[size / 3] = .nan
        let nan = forward(fft, x)
        #expect((0..<fft.binCount).allSatisfy { nan.re[$0].isNaN || nan.im[$0].isNaN })
        for infinity in [Float.infinity, -.infinity] {
            x[size / 3] = infinity
            let inf = forward(fft, x)
            #expect((0..<fft.binCount).allSatisfy { !inf.re[$0].isFinite || !inf.im[$0].isFinite })
        }
        // Subnormal input: the result is finite and as close to the DFT as subnormals allow.
        let tiny = uniform(count: size, seed: 6).map { $0 * 0x1p-130 }   // subnormal: below 2⁻¹²⁶
        let small = forward(fft, tiny), exact = DoubleDFT.realForward(tiny)
        #expect(small.re.allSatisfy(\.isFinite) && small.im.allSatisfy(\.isFinite))
        #expect(zip(small.re, exact.re).allSatisfy { abs($0 - $1) <= 0x1p-149 * Double(size) })
    }

    @Test("FFTImplementation: the default follows the FFTW trait; the built-in FFT is in every build")
    func implementations() throws {
        #expect(FFTImplementation.builtIn.isAvailable)
        #expect(FFTImplementation.available.first == .default)
        #expect(try RealFFT(size: 64).implementation == .default)
        #expect(try RealFFT(size: 64, implementation: .builtIn).implementation == .builtIn)
        #if FFTW
        #expect(FFTImplementation.default == .fftw)
        #expect(FFTImplementation.available == [.fftw, .builtIn])
        #else
        #expect(FFTImplementation.default == .builtIn)
        #expect(FFTImplementation.available == [.builtIn])
        #expect(!FFTImplementation.fftw.supports(size: 1024))
        #expect(throws: ConfigurationError.self) { try RealFFT(size: 1024, implementation: .fftw) }
        #endif
        // The task-local seam reaches every RealFFT made without an explicit implementation.
        let inside = try FFTImplementation.$taskOverride.withValue(.builtIn) {
            (try RealFFT(size: 256).implementation, try SpectralAnalyzer().memoryFootprint)
        }
        #expect(inside.0 == .builtIn)
        #expect(inside.1.ownedBytes > 0)
        #expect(try RealFFT(size: 256).implementation == .default)
    }

    @Test("memory: scratch and buffers owned, the plan and twiddles shared by every transform of the size")
    func memory() throws {
        let fft = try RealFFT(size: 1024, implementation: .builtIn)
        // Owned: scratch (2048 floats), input (1024), spectrum (1026 → 1040), inverse output
        // (1024), RealFFT's split scratch (1026): about 24.6 kB. Shared: the table (1664
        // floats) and the plan (~1.1 kB): about 7.8 kB.
        let footprint = fft.memoryFootprint
        #expect(footprint.ownedBytes > 24_000 && footprint.ownedBytes < 25_500, "\(footprint)")
        #expect(footprint.sharedBytes > 6_600 && footprint.sharedBytes < 9_000, "\(footprint)")
    }

    @Test("one plan and table per size: shared, freed with the last transform, the same spectra")
    func sharedTables() throws {
        var a: BuiltInFFTBackend? = try BuiltInFFTBackend(size: 486, bufferSets: 2)
        var b: BuiltInFFTBackend? = try BuiltInFFTBackend(size: 486)
        let other = try BuiltInFFTBackend(size: 972)
        #expect(a!.sharesTables(with: b!))
        #expect(!a!.sharesTables(with: other))
        // Each has its own buffers: different inputs at once give each its own spectrum.
        var rng = SplitMix64(seed: 7)
        let x = (0..<486).map { _ in Float(rng.uniform()) }, y = x.map { -2 * $0 }
        var reA = [Float](repeating: 0, count: 244), imA = reA, reB = reA, imB = reA
        x.withUnsafeBufferPointer { input in
            reA.withUnsafeMutableBufferPointer { r in imA.withUnsafeMutableBufferPointer { i in a!.forward(input, real: r, imaginary: i) } }
        }
        y.withUnsafeBufferPointer { input in
            reB.withUnsafeMutableBufferPointer { r in imB.withUnsafeMutableBufferPointer { i in b!.forward(input, real: r, imaginary: i) } }
        }
        #expect(zip(reA, reB).allSatisfy { $1 == -2 * $0 } && zip(imA, imB).allSatisfy { $1 == -2 * $0 })
        // The size's own entry: sizes no other test uses, since tests run in parallel and build
        // and free transforms of their sizes meanwhile.
        #expect(BuiltInFFTTables.cache.isLive(486))
        a = nil
        #expect(BuiltInFFTTables.cache.isLive(486))
        b = nil
        #expect(!BuiltInFFTTables.cache.isLive(486))
        withExtendedLifetime(other) { #expect(BuiltInFFTTables.cache.isLive(972)) }
        #expect(throws: ConfigurationError.self) { try BuiltInFFTBackend(size: 7) }
    }

    #if FFTW
    /// The relative RMS difference between the two implementations' forward transforms of `x`.
    private static func difference(_ x: [Float], size: Int) throws -> Double {
        let reference = forward(try RealFFT(size: size, implementation: .fftw), x)
        return DoubleDFT.relativeRMS(forward(try RealFFT(size: size, implementation: .builtIn), x), reference)
    }

    @Test("beside FFTW on noise: forward and inverse agree within 1e-6 relative RMS",
          arguments: [64, 128, 256, 512, 1024, 2048, 4096, 480, 1000, 1030, 16_382])
    func besideFFTWNoise(size: Int) throws {
        let x = uniform(count: size, seed: 11 &+ UInt64(size))
        #expect(try Self.difference(x, size: size) <= 1e-6)
        let bins = size / 2 + 1
        let re = uniform(count: bins, seed: 12), im = uniform(count: bins, seed: 13)
        let zeros = [Double](repeating: 0, count: size)
        let ours = inverse(try RealFFT(size: size, implementation: .builtIn), re: re, im: im)
        let theirs = inverse(try RealFFT(size: size, implementation: .fftw), re: re, im: im)
        #expect(DoubleDFT.relativeRMS((ours, zeros), (theirs, zeros)) <= 1e-6)
    }

    @Test("beside FFTW on TestAudio frames (Hann, 1024): every frame within 1e-6 relative RMS; power within 0.0005 dB within 40 dB of the frame's peak, 0.02 dB within 80 dB",
          arguments: ["speech_en-us_16k.wav", "music_violin_44k1.flac", "noise_pink_48k_s24.flac", "speech_clipped_16k.wav"])
    func besideFFTWAudio(file: String) throws {
        let samples = try firstChannel(file)
        let n = 1024
        let window = try Window(.hann, length: n)
        let fftw = try RealFFT(size: n, implementation: .fftw), ours = try RealFFT(size: n, implementation: .builtIn)
        var worstRMS = 0.0, worst40 = 0.0, worst80 = 0.0, frames = 0
        for start in stride(from: 0, to: samples.count - n, by: n / 2) {
            let frame = (0..<n).map { samples[start + $0] * window.coefficients[$0] }
            let a = forward(ours, frame), b = forward(fftw, frame)
            let pa = a.re.indices.map { a.re[$0] * a.re[$0] + a.im[$0] * a.im[$0] }
            let pb = b.re.indices.map { b.re[$0] * b.re[$0] + b.im[$0] * b.im[$0] }
            let peak = pb.max()!
            guard peak > 0 else { continue }
            frames += 1
            worstRMS = max(worstRMS, DoubleDFT.relativeRMS(a, b))
            for k in pb.indices where pb[k] > peak * 1e-8 {
                let db = abs(10 * log10(pa[k] / pb[k]))
                worst80 = max(worst80, db)
                if pb[k] > peak * 1e-4 { worst40 = max(worst40, db) }
            }
        }
        #expect(frames > 20)
        #expect(worstRMS <= 1e-6, "\(file): \(worstRMS)")
        // Measured: relative RMS ≤ 2.2e-7; ≤ 7.7e-5 dB within 40 dB of the peak, ≤ 0.0065 dB within
        // 80 dB (a bin 80 dB down carries the frame's absolute rounding, 1e-7 of the peak, as a
        // relative 1e-3).
        #expect(worst40 <= 0.0005, "\(file): \(worst40) dB")
        #expect(worst80 <= 0.02, "\(file): \(worst80) dB")
    }
    #endif
}
