import Foundation

/// The repository's bundled audio (`TestAudio/`), located from this file's path so that tests
/// find it from any working directory.
public enum TestAudio {
    /// The `TestAudio` folder.
    public static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("TestAudio")

    /// The path of the bundled file `name`.
    public static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}
