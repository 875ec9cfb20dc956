import Foundation

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

/// A deterministic slice of a corpus: shard `index` of `count` (`--shard i/n`).
///
/// A file belongs to shard `FNV-1a-64(path) mod count`, so its shard depends only on its path —
/// not on the order or the other files in the list — and the shards of one list are disjoint
/// and cover it.
public struct Shard: Equatable, Sendable, CustomStringConvertible {
    /// Zero-based shard number, `0 ..< count`.
    public let index: Int
    /// Number of shards, ≥ 1.
    public let count: Int

    /// Creates shard `index` of `count`; nil if out of range.
    public init?(index: Int, count: Int) {
        guard count >= 1, (0..<count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// Parses `"i/n"`.
    public init?(_ text: String) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else { return nil }
        self.init(index: i, count: n)
    }

    public var description: String { "\(index)/\(count)" }

    /// Whether `path` belongs to this shard.
    public func contains(_ path: String) -> Bool {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in path.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return Int(hash % UInt64(count)) == index
    }
}

/// Reads the inputs `dspscore` accepts besides paths.
public enum ScoringInputs {
    /// One path per line (blank lines and lines starting with `#` skipped).
    public static func paths(fromLines text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).map(String.init)
            .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.hasPrefix("#") }
    }

    /// A NeMo/Lhotse-style JSON Lines manifest: the `audio_filepath` of every line. Relative
    /// paths are resolved against the manifest's directory, as NeMo does.
    public static func paths(fromManifest text: String, manifestDirectory: String) throws -> [String] {
        var result: [String] = []
        for (number, line) in text.split(whereSeparator: \.isNewline).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            guard let object = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String: Any],
                let path = object["audio_filepath"] as? String
            else {
                throw ManifestError(line: number + 1, message: "no string field audio_filepath")
            }
            result.append(path.hasPrefix("/") ? path : (manifestDirectory as NSString).appendingPathComponent(path))
        }
        return result
    }

    /// A manifest line that could not be read.
    public struct ManifestError: Error, CustomStringConvertible {
        /// One-based line number.
        public var line: Int
        /// What was wrong.
        public var message: String
        public var description: String { "manifest line \(line): \(message)" }
    }
}
