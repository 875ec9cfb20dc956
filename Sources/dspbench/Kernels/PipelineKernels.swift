// pipeline: the whole per-stream front end (SpeechFrontEnd, every stage this build has) at the
// audio's rate in stereo and mono, and at 44.1 kHz mono; × real time is the number of real-time
// streams one core sustains. With --compare, libsoxr HQ resampling alone (mono, same rate pair)
// as a floor: it does a fraction of the work (no downmix, Int16, levels, loudness, clipping or
// detection). The Python peer pipeline (python-soxr HQ + WebRTC VAD) is measured by
// scripts/bench-pipeline-peers.py; scripts/bench-pipeline.sh runs both.
import DSPCore
import DSPPipeline

enum PipelineKernels {
    static func make(_ context: SuiteContext) -> [Kernel] {
        let audio = context.audio
        let n = context.frameLength
        var kernels: [Kernel] = []
        if audio.inputPath != nil, audio.sampleRate != 44_100 {
            context.notes.add("pipeline: for 44.1 kHz the input file's samples are taken to be at 44.1 kHz")
        }
        let cases: [(rate: Int, channels: Int, samples: Scratch<Float>)] = [
            (audio.sampleRate, 2, audio.stereo),
            (audio.sampleRate, 1, audio.mono),
            (44_100, 1, audio.mono(atRate: 44_100)),
        ]
        var seen = Set<String>()
        for c in cases {
            let group = "\(c.rate)-\(c.channels == 2 ? "stereo" : "mono")"
            guard seen.insert(group).inserted else { continue }
            let name = "\(ResampleKernels.khz(c.rate)) kHz \(c.channels == 2 ? "stereo" : "mono") → 16 kHz Int16 + analysis"
            let frames = FrontEndFrames(UnsafeBufferPointer(c.samples.buffer), channels: c.channels, framesPerPush: n)
            let seconds = Double(frames.source.pushedSamples / c.channels) / Double(c.rate)
            do {
                var configuration = SpeechFrontEnd.Configuration(
                    inputRate: c.rate, channelCount: c.channels, loopedBackgrounds: context.loopedBackgrounds)
                if !context.speechBlend { configuration.detector.speechBlend = nil }
                let frontEnd = try SpeechFrontEnd(configuration: configuration)
                frontEnd.reserveWorkspace()  // this thread's workspace now, not in the first timed push
                let output = Scratch<Int16>(count: frontEnd.outputCapacity(forInputCount: n * c.channels), repeating: 0)
                let events = FrontEndEventBuffer(capacity: frontEnd.maxEventCount(forInputCount: n * c.channels))
                let tally = Sink()
                kernels.append(Kernel(
                    suite: .pipeline, group: group, name: name,
                    implementation: "SpeechDSP front end", slug: "speechdsp", isOurs: true, isGroupReference: true,
                    frames: frames.source, audioSecondsPerPass: seconds,
                    reset: {
                        frontEnd.reset()
                        tally.count = 0
                    },
                    producedSamples: { tally.count }, sink: tally
                ) { i in
                    let result = frontEnd.process(frames.source[i], into: output.buffer, events: events)
                    tally.count &+= result.produced
                    tally.total += Double(result.events)
                    return result.consumed == frames.source.samplesPerFrame && result.droppedEvents == 0
                })
            } catch {
                context.notes.add("pipeline: SpeechDSP \(group): \(error)")
                continue
            }
            guard context.compare, c.channels == 1, context.peers.isAvailable(.soxr),
                let preset = PeerResamplerPreset.all.first(where: { $0.library == .soxr && $0.label == "HQ" })
            else { continue }
            do {
                let peer = try PeerResampler(preset, inputRate: c.rate, outputRate: 16_000)
                let output = Scratch<Float>(count: 2 * n + 4096, repeating: 0)
                let tally = Sink()
                kernels.append(Kernel(
                    suite: .pipeline, group: group, name: name,
                    implementation: "libsoxr HQ (resampling only)", slug: "libsoxr-hq-resample-only", isOurs: false,
                    frames: frames.source, audioSecondsPerPass: seconds,
                    reset: {
                        peer.reset()
                        tally.count = 0
                    },
                    producedSamples: { tally.count }, sink: tally
                ) { i in
                    guard let produced = peer.process(frames.source[i], into: output.buffer) else { return false }
                    tally.count &+= produced
                    return true
                })
            } catch {
                context.notes.add("pipeline: libsoxr HQ \(group): \(error)")
            }
        }
        return kernels
    }
}

/// Pushes of `framesPerPush` interleaved frames.
struct FrontEndFrames {
    let source: FrameSource
    init(_ buffer: UnsafeBufferPointer<Float>, channels: Int, framesPerPush: Int) {
        source = FrameSource(buffer, samplesPerFrame: framesPerPush * channels)
    }
}
