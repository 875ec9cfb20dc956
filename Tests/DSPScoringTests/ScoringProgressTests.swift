import DSPScoring
import Foundation
import Testing

@Suite("Progress bar, JSON progress events and the end-of-run summary")
struct ScoringProgressTests {
    /// A run over TestAudio plus one missing file, with a chosen elapsed time.
    func run(elapsed: Double, stopAfter: Int? = nil) throws -> (ScoringProgress, [FileScore]) {
        let files = testAudioFiles() + ["/nonexistent/x.wav"]
        let scorer = try FileScorer()
        var progress = ScoringProgress(filesTotal: files.count)
        var records: [FileScore] = []
        for file in files.prefix(stopAfter ?? files.count) {
            let record = scorer.score(path: file)
            records.append(record)
            progress.add(audioSeconds: record.duration, failed: record.status == .error)
        }
        progress.elapsedSeconds = elapsed
        return (progress, records)
    }

    @Test("counts, hours and rate follow the records")
    func totals() throws {
        let (progress, records) = try run(elapsed: 2.5)
        let seconds = records.map(\.duration).reduce(0, +)
        #expect(progress.filesDone == records.count)
        #expect(progress.filesFailed == records.filter { $0.status == .error }.count && progress.filesFailed == 1)
        #expect(progress.filesOK == records.filter { $0.status == .ok }.count)
        #expect(abs(progress.audioSeconds - seconds) < 1e-9)
        #expect(abs(progress.audioHoursPerWallHour - seconds / 2.5) < 1e-9)
        #expect(progress.etaSeconds == 0)

        let summary = progress.summary()
        #expect(summary.hasPrefix("\(progress.filesOK) files ok, 1 failed; "))
        #expect(summary.contains(String(format: "%.3f audio hours in 2.5 s wall", seconds / 3600)))
        #expect(summary.hasSuffix(String(format: "%.0f audio hours per wall hour", seconds / 2.5)))
        #expect(progress.summary(kept: 7).contains("(and 7 kept from the earlier run)"))

        let event = try #require(JSONSerialization.jsonObject(with: Data(progress.jsonEvent(final: true).utf8)) as? [String: Any])
        #expect(event["event"] as? String == "done")
        #expect(event["files_done"] as? Int == records.count && event["files_failed"] as? Int == 1)
        #expect(abs((event["audio_hours"] as? Double ?? -1) - seconds / 3600) < 1e-6)
        #expect(abs((event["audio_hours_per_wall_hour"] as? Double ?? -1) - seconds / 2.5) < 0.051)
    }

    @Test("the bar fills in proportion, the ETA extrapolates the time per file")
    func bar() throws {
        let (progress, _) = try run(elapsed: 12, stopAfter: 5)
        let total = progress.filesTotal
        let line = progress.terminalLine(barWidth: 20)
        let filled = Int((Double(5) / Double(total) * 20).rounded(.down))
        #expect(line.hasPrefix("[" + String(repeating: "#", count: filled) + String(repeating: "·", count: 20 - filled) + "]"))
        #expect(line.contains("\(Int((5.0 / Double(total) * 100).rounded(.down)))%") && line.contains("5/\(total) files"))
        #expect(!line.contains("failed"), "no failure among the first five")
        let eta = Double(total - 5) * 12 / 5
        #expect(progress.etaSeconds == eta)
        #expect(line.hasSuffix("ETA " + (eta < 10 ? String(format: "%.1f s", eta) : String(format: "%d:%02d", Int(eta.rounded()) / 60, Int(eta.rounded()) % 60))))
        let event = try #require(JSONSerialization.jsonObject(with: Data(progress.jsonEvent(final: false).utf8)) as? [String: Any])
        #expect(event["event"] as? String == "progress" && abs((event["eta_seconds"] as? Double ?? -1) - eta) < 0.051)
        // Before any file: empty bar, no ETA.
        let start = ScoringProgress(filesTotal: 10)
        #expect(start.terminalLine(barWidth: 4).hasPrefix("[····]   0%  0/10 files") && start.etaSeconds == nil)
    }
}
