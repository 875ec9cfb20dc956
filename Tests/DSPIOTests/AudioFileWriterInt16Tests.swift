import DSPCore
import DSPIO
import Foundation
import Testing
import TestSupport

@Suite("AudioFileWriter.write(Int16): samples stored as they are")
struct AudioFileWriterInt16Tests {
    /// Every Int16 value, in an order that is not sorted.
    static let values: [Int16] = (0..<65_536).map { Int16(truncatingIfNeeded: $0 &* 40_503) }

    @Test("16-bit PCM in WAV, FLAC and AIFF reads back k / 32768 for every k", arguments: [
        AudioFileFormat.wavPCM16, .flacPCM16, AudioFileFormat(container: .aiff, encoding: .pcm16),
    ])
    func pcm16(format: AudioFileFormat) throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let path = directory.path("all16")
        let writer = try AudioFileWriter(path: path, format: format, sampleRate: 16_000, channelCount: 2)
        try Self.values.withUnsafeBufferPointer { all in
            // Uneven pieces: the writer takes any whole number of frames.
            var offset = 0
            for size in [2, 998, 4096, 30_000] {
                try writer.write(UnsafeBufferPointer(rebasing: all[offset..<offset + size]))
                offset += size
            }
            try writer.write(UnsafeBufferPointer(rebasing: all[offset...]))
        }
        #expect(writer.framesWritten == 32_768)
        #expect(writer.clippedSampleCount == 0)
        try writer.close()
        let reader = try AudioFileReader(path: path)
        #expect(reader.format == format)
        #expect(try readAll(reader) == Self.values.map { Float($0) / 32768 })
    }

    @Test("a float file is given k / 32768, not k (libsndfile's own short path would store k)")
    func float32() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let path = directory.path("float.wav")
        let writer = try AudioFileWriter(path: path, format: .wavFloat32, sampleRate: 8000, channelCount: 1)
        try Self.values.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        #expect(try readAll(AudioFileReader(path: path)) == Self.values.map { Float($0) / 32768 })
    }

    @Test("a partial frame and a closed file are refused")
    func refusals() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let writer = try AudioFileWriter(path: directory.path("x.wav"), format: .wavPCM16, sampleRate: 8000, channelCount: 2)
        let three: [Int16] = [1, 2, 3]
        #expect(throws: AudioFileError.self) { try three.withUnsafeBufferPointer { try writer.write($0) } }
        try writer.close()
        #expect(throws: AudioFileError.self) { try three.prefix(2).withUnsafeBufferPointer { try writer.write($0) } }
    }
}
