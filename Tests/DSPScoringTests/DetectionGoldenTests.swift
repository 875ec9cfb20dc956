import DSPScoring
import Foundation
import Testing

/// The detectors on two sets of labelled clips, scored like `scripts/detect/score_detect.py`:
/// 10 ms frames, each frame's label and decision taken at its centre; multiple speakers on 0.5 s
/// windows (50 frames; a window is positive when at least half its frames are).
///
/// - `DetectionClips/` (issue #23): eleven 8 s clips cut by `scripts/detect/make_golden_clips.py`
///   from the detection material's **test** split — voices, music, noises and rooms the models
///   were never fitted or chosen on (`DetectionClips/MANIFEST.md`).
/// - `TestAudio/` eval_* clips (`scripts/eval/make_corpus.py --testaudio`, issue #4).
///
/// Two tiers. Spec: issue #23's targets, each on the clips that can show it (``specChecks``);
/// a target the shipped models miss on a clip is listed in ``knownMisses`` with the value
/// measured, and runs as a known issue: the test fails when such a miss is fixed (remove it
/// from the list) or when any other check misses. Regression: every clip's per-task precision,
/// recall and false-alarm rate against `Goldens/detection-testaudio.json` and
/// `Goldens/detection-clips.json` within ±0.02 — made by
/// `RECORD_GOLDEN=1 swift test --filter detectionGolden`, which rewrites them and still fails.
@Suite struct DetectionGoldenTests {
    struct Label: Decodable {
        let audio_filepath: String
        let start: Double
        let end: Double
        let speech: Bool
        let music: Bool
        let multi_speaker: Bool
    }

    /// Counts per task: true positives, false positives, false negatives, true negatives.
    struct Counts: Codable, Equatable {
        var tp = 0, fp = 0, fn = 0, tn = 0
        var precision: Double? { tp + fp > 0 ? Double(tp) / Double(tp + fp) : nil }
        var recall: Double? { tp + fn > 0 ? Double(tp) / Double(tp + fn) : nil }
        var f1: Double? { tp > 0 ? 2 * Double(tp) / Double(2 * tp + fp + fn) : (fn + fp > 0 ? 0 : nil) }
        var falseAlarm: Double? { fp + tn > 0 ? Double(fp) / Double(fp + tn) : nil }

        mutating func add(truth: Bool, decided: Bool) {
            switch (truth, decided) {
            case (true, true): tp += 1
            case (false, true): fp += 1
            case (true, false): fn += 1
            case (false, false): tn += 1
            }
        }
    }

    static let clips = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("DetectionClips")

    /// Frames per multi-speaker window (0.5 s of 10 ms frames), as `score_detect.py`.
    static let window = 50

    /// Per file: `speech`, `music`, `multi_speaker` on 10 ms frames, and `multi_speaker_windows`.
    static func score(folder: URL) throws -> [String: [String: Counts]] {
        let lines = try String(contentsOf: folder.appendingPathComponent("labels.jsonl"), encoding: .utf8)
            .split(separator: "\n")
        let labels = try lines.map { try JSONDecoder().decode(Label.self, from: Data($0.utf8)) }
        let scorer = try FileScorer(configuration: .init(analyses: [.speech, .music, .speakers], recordsSegments: true))
        var result: [String: [String: Counts]] = [:]
        for file in Set(labels.map(\.audio_filepath)).sorted() {
            let record = scorer.score(path: folder.appendingPathComponent(file).path)
            let segments = try #require(record.segments, "\(file): \(record.status)")
            let fileLabels = labels.filter { $0.audio_filepath == file }
            let frames = Int(((fileLabels.map(\.end).max() ?? 0) * 100).rounded())
            var counts: [String: Counts] = [:]
            var multiTruth: [Bool] = [], multiDecided: [Bool] = []
            for i in 0..<frames {
                let t = (Double(i) + 0.5) / 100
                guard let label = fileLabels.first(where: { $0.start <= t && t < $0.end }) else { continue }
                func inside(_ list: [DetectionSegments.Segment]) -> Bool { list.contains { $0.start <= t && t < $0.end } }
                for (task, truth, decided) in [
                    ("speech", label.speech, inside(segments.speech)), ("music", label.music, inside(segments.music)),
                    ("multi_speaker", label.multi_speaker, inside(segments.multiSpeaker)),
                ] {
                    counts[task, default: Counts()].add(truth: truth, decided: decided)
                }
                multiTruth.append(label.multi_speaker)
                multiDecided.append(inside(segments.multiSpeaker))
            }
            var windows = Counts()
            for start in stride(from: 0, to: multiTruth.count, by: window) where multiTruth.count - start >= window / 2 {
                let end = min(multiTruth.count, start + window)
                let half = Double(end - start) / 2
                windows.add(truth: Double(multiTruth[start..<end].filter { $0 }.count) >= half,
                            decided: Double(multiDecided[start..<end].filter { $0 }.count) >= half)
            }
            counts["multi_speaker_windows"] = windows
            result[file] = counts
        }
        return result
    }

