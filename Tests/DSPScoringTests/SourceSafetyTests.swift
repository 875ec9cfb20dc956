import Foundation
import Testing
import TestSupport

/// No `try!` and no force unwrap in the scoring library and its command: whatever a file, a
/// record line or an argument holds, these modules report it instead of trapping.
@Suite("DSPScoring and dspscore hold no try! and no force unwrap")
struct SourceSafetyTests {
    /// `try!`, or `!` straight after a name, `)` or `]` and not starting `!=` (a force unwrap),
    /// outside comments and string literals.
    static func findings(in text: String) -> [String] {
        var found: [String] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            // Blank out string literals (one line each in these sources).
            code = code.replacingOccurrences(of: #""(\\.|[^"\\])*""#, with: "\"\"", options: .regularExpression)
            if code.contains("try!") || code.range(of: #"[\w\)\]]!(?!=)"#, options: .regularExpression) != nil {
                found.append("\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        return found
    }

    @Test("the checker sees a try!, a force unwrap and ignores != and comments")
    func checker() {
        #expect(Self.findings(in: "let a = try! f()").count == 1)
        #expect(Self.findings(in: "let a = b!.c").count == 1)
        #expect(Self.findings(in: "let a = d[k]!").count == 1)
        #expect(Self.findings(in: "if a != b { } // x!.y").isEmpty)
        #expect(Self.findings(in: "let s = \"wow!\"").isEmpty)
    }

    @Test("Sources/DSPScoring and Sources/dspscore", arguments: ["Sources/DSPScoring", "Sources/dspscore"])
    func sources(folder: String) throws {
        let root = TestAudio.directory.deletingLastPathComponent().appendingPathComponent(folder)
        let files = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        for file in files.sorted() {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            let found = Self.findings(in: text)
            #expect(found.isEmpty, "\(folder)/\(file): \(found.joined(separator: "; "))")
        }
    }
}
