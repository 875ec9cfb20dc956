import Foundation

/// Reads JSON Lines manifests into ``ScoringInput``s: NeMo lines, Lhotse recordings and Lhotse
/// cuts, plain or gzipped.
///
/// **NeMo** (`audio_filepath`, optional `offset` and `duration` in seconds): the segment
/// `[offset, offset + duration)` is scored (from `offset` to the end without `duration`); a
/// line with neither scores the whole file.
///
/// **Lhotse recording** (`id`, `sources: [{type, channels, source}]`, `sampling_rate`,
/// `num_samples`, `duration`, optional `channel_ids`, `transforms`): the whole recording, from
/// its one `file` source.
///
/// **Lhotse cut** (`MonoCut`/`MultiCut` as Lhotse 1.x writes them: `id`, `start`, `duration`,
/// `channel` (an id or a list of ids), `recording: {…}`, `supervisions`, …): the cut's span of
/// its recording, only the cut's channels — each channel id mapped to the file and position
/// that the recording's `sources[].channels` give it.
///
/// Every line keeps its JSON object verbatim in the record (``ManifestLine``). Relative paths
/// are opened relative to the manifest's folder (as NeMo resolves them) and recorded as
/// written. A well-formed line naming audio that cannot be read as a file — a source of type
/// `url`, `command`, `memory` or `shar`, a recording split over several source files with no
/// cut choosing one, a recording with `transforms`, a `MixedCut` or `PaddingCut`, a cut without
/// a recording — becomes an error record of kind `unsupported_source`; a line that is not a
/// JSON object of one of these shapes stops the read (``ManifestError``), since a broken
/// manifest should fail before a long run rather than after.
public enum ScoringManifest {
    /// Reads a manifest's bytes: gzip (by its magic number, whatever the file is called) or
    /// plain text, one JSON object per line; blank lines are skipped. `decodeText` turns the
    /// decompressed bytes into text (the CLI escapes bytes that are not UTF-8, as DSPIO's
    /// `PathBytes` does).
    public static func inputs(
        fromBytes bytes: [UInt8], manifestDirectory: String,
        decodeText: ([UInt8]) -> String = { String(decoding: $0, as: UTF8.self) }
    ) throws -> [ScoringInput] {
        let text = decodeText(Gzip.isCompressed(bytes) ? try Gzip.decompress(bytes) : bytes)
        return try inputs(fromText: text, manifestDirectory: manifestDirectory)
    }

    /// Reads a manifest's text, one JSON object per line; blank lines are skipped.
    public static func inputs(fromText text: String, manifestDirectory: String) throws(ManifestError) -> [ScoringInput] {
        var result: [ScoringInput] = []
        let decoder = JSONDecoder()
        // A byte-order mark some editors write is not part of the first line's object.
        let text = text.hasPrefix("\u{FEFF}") ? text.dropFirst() : text[...]
        for (number, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { continue }
            guard trimmed.first == "{", let value = try? decoder.decode(JSONValue.self, from: Data(trimmed.utf8)), case .object = value else {
                throw ManifestError(line: number + 1, message: "not a JSON object")
            }
            do throws(ManifestError) {
                result.append(try input(ManifestLine(text: trimmed, value: value), manifestDirectory: manifestDirectory))
            } catch {
                throw ManifestError(line: number + 1, message: error.message)
            }
        }
        return result
    }

    /// The input one parsed line names.
    public static func input(_ line: ManifestLine, manifestDirectory: String) throws(ManifestError) -> ScoringInput {
        let value = line.value
        if value["audio_filepath"] != nil { return try nemo(line, manifestDirectory: manifestDirectory) }
        // A supervision has a recording_id but, unlike a cut, no type and no recording.
        if value["recording_id"] != nil && value["type"] == nil && value["recording"] == nil && value["sources"] == nil {
            throw ManifestError(message: "a Lhotse supervision, not a recording or cut: give the cuts (CutSet) or recordings (RecordingSet)")
        }
        if value["recording"] != nil || value["tracks"] != nil || (value["start"] != nil && value["sources"] == nil) {
            return try lhotseCut(line, manifestDirectory: manifestDirectory)
        }
        if value["sources"] != nil { return try lhotseRecording(line, value, manifestDirectory: manifestDirectory) }
        throw ManifestError(message: "neither a NeMo line (audio_filepath) nor a Lhotse recording (sources) or cut (recording)")
    }

