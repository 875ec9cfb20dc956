import DSPCore
import DSPIO
import DSPScoring
import Foundation
import TestSupport
import Testing

/// Writes interleaved float samples as a Float32 WAV.
private func writeFloatWAV(_ path: String, _ samples: [Float], rate: Int, channels: Int = 1) throws {
    let writer = try AudioFileWriter(path: path, format: .wavFloat32, sampleRate: rate, channelCount: channels)
    try samples.withUnsafeBufferPointer { try writer.write($0) }
    try writer.close()
}

/// A file's samples (interleaved Float), rate, channels and format.
private func readAll(_ path: String) throws -> (samples: [Float], rate: Int, channels: Int, format: AudioFileFormat) {
    let reader = try AudioFileReader(path: path)
    defer { reader.close() }
    var samples: [Float] = []
    var block = [Float](repeating: 0, count: 4096 * reader.channelCount)
    while true {
        let n = try block.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
        if n == 0 { break }
        samples += block[..<n]
    }
    return (samples, reader.sampleRate, reader.channelCount, reader.format)
}

private func sine(frequency: Double, amplitude: Double, rate: Int, frames: Int, phase: Double = 0) -> [Float] {
    (0..<frames).map { Float(amplitude * sin(2 * Double.pi * frequency * Double($0) / Double(rate) + phase)) }
}

/// Power of `x` at `frequency` over power of `x` (a Goertzel-style projection on sine and cosine).
private func toneFraction(_ x: [Float], frequency: Double, rate: Int) -> Double {
    var s = 0.0, c = 0.0, total = 0.0
    for (n, v) in x.enumerated() {
        let w = 2 * Double.pi * frequency * Double(n) / Double(rate)
        s += Double(v) * sin(w)
        c += Double(v) * cos(w)
        total += Double(v) * Double(v)
    }
    return 2 * (s * s + c * c) / Double(x.count) / total
}

@Suite("FileConverter: files into a recognizer's input")
struct FileConverterTests {
    @Test("the output holds exactly round(N × 16000 / rate) frames", arguments: [
        (44_100, 2, 44_101), (48_000, 1, 48_001), (8_000, 1, 8_001), (16_000, 1, 16_003), (22_050, 2, 1), (44_100, 1, 7),
    ])
    func exactLength(rate: Int, channels: Int, frames: Int) throws {
        let scratch = try TemporaryDirectory(prefix: "convert")
        let input = scratch.path("in.wav")
        try writeFloatWAV(input, testSignal(count: frames * channels).map { $0 * 0.5 }, rate: rate, channels: channels)
        let result = try FileConverter().convert(input, to: scratch.path("out.wav"))
        #expect(result.status == .ok, "\(String(describing: result.error))")
        let expected = Int((Double(frames) * 16_000 / Double(rate)).rounded())
        #expect(result.outputFrames == expected)
        let output = try readAll(scratch.path("out.wav"))
        #expect(output.samples.count == expected)
        #expect(output.rate == 16_000 && output.channels == 1)
        #expect(output.format == .wavPCM16)
    }

    @Test("a 1 kHz sine at 48 kHz comes out as the same sine at 16 kHz (ideal sine, delay trimmed)")
    func sineOracle() throws {
        let scratch = try TemporaryDirectory(prefix: "convert")
        let input = scratch.path("sine48k.wav")
        let amplitude = 0.5
        try writeFloatWAV(input, sine(frequency: 1000, amplitude: amplitude, rate: 48_000, frames: 48_000), rate: 48_000)
        let result = try FileConverter().convert(input, to: scratch.path("sine16k.wav"))
        #expect(result.status == .ok)
        let output = try readAll(scratch.path("sine16k.wav")).samples
        #expect(output.count == 16_000)
        // Output sample n is input time n / 16000: the ideal is the same sine sampled at 16 kHz,
        // scaled by the resampler's passband gain at 1 kHz, which its specification holds within
        // ±0.1 dB (docs/resampling.md: +0.08 dB at 48 → 16 kHz, `.default`). Away from the ends
        // (where the filter sees zeros beyond the file) the rest is distortion and the 16-bit
        // rounding: a wrong delay, rate or frequency would leave a residual of the sine's size.
        let ideal = sine(frequency: 1000, amplitude: amplitude, rate: 16_000, frames: 16_000)
        let range = 200..<(16_000 - 200)
        let gain = range.reduce(0.0) { $0 + Double(output[$1]) * Double(ideal[$1]) }
            / range.reduce(0.0) { $0 + Double(ideal[$1]) * Double(ideal[$1]) }
        #expect(abs(20 * log10(gain)) < 0.1, "gain at 1 kHz \(20 * log10(gain)) dB")
        let worst = range.map { abs(Double(output[$0]) - gain * Double(ideal[$0])) }.max() ?? 1
        #expect(worst < 1e-4, "max |output − gain × ideal| = \(worst)")
        let interior = Array(output[range])
        let rms = sqrt(interior.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(interior.count))
        #expect(abs(20 * log10(rms) - 20 * log10(amplitude / 2.0.squareRoot())) < 0.1)
        #expect(toneFraction(interior, frequency: 1000, rate: 16_000) > 0.9999)
    }

