// detection: the detection stack (AcousticDetector: spectral analysis, cues, three models,
// segmenters) on the audio resampled to 16 kHz once at set-up (Resampler, default preset, not
// timed), in pushes of --frame samples; measured side by side with it, voice activity alone
// (music and multi-speaker detection off), the detector with a 32-unit GRU of seeded weights as
// its music model (what a recurrent model costs) and SpectralAnalyzer alone, each set against
// the whole detector. No peer runs here: WebRTC VAD (not a Debian C library SpeechDSP links) and
// Silero VAD (ONNX, Python) are measured by scripts/detect/run_peers_detect.py.
import DSPDetection
import DSPSpectral

enum DetectionKernels {
    static func make(_ context: SuiteContext) -> [Kernel] {
        if context.compare {
            context.notes.add("detection: no peer in dspbench; WebRTC VAD and Silero VAD (Python) are measured by scripts/detect/run_peers_detect.py")
        }
        guard let input = AnalysisInput(context, suite: .detection) else { return [] }
        let frames = input.frames
        let together = "detection-16k"
        let wholeID = Kernel.id(.detection, "every-detector", "speechdsp")
        var kernels: [Kernel] = []

        var voiceActivityOnly = AcousticDetector.Configuration()
        voiceActivityOnly.detectsMusic = false
        voiceActivityOnly.detectsMultipleSpeakers = false
        var musicGRU = AcousticDetector.Configuration()
        musicGRU.musicModel = Self.recurrentModel(like: DefaultModels.music, hidden: 32)
        let detectors: [(group: String, name: String, configuration: AcousticDetector.Configuration)] = [
            ("every-detector", "AcousticDetector 16 kHz: speech, music, several speakers", .init()),
            ("voice-activity", "AcousticDetector 16 kHz: voice activity alone", voiceActivityOnly),
            ("music-gru", "AcousticDetector 16 kHz, a 32-unit GRU (seeded weights) as the music model", musicGRU),
        ]
        for d in detectors {
            do {
                let detector = try AcousticDetector(configuration: d.configuration)
                detector.reserveWorkspace()  // this thread's workspace now, not in the first timed push
                let tally = Sink()
                kernels.append(Kernel(
                    suite: .detection, group: d.group, name: d.name,
                    implementation: "SpeechDSP", slug: "speechdsp", isOurs: true, isGroupReference: true,
                    frames: frames, audioSecondsPerPass: input.seconds,
                    measuredWith: together, analysisFrames: input.schedule,
                    relativeTo: d.group == "every-detector" ? nil : wholeID,
                    reset: { detector.reset() }, sink: tally
                ) { i in
                    detector.process(frames[i]) { frame in
                        tally.count &+= 1
                        tally.total += Double(frame.speechProbability + frame.musicProbability + frame.multiSpeakerProbability)
                    }
                    return true
                })
            } catch {
                context.notes.add("detection: SpeechDSP \(d.group): \(error)")
            }
        }

        do {
            let analyzer = try SpectralAnalyzer()
            analyzer.reserveWorkspace()
            let tally = Sink()
            kernels.append(Kernel(
                suite: .detection, group: "spectral-analysis", name: "SpectralAnalyzer 16 kHz alone (reference)",
                implementation: "SpeechDSP", slug: "speechdsp", isOurs: true, isGroupReference: true,
                frames: frames, audioSecondsPerPass: input.seconds,
                measuredWith: together, analysisFrames: input.schedule, relativeTo: wholeID,
                reset: { analyzer.reset() }, sink: tally
            ) { i in
                analyzer.process(frames[i]) { frame in
                    tally.count &+= 1
                    tally.total += Double(frame.features.framePower)
                }
                return true
            })
        } catch {
            context.notes.add("detection: SpeechDSP spectral-analysis: \(error)")
        }
        return kernels
    }

    /// A GRU model with `hidden` units over `model`'s lanes and standardisation, its weights
    /// drawn from a fixed linear congruential sequence (±0.3): the cost of a recurrent model of
    /// that shape (docs/detection.md, "Recurrent models in a batch"), not a fitted one.
    static func recurrentModel(like model: ProbabilityModel, hidden: Int) -> ProbabilityModel {
        var state: UInt64 = 0x5DEE_CE66_D1CE_4E5B
        func values(_ count: Int) -> [Float] {
            (0..<count).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Float(Double(state >> 11) / Double(1 << 53) * 0.6 - 0.3)
            }
        }
        let rows = 3 * hidden
        return ProbabilityModel(
            inputCount: model.inputCount, inputLanes: model.inputLanes, inputMean: model.inputMean,
            inputScale: model.inputScale, hiddenWeights: values(rows * model.inputCount), hiddenBias: values(rows),
            outputWeights: values(hidden), outputBias: 0,
            recurrence: GatedRecurrence(weights: values(rows * hidden), bias: values(rows)))
    }
}

/// What the detection and environment suites push: the benchmark audio's mono view resampled
/// to 16 kHz (once, outside timing), cut into pushes of `--frame` samples, and where those
/// pushes complete the detector's analysis frames.
struct AnalysisInput {
    /// The analysis rate, Hz.
    static let sampleRate = 16_000

    let samples: Scratch<Float>
    let frames: FrameSource
    let seconds: Double
    let schedule: AnalysisFrameSchedule

    /// Nil (with a note) when the audio cannot be resampled or holds no whole push.
    init?(_ context: SuiteContext, suite: Suite) {
        do {
            samples = try context.audio.mono(resampledTo: Self.sampleRate)
            frames = FrameSource(UnsafeBufferPointer(samples.buffer), samplesPerFrame: context.frameLength)
            seconds = Double(frames.pushedSamples) / Double(Self.sampleRate)
            schedule = try AnalysisFrameSchedule(pushes: frames)
        } catch {
            context.notes.add("\(suite.rawValue): no 16 kHz input: \(error)")
            return nil
        }
        if context.audio.sampleRate != Self.sampleRate {
            context.notes.add("detection, environment: the audio's mono view resampled to 16 kHz by Resampler (default preset) at set-up, not timed")
        }
    }
}
