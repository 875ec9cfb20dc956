import DSPCore
import DSPDetection
import DSPPipeline
import Testing

/// `SpeechFrontEnd.Configuration.detector`: the detection stage's settings reach the detector
/// (each test first shows that the default gives something else on the same audio, so a setting
/// the front end ignored would fail it, or that turning it off gives something else), and the front end's two named detector settings are
/// views of it.
@Suite struct FrontEndDetectorSettingsTests {
    private static func segments(_ events: [FrontEndEvent], _ activity: Activity) -> [(start: Double, end: Double)] {
        var open: Double?
        var out: [(start: Double, end: Double)] = []
        for event in events {
            switch event {
            case .started(let a, let t) where a == activity: open = t.seconds
            case .ended(let a, let t) where a == activity:
                if let start = open { out.append((start, t.seconds)) }
                open = nil
            default: break
            }
        }
        return out
    }

    private static func events(_ file: String, _ configure: (inout SpeechFrontEnd.Configuration) -> Void) throws -> [FrontEndEvent] {
        let signal = try TestSignal(file: file)
        var configuration = SpeechFrontEnd.Configuration(inputRate: signal.sampleRate, channelCount: signal.channelCount)
        configure(&configuration)
        let frontEnd = try SpeechFrontEnd(configuration: configuration)
        let result = run(frontEnd, signal.samples, push: 1024)
        #expect(result.dropped == 0)
        return result.events
    }

    @Test("the speech segmenter's settings reach the detector: a 0.5 s hangover bridges the clip's two pauses")
    func speechSegmenter() throws {
        // speech_en-us_48k.flac: three utterances, 0.2 s apart (the default's segments).
        let defaults = Self.segments(try Self.events("speech_en-us_48k.flac") { _ in }, .speech)
        #expect(defaults.count == 3, "\(defaults)")
        let bridged = Self.segments(try Self.events("speech_en-us_48k.flac") { $0.detector.speechSegments.hangoverSeconds = 0.5 }, .speech)
        #expect(bridged.count == 1, "\(bridged)")
        if let first = defaults.first, let last = defaults.last, bridged.count == 1 {
            #expect(bridged[0].start == first.start)
            #expect(bridged[0].end >= last.end - 0.05)
        }
    }

    @Test("speech boundaries reach the detector: without them, the same three segments with edges up to 0.1 s later")
    func speechBoundaries() throws {
        let refined = Self.segments(try Self.events("speech_en-us_48k.flac") { _ in }, .speech)
        let plain = Self.segments(try Self.events("speech_en-us_48k.flac") { $0.detector.speechBoundaries = nil }, .speech)
        #expect(refined.count == 3 && plain.count == 3, "\(refined) \(plain)")
        #expect(zip(refined, plain).contains { $0.start != $1.start || $0.end != $1.end })
        for (r, p) in zip(refined, plain) {
            #expect(r.start <= p.start && r.start >= p.start - 0.1 - 1e-9 && r.end <= p.end && r.end >= p.end - 0.1 - 1e-9, "\(r) \(p)")
        }
    }

    @Test("voice activity alone: no music or several-speaker segments where the defaults report music")
    func voiceActivityAlone() throws {
        let file = "eval_speech_music_16k.flac"
        let defaults = try Self.events(file) { _ in }
        #expect(!Self.segments(defaults, .music).isEmpty)
        let alone = try Self.events(file) {
            $0.detector.detectsMusic = false
            $0.detector.detectsMultipleSpeakers = false
        }
        #expect(Self.segments(alone, .music).isEmpty)
        #expect(Self.segments(alone, .multipleSpeakers).isEmpty)
        #expect(!Self.segments(alone, .speech).isEmpty)
        let measured = alone.compactMap { if case .environment(let m, _) = $0 { m } else { nil } }
        #expect(!measured.isEmpty && measured.allSatisfy { !$0.musicDetected && !$0.multipleSpeakersDetected })
    }

    @Test("detectionHopsPerBatch and loopedBackgrounds are the detector's settings; init's values replace them, nil keeps them")
    func namedSettingsAreViews() {
        var detector = AcousticDetector.Configuration()
        detector.analysis.framesPerBatch = 2
        detector.loopedBackgrounds = false
        let kept = SpeechFrontEnd.Configuration(inputRate: 48_000, detector: detector)
        #expect(kept.detectionHopsPerBatch == 2 && !kept.loopedBackgrounds)
        let replaced = SpeechFrontEnd.Configuration(inputRate: 48_000, detector: detector, detectionHopsPerBatch: 1, loopedBackgrounds: true)
        #expect(replaced.detector.analysis.framesPerBatch == 1 && replaced.detector.loopedBackgrounds)
        var configuration = SpeechFrontEnd.Configuration(inputRate: 48_000)
        #expect(configuration.detector == AcousticDetector.Configuration())
        configuration.detectionHopsPerBatch = 3
        configuration.loopedBackgrounds = false
        #expect(configuration.detector.analysis.framesPerBatch == 3 && !configuration.detector.loopedBackgrounds)
    }

    @Test("a detector at another rate than the front end's 16 kHz stream is refused, naming the setting")
    func detectorRateIsRefused() {
        var configuration = SpeechFrontEnd.Configuration(inputRate: 48_000)
        configuration.detector.analysis.sampleRate = 48_000
        #expect {
            _ = try SpeechFrontEnd(configuration: configuration)
        } throws: { error in
            (error as? ConfigurationError)?.parameter == "detector.analysis.sampleRate"
        }
        configuration.stages = [.output, .levels]
        #expect(throws: ConfigurationError.self) { _ = try SpeechFrontEnd(configuration: configuration) }
    }

    @Test("a bad detector setting is the detector's configuration error")
    func badDetectorSetting() {
        var configuration = SpeechFrontEnd.Configuration(inputRate: 16_000)
        configuration.detector.speechSmoothing = 2
        #expect(throws: ConfigurationError.self) { _ = try SpeechFrontEnd(configuration: configuration) }
    }
}
