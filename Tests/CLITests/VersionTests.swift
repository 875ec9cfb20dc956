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
