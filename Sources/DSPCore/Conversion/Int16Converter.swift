/// A streaming Float32 → Int16 converter with optional TPDF dither and running counts.
///
/// Follows the policy of ``Int16Conversion``. With ``Dither/triangular(seed:)`` each sample
/// gets `d = u₁ − u₂` LSB added before clamping and rounding, where `u₁, u₂` are uniform on
/// [0, 1) — a triangular PDF on (−1, +1) LSB — drawn from a SplitMix64 generator seeded with
/// `seed`: each sample takes one 64-bit output `r`, `u₁ = (r >> 40) / 2²⁴` and
/// `u₂ = ((r >> 8) & 0xFF_FFFF) / 2²⁴`. The sequence depends only on the seed and the sample
/// index in the stream, so output is independent of chunking and reproducible. NaN still
/// becomes 0 (no dither is added to it). Dither is off by default.
public final class Int16Converter: StreamingProcessor, @unchecked Sendable {
    // @unchecked: the dither state and counts below are reached only holding `ownership` (see
    // StreamOwnership).
    /// Dither applied before rounding.
    public enum Dither: Equatable, Sendable {
        /// No dither: plain round-to-nearest-even.
        case none
        /// Triangular-PDF dither of ±1 LSB peak, from a seeded deterministic generator.
        case triangular(seed: UInt64)
    }

    /// What a converter is built for.
    public struct Configuration: Equatable, Sendable {
        /// Dither added before rounding, in LSB. Every value is valid (any seed); default
        /// ``Dither/none``.
        public var dither: Dither

        /// Creates a configuration; `dither` defaults to ``Dither/none``.
        public init(dither: Dither = .none) {
            self.dither = dither
        }

        /// Throws the first setting out of range. Every dither is in range, so this never
        /// throws; it exists so that every unit's configuration is checked the same way.
        public func validate() throws(ConfigurationError) {}
    }

    /// The settings, as validated.
    public let configuration: Configuration
    /// The configured dither.
    public let dither: Dither
    @usableFromInline var generatorState: UInt64

    private var total = ConversionReport()
    private var last = ConversionReport()
    private let ownership = StreamOwnership()

    /// Counts accumulated since construction, ``reset()`` or ``flush(into:)``.
    public var totalReport: ConversionReport {
        enter(); defer { ownership.release() }
        return total
    }
    /// Counts from the latest ``process(_:into:)`` or ``convert(_:into:)`` call.
    public var lastReport: ConversionReport {
        enter(); defer { ownership.release() }
        return last
    }

    /// Takes the ownership flag; two overlapping calls stop the program.
    @inline(__always)
    private func enter() {
        if !ownership.acquire() { preconditionFailure("Int16Converter: overlapping calls from two threads (one stream, one caller at a time)") }
    }

    /// Creates a converter.
    public convenience init(dither: Dither = .none) {
        self.init(configuration: Configuration(dither: dither))
    }

    /// Creates a converter for `configuration`. Every configuration is valid, so unlike the
    /// other units' this initializer does not throw.
    public init(configuration: Configuration) {
        self.configuration = configuration
        dither = configuration.dither
        if case .triangular(let seed) = dither { generatorState = seed } else { generatorState = 0 }
    }

    /// Conversion has no delay.
    public var outputDelay: Int { 0 }
    /// One output sample per input sample.
    public func maxOutputCount(forInputCount inputCount: Int) -> Int { inputCount }
    /// Conversion holds nothing back.
    public var maxFlushOutputCount: Int { 0 }

    /// Converts as many samples as fit in `output`; the counts go to ``lastReport``.
    public func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Int16>
    ) -> ProcessResult {
        let n = Swift.min(input.count, output.count)
        _ = convert(UnsafeBufferPointer(rebasing: input[..<n]), into: output)
        return ProcessResult(consumed: n, produced: n)
    }

    /// Converts all of `input` (output must be at least as long) and returns the counts.
    @discardableResult
    public func convert(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Int16>
    ) -> ConversionReport {
        enter(); defer { ownership.release() }
        let report: ConversionReport
        switch dither {
        case .none:
            report = Int16Conversion.convert(input, into: output)
        case .triangular:
            report = convertDithered(input, into: output)
        }
        last = report
        total += report
        return report
    }

    private func convertDithered(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Int16>
    ) -> ConversionReport {
        precondition(output.count >= input.count, "output buffer shorter than input")
        var report = ConversionReport()
        var state = generatorState
        // Dithered values go through a 256-sample stack block into the vector kernel. Adding
        // d to x·32768 and scaling back by 1/32768 is exact (powers of two), so this equals
        // the scalar definition `int16((x·32768 + d) / 32768)`.
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 256) { block in
            var offset = 0
            while offset < input.count {
                let n = Swift.min(256, input.count - offset)
                for i in 0..<n {
                    let r = Self.splitMix64(&state)
                    let u1 = Float(Int32(truncatingIfNeeded: r >> 40)) * 0x1p-24
                    let u2 = Float(Int32(truncatingIfNeeded: (r >> 8) & 0xFF_FFFF)) * 0x1p-24
                    block[i] = (input[offset + i] * 32768 + (u1 - u2)) * (1.0 / 32768.0)
                }
                report += Int16Conversion.convert(
                    UnsafeBufferPointer(rebasing: block[..<n]),
                    into: UnsafeMutableBufferPointer(rebasing: output[offset..<offset + n]))
                offset += n
            }
        }
        generatorState = state
        return report
    }

    /// SplitMix64 (Steele, Lea & Flood 2014): the dither generator.
    @inlinable
    static func splitMix64(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Nothing is held back; ends the stream (counts and dither sequence start over).
    public func flush(into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        reset()
        return 0
    }

    /// Restarts the dither sequence from the seed and clears the counts.
    public func reset() {
        enter(); defer { ownership.release() }
        if case .triangular(let seed) = dither { generatorState = seed }
        total = ConversionReport()
        last = ConversionReport()
    }
}

extension Int16Converter: MemoryAccounting {
    /// Nothing beyond the instance: the dither state is a stored value.
    public var memoryFootprint: MemoryFootprint { MemoryFootprint() }
}
