import DSPCore

/// The operations ``RealFFT`` needs from an FFT library, one conforming type per library and
/// file (`FFTBackend+FFTW.swift`, compiled with the package trait `FFTW`;
/// `FFTBackend+BuiltIn.swift`, always; a vDSP backend for Apple platforms would sit beside
/// them). ``AnyFFTBackend`` holds the one a ``RealFFT`` chose (``FFTImplementation``).
///
/// A backend is built for one even transform size `n` and owns whatever the library needs for
/// it (plans, aligned buffers), all made in `init`. Its transforms never allocate. Spectra are
/// split into real and imaginary parts over the `n/2 + 1` bins 0 ... n/2, unnormalised in both
/// directions:
///
///     X[k] = Σ_{t=0}^{n−1} x[t] · e^{−2πi·k·t/n}         (forward)
///     y[t] = Σ_{k=0}^{n−1} X[k] · e^{+2πi·k·t/n}         (inverse, X Hermitian)
///
/// so an inverse of a forward returns `n · x`.
protocol FFTBackend: AnyObject {
    /// Prepares transforms of `size` real samples. `size` is already validated (even,
    /// 2 ... 65536); the backend may still refuse it.
    init(size: Int) throws(ConfigurationError)

    /// The transform size in real samples.
    var size: Int { get }

    /// Forward real-to-complex transform of `input` (`size` samples) into `size/2 + 1` bins.
    func forward(
        _ input: UnsafeBufferPointer<Float>,
        real: UnsafeMutableBufferPointer<Float>,
        imaginary: UnsafeMutableBufferPointer<Float>)

    /// Inverse complex-to-real transform of `size/2 + 1` bins into `size` samples. The
    /// imaginary parts of bins 0 and `size/2` are ignored (a real signal has none).
    func inverse(
        real: UnsafeBufferPointer<Float>,
        imaginary: UnsafeBufferPointer<Float>,
        into output: UnsafeMutableBufferPointer<Float>)

    /// The backend's own input buffer for ``executeForward()``: `size` floats. The split
    /// ``forward(_:real:imaginary:)`` overwrites it.
    var forwardInput: UnsafeMutablePointer<Float> { get }
    /// The backend's own spectrum buffer, `2·(size/2 + 1)` floats, interleaved (real, imaginary)
    /// per bin: the output of ``executeForward()`` and the input of ``executeInverse()``.
    var interleavedSpectrum: UnsafeMutablePointer<Float> { get }
    /// The backend's own output buffer for ``executeInverse()``: `size` floats.
    var inverseOutput: UnsafeMutablePointer<Float> { get }

    /// Forward transform of ``forwardInput`` into ``interleavedSpectrum``; the input is kept.
    func executeForward()
    /// Prepares transforms of `size` real samples with `bufferSets` (≥ 1) pairs of forward
    /// buffers (input, interleaved spectrum); set 0 is ``forwardInput``/``interleavedSpectrum``.
    init(size: Int, bufferSets: Int) throws(ConfigurationError)
    /// Buffer set `set`'s forward input, `size` floats.
    func forwardInput(set: Int) -> UnsafeMutablePointer<Float>
    /// Buffer set `set`'s interleaved spectrum, `2·(size/2 + 1)` floats.
    func interleavedSpectrum(set: Int) -> UnsafeMutablePointer<Float>
    /// ``executeForward()`` on buffer set `set`: the same plan, the same bits for the same input.
    func executeForward(set: Int)
    /// Inverse transform of ``interleavedSpectrum`` into ``inverseOutput``. The imaginary parts
    /// of bins 0 and `size/2` are ignored; the spectrum may be overwritten.
    func executeInverse()

    /// Floats of scratch ``executeForward(input:spectrum:scratch:)`` needs (0 when none).
    var externalScratchCount: Int { get }
    /// ``executeForward()`` from a caller's `input` (`size` floats) into a caller's interleaved
    /// `spectrum` (`2·(size/2 + 1)` floats), with `scratch` (``externalScratchCount`` floats):
    /// the same plan, so the same bits for the same input. All three 64-byte aligned and
    /// disjoint; the input is kept. Touches none of the backend's own buffers, so any number of
    /// threads may run it at once on one backend, each on its own buffers.
    func executeForward(
        input: UnsafeMutablePointer<Float>, spectrum: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>)
}
