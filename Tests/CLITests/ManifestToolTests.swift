import DSPScoring
import Foundation
import TestSupport
import Testing

/// `dspscore --manifest` as a user runs it: a gzipped manifest listing one file twice, records
/// that carry their lines, RTTM ids that do not collide, and --resume, --shard and merge over
/// records keyed by path and line.
@Suite("dspscore with manifests", .serialized)
struct ManifestToolTests {
    let work: TemporaryDirectory

    init() throws {
        work = try TemporaryDirectory(prefix: "manifest-cli")
        for folder in ["a", "b"] {
            try FileManager.default.createDirectory(at: work.url(folder), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: TestAudio.path("speech_de_16k.flac"), toPath: work.path("\(folder)/utt_1.flac"))
        }
    }

    static let lines = [
        #"{"audio_filepath": "a/utt_1.flac", "offset": 0, "duration": 1.5, "text": "eins", "meta": {"speaker": 3, "tags": ["x", null]}}"#,
        #"{"audio_filepath": "a/utt_1.flac", "offset": 1.5, "duration": 1.5, "text": "zwei"}"#,
        #"{"audio_filepath": "b/utt_1.flac", "text": "ganz"}"#,
        #"{"id": "cut-b", "start": 0.5, "duration": 2.0, "channel": 0, "supervisions": [], "recording": {"id": "rec-b", "sources": [{"type": "file", "channels": [0], "source": "b/utt_1.flac"}], "sampling_rate": 16000, "num_samples": 1, "duration": 1.0, "channel_ids": [0]}, "type": "MonoCut"}"#,
    ]

    /// The manifest, gzipped by gzip(1).
    func manifest() throws -> String {
        let plain = work.url("m.jsonl")
        try (Self.lines.joined(separator: "\n") + "\n").write(to: plain, atomically: true, encoding: .utf8)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gzip.arguments = ["gzip", "-9", plain.path]
        try gzip.run()
        gzip.waitUntilExit()
        #expect(gzip.terminationStatus == 0)
        return plain.path + ".gz"
    }

    @Test("records carry their lines and paths as written; RTTM ids a/utt_1 and b/utt_1; CSV carries the line")
    func records() throws {
        let manifest = try manifest()
        let rttm = work.path("out.rttm")
        let run = try Tool.run("dspscore", ["--manifest", manifest, "--format", "jsonl", "--analyses", "levels,loudness,speech", "--rttm", rttm, "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        let records = jsonLines(run.stdout)
        #expect(records.count == 4)
        #expect(records.map { $0["audio_filepath"] as? String } == ["a/utt_1.flac", "a/utt_1.flac", "b/utt_1.flac", "b/utt_1.flac"])
        for (record, line) in zip(records, Self.lines) {
            #expect(record["status"] as? String == "ok")
            let original = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? NSDictionary
            #expect((record["manifest"] as? NSDictionary) == original)
            #expect(run.stdout.contains("\"manifest\":" + line))
        }
        #expect((records[1]["segment"] as? [String: Any])?["start_frame"] as? Int == 24_000)
        #expect(records[2]["segment"] == nil && (records[3]["segment"] as? [String: Any])?["start_frame"] as? Int == 8_000)
        let ids = Set(try String(contentsOfFile: rttm, encoding: .utf8).split(separator: "\n").map { String($0.split(separator: " ")[1]) })
        #expect(ids == ["a/utt_1", "b/utt_1"])

        let csv = try Tool.run("dspscore", ["--manifest", manifest, "--format", "csv", "--analyses", "levels", "--quiet"])
        let header = try #require(csv.stdout.split(separator: "\n").first).split(separator: ",").map(String.init)
        for column in ["manifest", "start_frame", "error_kind", "error_message", "config_hash"] { #expect(header.contains(column)) }
        #expect(csv.stdout.contains(#""{""audio_filepath"": ""a/utt_1.flac"", ""offset"": 1.5"#))
    }

    @Test("--resume keeps both segments of one file; shards merge back into the whole run")
    func resumeShardMerge() throws {
        let manifest = try manifest()
        let common = ["--manifest", manifest, "--format", "jsonl", "--analyses", "levels,loudness", "--quiet"]
        let full = work.path("full.jsonl")
        #expect(try Tool.run("dspscore", common + ["--output", full]).status == 0)
        let whole = try String(contentsOfFile: full, encoding: .utf8)
        #expect(whole.split(separator: "\n").count == 4)

        // Resume over a file holding only the first segment: the second is scored, the first kept.
        let partial = work.path("partial.jsonl")
        try (String(whole.split(separator: "\n")[0]) + "\n").write(toFile: partial, atomically: true, encoding: .utf8)
        let resumed = try Tool.run("dspscore", common + ["--output", partial, "--resume", "--log-level", "info"])
        #expect(resumed.status == 0)
        #expect(resumed.stderr.contains("resuming: 1 files already scored"), "\(resumed.stderr)")
        #expect(try String(contentsOfFile: partial, encoding: .utf8) == whole)

        var shards: [String] = []
        for index in 0..<2 {
            let path = work.path("shard\(index).jsonl")
            #expect(try Tool.run("dspscore", common + ["--shard", "\(index)/2", "--output", path]).status == 0)
            shards.append(path)
        }
        // A file's segments stay in one shard.
        for shard in shards {
            let paths = Set(jsonLines(try String(contentsOfFile: shard, encoding: .utf8)).compactMap { $0["audio_filepath"] as? String })
            #expect(paths.count <= 2)
        }
        // Merged with an overlapping copy of the whole run: each record once.
        let merged = try Tool.run("dspscore", ["merge"] + shards + [full])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stdout == whole, "sorted by path, then segment start: the manifest's order here")
    }
}
