#if FFTW
@testable import DSPSpectral
import Foundation
import Testing
import TestSupport

// The FFTW backend's split route (FFTW's half-size complex DFT, then cdsp_fftw_real_split) must
// give FFTW's own r2c spectra bit for bit. `FFTWBackend.init` checks four frames before it
// takes the route; this checks many more, at every scale the analysis meets, against the r2c
// plan itself (the oracle: FFTW's code, not ours), and that the route is taken where it pays.
@Suite("FFTW backend: the split route")
struct FFTWSplitRouteTests {
    /// The library's sizes (the spectrum's 1024, the autocorrelation's 512, the estimators'
    /// powers of two), small multiples of 4, and sizes whose half is odd (no split route).
    static let sizes = [8, 12, 64, 256, 512, 1000, 1024, 2048, 4096, 6, 10, 1030]

    /// Where the route pays: every multiple of 4 from 64 (on Debian's FFTW 3.3, whose r2c plans
    /// there are the half-size DFT and the split). Below, FFTW plans 8 and 12 points as one
    /// direct codelet, whose bits the split route does not give: `init`'s check keeps the r2c
    /// plan there (measured; `bitIdentical` holds either way). Odd halves never split.
    @Test("taken for every multiple of 4 from 64 on this FFTW build, never for odd halves", arguments: sizes)
    func routeIsTaken(size: Int) throws {
        let backend = try FFTWBackend(size: size)
        if size % 4 != 0 {
            #expect(!backend.usesSplitRoute, "size \(size)")
        } else if size >= 64 {
            #expect(backend.usesSplitRoute, "size \(size)")
        }
    }

    @Test("the r2c plan's spectra bit for bit: noise at 1e-30…1e30, silence, −0, an impulse, a sine", arguments: sizes)
    func bitIdentical(size: Int) throws {
        let backend = try FFTWBackend(size: size)
        let bins = size / 2 + 1
        let input = UnsafeMutableRawPointer.allocate(byteCount: 4 * size, alignment: 64).bindMemory(to: Float.self, capacity: size)
        let ours = UnsafeMutableRawPointer.allocate(byteCount: 8 * bins, alignment: 64).bindMemory(to: Float.self, capacity: 2 * bins)
        let theirs = UnsafeMutableRawPointer.allocate(byteCount: 8 * bins, alignment: 64).bindMemory(to: Float.self, capacity: 2 * bins)
        defer { input.deallocate(); ours.deallocate(); theirs.deallocate() }
        var generator = SplitMix64(seed: UInt64(size))
        var differing = 0, frames = 0
        for frame in 0..<200 {
            let kind = frame % 8
            let scale = Float(pow(10, Double(frame % 61) - 30))
            for t in 0..<size {
                let noise = Float(generator.uniform()) * scale
                switch kind {
                case 0: input[t] = 0
                case 1: input[t] = -0.0
                case 2: input[t] = t == frame % size ? scale : 0
                case 3: input[t] = scale * Float(sin(0.37 * Double(t) + Double(frame)))
                default: input[t] = noise
                }
            }
            let scratch = input  // unused by FFTW (externalScratchCount 0)
            backend.executeForward(input: input, spectrum: ours, scratch: scratch)
            backend.executeR2CPlan(input: input, spectrum: theirs)
            for i in 0..<(2 * bins) where ours[i].bitPattern != theirs[i].bitPattern { differing += 1 }
            frames += 1
        }
        #expect(frames == 200 && differing == 0, "size \(size): \(differing) floats differ")
    }
}
#endif
