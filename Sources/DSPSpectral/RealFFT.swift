import DSPCore

/// A discrete Fourier transform of real signals, of one fixed even size.
///
/// Built once per size — the initializer makes the FFT plans and buffers — then used any number
/// of times without allocating. Spectra hold the non-negative-frequency bins 0 ... `size/2`
/// (``binCount`` = `size/2 + 1`), bin `k` at `k · sampleRate / size` Hz, split into real and
/// imaginary parts. Neither direction is normalised:
///
///     X[k] = Σ_{t=0}^{N−1} x[t] · e^{−2πi·k·t/N}         forward, k = 0 ... N/2
///     y[t] = Σ_{k=0}^{N−1} X[k] · e^{+2πi·k·t/N}         inverse (X[N−k] = conj X[k])
///
/// so `inverse(forward(x)) = N · x`; divide by N to recover `x`. A sine of amplitude `A` centred
/// on bin `k` (0 < k < N/2) has `|X[k]| = A · N / 2`; a constant `c` has `X[0] = c · N`.
///
/// The transform is one of two implementations (``FFTImplementation``), behind a small backend
/// protocol so that other libraries (vDSP) can be added per platform:
///
/// - ``FFTImplementation/fftw``, the default in builds with the package trait `FFTW` (the
///   default traits): FFTW's `fftwf_plan_dft_r2c_1d` / `fftwf_plan_dft_c2r_1d` planned with
///   `FFTW_ESTIMATE`, run with `fftwf_execute`. FFTW's planning is serialised process-wide.
/// - ``FFTImplementation/builtIn``, in every build and the default without the trait
///   (`swift build --disable-default-traits`, which links no FFTW): SpeechDSP's own real FFT, a
///   mixed-radix Stockham transform in C with run-time CPU dispatch.
///
/// `RealFFT`s may be created on any number of threads at once. One instance is not `Sendable`:
/// use it from one thread at a time, or give each thread its own.
///
/// ```swift
/// let fft = try RealFFT(size: 512)
/// fft.forward(frame, real: re, imaginary: im)        // 257 bins
/// fft.powerSpectrum(frame, into: power)              // |X[k]|², 257 bins
/// let ours = try RealFFT(size: 512, implementation: .builtIn)
/// ```
public final class RealFFT {
    /// Accepted sizes: even, 2 ... 65536, with either implementation.
    public static let supportedSizes: ClosedRange<Int> = 2...65_536

    /// The transform size `N`, in real samples.
    public let size: Int
    /// Bins in a spectrum: `size/2 + 1` (0 Hz ... Nyquist).
    public var binCount: Int { size / 2 + 1 }
    /// The FFT library this instance runs.
    public var implementation: FFTImplementation { backend.implementation }

    let backend: AnyFFTBackend
    /// Spectrum scratch for ``powerSpectrum(_:into:)``: real then imaginary parts.
    private let scratch: UnsafeMutableBufferPointer<Float>

    /// Prepares transforms of `size` real samples with ``FFTImplementation/default``, building
    /// the FFT plans now.
    ///
    /// - Parameter size: Even, in ``supportedSizes``. Any even size works; sizes with only small
    ///   prime factors (powers of two, 2^a·3^b·5^c) are fastest.
    /// - Throws: ``/DSPCore/ConfigurationError`` for an odd or out-of-range size.
    public convenience init(size: Int) throws(ConfigurationError) {
        try self.init(size: size, bufferSets: 1, implementation: .current)
    }

    /// Prepares transforms of `size` real samples with `implementation`, building the FFT plans
    /// now.
    ///
    /// - Parameters:
    ///   - size: Even, in ``supportedSizes``.
    ///   - implementation: ``FFTImplementation/builtIn`` in any build; ``FFTImplementation/fftw``
    ///     only in builds with the `FFTW` trait.
    /// - Throws: ``/DSPCore/ConfigurationError`` for a size as ``init(size:)``, or for an
    ///   implementation this build does not contain.
    public convenience init(size: Int, implementation: FFTImplementation) throws(ConfigurationError) {
        try self.init(size: size, bufferSets: 1, implementation: implementation)
    }

