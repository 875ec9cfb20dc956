// Resampling 48 → 16 kHz and 44.1 → 16 kHz, mono, 1024-sample pushes: SpeechDSP's presets beside
// libsoxr (HQ, VHQ), libsamplerate (best, medium, fastest) and speexdsp (3, 5, 10) in the same
// run. Each scaled iteration is one 1024-sample push (cycling through 10 s of noise), so the
// time is per push and × real time = (1024 / inputRate) / time. SpeechDSP's benchmarks record
// mallocs per push (CI: 0).
import Benchmark
import BenchmarkBudget
import CBenchReferences
import DSPCore

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: BenchmarkBudget.duration(.seconds(2)),
        maxIterations: BenchmarkBudget.iterations(200)
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

        // The peers through CBenchReferences' dlopen bindings (skipped when a library is absent).
        let peers: [(String, cbs_peer_library, Int32)] = [
            ("libsoxr_HQ", CBS_PEER_SOXR, Int32(CBS_SOXR_HQ)),
            ("libsoxr_VHQ", CBS_PEER_SOXR, Int32(CBS_SOXR_VHQ)),
            ("libsamplerate_best", CBS_PEER_SAMPLERATE, Int32(CBS_SRC_SINC_BEST_QUALITY)),
            ("libsamplerate_medium", CBS_PEER_SAMPLERATE, Int32(CBS_SRC_SINC_MEDIUM_QUALITY)),
            ("libsamplerate_fastest", CBS_PEER_SAMPLERATE, Int32(CBS_SRC_SINC_FASTEST)),
            ("speexdsp_q3", CBS_PEER_SPEEXDSP, 3),
            ("speexdsp_q5", CBS_PEER_SPEEXDSP, 5),
            ("speexdsp_q10", CBS_PEER_SPEEXDSP, 10),
        ]
        for (name, library, quality) in peers {
            guard let peer = cbs_peer_resampler_create(library, quality, UInt32(inputRate), 16_000, 1, nil, 0) else { continue }
            var offset = 0
            Benchmark("Resample.\(label)_to_16k_(\(name))", configuration: configuration) { benchmark in
                for _ in benchmark.scaledIterations {
                    blackHole(cbs_peer_resampler_process(peer, input.baseAddress! + offset, push, output.baseAddress, output.count))
                    offset = offset + 2 * push > count ? 0 : offset + push
                }
            }
        }
    }
}
