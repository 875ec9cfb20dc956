import CLISupport
import DSPCore
import Foundation
import TestSupport
import Testing

@Suite("The build's git revision")
struct VersionTests {
    /// `git rev-parse HEAD` in the package directory, or nil without git or a checkout.
    static func gitHead() -> String? {
        let root = TestAudio.directory.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: root.appendingPathComponent(".git").path),
              FileManager.default.isExecutableFile(atPath: "/usr/bin/git") else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["-C", root.path, "rev-parse", "HEAD"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("BuildRevision.commit is what git says HEAD is (this checkout may be a linked worktree), or unknown without a .git")
    func revisionMatchesGit() {
        if let head = Self.gitHead() {
            #expect(BuildRevision.commit == head)
        } else {
            let hasGit = FileManager.default.fileExists(atPath: TestAudio.directory.deletingLastPathComponent().appendingPathComponent(".git").path)
            #expect(hasGit || BuildRevision.commit == "unknown")
        }
        #expect(BuildRevision.commit == "unknown" || (BuildRevision.commit.count == 40 && BuildRevision.commit.allSatisfy(\.isHexDigit)))
    }

    @Test("the version text: tool, library version, 12 digits of the revision")
    func text() {
        #expect(ToolVersion.text(tool: "dspscore", revision: "fb18868c3e1234567890fb18868c3e1234567890")
            == "dspscore (SpeechDSP \(SpeechDSPVersion.current), git fb18868c3e12)")
        #expect(ToolVersion.text(tool: "dspbench", revision: "unknown") == "dspbench (SpeechDSP \(SpeechDSPVersion.current), git unknown)")
    }
}

@Suite("GitRevisionGenerator on the layouts a package directory can have")
struct GitRevisionGeneratorTests {
    /// The generator the plugin runs (built beside the tests; SwiftPM names a plugin's tool
    /// `NAME-tool` on some platforms).
    static func generator() throws -> URL {
        let candidates = ["GitRevisionGenerator-tool", "GitRevisionGenerator"].map { Tool.productsDirectory.appendingPathComponent($0) }
        return try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }, "no GitRevisionGenerator beside the tests")
    }

    /// Builds the files `layout` lists (path → content) in a fresh folder, runs the generator
    /// on `package` inside it, and returns the commit it wrote.
    static func commit(_ layout: [String: String], package: String = "pkg") throws -> String {
        let root = try TemporaryDirectory(prefix: "gitrev")
        try FileManager.default.createDirectory(at: root.url(package), withIntermediateDirectories: true)
        for (path, content) in layout {
            let url = root.url(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(content.utf8).write(to: url)
        }
        let output = root.url("GitRevision.swift")
        let process = Process()
        process.executableURL = try generator()
        process.arguments = [root.path(package), output.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let source = String(decoding: try Data(contentsOf: output), as: UTF8.self)
        let line = try #require(source.split(separator: "\n").first { $0.contains("static let commit") })
        return String(try #require(line.split(separator: "\"").dropFirst().first))
    }

    static let a = String(repeating: "a", count: 40), b = String(repeating: "b", count: 40), c = String(repeating: "c", count: 40)

    @Test("a source tarball (no .git): unknown")
    func tarball() throws {
        #expect(try Self.commit([:]) == "unknown")
    }

    @Test("a detached HEAD holds the hash")
    func detached() throws {
        #expect(try Self.commit(["pkg/.git/HEAD": Self.a.uppercased() + "\n"]) == Self.a)
    }

    @Test("a branch: its loose ref first, else packed-refs (peeled lines skipped)")
    func branch() throws {
        let packed = "# pack-refs with: peeled fully-peeled sorted\n\(Self.a) refs/heads/other\n\(Self.b) refs/heads/main\n^\(Self.c)\n"
        #expect(try Self.commit(["pkg/.git/HEAD": "ref: refs/heads/main\n", "pkg/.git/packed-refs": packed]) == Self.b)
        #expect(try Self.commit([
            "pkg/.git/HEAD": "ref: refs/heads/main\n", "pkg/.git/packed-refs": packed, "pkg/.git/refs/heads/main": Self.c + "\n",
        ]) == Self.c)
        #expect(try Self.commit(["pkg/.git/HEAD": "ref: refs/heads/unborn\n", "pkg/.git/packed-refs": packed]) == "unknown")
    }

    @Test("a linked worktree: .git is a gitdir file (relative or absolute), refs in the common directory")
    func worktree() throws {
        let layout = [
            "pkg/.git": "gitdir: ../repo/.git/worktrees/pkg\n",
            "repo/.git/worktrees/pkg/HEAD": "ref: refs/heads/feature\n",
            "repo/.git/worktrees/pkg/commondir": "../..\n",
            "repo/.git/refs/heads/feature": Self.a + "\n",
            "repo/.git/HEAD": "ref: refs/heads/main\n",
            "repo/.git/refs/heads/main": Self.b + "\n",
        ]
        #expect(try Self.commit(layout) == Self.a)
        var packedOnly = layout
        packedOnly["repo/.git/refs/heads/feature"] = nil
        packedOnly["repo/.git/packed-refs"] = "\(Self.c) refs/heads/feature\n"
        #expect(try Self.commit(packedOnly) == Self.c)
    }

    @Test("garbage in HEAD or the ref: unknown, not garbage in the source")
    func garbage() throws {
        #expect(try Self.commit(["pkg/.git/HEAD": "not a hash \"; evil()\n"]) == "unknown")
        #expect(try Self.commit(["pkg/.git/HEAD": "ref: refs/heads/x\n", "pkg/.git/refs/heads/x": "12345\n"]) == "unknown")
    }
}
