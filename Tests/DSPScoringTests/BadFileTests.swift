import DSPScoring
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Little-endian RIFF/WAVE bytes with any header values, including absurd ones.
enum HostileWAV {
    static func le16(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian, Array.init) }
    static func le32(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian, Array.init) }

    /// A WAV file: `fmt ` (PCM tag 1 unless `formatTag`) then `data` holding `payload`.
    /// `dataSize`, `riffSize` and `blockAlign` default to the consistent values.
    static func file(
        channels: Int, sampleRate: Int, bitsPerSample: Int = 16, formatTag: Int = 1, payload: [UInt8],
        dataSize: Int? = nil, riffSize: Int? = nil, blockAlign: Int? = nil, fmtSize: Int = 16
    ) -> Data {
        let align = blockAlign ?? channels * bitsPerSample / 8
        var fmt = le16(formatTag) + le16(channels) + le32(sampleRate) + le32(sampleRate &* align) + le16(align) + le16(bitsPerSample)
        if fmtSize > 16 && fmtSize < 64 { fmt += [UInt8](repeating: 0, count: fmtSize - 16) }
        var body: [UInt8] = Array("WAVE".utf8) + Array("fmt ".utf8) + le32(fmtSize) + fmt
        body += Array("data".utf8) + le32(dataSize ?? payload.count) + payload
        return Data(Array("RIFF".utf8) + le32(riffSize ?? body.count) + body)
    }

    /// `frames × channels` 16-bit samples of a quiet ramp (never silent, never clipped).
    static func pcm16(frames: Int, channels: Int = 1) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frames * channels * 2)
        for index in 0..<(frames * channels) { bytes += le16(((index % 200) - 100) * 30) }
        return bytes
    }
}

/// Peak resident set size of this process, bytes (`getrusage`, `ru_maxrss` in KiB on Linux).
func peakResidentBytes() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Int(usage.ru_maxrss) * 1024
}

