// The C ABI (speechdsp.h) called as a C caller calls it: results against the Swift API they
// wrap, and every kind of bad argument refused with its code and a message.

import CSpeechDSP
import DSPAnalysis
import DSPCore
import DSPDetection
import DSPIO
import DSPPipeline
import Foundation
import TestSupport
import Testing

@testable import SpeechDSPC

/// A deterministic test signal: a chirp with noise, `frames` × `channels` interleaved.
private func signal(frames: Int, channels: Int = 1, seed: UInt64 = 1) -> [Float] {
    var random = SplitMix64(seed: seed)
    return (0..<frames * channels).map { i in
        let t = Float(i / channels) / 16_000
        return 0.3 * sin(2 * .pi * (200 + 300 * t) * t) + Float.random(in: -0.05...0.05, using: &random)
    }
}

private var lastError: String { String(cString: sdsp_last_error()) }

@Suite("C ABI")
struct CABITests {
    @Test("to_int16 is Int16Conversion, with its reports; to_float inverts it")
    func conversion() {
        let input: [Float] = [0, 1, -1, .nan, .infinity, -.infinity, 0.5 / 32768, 1.5 / 32768, -0.0, 1e20]
        var output = [Int16](repeating: 7, count: input.count)
        var clipped: Int64 = -1
        var nans: Int64 = -1
        #expect(sdsp_to_int16(input, Int64(input.count), &output, &clipped, &nans) == SDSP_OK)
        #expect(output == Int16Conversion.int16(input))
        #expect(output == [0, 32767, -32768, 0, 32767, -32768, 0, 2, 0, 32767])
        // 1.0 (32768), +Inf, −Inf and 1e20 fall outside −32768…32767; −1.0 is exactly −32768.
        #expect(clipped == 4 && nans == 1)
        var back = [Float](repeating: 0, count: output.count)
        #expect(sdsp_to_float(output, Int64(output.count), &back) == SDSP_OK)
        #expect(back.map(Int16Conversion.int16) == output)
    }

    @Test("Bad pointers and counts: codes and messages, no trap")
    func badArguments() {
        var output = [Int16](repeating: 0, count: 4)
        #expect(sdsp_to_int16(nil, 4, &output, nil, nil) == SDSP_ERROR_NULL_POINTER)
        #expect(lastError == "input is NULL")
        #expect(sdsp_to_int16(nil, 0, nil, nil, nil) == SDSP_OK)  // empty: NULL allowed
        #expect(sdsp_to_int16([1, 2], -1, &output, nil, nil) == SDSP_ERROR_INVALID_ARGUMENT)
        #expect(lastError.contains("negative"))
        var frames: Int64 = 0
        #expect(sdsp_resample_output_frames(100, 0, 16_000, &frames) == SDSP_ERROR_UNSUPPORTED_CONFIGURATION)
        #expect(lastError.contains("input_rate 0 Hz"))
        var out = [Float](repeating: 0, count: 10)
        #expect(sdsp_resample([1, 2, 3], 3, 2, 48_000, 16_000, SDSP_QUALITY_DEFAULT, &out, 10, nil) == SDSP_ERROR_INVALID_ARGUMENT)
        #expect(lastError.contains("whole number of frames"))
        #expect(sdsp_resample([1, 2, 3], 3, 0, 48_000, 16_000, SDSP_QUALITY_DEFAULT, &out, 10, nil) == SDSP_ERROR_INVALID_ARGUMENT)
        #expect(sdsp_resample([1, 2, 3], 3, 1, 48_000, 16_000, 7, &out, 10, nil) == SDSP_ERROR_INVALID_ARGUMENT)
        let long = [Float](repeating: 0.1, count: 4800)
        #expect(sdsp_resample(long, 4800, 1, 48_000, 16_000, SDSP_QUALITY_DEFAULT, &out, 10, nil) == SDSP_ERROR_BUFFER_TOO_SMALL)
        #expect(lastError.contains("1600"))
        var levels = sdsp_levels()
        #expect(sdsp_levels_measure(long, 4800, 16_000, 1, 0, 1, 0, &levels) == SDSP_ERROR_UNSUPPORTED_CONFIGURATION)
        #expect(lastError.contains("frameLength"))
        #expect(sdsp_levels_measure(long, 4800, 16_000, 1, 1024, .nan, 0, &levels) == SDSP_ERROR_UNSUPPORTED_CONFIGURATION)
        #expect(sdsp_levels_measure(long, 4800, 16_000, 1, 1024, 1, 4, &levels) == SDSP_ERROR_INVALID_ARGUMENT)
        #expect(sdsp_levels_measure(long, 4800, 16_000, 1, 1024, 1, 0, nil) == SDSP_ERROR_NULL_POINTER)
        var loudness = sdsp_loudness()
        #expect(sdsp_loudness_measure(long, 4800, 4000, 1, 1, &loudness) == SDSP_ERROR_UNSUPPORTED_CONFIGURATION)
        #expect(lastError.contains("sampleRate"))
        var handle: OpaquePointer?
        #expect(sdsp_detector_create(16_000, 65, 0, &handle) == SDSP_ERROR_INVALID_ARGUMENT && handle == nil)
        #expect(sdsp_detector_create(16_000, 1, 8, &handle) == SDSP_ERROR_INVALID_ARGUMENT && handle == nil)
        #expect(sdsp_detector_process(nil, long, 10) == SDSP_ERROR_NULL_POINTER)
        #expect(sdsp_frontend_reset(nil) == SDSP_ERROR_NULL_POINTER)
        sdsp_detector_destroy(nil)
        sdsp_frontend_destroy(nil)
    }

