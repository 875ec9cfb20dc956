import DSPIO
import DSPScoring
import Foundation
import Testing
import TestSupport

/// Files whose names are not UTF-8 are found, scored, recorded losslessly, and recognised by
/// resume and merge; names that differ only in Unicode normalization stay two files.
@Suite("File names as bytes, end to end")
struct PathBytesScoringTests {
    static let names: [[UInt8]] = [
        Array("café".utf8) + Array(".wav".utf8),  // NFC, valid
        Array("cafe\u{301}".utf8) + Array(".wav".utf8),  // NFD: another file, equal as a String
        [0x63, 0x61, 0x66, 0xE9] + Array(".wav".utf8),  // latin-1
        [0xFF] + Array(".wav".utf8), [0x80] + Array(".wav".utf8),
        [0x41, 0xA9] + Array(" b.wav".utf8),  // a lone continuation byte, a space
        [0xC0, 0xAF] + Array(".wav".utf8), [0xED, 0xA0, 0x80] + Array(".wav".utf8),
        [0xF4, 0x8F, 0xBF, 0xA9] + Array(".wav".utf8),  // U+10FFE9 spelled in valid UTF-8
        Array("tab\tnew\nline".utf8) + [0xE9] + Array(".wav".utf8),
    ]

    @Test("Directory walk → score → JSON → resume and merge, for names that are not UTF-8")
    func endToEnd() throws {
        let temporary = try TemporaryDirectory(prefix: "PathBytes")
        let root = temporary.path
        try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
        var tone = [UInt8]()
        for i in 0..<16_000 {
            let v = Int16(8000 * sin(Double(i) * 2 * .pi * 440 / 16_000))
            tone += [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)]
        }
        let wav = Self.wav(payload: tone)
        var expected: Set<[UInt8]> = []
        for (index, name) in Self.names.enumerated() {
            let path = Array(root.utf8) + Array((index % 2 == 0 ? "/" : "/sub/").utf8) + name
            try Self.createFile(bytes: path, contents: wav)
            expected.insert(path)
        }

        let files = AudioFileDiscovery.expand([root])
        #expect(Set(files.map(PathBytes.bytes(of:))) == expected)
        #expect(files.count == Self.names.count)

        let scorer = try FileScorer(configuration: .init(recordsSegments: true))
        var lines: [String] = []
        for path in files {
            let record = scorer.score(path: path)
            #expect(record.status == .ok, "\(path): \(record.error?.message ?? "")")
            let line = ScoreFormatting.jsonLine(record)
            let decoded = try JSONDecoder().decode(FileScore.self, from: Data(line.utf8))
            #expect(PathBytes.bytes(of: decoded.audioFilepath) == PathBytes.bytes(of: path))
            lines.append(line)
            for rttm in TimelineFormatting.rttmLines(record) {
                #expect(rttm.split(separator: " ", omittingEmptySubsequences: false).count == 10, "\(rttm)")
            }
            for timeline in TimelineFormatting.timelineLines(record) {
                let object = try JSONSerialization.jsonObject(with: Data(timeline.utf8)) as? [String: Any]
                #expect((object?["audio_filepath"] as? String).map(PathBytes.bytes(of:)) == PathBytes.bytes(of: path))
            }
        }

        let kept = try ScoreResume.completedRecords(
            fromJSONL: Array(lines.joined(separator: "\n").utf8), provenance: scorer.configuration.provenance).records
        #expect(kept.count == files.count)
        for (path, line) in zip(files, lines) { #expect(kept[RecordIdentity(path)] == line) }

        let merged = try ScoreMerging.merge([("a", lines.joined(separator: "\n")), ("b", lines.reversed().joined(separator: "\n"))])
        #expect(merged == lines)
        #expect(try ScoreMerging.merge([("a", lines.joined(separator: "\n"))], order: files.reversed()) == lines.reversed())
    }

    @Test("The directory walk finds what FileManager finds, for UTF-8 names")
    func walkMatchesFileManager() throws {
        let temporary = try TemporaryDirectory(prefix: "Walk")
        let root = temporary.path
        let manager = FileManager.default
        for directory in ["a/b/c", "a/.hidden", "d"] {
            try manager.createDirectory(atPath: root + "/" + directory, withIntermediateDirectories: true)
        }
        for file in ["x.wav", "a/y.WAV", "a/b/z.flac", "a/b/c/t.txt", "a/.hidden/h.wav", ".dot.wav", "d/n.ogg", "a/b/c/café.aiff"] {
            #expect(manager.createFile(atPath: root + "/" + file, contents: Data([1])))
        }
        try manager.createDirectory(atPath: root + "/dir.wav", withIntermediateDirectories: true)
        try manager.createSymbolicLink(atPath: root + "/link.wav", withDestinationPath: root + "/x.wav")
        try manager.createSymbolicLink(atPath: root + "/dangling.wav", withDestinationPath: root + "/absent.wav")
        try manager.createSymbolicLink(atPath: root + "/linkdir", withDestinationPath: root + "/d")
        for form in [root, root + "/", root + "/a"] {
            var reference: [String] = []
            if let enumerator = manager.enumerator(atPath: form) {
                while let relative = enumerator.nextObject() as? String {
                    guard AudioFileDiscovery.defaultExtensions.contains((relative as NSString).pathExtension.lowercased()) else { continue }
                    let full = (form as NSString).appendingPathComponent(relative)
                    var isDirectory: ObjCBool = false
                    if manager.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue { reference.append(full) }
                }
            }
            #expect(AudioFileDiscovery.expand([form]) == reference.sorted(), "\(form)")
        }
    }

    static func wav(payload: [UInt8]) -> [UInt8] {
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        return Array("RIFF".utf8) + le32(36 + payload.count) + Array("WAVEfmt ".utf8) + le32(16)
            + [1, 0, 1, 0] + le32(16_000) + le32(32_000) + [2, 0, 16, 0] + Array("data".utf8) + le32(payload.count) + payload
    }

    static func createFile(bytes name: [UInt8], contents: [UInt8]) throws {
        let descriptor = (name.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer {
            open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        _ = contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}
