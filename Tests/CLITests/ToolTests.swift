import CLISupport
import DSPCore
import DSPIO
import DSPScoring
import Foundation
import TestSupport
import Testing

/// The built executables, run as a user runs them: `swift test` builds every product of the
/// package into the directory the test binary runs from.
enum Tool {
    /// The directory holding the test binary and the executables.
    static var productsDirectory: URL {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL
        #else
        return Bundle.main.bundleURL
        #endif
    }

    struct Run {
        var status: Int32
        var stdout: String
        /// Standard error as written to a file (not a terminal).
        var stderr: String
    }

    /// Runs `name` with `arguments`, stdout to a pipe, stderr to a file (`2>err.txt`).
    static func run(_ name: String, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
        let executable = productsDirectory.appendingPathComponent(name)
        try #require(FileManager.default.isExecutableFile(atPath: executable.path), "no \(name) beside the tests", sourceLocation: sourceLocation)
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString).txt")
        #expect(FileManager.default.createFile(atPath: errors.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: errors) }
        let errorHandle = try FileHandle(forWritingTo: errors)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = TestAudio.directory.deletingLastPathComponent()
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errorHandle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try errorHandle.close()
        // An empty file is not read: Foundation's Data(contentsOf:) leaks its read buffer for
        // one (LeakSanitizer reports it in the address-sanitizer run).
        let errorBytes = (try FileManager.default.attributesOfItem(atPath: errors.path)[.size] as? Int ?? 0) > 0
            ? try Data(contentsOf: errors) : Data()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: errorBytes, as: UTF8.self))
    }
}

/// Every line of `text` is one JSON object; returns them.
func jsonLines(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [[String: Any]] {
    var objects: [[String: Any]] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            Issue.record("not a JSON object: \(line)", sourceLocation: sourceLocation)
            continue
        }
        objects.append(object)
    }
    return objects
}

