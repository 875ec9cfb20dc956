// The detection stack at 16 kHz: AcousticDetector (voice activity, music, multiple speakers on
// SpectralAnalyzer's 64 ms / 16 ms frames; with the per-task models, and with a detection network) and SpectralAnalyzer alone, and AnalysisChain (what
// SpeechFrontEnd runs on its 16 kHz stream) with and without the environment stage, 1024-sample
// pushes.
// Each scaled iteration is one push (four analysis frames), so × real time = (1024 / 16000) /
// time per push. Mallocs per push are recorded (CI: 0, Thresholds/).
import Benchmark
import BenchmarkBudget
import BenchmarkSignals
import DSPDetection
import DSPSpectral

/// A ``DetectionNetwork`` over `lanes` with two causal convolutions (widths 5 and 3, `channels`
/// each) and a GRU of `hidden` units, its weights seeded pseudo-random values in ±0.1.
func makeDetectionNetwork(lanes: [Int], channels: Int, hidden: Int) -> DetectionNetwork {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func values(_ count: Int) -> [Float] {
        (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int64(bitPattern: state >> 11) % 2001 - 1000) * 1e-4
        }
    }
    let n = lanes.count
    return DetectionNetwork(
        inputLanes: lanes, inputMean: [Float](repeating: 0, count: n), inputScale: [Float](repeating: 10, count: n),
        convolutions: [.init(width: 5, outputCount: channels, weights: values(channels * 5 * n), bias: values(channels)),
                       .init(width: 3, outputCount: channels, weights: values(channels * 3 * channels), bias: values(channels))],
        hiddenCount: hidden, recurrentInputWeights: values(3 * hidden * channels), recurrentInputBias: values(3 * hidden),
        recurrence: GatedRecurrence(weights: values(3 * hidden * hidden), bias: values(3 * hidden)),
        outputWeights: values(3 * hidden), outputBias: values(3))
}

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

    // With a detection network in place of the per-task models (Configuration.network): one of
    // the shape train_network.py fits by default (83 lanes, convolutions 5 × 64 and 3 × 64, a GRU
    // of 48 units), with seeded weights: its cost does not depend on their values.
    var withNetwork = AcousticDetector.Configuration()
    withNetwork.network = makeDetectionNetwork(lanes: Array(0..<43) + Array(45..<85), channels: 64, hidden: 48)
    let networkDetector = try! AcousticDetector(configuration: withNetwork)
    Benchmark("Detection.AcousticDetector_network_16k_1024_push", configuration: configuration) { benchmark in
        pushes(benchmark) { block in
            networkDetector.process(block) { frame in blackHole(frame.speechProbability) }
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
