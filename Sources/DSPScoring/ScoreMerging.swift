import Foundation

/// Joins the JSON Lines outputs of several `dspscore` runs (for example shards) into one.
///
/// Every line must decode as a ``FileScore``; every record must have the first record's
/// configuration (``FileScore/Provenance/configurationHash``: library, version, frame length,
/// clip threshold, analyses — shards scored another way are not merged); a path recorded twice
/// must have identical records (otherwise the merge fails: two shards disagreed). Paths are
/// compared byte for byte (``PathKey``). Records are returned sorted by `audio_filepath` — the
/// order a run over the same directories produces — or in the order of `order` when given.
/// Lines are kept verbatim.
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
    /// - Parameter order: paths in the wanted output order; records for paths not in it follow,
    ///   sorted. Paths in it without a record are an error (a shard is missing).
    public static func merge(_ inputs: [(label: String, text: String)], order: [String]? = nil) throws(MergeError) -> [String] {
        let decoder = JSONDecoder()
        var records: [PathKey: (line: String, record: FileScore, source: String)] = [:]
        var configuration: (hash: String, description: String, source: String)? = nil
        for (label, text) in inputs {
            for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(raw)
                if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                guard let record = try? decoder.decode(FileScore.self, from: Data(line.utf8)) else {
                    throw MergeError(source: label, line: number + 1, message: "not a dspscore record")
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
                if let existing = records[PathKey(record.audioFilepath)] {
                    guard existing.record == record else {
                        throw MergeError(
                            source: label, line: number + 1,
                            message: "\(record.audioFilepath) differs from its record in \(existing.source)")
                    }
                    continue
                }
                records[PathKey(record.audioFilepath)] = (line, record, label)
            }
        }
        var result: [String] = []
        if let order {
            for path in order {
                guard let entry = records.removeValue(forKey: PathKey(path)) else {
                    throw MergeError(source: "order", line: 0, message: "no record for \(path)")
                }
                result.append(entry.line)
            }
        }
        result += records.keys.sorted { AudioFileDiscovery.pathOrder($0.path, $1.path) }.map { records[$0]!.line }
        return result
    }
}
