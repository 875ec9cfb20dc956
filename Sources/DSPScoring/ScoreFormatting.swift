import Foundation

/// Renders ``FileScore`` records as JSON Lines or as a table for a terminal.
public enum ScoreFormatting {
    /// One JSON object per line, keys sorted, no trailing spaces; −∞ levels are `null`.
    public static func jsonLine(_ score: FileScore) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(score)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The table's header line.
    public static let tableHeader =
        pad("file", 40) + pad("dur s", 8, right: true) + pad("rate", 7, right: true) + pad("ch", 4, right: true)
        + pad("RMS dBFS", 10, right: true) + pad("peak dBFS", 11, right: true) + pad("clipped", 9, right: true)
        + "  status"

    /// One table row; `-inf` for silence.
    public static func tableRow(_ score: FileScore) -> String {
        func db(_ value: Double?) -> String { value.map { String(format: "%.2f", $0) } ?? "-inf" }
        let name = score.audioFilepath.count > 39 ? "…" + score.audioFilepath.suffix(38) : score.audioFilepath
        var row = pad(String(name), 40) + pad(String(format: "%.3f", score.duration), 8, right: true)
            + pad(score.sampleRate.map(String.init) ?? "-", 7, right: true)
            + pad(score.channels.map(String.init) ?? "-", 4, right: true)
        if let levels = score.levels {
            row += pad(db(levels.rmsDBFS), 10, right: true) + pad(db(levels.peakDBFS), 11, right: true)
                + pad(String(levels.clippedSamples), 9, right: true) + "  ok"
        } else {
            row += pad("", 30) + "  error: " + (score.error?.message ?? "unknown")
        }
        return row
    }

    private static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let count = text.count
        guard count < width else { return text + " " }
        let padding = String(repeating: " ", count: width - count)
        return right ? padding + text : text + padding
    }
}

/// Finds audio files under the paths a user gives.
public enum AudioFileDiscovery {
    /// Extensions (lowercase, no dot) of formats libsndfile reads, used to filter directories.
    public static let defaultExtensions: Set<String> = [
        "wav", "wave", "flac", "ogg", "oga", "opus", "aif", "aiff", "aifc", "w64", "rf64", "caf", "au", "snd", "mp3",
    ]

    /// Expands `paths`: files are kept as given (whatever their extension); directories are
    /// walked recursively for files with one of `extensions`, sorted by path so output order is
    /// deterministic. A path that does not exist is kept, so it gets an error record.
    public static func expand(_ paths: [String], extensions: Set<String> = defaultExtensions) -> [String] {
        var result: [String] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                result.append(path)
                continue
            }
            var found: [String] = []
            if let enumerator = manager.enumerator(atPath: path) {
                while let relative = enumerator.nextObject() as? String {
                    let ext = (relative as NSString).pathExtension.lowercased()
                    guard extensions.contains(ext) else { continue }
                    let full = (path as NSString).appendingPathComponent(relative)
                    var childIsDirectory: ObjCBool = false
                    if manager.fileExists(atPath: full, isDirectory: &childIsDirectory), !childIsDirectory.boolValue {
                        found.append(full)
                    }
                }
            }
            result += found.sorted()
        }
        return result
    }
}
