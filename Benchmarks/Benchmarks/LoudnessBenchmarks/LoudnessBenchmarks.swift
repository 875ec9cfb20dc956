// Loudness (BS.1770 / EBU R 128): SpeechDSP's LoudnessMeter beside libebur128 1.2.6 in the same
// run, mono and stereo, with and without true peak. Both measure integrated loudness and
// loudness range; libebur128 in its default (exact) mode, which allocates a list node per
// 100 ms block — so its mallocCountTotal is not 0, and ours must be.
import Benchmark
import BenchmarkBudget
import CBenchReferences
import DSPAnalysis

/// Deterministic programme-like audio: a swept tone with noise under a slow envelope that
/// dips to near silence (speech-like pauses), about −20 dBFS RMS, interleaved.
func makeProgramme(frames: Int, channels: Int) -> UnsafeMutableBufferPointer<Float> {
    let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: frames * channels)
    var state: UInt32 = 0x1234_5678
    var phase: Float = 0
    for i in 0..<frames {
        phase += 0.03 + 0.02 * Float(i % 48_000) / 48_000
        if phase > 6.283_185 { phase -= 6.283_185 }
        let envelope = 0.5 + 0.45 * Float((i / 9_600) % 7) / 6  // steps every 200 ms
        for c in 0..<channels {
            state = state &* 1_664_525 &+ 1_013_904_223
            let noise = Float(Int32(bitPattern: state)) * 0x1p-31
            let tone = (phase < 3.141_592 ? phase - 1.5 : 4.7 - phase) / 1.6
            buffer[i * channels + c] = envelope * (0.2 * tone + 0.05 * noise) * (c == 0 ? 1 : 0.8)
        }
    }
    return buffer
}

let pushFrames = 1024

let benchmarks: @Sendable () -> Void = {
    /// 1000 pushes of 1024 frames per iteration (21.3 s of audio at 48 kHz).
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .throughput, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: BenchmarkBudget.duration(.seconds(3)),
        maxIterations: BenchmarkBudget.iterations(50)
    )

    for (channels, rate) in [(1, 48_000), (2, 48_000), (1, 16_000)] {
        let layout: LoudnessMeter.ChannelLayout = channels == 1 ? .mono : .stereo
        let name = "\(channels == 1 ? "mono" : "stereo")_\(rate / 1000)k"
        // Enough distinct audio that the gating histograms see a real distribution.
        let audioFrames = 64 * pushFrames
        let audio = makeProgramme(frames: audioFrames, channels: channels)
        for truePeak in [false, true] {
            let suffix = truePeak ? "_truepeak" : ""
            let meter = try! LoudnessMeter(configuration: .init(sampleRate: rate, channelLayout: layout, measuresTruePeak: truePeak))
            Benchmark("Loudness.\(name)\(suffix)_1024_push_(SpeechDSP)", configuration: configuration) { benchmark in
                var offset = 0
                for _ in benchmark.scaledIterations {
                    meter.process(UnsafeBufferPointer(rebasing: audio[offset..<offset + pushFrames * channels]))
                    offset = (offset + pushFrames * channels) % (audioFrames * channels)
                }
                blackHole(meter.integratedLUFS)
                blackHole(meter.loudnessRangeLU)
            }
            // libebur128 through CBenchReferences' dlopen binding: ebur128_init with
            // EBUR128_MODE_I | EBUR128_MODE_LRA and the sample- or true-peak mode (skipped when
            // the library is absent).
            guard let reference = cbs_peer_loudness_create(UInt32(channels), UInt(rate), truePeak ? 1 : 0, nil, 0) else { continue }
            Benchmark("Loudness.\(name)\(suffix)_1024_push_(libebur128)", configuration: configuration) { benchmark in
                var offset = 0
                for _ in benchmark.scaledIterations {
                    _ = cbs_peer_loudness_add(reference, audio.baseAddress! + offset, pushFrames)
                    offset = (offset + pushFrames * channels) % (audioFrames * channels)
                }
                blackHole(cbs_peer_loudness_integrated(reference))
                blackHole(cbs_peer_loudness_range(reference))
            }
        }
    }
}
