/// A path compared byte for byte, for tables keyed by file.
///
/// `String` equality is canonical equivalence: `"café"` spelled with U+00E9 and with
/// `e` + U+0301 compare equal, yet on Linux they are two file names, two files. Resumed and
/// merged runs key their records by `PathKey`, so each file is recognised as itself and never
/// as a neighbour whose name merely looks the same. The path is an escaped byte string (DSPIO's
/// `PathBytes`), whose UTF-8 is one-to-one with the file name's bytes.
public struct PathKey: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The path, as recorded in `audio_filepath`.
    public let path: String
    private let bytes: [UInt8]

    /// The key of `path`.
    public init(_ path: String) {
        self.path = path
        bytes = Array(path.utf8)
    }

    public init(stringLiteral value: String) { self.init(value) }

    public static func == (a: PathKey, b: PathKey) -> Bool { a.bytes == b.bytes }
    public func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
    public var description: String { path }
}