    @Test("The message is per thread: another thread's failure does not replace it")
    func threadLocalMessage() async {
        var out = [Int16](repeating: 0, count: 1)
        #expect(sdsp_to_int16(nil, 1, &out, nil, nil) == SDSP_ERROR_NULL_POINTER)
        let other = Thread {
            var frames: Int64 = 0
            _ = sdsp_resample_output_frames(-5, 48_000, 16_000, &frames)
        }
        other.start()
        while !other.isFinished { usleep(1000) }
        #expect(lastError == "input is NULL")
    }

    @Test("resample is Resampler.resample, exactly round(N × out / in) frames")
    func resample() throws {
        for (rateIn, rateOut, channels) in [(48_000, 16_000, 1), (44_100, 16_000, 2), (16_000, 48_000, 1), (22_050, 16_000, 1)] {
            let input = signal(frames: 10_001, channels: channels)
            let expected = try Resampler.resample(input, from: rateIn, to: rateOut, channelCount: channels)
            var frames: Int64 = 0
            #expect(sdsp_resample_output_frames(10_001, Int32(rateIn), Int32(rateOut), &frames) == SDSP_OK)
            #expect(Int(frames) == (2 * 10_001 * rateOut + rateIn) / (2 * rateIn))
            var output = [Float](repeating: .nan, count: Int(frames) * channels)
            var produced: Int64 = 0
            let status = sdsp_resample(
                input, Int64(input.count), Int32(channels), Int32(rateIn), Int32(rateOut), SDSP_QUALITY_DEFAULT, &output,
                Int64(output.count), &produced)
            #expect(status == SDSP_OK, "\(lastError)")
            #expect(Int(produced) == output.count)
            #expect(output == expected)
        }
    }

    @Test("levels and loudness are LevelAnalyzer's and LoudnessMeter's")
    func metering() throws {
        let input = signal(frames: 48_000, channels: 2)
        var levels = sdsp_levels()
        #expect(sdsp_levels_measure(input, Int64(input.count), 48_000, 2, 1024, 1, 0, &levels) == SDSP_OK)
        let analyzer = try LevelAnalyzer(configuration: .init(sampleRate: 48_000, channelCount: 2))
        let summary = analyzer.analyze(input).summary
        #expect(levels.rms_dbfs == summary.overall.rmsDBFS)
        #expect(levels.peak_dbfs == summary.overall.peakDBFS)
        #expect(levels.quietest_frame_rms_dbfs == summary.quietestFrameRMSDBFS)
        #expect(levels.sample_count == 96_000)
        var loudness = sdsp_loudness()
        #expect(sdsp_loudness_measure(input, Int64(input.count), 48_000, 2, 1, &loudness) == SDSP_OK)
        let meter = try LoudnessMeter(configuration: .init(sampleRate: 48_000, channelLayout: .stereo))
        let expected = meter.analyze(input).summary
        #expect(loudness.integrated_lufs == expected.integratedLUFS)
        #expect(loudness.true_peak_dbtp == expected.truePeakDBTP)
        #expect(sdsp_loudness_measure(input, Int64(input.count), 48_000, 2, 0, &loudness) == SDSP_OK)
        #expect(loudness.true_peak_dbtp.isNaN)
    }

