// reframing: Reframer (1024-sample frames, hop 1024 and 256) and Downmixer (stereo → mono).
import DSPCore

enum ReframingKernels {
    /// The Reframer's frame length, in samples; pushes are `--frame` samples.
    static let reframerFrameLength = 1024

    static func make(_ context: SuiteContext) -> [Kernel] {
        let audio = context.audio
        let n = context.frameLength
        let frames = FrameSource(UnsafeBufferPointer(audio.mono.buffer), samplesPerFrame: n)
        let seconds = Double(frames.pushedSamples) / Double(audio.sampleRate)
        let sink = Sink()
        var kernels: [Kernel] = []

        for hop in [reframerFrameLength, reframerFrameLength / 4] {
            do {
                let reframer = try Reframer(configuration: .init(frameLength: reframerFrameLength, hopLength: hop))
                kernels.append(Kernel(
                    suite: .reframing, group: "reframer-hop-\(hop)",
                    name: "Reframer \(reframerFrameLength), hop \(hop)",
                    implementation: "SpeechDSP", slug: "speechdsp", isOurs: true, isGroupReference: true,
                    frames: frames, audioSecondsPerPass: seconds, reset: { reframer.reset() }, sink: sink
                ) { i in
                    // The zero-copy closure API; the consumer reads one sample of each frame.
                    reframer.process(frames[i]) { frame, _ in sink.total += Double(frame[0]) }
                    return true
                })
            } catch {
                context.notes.add("reframing: Reframer hop \(hop): \(error)")
            }
        }

        do {
            let downmixer = try Downmixer(channelCount: 2)
            let stereoFrames = FrameSource(UnsafeBufferPointer(audio.stereo.buffer), samplesPerFrame: 2 * n)
            let output = Scratch<Float>(count: n, repeating: 0)
            kernels.append(Kernel(
                suite: .reframing, group: "downmixer-stereo", name: "Downmixer stereo → mono",
                implementation: "SpeechDSP", slug: "speechdsp", isOurs: true, isGroupReference: true,
                frames: stereoFrames,
                audioSecondsPerPass: Double(stereoFrames.pushedSamples / 2) / Double(audio.sampleRate),
                reset: { downmixer.reset() }
            ) { i in
                let result = downmixer.process(stereoFrames[i], into: output.buffer)
                return result.consumed == 2 * n
            })
        } catch {
            context.notes.add("reframing: Downmixer: \(error)")
        }
        return kernels
    }
}