@Suite("The tools as run from a shell", .serialized)
struct ToolTests {
    @Test("dspscore score TestAudio 2>err.txt: every stderr line is JSON; stdout is the table with its totals row")
    func stderrIsJSON() throws {
        let run = try Tool.run("dspscore", ["score", "TestAudio", "TestAudio/no-such-file.wav", "--jobs", "2"])
        #expect(run.status == 1, "a missing file is a failure")
        let events = jsonLines(run.stderr)
        #expect(!events.isEmpty)
        #expect(events.contains { $0["event"] as? String == "done" }, "progress events")
        let logs = events.filter { $0["level"] != nil }
        #expect(logs.contains { $0["level"] as? String == "error" && ($0["message"] as? String)?.contains("no-such-file.wav") == true })
        #expect(logs.contains { $0["level"] as? String == "info" && ($0["message"] as? String)?.contains("files ok") == true })
        for log in logs {
            #expect(log["ts"] is String && log["label"] as? String == "dspscore" && log["message"] is String)
        }

        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == ScoreFormatting.tableHeader)
        let files = AudioFileDiscovery.expand([TestAudio.directory.path])
        #expect(files.count > 20)
        #expect(lines.count == files.count + 1 + 1 + 2, "header, a row per file, the missing file, rule and totals")
        let total = try #require(lines.last)
        #expect(total.hasPrefix("total: \(files.count + 1) files"))
        #expect(total.contains("\(files.count) ok, 1 error"))
        let missingRow = try #require(lines.first { $0.contains("no-such-file.wav") })
        #expect(missingRow.contains("error: not_found") && !missingRow.contains("0.000"))
    }

    @Test("--quiet: no progress, no info; JSON still")
    func quiet() throws {
        let run = try Tool.run("dspscore", ["--quiet", "--format", "jsonl", "TestAudio/silence_16k.wav"])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        let debug = try Tool.run("dspscore", ["--log-level", "debug", "--format", "jsonl", "TestAudio/silence_16k.wav"])
        #expect(jsonLines(debug.stderr).contains { $0["level"] as? String == "info" })
    }

    @Test("a usage error on a non-terminal stderr is one JSON line naming the option")
    func usageErrors() throws {
        let run = try Tool.run("dspscore", ["score", "--frame-length", "0", "TestAudio/silence_16k.wav"])
        #expect(run.status == 64)
        let lines = jsonLines(run.stderr)
        #expect(lines.count == 1)
        let message = try #require(lines.first?["message"] as? String)
        #expect(message.contains("--frame-length"))
        #expect(!message.contains("frameLength"))
        #expect(lines.first?["level"] as? String == "error")

        let threshold = try Tool.run("dspscore", ["--clip-threshold", "0", "TestAudio/silence_16k.wav"])
        let thresholdMessage = try #require(jsonLines(threshold.stderr).first?["message"] as? String)
        #expect(thresholdMessage.contains("--clip-threshold") && !thresholdMessage.contains("clipThreshold"))
    }

    @Test("dspbench detect --network: a network JSON is used; an unreadable or invalid one is exit 2 naming the file")
    func detectWithANetwork() throws {
        // The network of DetectionNetworkTests' golden (exported by train_network.py).
        let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../DSPDetectionTests/Goldens/network-reference.json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: golden)) as? [String: Any])
        var network = try #require(object["network"] as? [String: Any])
        let directory = try TemporaryDirectory(prefix: "network")
        func write(_ value: Any, _ name: String) throws -> String {
            let url = directory.url(name)
            try JSONSerialization.data(withJSONObject: value).write(to: url)
            return url.path
        }
        let good = try write(network, "good.json")
        let audio = "TestAudio/speech_overlap_16k.wav"
        let plain = try Tool.run("dspbench", ["detect", "--in", audio, "--repeats", "1", "--json"])
        let run = try Tool.run("dspbench", ["detect", "--in", audio, "--repeats", "1", "--json", "--network", good])
        #expect(plain.status == 0 && run.status == 0, "\(run.stderr)")
        let withNetwork = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let withModels = try #require(try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [String: Any])
        #expect(withNetwork["speech_ratio"] != nil)
        #expect(String(describing: withNetwork["speech_ratio"]) != String(describing: withModels["speech_ratio"])
                || String(describing: withNetwork["music_ratio"]) != String(describing: withModels["music_ratio"]),
                "the network decides: \(withNetwork) against \(withModels)")

        let missing = try Tool.run("dspbench", ["detect", "--in", audio, "--network", directory.path("none.json")])
        #expect(missing.status == 2 && missing.stderr.contains("none.json"), "\(missing.stderr)")
        let garbled = try write(["inputLanes": [1, 2]], "garbled.json")
        let notDecoded = try Tool.run("dspbench", ["detect", "--in", audio, "--network", garbled])
        #expect(notDecoded.status == 2 && notDecoded.stderr.contains("garbled.json"), "\(notDecoded.stderr)")
        network["inputLanes"] = [44] + ((network["inputLanes"] as? [Int]) ?? []).dropFirst()
        let invalid = try write(network, "invalid.json")
        let refused = try Tool.run("dspbench", ["detect", "--in", audio, "--network", invalid])
        #expect(refused.status == 2 && refused.stderr.contains("invalid.json") && refused.stderr.contains("network"), "\(refused.stderr)")
    }

    @Test("--no-speech-blend: dspscore records say no_speech_blend and their voice activity moves; dspbench detect takes it")
    func speechBlend() throws {
        let audio = "TestAudio/speech_overlap_16k.wav"
        let blended = try Tool.run("dspscore", ["score", audio, "--format", "jsonl", "--quiet"])
        let plain = try Tool.run("dspscore", ["score", audio, "--format", "jsonl", "--quiet", "--no-speech-blend"])
        #expect(plain.status == 0 && blended.status == 0, "\(plain.stderr)")
        let a = try #require(try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [String: Any])
        let b = try #require(try JSONSerialization.jsonObject(with: Data(blended.stdout.utf8)) as? [String: Any])
        #expect((a["provenance"] as? [String: Any])?["options"] as? String == "no_speech_blend")
        #expect((b["provenance"] as? [String: Any])?["options"] == nil)
        let ratio = { (record: [String: Any]) in (record["detection"] as? [String: Any])?["speech_ratio"] as? Double }
        #expect(ratio(a) != nil && ratio(b) != nil && ratio(a) != ratio(b), "\(ratio(a) ?? -1) against \(ratio(b) ?? -1)")
        let detect = try Tool.run("dspbench", ["detect", "--in", audio, "--repeats", "1", "--json", "--no-speech-blend"])
        #expect(detect.status == 0, "\(detect.stderr)")
        // speechdsp-live takes it too (SpeechFrontEnd.Configuration.detector), and its speech events move.
        let live = try Tool.run("speechdsp-live", [audio])
        let livePlain = try Tool.run("speechdsp-live", [audio, "--no-speech-blend"])
        #expect(live.status == 0 && livePlain.status == 0, "\(livePlain.stderr)")
        let speech = { (run: Tool.Run) in run.stdout.split(separator: "\n").filter { $0.hasSuffix("speech start") || $0.hasSuffix("speech end") } }
        #expect(!speech(live).isEmpty && speech(live) != speech(livePlain), "\(speech(live)) against \(speech(livePlain))")
    }

    @Test("--no-pure-tone-gate: dspscore records say no_pure_tone_gate and the sweep's speech moves; dspbench detect takes it")
    func pureToneGate() throws {
        let audio = "TestAudio/sweep_log_20-20k_48k_f32.wav"
        let gated = try Tool.run("dspscore", ["score", audio, "--format", "jsonl", "--quiet"])
        let plain = try Tool.run("dspscore", ["score", audio, "--format", "jsonl", "--quiet", "--no-pure-tone-gate"])
        #expect(gated.status == 0 && plain.status == 0, "\(plain.stderr)")
        let a = try #require(try JSONSerialization.jsonObject(with: Data(gated.stdout.utf8)) as? [String: Any])
        let b = try #require(try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [String: Any])
        #expect((a["provenance"] as? [String: Any])?["options"] == nil)
        #expect((b["provenance"] as? [String: Any])?["options"] as? String == "no_pure_tone_gate")
        let ratio = { (record: [String: Any]) in (record["detection"] as? [String: Any])?["speech_ratio"] as? Double }
        // The log sweep's slow part is a steady tone: less of it is speech with the gate.
        #expect(ratio(a) != nil && ratio(b) != nil && ratio(a)! < ratio(b)!, "\(ratio(a) ?? -1) against \(ratio(b) ?? -1)")
        let detect = try Tool.run("dspbench", ["detect", "--in", audio, "--repeats", "1", "--json", "--no-pure-tone-gate"])
        #expect(detect.status == 0, "\(detect.stderr)")
        let live = try Tool.run("speechdsp-live", [audio])
        let livePlain = try Tool.run("speechdsp-live", [audio, "--no-pure-tone-gate"])
        #expect(live.status == 0 && livePlain.status == 0, "\(livePlain.stderr)")
        let speech = { (run: Tool.Run) in run.stdout.split(separator: "\n").filter { $0.hasSuffix("speech start") || $0.hasSuffix("speech end") } }
        #expect(speech(live) != speech(livePlain), "\(speech(live)) against \(speech(livePlain))")
    }

    @Test("--speech-segments: records carry the segmenter and its segments move; a bad key or range is a usage error (64) naming the option")
    func speechSegments() throws {
        let audio = "TestAudio/speech_en-us_48k.flac"
        let bridged = try Tool.run("dspscore", ["score", audio, "--format", "jsonl", "--quiet", "--speech-segments", "hangover_seconds=0.5,end=none"])
        #expect(bridged.status == 0, "\(bridged.stderr)")
        let record = try #require(try JSONSerialization.jsonObject(with: Data(bridged.stdout.utf8)) as? [String: Any])
        #expect((record["provenance"] as? [String: Any])?["options"] as? String
            == "speech_segments:on=0.5:off=0.35:min_seconds=0.032:hangover_seconds=0.5:padding_seconds=0.048:end=none")
        #expect((record["detection"] as? [String: Any])?["speech_segments"] as? Int == 1)
        for bad in ["hangover=0.5", "on=0.3,off=0.4", "padding_seconds=-1", "on"] {
            let refused = try Tool.run("dspscore", ["score", audio, "--speech-segments", bad])
            #expect(refused.status == 64 && refused.stderr.contains("--speech-segments"), "\(bad): \(refused.stderr)")
        }
    }

    @Test("--version on every tool: the library version and the build's git revision", arguments: ["dspscore", "dspbench", "speechdsp-live"])
    func version(tool: String) throws {
        let run = try Tool.run(tool, ["--version"])
        #expect(run.status == 0)
        let text = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(text == ToolVersion.text(tool: tool))
        #expect(text.hasPrefix("\(tool) (SpeechDSP \(SpeechDSPVersion.current), git "))
    }

    @Test("dspscore convert: a folder mirrored, bad files reported, the rest converted, exit 1")
    func convert() throws {
        let work = try TemporaryDirectory(prefix: "convert-cli")
        let input = work.url("in")
        try FileManager.default.createDirectory(at: input.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: TestAudio.path("speech_2ch_en-us_de_44k1.flac"), toPath: input.appendingPathComponent("sub/stereo.flac").path)
        try FileManager.default.copyItem(atPath: TestAudio.path("speech_de_48k.flac"), toPath: input.appendingPathComponent("de.flac").path)
        try Data("not audio".utf8).write(to: input.appendingPathComponent("broken.wav"))
        let output = work.url("out")

        let run = try Tool.run("dspscore", ["convert", input.path, "--output-dir", output.path, "--jobs", "2"])
        #expect(run.status == 1)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.filter { $0.hasPrefix("ok ") }.count == 2)
        #expect(lines.contains { $0.hasPrefix("error  ") && $0.contains("broken.wav") })
        #expect(jsonLines(run.stderr).contains { $0["level"] as? String == "error" })
        let stereo = try AudioFileReader(path: output.appendingPathComponent("sub/stereo.wav").path)
        #expect(stereo.sampleRate == 16_000 && stereo.channelCount == 1 && stereo.format == .wavPCM16)
        #expect(stereo.frameCount == 104_052)
        stereo.close()
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("de.wav").path))

        // Again: the outputs exist, so every file is an error unless --overwrite.
        let again = try Tool.run("dspscore", ["convert", input.path, "--output-dir", output.path])
        #expect(again.status == 1)
        #expect(again.stdout.components(separatedBy: "output_exists").count == 3)
        let flac = try Tool.run("dspscore", [
            "convert", input.appendingPathComponent("de.flac").path, "--output-dir", output.path, "--format", "flac", "--rate", "8000",
        ])
        #expect(flac.status == 0, "\(flac.stderr)")
        let de = try AudioFileReader(path: output.appendingPathComponent("de.flac").path)
        #expect(de.sampleRate == 8000 && de.format == .flacPCM16)
        de.close()
        // An output folder inside the input folder: a rerun does not take the outputs as inputs;
        // a file named directly whose output is itself is refused.
        let inside = input.appendingPathComponent("16k")
        for _ in 0..<2 {
            let run = try Tool.run("dspscore", ["convert", input.path, "--output-dir", inside.path, "--overwrite"])
            #expect(run.stdout.split(separator: "\n").count == 3)
        }
        let wav = inside.appendingPathComponent("de.wav").path
        let onItself = try Tool.run("dspscore", ["convert", wav, "--output-dir", inside.path, "--overwrite"])
        #expect(onItself.status == 1 && onItself.stdout.contains("same_file"))
        #expect(try AudioFileReader(path: wav).frameCount > 0)

        let badRate = try Tool.run("dspscore", ["convert", input.path, "--output-dir", output.path, "--rate", "100"])
        #expect(badRate.status == 64)
        #expect((jsonLines(badRate.stderr).first?["message"] as? String)?.contains("--rate") == true)
    }
}
