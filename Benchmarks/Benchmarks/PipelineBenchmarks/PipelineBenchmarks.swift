// The whole per-stream front end (SpeechFrontEnd with every stage on, its default: downmix,
// resample to 16 kHz, Int16, levels, loudness, clipping, detection (AcousticDetector per
// 1024-sample 16 kHz frame) and environment), 1024-frame pushes at 48 kHz stereo, 48 kHz mono
// and 44.1 kHz mono, on speech-like audio (BenchmarkSignals).
// Each scaled iteration is one push, so × real time = (1024 / inputRate) / time per push = the
// number of real-time streams one core sustains. Mallocs per push are recorded (CI: 0).
import Benchmark
import BenchmarkBudget
import BenchmarkSignals
import DSPCore
import DSPPipeline

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: BenchmarkBudget.duration(.seconds(2)),
        maxIterations: BenchmarkBudget.iterations(200)
    )
    let push = 1024

    for (inputRate, channels) in [(48_000, 2), (48_000, 1), (44_100, 1)] {
        let seconds = 10
        let frames = inputRate * seconds
        let input = UnsafeMutableBufferPointer<Float>.allocate(capacity: frames * channels)
        // Speech-like audio at the input rate (the signal DetectionBenchmarks runs at 16 kHz);
        // a second channel carries the same signal 0.5 s later and 6 dB quieter.
        let speech = makeSpeechLike(seconds: seconds, rate: inputRate)
        let lag = inputRate / 2
        for i in 0..<frames {
            input[i * channels] = speech[i]
            if channels == 2 { input[i * channels + 1] = i >= lag ? 0.5 * speech[i - lag] : 0 }
        }
        speech.deallocate()
        let frontEnd = try! SpeechFrontEnd(configuration: .init(inputRate: inputRate, channelCount: channels))
        let output = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 4096)
        let events = FrontEndEventBuffer(capacity: frontEnd.maxEventCount(forInputCount: push * channels))
        let label = "\(inputRate == 48_000 ? "48k" : "44k1")_\(channels == 2 ? "stereo" : "mono")"
        var offset = 0
        Benchmark("Pipeline.\(label)_1024_push_(SpeechDSP)", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                let n = push * channels
                let result = frontEnd.process(UnsafeBufferPointer(rebasing: input[offset..<offset + n]), into: output, events: events)
                blackHole(result)
                offset = offset + 2 * n > input.count ? 0 : offset + n
            }
        }
    }
}
