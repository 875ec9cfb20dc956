import DSPDetection
import DSPPipeline
import Testing

/// The front end with its detectors on real audio: speech events where the labelled TestAudio
/// clip has speech, environment updates twice a second, music reported on music.
@Suite struct FrontEndDetectionTests {
    private static func speechEvents(_ events: [FrontEndEvent]) -> [(start: Bool, seconds: Double)] {
        events.compactMap {
            switch $0 {
            case .started(.speech, let t): (true, t.seconds)
            case .ended(.speech, let t): (false, t.seconds)
            default: nil
            }
        }
    }

    private static func measurements(_ events: [FrontEndEvent]) -> [EnvironmentMeasurement] {
        events.compactMap { if case .environment(let m, _) = $0 { m } else { nil } }
    }

    @Test func speechEventsFollowTheLabels() throws {
        // TestAudio/labels.jsonl: eval_clean_16k.flac has speech from 0.57 s to 5.16 s.
        let signal = try TestSignal(file: "eval_clean_16k.flac")
        let frontEnd = try SpeechFrontEnd(configuration: .init(inputRate: signal.sampleRate, channelCount: signal.channelCount))
        let result = run(frontEnd, signal.samples, push: 1024)
        let speech = Self.speechEvents(result.events)
        #expect(speech.count == 2)
        guard speech.count == 2 else { return }
        // The segmenter's boundaries (16 ms hops, back-dated start, padded end).
        #expect(speech[0].start && abs(speech[0].seconds - 0.57) <= 0.2, "start \(speech[0].seconds)")
        #expect(!speech[1].start && abs(speech[1].seconds - 5.16) <= 0.4, "end \(speech[1].seconds)")
        let measured = Self.measurements(result.events)
        #expect(abs(Double(measured.count) - 6.0 * 2) <= 1)            // 6 s at 2 Hz
        #expect(measured.allSatisfy { !$0.musicDetected && !$0.multipleSpeakersDetected })
        #expect(result.dropped == 0)
    }

    @Test func musicIsReported() throws {
        let signal = try TestSignal(file: "eval_music_guitar_16k.flac")
        let frontEnd = try SpeechFrontEnd(configuration: .init(inputRate: signal.sampleRate, channelCount: signal.channelCount))
        let measured = Self.measurements(run(frontEnd, signal.samples, push: 1024).events)
        // After the detector's first second, the guitar is music in most measurements.
        let later = measured.filter { $0.timeSeconds >= 1.5 }
        #expect(!later.isEmpty)
        #expect(later.filter(\.musicDetected).count * 4 >= later.count * 3)
    }
}
