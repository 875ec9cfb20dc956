@testable import DSPScoring
import Foundation
import Testing
import TestSupport

/// The record's outputs all come from one description (the parts' field tables); these tests
/// hold the outputs to oracles outside that description: python3's `jsonschema` validates the
/// written records against the printed schema, Foundation's `JSONSerialization` reads the
/// records back, and a record decoded from its line must equal the record written.
@Suite("Record outputs against independent oracles")
struct RecordSchemaTests {
    /// Real records: TestAudio under several analysis sets, and error records.
    static func realRecords() throws -> [FileScore] {
        let files = testAudioFiles() + ["/nonexistent/dir/x.wav", repositoryRoot.appendingPathComponent("Package.swift").path]
        var records: [FileScore] = []
        for analyses: FileScorer.Analyses in [.all, .levels, [.speech, .music], [.loudness]] {
            let scorer = try FileScorer(configuration: .init(analyses: analyses))
            records += files.map { scorer.score(path: $0) }
        }
        // Manifest lines: a NeMo segment, a Lhotse cut of one channel, a segment past the end, a url source.
        let stereo = testAudio.appendingPathComponent("speech_2ch_en-us_de_44k1.flac").path
        let manifest = [
            #"{"audio_filepath": "\#(testAudio.appendingPathComponent("speech_en-us_16k.wav").path)", "offset": 0.25, "duration": 1.5, "text": "a, b"}"#,
            ManifestScoringTests.lhotseCut(id: "c", start: 1, duration: 2, channel: "1", source: stereo, rate: 44_100, frames: 286_792),
            #"{"audio_filepath": "\#(stereo)", "offset": 6, "duration": 2}"#,
            ManifestScoringTests.lhotseRecording(id: "u", source: "https://example.org/u.wav", rate: 16_000, frames: 1, channels: [0], type: "url"),
        ]
        let scorer = try FileScorer()
        records += try ScoringManifest.inputs(fromText: manifest.joined(separator: "\n"), manifestDirectory: "").map { scorer.score($0) }
        return records
    }

    /// A record with every part present (so every declared key is written), values in range.
    static func fullRecord(_ rng: inout SplitMix64) -> FileScore {
        func db() -> Double? { Bool.random(using: &rng) ? nil : -Double.random(in: 0...120, using: &rng) }
        func ratio() -> Double { Double.random(in: 0...1, using: &rng) }
        var score = FileScore(
            audioFilepath: ScoreFormattingJSONTests.text(&rng), duration: Double.random(in: 0...100, using: &rng),
            sampleRate: 16_000, channels: 2, frames: 1_600, format: "WAV/PCM_16", status: .ok,
            provenance: .init(frameLength: 1024, clipThreshold: 1, analyses: "levels", options: "no_looped_backgrounds"))
        score.levels = .init(
            rmsDBFS: db(), rmsDBFSAES17: db(), peakDBFS: db(), dcOffset: ratio() - 0.5, clippedSamples: 3, nonFiniteSamples: 0,
            loudestFrameRMSDBFS: db(), quietestFrameRMSDBFS: db())
        score.loudness = .init(
            integratedLUFS: db(), loudnessRangeLU: ratio() * 20, truePeakDBTP: db() ?? -.infinity, maxMomentaryLUFS: db(), maxShortTermLUFS: db(),
            channelLayout: ["mono", "stereo", "5.0", "5.1", "equal"].randomElement(using: &rng)!)
        score.detection = .init(
            speechRatio: ratio(), musicRatio: Bool.random(using: &rng) ? nil : ratio(), multiSpeakerRatio: Bool.random(using: &rng) ? nil : ratio(),
            speechSeconds: ratio() * 10, speechSegments: 4, noiseFloorDBFS: db())
        score.environment = .init(
            noiseDBFS: db(), speechDBFS: db(), snrDB: Bool.random(using: &rng) ? nil : ratio() * 130 - 30,
            rt60Seconds: Bool.random(using: &rng) ? nil : ratio() * 2, c50DB: db(), bandwidthHz: Bool.random(using: &rng) ? nil : ratio() * 24_000,
            bandwidthClass: ["narrowband", "wideband", "super_wideband", "fullband"].randomElement(using: &rng)!,
            f0MedianHz: Bool.random(using: &rng) ? nil : 50 + ratio() * 450, f0SpreadHz: Bool.random(using: &rng) ? nil : ratio() * 60,
            speakingRateSPS: Bool.random(using: &rng) ? nil : ratio() * 8, noiseCategory: "quiet", categoryKey: "45_false_true", speechClarity: Bool.random(using: &rng) ? nil : ratio(),
            frequencyComplexity: ratio(), recommendation: "accurate", measurements: 12)
        let reasons = FileScore.NotMeasured.Reason.allCases.map(\.rawValue)
        score.notMeasured = .init(
            levels: reasons.randomElement(using: &rng), loudness: reasons.randomElement(using: &rng),
            detection: reasons.randomElement(using: &rng), environment: reasons.randomElement(using: &rng))
        if Bool.random(using: &rng) {
            score.status = .error
            score.error = .init(kind: "truncated", message: ScoreFormattingJSONTests.text(&rng))
        }
        let start = Int.random(in: 0...16_000, using: &rng)
        score.segment = .init(
            startFrame: start, endFrame: start + 1_600, missingFrames: Int.random(in: 0...400, using: &rng), offset: Double(start) / 16_000,
            fileChannels: Bool.random(using: &rng) ? "1" : "0,1")
        let line = #"{"audio_filepath": "x.wav", "offset": 0.5, "nested": {"a": [1, null, "b"]}}"#
        score.manifest = ManifestLine(line: line)
        return score
    }

