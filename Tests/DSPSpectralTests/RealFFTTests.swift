import DSPCore
import DSPSpectral
import Foundation
import Synchronization
import Testing

/// Runs `forward` on an array, returning (real, imaginary).
private func spectrum(_ fft: RealFFT, _ input: [Float]) -> ([Float], [Float]) {
    var real = [Float](repeating: .nan, count: fft.binCount)
    var imaginary = [Float](repeating: .nan, count: fft.binCount)
    input.withUnsafeBufferPointer { source in
        real.withUnsafeMutableBufferPointer { re in
            imaginary.withUnsafeMutableBufferPointer { im in fft.forward(source, real: re, imaginary: im) }
        }
    }
    return (real, imaginary)
}

/// A deterministic pseudo-random signal in −1 ... 1.
private func noise(count: Int, seed: UInt64) -> [Float] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Float(Double(Int64(bitPattern: state) >> 11) / Double(1 << 52))
    }
}

@Suite("RealFFT")
struct RealFFTTests {
    @Test("A bin-centred sine gives |X[k]| = A·N/2 and near zero elsewhere",
          arguments: FFTImplementation.available, [(64, 5), (512, 37), (1000, 123), (4096, 1), (1030, 200)])
    func sineBin(implementation: FFTImplementation, sizeAndBin: (Int, Int)) throws {
        let (size, bin) = sizeAndBin
        let fft = try RealFFT(size: size, implementation: implementation)
        #expect(fft.implementation == implementation)
        #expect(fft.binCount == size / 2 + 1)
        let amplitude: Float = 0.75
        let input = (0..<size).map { amplitude * Float(sin(2 * Double.pi * Double(bin * $0) / Double(size) + 0.3)) }
        let (real, imaginary) = spectrum(fft, input)
        let expected = amplitude * Float(size) / 2
        for k in 0..<fft.binCount {
            let magnitude = (real[k] * real[k] + imaginary[k] * imaginary[k]).squareRoot()
            if k == bin {
                #expect(abs(magnitude - expected) <= 1e-4 * expected)
            } else {
                #expect(magnitude <= 1e-4 * expected, "bin \(k): \(magnitude)")
            }
        }
        #expect(imaginary[0] == 0)
        #expect(imaginary[size / 2] == 0)

        var power = [Float](repeating: 0, count: fft.binCount)
        input.withUnsafeBufferPointer { source in power.withUnsafeMutableBufferPointer { fft.powerSpectrum(source, into: $0) } }
        #expect(abs(power[bin] - expected * expected) <= 1e-3 * expected * expected)
    }

    @Test("A constant c gives X[0] = c·N", arguments: FFTImplementation.available, [2, 6, 256, 526])
    func constant(implementation: FFTImplementation, size: Int) throws {
        let fft = try RealFFT(size: size, implementation: implementation)
        let (real, imaginary) = spectrum(fft, [Float](repeating: 0.25, count: size))
        #expect(abs(real[0] - 0.25 * Float(size)) < 1e-5)
        #expect(real.dropFirst().allSatisfy { abs($0) < 1e-5 })
        #expect(imaginary.allSatisfy { abs($0) < 1e-5 })
    }

    @Test("Parseval: Σx² = (P[0] + 2·ΣP[1..N/2−1] + P[N/2]) / N", arguments: FFTImplementation.available, [8, 256, 1024, 4410])
    func parseval(implementation: FFTImplementation, size: Int) throws {
        let fft = try RealFFT(size: size, implementation: implementation)
        let input = noise(count: size, seed: UInt64(size))
        var power = [Float](repeating: 0, count: fft.binCount)
        input.withUnsafeBufferPointer { source in power.withUnsafeMutableBufferPointer { fft.powerSpectrum(source, into: $0) } }
        let timeEnergy = input.reduce(0.0) { $0 + Double($1) * Double($1) }
        var spectralEnergy = Double(power[0]) + Double(power[size / 2])
        for k in 1..<(size / 2) { spectralEnergy += 2 * Double(power[k]) }
        spectralEnergy /= Double(size)
        #expect(abs(spectralEnergy - timeEnergy) <= 1e-5 * timeEnergy)
    }

