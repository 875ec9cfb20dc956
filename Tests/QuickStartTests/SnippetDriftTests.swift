import Foundation
import Testing
import TestSupport

/// The repository's root, from this file's path.
private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The documents whose Swift snippets are compiled: each `<!-- snippet: NAME -->` marker there is
/// followed by a ```swift block that must equal, line for line, the region between
/// `// snippet: NAME` and `// snippet end` in `Tests/QuickStartTests/Snippets/` (indentation
/// common to the region removed). The README's manifest blocks are checked by SwiftPM itself.
private let documents = [
    "README.md",
    "Sources/SpeechDSP/SpeechDSP.docc/GettingStarted.md",
    "Sources/DSPPipeline/DSPPipeline.docc/DSPPipeline.md",
    "docs/front-end.md",
]

/// A fenced block following a marker line `<!-- KIND: NAME -->` (or `<!-- KIND -->`).
struct MarkedBlock {
    var document: String
    var name: String
    var lines: [String]
}

/// The ```swift blocks that follow `<!-- kind... -->` markers in `text`.
func markedBlocks(_ kind: String, in text: String, document: String) -> [MarkedBlock] {
    let lines = text.components(separatedBy: "\n")
    var blocks: [MarkedBlock] = []
    var i = 0
    while i < lines.count {
        let line = lines[i].trimmingCharacters(in: .whitespaces)
        guard line.hasPrefix("<!-- \(kind)"), line.hasSuffix("-->") else { i += 1; continue }
        var name = String(line.dropFirst("<!-- \(kind)".count).dropLast(3)).trimmingCharacters(in: .whitespaces)
        if name.hasPrefix(":") { name = name.dropFirst().trimmingCharacters(in: .whitespaces) }
        var j = i + 1
        while j < lines.count, lines[j].trimmingCharacters(in: .whitespaces).isEmpty { j += 1 }
        var block = MarkedBlock(document: document, name: name, lines: [])
        if j < lines.count, lines[j] == "```swift" {
            j += 1
            while j < lines.count, lines[j] != "```" { block.lines.append(lines[j]); j += 1 }
        } else {
            block.lines = ["<no ```swift block after the marker>"]
        }
        blocks.append(block)
        i = j + 1
    }
    return blocks
}

/// The `// snippet: NAME` … `// snippet end` regions of the snippet sources, dedented.
func snippetSources() throws -> [String: [String]] {
    let folder = repository.appendingPathComponent("Tests/QuickStartTests/Snippets")
    var snippets: [String: [String]] = [:]
    for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where file.hasSuffix(".swift") {
        let lines = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8).components(separatedBy: "\n")
        var current: (name: String, lines: [String])?
        for line in lines {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("// snippet: ") {
                current = (String(trimmed.dropFirst("// snippet: ".count)), [])
            } else if trimmed == "// snippet end", let done = current {
                let indent = done.lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
                    .map { $0.prefix { $0 == " " }.count }.min() ?? 0
                snippets[done.name] = done.lines.map { $0.count >= indent ? String($0.dropFirst(indent)) : $0 }
                current = nil
            } else {
                current?.lines.append(line)
            }
        }
    }
    return snippets
}

@Suite("Quick start: the documents hold the compiled snippets verbatim")
struct SnippetDriftTests {
    @Test("every marked Swift block in the README and the DocC articles equals its compiled source")
    func documentsMatchSources() throws {
        let sources = try snippetSources()
        #expect(sources.count >= 8, "snippet sources found: \(sources.keys.sorted())")
        var used = Set<String>()
        for document in documents {
            let text = try String(contentsOf: repository.appendingPathComponent(document), encoding: .utf8)
            let blocks = markedBlocks("snippet", in: text, document: document)
            #expect(!blocks.isEmpty, "\(document) has no compiled snippet")
            for block in blocks {
                used.insert(block.name)
                guard let source = sources[block.name] else {
                    Issue.record("\(document): snippet \(block.name) has no source in Tests/QuickStartTests/Snippets")
                    continue
                }
                if block.lines != source {
                    let line = zip(block.lines, source).enumerated().first { $0.element.0 != $0.element.1 }
                    Issue.record("""
                        \(document): snippet \(block.name) differs from its source \
                        (\(block.lines.count) vs \(source.count) lines; first difference: \
                        \(line.map { "line \($0.offset + 1): \"\($0.element.0)\" vs \"\($0.element.1)\"" } ?? "length"))
                        """)
                }
            }
        }
        #expect(Set(sources.keys).subtracting(used).isEmpty, "sources no document shows: \(Set(sources.keys).subtracting(used).sorted())")
    }

