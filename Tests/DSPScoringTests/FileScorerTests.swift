import DSPScoring
import Foundation
import Testing
import TestSupport

/// The repository root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let testAudio = TestAudio.directory
let goldens = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Goldens")

/// TestAudio's audio files, sorted.
func testAudioFiles() -> [String] {
    AudioFileDiscovery.expand([testAudio.path])
}

@Suite("FileScorer over TestAudio")
struct FileScorerTests {
    /// Spec tier: SoX `stats` (scripts/make-level-goldens.sh) prints two decimals, so 0.01 dB.
    static let soxToleranceDB = 0.01
    /// Regression tier: same code, same files; only a change in summation order may move a
    /// value, by about 1e-7 dB. Anything larger is a behaviour change to explain.
    static let regressionToleranceDB = 1e-6

    @Test("every TestAudio file scores ok and matches SoX within 0.01 dB")
    func matchesSoX() throws {
        let text = try String(contentsOf: goldens.appendingPathComponent("testaudio-sox-levels.csv"), encoding: .utf8)
        let rows = text.split(separator: "\n").dropFirst(2).map { $0.split(separator: ",").map(String.init) }
        let files = testAudioFiles()
        #expect(rows.count == files.count, "golden rows vs TestAudio files: regenerate with scripts/make-level-goldens.sh")
        let scorer = try FileScorer()
        for row in rows {
            let score = scorer.score(path: testAudio.appendingPathComponent(row[0]).path)
            try #require(score.status == .ok, "\(row[0]): \(String(describing: score.error))")
            let levels = try #require(score.levels)
            func check(_ ours: Double?, _ sox: String, _ what: String) {
                if sox == "-inf" {
                    #expect(ours == nil, "\(row[0]) \(what)")
                } else if let ours {
                    #expect(abs(ours - Double(sox)!) <= Self.soxToleranceDB + 1e-9, "\(row[0]) \(what): \(ours) vs SoX \(sox)")
                } else {
                    Issue.record("\(row[0]) \(what): nil vs SoX \(sox)")
                }
            }
            check(levels.rmsDBFS, row[1], "RMS")
            check(levels.peakDBFS, row[2], "peak")
            // SoX prints 6 decimals of DC; its overall column for several channels is not the
            // mean over all samples, so DC is compared for mono files only.
            if score.channels == 1 {
                #expect(abs(levels.dcOffset - Double(row[3])!) <= 1e-6, "\(row[0]) DC")
            }
        }
    }

    @Test("loudness of the synthetic files: analytic values per BS.1770")
    func loudness() throws {
        let scorer = try FileScorer()
        func loudness(_ name: String) throws -> FileScore.Loudness {
            try #require(scorer.score(path: testAudio.appendingPathComponent(name).path).loudness)
        }
        // A 1 kHz sine: K-weighting gain at 1 kHz is +0.691 dB, cancelling the −0.691 LU offset, so
        // L = 10·log10(mean x²) = peak dBFS − 3.01: −20 dBFS peak → −23.01 LUFS (mono).
        let sine = try loudness("sine_1k_-20dBFS_48k_f32.wav")
        #expect(abs(sine.integratedLUFS! - -23.0103) < 0.02)
        #expect(sine.loudnessRangeLU < 0.1)
        #expect(abs(sine.truePeakDBTP! - -20) < 0.05)
        #expect(sine.channelLayout == "mono")
        let silence = try loudness("silence_16k.wav")
        #expect(silence.integratedLUFS == nil && silence.truePeakDBTP == -.infinity && silence.loudnessRangeLU == 0)
        #expect(try loudness("music_piano_bass_drums_44k1.flac").channelLayout == "stereo")
        // Hard-clipped speech: true peak at or above 0 dBTP (inter-sample overs).
        #expect(try loudness("speech_clipped_16k.wav").truePeakDBTP! >= 0)
    }