    @Test("records validate against the printed schema (python3 jsonschema, draft 2020-12)")
    func validatesAgainstSchema() throws {
        var rng = SplitMix64(seed: 0x5C4E_3A)
        let records = try Self.realRecords() + (0..<200).map { _ in Self.fullRecord(&rng) }
        let directory = try TemporaryDirectory(prefix: "record-schema")
        let schema = directory.url("schema.json")
        let lines = directory.url("records.jsonl")
        try FileScore.jsonSchema.write(to: schema, atomically: true, encoding: .utf8)
        try (records.map(ScoreFormatting.jsonLine).joined(separator: "\n") + "\n").write(to: lines, atomically: true, encoding: .utf8)
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            validator = jsonschema.Draft202012Validator(schema)
            bad = 0
            for number, line in enumerate(open(sys.argv[2]), 1):
                for error in validator.iter_errors(json.loads(line)):
                    bad += 1
                    print(number, error.json_path, error.message[:200])
            print("records", number, "errors", bad)
            sys.exit(1 if bad else 0)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, schema.path, lines.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)")
        #expect(output.contains("records \(records.count) errors 0"), "\(output)")
    }

    /// The schema's properties, recursively: key path → the property's schema.
    static func declared(_ schema: [String: Any], prefix: String = "") -> [String: [String: Any]] {
        var result: [String: [String: Any]] = [:]
        for (name, value) in schema["properties"] as? [String: Any] ?? [:] {
            guard let property = value as? [String: Any] else { continue }
            result[prefix + name] = property
            result.merge(declared(property, prefix: prefix + name + ".")) { a, _ in a }
        }
        return result
    }

    /// A JSON object's keys, recursively, with their values.
    static func written(_ object: [String: Any], prefix: String = "") -> [String: Any] {
        var result: [String: Any] = [:]
        for (name, value) in object {
            result[prefix + name] = value
            // The manifest line is the input's own object, not the record's keys.
            if let nested = value as? [String: Any], prefix + name != "manifest" { result.merge(written(nested, prefix: prefix + name + ".")) { a, _ in a } }
        }
        return result
    }

    @Test("a record with every part writes exactly the schema's keys, required ones always, null only where the schema allows it")
    func keysMatchSchema() throws {
        let schema = try #require(JSONSerialization.jsonObject(with: Data(FileScore.jsonSchema.utf8)) as? [String: Any])
        let declared = Self.declared(schema)
        var rng = SplitMix64(seed: 7)
        var seenNull = Set<String>()
        for _ in 0..<300 {
            var record = Self.fullRecord(&rng)
            record.error = .init(kind: "corrupt", message: "m")
            let line = ScoreFormatting.jsonLine(record)
            let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let keys = Self.written(object)
            #expect(Set(keys.keys) == Set(declared.keys), "\(Set(keys.keys).symmetricDifference(declared.keys))")
            for (path, value) in keys where value is NSNull {
                seenNull.insert(path)
                let type = declared[path]?["type"] as? [String]
                #expect(type?.contains("null") == true, "\(path) is null but the schema does not allow it")
            }
        }
        // Every nullable field was seen as null at least once.
        let nullable = declared.filter { ($0.value["type"] as? [String])?.contains("null") == true }.keys
        #expect(Set(nullable) == seenNull)
    }

    @Test("decoding a written line gives the record back (random records of every shape)")
    func roundTrip() throws {
        var rng = SplitMix64(seed: 0xDEC0DE)
        var compared = 0
        for _ in 0..<5_000 {
            var score = ScoreFormattingJSONTests.record(&rng)
            score.segments = nil  // not part of the JSON
            let line = ScoreFormatting.jsonLine(score)
            guard line != "{}" else { continue }
            let decoded = try JSONDecoder().decode(FileScore.self, from: Data(line.utf8))
            // The writer withholds what JSON cannot hold (non-finite numbers); range checks are the scorer's.
            #expect(decoded == (score.firstNonFiniteField == nil ? score : score.withholdingNonFiniteResults()), "\(line)")
            compared += 1
        }
        #expect(compared > 4_000)
    }

    @Test("CSV cells are the JSON record's values (JSONSerialization reads the record)")
    func csvMatchesJSON() throws {
        let columns = ScoreFormatting.csvHeader.split(separator: ",").map(String.init)
        for record in try Self.realRecords() where !record.audioFilepath.contains(",") {
            let object = try #require(JSONSerialization.jsonObject(with: Data(ScoreFormatting.jsonLine(record).utf8)) as? [String: Any])
            let values = Self.written(object)
            let cells = ManifestScoringTests.cells(ScoreFormatting.csvRow(record))
            #expect(cells.count == columns.count)
            for (column, cell) in zip(columns, cells) {
                // A column is named by its key, `error_kind` by its object and key.
                let candidates = column == "error_kind" ? ["error.kind"] : column == "error_message" ? ["error.message"] : values.keys.filter { $0 == column || $0.hasSuffix("." + column) }
                #expect(candidates.count <= 1, "\(column): \(candidates)")
                let value = candidates.first.flatMap { values[$0] }
                switch value {
                case nil, is NSNull: #expect(cell.isEmpty, "\(column)")
                case let text as String: #expect(cell == text, "\(column)")
                case let object as [String: Any]:
                    #expect(column == "manifest")
                    #expect(try JSONSerialization.jsonObject(with: Data(cell.utf8)) as? NSDictionary == object as NSDictionary)
                case let number as NSNumber:
                    // JSONSerialization on Linux reads numbers a few ulps off; the writer's own exactness is
                    // checked against JSONEncoder (ScoreFormattingJSONTests).
                    let x = try #require(Double(cell), "\(column): \(cell)")
                    #expect(abs(x - number.doubleValue) <= 1e-14 * max(1, abs(x)), "\(column): \(cell) vs \(number)")
                default: Issue.record("\(column): unexpected \(String(describing: value))")
                }
            }
        }
    }
}
