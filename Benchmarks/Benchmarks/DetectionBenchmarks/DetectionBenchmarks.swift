// The detection stack at 16 kHz: AcousticDetector (voice activity, music, multiple speakers on
// SpectralAnalyzer's 64 ms / 16 ms frames) and SpectralAnalyzer alone, and AnalysisChain (what
// SpeechFrontEnd runs on its 16 kHz stream) with and without the environment stage, 1024-sample
// pushes.
// Each scaled iteration is one push (four analysis frames), so × real time = (1024 / 16000) /
// time per push. Mallocs per push are recorded (CI: 0, Thresholds/).
import Benchmark
import BenchmarkBudget
import BenchmarkSignals
import DSPDetection
import DSPSpectral

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: BenchmarkBudget.duration(.seconds(2)),
        maxIterations: BenchmarkBudget.iterations(200)
    )
    let push = 1024
    let input = makeSpeechLike(seconds: 10)

    /// Pushes 1024 samples per scaled iteration, wrapping around the 10 s of audio.
    func pushes(_ benchmark: Benchmark, _ process: (UnsafeBufferPointer<Float>) -> Void) {
        var offset = 0
        for _ in benchmark.scaledIterations {
            process(UnsafeBufferPointer(rebasing: input[offset..<offset + push]))
            offset = offset + 2 * push > input.count ? 0 : offset + push
        }
    }

    let detector = try! AcousticDetector()
    Benchmark("Detection.AcousticDetector_16k_1024_push", configuration: configuration) { benchmark in
        pushes(benchmark) { block in
            detector.process(block) { frame in blackHole(frame.speechProbability) }
        }
    }

    var speechOnly = AcousticDetector.Configuration()
    speechOnly.detectsMusic = false
    speechOnly.detectsMultipleSpeakers = false
    let voiceActivity = try! AcousticDetector(configuration: speechOnly)
    Benchmark("Detection.AcousticDetector_speech_only_16k_1024_push", configuration: configuration) { benchmark in
        pushes(benchmark) { block in
            voiceActivity.process(block) { frame in blackHole(frame.speechProbability) }
        }
    }

    // As SpeechFrontEnd builds it: the environment analyzer (with the reverberation and prosody
    // estimators) over 1024-sample analysis frames, or none.
    for (label, environment) in [("", EnvironmentAnalyzer.Configuration()), ("_no_environment", nil)] {
        let chain = try! AnalysisChain(configuration: .init(environment: environment, frameLength: 1024))
        let events = UnsafeMutableBufferPointer<AnalysisEvent>.allocate(capacity: chain.outputCapacity(forInputCount: push))
        Benchmark("Detection.AnalysisChain\(label)_16k_1024_push", configuration: configuration) { benchmark in
            pushes(benchmark) { block in
                blackHole(chain.process(block, into: events).produced)
            }
        }
    }

    let analyzer = try! SpectralAnalyzer()
    Benchmark("Detection.SpectralAnalyzer_16k_1024_push", configuration: configuration) { benchmark in
        pushes(benchmark) { block in
            analyzer.process(block) { frame in blackHole(frame.features) }
        }
    }
}
