import DSPIO
@testable import DSPScoring
import Foundation
import TestSupport
import Testing

/// The cells of a table row: split on runs of two or more spaces would merge cells, so the
/// columns are cut at the header's widths.
private func cells(_ row: String) -> [String] {
    // file 40, dur 11, LUFS 8, dBTP 8, speech 9, music 9, "  " + noise 11, clipped 9, then status.
    let widths = [40, 11, 8, 8, 9, 9, 13, 9]
    var rest = Substring(row)
    var out: [String] = []
    for width in widths {
        out.append(rest.prefix(width).trimmingCharacters(in: .whitespaces))
        rest = rest.dropFirst(width)
    }
    out.append(rest.trimmingCharacters(in: .whitespaces))
    return out
}

@Suite("dspscore's table: what matters per file, and totals")
struct ScoreTableTests {
    /// An ok record with every analysis, values chosen by hand.
    static func record(path: String = "a.wav", duration: Double = 10, speech: Double = 0.5, music: Double? = 0.25) -> FileScore {
        var score = FileScore()
        score.audioFilepath = path
        score.duration = duration
        score.sampleRate = 16_000
        score.channels = 1
        score.levels = FileScore.Levels(rmsDBFS: -20, peakDBFS: -1, clippedSamples: 7)
        score.loudness = FileScore.Loudness(integratedLUFS: -19.27, truePeakDBTP: -0.96, channelLayout: "mono")
        score.detection = FileScore.Detection(speechRatio: speech, musicRatio: music)
        score.environment = FileScore.Environment(noiseCategory: "quiet")
        return score
    }

    @Test("the header names the columns")
    func header() {
        #expect(cells(ScoreFormatting.tableHeader) == ["file", "dur s", "LUFS", "dBTP", "speech %", "music %", "noise", "clipped", "status"])
        #expect(ScoreFormatting.tableRule.count == ScoreFormatting.tableHeader.count)
    }

    @Test("an ok row: duration, LUFS, dBTP, speech %, music %, noise category, clipped, ok")
    func okRow() {
        let row = cells(ScoreFormatting.tableRow(Self.record()))
        #expect(row == ["a.wav", "10.000", "-19.3", "-1.0", "50.0", "25.0", "quiet", "7", "ok"])
    }

    @Test("values not measured are —, silence is -inf, never 0")
    func absences() {
        var score = Self.record()
        score.loudness = nil
        score.detection = nil
        score.environment = nil
        score.notMeasured = FileScore.NotMeasured(loudness: "too_short", detection: "too_short", environment: "too_short")
        let row = cells(ScoreFormatting.tableRow(score))
        #expect(row[2...6] == ["—", "—", "—", "—", "—"])
        #expect(row[8] == "ok; not measured: loudness too_short, detection too_short, environment too_short")

        var silent = Self.record()
        silent.loudness = FileScore.Loudness(integratedLUFS: nil, truePeakDBTP: -.infinity, channelLayout: "mono")
        silent.detection = FileScore.Detection(speechRatio: 0, musicRatio: nil)
        let silentRow = cells(ScoreFormatting.tableRow(silent))
        #expect(silentRow[2...5] == ["-inf", "-inf", "0.0", "—"])

        var noTruePeak = Self.record()
        noTruePeak.loudness?.truePeakDBTP = nil
        #expect(cells(ScoreFormatting.tableRow(noTruePeak))[3] == "—")
    }

    @Test("an error row: the path once, every measure —, the error kind and message")
    func errorRow() {
        var score = FileScore()
        score.audioFilepath = "corpus/missing.wav"
        score.status = .error
        score.error = .init(kind: "not_found", message: "corpus/missing.wav: No such file or directory")
        let line = ScoreFormatting.tableRow(score)
        #expect(line.components(separatedBy: "corpus/missing.wav").count == 2, "the path once: \(line)")
        #expect(!line.contains("0.000"))
        let row = cells(line)
        #expect(row[1...7] == ["—", "—", "—", "—", "—", "—", "—"])
        #expect(row[8] == "error: not_found: No such file or directory")
    }

    @Test("a long path keeps its end")
    func longPath() {
        let path = "/data/" + String(repeating: "x", count: 60) + "/file.wav"
        let first = cells(ScoreFormatting.tableRow(Self.record(path: path)))[0]
        #expect(first.hasPrefix("…") && first.hasSuffix("/file.wav") && first.count == 39)
    }

    @Test("totals: files, ok and error counts, duration, duration-weighted speech and music")
    func totals() {
        var totals = ScoreFormatting.TableTotals()
        totals.add(Self.record(duration: 30, speech: 0.9, music: 0))
        totals.add(Self.record(duration: 10, speech: 0.1, music: 1))
        var noDetection = Self.record(duration: 60)
        noDetection.detection = nil
        totals.add(noDetection)
        var failed = FileScore()
        failed.status = .error
        failed.error = .init(kind: "corrupt", message: "x")
        totals.add(failed)
        #expect(totals.files == 4 && totals.ok == 3 && totals.failed == 1)
        #expect(totals.durationSeconds == 100)
        // (0.9 × 30 + 0.1 × 10) / 40 = 0.7; music (0 × 30 + 1 × 10) / 40 = 0.25: the file
        // without detection is not counted as 0 % speech.
        #expect(abs((totals.speechRatio ?? 0) - 0.7) < 1e-12)
        #expect(abs((totals.musicRatio ?? 0) - 0.25) < 1e-12)
        let row = cells(ScoreFormatting.tableTotalsRow(totals))
        #expect(row == ["total: 4 files", "100.000", "", "", "70.0", "25.0", "", "21", "3 ok, 1 error; 0:01:40 of audio"])

        let none = cells(ScoreFormatting.tableTotalsRow(ScoreFormatting.TableTotals()))
        #expect(none[4] == "—" && none[5] == "—" && none[8].hasPrefix("0 ok, 0 error"))
    }

    @Test("rows of real files: a short file's loudness is —, a missing file an error row")
    func realFiles() throws {
        let directory = try TemporaryDirectory(prefix: "table")
        let short = directory.path("short.wav")
        let writer = try AudioFileWriter(path: short, format: .wavPCM16, sampleRate: 16_000, channelCount: 1)
        try testSignal(count: 3200).withUnsafeBufferPointer { try writer.write($0) }  // 0.2 s: no 400 ms block
        try writer.close()
        let scorer = try FileScorer()
        let shortRow = cells(ScoreFormatting.tableRow(scorer.score(path: short)))
        #expect(shortRow[1] == "0.200")
        #expect(shortRow[2] == "—" && shortRow[3] == "—")
        #expect(shortRow[8].hasPrefix("ok; not measured: loudness too_short"))

        let speech = cells(ScoreFormatting.tableRow(scorer.score(path: TestAudio.path("speech_2ch_en-us_de_44k1.flac"))))
        #expect(speech[1] == "6.503")
        #expect(Double(speech[2]).map { (-20 ... -18).contains($0) } == true, "LUFS \(speech[2])")
        #expect(Double(speech[4]).map { $0 > 50 } == true, "speech % \(speech[4])")
        #expect(speech[8] == "ok")

        let missing = cells(ScoreFormatting.tableRow(scorer.score(path: directory.path("missing.wav"))))
        #expect(missing[1] == "—")
        #expect(missing[8].hasPrefix("error: not_found"))
    }
}
