import Foundation

/// The state of a scoring run and how `dspscore` shows it on stderr: a progress bar on a
/// terminal, JSON events otherwise, and a summary line at the end.
///
/// Rates: audio seconds per wall second, which is the same number as audio hours per wall hour
/// (and as "× real time").
public struct ScoringProgress: Equatable, Sendable {
    /// Files this run will score (not counting those kept by `--resume`).
    public var filesTotal: Int
    /// Files scored so far (ok or failed).
    public var filesDone = 0
    /// Of those, failed.
    public var filesFailed = 0
    /// Seconds of audio scored so far.
    public var audioSeconds = 0.0
    /// Wall-clock seconds since the run started.
    public var elapsedSeconds = 0.0

    /// Creates the state of a run of `filesTotal` files.
    public init(filesTotal: Int) { self.filesTotal = filesTotal }

    /// Files scored ok.
    public var filesOK: Int { filesDone - filesFailed }

    /// Audio hours per wall hour (= audio seconds per wall second, "× real time"); 0 before any time passed.
    public var audioHoursPerWallHour: Double { elapsedSeconds > 0 ? audioSeconds / elapsedSeconds : 0 }

    /// Seconds left at the mean time per file so far; `nil` before the first file.
    public var etaSeconds: Double? {
        guard filesDone > 0 else { return nil }
        return Double(filesTotal - filesDone) * elapsedSeconds / Double(filesDone)
    }

    /// Records one finished file.
    public mutating func add(audioSeconds seconds: Double, failed: Bool) {
        filesDone += 1
        audioSeconds += seconds
        if failed { filesFailed += 1 }
    }

    /// One terminal line (no carriage return), e.g.
    /// `[##########··········]  50%  120/240 files, 2 failed · 1.25 audio h · 410 audio h/h · ETA 0:12`.
    public func terminalLine(barWidth: Int = 24) -> String {
        let fraction = filesTotal > 0 ? Double(filesDone) / Double(filesTotal) : 1
        let filled = Swift.min(barWidth, Int((fraction * Double(barWidth)).rounded(.down)))
        let bar = "[" + String(repeating: "#", count: filled) + String(repeating: "·", count: barWidth - filled) + "]"
        var line = bar + String(format: " %3d%%  %d/%d files", Int((fraction * 100).rounded(.down)), filesDone, filesTotal)
        if filesFailed > 0 { line += ", \(filesFailed) failed" }
        line += String(format: " · %.2f audio h · %.0f audio h/h", audioSeconds / 3600, audioHoursPerWallHour)
        line += " · ETA " + (etaSeconds.map(Self.clock) ?? "–")
        return line
    }

    /// One JSON progress event (`"event"`: `"progress"` or, when `final`, `"done"`).
    public func jsonEvent(final: Bool) -> String {
        String(
            format: #"{"event":"%@","files_done":%d,"files_total":%d,"files_failed":%d,"audio_hours":%.6f,"elapsed_seconds":%.3f,"real_time_factor":%.1f,"audio_hours_per_wall_hour":%.1f,"eta_seconds":%.1f}"#,
            final ? "done" : "progress", filesDone, filesTotal, filesFailed, audioSeconds / 3600, elapsedSeconds,
            audioHoursPerWallHour, audioHoursPerWallHour, etaSeconds ?? 0)
    }

    /// The end-of-run summary line.
    ///
    /// `kept` is the number of records carried over by `--resume` (not scored again).
    public func summary(kept: Int = 0) -> String {
        var text = "\(filesOK) files ok, \(filesFailed) failed"
        if kept > 0 { text += " (and \(kept) kept from the earlier run)" }
        text += String(
            format: "; %.3f audio hours in %@ wall: %.0f audio hours per wall hour",
            audioSeconds / 3600, Self.clock(elapsedSeconds), audioHoursPerWallHour)
        return text
    }

    /// `m:ss`, or `h:mm:ss` from an hour; tenths below 10 s.
    static func clock(_ seconds: Double) -> String {
        if seconds < 10 { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds.rounded())
        let (h, m, s) = (whole / 3600, whole / 60 % 60, whole % 60)
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }
}