@Suite("Bad files: every kind gets an error record, nothing crashes, hangs or balloons")
struct BadFileTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "dspscore-badfiles")
    }

    @Test("short files are scored with what can be measured: levels from one sample on, loudness from 400 ms, detection from 64 ms; no audio is empty")
    func shortFiles() throws {
        let scorer = try FileScorer()
        #expect(scorer.minimumFrames(sampleRate: 16_000) == 1024 && scorer.minimumFrames(sampleRate: 48_000) == 3072)
        #expect(scorer.minimumFrames(sampleRate: 8_000) == 512 && scorer.minimumFrames(sampleRate: 44_100) == 2823)
        #expect(scorer.minimumLoudnessFrames(sampleRate: 16_000) == 6400 && scorer.minimumLoudnessFrames(sampleRate: 44_100) == 17_640)
        for rate in [8_000, 16_000, 44_100, 48_000] {
            let detection = scorer.minimumFrames(sampleRate: rate)
            let loudness = scorer.minimumLoudnessFrames(sampleRate: rate)
            for frames in [1, 2, detection - 1, detection, loudness - 1, loudness] {
                let path = try directory.write("short_\(rate)_\(frames).wav", bytes: HostileWAV.file(channels: 1, sampleRate: rate, payload: HostileWAV.pcm16(frames: frames)))
                let record = scorer.score(path: path)
                #expect(record.status == .ok && record.frames == frames, "\(path): \(String(describing: record.error))")
                #expect(record.duration == Double(frames) / Double(rate))
                // Levels over the real samples: the ramp's first sample is -100 * 30 = -3000.
                let levels = try #require(record.levels, "\(path)")
                if frames == 1 {
                    let expected = 20 * log10(3000.0 / 32768)
                    #expect(abs(levels.peakDBFS! - expected) < 1e-9 && abs(levels.rmsDBFS! - expected) < 1e-9)
                    #expect(levels.loudestFrameRMSDBFS == levels.rmsDBFS && levels.quietestFrameRMSDBFS == levels.rmsDBFS)
                }
                #expect((record.loudness == nil) == (frames < loudness), "\(path)")
                #expect((record.notMeasured?.loudness == "too_short") == (frames < loudness), "\(path)")
                #expect((record.detection == nil) == (frames < detection), "\(path)")
                #expect((record.notMeasured?.detection == "too_short") == (frames < detection), "\(path)")
                if record.environment == nil { #expect(record.notMeasured?.environment == "too_short", "\(path)") }
                let line = ScoreFormatting.jsonLine(record)
                #expect(line.contains("\"not_measured\":") == (frames < loudness), "\(line)")
            }
        }
        // Levels only: a one-sample file is simply scored.
        let levelsOnly = try FileScorer(configuration: .init(frameLength: 2048, analyses: .levels))
        let file = try directory.write("one.wav", bytes: HostileWAV.file(channels: 1, sampleRate: 16_000, payload: HostileWAV.pcm16(frames: 1)))
        let one = levelsOnly.score(path: file)
        #expect(one.status == .ok && one.notMeasured == nil && one.levels != nil)
        // Loudness alone on a file too short for it: nothing asked for can be measured.
        let loudnessOnly = try FileScorer(configuration: .init(analyses: .loudness))
        let unsupported = loudnessOnly.score(path: file)
        #expect(unsupported.status == .error && unsupported.error?.kind == "unsupported", "\(String(describing: unsupported.error))")
        #expect(unsupported.error?.message.contains("loudness: too_short") == true)
        // A valid header with no audio.
        let none = try directory.write("noaudio.wav", bytes: HostileWAV.file(channels: 1, sampleRate: 16_000, payload: []))
        let record = scorer.score(path: none)
        #expect(record.error?.kind == "empty" && record.error?.message.contains("0 frames") == true, "\(String(describing: record.error))")
    }

    @Test("unreadable: permission denied, even when the tests run as root")
    func permissionDenied() throws {
        let path = try directory.write("locked.wav", bytes: Data(contentsOf: testAudio.appendingPathComponent("speech_en-us_16k.wav")))
        #expect(chmod(path, 0) == 0)
        defer { chmod(path, 0o644) }
        // Root bypasses file modes. Linux keeps a per-thread file-system uid (setfsuid(2)): with it
        // set to nobody on this thread, open() checks the mode as nobody would, and root's
        // CAP_DAC_OVERRIDE is dropped from the effective set until the fsuid is back to 0. Only
        // this thread changes, and the test body does not suspend, so nothing else runs as
        // nobody. setfsuid is looked up at run time (Glibc's module does not export it).
        var restore: (() -> Void)?
        if geteuid() == 0 {
            let handle = dlopen(nil, RTLD_NOW)
            let symbol = try #require(dlsym(handle, "setfsuid"), "setfsuid not found")
            typealias SetFSUID = @convention(c) (UInt32) -> Int32
            let setfsuid = unsafeBitCast(symbol, to: SetFSUID.self)
            _ = setfsuid(65_534)
            #expect(setfsuid(UInt32.max) == 65_534, "the file-system uid did not change")  // -1 queries
            restore = { _ = setfsuid(0) }
        }
        let record = try FileScorer().score(path: path)
        restore?()
        #expect(record.status == .error && record.error?.kind == "permission_denied", "\(String(describing: record.error))")
        #expect(record.error?.message.contains("locked.wav") == true)
        // Restored: the same file opens again once readable.
        chmod(path, 0o644)
        #expect(try FileScorer().score(path: path).status == .ok)
    }

    @Test("unreadable: a FIFO, a character device and a directory are refused at once, not waited on")
    func notRegularFiles() throws {
        let fifo = directory.path("pipe.wav")
        #expect(mkfifo(fifo, 0o644) == 0)
        // If the scorer did open the FIFO it would block until a writer came: this writer comes
        // after 5 s so that a regression fails (too slow, wrong kind) instead of hanging the run.
        let rescue = Thread {
            Thread.sleep(forTimeInterval: 5)
            let descriptor = open(fifo, O_WRONLY | O_NONBLOCK)
            if descriptor >= 0 { close(descriptor) }
        }
        rescue.start()
        let scorer = try FileScorer()
        let start = Date()
        let record = scorer.score(path: fifo)
        #expect(Date().timeIntervalSince(start) < 2, "scoring a FIFO waited for a writer")
        #expect(record.error?.kind == "not_regular_file" && record.error?.message.contains("FIFO") == true, "\(String(describing: record.error))")
        #expect(scorer.score(path: "/dev/zero").error?.kind == "not_regular_file")
        #expect(scorer.score(path: directory.path).error?.kind == "is_directory")
    }

    @Test("hostile WAV headers: absurd channel counts, rates, sizes and sample widths")
    func hostileHeaders() throws {
        let scorer = try FileScorer()
        let small = HostileWAV.pcm16(frames: 2000)
        struct Case { var name: String; var data: Data; var kind: String? }  // kind nil: scored ok
        let cases: [Case] = [
            Case(name: "channels65535", data: HostileWAV.file(channels: 65_535, sampleRate: 16_000, payload: small), kind: "corrupt"),
            Case(name: "channels0", data: HostileWAV.file(channels: 0, sampleRate: 16_000, payload: small, blockAlign: 2), kind: "corrupt"),
            Case(name: "channels1024", data: HostileWAV.file(channels: 1024, sampleRate: 16_000, payload: HostileWAV.pcm16(frames: 2000, channels: 1024)), kind: "unsupported"),
            Case(name: "rate0", data: HostileWAV.file(channels: 1, sampleRate: 0, payload: small), kind: "corrupt"),
            Case(name: "rateMax", data: HostileWAV.file(channels: 1, sampleRate: 0xFFFF_FFFF, payload: small), kind: "corrupt"),
            Case(name: "rate2G", data: HostileWAV.file(channels: 1, sampleRate: 2_000_000_000, payload: small), kind: "corrupt"),
            // 1 Hz is a legal rate: 2000 frames are 2000 s (no loudness below 8 kHz).
            Case(name: "rate1", data: HostileWAV.file(channels: 1, sampleRate: 1, payload: small), kind: nil),
            Case(name: "bits0", data: HostileWAV.file(channels: 1, sampleRate: 16_000, bitsPerSample: 0, payload: small), kind: "corrupt"),
            Case(name: "bits255", data: HostileWAV.file(channels: 1, sampleRate: 16_000, bitsPerSample: 255, payload: small), kind: "corrupt"),
            Case(name: "formatTag", data: HostileWAV.file(channels: 1, sampleRate: 16_000, formatTag: 0x7777, payload: small), kind: "corrupt"),
            // A data size of ~4 GiB over 4 kB of audio: truncated, found at open, nothing allocated for it.
            Case(name: "dataHuge", data: HostileWAV.file(channels: 1, sampleRate: 16_000, payload: small, dataSize: 0xFFFF_FFF0), kind: "truncated"),
            // The streaming-writer placeholder: read what is there.
            Case(name: "dataPlaceholder", data: HostileWAV.file(channels: 1, sampleRate: 16_000, payload: small, dataSize: 0xFFFF_FFFF), kind: nil),
            Case(name: "riffHuge", data: HostileWAV.file(channels: 1, sampleRate: 16_000, payload: small, riffSize: 0xFFFF_FFF0), kind: nil),
            // 64 channels (the analyzers' limit) at 1 MHz with a placeholder size: bounded work and memory.
            Case(
                name: "ch64_1MHz", data: HostileWAV.file(channels: 64, sampleRate: 1_000_000, payload: HostileWAV.pcm16(frames: 70_000, channels: 64), dataSize: 0xFFFF_FFFF),
                kind: nil),
            // libsndfile recomputes a zero block align from channels × bits.
            Case(name: "blockAlign0", data: HostileWAV.file(channels: 2, sampleRate: 16_000, payload: HostileWAV.pcm16(frames: 2000, channels: 2), blockAlign: 0), kind: nil),
            Case(name: "fmtHuge", data: HostileWAV.file(channels: 1, sampleRate: 16_000, payload: small, fmtSize: 0x7FFF_FFF0), kind: "corrupt"),
            Case(name: "headerOnly", data: HostileWAV.file(channels: 1, sampleRate: 16_000, payload: []).prefix(30), kind: "truncated"),
        ]
        let before = peakResidentBytes()
        for testCase in cases {
            let path = try directory.write(testCase.name + ".wav", bytes: testCase.data)
            let start = Date()
            let record = scorer.score(path: path)
            #expect(Date().timeIntervalSince(start) < 20, "\(testCase.name) took too long")
            if let kind = testCase.kind {
                #expect(record.status == .error && record.error?.kind == kind, "\(testCase.name): \(String(describing: record.error))")
                #expect(record.error?.message.contains(testCase.name) == true)
            } else {
                #expect(record.status == .ok, "\(testCase.name): \(String(describing: record.error))")
            }
            #expect(!ScoreFormatting.jsonLine(record).isEmpty)
        }
        // Nothing above allocated anything like the sizes the headers declare (GiBs); the scorer's
        // own worst case is one read block of 64 channels × 65 536 frames × 4 bytes = 16 MiB.
        let grown = peakResidentBytes() - before
        #expect(grown < 256 << 20, "peak RSS grew by \(grown >> 20) MiB")
        #expect(peakResidentBytes() < 2 << 30)
        // The scorer still works.
        #expect(scorer.score(path: testAudio.appendingPathComponent("silence_16k.wav").path).status == .ok)
    }
}
