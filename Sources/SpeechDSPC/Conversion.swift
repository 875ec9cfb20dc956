// sdsp_to_int16 / sdsp_to_float: DSPCore's Int16Conversion (the sample-format policy) on
// caller-owned buffers.

import CSpeechDSP
import DSPCore

/// Float32 → Int16 (`Int16Conversion.convert(_:into:)`): ×32768, ties to even, clamped; NaN → 0.
@_cdecl("sdsp_to_int16")
public func sdspToInt16(
    _ input: UnsafePointer<Float>?, _ count: Int64, _ output: UnsafeMutablePointer<Int16>?,
    _ clippedCount: UnsafeMutablePointer<Int64>?, _ nanCount: UnsafeMutablePointer<Int64>?
) -> sdsp_status {
    abiCall { () throws(ABIFailure) in
        let samples = try inputBuffer(input, count, "input")
        let destination = try outputBuffer(output, count, "output")
        let report = Int16Conversion.convert(samples, into: destination)
        clippedCount?.pointee = Int64(report.clippedCount)
        nanCount?.pointee = Int64(report.nanCount)
    }
}

/// Int16 → Float32 (`Int16Conversion.convert(_:into:)`): y / 32768.
@_cdecl("sdsp_to_float")
public func sdspToFloat(_ input: UnsafePointer<Int16>?, _ count: Int64, _ output: UnsafeMutablePointer<Float>?) -> sdsp_status {
    abiCall { () throws(ABIFailure) in
        let samples = try inputBuffer(input, count, "input")
        let destination = try outputBuffer(output, count, "output")
        Int16Conversion.convert(samples, into: destination)
    }
}
