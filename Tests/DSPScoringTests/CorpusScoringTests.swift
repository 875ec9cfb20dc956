import DSPScoring
import Foundation
import Testing

@Suite("Corpus scoring: inputs, shards, parallel order, output formats")
struct CorpusScoringTests {
    /// TestAudio with two missing files mixed in (errors interleave with successes), and their
    /// records scored one after another by one scorer: the reference every `parallelOrder` case
    /// compares with, computed once per process (the ThreadSanitizer run of CI spent most of its
    /// time scoring it once per case).
    static let sequentialReference = Result { () throws -> (files: [String], records: [FileScore]) in
        var files = testAudioFiles()
        files.insert("/nonexistent/a.wav", at: 3)
        files.append("/nonexistent/b.wav")
        let scorer = try FileScorer()
        return (files, files.map { scorer.score(path: $0) })
    }

    @Test("parallel scoring emits records in input order, identical to sequential", arguments: [1, 2, 3, 8])
    func parallelOrder(jobs: Int) throws {
        let (files, sequential) = try Self.sequentialReference.get()
        var parallel: [FileScore] = []
        var indices: [Int] = []
        try ParallelScoring.score(files, jobs: jobs, configuration: .init()) { index, record in
            indices.append(index)
            parallel.append(record)
            return true
        }
        #expect(indices == Array(files.indices))
        #expect(parallel == sequential)
    }

    @Test("stopping early stops the workers")
    func stopEarly() throws {
        var seen = 0
        try ParallelScoring.score(testAudioFiles(), jobs: 2, configuration: .init()) { _, _ in
            seen += 1
            return seen < 3
        }
        #expect(seen == 3)
    }

    @Test("shards are disjoint, cover the list and do not depend on its order")
    func shards() throws {
        let paths = (0..<1000).map { "corpus/speaker\($0 % 37)/utt\($0).wav" }
        let shards = (0..<7).map { Shard(index: $0, count: 7)! }
        let parts = shards.map { shard in paths.filter(shard.contains) }
        #expect(parts.map(\.count).reduce(0, +) == paths.count)
        #expect(Set(parts.flatMap { $0 }) == Set(paths))
        #expect(parts.allSatisfy { $0.count > 80 })  // roughly balanced (1000/7 ≈ 143)
        let reversed = shards.map { shard in paths.reversed().filter(shard.contains) }
        #expect(zip(parts, reversed).allSatisfy { Set($0) == Set($1) })
        #expect(Shard("2/8") == Shard(index: 2, count: 8))
        #expect(Shard("8/8") == nil && Shard("x/2") == nil && Shard("1/0") == nil)
    }

    @Test("three shards scored separately hold exactly the unsharded records")
    func shardedRunEqualsWhole() throws {
        let files = testAudioFiles()
        let scorer = try FileScorer()
        let whole = Dictionary(uniqueKeysWithValues: files.map { ($0, scorer.score(path: $0)) })
        var merged: [String: FileScore] = [:]
        for i in 0..<3 {
            let shard = Shard(index: i, count: 3)!
            for file in files where shard.contains(file) {
                #expect(merged[file] == nil)
                merged[file] = scorer.score(path: file)
            }
        }
        #expect(merged == whole)
    }

    @Test("files-from lists")
    func inputs() throws {
        #expect(ScoringInputs.paths(fromLines: "a.wav\n\n# comment\n b.flac\r\nc.ogg") == ["a.wav", " b.flac", "c.ogg"])
    }

    @Test("CSV rows have the header's columns, quote text, leave nulls empty")
    func csv() throws {
        let columns = ScoreFormatting.csvHeader.split(separator: ",").count
        let scorer = try FileScorer()
        for file in [testAudio.appendingPathComponent("silence_16k.wav").path, "/tmp/has,comma \"q\".wav"] {
            let row = ScoreFormatting.csvRow(scorer.score(path: file))
            // Count fields outside quotes.
            var fields = 1
            var inQuotes = false
            for character in row {
                if character == "\"" { inQuotes.toggle() } else if character == ",", !inQuotes { fields += 1 }
            }
            #expect(fields == columns, "\(row)")
        }
        let silence = ScoreFormatting.csvRow(scorer.score(path: testAudio.appendingPathComponent("silence_16k.wav").path))
        #expect(silence.contains(",ok,,,,,,0.0,0,0,,"))  // no error kind or message; −∞ levels are empty cells
        #expect(ScoreFormatting.csvRow(scorer.score(path: "/tmp/has,comma \"q\".wav")).hasPrefix("\"/tmp/has,comma \"\"q\"\".wav\""))
    }

