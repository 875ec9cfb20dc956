import Foundation

/// What `dspscore --resume` keeps from an earlier, possibly interrupted, run.
public enum ScoreResume {
    /// The earlier run's records worth keeping, and what was wrong with the other lines.
    public struct Kept: Equatable, Sendable {
        /// The verbatim lines of records with `status` `ok`, by ``RecordIdentity``: the
        /// `audio_filepath` byte for byte and, for a manifest line, the line (so segments of one
        /// file are kept apart).
        public var records: [RecordIdentity: String] = [:]
        /// One line per line dropped that was not an ordinary dropped record (not JSON, not valid
        /// UTF-8, not a dspscore record), e.g. `"out.jsonl:7: not a dspscore record"`; those files
        /// are scored again.
        public var diagnostics: [String] = []
    }

    /// Why a resume is refused.
    public typealias ResumeError = ScoreMerging.MergeError

    /// The records of an earlier run in `bytes` (JSON Lines) to keep, checked against the
    /// configuration this run scores with.
    ///
    /// Records with `status` `ok` are kept verbatim; error records are dropped, so those files
    /// are scored again; a later line for the same path wins. A line that does not decode — a
    /// last line cut off when a run was killed, bytes that are not UTF-8, JSON that is not a
    /// record — is dropped with a diagnostic. Records are keyed by ``RecordIdentity``, so a
    /// manifest's lines for one file (segments, channels) are kept apart. Decoding never traps, whatever the line holds.
    ///
    /// - Throws: ``ResumeError`` when a record was scored with another configuration
    ///   (``FileScore/Provenance/configurationHash`` differs from `provenance`'s): one output
    ///   holds one configuration, as `dspscore merge` requires, so such a file is refused
    ///   rather than mixed (score into another file, or delete this one).
    public static func completedRecords(
        fromJSONL bytes: [UInt8], source: String = "", provenance: FileScore.Provenance
    ) throws(ResumeError) -> Kept {
        let decoder = JSONDecoder()
        let hash = provenance.configurationHash
        var kept = Kept()
        for (number, raw) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            guard raw.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { continue }
            let label = "\(source):\(number + 1)"
            guard let line = String(validating: raw, as: UTF8.self) else {
                kept.diagnostics.append("\(label): not valid UTF-8; dropped")
                continue
            }
            guard let record = try? decoder.decode(FileScore.self, from: Data(raw)) else {
                kept.diagnostics.append("\(label): not a dspscore record; dropped")
                continue
            }
            if let field = record.firstSchemaViolation {
                kept.diagnostics.append("\(label): \(field) is outside the schema's range; dropped")
                continue
            }
            guard record.provenance.configurationHash == hash else {
                throw ResumeError(
                    source: source, line: number + 1,
                    message: "scored with another configuration (config_hash \(record.provenance.configurationHash): "
                        + "\(record.provenance.configurationDescription)) than this run (\(hash): \(provenance.configurationDescription)); "
                        + "score into another file, or delete this one")
            }
            if record.status == .ok {
                kept.records[RecordIdentity(record)] = line
            } else {
                kept.records.removeValue(forKey: RecordIdentity(record))
            }
        }
        return kept
    }
}