    /// One target on one clip: the measure (`f1` or `false_alarm` of a task) and its bound.
    struct Check: CustomStringConvertible, Sendable {
        let clip: String
        let task: String
        let measure: String
        let bound: Double

        func value(_ counts: Counts) -> Double? {
            switch measure {
            case "f1": counts.f1
            case "recall": counts.recall
            default: counts.falseAlarm
            }
        }
        var isLowerBound: Bool { measure != "false_alarm" }
        func holds(_ value: Double) -> Bool { isLowerBound ? value >= bound : value <= bound }
        var description: String { "\(clip) \(task) \(measure) \(isLowerBound ? "≥" : "≤") \(bound)" }
    }

    /// Issue #23's targets on the clips that can show them.
    static let specChecks: [Check] = {
        var checks: [Check] = []
        func add(_ clips: [String], _ task: String, _ measure: String, _ bound: Double) {
            checks += clips.map { Check(clip: $0, task: task, measure: measure, bound: bound) }
        }
        // VAD F1 ≥ 96 on clean speech at every level.
        add(["clean_quiet_16k.flac", "clean_loud_16k.flac"], "speech", "f1", 0.96)
        // VAD false alarms ≤ 3 % on music, ≤ 8 % on noise (babble included), ≤ 0.5 % on silence.
        add(["music_recorded_16k.flac", "music_midi_band_16k.flac"], "speech", "false_alarm", 0.03)
        add(["noise_babble_16k.flac", "noise_ambience_effects_16k.flac"], "speech", "false_alarm", 0.08)
        add(["silence_roomtone_16k.flac"], "speech", "false_alarm", 0.005)
        // VAD F1 ≥ 85 under music at 0 dB and under noise at −5 dB.
        add(["speech_music_0dB_16k.flac", "speech_noise_-5dB_16k.flac"], "speech", "f1", 0.85)
        // Music F1 ≥ 92; music false alarms ≤ 2 % on speech only.
        add(["music_recorded_16k.flac", "music_midi_band_16k.flac"], "music", "f1", 0.92)
        add(["clean_quiet_16k.flac", "clean_loud_16k.flac", "dialogue_16k.flac", "overlap_2talkers_16k.flac"],
            "music", "false_alarm", 0.02)
        // Multi-speaker F1 ≥ 65 on 0.5 s windows; false alarms ≤ 5 % on single talkers.
        add(["overlap_2talkers_16k.flac"], "multi_speaker_windows", "f1", 0.65)
        add(["clean_quiet_16k.flac", "clean_loud_16k.flac", "dialogue_16k.flac"], "multi_speaker_windows",
            "false_alarm", 0.05)
        return checks
    }()

    /// What a single eval_* clip of issue #4's corpus can show (that issue's targets): clean
    /// speech at −15 and −40 dBFS, speech false alarms on solo guitar, music recall, overlapping
    /// talkers found on 0.5 s windows, no multi-speaker false alarm on one talker.
    static let evalChecks: [Check] = [
        Check(clip: "eval_clean_16k.flac", task: "speech", measure: "f1", bound: 0.96),
        Check(clip: "eval_speech_-40dBFS_16k.flac", task: "speech", measure: "f1", bound: 0.96),
        Check(clip: "eval_music_guitar_16k.flac", task: "speech", measure: "false_alarm", bound: 0.10),
        Check(clip: "eval_music_guitar_16k.flac", task: "music", measure: "recall", bound: 0.85),
        Check(clip: "eval_speech_music_16k.flac", task: "music", measure: "recall", bound: 0.85),
        Check(clip: "eval_overlap_16k.flac", task: "multi_speaker_windows", measure: "f1", bound: 0.65),
        Check(clip: "eval_clean_16k.flac", task: "multi_speaker", measure: "false_alarm", bound: 0),
    ]