    @Test("the drift check itself: a changed line and a missing block are caught")
    func driftIsCaught() throws {
        let text = "x\n<!-- snippet: a -->\n\n```swift\nlet x = 1\n```\n<!-- snippet: b -->\ntext\n"
        let blocks = markedBlocks("snippet", in: text, document: "t")
        #expect(blocks.map(\.name) == ["a", "b"])
        #expect(blocks[0].lines == ["let x = 1"])
        #expect(blocks[1].lines == ["<no ```swift block after the marker>"])
    }
}

/// Runs `swift package dump-package` on a package whose manifest is `manifest`: SwiftPM parses
/// the manifest and checks every `.product(name:package:)` against the dependencies' identities
/// (no network, no build). Returns SwiftPM's exit status and error output.
func dumpPackage(_ manifest: String) throws -> (status: Int32, errors: String) {
    let folder = try TemporaryDirectory(prefix: "QuickStartManifest")
    try manifest.write(to: folder.url("Package.swift"), atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["swift", "package", "--package-path", folder.path, "dump-package"]
    let errors = Pipe()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = errors
    try process.run()
    let data = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

@Suite("Quick start: the README's manifests are valid SwiftPM")
struct ManifestTests {
    static func readme() throws -> String {
        try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
    }

    /// The README's full manifest, and the manifest with each `<!-- manifest-dependency -->`
    /// block in place of its `.package(url:…)` line.
    static func manifests() throws -> [(name: String, text: String)] {
        let readme = try readme()
        let full = try #require(markedBlocks("manifest", in: readme, document: "README.md").first)
        var manifests = [("the full manifest", full.lines.joined(separator: "\n"))]
        for block in markedBlocks("manifest-dependency", in: readme, document: "README.md") {
            let spliced = full.lines.flatMap { $0.contains(".package(url:") ? block.lines.map { "        " + $0 } : [$0] }
            manifests.append(("dependency \(block.lines.joined())", spliced.joined(separator: "\n")))
        }
        return manifests
    }

    @Test("the README's manifest and each dependency form resolve `.product(…, package: \"SpeechDSP\")`")
    func readmeManifests() throws {
        let manifests = try Self.manifests()
        #expect(manifests.count >= 3, "the full manifest, the local path and the FFTW-free forms")
        for (name, text) in manifests {
            let (status, errors) = try dumpPackage(text)
            #expect(status == 0, "\(name): \(errors)")
        }
    }

    @Test("the pitfall the README names: a path dependency's identity is its folder's name")
    func pathIdentityIsTheFolder() throws {
        let readme = try Self.readme()
        let full = try #require(markedBlocks("manifest", in: readme, document: "README.md").first).lines.joined(separator: "\n")
        let lines = full.components(separatedBy: "\n")
        func with(_ dependency: String) -> String {
            lines.map { $0.contains(".package(url:") ? "        " + dependency : $0 }.joined(separator: "\n")
        }
        // A folder not named SpeechDSP, without `name:`: "unknown package 'SpeechDSP'".
        let wrong = try dumpPackage(with(#".package(path: "../speech-dsp"),"#))
        #expect(wrong.status != 0 && wrong.errors.contains("unknown package 'SpeechDSP'"), "\(wrong.errors)")
        // A folder named SpeechDSP needs no name.
        #expect(try dumpPackage(with(#".package(path: "../SpeechDSP"),"#)).status == 0)
    }
}
