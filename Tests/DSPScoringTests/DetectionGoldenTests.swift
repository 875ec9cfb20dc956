import DSPScoring
import Foundation
import Testing

/// The detectors on the labelled TestAudio clips (`TestAudio/labels.jsonl`, made by
/// `scripts/eval/make_corpus.py --testaudio`), scored like `scripts/eval/score.py`: 10 ms
/// frames, each frame's label and decision taken at its centre.
///
/// Two tiers. Spec: the issue's targets that a single clip can show (clean speech F1 ≥ 0.96 at
/// every level; speech false alarms ≤ 10 % on music; music recall ≥ 0.85; two overlapping
/// talkers found). Regression: every clip's per-task precision, recall and false-alarm rate
/// against `Goldens/detection-testaudio.json` within ±0.02 — made by
/// `RECORD_GOLDEN=1 swift test --filter detectionGolden`, which rewrites it and still fails.
@Suite struct DetectionGoldenTests {
    struct Label: Decodable {
        let audio_filepath: String
        let start: Double
        let end: Double
        let speech: Bool
        let music: Bool
        let multi_speaker: Bool
        let condition: String
    }

    /// Counts per task: true positives, false positives, false negatives, true negatives.
    struct Counts: Codable, Equatable {
        var tp = 0, fp = 0, fn = 0, tn = 0
        var precision: Double? { tp + fp > 0 ? Double(tp) / Double(tp + fp) : nil }
        var recall: Double? { tp + fn > 0 ? Double(tp) / Double(tp + fn) : nil }
        var f1: Double? { tp > 0 ? 2 * Double(tp) / Double(2 * tp + fp + fn) : (fn + fp > 0 ? 0 : nil) }
        var falseAlarm: Double? { fp + tn > 0 ? Double(fp) / Double(fp + tn) : nil }
    }

    static func score() throws -> [String: [String: Counts]] {
        let lines = try String(contentsOf: testAudio.appendingPathComponent("labels.jsonl"), encoding: .utf8)
            .split(separator: "\n")
        let labels = try lines.map { try JSONDecoder().decode(Label.self, from: Data($0.utf8)) }
        let scorer = try FileScorer(configuration: .init(analyses: [.speech, .music, .speakers], recordsSegments: true))
        var result: [String: [String: Counts]] = [:]
        for file in Set(labels.map(\.audio_filepath)).sorted() {
            let record = scorer.score(path: testAudio.appendingPathComponent(file).path)
            let segments = try #require(record.segments)
            let fileLabels = labels.filter { $0.audio_filepath == file }
            let frames = Int((fileLabels.map(\.end).max() ?? 0) * 100)
            var counts: [String: Counts] = [:]
            for i in 0..<frames {
                let t = (Double(i) + 0.5) / 100
                guard let label = fileLabels.first(where: { $0.start <= t && t < $0.end }) else { continue }
                func inside(_ list: [DetectionSegments.Segment]) -> Bool { list.contains { $0.start <= t && t < $0.end } }
                for (task, truth, decided) in [
                    ("speech", label.speech, inside(segments.speech)), ("music", label.music, inside(segments.music)),
                    ("multi_speaker", label.multi_speaker, inside(segments.multiSpeaker)),
                ] {
                    var c = counts[task] ?? Counts()
                    switch (truth, decided) {
                    case (true, true): c.tp += 1
                    case (false, true): c.fp += 1
                    case (true, false): c.fn += 1
                    case (false, false): c.tn += 1
                    }
                    counts[task] = c
                }
            }
            result[file] = counts
        }
        return result
    }

    @Test func detectionGolden() throws {
        let scores = try Self.score()
        // Spec tier.
        for clean in ["eval_clean_16k.flac", "eval_speech_-40dBFS_16k.flac"] {
            #expect((scores[clean]?["speech"]?.f1 ?? 0) >= 0.96, "\(clean) speech F1")
        }
        #expect((scores["eval_music_guitar_16k.flac"]?["speech"]?.falseAlarm ?? 1) <= 0.10)
        #expect((scores["eval_music_guitar_16k.flac"]?["music"]?.recall ?? 0) >= 0.85)
        #expect((scores["eval_speech_music_16k.flac"]?["music"]?.recall ?? 0) >= 0.85)
        #expect((scores["eval_overlap_16k.flac"]?["multi_speaker"]?.tp ?? 0) > 0)
        #expect((scores["eval_clean_16k.flac"]?["multi_speaker"]?.fp ?? 1) == 0)

        // Regression tier.
        let url = goldens.appendingPathComponent("detection-testaudio.json")
        if ProcessInfo.processInfo.environment["RECORD_GOLDEN"] == "1" {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(scores).write(to: url)
            Issue.record("RECORD_GOLDEN=1: rewrote \(url.lastPathComponent); review the diff, commit it with the reason, rerun without RECORD_GOLDEN")
            return
        }
        let golden = try JSONDecoder().decode([String: [String: Counts]].self, from: Data(contentsOf: url))
        #expect(Set(golden.keys) == Set(scores.keys))
        for (file, tasks) in golden {
            for (task, expected) in tasks {
                let actual = try #require(scores[file]?[task])
                for (name, e, a) in [
                    ("precision", expected.precision, actual.precision), ("recall", expected.recall, actual.recall),
                    ("false alarm", expected.falseAlarm, actual.falseAlarm),
                ] {
                    if let e, let a {
                        #expect(abs(e - a) <= 0.02, "\(file) \(task) \(name): golden \(e), now \(a)")
                    } else {
                        #expect(e == nil && a == nil, "\(file) \(task) \(name)")
                    }
                }
            }
        }
    }
}
