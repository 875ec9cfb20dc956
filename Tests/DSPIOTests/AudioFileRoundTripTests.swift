import DSPIO
import Foundation
import DSPCore
import Testing
import TestSupport

@Suite("Round trips and sample values")
struct AudioFileRoundTripTests {
    @Test("Float32 WAV round trip is bit-exact, edge values included")
    func float32BitExact() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let edges: [Float] = [
            0, -0.0, 1, -1, 1.5, -2.75, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            .leastNonzeroMagnitude, -.leastNormalMagnitude, .infinity, -.infinity, .nan, 1e-30,
        ]
        let samples = edges + testSignal(count: 10_000)
        let path = try writeAudio(directory.path("float.wav"), samples, format: .wavFloat32, channelCount: 2)
        let reader = try AudioFileReader(path: path)
        #expect(reader.format == .wavFloat32)
        #expect(reader.format.description == "WAV/FLOAT")
        #expect(reader.channelCount == 2)
        #expect(reader.frameCount == samples.count / 2)
        let result = try readAll(reader)
        #expect(result.map(\.bitPattern) == samples.map(\.bitPattern))
    }

    @Test("Int16 sample v reads as exactly Float(v) / 32768, for all 65536 values")
    func int16Normalisation() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let values = (Int(Int16.min)...Int(Int16.max)).map { Int16($0) }
        let path = try directory.write(
            "all16.wav",
            bytes: WAVBuilder.file(channels: 1, sampleRate: 8000, bitsPerSample: 16, payload: WAVBuilder.pcm16(values)))
        let reader = try AudioFileReader(path: path)
        #expect(reader.format == .wavPCM16)
        let result = try readAll(reader, blockFrames: 1000)
        #expect(result == values.map { Float($0) / 32768 })
        #expect(result.first == -1)
        #expect(result.last == Float(32767) / 32768)
    }

    @Test("16-bit reads widen exactly at any block size and channel count (every vector/tail split of the in-place kernel)",
          arguments: [1, 3])
    func int16AnyBlock(channels: Int) throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        var state: UInt64 = 0x16B1
        let values = (0..<(4099 * channels)).map { _ -> Int16 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int16(truncatingIfNeeded: state >> 40)
        } + [Int16.min, Int16.max, 0, -1, 1].flatMap { Array(repeating: $0, count: channels) }
        let path = try directory.write(
            "any16.wav",
            bytes: WAVBuilder.file(channels: channels, sampleRate: 16_000, bitsPerSample: 16, payload: WAVBuilder.pcm16(values)))
        for blockFrames in [1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 23, 24, 25, 1001, 4096, 8192] {
            let reader = try AudioFileReader(path: path)
            let result = try readAll(reader, blockFrames: blockFrames)
            #expect(result.map(\.bitPattern) == values.map { (Float($0) / 32768).bitPattern }, "block \(blockFrames) frames")
        }
    }

    @Test("Int24 sample v reads as exactly Float(v) / 8388608")
    func int24Normalisation() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let values: [Int32] = [-8_388_608, -8_388_607, -65536, -1, 0, 1, 255, 256, 65535, 4_194_304, 8_388_607]
        let path = try directory.write(
            "some24.wav",
            bytes: WAVBuilder.file(channels: 1, sampleRate: 48_000, bitsPerSample: 24, payload: WAVBuilder.pcm24(values)))
        let reader = try AudioFileReader(path: path)
        #expect(reader.format == .wavPCM24)
        #expect(try readAll(reader) == values.map { Float($0) / 8_388_608 })
    }

    @Test("PCM round trip is exact for k / 2^(bits−1)", arguments: [
        (AudioFileFormat.wavPCM16, 16), (.flacPCM16, 16), (.wavPCM24, 24), (.flacPCM24, 24),
        (AudioFileFormat(container: .aiff, encoding: .pcm16), 16), (AudioFileFormat(container: .w64, encoding: .pcm24), 24),
        (AudioFileFormat(container: .rf64, encoding: .pcm16), 16), (AudioFileFormat(container: .caf, encoding: .pcm24), 24),
    ])
    func pcmExact(format: AudioFileFormat, bits: Int) throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let scale = Float(1 << (bits - 1))
        let maximum = Int(scale) - 1
        // Every 16-bit value; for 24 bits a stride through the range plus both ends.
        let step = bits == 16 ? 1 : 251
        var codes = Array(stride(from: -Int(scale), through: maximum, by: step))
        codes += [maximum, -1, 0, 1]
        let samples = codes.map { Float($0) / scale }
        let path = try writeAudio(directory.path("exact.\(format.container)"), samples, format: format, channelCount: 1)
        let reader = try AudioFileReader(path: path)
        #expect(reader.format == format)
        #expect(reader.frameCount == samples.count)
        #expect(try readAll(reader) == samples)
    }

    @Test("Multichannel frames stay interleaved in order", arguments: [AudioFileFormat.wavPCM16, .flacPCM24, .wavFloat32])
    func interleaving(format: AudioFileFormat) throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let channels = 3
        let frames = 5000
        var samples = [Float](repeating: 0, count: frames * channels)
        for frame in 0..<frames {
            for channel in 0..<channels {
                samples[frame * channels + channel] = Float((frame % 200) * (channel + 1) - 300) / 1024
            }
        }
        let path = try writeAudio(directory.path("multi"), samples, format: format, sampleRate: 44_100, channelCount: channels)
        let reader = try AudioFileReader(path: path)
        #expect(reader.channelCount == channels)
        #expect(reader.sampleRate == 44_100)
        #expect(reader.frameCount == frames)
        #expect(abs(reader.durationSeconds - Double(frames) / 44_100) < 1e-12)
        #expect(try readAll(reader, blockFrames: 333) == samples)
    }

    /// 16-bit PCM follows DSPCore's policy in every container: nearest, ties to even, clamp,
    /// NaN → 0 — the values `Int16Conversion.int16` gives, counted.
    @Test("PCM16 writing rounds and clips by the library's policy in every container",
          arguments: [AudioFileFormat.wavPCM16, .flacPCM16, AudioFileFormat(container: .aiff, encoding: .pcm16),
                      AudioFileFormat(container: .w64, encoding: .pcm16)])
    func pcm16Conversion(format: AudioFileFormat) throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let input: [Float] = [1.5, -1.5, 1, -1, 0.5, 1.5, 2.5, -0.5, -1.5, 0.51, 32766.5, 32767.5, 1e9, -1e9]
            .enumerated().map { index, value in index < 4 ? value : value / 32768 } + [.infinity, -.infinity, .nan]
        let nearestEven: [Float] = [32767, -32768, 32767, -32768, 0, 2, 2, 0, -2, 1, 32766, 32767, 32767, -32768, 32767, -32768, 0]
        let path = directory.path("conv.\(format.container == .flac ? "flac" : "wav")")
        let writer = try AudioFileWriter(path: path, format: format, sampleRate: 16_000, channelCount: 1)
        try input.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        #expect(writer.clippedSampleCount == 8 && writer.nanSampleCount == 1)
        #expect(try readAll(path).map { $0 * 32768 } == nearestEven)
        #expect(nearestEven == input.map { Float(Int16Conversion.int16($0)) })
    }

    @Test("PCM16 writing converts long buffers block by block, interleaved channels intact")
    func pcm16Blocks() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let frames = 10_001
        let samples = (0..<frames * 3).map { Float(($0 * 7919) % 65536 - 32768) / 32768 }
        let path = try writeAudio(directory.path("blocks.wav"), samples, format: .wavPCM16, channelCount: 3)
        #expect(try readAll(path) == samples)
    }

    /// 16-bit PCM is read as integers and widened in place in the caller's buffer (a vector
    /// loop plus a scalar tail): every block size from 1 to 19 frames, 1–3 channels, WAV and
    /// FLAC, must give the same values as one large read and as `v / 32768` exactly.
    @Test("PCM16 reads are exact for every block size and channel count (in-place widening)",
          arguments: [AudioFileFormat.wavPCM16, .flacPCM16])
    func pcm16InPlaceWidening(format: AudioFileFormat) throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        for channels in 1...3 {
            let frames = 1_003
            let values = (0..<frames * channels).map { Int16(truncatingIfNeeded: ($0 * 7919 + channels) % 65536 - 32768) }
            let expected = values.map { Float($0) / 32768 }
            let path = try writeAudio(
                directory.path("widen\(channels).\(format.container == .flac ? "flac" : "wav")"), expected,
                format: format, channelCount: channels)
            for blockFrames in Array(1...19) + [4096] {
                #expect(try readAll(path, blockFrames: blockFrames).map(\.bitPattern) == expected.map(\.bitPattern),
                        "\(format) \(channels) ch, blocks of \(blockFrames)")
            }
        }
    }

    @Test("Ogg/Vorbis written by libsndfile reads back with its length and content")
    func oggVorbis() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let frames = 48_000
        let samples = (0..<frames).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
        let path = try writeAudio(directory.path("tone.ogg"), samples, format: .oggVorbis, sampleRate: 48_000)
        let reader = try AudioFileReader(path: path)
        #expect(reader.format == .oggVorbis)
        #expect(reader.format.description == "OGG/VORBIS")
        #expect(reader.frameCount == frames)
        let result = try readAll(reader, blockFrames: 1000)
        #expect(result.count == frames)
        // Lossy: compare away from the edges, as a signal-to-error ratio.
        var signal = 0.0
        var error = 0.0
        for index in 4800..<(frames - 4800) {
            signal += Double(samples[index] * samples[index])
            error += Double((result[index] - samples[index]) * (result[index] - samples[index]))
        }
        #expect(10 * log10(signal / error) > 20)
    }

    @Test("AIFF with one byte per sample keeps an odd sample count (libsndfile counts the pad byte as a frame; the writer takes it back)",
          arguments: [AudioFileFormat.Encoding.pcmS8, .pcmU8, .ulaw, .alaw], [1, 2, 3])
    func aiffOddByteCount(encoding: AudioFileFormat.Encoding, channels: Int) throws {
        let format = AudioFileFormat(container: .aiff, encoding: encoding)
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        // 1001 frames: an odd sample count for 1 and 3 channels (the repaired case), even for 2.
        let frames = 1001
        let samples = (0..<frames * channels).map { Float(($0 * 37) % 255 - 127) / 128 }
        let path = try writeAudio(directory.path("odd.aiff"), samples, format: format, channelCount: channels)
        let reader = try AudioFileReader(path: path)
        #expect(reader.format == format)
        #expect(reader.frameCount == frames)
        let read = try readAll(reader)
        #expect(read.count == samples.count)
        // k / 128 is stored exactly as 8-bit PCM.
        if encoding == .pcmS8 || encoding == .pcmU8 { #expect(read == samples) }
        // The data still ends with its pad byte: the FORM chunk spans the whole file.
        let bytes = try #require(FileManager.default.contents(atPath: path))
        let formSize = bytes[4..<8].reduce(0) { $0 << 8 | Int($1) }
        #expect(formSize + 8 == bytes.count)
        #expect(bytes.count % 2 == 0)
        // An independent reader agrees on the length (sox reads plain AIFF, not the AIFC that
        // libsndfile writes for unsigned 8-bit, µ-law and A-law).
        if Tool.sox.isAvailable, encoding == .pcmS8 {
            let raw = directory.path("decoded.f32")
            try Tool.sox.run([path, "-t", "f32", raw])
            #expect(try readRawFloats(raw).count == samples.count)
        }
    }

    @Test("Files from sox (24-bit WAV, FLAC, AIFF, W64, 8-bit, µ-law) match sox's own float decode",
          .enabled(if: Tool.sox.isAvailable, "sox is not installed"),
          arguments: [
            ("wav24.wav", ["-b", "24"], AudioFileFormat(container: .wavex, encoding: .pcm24)),  // sox writes WAVE_FORMAT_EXTENSIBLE above 16 bits
            ("flac24.flac", ["-b", "24"], .flacPCM24),
            ("flac16.flac", ["-b", "16"], .flacPCM16),
            ("aiff16.aiff", ["-b", "16"], AudioFileFormat(container: .aiff, encoding: .pcm16)),
            ("w64.w64", ["-b", "24"], AudioFileFormat(container: .w64, encoding: .pcm24)),
            ("u8.wav", ["-b", "8"], AudioFileFormat(container: .wav, encoding: .pcmU8)),
            ("ulaw.wav", ["-e", "u-law"], AudioFileFormat(container: .wav, encoding: .ulaw)),
          ])
    func soxFiles(name: String, options: [String], format: AudioFileFormat) throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let path = directory.path(name)
        try Tool.sox.run(["-n", "-r", "22050", "-c", "2"] + options + [path, "synth", "0.5", "sine", "440", "sine", "1234", "gain", "-3"])
        let raw = directory.path("decoded.f32")
        try Tool.sox.run([path, "-t", "f32", raw])
        let reader = try AudioFileReader(path: path)
        #expect(reader.format == format)
        #expect(reader.sampleRate == 22_050)
        #expect(reader.channelCount == 2)
        #expect(reader.frameCount == 11_025)
        #expect(try readAll(reader, blockFrames: 777) == readRawFloats(raw))
    }

    @Test("A FLAC file from the flac encoder decodes to the WAV it was made from",
          .enabled(if: Tool.flac.isAvailable, "flac is not installed"))
    func flacEncoder() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let samples = testSignal(count: 40_000)
        let wav = try writeAudio(directory.path("source.wav"), samples, format: .wavPCM16, channelCount: 2)
        let flac = directory.path("encoded.flac")
        try Tool.flac.run(["-s", "-f", "-o", flac, wav])
        let reader = try AudioFileReader(path: flac)
        #expect(reader.format == .flacPCM16)
        #expect(try readAll(reader) == readAll(wav))
    }

    @Test("An Ogg/Vorbis file from oggenc opens with the source's length",
          .enabled(if: Tool.oggenc.isAvailable, "oggenc is not installed"))
    func oggencFile() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let wav = try writeAudio(directory.path("source.wav"), testSignal(count: 64_000), format: .wavPCM16, sampleRate: 32_000, channelCount: 2)
        let ogg = directory.path("encoded.ogg")
        try Tool.oggenc.run(["-Q", "-o", ogg, wav])
        let reader = try AudioFileReader(path: ogg)
        #expect(reader.format == .oggVorbis)
        #expect(reader.sampleRate == 32_000)
        #expect(reader.frameCount == 32_000)
        #expect(try readAll(reader).count == 64_000)
    }

    @Test("Formats report their container and encoding names")
    func formatNames() {
        #expect(AudioFileFormat.wavPCM16.description == "WAV/PCM_16")
        #expect(AudioFileFormat.flacPCM24.description == "FLAC/PCM_24")
        #expect(AudioFileFormat(container: .rf64, encoding: .float64).description == "RF64/DOUBLE")
        #expect(AudioFileFormat.Container(rawValue: 0x7F_0000).description == "0x7F0000")
    }

    @Test("integer encodings read only finite samples; float encodings carry NaN and ±Inf through", arguments: [
        (AudioFileFormat.wavPCM16, true), (.flacPCM16, true), (.wavPCM24, true), (AudioFileFormat(container: .wav, encoding: .pcm32), true),
        (AudioFileFormat(container: .wav, encoding: .pcmU8), true), (AudioFileFormat(container: .aiff, encoding: .pcmS8), true),
        (AudioFileFormat(container: .wav, encoding: .ulaw), true), (AudioFileFormat(container: .wav, encoding: .alaw), true),
        (.wavFloat32, false), (AudioFileFormat(container: .wav, encoding: .float64), false),
    ])
    func integerSamplesAreFinite(format: AudioFileFormat, integer: Bool) throws {
        #expect(format.encoding.hasIntegerSamples == integer)
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let specials: [Float] = [.nan, .infinity, -.infinity, 2, -2, 1, -1, 0.5, .greatestFiniteMagnitude]
        let samples = specials + testSignal(count: 1010 - specials.count)
        let path = try writeAudio(directory.path("x." + (format.container == .flac ? "flac" : format.container == .aiff ? "aiff" : "wav")), samples, format: format, channelCount: 1)
        let reader = try AudioFileReader(path: path)
        #expect(reader.format == format)
        let read = try readAll(reader)
        #expect(read.count == samples.count)
        // What the scorer relies on: an integer encoding never yields NaN or ±Inf.
        #expect(read.allSatisfy(\.isFinite) == integer)
    }

    @Test("µ-law, A-law and the codecs get sanitised samples: NaN, ±Inf and huge values neither crash libsndfile nor reach it")
    func sanitizedEncodings() throws {
        let formats: [(AudioFileFormat, String)] = [
            (AudioFileFormat(container: .wav, encoding: .ulaw), "wav"), (AudioFileFormat(container: .wav, encoding: .alaw), "wav"),
            (AudioFileFormat(container: .au, encoding: .ulaw), "au"), (AudioFileFormat(container: .wav, encoding: .imaADPCM), "wav"),
            (AudioFileFormat(container: .wav, encoding: .msADPCM), "wav"), (AudioFileFormat(container: .wav, encoding: .gsm610), "wav"),
            (AudioFileFormat(container: .ogg, encoding: .vorbis), "ogg"),
        ]
        let specials: [Float] = [.nan, .infinity, -.infinity, 1e30, -1e30, 2, -2, .nan, .greatestFiniteMagnitude, 1, -1, 0.5]
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        var tested = 0
        for (format, ext) in formats {
            let rate = format.encoding == .gsm610 ? 8_000 : 16_000
            let path = directory.path("s-\(format.encoding).\(ext)")
            let writer: AudioFileWriter
            do {
                writer = try AudioFileWriter(path: path, format: format, sampleRate: rate, channelCount: 1)
            } catch {
                guard error.kind == .unsupportedFormat else { throw error }
                continue  // not built into this libsndfile
            }
            tested += 1
            let samples = specials + testSignal(count: 4000)
            try samples.withUnsafeBufferPointer { try writer.write($0) }
            #expect(writer.nanSampleCount == 2, "\(format)")
            #expect(writer.clippedSampleCount == 7, "\(format)")
            try writer.close()
            let read = try readAll(try AudioFileReader(path: path))
            #expect(read.count >= samples.count, "\(format)")
            // Companded samples stay in [−1, 1]; the lossy codecs may overshoot a clipped edge.
            let bound: Float = format.encoding.hasIntegerSamples ? 1 : 4
            #expect(read.allSatisfy { $0.isFinite && abs($0) <= bound }, "\(format) \(read.map { abs($0) }.max() ?? 0)")
        }
        #expect(tested >= 4)
    }
}