    @Test("forward then inverse returns N·x", arguments: FFTImplementation.available, [2, 4, 64, 480, 1024, 1046, 65_536])
    func roundTrip(implementation: FFTImplementation, size: Int) throws {
        let fft = try RealFFT(size: size, implementation: implementation)
        let input = noise(count: size, seed: 7)
        var (real, imaginary) = spectrum(fft, input)
        // Garbage in the ignored imaginary parts must not matter.
        imaginary[0] = 123
        imaginary[size / 2] = -45
        var output = [Float](repeating: .nan, count: size)
        real.withUnsafeBufferPointer { re in
            imaginary.withUnsafeBufferPointer { im in
                output.withUnsafeMutableBufferPointer { fft.inverse(real: re, imaginary: im, into: $0) }
            }
        }
        let scale = Float(size)
        let tolerance = 1e-5 * Float(size).squareRoot() * scale * 4
        for index in 0..<size {
            #expect(abs(output[index] - scale * input[index]) <= tolerance, "sample \(index)")
        }
        // The spectrum passed in is left as it was.
        #expect(imaginary[0] == 123)
    }

    @Test("Size 64 matches a naive DFT (in Double) within 1e-4", arguments: FFTImplementation.available)
    func naiveDFT(implementation: FFTImplementation) throws {
        let size = 64
        let fft = try RealFFT(size: size, implementation: implementation)
        let input = noise(count: size, seed: 99)
        let (real, imaginary) = spectrum(fft, input)
        for k in 0...(size / 2) {
            var re = 0.0
            var im = 0.0
            for t in 0..<size {
                let angle = -2 * Double.pi * Double(k * t) / Double(size)
                re += Double(input[t]) * cos(angle)
                im += Double(input[t]) * sin(angle)
            }
            #expect(abs(Double(real[k]) - re) < 1e-4, "bin \(k) real")
            #expect(abs(Double(imaginary[k]) - im) < 1e-4, "bin \(k) imaginary")
        }
    }

    @Test("Invalid sizes throw ConfigurationError naming the size", arguments: FFTImplementation.available, [-2, 0, 1, 3, 1023, 65_538, 131_072])
    func invalidSizes(implementation: FFTImplementation, size: Int) {
        #expect(!implementation.supports(size: size))
        #expect(throws: ConfigurationError.self) { _ = try RealFFT(size: size, implementation: implementation) }
        do {
            _ = try RealFFT(size: size, implementation: implementation)
        } catch {
            #expect(error.parameter == "size")
            #expect(error.value == "\(size)")
            #expect(error.expected == "even, 2...65536")
        }
    }

    @Test("Many threads creating, using and destroying FFTs at once agree bit for bit", arguments: FFTImplementation.available)
    func concurrentPlanning(implementation: FFTImplementation) throws {
        let sizes = [64, 256, 1000, 2048, 4096, 10_000, 1030]
        let inputs = sizes.map { noise(count: $0, seed: UInt64($0)) }
        let reference = try zip(sizes, inputs).map { size, input in
            spectrum(try RealFFT(size: size, implementation: implementation), input)
        }
        try concurrentRun(sizes: sizes, inputs: inputs, reference: reference, implementation: implementation)
    }
}

/// Starts `threadCount` threads running `body(index)` and waits for all of them.
private func runAndJoin(threadCount: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<threadCount {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.start()
    }
    group.wait()
}

/// Sixteen threads each build every size (in a different order), transform, and destroy,
/// five rounds over; every spectrum must equal the single-threaded reference exactly.
private func concurrentRun(
    sizes: [Int], inputs: [[Float]], reference: [([Float], [Float])], implementation: FFTImplementation
) throws {
    let mismatches = Mutex(0)
    let failures = Mutex(0)
    runAndJoin(threadCount: 16) { index in
        do {
            for round in 0..<5 {
                for offset in sizes.indices {
                    let which = (offset + index + round) % sizes.count
                    let fft = try RealFFT(size: sizes[which], implementation: implementation)
                    let (real, imaginary) = spectrum(fft, inputs[which])
                    if real != reference[which].0 || imaginary != reference[which].1 {
                        mismatches.withLock { $0 += 1 }
                    }
                }
            }
        } catch {
            failures.withLock { $0 += 1 }
        }
    }
    #expect(mismatches.withLock { $0 } == 0)
    #expect(failures.withLock { $0 } == 0)
}
