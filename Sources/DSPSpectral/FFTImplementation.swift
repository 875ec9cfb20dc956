import DSPCore

/// The FFT library behind a ``RealFFT``.
///
/// FFTW is the default where the package is built with its `FFTW` trait (the default traits);
/// the built-in FFT is compiled into every build, and is the only one in a build without the
/// trait (`swift build --disable-default-traits`), which links no FFTW at all:
///
/// ```swift
/// let reference = try RealFFT(size: 1024)                              // FFTImplementation.default
/// let ours = try RealFFT(size: 1024, implementation: .builtIn)         // in every build
/// ```
///
/// FFTW 3 is GPL-2.0-or-later, so a binary that links it is GPL-bound (see the README's licence
/// note); the built-in FFT is part of SpeechDSP (Apache-2.0). Both compute the same unnormalised
/// transforms; their results differ by float rounding (relative RMS difference below 3·10⁻⁷ on
/// noise frames).
public enum FFTImplementation: String, Sendable, CaseIterable, CustomStringConvertible {
    /// FFTW 3 single precision (`libfftw3f`), planned with `FFTW_ESTIMATE`: the field's
    /// reference, any even size. Present only in builds with the package trait `FFTW`.
    case fftw = "fftw"
    /// SpeechDSP's own real FFT (C, run-time CPU dispatch), any even size as FFTW: mixed-radix
    /// Stockham stages, Bluestein's algorithm where `size/2` has a prime factor above 61.
    case builtIn = "built-in"

    /// What ``RealFFT/init(size:)`` uses: ``fftw`` in builds with the `FFTW` trait (the
    /// default), ``builtIn`` without it.
    public static var `default`: FFTImplementation {
        #if FFTW
        .fftw
        #else
        .builtIn
        #endif
    }

    /// The implementations this build contains, the default first.
    public static var available: [FFTImplementation] {
        [.default] + allCases.filter { $0 != .default && $0.isAvailable }
    }

    /// Whether this build contains the implementation (``builtIn`` always; ``fftw`` with the
    /// `FFTW` trait).
    public var isAvailable: Bool {
        switch self {
        case .builtIn: true
        case .fftw:
            #if FFTW
            true
            #else
            false
            #endif
        }
    }

    /// Whether a ``RealFFT`` of `size` real samples can be made with this implementation in this
    /// build: an available implementation and an even size in ``RealFFT/supportedSizes`` (both
    /// implementations take every such size).
    public func supports(size: Int) -> Bool {
        guard isAvailable, RealFFT.supportedSizes.contains(size), size % 2 == 0 else { return false }
        switch self {
        case .fftw: return true
        case .builtIn: return BuiltInFFTBackend.plan(size: size) != nil
        }
    }

    /// The raw value: `fftw` or `built-in`.
    public var description: String { rawValue }

    /// The implementation ``RealFFT/init(size:)`` uses in the current task: ``default`` unless a
    /// test set ``taskOverride``.
    package static var current: FFTImplementation { taskOverride ?? .default }

    /// Test seam: within `FFTImplementation.$taskOverride.withValue(.builtIn) { … }`, every
    /// ``RealFFT`` made without an explicit implementation — inside `SpectralAnalyzer`, the
    /// detectors, the estimators, a whole `SpeechFrontEnd` — uses the given implementation. A
    /// task-local value, so tests running in parallel do not see each other's choice; read only
    /// at construction.
    @TaskLocal package static var taskOverride: FFTImplementation?
}
