import Foundation

/// Joins the JSON Lines outputs of several `dspscore` runs (for example shards) into one.
///
/// Every line must decode as a ``FileScore``; every record must have the first record's
/// configuration (``FileScore/Provenance/configurationHash``: library, version, frame length,
/// clip threshold, analyses — shards scored another way are not merged); a path recorded twice
/// must have identical records (otherwise the merge fails: two shards disagreed). A record is
/// known by its ``RecordIdentity`` — the path byte for byte and, for a manifest line, the line —
/// so the segments a manifest lists for one file are separate records, and the same line
/// scored in two shards is one. Records are returned sorted by `audio_filepath` — the order a
/// run over the same directories produces — then by segment start and manifest line, or in the
/// order of `order` when given (every record of a path listed there, in that sort). Lines are
/// kept verbatim.
public enum ScoreMerging {
    /// Why a merge failed.
    public struct MergeError: Error, Equatable, CustomStringConvertible {
        /// The input (file name or label) and 1-based line.
        public var source: String
        /// 1-based line number, 0 when not about one line.
        public var line: Int
        /// What is wrong.
        public var message: String

        /// Creates an error.
        public init(source: String, line: Int, message: String) {
            self.source = source
            self.line = line
            self.message = message
        }

        public var description: String { line > 0 ? "\(source):\(line): \(message)" : "\(source): \(message)" }
    }

    /// Merges `inputs` (label, JSON Lines text) and returns the merged lines.
    /// - Parameters:
    ///   - inputs: One element per shard: a label for error messages (its path, say) and its
    ///     JSON Lines text.
    ///   - order: paths in the wanted output order; records for paths not in it follow,
    ///     sorted. Paths in it without a record are an error (a shard is missing).
    public static func merge(_ inputs: [(label: String, text: String)], order: [String]? = nil) throws(MergeError) -> [String] {
        try merge(inputs.map { (label: $0.label, bytes: Array($0.text.utf8)) }, order: order)
    }

    /// Merges `inputs` given as the files' bytes. Any bytes are taken without trapping: a line
    /// that is not valid UTF-8 or not a record fails the merge, naming the input and the line.
    public static func merge(_ inputs: [(label: String, bytes: [UInt8])], order: [String]? = nil) throws(MergeError) -> [String] {
        let decoder = JSONDecoder()
        var records: [RecordIdentity: (line: String, record: FileScore, source: String)] = [:]
        var configuration: (hash: String, description: String, source: String)? = nil
        for (label, bytes) in inputs {
            for (number, raw) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
                if !raw.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) { continue }
                guard let line = String(validating: raw, as: UTF8.self) else {
                    throw MergeError(source: label, line: number + 1, message: "not valid UTF-8")
                }
                let record: FileScore
                do {
                    record = try decoder.decode(FileScore.self, from: Data(raw))
                } catch {
                    throw MergeError(source: label, line: number + 1, message: "not a dspscore record (\(Self.reason(error)))")
                }
                if let field = record.firstSchemaViolation {
                    throw MergeError(source: label, line: number + 1, message: "\(field) is outside the schema's range")
                }
                let hash = record.provenance.configurationHash
                if let configuration {
                    guard configuration.hash == hash else {
                        throw MergeError(
                            source: label, line: number + 1,
                            message: "scored with another configuration (config_hash \(hash): "
                                + "\(record.provenance.configurationDescription)) than \(configuration.source) "
                                + "(\(configuration.hash): \(configuration.description))")
                    }
                } else {
                    configuration = (hash, record.provenance.configurationDescription, label)
                }
                let identity = RecordIdentity(record)
                if let existing = records[identity] {
                    guard existing.record == record else {
                        throw MergeError(
                            source: label, line: number + 1,
                            message: "\(identity) differs from its record in \(existing.source)")
                    }
                    continue
                }
                records[identity] = (line, record, label)
            }
        }
        let sorted = records.sorted { a, b in
            if a.key.path != b.key.path { return AudioFileDiscovery.pathOrder(a.key.path.path, b.key.path.path) }
            let (x, y) = (a.value.record.segment?.startFrame ?? 0, b.value.record.segment?.startFrame ?? 0)
            if x != y { return x < y }
            return (a.key.manifestLine ?? "").utf8.lexicographicallyPrecedes((b.key.manifestLine ?? "").utf8)
        }
        guard let order else { return sorted.map(\.value.line) }
        var byPath: [PathKey: [String]] = [:]
        var paths: [PathKey] = []
        for entry in sorted {
            if byPath[entry.key.path] == nil { paths.append(entry.key.path) }
            byPath[entry.key.path, default: []].append(entry.value.line)
        }
        var result: [String] = []
        for path in order {
            guard let lines = byPath.removeValue(forKey: PathKey(path)) else {
                throw MergeError(source: "order", line: 0, message: "no record for \(path)")
            }
            result += lines
        }
        for path in paths { result += byPath[path] ?? [] }
        return result
    }

    /// A decoding error in a few words: the key path and what was wrong.
    static func reason(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not JSON" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map(\.stringValue).joined(separator: ".")
            return keys.isEmpty ? "" : keys + ": "
        }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return path(context) + "wrong type or null"
        case .keyNotFound(let key, let context):
            return path(context) + "missing \(key.stringValue)"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not JSON" : path(context) + "value out of range"
        @unknown default:
            return "not a record"
        }
    }
}
