/// What a Float32 → Int16 conversion did to its input.
@frozen
public struct ConversionReport: Equatable, Sendable {
    /// Samples whose scaled value `x × 32768` lay outside −32768…32767 and were clamped
    /// (±Inf included).
    public var clippedCount: Int
    /// NaN samples, written as 0.
    public var nanCount: Int

    /// Creates a report from its counts.
    @inlinable
    public init(clippedCount: Int = 0, nanCount: Int = 0) {
        self.clippedCount = clippedCount
        self.nanCount = nanCount
    }

    /// Adds another report's counts to this one.
    @inlinable
    public static func += (lhs: inout ConversionReport, rhs: ConversionReport) {
        lhs.clippedCount += rhs.clippedCount
        lhs.nanCount += rhs.nanCount
    }
}

/// The Float32 ⇄ Int16 sample-format policy.
///
/// Float32 → Int16 is `Int16(clamp(x × 32768, −32768, 32767))`, rounded to nearest with ties
/// to even, computed in Float32. NaN → 0, +Inf → 32767, −Inf → −32768, −0.0 → 0; denormals
/// round to 0. Int16 → Float32 is `y / 32768`, so Int16 → Float32 → Int16 round-trips exactly.
///
/// The scaling by 32768 is exact in Float32, so the only rounding is the final one. The
/// vector kernel rounds by adding 1.5 × 2²³ (where the Float32 spacing is exactly 1, so the
/// addition itself rounds to nearest-even) and reads the integer from the low 16 bits of the
/// sum's bit pattern; it matches ``int16(_:)->Int16`` on all 2³² Float32 inputs (see
/// `scripts/check-int16-exhaustive.sh`).
public enum Int16Conversion {
    /// 1.5 × 2²³: adding it to |y| ≤ 2²² leaves an exact integer in the low mantissa bits.
    @usableFromInline
    static let roundingBias: Float = 12_582_912

    /// Converts one sample; the scalar reference the vector kernel is checked against.
    @inlinable
    public static func int16(_ x: Float) -> Int16 {
        let y = x * 32768
        if y.isNaN { return 0 }
        if y >= 32767 { return 32767 }
        if y <= -32768 { return -32768 }
        return Int16(y.rounded(.toNearestOrEven))
    }

    /// Converts one Int16 sample to Float32 (`y / 32768`).
    @inlinable
    public static func float(_ y: Int16) -> Float {
        Float(y) * (1.0 / 32768.0)
    }

    /// The vector kernel on 8 lanes (two SSE registers per vector, so the counters stay in registers): returns the rounded, clamped values and updates the
    /// clipped and NaN lane counters.
    @inlinable
    @inline(__always)
    static func convert8(
        _ scaled: SIMD8<Float>, clipped: inout SIMD8<Int32>, nans: inout SIMD8<Int32>
    ) -> SIMD8<Int16> {
        var y = scaled
        let isNaN = y .!= y
        y.replace(with: 0, where: isNaN)
        let high = y .> 32767
        let low = y .< -32768
        y.replace(with: 32767, where: high)
        y.replace(with: -32768, where: low)
        nans &+= SIMD8<Int32>(repeating: 0).replacing(with: 1, where: isNaN)
        clipped &+= SIMD8<Int32>(repeating: 0).replacing(with: 1, where: high .| low)
        let biased = y + SIMD8<Float>(repeating: roundingBias)
        let bits = unsafeBitCast(biased, to: SIMD8<Int32>.self)
        return SIMD8<Int16>(truncatingIfNeeded: bits)
    }

    /// Converts `input` into the first `input.count` elements of `output` (which must be at
    /// least as long) and reports clipped and NaN samples. Never allocates.
    @inlinable
    public static func convert(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Int16>
    ) -> ConversionReport {
        precondition(output.count >= input.count, "output buffer shorter than input")
        let count = input.count
        guard count > 0, let source = input.baseAddress, let destination = output.baseAddress else {
            return ConversionReport()
        }
        var report = ConversionReport()
        let scale = SIMD8<Float>(repeating: 32768)
        var index = 0
        // Lane counters are flushed every block of 2^20 samples, far from Int32 overflow.
        while count - index >= 8 {
            var clipped = SIMD8<Int32>()
            var nans = SIMD8<Int32>()
            let blockEnd = index + Swift.min((count - index) & ~7, 1 << 20)
            while index < blockEnd {
                let x = UnsafeRawPointer(source + index).loadUnaligned(as: SIMD8<Float>.self)
                let value = convert8(x * scale, clipped: &clipped, nans: &nans)
                UnsafeMutableRawPointer(destination + index).storeBytes(of: value, as: SIMD8<Int16>.self)
                index += 8
            }
            report.clippedCount += Int(clipped.wrappedSum())
            report.nanCount += Int(nans.wrappedSum())
        }
        while index < count {
            let x = source[index]
            let y = x * 32768
            if y.isNaN { report.nanCount += 1 } else if y > 32767 || y < -32768 { report.clippedCount += 1 }
            destination[index] = int16(x)
            index += 1
        }
        return report
    }

    /// Converts Int16 samples to Float32 (`y / 32768`). Never allocates.
    @inlinable
    public static func convert(
        _ input: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<Float>
    ) {
        precondition(output.count >= input.count, "output buffer shorter than input")
        let count = input.count
        guard count > 0, let source = input.baseAddress, let destination = output.baseAddress else { return }
        // A plain loop: the optimizer vectorizes it (widen, convert, scale) better than
        // explicit SIMD conversions do.
        for index in 0..<count {
            destination[index] = Float(source[index]) * (1.0 / 32768.0)
        }
    }

    /// Converts `input` to PCM S16LE bytes: `2 × input.count` bytes written from the start of
    /// `output` (which must be at least that long, with any alignment). Same policy as
    /// ``convert(_:into:)-(UnsafeBufferPointer<Float>,_)``. Never allocates.
    @inlinable
    public static func convert(
        _ input: UnsafeBufferPointer<Float>, intoLittleEndianBytes output: UnsafeMutableRawBufferPointer
    ) -> ConversionReport {
        precondition(output.count >= 2 * input.count, "output buffer shorter than 2 × input")
        guard input.count > 0, let destination = output.baseAddress else { return ConversionReport() }
        #if _endian(little)
        if Int(bitPattern: destination) & 1 == 0 {
            let typed = destination.assumingMemoryBound(to: Int16.self)
            return convert(input, into: UnsafeMutableBufferPointer(start: typed, count: input.count))
        }
        #endif
        // Unaligned (or big-endian) destination: convert through a small stack block.
        var report = ConversionReport()
        var block = SIMD64<Int16>()
        var offset = 0
        while offset < input.count {
            let n = Swift.min(64, input.count - offset)
            withUnsafeMutableBytes(of: &block) { raw in
                let typed = raw.bindMemory(to: Int16.self)
                report += convert(UnsafeBufferPointer(rebasing: input[offset..<offset + n]), into: typed)
                for i in 0..<n {
                    let value = UInt16(bitPattern: typed[i]).littleEndian
                    (destination + 2 * (offset + i)).storeBytes(of: value, as: UInt16.self)
                }
            }
            offset += n
        }
        return report
    }
}
