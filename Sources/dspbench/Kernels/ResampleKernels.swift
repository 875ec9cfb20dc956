// resample: Resampler at each quality preset for 48 → 16 kHz, 44.1 → 16 kHz and 16 → 48 kHz,
// mono, beside libsoxr, libsamplerate and speexdsp with --compare.
import DSPCore

enum ResampleKernels {
    /// The rate pairs measured, in Hz.
    static let ratePairs: [(input: Int, output: Int)] = [(48_000, 16_000), (44_100, 16_000), (16_000, 48_000)]

    static func make(_ context: SuiteContext) -> [Kernel] {
        let n = context.frameLength
        var kernels: [Kernel] = []
        if context.audio.inputPath != nil {
            context.notes.add("resample: the input file's samples are taken to be at each pair's input rate")
        }
        for pair in ratePairs {
            let input = context.audio.mono(atRate: pair.input)
            let frames = FrameSource(UnsafeBufferPointer(input.buffer), samplesPerFrame: n)
            let seconds = Double(frames.pushedSamples) / Double(pair.input)
            let group = "\(pair.input)-\(pair.output)"
            let name = "\(khz(pair.input)) → \(khz(pair.output)) kHz"
            // Room for any one push (⌈n·L/M⌉ + 1 samples) with a wide margin for peers that burst.
            let capacity = 2 * ((n * pair.output + pair.input - 1) / pair.input) + 4096
            let output = Scratch<Float>(count: capacity, repeating: 0)

            for quality in Resampler.Quality.allCases {
                do {
                    let resampler = try Resampler(inputRate: pair.input, outputRate: pair.output, quality: quality)
                    let tally = Sink()
                    kernels.append(Kernel(
                        suite: .resample, group: group, name: name,
                        implementation: "SpeechDSP \(quality)", slug: "speechdsp-\(quality)".lowercased(),
                        isOurs: true, isGroupReference: quality == .default,
                        frames: frames, audioSecondsPerPass: seconds,
                        reset: {
                            resampler.reset()
                            tally.count = 0
                        },
                        producedSamples: { tally.count }, sink: tally
                    ) { i in
                        let result = resampler.process(frames[i], into: output.buffer)
                        tally.count &+= result.produced
                        return result.consumed == n
                    })
                } catch {
                    context.notes.add("resample: SpeechDSP \(quality) \(group): \(error)")
                }
            }

            guard context.compare else { continue }
            for preset in PeerResamplerPreset.all where context.peers.isAvailable(preset.library) {
                do {
                    let peer = try PeerResampler(preset, inputRate: pair.input, outputRate: pair.output)
                    let tally = Sink()
                    kernels.append(Kernel(
                        suite: .resample, group: group, name: name,
                        implementation: preset.implementation, slug: preset.slug, isOurs: false,
                        frames: frames, audioSecondsPerPass: seconds,
                        reset: {
                            peer.reset()
                            tally.count = 0
                        },
                        producedSamples: { tally.count }, sink: tally
                    ) { i in
                        guard let produced = peer.process(frames[i], into: output.buffer) else { return false }
                        tally.count &+= produced
                        return true
                    })
                } catch {
                    context.notes.add("resample: \(preset.implementation) \(group): \(error)")
                }
            }
        }
        return kernels
    }

    /// 48000 → "48", 44100 → "44.1".
    static func khz(_ rate: Int) -> String {
        rate % 1000 == 0 ? String(rate / 1000) : String(Double(rate) / 1000)
    }
}
