import DSPIO
import Foundation
import Testing
import TestSupport

/// `AudioFileReader.readAll`: the whole file in one call equals block reading, sample for sample.
@Suite("Reading a whole file")
struct ReadAllTests {
    @Test("readAll(path:) equals block reading (across its 65 536-frame blocks)", arguments: [AudioFileFormat.wavPCM16, .flacPCM24, .wavFloat32])
    func wholeFile(format: AudioFileFormat) throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let path = try writeAudio(directory.path("whole"), testSignal(count: 2 * 70_001), format: format, sampleRate: 44_100, channelCount: 2)
        let blocks = try readAll(path, blockFrames: 4096)
        let contents = try AudioFileReader.readAll(path: path)
        #expect(contents.samples.map(\.bitPattern) == blocks.map(\.bitPattern))
        #expect(contents.sampleRate == 44_100 && contents.channelCount == 2 && contents.format == format)
        #expect(contents.frameCount == 70_001 && contents.damage == nil)
        #expect(contents.durationSeconds == 70_001.0 / 44_100)
    }

    @Test("readAll() reads from the current position; at the end it returns nothing")
    func rest() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let path = try writeAudio(directory.path("rest.wav"), testSignal(count: 3 * 5_000), format: .wavFloat32, channelCount: 3)
        let whole = try readAll(path)
        let reader = try AudioFileReader(path: path)
        try reader.seek(toFrame: 1_234)
        #expect(try reader.readAll() == Array(whole[(3 * 1_234)...]))
        #expect(try reader.readAll().isEmpty)
        // Edge case: a one-frame file.
        let one = try writeAudio(directory.path("one.wav"), [0.25], format: .wavFloat32)
        #expect(try AudioFileReader.readAll(path: one).samples == [0.25])
    }

    @Test("damage: thrown under .reject, the frames present and the damage under .readAvailable")
    func damage() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let path = try writeAudio(directory.path("full.wav"), testSignal(count: 2 * 8000), format: .wavPCM16, channelCount: 2)
        let full = try readAll(path)
        let cut = try directory.truncatedCopy(of: path, to: "cut.wav", keeping: 44 + 4 * 1000 + 3)
        expectError(.truncated) { _ = try AudioFileReader.readAll(path: cut) }
        let contents = try AudioFileReader.readAll(path: cut, damagePolicy: .readAvailable)
        #expect(contents.samples == Array(full[..<2000]))
        #expect(contents.damage?.kind == .truncated)
        expectError(.notFound) { _ = try AudioFileReader.readAll(path: directory.path("missing.wav")) }
    }
}
