import DSPSpectral
import Foundation
import Testing
import TestSupport

/// FFTW's planner is not thread-safe: RealFFT and SpectralAnalyzer build their plans under one
/// lock. Plans built on several threads at once must work and give the serial results bit for
/// bit. Run under ThreadSanitizer in CI (`.ci/run`).
@Suite("FFT plans built on several threads at once")
struct ConcurrentPlanTests {
    static let sizes = [64, 128, 256, 480, 512, 1000, 1024, 2048, 4096]

    /// The spectrum of a fixed signal through a fresh plan of `size`.
    static func spectrum(size: Int) throws -> [UInt32] {
        let fft = try RealFFT(size: size)
        for i in 0..<size { fft.forwardInput[i] = sinf(Float(i) * 0.37) + Float(i % 7) / 7 }
        fft.executeForward()
        return fft.interleavedSpectrum.map(\.bitPattern)
    }

    @Test("8 threads × 3 rounds building RealFFT and SpectralAnalyzer plans of every size")
    func concurrentPlans() throws {
        let expected = try Self.sizes.map(Self.spectrum(size:))
        let failures = LockedList<String>()
        let group = DispatchGroup()
        for thread in 0..<8 {
            group.enter()
            Thread {
                defer { group.leave() }
                for round in 0..<3 {
                    for (index, size) in Self.sizes.enumerated().shuffled(seed: thread * 3 + round) {
                        do {
                            if try Self.spectrum(size: size) != expected[index] { failures.append("size \(size) differs") }
                            _ = try SpectralAnalyzer(configuration: .init(windowLength: size >= 1024 ? size : 1024, hopLength: 256))
                        } catch {
                            failures.append("size \(size): \(error)")
                        }
                    }
                }
            }.start()
        }
        group.wait()
        #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")
    }
}

private extension Sequence {
    /// A deterministic shuffle (a seeded Fisher–Yates), so each thread plans in its own order.
    func shuffled(seed: Int) -> [Element] {
        var items = Array(self)
        var state = UInt64(seed) &+ 0x9E37_79B9_7F4A_7C15
        for i in stride(from: items.count - 1, to: 0, by: -1) {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            items.swapAt(i, Int((state >> 33) % UInt64(i + 1)))
        }
        return items
    }
}