    @Test("The detector's segments are the conditioned stream's AnalysisChain segments")
    func detector() throws {
        let samples = try AudioFileReader.readAll(path: TestAudio.path("speech_2ch_en-us_de_44k1.flac")).samples
        let mono16k = try StreamConditioner(configuration: .init(inputRate: 44_100, channelCount: 2)).processAll(samples)
        let analysis = try AnalysisChain(configuration: .init(environment: nil)).analyze(mono16k)
        var handle: OpaquePointer?
        #expect(sdsp_detector_create(44_100, 2, 3, &handle) == SDSP_OK)
        defer { sdsp_detector_destroy(handle) }
        var total: Int64 = 0
        #expect(sdsp_detector_segments(handle, nil, 0, &total) == SDSP_ERROR_INVALID_STATE)
        // Odd pushes: a partial frame carried between calls.
        var offset = 0
        for size in [1, 999, 44_101, 100_000] where offset < samples.count {
            let n = min(size, samples.count - offset)
            samples[offset..<offset + n].withUnsafeBufferPointer { chunk in
                #expect(sdsp_detector_process(handle, chunk.baseAddress, Int64(n)) == SDSP_OK)
            }
            offset += n
        }
        samples[offset...].withUnsafeBufferPointer { chunk in
            #expect(sdsp_detector_process(handle, chunk.baseAddress, Int64(chunk.count)) == SDSP_OK)
        }
        var summary = sdsp_detection_summary()
        #expect(sdsp_detector_finish(handle, &summary) == SDSP_OK)
        #expect(summary.speech_ratio == analysis.summary.detection.speechRatio)
        #expect(sdsp_detector_segments(handle, nil, 0, &total) == SDSP_OK)
        var segments = [sdsp_segment](repeating: sdsp_segment(), count: Int(total))
        #expect(sdsp_detector_segments(handle, &segments, total, &total) == SDSP_OK)
        let expected = analysis.segments
        #expect(segments.count == expected.count && !expected.isEmpty)
        for (got, want) in zip(segments, expected) {
            #expect(got.activity == Int32(want.activity.rawValue))
            #expect(got.start_sample == want.startSample && got.end_sample == want.endSample)
        }
    }

