@testable import DSPScoring
import DSPIO
import Foundation
import Testing
import TestSupport

/// Manifests that round-trip: NeMo segments and Lhotse recordings and cuts scored as they
/// define them (checked against files cut to the segment, an oracle that never seeks), lines
/// carried verbatim, paths as written, gzip, records keyed so segments of one file stay apart.
@Suite("Manifests: NeMo and Lhotse lines, segments, pass-through, keys")
struct ManifestScoringTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "dspscore-manifest")
        for folder in ["a", "b"] {
            try FileManager.default.createDirectory(at: directory.url(folder), withIntermediateDirectories: true)
        }
    }

    /// Small blocks, so that segments start and end inside blocks and span several.
    static let configuration = FileScorer.Configuration(blockFrames: 4096, recordsSegments: true)

    /// Writes `frames` (interleaved, `channels` channels) to `path` as 16-bit PCM in `container`:
    /// the test files' own encoding, so the samples come back bit for bit.
    static func write(_ samples: [Float], to path: String, container: AudioFileFormat.Container, rate: Int, channels: Int) throws {
        let writer = try AudioFileWriter(
            path: path, format: AudioFileFormat(container: container, encoding: .pcm16), sampleRate: rate, channelCount: channels)
        try samples.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
    }

    /// The record with what names the input cleared: the rest must be the same for a segment
    /// and for a file holding just that segment.
    static func measures(_ record: FileScore) -> FileScore {
        var copy = record
        copy.audioFilepath = ""
        copy.manifest = nil
        copy.segment = nil
        return copy
    }

    // MARK: - Segments against cut files

    @Test("a NeMo offset/duration scores exactly the segment: the record of a file cut to it", arguments: [
        ("speech_en-us_16k.wav", AudioFileFormat.Container.wav), ("speech_2ch_en-us_de_44k1.flac", .flac),
    ])
    func nemoSegment(name: String, container: AudioFileFormat.Container) throws {
        let source = try AudioFileReader.readAll(path: TestAudio.path(name))
        let (offset, duration) = (0.731, 2.113)
        let start = Int((offset * Double(source.sampleRate)).rounded())
        let count = Int((duration * Double(source.sampleRate)).rounded())
        let cut = directory.path("cut.\(container == .wav ? "wav" : "flac")")
        let channels = source.channelCount
        try Self.write(Array(source.samples[(start * channels)..<((start + count) * channels)]), to: cut, container: container,
                       rate: source.sampleRate, channels: channels)

        let line = "{\"audio_filepath\": \"\(TestAudio.path(name))\", \"offset\": \(offset), \"duration\": \(duration), \"text\": \"t\"}"
        let inputs = try ScoringManifest.inputs(fromText: line, manifestDirectory: directory.path)
        let scorer = try FileScorer(configuration: Self.configuration)
        let segment = scorer.score(inputs[0])
        let oracle = scorer.score(path: cut)
        #expect(segment.status == .ok && oracle.status == .ok)
        #expect(segment.frames == count && segment.duration == Double(count) / Double(source.sampleRate))
        #expect(segment.segment == FileScore.Segment(
            startFrame: start, endFrame: start + count, offset: Double(start) / Double(source.sampleRate)))
        #expect(Self.measures(segment) == Self.measures(oracle))
        #expect(segment.segments == oracle.segments)
        // The whole file differs: the offset was not ignored.
        #expect(Self.measures(scorer.score(path: TestAudio.path(name))) != Self.measures(oracle))
    }

    @Test("a Lhotse cut of one channel scores that channel's span: the record of a mono file holding it")
    func lhotseCutChannel() throws {
        let name = "speech_2ch_en-us_de_44k1.flac"
        let source = try AudioFileReader.readAll(path: TestAudio.path(name))
        let rate = source.sampleRate
        let (start, duration) = (1.5, 3.25)
        let first = Int((start * Double(rate)).rounded()), count = Int((duration * Double(rate)).rounded())
        let channel1 = (first..<(first + count)).map { source.samples[$0 * 2 + 1] }
        let mono = directory.path("channel1.flac")
        try Self.write(channel1, to: mono, container: .flac, rate: rate, channels: 1)

        let line = Self.lhotseCut(id: "cut-1", start: start, duration: duration, channel: "1", source: TestAudio.path(name), rate: rate,
                                  frames: source.frameCount)
        let input = try #require(ScoringManifest.inputs(fromText: line, manifestDirectory: "").first)
        #expect(input.segment == ScoringInput.Segment(offset: start, duration: duration, fileChannels: [1]))
        let scorer = try FileScorer(configuration: Self.configuration)
        let record = scorer.score(input)
        let oracle = scorer.score(path: mono)
        #expect(record.status == .ok && record.channels == 1 && record.loudness?.channelLayout == "mono")
        #expect(record.segment?.fileChannels == "1" && record.segment?.startFrame == first)
        #expect(Self.measures(record) == Self.measures(oracle))
        #expect(record.segments == oracle.segments)
    }

    @Test("a segment past the end: within 25 ms scored to the end and said; beyond, a segment_out_of_range record")
    func pastTheEnd() throws {
        let path = TestAudio.path("speech_en-us_16k.wav")
        let frames = try AudioFileReader(path: path).frameCount
        let end = Double(frames) / 16_000
        let scorer = try FileScorer(configuration: .init(analyses: .levels))
        let near = scorer.score(ScoringInput(path: path, audioFilepath: path, segment: .init(offset: 1, duration: end - 1 + 0.02)))
        #expect(near.status == .ok && near.frames == frames - 16_000)
        #expect(near.segment?.missingFrames == 320 && near.segment?.endFrame == frames)
        let far = scorer.score(ScoringInput(path: path, audioFilepath: path, segment: .init(offset: 1, duration: end - 1 + 0.03)))
        #expect(far.status == .error && far.error?.kind == "segment_out_of_range" && far.levels == nil)
        #expect(far.segment?.endFrame == 16_000 + Int(((end - 1 + 0.03) * 16_000).rounded()))
        let after = scorer.score(ScoringInput(path: path, audioFilepath: path, segment: .init(offset: end + 1)))
        #expect(after.error?.kind == "segment_out_of_range")
        let none = scorer.score(ScoringInput(path: path, audioFilepath: path, segment: .init(offset: 1, duration: 0)))
        #expect(none.error?.kind == "empty")
        let toEnd = scorer.score(ScoringInput(path: path, audioFilepath: path, segment: .init(offset: 1)))
        #expect(toEnd.status == .ok && toEnd.frames == frames - 16_000 && toEnd.segment?.missingFrames == 0)
        let rate = scorer.score(ScoringInput(path: path, audioFilepath: path, declaredSampleRate: 8_000))
        #expect(rate.error?.kind == "manifest_mismatch")
        let channel = scorer.score(ScoringInput(path: path, audioFilepath: path, segment: .init(fileChannels: [1])))
        #expect(channel.error?.kind == "manifest_mismatch")
    }

    // MARK: - Lhotse lines

    /// A MonoCut line as Lhotse 1.x writes it (`cut.to_dict()`: the cut's fields, its recording
    /// inline, supervisions, `type`).
    static func lhotseCut(id: String, start: Double, duration: Double, channel: String, source: String, rate: Int, frames: Int) -> String {
        """
        {"id": "\(id)", "start": \(start), "duration": \(duration), "channel": \(channel), "supervisions": [{"id": "\(id)-sup", \
        "recording_id": "rec-1", "start": 0.0, "duration": \(duration), "channel": \(channel), "text": "HELLO WORLD", \
        "language": "English", "speaker": "spk-1"}], "recording": \(lhotseRecording(id: "rec-1", source: source, rate: rate, frames: frames, channels: [0, 1])), \
        "type": "MonoCut"}
        """
    }

    /// A RecordingSet line as Lhotse 1.x writes it.
    static func lhotseRecording(id: String, source: String, rate: Int, frames: Int, channels: [Int], type: String = "file") -> String {
        let list = channels.map(String.init).joined(separator: ", ")
        return """
            {"id": "\(id)", "sources": [{"type": "\(type)", "channels": [\(list)], "source": "\(source)"}], \
            "sampling_rate": \(rate), "num_samples": \(frames), "duration": \(Double(frames) / Double(rate)), "channel_ids": [\(list)]}
            """
    }

    @Test("Lhotse recordings and cuts, plain and gzipped (gzip(1) as the compressor): the same inputs and records")
    func lhotseLines() throws {
        for name in ["a/rec.wav", "b/stereo.flac"] {
            try FileManager.default.copyItem(
                atPath: TestAudio.path(name.hasPrefix("a") ? "speech_en-us_16k.wav" : "speech_2ch_en-us_de_44k1.flac"),
                toPath: directory.path(name))
        }
        let monoFrames = try AudioFileReader(path: directory.path("a/rec.wav")).frameCount
        let stereoFrames = try AudioFileReader(path: directory.path("b/stereo.flac")).frameCount
        let lines = [
            Self.lhotseRecording(id: "rec-a", source: "a/rec.wav", rate: 16_000, frames: monoFrames, channels: [0]),
            Self.lhotseCut(id: "cut-b", start: 0.5, duration: 2.0, channel: "0", source: "b/stereo.flac", rate: 44_100, frames: stereoFrames),
            // A MultiCut of both channels: the whole file's channels.
            Self.lhotseCut(id: "cut-c", start: 0.5, duration: 2.0, channel: "[0, 1]", source: "b/stereo.flac", rate: 44_100, frames: stereoFrames)
                .replacingOccurrences(of: "\"MonoCut\"", with: "\"MultiCut\""),
            // One file per channel: the cut's channel picks the file.
            """
            {"id": "cut-d", "start": 0.25, "duration": 1.0, "channel": 1, "supervisions": [], "recording": {"id": "rec-d", \
            "sources": [{"type": "file", "channels": [0], "source": "b/stereo.flac"}, {"type": "file", "channels": [1], "source": "a/rec.wav"}], \
            "sampling_rate": 16000, "num_samples": \(monoFrames), "duration": 1.0, "channel_ids": [0, 1]}, "type": "MonoCut"}
            """,
            Self.lhotseRecording(id: "rec-url", source: "https://example.org/x.wav", rate: 16_000, frames: 16_000, channels: [0], type: "url"),
            Self.lhotseRecording(id: "rec-cmd", source: "ffmpeg -i x.mp3 -f wav -", rate: 16_000, frames: 16_000, channels: [0], type: "command"),
            Self.lhotseRecording(id: "rec-mem", source: "", rate: 16_000, frames: 16_000, channels: [0], type: "memory"),
            "{\"id\": \"mix\", \"tracks\": [], \"type\": \"MixedCut\"}",
        ]
        let text = lines.joined(separator: "\n") + "\n"
        let plain = directory.url("cuts.jsonl")
        try text.write(to: plain, atomically: true, encoding: .utf8)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gzip.arguments = ["gzip", "-k", "-9", plain.path]
        try gzip.run()
        gzip.waitUntilExit()
        #expect(gzip.terminationStatus == 0)
        let compressed = try [UInt8](Data(contentsOf: directory.url("cuts.jsonl.gz")))
        #expect(Gzip.isCompressed(compressed))
        #expect(try Gzip.decompress(compressed) == Array(text.utf8))
        #expect(throws: Gzip.DecodingError.self) { try Gzip.decompress(Array(compressed.dropLast(12))) }
        // Two members, as `cat a.gz b.gz` or Python's gzip in append mode write.
        #expect(try Gzip.decompress(compressed + compressed) == Array((text + text).utf8))

        let fromPlain = try ScoringManifest.inputs(fromBytes: Array(text.utf8), manifestDirectory: directory.path)
        let fromGzip = try ScoringManifest.inputs(fromBytes: compressed, manifestDirectory: directory.path)
        #expect(fromPlain == fromGzip)
        #expect(fromPlain.count == lines.count)
        #expect(fromPlain.map(\.audioFilepath).prefix(4) == ["a/rec.wav", "b/stereo.flac", "b/stereo.flac", "a/rec.wav"])
        #expect(fromPlain[0].path == directory.path("a/rec.wav") && fromPlain[0].segment == nil)
        #expect(fromPlain[1].segment == .init(offset: 0.5, duration: 2.0, fileChannels: [0]))
        #expect(fromPlain[2].segment == .init(offset: 0.5, duration: 2.0, fileChannels: nil))
        #expect(fromPlain[3].segment == .init(offset: 0.25, duration: 1.0, fileChannels: nil))

        let scorer = try FileScorer(configuration: .init(analyses: [.levels, .loudness]))
        let records = fromGzip.map { scorer.score($0) }
        #expect(records.prefix(4).allSatisfy { $0.status == .ok }, "\(records.prefix(4).map { $0.error?.message ?? "" })")
        #expect(records[0].frames == monoFrames && records[0].segment == nil)
        #expect(records[1].channels == 1 && records[1].frames == 88_200 && records[1].segment?.startFrame == 22_050)
        #expect(records[2].channels == 2 && records[2].frames == 88_200 && records[2].segment?.fileChannels == nil)
        #expect(records[3].channels == 1 && records[3].frames == 16_000 && records[3].segment?.startFrame == 4_000)
        for (record, line) in zip(records, lines) { #expect(record.manifest?.text == line) }
        for record in records.suffix(4) {
            #expect(record.status == .error && record.error?.kind == "unsupported_source", "\(record.error?.message ?? "")")
        }
        #expect(records[4].audioFilepath == "https://example.org/x.wav")
        #expect(records[4].error?.message.contains("source type url") == true)
        #expect(records[5].error?.message.contains("source type command") == true)
        #expect(records[6].audioFilepath == "rec-mem" && records[6].error?.message.contains("source type memory") == true)
        #expect(records[7].error?.message.contains("MixedCut") == true)
    }

    @Test("lines that are not a NeMo or Lhotse object stop the read, naming the line")
    func malformedLines() throws {
        let bad = [
            "not json", "[1, 2]", "{\"path\": \"x\"}", "{\"audio_filepath\": 3}", "{\"audio_filepath\": \"x\", \"offset\": -1}",
            "{\"audio_filepath\": \"x\", \"duration\": \"2\"}", "{\"id\": \"s\", \"recording_id\": \"r\", \"start\": 0, \"duration\": 1}",
            "{\"id\": \"r\", \"sources\": []}",
        ]
        for line in bad {
            #expect(throws: ScoringManifest.ManifestError.self, "\(line)") {
                try ScoringManifest.inputs(fromText: "{\"audio_filepath\": \"ok.wav\"}\n" + line, manifestDirectory: "/")
            }
            do {
                _ = try ScoringManifest.inputs(fromText: "{\"audio_filepath\": \"ok.wav\"}\n\n" + line, manifestDirectory: "/")
            } catch {
                #expect(error.line == 3, "\(line)")
            }
        }
        // A byte-order mark and CRLF line ends are not part of the lines.
        let crlf = try ScoringManifest.inputs(fromText: "\u{FEFF}{\"audio_filepath\": \"x.wav\"}\r\n{\"audio_filepath\": \"y.wav\"}\r\n", manifestDirectory: "/d")
        #expect(crlf.map(\.path) == ["/d/x.wav", "/d/y.wav"] && crlf[0].manifest?.text == "{\"audio_filepath\": \"x.wav\"}")
        #expect(throws: Gzip.DecodingError.self) {
            try ScoringManifest.inputs(fromBytes: [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2], manifestDirectory: "/")
        }
    }

    // MARK: - Pass-through and paths

    @Test("every field of a line is carried verbatim, nested JSON included; the path is recorded as written")
    func passThrough() throws {
        try FileManager.default.copyItem(atPath: TestAudio.path("speech_en-us_16k.wav"), toPath: directory.path("a/utt 1.wav"))
        let line = #"""
            {"text": "caf\u00e9 \"quoted\" / ok", "audio_filepath": "./a/../a/utt 1.wav", "duration": 1.50, "offset": 0, "lang": "fr", "score": 1e-3, "big": 12345678901234567890, "nested": {"z": [1, {"deep": null}, true], "a": {}}, "empty": [], "id": "utt-1"}
            """#
        let input = try #require(try ScoringManifest.inputs(fromText: "  " + line + " \r\n", manifestDirectory: directory.path).first)
        #expect(input.audioFilepath == "./a/../a/utt 1.wav")
        let record = try FileScorer(configuration: .init(analyses: .levels)).score(input)
        #expect(record.status == .ok && record.audioFilepath == "./a/../a/utt 1.wav" && record.frames == 24_000)
        let json = ScoreFormatting.jsonLine(record)
        #expect(json.contains(",\"manifest\":" + line + ","))
        // What a reader gets back: the line's object, every value.
        let object = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let original = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? NSDictionary)
        #expect((object["manifest"] as? NSDictionary) == original)
        #expect(object["audio_filepath"] as? String == "./a/../a/utt 1.wav")
        // Read back as a record (merge, resume): the same line, however spelled.
        let decoded = try JSONDecoder().decode(FileScore.self, from: Data(json.utf8))
        #expect(decoded.manifest == record.manifest && decoded.manifest?.value["nested"]?["z"]?.array?.count == 3)
        #expect(RecordIdentity(decoded) == input.identity)
        // CSV: the line's JSON text in one cell.
        #expect(ScoreFormatting.csvRow(record).hasSuffix(",\"" + line.replacingOccurrences(of: "\"", with: "\"\"") + "\""))
    }

    // MARK: - Keys for resume and merge

    @Test("one file listed twice at different offsets: two records, kept apart by resume and merge; the same line twice is one")
    func segmentsOfOneFile() throws {
        let path = TestAudio.path("speech_en-us_16k.wav")
        let text = """
            {"audio_filepath": "\(path)", "offset": 0.0, "duration": 1.0}
            {"audio_filepath": "\(path)", "offset": 1.0, "duration": 1.0}
            {"audio_filepath": "\(path)", "offset": 0.0, "duration": 1.0}
            """
        let inputs = try ScoringManifest.inputs(fromText: text, manifestDirectory: "/")
        #expect(inputs[0].identity != inputs[1].identity && inputs[0].identity == inputs[2].identity)
        #expect(inputs[0].identity != RecordIdentity(path))
        let scorer = try FileScorer(configuration: .init(analyses: [.levels, .loudness]))
        let records = inputs.map { scorer.score($0) }
        #expect(records[0] != records[1] && records[0] == records[2])
        let lines = records.map(ScoreFormatting.jsonLine)
        let provenance = scorer.configuration.provenance

        let kept = try ScoreResume.completedRecords(fromJSONL: Array(lines.joined(separator: "\n").utf8), provenance: provenance)
        #expect(kept.records.count == 2)
        #expect(kept.records[inputs[0].identity] == lines[0] && kept.records[inputs[1].identity] == lines[1])
        #expect(kept.records[RecordIdentity(path)] == nil)

        // Shards holding overlapping lines: each record once, ordered by path then segment start.
        let merged = try ScoreMerging.merge([("s0", lines[1] + "\n" + lines[0]), ("s1", lines[2])])
        #expect(merged == [lines[0], lines[1]])
        #expect(try ScoreMerging.merge([("s0", lines[1]), ("s1", lines[0])], order: [path]) == [lines[0], lines[1]])
        // The same line with a different record is a disagreement.
        var changed = records[1]
        changed.duration = 0.5
        #expect(throws: ScoreMerging.MergeError.self) {
            try ScoreMerging.merge([("s0", lines[1]), ("s1", ScoreFormatting.jsonLine(changed))])
        }
        // An edited line is another input: scored again on resume.
        let edited = try ScoringManifest.inputs(
            fromText: "{\"audio_filepath\": \"\(path)\", \"offset\": 1.0, \"duration\": 1.0, \"text\": \"new\"}", manifestDirectory: "/")
        #expect(kept.records[edited[0].identity] == nil)
    }

    // MARK: - RTTM and timelines

    @Test("RTTM file ids are audio_filepath without its extension: a/utt_1.flac and b/utt_1.flac stay apart")
    func rttmIDs() throws {
        for folder in ["a", "b"] {
            try FileManager.default.copyItem(
                atPath: TestAudio.path("speech_de_16k.flac"), toPath: directory.path("\(folder)/utt_1.flac"))
        }
        let found = AudioFileDiscovery.expand([directory.path])
        let scorer = try FileScorer(configuration: .init(analyses: .speech, recordsSegments: true))
        var ids: [String: Set<String>] = [:]
        for path in found {
            for line in TimelineFormatting.rttmLines(scorer.score(path: path)) {
                ids[String(line.split(separator: " ")[1]), default: []].insert(path)
            }
        }
        let root = directory.path
        #expect(Set(ids.keys) == [root + "/a/utt_1", root + "/b/utt_1"])
        #expect(ids.values.allSatisfy { $0.count == 1 })
        #expect(TimelineFormatting.rttmFileID("a/utt_1.flac") == "a/utt_1")
        #expect(TimelineFormatting.rttmFileID("./corpus/x.y/utt 2.wav") == "corpus/x.y/utt_2")
        #expect(TimelineFormatting.rttmFileID("noext") == "noext")
        #expect(TimelineFormatting.rttmFileID(".wav") == ".wav")
        #expect(TimelineFormatting.rttmFileID("") == "unnamed")
    }

    @Test("timelines and RTTM of a segment are in the file's time")
    func segmentTimes() throws {
        let path = TestAudio.path("speech_en-us_16k.wav")
        let scorer = try FileScorer(configuration: .init(analyses: .speech, recordsSegments: true))
        let whole = scorer.score(ScoringInput(path: path, audioFilepath: path, segment: .init(offset: 0, duration: 2.5)))
        let later = scorer.score(ScoringInput(path: path, audioFilepath: path, segment: .init(offset: 0.5, duration: 2.0)))
        let speech = try #require(later.segments?.speech.first)
        let line = try #require(TimelineFormatting.rttmLines(later).first)
        #expect(line.split(separator: " ")[3] == String(format: "%.3f", 0.5 + speech.start)[...])
        let timeline = try #require(TimelineFormatting.timelineLines(later).first)
        #expect(timeline.contains("\"start\":0.500,"))
        #expect(TimelineFormatting.timelineLines(whole).first?.contains("\"start\":0.000,") == true)
    }

    // MARK: - CSV completeness

    /// The JSON record's scalar leaves by dotted key (`levels.rms_dbfs`); `manifest` is one leaf.
    static func leaves(_ object: [String: Any], prefix: String = "") -> [String: Any] {
        var result: [String: Any] = [:]
        for (key, value) in object {
            if let child = value as? [String: Any], key != "manifest" {
                result.merge(leaves(child, prefix: prefix + key + ".")) { a, _ in a }
            } else {
                result[prefix + key] = value
            }
        }
        return result
    }

    /// The CSV column a JSON leaf must have: its key, except where the key alone would be
    /// ambiguous (written out here, not read from the tables).
    static func column(_ leaf: String) -> String {
        if leaf == "error.kind" { return "error_kind" }
        if leaf == "error.message" { return "error_message" }
        if leaf.hasPrefix("not_measured.") { return leaf.dropFirst("not_measured.".count) + "_not_measured" }
        return String(leaf.split(separator: ".").last!)
    }

    /// RFC 4180 fields of one line.
    static func cells(_ row: String) -> [String] {
        var cells: [String] = [], cell = "", quoted = false
        var characters = row.makeIterator()
        var pending: Character? = nil
        while let c = pending ?? characters.next() {
            pending = nil
            if quoted {
                if c == "\"" {
                    let next = characters.next()
                    if next == "\"" { cell.append("\"") } else { quoted = false; pending = next }
                } else { cell.append(c) }
            } else if c == "\"" { quoted = true } else if c == "," { cells.append(cell); cell = "" } else { cell.append(c) }
        }
        return cells + [cell]
    }

    @Test("CSV has a column for every scalar field of the record, and each cell holds the JSON value")
    func csvCompleteness() throws {
        // A record with every part: all analyses on speech (and looped backgrounds off, so
        // provenance.options is written), a segment with channels, a manifest, an error and every
        // not_measured reason set by hand.
        let input = try #require(try ScoringManifest.inputs(
            fromText: Self.lhotseCut(id: "c", start: 0.5, duration: 4.0, channel: "1", source: TestAudio.path("speech_2ch_en-us_de_44k1.flac"),
                                     rate: 44_100, frames: 286_792), manifestDirectory: "").first)
        var record = try FileScorer(configuration: .init(loopedBackgrounds: false)).score(input)
        #expect(record.status == .ok && record.environment != nil && record.detection?.musicRatio != nil)
        #expect(record.provenance.options == "no_looped_backgrounds")
        record.error = .init(kind: "corrupt", message: "a, \"b\"")
        record.notMeasured = .init(levels: "too_short", loudness: "too_short", detection: "too_short", environment: "too_short")
        let object = try #require(JSONSerialization.jsonObject(with: Data(ScoreFormatting.jsonLine(record).utf8)) as? [String: Any])
        let leaves = Self.leaves(object)
        let columns = ScoreFormatting.csvHeader.split(separator: ",").map(String.init)
        #expect(Set(columns).count == columns.count, "duplicate CSV columns")
        let expected = Set(leaves.keys.map(Self.column))
        #expect(expected.count == leaves.count, "two JSON fields would share a column")
        #expect(Set(columns) == expected, "missing: \(expected.subtracting(columns).sorted()), extra: \(Set(columns).subtracting(expected).sorted())")
        for required in ["noise_dbfs", "max_momentary_lufs", "max_short_term_lufs", "channel_layout", "error_kind", "error_message",
                         "start_frame", "file_channels", "manifest", "config_hash", "bandwidth_class"] {
            #expect(columns.contains(required), "\(required)")
        }
        let cells = Self.cells(ScoreFormatting.csvRow(record))
        #expect(cells.count == columns.count)
        let byColumn = Dictionary(uniqueKeysWithValues: leaves.map { (Self.column($0.key), $0.value) })
        for (column, cell) in zip(columns, cells) {
            switch byColumn[column] {
            case nil, is NSNull: #expect(cell.isEmpty, "\(column)")
            case let text as String: #expect(cell == text, "\(column)")
            case let manifest as [String: Any]:
                let parsed = try JSONSerialization.jsonObject(with: Data(cell.utf8)) as? NSDictionary
                #expect(parsed == manifest as NSDictionary, "\(column)")
            case let number as NSNumber:
                let x = try #require(Double(cell), "\(column): \(cell)")
                #expect(abs(x - number.doubleValue) <= 1e-14 * max(1, abs(x)), "\(column): \(cell) vs \(number)")
            case let other: Issue.record("\(column): unexpected \(String(describing: other))")
            }
        }
    }
}
