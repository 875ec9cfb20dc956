import DSPDetection
import DSPScoring
import Foundation
import Testing
import TestSupport

/// The environment in a record and on its timeline: SNR and speech level per file, one
/// timeline line per measurement, and their nulls each with one meaning.
@Suite("Environment in records and timelines")
struct EnvironmentTimelineTests {
    static func score(_ name: String) throws -> FileScore {
        let scorer = try FileScorer(configuration: .init(recordsSegments: true))
        return scorer.score(path: TestAudio.path(name))
    }

    @Test("a measurement every half second on the timeline, with the record's own chain values")
    func timelinePoints() throws {
        let record = try Self.score("eval_noise_babble_16k.flac")
        let lines = TimelineFormatting.timelineLines(record)
        let points = try lines.compactMap { line -> [String: Any]? in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return object["environment"] == nil ? nil : object
        }
        let environment = try #require(record.environment)
        #expect(points.count == environment.measurements)
        let times = points.compactMap { $0["time"] as? Double }
        #expect(times.count == points.count && times == times.sorted())
        // Twice a second, at the end of the 64 ms frame that reaches each half second.
        #expect(zip(times, times.dropFirst()).allSatisfy { ($1 - $0 >= 0.5 - 0.065 && $1 - $0 <= 0.5 + 0.065) || $1 == times.last })
        for point in points {
            let values = try #require(point["environment"] as? [String: Any])
            #expect(Set(values.keys) == ["noise_dbfs", "noise_category", "snr_db", "c50_db", "speech_clarity"])
            if let snr = values["snr_db"] as? Double { #expect(snr >= -30 && snr <= 100) }
            // Clarity exactly when the window held speech (then SNR is a number too).
            #expect((values["snr_db"] is Double) == (values["speech_clarity"] is Double))
            if let clarity = values["speech_clarity"] as? Double { #expect(clarity >= 0 && clarity <= 1) }
        }
    }

    @Test("per file: snr_db = speech_dbfs − noise_dbfs; null SNR and speech level only without speech")
    func fileSNR() throws {
        // Speech over a music bed (the babble clip, labelled noise, no longer reads as speech).
        let noisy = try #require(try Self.score("eval_speech_music_16k.flac").environment)
        let snr = try #require(noisy.snrDB)
        let speech = try #require(noisy.speechDBFS)
        let noise = try #require(noisy.noiseDBFS)
        #expect(abs(speech - noise - snr) < 1e-5)
        // Digitally silent pauses: no noise at all, so the ratio reads its ceiling.
        let clean = try #require(try Self.score("speech_de_16k.flac").environment)
        #expect(clean.noiseDBFS == nil && clean.snrDB == 100 && clean.speechDBFS != nil)
        // Nothing to speak of: no speech, so no speech level and no ratio.
        let silence = try #require(try Self.score("silence_16k.wav").environment)
        #expect(silence.snrDB == nil && silence.speechDBFS == nil)
    }
}
