// loudness: LoudnessMeter (BS.1770 / EBU R 128: momentary, short-term, integrated, range,
// peaks), mono at the audio's rate, with and without true peak; beside libebur128 with --compare.
import DSPAnalysis
import DSPCore

enum LoudnessKernels {
    static func make(_ context: SuiteContext) -> [Kernel] {
        let audio = context.audio
        let n = context.frameLength
        let frames = FrameSource(UnsafeBufferPointer(audio.mono.buffer), samplesPerFrame: n)
        let seconds = Double(frames.pushedSamples) / Double(audio.sampleRate)
        var kernels: [Kernel] = []

        for truePeak in [true, false] {
            let group = truePeak ? "true-peak" : "sample-peak"
            let name = truePeak ? "Loudness + LRA + true peak" : "Loudness + LRA + sample peak"
            do {
                let meter = try LoudnessMeter(configuration: .init(
                    sampleRate: audio.sampleRate, channelLayout: .mono, measuresTruePeak: truePeak))
                kernels.append(Kernel(
                    suite: .loudness, group: group, name: name,
                    implementation: "SpeechDSP", slug: "speechdsp", isOurs: true, isGroupReference: true,
                    frames: frames, audioSecondsPerPass: seconds, reset: { meter.reset() }
                ) { i in
                    meter.process(frames[i])
                    return true
                })
            } catch {
                context.notes.add("loudness: SpeechDSP \(group): \(error)")
                continue
            }
            guard context.compare, context.peers.isAvailable(.ebur128) else { continue }
            do {
                let peer = try PeerLoudnessMeter(channelCount: 1, sampleRate: audio.sampleRate, truePeak: truePeak)
                kernels.append(Kernel(
                    suite: .loudness, group: group, name: name,
                    implementation: "libebur128", slug: "libebur128", isOurs: false,
                    frames: frames, audioSecondsPerPass: seconds, reset: { try? peer.rebuild() }
                ) { i in
                    peer.add(frames[i])
                })
            } catch {
                context.notes.add("loudness: libebur128 \(group): \(error)")
            }
        }
        return kernels
    }
}