    /// A manifest line that could not be read.
    public struct ManifestError: Error, Equatable, CustomStringConvertible {
        /// One-based line number (0 before it is known).
        public var line: Int
        /// What was wrong.
        public var message: String

        /// Creates an error.
        public init(line: Int = 0, message: String) {
            self.line = line
            self.message = message
        }

        public var description: String { "manifest line \(line): \(message)" }
    }

    // MARK: - NeMo

    private static func nemo(_ line: ManifestLine, manifestDirectory: String) throws(ManifestError) -> ScoringInput {
        let value = line.value
        guard let path = value["audio_filepath"]?.string else { throw ManifestError(message: "audio_filepath is not a string") }
        let offset = try seconds(value["offset"], "offset")
        let duration = try seconds(value["duration"], "duration")
        let segment = offset == nil && duration == nil ? nil : ScoringInput.Segment(offset: offset ?? 0, duration: duration)
        return ScoringInput(
            path: resolved(path, manifestDirectory), audioFilepath: path, segment: segment, manifest: line)
    }

    // MARK: - Lhotse

    private static func lhotseRecording(_ line: ManifestLine, _ recording: JSONValue, manifestDirectory: String) throws(ManifestError) -> ScoringInput {
        let id = recording["id"]?.string ?? "?"
        let sources = try sourceList(recording, id: id)
        let rate = try sampleRate(recording)
        guard let unsupported = unsupportedRecording(recording, id: id, sources: sources) else {
            let source = sources[0]
            return ScoringInput(
                path: resolved(source.path, manifestDirectory), audioFilepath: source.path, declaredSampleRate: rate, manifest: line)
        }
        return failed(line, recording: recording, sources: sources, unsupported)
    }

    private static func lhotseCut(_ line: ManifestLine, manifestDirectory: String) throws(ManifestError) -> ScoringInput {
        let cut = line.value
        let id = cut["id"]?.string ?? "?"
        if let type = cut["type"]?.string, type != "MonoCut" && type != "MultiCut" {
            return failed(line, recording: nil, sources: [], "cut \(id) is a \(type); dspscore scores MonoCut and MultiCut lines (cuts of one recording)")
        }
        guard let recording = cut["recording"], case .object = recording else {
            return failed(line, recording: nil, sources: [], "cut \(id) has no recording (a features-only cut)")
        }
        guard let start = try seconds(cut["start"], "start"), let duration = try seconds(cut["duration"], "duration") else {
            throw ManifestError(message: "a Lhotse cut needs start and duration")
        }
        let recordingID = recording["id"]?.string ?? "?"
        let sources = try sourceList(recording, id: recordingID)
        let rate = try sampleRate(recording)
        if recording["transforms"].map({ !$0.isNull && $0.array?.isEmpty != true }) ?? false {
            return failed(line, recording: recording, sources: sources,
                          "recording \(recordingID) has transforms; dspscore scores the file as stored, where the cut's times do not apply")
        }
        // The channel ids the cut takes: `channel` (an id, or a list for a MultiCut), else all.
        let wanted: [Int]?
        switch cut["channel"] {
        case nil, .null?: wanted = nil
        case .number(let id)?:
            guard let id = Int(exactly: id), id >= 0 else { throw ManifestError(message: "channel \(id) is not a channel id") }
            wanted = [id]
        case .array(let ids)?:
            var list: [Int] = []
            for element in ids {
                guard let id = element.number.flatMap({ Int(exactly: $0) }), id >= 0 else {
                    throw ManifestError(message: "channel holds \(element.canonicalText), not a channel id")
                }
                list.append(id)
            }
            wanted = list
        default: throw ManifestError(message: "channel is neither a channel id nor a list of them")
        }
        // The one file source holding every channel the cut takes.
        let candidates = wanted.map { ids in sources.filter { source in ids.allSatisfy(source.channels.contains) } } ?? (sources.count == 1 ? sources : [])
        guard let source = candidates.first else {
            let message = wanted.map { ids in "recording \(recordingID) has no one source holding channel\(ids.count == 1 ? "" : "s") \(ids.map(String.init).joined(separator: ","))" }
                ?? "recording \(recordingID) has \(sources.count) sources (one file per channel) and the cut takes every channel; dspscore scores one file per record"
            return failed(line, recording: recording, sources: sources, message)
        }
        if source.type != "file" {
            return failed(line, recording: recording, sources: sources, sourceTypeMessage(recordingID, source.type))
        }
        var fileChannels: [Int]? = nil
        if let wanted, wanted != source.channels {
            // Every id is in the source's channels (the source was chosen for that).
            fileChannels = wanted.compactMap { id in source.channels.firstIndex(of: id) }
        }
        return ScoringInput(
            path: resolved(source.path, manifestDirectory), audioFilepath: source.path,
            segment: .init(offset: start, duration: duration, fileChannels: fileChannels), declaredSampleRate: rate, manifest: line)
    }

