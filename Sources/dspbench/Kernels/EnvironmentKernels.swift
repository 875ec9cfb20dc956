// environment: what the environment stage adds to detection, composed as SpeechFrontEnd
// composes it. The front end runs one AnalysisChain on its 16 kHz stream: the detector, the
// frame grouper and, with the environment stage, EnvironmentAnalyzer (a measurement twice a
// second) with the reverberation and prosody estimators; without the stage, the same chain with
// `environment: nil`. Both chains run on the audio resampled to 16 kHz (the detection suite's
// input), and the whole front end with every stage and with every stage but the environment
// at the audio's rate, mono; each pair is measured side by side and the first of each is set
// against the second (`relative_to`), so the difference is the environment stage's cost.
import DSPDetection
import DSPPipeline

enum EnvironmentKernels {
    static func make(_ context: SuiteContext) -> [Kernel] {
        var kernels: [Kernel] = []
        if let input = AnalysisInput(context, suite: .environment) {
            kernels += chains(input, context)
        }
        kernels += frontEnds(context)
        return kernels
    }

    /// AnalysisChain with the environment stage and without it, as SpeechFrontEnd builds it.
    private static func chains(_ input: AnalysisInput, _ context: SuiteContext) -> [Kernel] {
        let frames = input.frames
        let n = context.frameLength
        let detectionOnlyID = Kernel.id(.environment, "chain-detection", "speechdsp")
        let cases: [(group: String, name: String, environment: EnvironmentAnalyzer.Configuration?)] = [
            ("chain-detection-environment", "AnalysisChain 16 kHz: detection + environment", .init()),
            ("chain-detection", "AnalysisChain 16 kHz: detection alone", nil),
        ]
        var kernels: [Kernel] = []
        for c in cases {
            do {
                let chain = try AnalysisChain(configuration: .init(
                    environment: c.environment, frameLength: SpeechFrontEnd.analysisFrameLength))
                chain.reserveWorkspace()  // this thread's workspace now, not in the first timed push
                let events = Scratch<AnalysisEvent>(
                    count: chain.outputCapacity(forInputCount: n), repeating: .started(.speech, at: 0))
                let tally = Sink()
                kernels.append(Kernel(
                    suite: .environment, group: c.group, name: c.name,
                    implementation: "SpeechDSP", slug: "speechdsp", isOurs: true, isGroupReference: true,
                    frames: frames, audioSecondsPerPass: input.seconds,
                    measuredWith: "chain-16k", analysisFrames: input.schedule,
                    relativeTo: c.environment == nil ? nil : detectionOnlyID,
                    reset: { chain.reset() }, sink: tally
                ) { i in
                    let result = chain.process(frames[i], into: events.buffer)
                    tally.count &+= result.produced
                    return result.consumed == n
                })
            } catch {
                context.notes.add("environment: SpeechDSP \(c.group): \(error)")
            }
        }
        return kernels
    }

    /// SpeechFrontEnd at the audio's rate, mono, every stage and every stage but the environment.
    private static func frontEnds(_ context: SuiteContext) -> [Kernel] {
        let audio = context.audio
        let rate = audio.sampleRate
        let n = context.frameLength
        let frames = FrameSource(UnsafeBufferPointer(audio.mono.buffer), samplesPerFrame: n)
        let seconds = Double(frames.pushedSamples) / Double(rate)
        let khz = ResampleKernels.khz(rate)
        let withoutID = Kernel.id(.environment, "front-end-\(rate)-mono-no-environment", "speechdsp")
        let cases: [(group: String, name: String, stages: SpeechFrontEnd.Stages)] = [
            ("front-end-\(rate)-mono", "Front end \(khz) kHz mono: every stage", .all),
            ("front-end-\(rate)-mono-no-environment", "Front end \(khz) kHz mono: environment off",
             SpeechFrontEnd.Stages.all.subtracting(.environment)),
        ]
        var kernels: [Kernel] = []
        for c in cases {
            do {
                let frontEnd = try SpeechFrontEnd(configuration: .init(inputRate: rate, channelCount: 1, stages: c.stages))
                frontEnd.reserveWorkspace()
                let output = Scratch<Int16>(count: frontEnd.outputCapacity(forInputCount: n), repeating: 0)
                let events = FrontEndEventBuffer(capacity: frontEnd.maxEventCount(forInputCount: n))
                let tally = Sink()
                kernels.append(Kernel(
                    suite: .environment, group: c.group, name: c.name,
                    implementation: "SpeechDSP front end", slug: "speechdsp", isOurs: true, isGroupReference: true,
                    frames: frames, audioSecondsPerPass: seconds,
                    measuredWith: "front-end", relativeTo: c.stages == .all ? withoutID : nil,
                    reset: {
                        frontEnd.reset()
                        tally.count = 0
                    },
                    producedSamples: { tally.count }, sink: tally
                ) { i in
                    let result = frontEnd.process(frames[i], into: output.buffer, events: events)
                    tally.count &+= result.produced
                    tally.total += Double(result.events)
                    return result.consumed == n && result.droppedEvents == 0
                })
            } catch {
                context.notes.add("environment: SpeechDSP \(c.group): \(error)")
            }
        }
        return kernels
    }
}