    @Test("SDSP_DETECT_NO_SPEECH_BOUNDARIES gives the chain's segments without the speech boundaries: the same segments, speech edges moved")
    func detectorWithoutSpeechBoundaries() throws {
        let samples = try AudioFileReader.readAll(path: TestAudio.path("speech_en-us_48k.flac")).samples
        let mono16k = try StreamConditioner(configuration: .init(inputRate: 48_000, channelCount: 1)).processAll(samples)
        func segments(_ flags: UInt32) throws -> [sdsp_segment] {
            var handle: OpaquePointer?
            try #require(sdsp_detector_create(48_000, 1, flags, &handle) == SDSP_OK)
            defer { sdsp_detector_destroy(handle) }
            samples.withUnsafeBufferPointer { #expect(sdsp_detector_process(handle, $0.baseAddress, Int64($0.count)) == SDSP_OK) }
            var summary = sdsp_detection_summary()
            #expect(sdsp_detector_finish(handle, &summary) == SDSP_OK)
            var total: Int64 = 0
            #expect(sdsp_detector_segments(handle, nil, 0, &total) == SDSP_OK)
            var out = [sdsp_segment](repeating: sdsp_segment(), count: Int(total))
            #expect(sdsp_detector_segments(handle, &out, total, &total) == SDSP_OK)
            return out
        }
        var plain = AcousticDetector.Configuration()
        plain.speechBoundaries = nil
        let expected = try AnalysisChain(configuration: .init(detector: plain, environment: nil)).analyze(mono16k).segments
        let without = try segments(3 | SDSP_DETECT_NO_SPEECH_BOUNDARIES)
        #expect(without.count == expected.count && !expected.isEmpty)
        for (got, want) in zip(without, expected) {
            #expect(got.activity == Int32(want.activity.rawValue) && got.start_sample == want.startSample && got.end_sample == want.endSample)
        }
        let with = try segments(3)
        #expect(with.count == without.count)
        #expect(zip(with, without).contains { $0.start_sample != $1.start_sample || $0.end_sample != $1.end_sample })
    }

    /// An event as kind, activity and position, sortable so that each kind's events compare in
    /// stream order.
    static func eventKey(_ e: sdsp_event) -> String {
        "\(e.kind) \(String(format: "%012lld", e.output_sample)) \(e.activity) \(e.input_frame)"
    }

    /// Runs `input` through a C front end made from `config` in pushes of 3000 samples: PCM, event
    /// keys, summary; checks that flush refuses a buffer below its bound.
    static func runFrontEnd(_ config: sdsp_frontend_config, _ input: [Float]) throws -> (pcm: [Int16], kinds: [String], summary: sdsp_frontend_summary) {
        var config = config
        var handle: OpaquePointer?
        try #require(sdsp_frontend_create(&config, &handle) == SDSP_OK)
        defer { sdsp_frontend_destroy(handle) }
        var outputCapacity: Int64 = 0
        var eventCapacity: Int64 = 0
        #expect(sdsp_frontend_buffer_sizes(handle, 3000, &outputCapacity, &eventCapacity) == SDSP_OK)
        var pcm: [Int16] = []
        var kinds: [String] = []
        var output = [Int16](repeating: 0, count: Int(outputCapacity))
        var events = [sdsp_event](repeating: sdsp_event(), count: Int(eventCapacity))
        var result = sdsp_frontend_result()
        var offset = 0
        while offset < input.count {
            let n = min(3000, input.count - offset)
            let status = input[offset..<offset + n].withUnsafeBufferPointer { chunk in
                sdsp_frontend_process(handle, chunk.baseAddress, Int64(n), &output, outputCapacity, &events, eventCapacity, &result)
            }
            #expect(status == SDSP_OK && result.consumed == Int64(n) && result.dropped_events == 0)
            pcm += output[..<Int(result.produced)]
            kinds += events[..<Int(result.events)].map(Self.eventKey)
            offset += n
        }
        var summary = sdsp_frontend_summary()
        #expect(sdsp_frontend_flush(handle, &output, 1, &events, eventCapacity, &result, &summary) == SDSP_ERROR_BUFFER_TOO_SMALL)
        #expect(sdsp_frontend_flush(handle, &output, outputCapacity, &events, eventCapacity, &result, &summary) == SDSP_OK)
        pcm += output[..<Int(result.produced)]
        kinds += events[..<Int(result.events)].map(Self.eventKey)
        return (pcm, kinds, summary)
    }

    @Test("The front end: PCM and events of SpeechFrontEnd's array tier; flush checks its buffer")
    func frontEnd() throws {
        let input = signal(frames: 48_000 * 3, channels: 2)
        let expected = try SpeechFrontEnd(configuration: .init(inputRate: 48_000, channelCount: 2)).processAll(input)
        let config = sdsp_frontend_config_default(48_000, 2)
        #expect(config.stages == 0x3F && config.downmix_channel == -1 && config.emits_level_events == 1)
        #expect(config.detection_hops_per_batch == 4)
        let (pcm, kinds, summary) = try Self.runFrontEnd(config, input)
        #expect(pcm == expected.pcm)
        // How kinds interleave within one call depends on the push size; each kind's events in
        // stream order do not.
        #expect(kinds.sorted() == expected.events.map { Self.eventKey(sdsp_event($0)) }.sorted())
        #expect(summary.output_sample_count == 16_000 * 3 && summary.has_detection == 1)
        #expect(summary.integrated_lufs == expected.summary?.loudness?.integratedLUFS)

        var bad = sdsp_frontend_config_default(1000, 1)
        var refused: OpaquePointer?
        #expect(sdsp_frontend_create(&bad, &refused) == SDSP_ERROR_UNSUPPORTED_CONFIGURATION && refused == nil)
        #expect(lastError.contains("inputRate"))
        bad = sdsp_frontend_config_default(16_000, 1)
        bad.stages = 0x20  // environment without detection
        #expect(sdsp_frontend_create(&bad, &refused) == SDSP_ERROR_UNSUPPORTED_CONFIGURATION)
        bad.stages = 0x40
        #expect(sdsp_frontend_create(&bad, &refused) == SDSP_ERROR_INVALID_ARGUMENT)
        #expect(sdsp_frontend_create(nil, &refused) == SDSP_ERROR_NULL_POINTER)
        for hops: Int32 in [0, 5, -1] {
            bad = sdsp_frontend_config_default(16_000, 1)
            bad.detection_hops_per_batch = hops
            #expect(sdsp_frontend_create(&bad, &refused) == SDSP_ERROR_UNSUPPORTED_CONFIGURATION && refused == nil)
            #expect(lastError.contains("detectionHopsPerBatch"))
        }
    }

    @Test("detection_hops_per_batch reaches the front end: SpeechFrontEnd's array tier at that batch size, the same for every size")
    func frontEndBatchSize() throws {
        let input = signal(frames: 48_000 * 2, channels: 1)
        let expected = try SpeechFrontEnd(configuration: .init(inputRate: 48_000, channelCount: 1)).processAll(input)
        let expectedKinds = expected.events.map { Self.eventKey(sdsp_event($0)) }.sorted()
        #expect(expectedKinds.contains { $0.hasPrefix("\(SDSP_EVENT_ENVIRONMENT) ") })  // the detection ran
        for hops: Int32 in [1, 2, 3] {
            var config = sdsp_frontend_config_default(48_000, 1)
            config.detection_hops_per_batch = hops
            let (pcm, kinds, _) = try Self.runFrontEnd(config, input)
            #expect(pcm == expected.pcm, "hops \(hops)")
            #expect(kinds.sorted() == expectedKinds, "hops \(hops)")
        }
    }

    @Test("ABI 3's and 4's detection settings reach the front end: SpeechFrontEnd's events with the same detector, which differ from the defaults'; bad thresholds are refused")
    func frontEndDetectorSettings() throws {
        let audio = try AudioFileReader.readAll(path: TestAudio.path("speech_en-us_48k.flac"))
        let defaults = sdsp_frontend_config_default(Int32(audio.sampleRate), 1)
        let detector = AcousticDetector.Configuration()
        #expect(defaults.speech_blend == 1 && defaults.pure_tone_gate == 1 && defaults.detects_music == 1 && defaults.detects_multiple_speakers == 1)
        #expect(defaults.speech_on_threshold == detector.speechSegments.onThreshold)
        #expect(defaults.speech_off_threshold == detector.speechSegments.offThreshold)
        #expect(defaults.speech_end_threshold == detector.speechSegments.endThreshold)
        #expect(defaults.speech_min_seconds == detector.speechSegments.minimumActiveSeconds)
        #expect(defaults.speech_hangover_seconds == detector.speechSegments.hangoverSeconds)
        #expect(defaults.speech_padding_seconds == detector.speechSegments.paddingSeconds)
        #expect(defaults.speech_blend_warm_up_seconds == detector.speechBlendWarmUpSeconds)
        #expect(defaults.speech_boundaries == 1 && detector.speechBoundaries != nil)
        let (_, defaultKinds, _) = try Self.runFrontEnd(defaults, audio.samples)

        var config = defaults
        config.speech_blend = 0
        config.pure_tone_gate = 0
        config.detects_music = 0
        config.detects_multiple_speakers = 0
        config.speech_on_threshold = 0.6
        config.speech_off_threshold = 0.3
        config.speech_end_threshold = .nan
        config.speech_min_seconds = 0.064
        config.speech_hangover_seconds = 0.5
        config.speech_padding_seconds = 0.1
        config.speech_blend_warm_up_seconds = 0.5
        config.speech_boundaries = 0
        var swift = SpeechFrontEnd.Configuration(inputRate: audio.sampleRate)
        swift.detector.speechBlend = nil
        swift.detector.gatesPureTones = false
        swift.detector.detectsMusic = false
        swift.detector.detectsMultipleSpeakers = false
        swift.detector.speechSegments = .init(
            onThreshold: 0.6, offThreshold: 0.3, minimumActiveSeconds: 0.064, hangoverSeconds: 0.5, paddingSeconds: 0.1)
        swift.detector.speechBlendWarmUpSeconds = 0.5
        swift.detector.speechBoundaries = nil
        let expected = try SpeechFrontEnd(configuration: swift).processAll(audio.samples)
        let (pcm, kinds, _) = try Self.runFrontEnd(config, audio.samples)
        #expect(pcm == expected.pcm)
        let expectedKinds = expected.events.map { Self.eventKey(sdsp_event($0)) }.sorted()
        #expect(kinds.sorted() == expectedKinds)
        #expect(kinds.sorted() != defaultKinds.sorted())  // the settings matter here

        var refused: OpaquePointer?
        for (on, off, end) in [(Float(1.5), Float(0.3), Float.nan), (0.4, 0.5, .nan), (0.5, 0.35, 0.2), (.nan, 0.35, 0.6)] {
            var bad = defaults
            (bad.speech_on_threshold, bad.speech_off_threshold, bad.speech_end_threshold) = (on, off, end)
            #expect(sdsp_frontend_create(&bad, &refused) == SDSP_ERROR_UNSUPPORTED_CONFIGURATION && refused == nil, "\(on) \(off) \(end)")
            #expect(lastError.contains("speechSegments"))
        }
        for seconds in [-0.1, Double.infinity, .nan] {
            var bad = defaults
            bad.speech_hangover_seconds = seconds
            #expect(sdsp_frontend_create(&bad, &refused) == SDSP_ERROR_UNSUPPORTED_CONFIGURATION && refused == nil, "\(seconds)")
        }
    }
}
