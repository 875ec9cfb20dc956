import DSPIO
import Foundation
import Testing
import TestSupport

/// File names as bytes: the escaping round-trips every byte string, and files whose names are
/// not UTF-8 open.
@Suite("File names as bytes")
struct PathBytesTests {
    /// Names that are not valid UTF-8, or hold the escape block itself.
    static let hostileNames: [[UInt8]] = [
        [0x63, 0x61, 0x66, 0xE9],  // latin-1 "café"
        [0xFF], [0x80], [0x41, 0xA9, 0x42],  // 0xFF, a lone continuation byte
        [0x61, 0xC3],  // a two-byte sequence cut short
        [0xC0, 0xAF], [0xED, 0xA0, 0x80],  // an overlong "/", an encoded surrogate
        [0xF4, 0x8F, 0xBF, 0xA9],  // U+10FFE9 spelled in valid UTF-8
        [0xF5, 0x80, 0x80, 0x80], [0xFE, 0xFE],
    ]

    @Test("Every byte string survives escaping; valid UTF-8 outside the escape block is unchanged")
    func roundTrip() {
        var state: UInt64 = 20
        for length in 0..<400 {
            var bytes: [UInt8] = []
            for _ in 0..<(length % 23) {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                // Mostly bytes ≥ 0x80, so the decoder meets every kind of sequence.
                bytes.append(UInt8(truncatingIfNeeded: (state >> 33) | ((state >> 40) & 1 == 0 ? 0x80 : 0)))
            }
            let escaped = PathBytes.string(decoding: bytes)
            #expect(PathBytes.bytes(of: escaped) == bytes, "\(bytes)")
            #expect(!escaped.unicodeScalars.contains { (0xD800...0xDFFF).contains($0.value) })
        }
        for name in Self.hostileNames {
            let escaped = PathBytes.string(decoding: name)
            #expect(PathBytes.bytes(of: escaped) == name)
            #expect(PathBytes.isEscaped(escaped))
        }
        for name in ["plain.wav", "café.wav", "cafe\u{301}.wav", "日本語/音声.flac", "🎙️.ogg", "a\u{10FF7F}"] {
            #expect(PathBytes.string(decoding: Array(name.utf8)) == name)
            #expect(!PathBytes.isEscaped(name))
            #expect(PathBytes.bytes(of: name) == Array(name.utf8))
        }
        #expect(PathBytes.string(decoding: [0xE9]) == "\u{10FFE9}")
        // Text (a manifest) keeps escapes as escapes and escapes only invalid bytes.
        #expect(PathBytes.text(decoding: Array("a\u{10FFE9}".utf8) + [0xE9]) == "a\u{10FFE9}\u{10FFE9}")
    }

    @Test("A file whose name is not UTF-8 opens, reads and is written by its escaped path")
    func openHostileNames() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let wav = WAVBuilder.file(channels: 1, sampleRate: 8_000, bitsPerSample: 16, payload: WAVBuilder.pcm16([1, -2, 3, 16384]))
        // `path("")` has no trailing separator: the names go inside the directory, which removes them.
        let inside = Array(directory.url.path.utf8) + [UInt8(ascii: "/")]
        for name in Self.hostileNames {
            let path = PathBytes.string(decoding: inside + name + Array(".wav".utf8))
            try Self.createFile(bytes: PathBytes.bytes(of: path), contents: wav)
            let reader = try AudioFileReader(path: path)
            #expect(reader.frameCount == 4)
            #expect(reader.path == path)
            let written = PathBytes.string(decoding: inside + name + Array("-copy.flac".utf8))
            let writer = try AudioFileWriter(path: written, format: .flacPCM16, sampleRate: 8_000, channelCount: 1)
            try [Float(0.5), -0.5].withUnsafeBufferPointer { try writer.write($0) }
            try writer.close()
            #expect(try AudioFileReader(path: written).frameCount == 2)
        }
        let error = expectError(.notFound) { _ = try AudioFileReader(path: directory.path("x.wav") + "\0.txt") }
        #expect(error?.message.contains("NUL") == true)
    }

    /// Creates a file with `open(2)` on raw bytes, the way a corpus from another system holds it.
    static func createFile(bytes name: [UInt8], contents: [UInt8]) throws {
        let descriptor = (name.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer {
            open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        let written = contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == contents.count else { throw POSIXError(.EIO) }
    }
}
