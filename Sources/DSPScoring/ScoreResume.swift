import Foundation

/// What `dspscore --resume` keeps from an earlier, possibly interrupted, run.
public enum ScoreResume {
    /// The verbatim lines of records with `status` `ok`, by `audio_filepath` (byte for byte,
    /// ``PathKey``). Lines that do not
    /// decode — such as a last line cut off when a run was killed — and error records are
    /// dropped, so those files are scored again. A later line for the same path wins.
    public static func completedRecords(fromJSONL text: String) -> [PathKey: String] {
        let decoder = JSONDecoder()
        var result: [PathKey: String] = [:]
        for raw in text.split(separator: "\n") {
            let line = String(raw)
            guard let record = try? decoder.decode(FileScore.self, from: Data(line.utf8)) else { continue }
            if record.status == .ok {
                result[PathKey(record.audioFilepath)] = line
            } else {
                result.removeValue(forKey: PathKey(record.audioFilepath))
            }
        }
        return result
    }
}
