// sdsp_levels_measure and sdsp_loudness_measure: DSPAnalysis's LevelAnalyzer and LoudnessMeter
// over a whole signal, configured as dspscore configures them for a file.

import CSpeechDSP
import DSPAnalysis
import DSPCore

@_cdecl("sdsp_levels_measure")
public func sdspLevelsMeasure(
    _ input: UnsafePointer<Float>?, _ count: Int64, _ sampleRate: Int32, _ channelCount: Int32, _ frameLength: Int32,
    _ clipThreshold: Float, _ pcmBits: Int32, _ result: UnsafeMutablePointer<sdsp_levels>?
) -> sdsp_status {
    abiCall { () throws(ABIFailure) in
        let samples = try inputBuffer(input, count, "input")
        let out = try required(result, "result")
        try checkFrames(count: samples.count, channelCount: channelCount)
        let fullScale: SampleFullScale
        switch pcmBits {
        case 0: fullScale = .float
        case 8...32: fullScale = .integer(bits: Int(pcmBits))
        default: throw .invalidArgument("pcm_bits \(pcmBits) is out of range (expected 0 for float samples or 8…32)")
        }
        let analyzer = try configured { () throws(ConfigurationError) in
            try LevelAnalyzer(configuration: .init(
                sampleRate: Int(sampleRate), channelCount: Int(channelCount), frameLength: Int(frameLength),
                clipThreshold: clipThreshold, fullScale: fullScale))
        }
        analyzer.process(samples) { _ in }
        let summary = analyzer.finalize()
        var levels = sdsp_levels()
        levels.rms_dbfs = summary.overall.rmsDBFS
        levels.rms_dbfs_aes17 = summary.overall.rmsDBFSSineReferenced
        levels.peak_dbfs = summary.overall.peakDBFS
        levels.dc_offset = summary.overall.dcOffset
        levels.clipped_samples = Int64(summary.overall.clippedCount)
        levels.non_finite_samples = Int64(summary.overall.nonFiniteCount)
        levels.loudest_frame_rms_dbfs = summary.loudestFrameRMSDBFS
        levels.quietest_frame_rms_dbfs = summary.quietestFrameRMSDBFS
        levels.sample_count = Int64(summary.overall.sampleCount)
        levels.analysis_frame_count = summary.analysisFrameCount
        levels.duration_seconds = summary.durationSeconds
        out.pointee = levels
    }
}

/// BS.1770 channel weights by channel count, as dspscore weighs a file's channels: mono,
/// stereo, 5.0 (L R C Ls Rs), 5.1 (L R C LFE Ls Rs); other counts weigh every channel 1.0.
func loudnessLayout(channelCount: Int) -> LoudnessMeter.ChannelLayout {
    switch channelCount {
    case 1: .mono
    case 2: .stereo
    case 5: .surround5_0
    case 6: .surround5_1
    default: .custom(weights: Array(repeating: 1, count: channelCount))
    }
}

@_cdecl("sdsp_loudness_measure")
public func sdspLoudnessMeasure(
    _ input: UnsafePointer<Float>?, _ count: Int64, _ sampleRate: Int32, _ channelCount: Int32, _ truePeak: Int32,
    _ result: UnsafeMutablePointer<sdsp_loudness>?
) -> sdsp_status {
    abiCall { () throws(ABIFailure) in
        let samples = try inputBuffer(input, count, "input")
        let out = try required(result, "result")
        try checkFrames(count: samples.count, channelCount: channelCount)
        let meter = try configured { () throws(ConfigurationError) in
            try LoudnessMeter(configuration: .init(
                sampleRate: Int(sampleRate), channelLayout: loudnessLayout(channelCount: Int(channelCount)),
                measuresTruePeak: truePeak != 0))
        }
        meter.process(samples)
        let summary = meter.finalize()
        var loudness = sdsp_loudness()
        loudness.integrated_lufs = summary.integratedLUFS
        loudness.loudness_range_lu = summary.loudnessRangeLU
        loudness.true_peak_dbtp = summary.truePeakDBTP ?? .nan
        loudness.sample_peak_dbfs = summary.samplePeakDBFS
        loudness.max_momentary_lufs = summary.maxMomentaryLUFS
        loudness.max_short_term_lufs = summary.maxShortTermLUFS
        loudness.relative_gate_lufs = summary.relativeGateLUFS
        loudness.gated_block_count = Int64(summary.gatedBlockCount)
        loudness.non_finite_samples = Int64(summary.nonFiniteCount)
        loudness.duration_seconds = summary.durationSeconds
        out.pointee = loudness
    }
}