    @Test("analytic expectations for the synthetic files")
    func analytic() throws {
        let scorer = try FileScorer()
        func levels(_ name: String) throws -> FileScore.Levels {
            try #require(scorer.score(path: testAudio.appendingPathComponent(name).path).levels)
        }
        // A −1 dBFS sine: RMS −1 − 3.0103, AES17 −1.
        let sine = try levels("sine_1k_-1dBFS_48k_f32.wav")
        #expect(abs(sine.rmsDBFS! - (-1 - 3.0103)) < 0.001)
        #expect(abs(sine.rmsDBFSAES17! - -1) < 0.001)
        #expect(abs(sine.peakDBFS! - -1) < 0.001)
        // A −6 dBFS square (±16423/32768 in PCM16): RMS = peak, −6.00 dBFS to within one LSB.
        let square = try levels("square_250_-6dBFS_16k.wav")
        #expect(abs(square.rmsDBFS! - square.peakDBFS!) < 1e-4)  // Float32 lane sums: ~1e-6 relative
        #expect(abs(square.peakDBFS! - -6) < 0.001)
        // Digital silence: −∞, written as null.
        let silence = try levels("silence_16k.wav")
        #expect(silence.rmsDBFS == nil && silence.peakDBFS == nil && silence.loudestFrameRMSDBFS == nil)
        // The clipped file has samples at full scale (−32768 reads as −1.0 exactly).
        #expect(try levels("speech_clipped_16k.wav").clippedSamples > 1000)
        #expect(try levels("speech_en-us_16k.wav").clippedSamples == 0)
        // DC offset file: +0.25.
        #expect(abs(try levels("dc_offset_440_48k_s24.wav").dcOffset - 0.25) < 1e-4)
    }

    @Test("--analyses names: true_peak implies loudness, environment implies speech, unknown names fail")
    func analysesNames() throws {
        #expect(FileScorer.Analyses(names: "true_peak") == [.truePeak, .loudness])
        #expect(FileScorer.Analyses(names: "environment") == [.environment, .speech])
        #expect(FileScorer.Analyses(names: "levels, Loudness") == [.levels, .loudness])
        #expect(FileScorer.Analyses(names: "all") == .all)
        #expect(FileScorer.Analyses.all.contains(.truePeak))
        #expect(FileScorer.Analyses(names: "levels,truepeak") == nil)
    }