    @Test("the JSON Schema parses and names every key a record writes")
    func schema() throws {
        let schema = try #require(JSONSerialization.jsonObject(with: Data(FileScore.jsonSchema.utf8)) as? [String: Any])
        let properties = try #require(schema["properties"] as? [String: Any])
        let levelProperties = try #require(((properties["levels"] as? [String: Any])?["properties"]) as? [String: Any])
        let scorer = try FileScorer()
        for file in [testAudio.appendingPathComponent("speech_en-us_16k.wav").path, "/nonexistent.wav"] {
            let line = ScoreFormatting.jsonLine(scorer.score(path: file))
            let record = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(Set(record.keys).isSubset(of: Set(properties.keys)), "\(record.keys)")
            if let levels = record["levels"] as? [String: Any] {
                #expect(Set(levels.keys) == Set(levelProperties.keys))
            }
            if let loudness = record["loudness"] as? [String: Any] {
                let loudnessProperties = try #require(((properties["loudness"] as? [String: Any])?["properties"]) as? [String: Any])
                #expect(Set(loudness.keys) == Set(loudnessProperties.keys))
            }
        }
    }
}

@Suite("Merging shard outputs")
struct ScoreMergingTests {
    private func jsonl(_ files: [String]) throws -> String {
        let scorer = try FileScorer()
        return files.map { ScoreFormatting.jsonLine(scorer.score(path: $0)) + "\n" }.joined()
    }

    @Test("merging three shards gives exactly the unsharded run")
    func mergeShards() throws {
        let files = testAudioFiles() + [testAudio.appendingPathComponent("zz-missing.wav").path]  // sorted, as a directory run
        let whole = try jsonl(files)
        let shards = try (0..<3).map { i in
            (label: "shard\(i).jsonl", text: try jsonl(files.filter(Shard(index: i, count: 3)!.contains)))
        }
        let merged = try ScoreMerging.merge(shards).map { $0 + "\n" }.joined()
        #expect(merged == whole)
        // With an explicit order (reversed input order).
        let reversed = try ScoreMerging.merge(shards, order: files.reversed())
        #expect(reversed == whole.split(separator: "\n").map(String.init).reversed())
    }

    @Test("duplicates must agree; bad lines and missing paths are errors")
    func validation() throws {
        let a = try jsonl([testAudio.appendingPathComponent("silence_16k.wav").path])
        #expect(try ScoreMerging.merge([("a", a), ("b", a)]).count == 1)
        let changed = a.replacingOccurrences(of: "\"frames\":16000", with: "\"frames\":15999")
        #expect(throws: ScoreMerging.MergeError.self) { try ScoreMerging.merge([("a", a), ("b", changed)]) }
        #expect(throws: ScoreMerging.MergeError(source: "c", line: 2, message: "not a dspscore record (not JSON)")) {
            try ScoreMerging.merge([("c", a + "{oops\n")])
        }
        #expect(throws: ScoreMerging.MergeError.self) { try ScoreMerging.merge([("a", a)], order: ["/missing.wav"]) }
    }
}

@Suite("Resuming")
struct ScoreResumeTests {
    @Test("ok records are kept verbatim; errors and a cut-off last line are dropped")
    func completed() throws {
        let scorer = try FileScorer()
        let ok = ScoreFormatting.jsonLine(scorer.score(path: testAudio.appendingPathComponent("silence_16k.wav").path))
        let other = ScoreFormatting.jsonLine(scorer.score(path: testAudio.appendingPathComponent("noise_white_16k.wav").path))
        let failed = ScoreFormatting.jsonLine(scorer.score(path: "/nonexistent.wav"))
        let text = [ok, failed, other].joined(separator: "\n") + "\n" + String(other.prefix(40))
        let provenance = scorer.configuration.provenance
        let resumed = try ScoreResume.completedRecords(fromJSONL: Array(text.utf8), source: "out.jsonl", provenance: provenance)
        let kept = resumed.records
        #expect(kept.count == 2)
        #expect(kept[RecordIdentity(testAudio.appendingPathComponent("silence_16k.wav").path)] == ok)
        #expect(kept["/nonexistent.wav"] == nil)
        #expect(resumed.diagnostics == ["out.jsonl:4: not a dspscore record; dropped"])
        #expect(try ScoreResume.completedRecords(fromJSONL: [], provenance: provenance).records.isEmpty)
    }
}
