import DSPScoring
import Foundation
import Testing
import TestSupport

/// `dspscore report`, `merge` and `--resume` read JSON Lines written by anyone: every value,
/// type, size and byte is taken without trapping, with a diagnostic naming the line.
@Suite("Hostile JSON Lines for report, merge and resume")
struct HostileRecordTests {
    /// A real record of a real file.
    static let record: String = {
        let scorer = try? FileScorer(configuration: .init(analyses: [.levels, .loudness]))
        return scorer.map { ScoreFormatting.jsonLine($0.score(path: TestAudio.path("noise_white_16k.wav"))) } ?? ""
    }()

    /// The record with `key` (a top-level or `levels.` key) set to the JSON text `value`.
    static func with(_ key: String, _ value: String) -> String {
        let parts = key.split(separator: ".").map(String.init)
        let needle = "\"\(parts.last!)\":"
        guard let start = record.range(of: parts.count == 2 ? "\"\(parts[0])\":{" : "{") else { return record }
        guard let keyRange = record.range(of: needle, range: start.upperBound..<record.endIndex) else { return record }
        let valueEnd = record[keyRange.upperBound...].firstIndex { $0 == "," || $0 == "}" } ?? record.endIndex
        return record.replacingCharacters(in: keyRange.upperBound..<valueEnd, with: value)
    }

    /// Lines each of which once trapped a reader, or could: huge and fractional numbers where
    /// integers go, wrong types, deep nesting, NaN-like strings, control bytes.
    static let hostileLines: [String] = [
        with("sample_rate", "1e30"), with("sample_rate", "-1e30"), with("channels", "1e300"), with("frames", "1e19"),
        with("levels.clipped_samples", "1e30"), with("levels.clipped_samples", "2.5"), with("levels.clipped_samples", "-3"),
        with("duration", "-1"), with("sample_rate", "\"NaN\""), with("duration", "\"inf\""),
        with("levels", "[1,2]"), with("levels", "\"x\""), with("status", "7"), with("provenance", "[]"),
        with("levels.rms_dbfs", "1e999"), with("sample_rate", "true"), with("clipped_samples", "{}"),
        String(repeating: "[", count: 100_000), String(repeating: "{\"a\":", count: 5000) + "1" + String(repeating: "}", count: 5000),
        "{\"audio_filepath\":\"x\",\"sample_rate\":" + String(repeating: "9", count: 400) + "}",
        "null", "[]", "\"text\"", "1e30", "{\"audio_filepath\":7}", "\u{0}\u{1}{",
    ]

    @Test("report: a sample_rate or clipped_samples of 1e30 and the other hostile lines are diagnosed, not trapped on")
    func report() {
        #expect(!Self.record.isEmpty)
        var summary = CorpusSummary()
        summary.add(line: Self.record, number: 1)
        for (index, line) in Self.hostileLines.enumerated() { summary.add(line: line, number: index + 2) }
        summary.add(line: Self.with("duration", "1e308"), number: 98)  // schema-valid, but beyond what the report sums
        summary.add(lineBytes: Array(Self.record.utf8.prefix(20)) + [0xFF, 0xFE] + Array(Self.record.utf8.dropFirst(20)), number: 99)
        #expect(summary.files == 1 && summary.ok == 1)
        #expect(summary.unreadableLineCount == Self.hostileLines.count + 2)
        #expect(summary.diagnostics.first == "line 2: sample_rate: 1e+30 is not an integer in 1...9007199254740992")
        #expect(summary.diagnostics.contains("line 6: levels.clipped_samples: 1e+30 is not an integer in 0...9007199254740992"))
        let page = HTMLReport.render(summary, title: "t", sources: [])
        #expect(page.contains("unreadable lines"))
    }

    @Test("merge: every hostile line fails the merge with its line number; none traps")
    func merge() {
        for line in Self.hostileLines + [String(decoding: [0xC3, 0x28], as: UTF8.self)] {
            do {
                _ = try ScoreMerging.merge([(label: "a.jsonl", bytes: Array((Self.record + "\n" + line + "\n").utf8))])
                Issue.record("merged a hostile line: \(line.prefix(80))")
            } catch {
                #expect(error.line == 2, "\(error)")
            }
        }
        #expect(throws: ScoreMerging.MergeError(source: "b", line: 1, message: "not valid UTF-8")) {
            try ScoreMerging.merge([(label: "b", bytes: [0x7B, 0xFF, 0x7D])])
        }
    }

    @Test("resume: hostile lines are dropped with a diagnostic, and records of another configuration are refused")
    func resume() throws {
        let provenance = FileScorer.Configuration(analyses: [.levels, .loudness]).provenance
        let text = ([Self.record] + Self.hostileLines).joined(separator: "\n")
        let kept = try ScoreResume.completedRecords(fromJSONL: Array(text.utf8) + [0x0A, 0xFF], source: "o", provenance: provenance)
        #expect(kept.records.count == 1)
        #expect(kept.diagnostics.count == Self.hostileLines.count + 1)
        // The same file scored with other analyses: refused, naming both configurations.
        let other = FileScorer.Configuration(analyses: [.levels]).provenance
        #expect(throws: ScoreResume.ResumeError.self) {
            try ScoreResume.completedRecords(fromJSONL: Array(Self.record.utf8), source: "o", provenance: other)
        }
        do {
            _ = try ScoreResume.completedRecords(fromJSONL: Array(Self.record.utf8), source: "o", provenance: other)
        } catch {
            #expect(error.line == 1 && error.message.contains(other.configurationHash) && error.message.contains(provenance.configurationHash))
        }
    }
}
