import Foundation

/// A fresh directory under the system temporary directory, removed with everything in it when
/// the object is released: at the end of the scope for a local, at the end of each test for a
/// suite's stored property (Swift Testing makes a suite instance per test). Its name is
/// `<prefix>-<UUID>`, so a directory a crashed run leaves behind says which tests made it.
public final class TemporaryDirectory {
    /// The directory.
    public let url: URL

    /// Creates `<prefix>-<UUID>` under `FileManager.default.temporaryDirectory`.
    public init(prefix: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The directory's path.
    public var path: String { url.path }

    /// The URL of `name` (a relative path) inside the directory.
    public func url(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// The path of `name` (a relative path) inside the directory.
    public func path(_ name: String) -> String { url(name).path }

    /// Writes `bytes` to `name` and returns its path.
    @discardableResult
    public func write(_ name: String, bytes: some Sequence<UInt8>) throws -> String {
        let path = path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Writes a copy of the first `count` bytes of the file at `source` to `name` and returns its path.
    @discardableResult
    public func truncatedCopy(of source: String, to name: String, keeping count: Int) throws -> String {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        return try write(name, bytes: bytes.prefix(count))
    }
}
