// fft: RealFFT forward transform of every pushed frame (size = --frame, 1024 by default), through
// the split API and in place (forwardInput + executeForward, SpectralAnalyzer's route), once per
// FFT implementation the build has, side by side: SpeechDSP's built-in FFT (the group's
// reference) and, with the FFTW trait, FFTW (FFTW_ESTIMATE, as the library plans it) as its
// peer, so the table's ours÷peer column is the built-in FFT's speed ÷ FFTW's.
import DSPCore
import DSPSpectral

enum FFTKernels {
    static func make(_ context: SuiteContext) -> [Kernel] {
        let audio = context.audio
        let n = context.frameLength
        let frames = FrameSource(UnsafeBufferPointer(audio.mono.buffer), samplesPerFrame: n)
        let seconds = Double(frames.pushedSamples) / Double(audio.sampleRate)
        var kernels: [Kernel] = []
        for implementation in [FFTImplementation.builtIn, .fftw] where implementation.isAvailable {
            do {
                let fft = try RealFFT(size: n, implementation: implementation)
                let real = Scratch<Float>(count: fft.binCount, repeating: 0)
                let imaginary = Scratch<Float>(count: fft.binCount, repeating: 0)
                let ours = implementation == .builtIn
                let name = ours ? "SpeechDSP built-in FFT" : "FFTW 3 (FFTW_ESTIMATE)"
                let slug = ours ? "speechdsp-builtin" : "fftw-estimate"
                kernels.append(Kernel(
                    suite: .fft, group: "realfft-\(n)-forward", name: "RealFFT \(n) forward",
                    implementation: name, slug: slug, isOurs: ours, isGroupReference: ours,
                    frames: frames, audioSecondsPerPass: seconds
                ) { i in
                    fft.forward(frames[i], real: real.buffer, imaginary: imaginary.buffer)
                    return true
                })
                // SpectralAnalyzer's route: the frame into the transform's own input, then
                // executeForward (no split copies).
                let input = fft.forwardInput
                kernels.append(Kernel(
                    suite: .fft, group: "realfft-\(n)-execute", name: "RealFFT \(n) in place",
                    implementation: name, slug: slug, isOurs: ours, isGroupReference: ours,
                    frames: frames, audioSecondsPerPass: seconds
                ) { i in
                    _ = input.update(fromContentsOf: frames[i])
                    fft.executeForward()
                    return true
                })
            } catch {
                context.notes.add("fft: RealFFT size \(n), \(implementation): \(error)")
            }
        }
        if !FFTImplementation.fftw.isAvailable {
            context.notes.add("fft: this build has no FFTW (built without the FFTW trait): the built-in FFT alone")
        }
        return kernels
    }
}
