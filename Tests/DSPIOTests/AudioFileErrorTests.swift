import DSPIO
import Foundation
import Testing
import TestSupport

@Suite("Errors, truncation and hostile files")
struct AudioFileErrorTests {
    // MARK: Paths

    @Test("A missing file is .notFound, naming the path")
    func missing() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let path = directory.path("absent.wav")
        let error = expectError(.notFound) { _ = try AudioFileReader(path: path) }
        #expect(error?.path == path)
        #expect(error?.description.hasPrefix(path) == true)
    }

    @Test("A 0-byte file is .empty")
    func empty() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let path = try directory.write("empty.wav", bytes: [])
        expectError(.empty) { _ = try AudioFileReader(path: path) }
    }

    @Test("A directory is .isDirectory, for reading and writing")
    func directoryPath() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let path = directory.url.path
        expectError(.isDirectory) { _ = try AudioFileReader(path: path) }
        expectError(.isDirectory) {
            _ = try AudioFileWriter(path: path, format: .wavPCM16, sampleRate: 16_000, channelCount: 1)
        }
    }

    @Test("An unreadable file is .permissionDenied",
          .enabled(if: geteuid() != 0, "running as root, which bypasses file permissions"))
    func permissionDenied() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let path = try writeAudio(directory.path("locked.wav"), [0.5], format: .wavPCM16)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: path)
        expectError(.permissionDenied) { _ = try AudioFileReader(path: path) }
    }

    // MARK: Not audio, or damaged

    @Test("Random bytes named .wav are .corrupt")
    func randomBytes() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        var generator = SplitMix64(seed: 0x5EED_0B17E5)  // seeded: the same sizes in every run
        var bytes = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[0] = 0x00  // make sure no container signature appears by chance
        let path = try directory.write("noise.wav", bytes: bytes)
        expectError(.corrupt) { _ = try AudioFileReader(path: path) }
    }

    @Test("A text file is .unsupportedFormat; named .wav it is .corrupt")
    func textFile() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let text = Array(String(repeating: "This is not audio.\n", count: 100).utf8)
        let plain = try directory.write("notes.txt", bytes: text)
        let error = expectError(.unsupportedFormat) { _ = try AudioFileReader(path: plain) }
        #expect(error?.message.isEmpty == false)  // libsndfile's sf_strerror text
        let disguised = try directory.write("notes.wav", bytes: text)
        expectError(.corrupt) { _ = try AudioFileReader(path: disguised) }
    }

    @Test("A RIFF header claiming 65535, 1025 or 0 channels is .corrupt")
    func hostileChannels() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        for channels in [65535, 1025, 0] {
            let path = try directory.write(
                "ch\(channels).wav",
                bytes: WAVBuilder.file(channels: channels, sampleRate: 16_000, bitsPerSample: 16, payload: [UInt8](repeating: 0, count: 100)))
            expectError(.corrupt) { _ = try AudioFileReader(path: path) }
        }
    }

    @Test("A RIFF header claiming a sample rate of 0 or 2 GHz is .corrupt")
    func hostileRates() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        for rate in [0, 2_000_000_000] {
            let path = try directory.write(
                "rate\(rate).wav",
                bytes: WAVBuilder.file(channels: 1, sampleRate: rate, bitsPerSample: 16, payload: [UInt8](repeating: 0, count: 100)))
            expectError(.corrupt) { _ = try AudioFileReader(path: path) }
        }
    }

    @Test("A tiny file claiming a 4 GB data chunk is .truncated, or 50 frames when reading what is there")
    func hostileDataSize() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let path = try directory.write(
            "huge.wav",
            bytes: WAVBuilder.file(
                channels: 1, sampleRate: 16_000, bitsPerSample: 16, payload: [UInt8](repeating: 0, count: 100),
                dataSize: 0xFFFF_FF00, riffSize: 0xFFFF_FF24))
        expectError(.truncated) { _ = try AudioFileReader(path: path) }
        let reader = try AudioFileReader(path: path, damagePolicy: .readAvailable)
        #expect(reader.frameCount == 50)
        #expect(reader.damage?.kind == .truncated)
        #expect(try readAll(reader).count == 50)
    }

    @Test("A FLAC header claiming 2^36 frames on a small file is .truncated at the end of the audio")
    func hostileFLACLength() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let samples = testSignal(count: 10_000)
        let path = try writeAudio(directory.path("honest.flac"), samples, format: .flacPCM16)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[21] |= 0x0F
        for index in 22...25 { bytes[index] = 0xFF }
        let liar = try directory.write("liar.flac", bytes: bytes)
        let expected = try readAll(path)

        let reader = try AudioFileReader(path: liar)
        #expect(reader.frameCount == (1 << 36) - 1)
        let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096)
        defer { block.deallocate() }
        var result: [Float] = []
        let error = expectError(.truncated) {
            while true {
                let count = try reader.read(into: block)
                result += block[..<count]
            }
        }
        #expect(result == expected)  // every decodable frame arrives before the error
        #expect(error?.message.contains("10000") == true)
        expectError(.truncated) { _ = try reader.read(into: block) }  // sticky until a seek
        try reader.seek(toFrame: 0)
        #expect(try reader.readFrames(into: block) == 4096)

        let lenient = try AudioFileReader(path: liar, damagePolicy: .readAvailable)
        #expect(lenient.damage == nil)
        #expect(try readAll(lenient) == expected)
        #expect(lenient.damage?.kind == .truncated)
    }

    // MARK: Truncation

    @Test("A WAV cut mid-data is .truncated; under .readAvailable it reads the whole frames present")
    func wavCutInData() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let samples = testSignal(count: 2 * 8000)
        let path = try writeAudio(directory.path("full.wav"), samples, format: .wavPCM16, channelCount: 2)
        let full = try readAll(path)
        // 44-byte header, 4 bytes per frame: keep 1000 frames and 3 bytes of the next.
        let cut = try directory.truncatedCopy(of: path, to: "cut.wav", keeping: 44 + 4 * 1000 + 3)
        let error = expectError(.truncated) { _ = try AudioFileReader(path: cut) }
        #expect(error?.message.contains("data : 32000 (should be 4003)") == true)

        let reader = try AudioFileReader(path: cut, damagePolicy: .readAvailable)
        #expect(reader.frameCount == 1000)
        #expect(reader.damage?.kind == .truncated)
        #expect(try readAll(reader) == Array(full[..<2000]))
    }

    @Test("A WAV cut inside its header is .truncated", arguments: [4, 6, 20, 30, 43])
    func wavCutInHeader(keep: Int) throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let path = try writeAudio(directory.path("full.wav"), testSignal(count: 1000), format: .wavPCM16)
        let cut = try directory.truncatedCopy(of: path, to: "cut.wav", keeping: keep)
        expectError(.truncated) { _ = try AudioFileReader(path: cut) }
    }

    @Test("A WAV holding its header and no data at all is .truncated")
    func wavHeaderOnly() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let path = try writeAudio(directory.path("full.wav"), testSignal(count: 1000), format: .wavPCM16)
        let cut = try directory.truncatedCopy(of: path, to: "cut.wav", keeping: 44)
        expectError(.truncated) { _ = try AudioFileReader(path: cut) }
        let reader = try AudioFileReader(path: cut, damagePolicy: .readAvailable)
        #expect(reader.frameCount == 0)
    }

    @Test("AIFF, W64, RF64 and WAVEX cut mid-data are .truncated", arguments: [
        AudioFileFormat(container: .aiff, encoding: .pcm16), AudioFileFormat(container: .w64, encoding: .pcm16),
        AudioFileFormat(container: .rf64, encoding: .float32), AudioFileFormat(container: .wavex, encoding: .pcm24),
    ])
    func otherContainersCut(format: AudioFileFormat) throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let samples = testSignal(count: 2 * 10_000)
        let path = try writeAudio(directory.path("full"), samples, format: format, channelCount: 2)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let cut = try directory.truncatedCopy(of: path, to: "cut", keeping: size / 2)
        expectError(.truncated) { _ = try AudioFileReader(path: cut) }
        let reader = try AudioFileReader(path: cut, damagePolicy: .readAvailable)
        #expect(reader.format == format)
        #expect(reader.damage?.kind == .truncated)
        #expect(reader.frameCount > 0 && reader.frameCount < 10_000)
        let result = try readAll(reader)
        #expect(result == Array(try readAll(path)[..<result.count]))
    }

    @Test("Streaming placeholder data sizes are not truncation", arguments: [UInt32(0xFFFF_FFFF), 0x7FFF_F000, 0x7FFF_FFFF])
    func placeholders(size: UInt32) throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let values = (0..<500).map { Int16($0 * 13 - 3000) }
        let path = try directory.write(
            "stream.wav",
            bytes: WAVBuilder.file(channels: 1, sampleRate: 16_000, bitsPerSample: 16, payload: WAVBuilder.pcm16(values), dataSize: size, riffSize: size))
        let reader = try AudioFileReader(path: path)
        #expect(reader.damage == nil)
        #expect(reader.frameCount == 500)
        #expect(try readAll(reader) == values.map { Float($0) / 32768 })
    }

    @Test("A metadata chunk cut off after complete audio is not truncation")
    func cutTrailingChunk() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let values: [Int16] = [100, -200, 300, -400]
        let wav = WAVBuilder.file(channels: 1, sampleRate: 16_000, bitsPerSample: 16, payload: WAVBuilder.pcm16(values))
        let path = try directory.write("tail.wav", bytes: wav + Array("LIST".utf8) + [0x10, 0, 0])
        let reader = try AudioFileReader(path: path)
        #expect(reader.damage == nil)
        #expect(try readAll(reader) == values.map { Float($0) / 32768 })
    }

    @Test("A WAV whose data size is 0 reads as 0 frames (libsndfile's behaviour)")
    func zeroDataSize() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let path = try directory.write(
            "zero.wav",
            bytes: WAVBuilder.file(channels: 1, sampleRate: 16_000, bitsPerSample: 16, payload: WAVBuilder.pcm16([1, 2, 3, 4]), dataSize: 0))
        let reader = try AudioFileReader(path: path)
        #expect(reader.frameCount == 0)
    }

    @Test("A FLAC cut mid-stream raises .corrupt after the frames decoded so far")
    func flacCut() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let samples = testSignal(count: 160_000)
        let path = try writeAudio(directory.path("full.flac"), samples, format: .flacPCM16)
        let full = try readAll(path)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let cut = try directory.truncatedCopy(of: path, to: "cut.flac", keeping: size / 2)

        let reader = try AudioFileReader(path: cut)  // the header is intact
        #expect(reader.frameCount == 160_000)
        let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096)
        defer { block.deallocate() }
        var result: [Float] = []
        let error = expectError(.corrupt) {
            while true {
                let count = try reader.read(into: block)
                result += block[..<count]
            }
        }
        #expect(error?.message.contains("lost sync") == true)
        #expect(result.count > 0 && result.count < 160_000)
        #expect(result == Array(full[..<result.count]))

        let lenient = try AudioFileReader(path: cut, damagePolicy: .readAvailable)
        #expect(try readAll(lenient) == result)
        #expect(lenient.damage?.kind == .corrupt)
    }

    @Test("An Ogg/Vorbis file cut mid-stream is .truncated")
    func oggCut() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let samples = testSignal(count: 160_000)
        let path = try writeAudio(directory.path("full.ogg"), samples, format: .oggVorbis)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let cut = try directory.truncatedCopy(of: path, to: "cut.ogg", keeping: size / 2)
        expectError(.truncated) { _ = try AudioFileReader(path: cut) }
        let reader = try AudioFileReader(path: cut, damagePolicy: .readAvailable)
        #expect(reader.damage?.kind == .truncated)
        #expect(try readAll(reader).count == reader.frameCount)
    }

    @Test("The header log is available for diagnostics")
    func headerLog() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let path = try writeAudio(directory.path("x.wav"), [0.5], format: .wavPCM16)
        let reader = try AudioFileReader(path: path)
        #expect(reader.headerLog.contains("WAVE"))
    }

    // MARK: Writer

    @Test("The writer refuses bad parameters, formats and paths by kind")
    func writerErrors() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let path = directory.path("out.wav")
        expectError(.invalidParameters) { _ = try AudioFileWriter(path: path, format: .wavPCM16, sampleRate: 0, channelCount: 1) }
        expectError(.invalidParameters) { _ = try AudioFileWriter(path: path, format: .wavPCM16, sampleRate: 16_000, channelCount: 0) }
        expectError(.invalidParameters) { _ = try AudioFileWriter(path: path, format: .wavPCM16, sampleRate: 16_000, channelCount: 1025) }
        expectError(.unsupportedFormat) {
            _ = try AudioFileWriter(path: path, format: AudioFileFormat(container: .flac, encoding: .float32), sampleRate: 16_000, channelCount: 1)
        }
        expectError(.notFound) {
            _ = try AudioFileWriter(path: directory.path("no/such/dir/out.wav"), format: .wavPCM16, sampleRate: 16_000, channelCount: 1)
        }
        let writer = try AudioFileWriter(path: path, format: .wavFloat32, sampleRate: 16_000, channelCount: 2)
        expectError(.invalidParameters) { try [Float(1), 2, 3].withUnsafeBufferPointer { try writer.write($0) } }
        try [Float(1), 2].withUnsafeBufferPointer { try writer.write($0) }
        #expect(writer.framesWritten == 1)
        try writer.close()
        #expect(try AudioFileReader(path: path).frameCount == 1)
    }
}
