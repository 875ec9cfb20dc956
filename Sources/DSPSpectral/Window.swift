import DSPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A tapering window of fixed length, applied to a frame before a Fourier transform.
///
/// The cosine-sum windows, for `n = 0 ... N−1` and with `M` the period of the cosines:
///
///     rectangular  w[n] = 1
///     Hann         w[n] = 0.5  − 0.5  · cos(2πn/M)
///     Hamming      w[n] = 0.54 − 0.46 · cos(2πn/M)
///     Blackman     w[n] = 0.42 − 0.5  · cos(2πn/M) + 0.08 · cos(4πn/M)
///
/// ``Symmetry/periodic`` takes `M = N` (the DFT-even window, for spectral analysis and
/// overlap-add: a periodic Hann at 50 % overlap sums to a constant). ``Symmetry/symmetric``
/// takes `M = N − 1` (w[n] = w[N−1−n], for filter design). `N = 1` gives `[1]` either way.
/// These match `scipy.signal.get_window(name, N, fftbins=True)` (periodic) and NumPy's
/// `hanning`/`hamming`/`blackman` (symmetric); reference: F. J. Harris, "On the use of windows
/// for harmonic analysis with the discrete Fourier transform", Proc. IEEE 66(1), 1978.
///
/// Coefficients are computed in `Double` and stored as `Float`.
public struct Window: Hashable, Sendable {
    /// The window function.
    public enum Shape: Hashable, Sendable {
        /// No taper: every coefficient is 1.
        case rectangular
        /// Raised cosine, zero at the ends; first sidelobe −31.5 dB.
        case hann
        /// Raised cosine on a 0.08 pedestal; first sidelobe −42.7 dB.
        case hamming
        /// Three-term cosine sum; first sidelobe −58 dB.
        case blackman
    }

    /// Which period the cosines have; see ``Window``.
    public enum Symmetry: Hashable, Sendable {
        /// `M = N`: the window of length `N + 1`, symmetric, with its last point dropped.
        case periodic
        /// `M = N − 1`: `w[n] = w[N−1−n]`.
        case symmetric
    }

    /// Accepted lengths.
    public static let supportedLengths: ClosedRange<Int> = 1...(1 << 20)

    /// The window function.
    public let shape: Shape
    /// Periodic or symmetric.
    public let symmetry: Symmetry
    /// The `N` coefficients `w[0] ... w[N−1]`.
    public let coefficients: [Float]

    /// The window length `N`, in samples.
    public var length: Int { coefficients.count }

    /// Computes the `length` coefficients of `shape`.
    ///
    /// - Parameters:
    ///   - shape: The window function.
    ///   - length: `N`, in ``supportedLengths``.
    ///   - symmetry: ``Symmetry/periodic`` (default, for spectral analysis) or
    ///     ``Symmetry/symmetric``.
    /// - Throws: ``/DSPCore/ConfigurationError`` for a length out of range.
    public init(_ shape: Shape, length: Int, symmetry: Symmetry = .periodic) throws(ConfigurationError) {
        try ConfigurationError.check("length", length, in: Self.supportedLengths)
        self.shape = shape
        self.symmetry = symmetry
        self.coefficients = (0..<length).map {
            Float(Self.coefficient(shape, index: $0, length: length, symmetry: symmetry))
        }
    }

    /// `w[index]` for a window of `length` points, in `Double`, from the formulas in ``Window``.
    ///
    /// - Precondition: `length ≥ 1`, `0 ≤ index < length`.
    public static func coefficient(_ shape: Shape, index: Int, length: Int, symmetry: Symmetry) -> Double {
        precondition(length >= 1 && (0..<length).contains(index), "Window.coefficient: index out of range")
        guard length > 1 else { return 1 }
        let period = symmetry == .periodic ? length : length - 1
        let phase = 2 * Double.pi * Double(index) / Double(period)
        switch shape {
        case .rectangular: return 1
        case .hann: return 0.5 - 0.5 * cos(phase)
        case .hamming: return 0.54 - 0.46 * cos(phase)
        case .blackman: return 0.42 - 0.5 * cos(phase) + 0.08 * cos(2 * phase)
        }
    }

    /// `Σ w[n]`: the window's DC gain; a sine of amplitude `A` centred on a bin shows
    /// `|X[k]| = A · sum / 2` after windowing (coherent gain = `sum / N`).
    public var sum: Double { coefficients.reduce(0) { $0 + Double($1) } }

    /// `Σ w[n]²`: the window's energy, for power-spectral-density scaling
    /// (equivalent noise bandwidth in bins = `N · sumOfSquares / sum²`).
    public var sumOfSquares: Double { coefficients.reduce(0) { $0 + Double($1) * Double($1) } }

    /// Writes `input[n] · w[n]` to `output[n]` for `n = 0 ... N−1`. Does not allocate.
    ///
    /// - Precondition: `input.count == length` and `output.count >= length`. `input` and
    ///   `output` may be the same memory.
    @inlinable
    public func apply(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) {
        precondition(input.count == coefficients.count, "Window.apply: input.count must equal length")
        precondition(output.count >= coefficients.count, "Window.apply: output must hold length values")
        coefficients.withUnsafeBufferPointer { window in
            for index in 0..<window.count {
                output[index] = input[index] * window[index]
            }
        }
    }

    /// Multiplies `buffer` by the window in place. Does not allocate.
    ///
    /// - Precondition: `buffer.count == length`.
    @inlinable
    public func apply(inPlace buffer: UnsafeMutableBufferPointer<Float>) {
        apply(UnsafeBufferPointer(buffer), into: buffer)
    }
}