    deinit {
        scratch.deallocate()
    }

    /// The forward transform: `size` real samples to ``binCount`` complex bins.
    ///
    /// `X[k] = Σ x[t]·e^{−2πi·k·t/N}`, unnormalised. `imaginary[0]` and `imaginary[size/2]` are
    /// always 0. Does not allocate; `input` is not modified.
    ///
    /// - Precondition: `input.count == size`; `real` and `imaginary` hold at least ``binCount``
    ///   values (only the first ``binCount`` are written).
    public func forward(
        _ input: UnsafeBufferPointer<Float>,
        real: UnsafeMutableBufferPointer<Float>,
        imaginary: UnsafeMutableBufferPointer<Float>
    ) {
        precondition(input.count == size, "RealFFT.forward: input.count must equal size")
        precondition(real.count >= binCount && imaginary.count >= binCount, "RealFFT.forward: spectrum buffers must hold binCount values")
        backend.forward(input, real: real, imaginary: imaginary)
    }

    /// The inverse transform: ``binCount`` complex bins to `size` real samples, **unnormalised**.
    ///
    /// `y[t] = Σ_{k=0}^{N−1} X[k]·e^{+2πi·k·t/N}` with the negative-frequency bins taken as
    /// conjugates, so `inverse` of `forward(x)` is `N · x`: multiply by `1/size` to invert. The
    /// imaginary parts of bins 0 and `size/2` are ignored. Does not allocate; the spectrum is
    /// not modified.
    ///
    /// - Precondition: `real` and `imaginary` hold at least ``binCount`` values;
    ///   `output.count >= size`.
    public func inverse(
        real: UnsafeBufferPointer<Float>,
        imaginary: UnsafeBufferPointer<Float>,
        into output: UnsafeMutableBufferPointer<Float>
    ) {
        precondition(real.count >= binCount && imaginary.count >= binCount, "RealFFT.inverse: spectrum buffers must hold binCount values")
        precondition(output.count >= size, "RealFFT.inverse: output must hold size values")
        backend.inverse(real: real, imaginary: imaginary, into: output)
    }

    // MARK: In-place transforms on the backend's buffers