    @Test("without true_peak the loudness record is the same but true_peak_dbtp is null")
    func truePeakIsSeparable() throws {
        let with = try FileScorer(configuration: .init(analyses: [.loudness, .truePeak]))
        let without = try FileScorer(configuration: .init(analyses: [.loudness]))
        var checked = 0
        for file in testAudioFiles() {
            let a = with.score(path: file), b = without.score(path: file)
            guard let la = a.loudness else { #expect(b.loudness == nil, "\(file)"); continue }
            let lb = try #require(b.loudness, "\(file)")
            #expect(lb.truePeakDBTP == nil, "\(file)")
            #expect(la.truePeakDBTP != nil || la.integratedLUFS == nil, "\(file)")
            var stripped = la
            stripped.truePeakDBTP = nil
            #expect(stripped == lb, "\(file)")
            #expect(a.provenance.analyses == "loudness,true_peak" && b.provenance.analyses == "loudness")
            checked += 1
        }
        #expect(checked > 5)
    }

    @Test("records are identical whatever the read block size")
    func blockSizeInvariance() throws {
        let small = try FileScorer(configuration: .init(blockFrames: 256))
        let large = try FileScorer(configuration: .init(blockFrames: 1 << 20))
        for file in testAudioFiles() {
            #expect(small.score(path: file) == large.score(path: file), "\(file)")
        }
    }

    @Test("regression golden: JSON Lines records within 1e-6 dB (RECORD_GOLDEN=1 rewrites and fails)")
    func regressionGolden() throws {
        let scorer = try FileScorer()
        let records = testAudioFiles().map { path -> FileScore in
            var score = scorer.score(path: path)
            score.audioFilepath = "TestAudio/" + (path as NSString).lastPathComponent
            return score
        }
        let url = goldens.appendingPathComponent("testaudio-levels.jsonl")
        if ProcessInfo.processInfo.environment["RECORD_GOLDEN"] == "1" {
            // The golden holds what this test compares (levels, loudness, the file's shape):
            // detection and environment have their own goldens (detection-testaudio.json).
            let compared = records.map { record -> FileScore in
                var record = record
                record.detection = nil
                record.environment = nil
                return record
            }
            try (compared.map(ScoreFormatting.jsonLine).joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
            Issue.record("RECORD_GOLDEN=1: rewrote \(url.lastPathComponent); review the diff, commit it with the reason, rerun without RECORD_GOLDEN")
            return
        }
        let decoder = JSONDecoder()
        let golden = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
            try decoder.decode(FileScore.self, from: Data($0.utf8))
        }
        #expect(golden.count == records.count)
        for (expected, actual) in zip(golden, records) {
            #expect(expected.audioFilepath == actual.audioFilepath)
            #expect(expected.frames == actual.frames && expected.sampleRate == actual.sampleRate && expected.channels == actual.channels)
            #expect(expected.format == actual.format && expected.status == actual.status)
            guard let e = expected.levels, let a = actual.levels else {
                #expect(expected.levels == actual.levels, "\(actual.audioFilepath)")
                continue
            }
            #expect(e.clippedSamples == a.clippedSamples && e.nonFiniteSamples == a.nonFiniteSamples, "\(actual.audioFilepath)")
            let pairs: [(Double?, Double?, String)] = [
                (e.rmsDBFS, a.rmsDBFS, "rms"), (e.peakDBFS, a.peakDBFS, "peak"),
                (e.loudestFrameRMSDBFS, a.loudestFrameRMSDBFS, "loudest"), (e.quietestFrameRMSDBFS, a.quietestFrameRMSDBFS, "quietest"),
            ]
            for (x, y, name) in pairs {
                if let x, let y {
                    #expect(abs(x - y) <= Self.regressionToleranceDB, "\(actual.audioFilepath) \(name): golden \(x), now \(y)")
                } else {
                    #expect(x == nil && y == nil, "\(actual.audioFilepath) \(name)")
                }
            }
            #expect(abs(e.dcOffset - a.dcOffset) <= 1e-9, "\(actual.audioFilepath) dc")
            // Loudness: the same tier (deterministic code on the same samples).
            #expect((expected.loudness == nil) == (actual.loudness == nil), "\(actual.audioFilepath) loudness")
            if let el = expected.loudness, let al = actual.loudness {
                let loudnessPairs: [(Double?, Double?, String)] = [
                    (el.integratedLUFS, al.integratedLUFS, "integrated"), (el.loudnessRangeLU, al.loudnessRangeLU, "LRA"),
                    (el.truePeakDBTP, al.truePeakDBTP, "true peak"), (el.maxMomentaryLUFS, al.maxMomentaryLUFS, "max M"),
                    (el.maxShortTermLUFS, al.maxShortTermLUFS, "max S"),
                ]
                for (x, y, name) in loudnessPairs {
                    if let x, let y {
                        #expect(x == y || abs(x - y) <= Self.regressionToleranceDB, "\(actual.audioFilepath) \(name): golden \(x), now \(y)")
                    } else {
                        #expect(x == nil && y == nil, "\(actual.audioFilepath) \(name)")
                    }
                }
                #expect(el.channelLayout == al.channelLayout)
            }
        }
    }
}

@Suite("FileScorer on bad input")
struct FileScorerErrorTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "dspscore-tests")
    }

    @Test("missing, empty, corrupt, text and truncated files get error records with kinds")
    func errorRecords() throws {
        let empty = directory.url("empty.wav")
        #expect(FileManager.default.createFile(atPath: empty.path, contents: Data()))
        let corrupt = directory.url("corrupt.wav")
        var bytes = [UInt8](repeating: 0, count: 4096)
        var state: UInt32 = 7
        for i in bytes.indices { state = state &* 1_103_515_245 &+ 12345; bytes[i] = UInt8(truncatingIfNeeded: state >> 16) }
        #expect(FileManager.default.createFile(atPath: corrupt.path, contents: Data(bytes)))
        let text = directory.url("notes.txt")
        try "hello".write(to: text, atomically: true, encoding: .utf8)
        let truncated = directory.url("truncated.wav")
        let whole = try Data(contentsOf: testAudio.appendingPathComponent("speech_en-us_16k.wav"))
        try whole.prefix(whole.count / 2).write(to: truncated)

        let scorer = try FileScorer()
        let cases: [(URL, String)] = [
            (directory.url("missing.wav"), "not_found"), (empty, "empty"),
            (corrupt, "corrupt"), (text, "unsupported_format"), (truncated, "truncated"),
        ]
        for (url, kind) in cases {
            let score = scorer.score(path: url.path)
            #expect(score.status == .error && score.levels == nil, "\(url.lastPathComponent)")
            #expect(score.error?.kind == kind, "\(url.lastPathComponent): \(String(describing: score.error))")
            #expect(score.error?.message.contains(url.lastPathComponent) == true)
            let json = ScoreFormatting.jsonLine(score)
            #expect(json.contains("\"status\":\"error\"") && json.contains("\"kind\":\"\(kind)\""))
        }
        // The scorer still works after failures.
        #expect(scorer.score(path: testAudio.appendingPathComponent("silence_16k.wav").path).status == .ok)
    }

    @Test("JSON writes null for −∞ levels and keeps every key")
    func jsonNulls() throws {
        let score = try FileScorer().score(path: testAudio.appendingPathComponent("silence_16k.wav").path)
        let json = ScoreFormatting.jsonLine(score)
        #expect(json.contains("\"rms_dbfs\":null") && json.contains("\"peak_dbfs\":null"))
        #expect(json.contains("\"audio_filepath\":") && json.contains("\"duration\":1") && json.contains("\"sample_rate\":16000"))
        #expect(!json.contains("\n"))
    }

    @Test("directories expand recursively by extension, sorted; files pass through")
    func discovery() throws {
        let nested = directory.url("a/b")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        for name in ["z.wav", "a/y.FLAC", "a/b/x.ogg", "a/b/readme.md"] {
            #expect(FileManager.default.createFile(atPath: directory.path(name), contents: Data([1])))
        }
        let found = AudioFileDiscovery.expand([directory.path, "/nonexistent/file.wav"])
        #expect(found.map { ($0 as NSString).lastPathComponent } == ["x.ogg", "y.FLAC", "z.wav", "file.wav"])  // a/b/x < a/y < z
    }
}

@Suite("FileScorer.Configuration.validate")
struct FileScorerValidationTests {
    @Test("validate refuses exactly what the initializer refuses, with the same error", arguments: [
        FileScorer.Configuration(frameLength: 0), .init(frameLength: 65_537), .init(blockFrames: 255), .init(blockFrames: (1 << 20) + 1),
        .init(clipThreshold: 0), .init(clipThreshold: .nan), .init(clipThreshold: -1), .init(frameLength: 0, clipThreshold: 0),
        .init(), .init(frameLength: 1, blockFrames: 256), .init(frameLength: 65_536, clipThreshold: 0.5, blockFrames: 1 << 20),
    ])
    func sameAsInit(_ configuration: FileScorer.Configuration) {
        var fromValidate: String?
        var fromInit: String?
        do { try configuration.validate() } catch { fromValidate = error.description }
        do { _ = try FileScorer(configuration: configuration) } catch { fromInit = error.description }
        #expect(fromValidate == fromInit)
    }
}