    /// Targets the shipped models miss on a clip, with the value measured when they were
    /// chosen (`DefaultModels.swift`: the K2 fit of 2026-12-06, the music GRU of 2026-12-06;
    /// `DefaultModels+SpeechBlend.swift`: W = 4's network, blended into voice activity since
    /// 2026-12-07; the speech boundaries read from the hops' power since 2026-12-08, which moved
    /// the three speech values: 0.786 → 0.787, 0.311 → 0.324, 0.079 → 0.130); each runs as a known
    /// issue. The test clips:
    /// isolated Hungarian syllables (klettres) at −15…−6 dBFS, where Silero misses most of that
    /// talker's speech too (scripts/detect/README.md); recorded effects over an ambience (31 % of
    /// its frames called speech with the blend, 38 % with K2 alone, 11 % before K2: the test
    /// split's `ambience+effects` condition 8.6 %, 13.4 % and 12.8 % over all its files); speech
    /// under rain at −5 dB, where the models give up recall; a second talker 0–15 dB under the
    /// first. On the eval clips: music under speech, whose recall the music GRU took from 0.81
    /// (the ensemble before it) to 0.72 while it took the guitar's speech false alarms from 18 to
    /// 8.8 % (docs/detection.md).
    static let knownMisses: [String: Double] = [
        "clean_loud_16k.flac speech f1 ≥ 0.96": 0.787,
        "noise_ambience_effects_16k.flac speech false_alarm ≤ 0.08": 0.324,
        "speech_noise_-5dB_16k.flac speech f1 ≥ 0.85": 0.130,
        "overlap_2talkers_16k.flac multi_speaker_windows f1 ≥ 0.65": 0.0,
        "eval_speech_music_16k.flac music recall ≥ 0.85": 0.718,
    ]

    /// Runs `checks` on `scores`, the ones in ``knownMisses`` as known issues.
    static func verify(_ checks: [Check], _ scores: [String: [String: Counts]]) throws {
        for check in checks {
            let value = try #require(scores[check.clip]?[check.task].flatMap(check.value), "\(check)")
            if let measured = knownMisses[check.description] {
                withKnownIssue("\(check): \(value) (\(measured) when the models were fitted)") {
                    #expect(check.holds(value), "\(check): \(value)")
                }
            } else {
                #expect(check.holds(value), "\(check): \(value)")
            }
        }
    }

    @Test func detectionGolden() throws {
        let clipScores = try Self.score(folder: Self.clips)
        #expect(clipScores.count == 11)
        // Spec tier: issue #23's targets on the test-split clips, issue #4's on the eval_* clips.
        try Self.verify(Self.specChecks, clipScores)
        let scores = try Self.score(folder: testAudio)
        try Self.verify(Self.evalChecks, scores)

        // Regression tier.
        for (name, actual) in [("detection-testaudio.json", scores), ("detection-clips.json", clipScores)] {
            let url = goldens.appendingPathComponent(name)
            if ProcessInfo.processInfo.environment["RECORD_GOLDEN"] == "1" {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                try encoder.encode(actual).write(to: url)
                Issue.record("RECORD_GOLDEN=1: rewrote \(name); review the diff, commit it with the reason, rerun without RECORD_GOLDEN")
                continue
            }
            let golden = try JSONDecoder().decode([String: [String: Counts]].self, from: Data(contentsOf: url))
            #expect(Set(golden.keys) == Set(actual.keys))
            for (file, tasks) in golden {
                for (task, expected) in tasks {
                    let now = try #require(actual[file]?[task])
                    for (measure, e, a) in [
                        ("precision", expected.precision, now.precision), ("recall", expected.recall, now.recall),
                        ("false alarm", expected.falseAlarm, now.falseAlarm),
                    ] {
                        if let e, let a {
                            #expect(abs(e - a) <= 0.02, "\(file) \(task) \(measure): golden \(e), now \(a)")
                        } else {
                            #expect(e == nil && a == nil, "\(file) \(task) \(measure)")
                        }
                    }
                }
            }
        }
    }
}
