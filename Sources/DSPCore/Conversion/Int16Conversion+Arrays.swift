// Float32 ⇄ Int16 on whole arrays and spans: the vector kernels of `Int16Conversion` on
// buffers allocated for the result.

extension Int16Conversion {
    /// `samples` as Int16 (×32768, round to nearest even, clamp; NaN → 0), as
    /// ``convert(_:into:)-(UnsafeBufferPointer<Float>,_)`` does.
    ///
    /// Allocates; not for real-time use.
    public static func int16(_ samples: [Float]) -> [Int16] {
        samples.withUnsafeBufferPointer { int16(buffer: $0) }
    }

    /// `samples` as Int16; as ``int16(_:)-([Float])``.
    ///
    /// Allocates; not for real-time use.
    public static func int16(_ samples: Span<Float>) -> [Int16] {
        samples.withUnsafeBufferPointer { int16(buffer: $0) }
    }

    /// Int16 `samples` as Float32 (`y / 32768`).
    ///
    /// Allocates; not for real-time use.
    public static func float(_ samples: [Int16]) -> [Float] {
        samples.withUnsafeBufferPointer { float(buffer: $0) }
    }

    /// Int16 `samples` as Float32; as ``float(_:)-([Int16])``.
    ///
    /// Allocates; not for real-time use.
    public static func float(_ samples: Span<Int16>) -> [Float] {
        samples.withUnsafeBufferPointer { float(buffer: $0) }
    }

    /// `samples` as PCM S16LE bytes (2 per sample), the wire format recognizers take; as
    /// ``convert(_:intoLittleEndianBytes:)``.
    ///
    /// Allocates; not for real-time use.
    public static func littleEndianBytes(_ samples: [Float]) -> [UInt8] {
        samples.withUnsafeBufferPointer { littleEndianBytes(buffer: $0) }
    }

    /// `samples` as PCM S16LE bytes; as ``littleEndianBytes(_:)-([Float])``.
    ///
    /// Allocates; not for real-time use.
    public static func littleEndianBytes(_ samples: Span<Float>) -> [UInt8] {
        samples.withUnsafeBufferPointer { littleEndianBytes(buffer: $0) }
    }

    static func int16(buffer input: UnsafeBufferPointer<Float>) -> [Int16] {
        [Int16](unsafeUninitializedCapacity: input.count) { output, count in
            _ = convert(input, into: output)
            count = input.count
        }
    }

    static func float(buffer input: UnsafeBufferPointer<Int16>) -> [Float] {
        [Float](unsafeUninitializedCapacity: input.count) { output, count in
            convert(input, into: output)
            count = input.count
        }
    }

    static func littleEndianBytes(buffer input: UnsafeBufferPointer<Float>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 2 * input.count) { output, count in
            _ = convert(input, intoLittleEndianBytes: UnsafeMutableRawBufferPointer(output))
            count = 2 * input.count
        }
    }
}
