// Resampling 48 → 16 kHz and 44.1 → 16 kHz, mono, 1024-sample pushes: SpeechDSP's presets beside
// libsoxr (HQ, VHQ), libsamplerate (best, medium, fastest) and speexdsp (3, 5, 10) in the same
// run. Each scaled iteration is one 1024-sample push (cycling through 10 s of noise), so the
// time is per push and × real time = (1024 / inputRate) / time. SpeechDSP's benchmarks record
// mallocs per push (CI: 0).
import Benchmark
import CPeerResamplers
import DSPCore

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 200
    )
    let push = 1024

    for inputRate in [48_000, 44_100] {
        let seconds = 10
        let count = inputRate * seconds
        let input = UnsafeMutableBufferPointer<Float>.allocate(capacity: count)
        var state: UInt32 = 12_345
        for i in 0..<count {
            state = state &* 1_664_525 &+ 1_013_904_223
            input[i] = 0.5 * Float(Int32(bitPattern: state)) * 0x1p-31
        }
        let output = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096)
        let label = inputRate == 48_000 ? "48k" : "44k1"

        for quality in Resampler.Quality.allCases {
            let resampler = try! Resampler(inputRate: inputRate, outputRate: 16_000, quality: quality)
            var offset = 0
            Benchmark("Resample.\(label)_to_16k_\(quality)_(SpeechDSP)", configuration: configuration) { benchmark in
                for _ in benchmark.scaledIterations {
                    let result = resampler.process(UnsafeBufferPointer(rebasing: input[offset..<offset + push]), into: output)
                    blackHole(result)
                    offset = offset + 2 * push > count ? 0 : offset + push
                }
            }
        }

        let peers: [(String, () -> OpaquePointer?)] = [
            ("libsoxr_HQ", { peer_soxr_create(Double(inputRate), 16_000, 4) }),
            ("libsoxr_VHQ", { peer_soxr_create(Double(inputRate), 16_000, 6) }),
            ("libsamplerate_best", { peer_src_create(Double(inputRate), 16_000, 0) }),
            ("libsamplerate_medium", { peer_src_create(Double(inputRate), 16_000, 1) }),
            ("libsamplerate_fastest", { peer_src_create(Double(inputRate), 16_000, 2) }),
            ("speexdsp_q3", { peer_speex_create(UInt32(inputRate), 16_000, 3) }),
            ("speexdsp_q5", { peer_speex_create(UInt32(inputRate), 16_000, 5) }),
            ("speexdsp_q10", { peer_speex_create(UInt32(inputRate), 16_000, 10) }),
        ]
        for (name, make) in peers {
            guard let peer = make() else { continue }
            var offset = 0
            Benchmark("Resample.\(label)_to_16k_(\(name))", configuration: configuration) { benchmark in
                for _ in benchmark.scaledIterations {
                    blackHole(peer_process(peer, input.baseAddress! + offset, push, output.baseAddress, output.count))
                    offset = offset + 2 * push > count ? 0 : offset + push
                }
            }
        }
    }
}
