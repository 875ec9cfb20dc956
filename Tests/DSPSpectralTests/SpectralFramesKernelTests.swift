import CDSPKernels
import Testing

// cdsp_spectral_frame_dots against cdsp_spectral_dot (itself held to the Swift eight-lane loop
// in SpectralKernelTests), bit for bit, on whatever clone the CPU selects.

/// A deterministic signal in −1 … 1 (a 64-bit LCG).
private func signal(count: Int, seed: UInt64) -> [Float] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Float(Double(Int64(bitPattern: state) >> 11) / Double(1 << 52))
    }
}

@Suite("Detection frame kernels")
struct SpectralFramesKernelTests {
    @Test("frame dots equal cdsp_spectral_dot per frame, bit for bit",
          arguments: [(1024, 256), (64, 16), (100, 30), (1030, 257), (8, 8), (9, 1)])
    func frameDotsMatchDot(_ n: Int, _ hop: Int) {
        var mismatches: [String] = []
        for seed in UInt64(0)..<12 {
            var x = signal(count: n + 4 * hop + 8, seed: seed)
            let window = signal(count: n, seed: seed &+ 100).map { abs($0) }
            // Edge values somewhere in some frames: NaN, ±Inf, near overflow, subnormals, −0.
            switch seed {
            case 8: x[n / 2] = .nan
            case 9: x[n - 1] = .infinity; x[hop] = -.infinity
            case 10: for i in x.indices where i % 3 == 0 { x[i] = 3e38 }
            case 11: for i in x.indices { x[i] = i % 2 == 0 ? .leastNonzeroMagnitude : -0.0 }
            default: break
            }
            for frames in 1...4 {
                for hopCount in [hop, max(1, hop / 2)] {  // a full hop, and a shorter valid count
                    var dots = [Float](repeating: 0, count: 4), energies = [Float](repeating: 0, count: 4)
                    x.withUnsafeBufferPointer { px in
                        window.withUnsafeBufferPointer { pw in
                            cdsp_spectral_frame_dots(px.baseAddress!, hop, frames, pw.baseAddress!, n, n - hop, hopCount, &dots, &energies)
                            for i in 0..<frames {
                                let f = px.baseAddress! + i * hop
                                let dot = cdsp_spectral_dot(f, pw.baseAddress!, n)
                                let energy = cdsp_spectral_dot(f + n - hop, f + n - hop, hopCount)
                                if dot.bitPattern != dots[i].bitPattern || energy.bitPattern != energies[i].bitPattern {
                                    mismatches.append("n \(n) seed \(seed) frames \(frames) frame \(i): \(dots[i]) \(energies[i]) vs \(dot) \(energy)")
                                }
                            }
                        }
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(4))")
    }

    @Test("copy moves every float bit for bit and nothing else", arguments: [0, 1, 7, 8, 9, 31, 32, 33, 100, 3329])
    func copy(_ count: Int) {
        var source = signal(count: count + 3, seed: UInt64(count))
        if count > 2 { source[1] = .nan; source[2] = -0.0 }
        for offset in 0..<3 {
            var destination = [Float](repeating: 42, count: count + 5)
            source.withUnsafeBufferPointer { s in
                destination.withUnsafeMutableBufferPointer { d in cdsp_spectral_copy(d.baseAddress! + 1, s.baseAddress! + offset, count) }
            }
            #expect(destination[0] == 42 && destination[count + 1] == 42, "count \(count): wrote outside")
            #expect(destination[1..<(count + 1)].map(\.bitPattern) == source[offset..<(offset + count)].map(\.bitPattern), "count \(count) offset \(offset)")
        }
    }
}