    /// One entry of a recording's `sources`.
    private struct Source {
        var type: String
        var channels: [Int]
        /// The path (or URL, or command) as written.
        var path: String
    }

    private static func sourceList(_ recording: JSONValue, id: String) throws(ManifestError) -> [Source] {
        guard let list = recording["sources"]?.array, !list.isEmpty else {
            throw ManifestError(message: "recording \(id) has no sources")
        }
        var sources: [Source] = []
        for entry in list {
            guard let type = entry["type"]?.string else { throw ManifestError(message: "recording \(id): a source without a type") }
            var channels: [Int] = []
            for channel in entry["channels"]?.array ?? [] {
                guard let number = channel.number.flatMap({ Int(exactly: $0) }) else {
                    throw ManifestError(message: "recording \(id): source channels hold \(channel.canonicalText)")
                }
                channels.append(number)
            }
            // A memory source holds bytes, not a path: recorded by type only.
            sources.append(Source(type: type, channels: channels, path: entry["source"]?.string ?? ""))
        }
        return sources
    }

    private static func sampleRate(_ recording: JSONValue) throws(ManifestError) -> Int? {
        guard let value = recording["sampling_rate"], !value.isNull else { return nil }
        guard let rate = value.number.flatMap({ Int(exactly: $0) }), rate > 0 else {
            throw ManifestError(message: "sampling_rate \(value.canonicalText) is not a rate in Hz")
        }
        return rate
    }

    /// Why a whole recording cannot be scored as one file, or `nil`.
    private static func unsupportedRecording(_ recording: JSONValue, id: String, sources: [Source]) -> String? {
        if sources.count > 1 {
            return "recording \(id) has \(sources.count) sources (one file per channel); dspscore scores one file per record: give cuts with one channel each"
        }
        if sources[0].type != "file" { return sourceTypeMessage(id, sources[0].type) }
        if let transforms = recording["transforms"], !transforms.isNull, transforms.array?.isEmpty != true {
            return "recording \(id) has transforms; dspscore scores the file as stored"
        }
        return nil
    }

    private static func sourceTypeMessage(_ id: String, _ type: String) -> String {
        "recording \(id): source type \(type); dspscore reads sources of type file only"
    }

    /// An `unsupported_source` error record for a well-formed line: recorded under the first
    /// source's path (or the recording id when there is none).
    private static func failed(_ line: ManifestLine, recording: JSONValue?, sources: [Source], _ message: String) -> ScoringInput {
        let path = sources.first.map { $0.type == "memory" ? "" : $0.path } ?? ""
        let name = path.isEmpty ? (recording?["id"]?.string ?? line.value["id"]?.string ?? "") : path
        return ScoringInput(
            path: name, audioFilepath: name, manifest: line,
            failure: .init(kind: "unsupported_source", message: "\(name): \(message)"))
    }

    // MARK: - Values

    /// A time in seconds: `nil` when absent or `null`; a finite number ≥ 0 otherwise.
    private static func seconds(_ value: JSONValue?, _ key: String) throws(ManifestError) -> Double? {
        guard let value, !value.isNull else { return nil }
        guard let number = value.number, number.isFinite, number >= 0 else {
            throw ManifestError(message: "\(key) \(value.canonicalText) is not a time in seconds (a number >= 0)")
        }
        return number
    }

    /// `path` joined to the manifest's folder unless absolute.
    static func resolved(_ path: String, _ manifestDirectory: String) -> String {
        path.hasPrefix("/") || manifestDirectory.isEmpty ? path : (manifestDirectory as NSString).appendingPathComponent(path)
    }
}
