import DSPCore

/// A position in a front-end stream, on both of its time bases.
///
/// The front end counts with integers — input frames (per channel, at the input rate) and
/// samples of the 16 kHz output — and converts to seconds only here, from the exact count, so
/// times never drift however long a stream runs. Which count is exact depends on the event:
/// analysis events (speech, levels, environment) lie on the 16 kHz grid (``outputSample`` is
/// exact, ``inputFrame`` is `⌊outputSample × inputRate / 16000⌋`); clipping events lie on the
/// input grid (``inputFrame`` exact, ``outputSample`` = `⌊inputFrame × 16000 / inputRate⌋`). At
/// 48 kHz both are exact (3 input frames per output sample); at 44.1 kHz one output sample is
/// 2.75625 input frames, so the other count is rounded down. The output stream is aligned with
/// the input: output sample `n` is input time `n / 16000` s (the resampler's delay is trimmed).
@frozen
public struct StreamTime: Equatable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Input frames (per channel) from the stream start.
    public var inputFrame: Int64
    /// Samples of the 16 kHz output from the stream start.
    public var outputSample: Int64
    /// Seconds from the stream start: the exact count divided by its rate.
    public var seconds: Double

    /// Creates a time from its parts.
    @inlinable
    public init(inputFrame: Int64, outputSample: Int64, seconds: Double) {
        self.inputFrame = inputFrame
        self.outputSample = outputSample
        self.seconds = seconds
    }

    /// Orders by seconds.
    public static func < (a: StreamTime, b: StreamTime) -> Bool { a.seconds < b.seconds }

    /// Seconds with six decimals.
    public var description: String {
        let micros = (seconds * 1_000_000).rounded()
        let whole = Int64(micros) / 1_000_000
        let fraction = Int64(micros) % 1_000_000
        let digits = String(fraction)
        return "\(whole)." + String(repeating: "0", count: 6 - digits.count) + digits + " s"
    }
}

/// Converts integer positions between a stream's input rate and the 16 kHz output rate.
@frozen
public struct StreamTimeline: Equatable, Sendable {
    /// Input frames per second.
    public let inputRate: Int
    /// Output samples per second (16 000 for the front end).
    public let outputRate: Int

    /// Creates a timeline for the two rates.
    @inlinable
    /// - Throws: ``/DSPCore/ConfigurationError`` unless both rates are in 1…1 000 000 Hz.
    public init(inputRate: Int, outputRate: Int) throws(ConfigurationError) {
        try ConfigurationError.check("inputRate", inputRate, in: 1...1_000_000)
        try ConfigurationError.check("outputRate", outputRate, in: 1...1_000_000)
        self.inputRate = inputRate
        self.outputRate = outputRate
    }

    /// The time of output sample `n`: exact on the output grid.
    @inlinable
    public func time(outputSample n: Int64) -> StreamTime {
        StreamTime(
            inputFrame: n * Int64(inputRate) / Int64(outputRate), outputSample: n,
            seconds: Double(n) / Double(outputRate))
    }

    /// The time of input frame `n`: exact on the input grid.
    @inlinable
    public func time(inputFrame n: Int64) -> StreamTime {
        StreamTime(
            inputFrame: n, outputSample: n * Int64(outputRate) / Int64(inputRate),
            seconds: Double(n) / Double(inputRate))
    }
}