    /// The transform's own input buffer, ``size`` floats, for ``executeForward()``: write the
    /// signal here directly and save a copy. ``forward(_:real:imaginary:)`` overwrites it.
    public var forwardInput: UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: backend.forwardInput, count: size)
    }

    /// The transform's own spectrum buffer: ``binCount`` complex bins interleaved,
    /// `[Re X[0], Im X[0], Re X[1], Im X[1], …]` (`2·binCount` floats). ``executeForward()``
    /// writes it; ``executeInverse()`` reads it (and may overwrite it); the split
    /// ``inverse(real:imaginary:into:)`` overwrites it.
    public var interleavedSpectrum: UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: backend.interleavedSpectrum, count: 2 * binCount)
    }

    /// The transform's own output buffer for ``executeInverse()``, ``size`` floats.
    public var inverseOutput: UnsafeBufferPointer<Float> {
        UnsafeBufferPointer(start: backend.inverseOutput, count: size)
    }

    /// The forward transform of ``forwardInput`` into ``interleavedSpectrum`` — the same
    /// `X[k] = Σ x[t]·e^{−2πi·k·t/N}`, bit for bit, as ``forward(_:real:imaginary:)``, without its
    /// copies. ``forwardInput`` is left intact. Does not allocate.
    public func executeForward() {
        backend.executeForward()
    }

    // MARK: Several frames on one plan (package)

    /// Prepares transforms of `size` real samples with `bufferSets` (≥ 1) pairs of forward
    /// buffers, for transforming several frames one after another without copying them: set 0
    /// is ``forwardInput``/``interleavedSpectrum``.
    package convenience init(size: Int, bufferSets: Int) throws(ConfigurationError) {
        try self.init(size: size, bufferSets: bufferSets, implementation: .current)
    }

    /// ``init(size:bufferSets:)`` with `implementation`; the initializer every other one calls.
    package init(size: Int, bufferSets: Int, implementation: FFTImplementation) throws(ConfigurationError) {
        guard Self.supportedSizes.contains(size), size % 2 == 0 else {
            throw ConfigurationError(
                parameter: "size", value: size,
                expected: "even, \(Self.supportedSizes.lowerBound)...\(Self.supportedSizes.upperBound)")
        }
        try ConfigurationError.check("bufferSets", bufferSets, in: 1...64)
        self.size = size
        self.backend = try AnyFFTBackend(implementation, size: size, bufferSets: bufferSets)
        self.scratch = .allocate(capacity: 2 * (size / 2 + 1))
        scratch.initialize(repeating: 0)
    }

    /// Buffer set `set`'s input, ``size`` floats (set 0 is ``forwardInput``).
    package func forwardInput(set: Int) -> UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: backend.forwardInput(set: set), count: size)
    }

    /// Buffer set `set`'s spectrum, ``binCount`` complex bins interleaved (set 0 is
    /// ``interleavedSpectrum``).
    package func interleavedSpectrum(set: Int) -> UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: backend.interleavedSpectrum(set: set), count: 2 * binCount)
    }

    /// ``executeForward()`` from buffer set `set`'s input into its spectrum: the same plan, so
    /// bit for bit the spectrum set 0 would give for the same input. The input is kept. Does not
    /// allocate.
    package func executeForward(set: Int) {
        backend.executeForward(set: set)
    }

    /// The unnormalised inverse transform of ``interleavedSpectrum`` into ``inverseOutput`` — the
    /// same values, bit for bit, as ``inverse(real:imaginary:into:)``, without its copies. The
    /// imaginary parts of bins 0 and `size/2` are ignored; the spectrum buffer may be overwritten;
    /// ``forwardInput`` is left intact. Does not allocate.
    public func executeInverse() {
        backend.executeInverse()
    }

    /// The power spectrum `P[k] = |X[k]|² = Re(X[k])² + Im(X[k])²` of `input`, for the
    /// ``binCount`` bins, from the unnormalised forward transform.
    ///
    /// Units are squared input units times N²: a sine of amplitude `A` centred on bin `k`
    /// (0 < k < N/2) gives `P[k] = A²·N²/4`. By Parseval,
    /// `Σ x[t]² = (P[0] + 2·Σ_{k=1}^{N/2−1} P[k] + P[N/2]) / N`. Does not allocate.
    ///
    /// - Precondition: `input.count == size`; `power.count >= binCount`.
    public func powerSpectrum(_ input: UnsafeBufferPointer<Float>, into power: UnsafeMutableBufferPointer<Float>) {
        precondition(input.count == size, "RealFFT.powerSpectrum: input.count must equal size")
        precondition(power.count >= binCount, "RealFFT.powerSpectrum: power must hold binCount values")
        let bins = binCount
        let real = UnsafeMutableBufferPointer(rebasing: scratch[0..<bins])
        let imaginary = UnsafeMutableBufferPointer(rebasing: scratch[bins..<(2 * bins)])
        backend.forward(input, real: real, imaginary: imaginary)
        for bin in 0..<bins {
            power[bin] = real[bin] * real[bin] + imaginary[bin] * imaginary[bin]
        }
    }
}

extension RealFFT: MemoryAccounting {
    /// The spectrum scratch and the backend's buffers (owned) and, on the built-in FFT, the
    /// size's plan and twiddles (shared by every transform of that size). FFTW's plans are not
    /// counted: FFTW allocates them itself.
    public var memoryFootprint: MemoryFootprint {
        MemoryFootprint(ownedBytes: MemoryFootprint.bytes(scratch) + backend.allocatedBytes, sharedBytes: backend.sharedBytes)
    }
}
