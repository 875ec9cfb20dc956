// sdsp_resample: a whole signal through DSPCore's Resampler (delay trimmed), written straight
// into the caller's buffer.

import CSpeechDSP
import DSPCore

/// `round(N × outputRate / inputRate)` frames, halves up: the length a trimmed resampler's
/// stream has after its flush.
func resampledFrames(_ frames: Int64, inputRate: Int32, outputRate: Int32) throws(ABIFailure) -> Int64 {
    guard frames >= 0 else { throw .invalidArgument("input_frames \(frames) is negative") }
    for (name, rate) in [("input_rate", inputRate), ("output_rate", outputRate)] where !Resampler.supportedRates.contains(Int(rate)) {
        throw ABIFailure(
            status: SDSP_ERROR_UNSUPPORTED_CONFIGURATION,
            message: "\(name) \(rate) Hz is out of range (expected \(Resampler.supportedRates.lowerBound)…\(Resampler.supportedRates.upperBound))")
    }
    // N ≤ 2^62 / 768 000 keeps 2 × N × outputRate below 2^63.
    guard frames <= (Int64(1) << 62) / 768_000 else { throw .invalidArgument("input_frames \(frames) is too large") }
    return (2 * frames * Int64(outputRate) + Int64(inputRate)) / (2 * Int64(inputRate))
}

@_cdecl("sdsp_resample_output_frames")
public func sdspResampleOutputFrames(
    _ inputFrames: Int64, _ inputRate: Int32, _ outputRate: Int32, _ outputFrames: UnsafeMutablePointer<Int64>?
) -> sdsp_status {
    abiCall { () throws(ABIFailure) in
        let result = try required(outputFrames, "output_frames")
        result.pointee = try resampledFrames(inputFrames, inputRate: inputRate, outputRate: outputRate)
    }
}

/// `Resampler.resample(_:from:to:channelCount:quality:)` without the arrays: the stream is
/// processed and flushed into `output`, which must hold the whole result.
@_cdecl("sdsp_resample")
public func sdspResample(
    _ input: UnsafePointer<Float>?, _ count: Int64, _ channelCount: Int32, _ inputRate: Int32, _ outputRate: Int32,
    _ qualityValue: Int32, _ output: UnsafeMutablePointer<Float>?, _ outputCapacity: Int64,
    _ produced: UnsafeMutablePointer<Int64>?
) -> sdsp_status {
    abiCall { () throws(ABIFailure) in
        let samples = try inputBuffer(input, count, "input")
        try checkFrames(count: samples.count, channelCount: channelCount)
        let channels = Int(channelCount)
        let frames = try resampledFrames(Int64(samples.count / channels), inputRate: inputRate, outputRate: outputRate)
        let needed = Int(frames) * channels
        let preset = try quality(qualityValue)
        let destination = try outputBuffer(output, outputCapacity, "output")
        guard destination.count >= needed else {
            throw ABIFailure(
                status: SDSP_ERROR_BUFFER_TOO_SMALL,
                message: "output capacity \(outputCapacity) is smaller than the \(needed) samples the resampled signal has")
        }
        let resampler = try configured { () throws(ConfigurationError) in
            try Resampler(
                inputRate: Int(inputRate), outputRate: Int(outputRate), channelCount: channels, quality: preset,
                trimsLeadingDelay: true)
        }
        var written = 0
        if samples.count > 0 {
            let result = resampler.process(samples, into: destination)
            guard result.consumed == samples.count else {
                throw ABIFailure(status: SDSP_ERROR_INTERNAL, message: "resampler took \(result.consumed) of \(samples.count) samples")
            }
            written = result.produced
            let rest = UnsafeMutableBufferPointer(rebasing: destination[written...])
            guard resampler.pendingFlushOutputCount <= rest.count else {
                throw ABIFailure(
                    status: SDSP_ERROR_INTERNAL,
                    message: "resampler tail of \(resampler.pendingFlushOutputCount) samples exceeds the \(rest.count) left")
            }
            written += resampler.flush(into: rest)
        }
        guard written == needed else {
            throw ABIFailure(status: SDSP_ERROR_INTERNAL, message: "resampler wrote \(written) samples, expected \(needed)")
        }
        produced?.pointee = Int64(written)
    }
}
