#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import DSPIO
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
    ///
    /// Paths are escaped byte strings (DSPIO's `PathBytes`): names found in directories are read
    /// as bytes (`readdir`) and escaped, so a name that is not UTF-8 is found, scored and
    /// recorded as itself. Symbolic links to files are followed; symbolic links to directories
    /// are not descended into.
    public static func expand(_ paths: [String], extensions: Set<String> = defaultExtensions) -> [String] {
        expandKeepingRoots(paths, extensions: extensions).map(\.path)
    }

    /// A file ``expandKeepingRoots(_:extensions:)`` found, with where it sits below the input
    /// that named it.
    public struct Found: Equatable, Sendable {
        /// The path, as ``expand(_:extensions:)`` gives it.
        public var path: String
        /// The path below the directory given (`a/b.flac` for `DIR/a/b.flac` found in `DIR`),
        /// or the last component of a file given itself.
        public var relativePath: String
    }

    /// ``expand(_:extensions:)`` with each file's path relative to the input it came from, to
    /// mirror the input tree (`dspscore convert --output-dir`).
    public static func expandKeepingRoots(_ paths: [String], extensions: Set<String> = defaultExtensions) -> [Found] {
        var result: [Found] = []
        for path in paths {
            guard kind(of: path) == .directory else {
                result.append(Found(path: path, relativePath: (path as NSString).lastPathComponent))
                continue
            }
            var found: [Found] = []
            walk(path, relative: "") { relative in
                let ext = (relative as NSString).pathExtension.lowercased()
                guard extensions.contains(ext) else { return }
                let full = (path as NSString).appendingPathComponent(relative)
                if kind(of: full) == .file { found.append(Found(path: full, relativePath: relative)) }
            }
            result += found.sorted { pathOrder($0.path, $1.path) }
        }
        return result
    }

    /// The order of sorted outputs: `String` order, then byte order between names that
    /// `String` compares equal (canonically equivalent, e.g. NFC and NFD spellings of one name,
    /// which are two files).
    static func pathOrder(_ a: String, _ b: String) -> Bool {
        if a != b { return a < b }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    private enum Kind { case missing, file, directory }

    /// What `path` names after following symbolic links.
    private static func kind(of path: String) -> Kind {
        var status = stat()
        guard PathBytes.stat(path, &status) == 0 else { return .missing }
        return status.st_mode & S_IFMT == S_IFDIR ? .directory : .file
    }

    /// Calls `visit` with the path, relative to `root`, of every entry below `root/relative`
    /// (not `.` or `..`), descending into real directories (not symbolic links to them).
    private static func walk(_ root: String, relative: String, _ visit: (String) -> Void) {
        let directory = relative.isEmpty ? root : (root as NSString).appendingPathComponent(relative)
        guard let stream = PathBytes.withCString(directory, { opendir($0) }) else { return }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> String in
                let bytes = raw.prefix { $0 != 0 }
                return PathBytes.string(decoding: bytes)
            }
            if name == "." || name == ".." { continue }
            names.append(name)
        }
        for name in names {
            let child = relative.isEmpty ? name : (relative as NSString).appendingPathComponent(name)
            visit(child)
            var status = stat()
            let full = (root as NSString).appendingPathComponent(child)
            if PathBytes.withCString(full, { lstat($0, &status) }) == 0, status.st_mode & S_IFMT == S_IFDIR {
                walk(root, relative: child, visit)
            }
        }
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

/// Reads the lists of paths `dspscore` accepts besides paths (manifests: ``ScoringManifest``).
public enum ScoringInputs {
    /// One path per line (blank lines and lines starting with `#` skipped).
    public static func paths(fromLines text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).map(String.init)
            .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.hasPrefix("#") }
    }
}
