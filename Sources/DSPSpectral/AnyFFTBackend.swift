import DSPCore

/// The backend a ``RealFFT`` was made with, chosen at construction from an
/// ``FFTImplementation``: one enum case per backend compiled into this build, so every call is a
/// switch and a direct call, no existential.
enum AnyFFTBackend {
    #if FFTW
    case fftw(FFTWBackend)
    #endif
    case builtIn(BuiltInFFTBackend)

    /// Makes `implementation`'s backend for `size` with `bufferSets` forward buffer pairs.
    ///
    /// - Throws: ``/DSPCore/ConfigurationError`` for `implementation` when this build does not
    ///   contain it; for `size` when the backend refuses it.
    init(_ implementation: FFTImplementation, size: Int, bufferSets: Int) throws(ConfigurationError) {
        switch implementation {
        case .fftw:
            #if FFTW
            self = .fftw(try FFTWBackend(size: size, bufferSets: bufferSets))
            #else
            throw ConfigurationError(
                parameter: "implementation", value: implementation,
                expected: "built-in (this build has no FFTW: build with the package trait FFTW for it)")
            #endif
        case .builtIn:
            self = .builtIn(try BuiltInFFTBackend(size: size, bufferSets: bufferSets))
        }
    }

    var implementation: FFTImplementation {
        switch self {
        #if FFTW
        case .fftw: .fftw
        #endif
        case .builtIn: .builtIn
        }
    }

    func forward(
        _ input: UnsafeBufferPointer<Float>,
        real: UnsafeMutableBufferPointer<Float>,
        imaginary: UnsafeMutableBufferPointer<Float>
    ) {
        switch self {
        #if FFTW
        case .fftw(let b): b.forward(input, real: real, imaginary: imaginary)
        #endif
        case .builtIn(let b): b.forward(input, real: real, imaginary: imaginary)
        }
    }

    func inverse(
        real: UnsafeBufferPointer<Float>,
        imaginary: UnsafeBufferPointer<Float>,
        into output: UnsafeMutableBufferPointer<Float>
    ) {
        switch self {
        #if FFTW
        case .fftw(let b): b.inverse(real: real, imaginary: imaginary, into: output)
        #endif
        case .builtIn(let b): b.inverse(real: real, imaginary: imaginary, into: output)
        }
    }

    var forwardInput: UnsafeMutablePointer<Float> {
        switch self {
        #if FFTW
        case .fftw(let b): b.forwardInput
        #endif
        case .builtIn(let b): b.forwardInput
        }
    }

    var interleavedSpectrum: UnsafeMutablePointer<Float> {
        switch self {
        #if FFTW
        case .fftw(let b): b.interleavedSpectrum
        #endif
        case .builtIn(let b): b.interleavedSpectrum
        }
    }

    var inverseOutput: UnsafeMutablePointer<Float> {
        switch self {
        #if FFTW
        case .fftw(let b): b.inverseOutput
        #endif
        case .builtIn(let b): b.inverseOutput
        }
    }

    func executeForward() {
        switch self {
        #if FFTW
        case .fftw(let b): b.executeForward()
        #endif
        case .builtIn(let b): b.executeForward()
        }
    }

    func forwardInput(set: Int) -> UnsafeMutablePointer<Float> {
        switch self {
        #if FFTW
        case .fftw(let b): b.forwardInput(set: set)
        #endif
        case .builtIn(let b): b.forwardInput(set: set)
        }
    }

    func interleavedSpectrum(set: Int) -> UnsafeMutablePointer<Float> {
        switch self {
        #if FFTW
        case .fftw(let b): b.interleavedSpectrum(set: set)
        #endif
        case .builtIn(let b): b.interleavedSpectrum(set: set)
        }
    }

    func executeForward(set: Int) {
        switch self {
        #if FFTW
        case .fftw(let b): b.executeForward(set: set)
        #endif
        case .builtIn(let b): b.executeForward(set: set)
        }
    }

    func executeInverse() {
        switch self {
        #if FFTW
        case .fftw(let b): b.executeInverse()
        #endif
        case .builtIn(let b): b.executeInverse()
        }
    }

    var externalScratchCount: Int {
        switch self {
        #if FFTW
        case .fftw(let b): b.externalScratchCount
        #endif
        case .builtIn(let b): b.externalScratchCount
        }
    }

    func executeForward(
        input: UnsafeMutablePointer<Float>, spectrum: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>
    ) {
        switch self {
        #if FFTW
        case .fftw(let b): b.executeForward(input: input, spectrum: spectrum, scratch: scratch)
        #endif
        case .builtIn(let b): b.executeForward(input: input, spectrum: spectrum, scratch: scratch)
        }
    }

    /// Bytes the backend allocated itself (FFTW's plans, allocated inside FFTW, not counted).
    var allocatedBytes: Int {
        switch self {
        #if FFTW
        case .fftw(let b): b.allocatedBytes
        #endif
        case .builtIn(let b): b.allocatedBytes
        }
    }

    /// Bytes of tables the backend shares with every backend of its size (the built-in FFT's
    /// plan and twiddles; 0 for FFTW, whose plans are FFTW's own).
    var sharedBytes: Int {
        switch self {
        #if FFTW
        case .fftw: 0
        #endif
        case .builtIn(let b): b.sharedBytes
        }
    }
}