    @Test("TestAudio's −20 dBFS 1 kHz sine at 48 kHz keeps its level and frequency at 16 kHz")
    func bundledSine() throws {
        let scratch = try TemporaryDirectory(prefix: "convert")
        let path = TestAudio.path("sine_1k_-20dBFS_48k_f32.wav")
        let result = try FileConverter().convert(path, to: scratch.path("out.flac"))
        let input = try readAll(path)
        #expect(result.status == .ok)
        #expect(result.outputFrames == (input.samples.count * 16_000 + 24_000) / 48_000)
        let output = try readAll(scratch.path("out.flac")).samples
        func rmsDB(_ x: ArraySlice<Float>) -> Double {
            10 * log10(x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count))
        }
        // −20 dBFS peak: −23.01 dBFS RMS, in and out (ends excluded), within the resampler's
        // ±0.1 dB passband.
        #expect(abs(rmsDB(output[200..<(output.count - 200)]) - rmsDB(input.samples[600..<(input.samples.count - 600)])) < 0.1)
        #expect(abs(rmsDB(output[200..<(output.count - 200)]) - (-20 - 10 * log10(2.0))) < 0.1)
        #expect(toneFraction(Array(output[200..<(output.count - 200)]), frequency: 1000, rate: 16_000) > 0.9999)
    }

    @Test("stereo is mixed to the mean of its channels; one channel or all can be chosen")
    func channels() throws {
        let scratch = try TemporaryDirectory(prefix: "convert")
        let input = scratch.path("stereo.wav")
        let frames = 16_000
        let left = sine(frequency: 440, amplitude: 0.5, rate: 16_000, frames: frames)
        let right = sine(frequency: 440, amplitude: 0.25, rate: 16_000, frames: frames, phase: .pi)
        var interleaved: [Float] = []
        for i in 0..<frames { interleaved += [left[i], right[i]] }
        try writeFloatWAV(input, interleaved, rate: 16_000, channels: 2)

        // Same rate: no resampling, so each output sample is the 16-bit rounding of the mix.
        func expectClose(_ got: [Float], _ want: [Float], _ what: Comment) {
            #expect(got.count == want.count, what)
            let worst = zip(got, want).map { abs($0 - $1) }.max() ?? 0
            #expect(worst <= 0.5 / 32768 + 1e-9, what)
        }
        _ = try FileConverter().convert(input, to: scratch.path("mix.wav"))
        expectClose(try readAll(scratch.path("mix.wav")).samples, (0..<frames).map { (left[$0] + right[$0]) / 2 }, "downmix")

        _ = try FileConverter(configuration: .init(channels: .channel(1))).convert(input, to: scratch.path("right.wav"))
        expectClose(try readAll(scratch.path("right.wav")).samples, right, "channel 2")

        let kept = try FileConverter(configuration: .init(channels: .keep)).convert(input, to: scratch.path("both.wav"))
        #expect(kept.outputChannels == 2)
        let both = try readAll(scratch.path("both.wav"))
        #expect(both.channels == 2)
        expectClose(both.samples, interleaved, "keep")

        // 44.1 kHz stereo kept: each channel resampled, exact length.
        let input44 = scratch.path("stereo44.wav")
        try writeFloatWAV(input44, testSignal(count: 2 * 44_100).map { $0 * 0.5 }, rate: 44_100, channels: 2)
        let kept44 = try FileConverter(configuration: .init(channels: .keep)).convert(input44, to: scratch.path("both16.wav"))
        #expect(kept44.status == .ok && kept44.outputFrames == 16_000)
        #expect(try readAll(scratch.path("both16.wav")).samples.count == 32_000)

        let missing = try FileConverter(configuration: .init(channels: .channel(2))).convert(input, to: scratch.path("third.wav"))
        #expect(missing.status == .error && missing.error?.kind == "unsupported")
        #expect(missing.error?.message.contains("no channel 2 in a 2-channel file") == true)
    }

    @Test("how the file is cut into blocks does not change a byte of the output", arguments: [FileConverter.Configuration.Container.wav, .flac])
    func chunking(container: FileConverter.Configuration.Container) throws {
        let scratch = try TemporaryDirectory(prefix: "convert")
        let path = TestAudio.path("speech_2ch_en-us_de_44k1.flac")
        var outputs: [Data] = []
        for (i, blockFrames) in [256, 4097, 65_536, 1 << 20].enumerated() {
            let out = scratch.path("out\(i).\(container.fileExtension)")
            let result = try FileConverter(configuration: .init(container: container, dither: .triangular(seed: 3), blockFrames: blockFrames))
                .convert(path, to: out)
            #expect(result.status == .ok)
            #expect(result.outputFrames == 104_052)  // round(286792 × 16000 / 44100)
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: out)))
        }
        #expect(Set(outputs).count == 1)
    }

    @Test("TPDF dither moves each sample by at most one step, and is the same on every run")
    func dither() throws {
        let scratch = try TemporaryDirectory(prefix: "convert")
        let path = TestAudio.path("speech_en-us_16k.wav")
        _ = try FileConverter().convert(path, to: scratch.path("plain.wav"))
        let tpdf = FileConverter.Configuration(dither: .triangular(seed: 9))
        _ = try FileConverter(configuration: tpdf).convert(path, to: scratch.path("d1.wav"))
        _ = try FileConverter(configuration: tpdf).convert(path, to: scratch.path("d2.wav"))
        let plain = try readAll(scratch.path("plain.wav")).samples
        let d1 = try readAll(scratch.path("d1.wav")).samples
        #expect(d1 == (try readAll(scratch.path("d2.wav")).samples))
        #expect(plain == (try readAll(path)).samples, "16 kHz mono 16-bit in: the samples pass unchanged")
        #expect(zip(plain, d1).allSatisfy { abs($0 - $1) * 32768 <= 1 })
        #expect(zip(plain, d1).contains { $0 != $1 })
    }

    @Test("files that cannot be read or written get an error kind; the input is never written over")
    func errors() throws {
        let scratch = try TemporaryDirectory(prefix: "convert")
        let converter = try FileConverter()
        let missing = converter.convert(scratch.path("missing.wav"), to: scratch.path("a.wav"))
        #expect(missing.status == .error && missing.error?.kind == "not_found")

        let text = scratch.path("text.wav")
        try Data("this is not audio at all, just some text in a file".utf8).write(to: URL(fileURLWithPath: text))
        let garbage = converter.convert(text, to: scratch.path("b.wav"))
        #expect(garbage.status == .error)
        #expect(["corrupt", "unsupported_format"].contains(garbage.error?.kind ?? ""))

        let folder = converter.convert(scratch.path, to: scratch.path("c.wav"))
        #expect(folder.status == .error)

        let input = scratch.path("in.wav")
        try writeFloatWAV(input, testSignal(count: 1600), rate: 16_000)
        let inputBytes = try Data(contentsOf: URL(fileURLWithPath: input))
        for overwrite in [false, true] {
            let same = converter.convert(input, to: input, overwrite: overwrite)
            #expect(same.status == .error && same.error?.kind == "same_file")
            let viaDots = converter.convert(input, to: scratch.path + "/./in.wav", overwrite: overwrite)
            #expect(viaDots.error?.kind == "same_file")
        }
        try FileManager.default.createSymbolicLink(atPath: scratch.path("link.wav"), withDestinationPath: input)
        #expect(converter.convert(input, to: scratch.path("link.wav"), overwrite: true).error?.kind == "same_file")
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == inputBytes)

        let first = converter.convert(input, to: scratch.path("deep/er/out.wav"))
        #expect(first.status == .ok, "\(String(describing: first.error))")
        let again = converter.convert(input, to: scratch.path("deep/er/out.wav"))
        #expect(again.status == .error && again.error?.kind == "output_exists")
        #expect(converter.convert(input, to: scratch.path("deep/er/out.wav"), overwrite: true).status == .ok)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("deep/er/out.wav.partial")))

        let empty = scratch.path("empty.wav")
        try writeFloatWAV(empty, [], rate: 16_000)
        #expect(converter.convert(empty, to: scratch.path("e.wav")).error?.kind == "empty")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("e.wav")))

        let slow = scratch.path("slow.wav")
        try writeFloatWAV(slow, testSignal(count: 800), rate: 800)
        let refused = converter.convert(slow, to: scratch.path("s.wav"))
        #expect(refused.error?.kind == "unsupported")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("s.wav")))
    }

    @Test("a batch goes on past bad files, results in input order whatever the jobs")
    func batch() throws {
        let scratch = try TemporaryDirectory(prefix: "convert")
        let bad = scratch.path("bad.wav")
        try Data("not audio".utf8).write(to: URL(fileURLWithPath: bad))
        let inputs = [
            TestAudio.path("speech_de_48k.flac"), bad, TestAudio.path("noise_white_16k.wav"), scratch.path("missing.flac"),
            TestAudio.path("speech_es_48k.w64"),
        ]
        var runs: [[FileConverter.Result]] = []
        for jobs in [1, 3] {
            var plan = inputs.enumerated().map { FileConverter.PlannedFile(input: $1, output: scratch.path("j\(jobs)/\($0).wav")) }
            // A sixth file that would write the first one's output: reported in its place, not converted.
            plan.insert(FileConverter.PlannedFile(input: inputs[4], output: plan[0].output, conflictsWith: inputs[0]), at: 2)
            var results: [FileConverter.Result] = []
            try FileConverter.convert(plan, jobs: jobs, configuration: .init(), overwrite: false) { index, result in
                #expect(index == results.count)
                results.append(result)
                return true
            }
            #expect(results.map(\.status) == [.ok, .error, .error, .ok, .error, .ok])
            #expect(results.map(\.inputPath) == plan.map(\.input))
            #expect(results[2].error?.kind == "output_conflict")
            runs.append(results)
            for result in results where result.status == .ok {
                #expect(FileManager.default.fileExists(atPath: result.outputPath))
            }
        }
        #expect(runs[0].map(\.outputFrames) == runs[1].map(\.outputFrames))
    }

    @Test("outputs mirror the input tree, with the container's extension; two inputs for one output conflict")
    func plan() throws {
        let scratch = try TemporaryDirectory(prefix: "convert")
        let root = scratch.path("corpus")
        for name in ["a/x.flac", "a/x.ogg", "b/c/y.wav", "z.aiff", "notes.txt"] {
            let path = (root as NSString).appendingPathComponent(name)
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data([1]).write(to: URL(fileURLWithPath: path))
        }
        let found = AudioFileDiscovery.expandKeepingRoots([root, TestAudio.path("speech_de_16k.flac")])
        #expect(found.map(\.relativePath) == ["a/x.flac", "a/x.ogg", "b/c/y.wav", "z.aiff", "speech_de_16k.flac"])
        #expect(found.map(\.path) == AudioFileDiscovery.expand([root, TestAudio.path("speech_de_16k.flac")]))
        let plan = FileConverter.plan(found, outputDirectory: "/out", container: .flac)
        #expect(plan.map(\.output) == ["/out/a/x.flac", "/out/a/x.flac", "/out/b/c/y.flac", "/out/z.flac", "/out/speech_de_16k.flac"])
        #expect(plan.map(\.conflictsWith) == [nil, found[0].path, nil, nil, nil])
    }

    @Test("settings out of range are refused by name")
    func configuration() {
        #expect(throws: ConfigurationError.self) { try FileConverter(configuration: .init(outputRate: 999)) }
        #expect(throws: ConfigurationError.self) { try FileConverter(configuration: .init(blockFrames: 255)) }
        #expect(throws: ConfigurationError.self) { try FileConverter(configuration: .init(channels: .channel(-1))) }
        do {
            _ = try FileConverter(configuration: .init(outputRate: 800_000))
            Issue.record("800 kHz accepted")
        } catch {
            #expect(error.parameter == "outputRate")
        }
    }
}
