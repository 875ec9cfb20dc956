// fft: RealFFT forward transform of every pushed frame (size = --frame, 1024 by default).
import DSPCore
import DSPSpectral

enum FFTKernels {
    static func make(_ context: SuiteContext) -> [Kernel] {
        let audio = context.audio
        let n = context.frameLength
        let frames = FrameSource(UnsafeBufferPointer(audio.mono.buffer), samplesPerFrame: n)
        let seconds = Double(frames.pushedSamples) / Double(audio.sampleRate)
        do {
            let fft = try RealFFT(size: n)
            let real = Scratch<Float>(count: fft.binCount, repeating: 0)
            let imaginary = Scratch<Float>(count: fft.binCount, repeating: 0)
            return [Kernel(
                suite: .fft, group: "realfft-\(n)-forward", name: "RealFFT \(n) forward",
                implementation: "SpeechDSP", slug: "speechdsp", isOurs: true, isGroupReference: true,
                frames: frames, audioSecondsPerPass: seconds
            ) { i in
                fft.forward(frames[i], real: real.buffer, imaginary: imaginary.buffer)
                return true
            }]
        } catch {
            context.notes.add("fft: RealFFT size \(n): \(error)")
            return []
        }
    }
}
