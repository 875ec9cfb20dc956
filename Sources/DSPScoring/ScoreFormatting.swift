import Foundation

/// Renders ``FileScore`` records as JSON Lines or as a table for a terminal.
public enum ScoreFormatting {
    /// One JSON object per line, keys sorted, no trailing spaces; −∞ levels are `null`.
    /// The same bytes as `JSONEncoder` with `[.sortedKeys, .withoutEscapingSlashes]` would
    /// write (tested on records of every shape), written directly: the encoder's set-up per
    /// record cost more than the JSON itself on short files.
    public static func jsonLine(_ score: FileScore) -> String {
        encodeJSON(score)
    }

    /// The table's header line: file, duration (s), integrated loudness (LUFS), true peak
    /// (dBTP), speech and music (% of the duration), noise category, clipped samples, status.
    public static let tableHeader =
        pad("file", Table.file) + pad("dur s", Table.duration, right: true) + pad("LUFS", Table.level, right: true)
        + pad("dBTP", Table.level, right: true) + pad("speech %", Table.percent, right: true)
        + pad("music %", Table.percent, right: true) + "  " + pad("noise", Table.noise)
        + pad("clipped", Table.clipped, right: true) + "  status"

    /// The line between the rows and the totals row.
    public static let tableRule = String(repeating: "-", count: tableHeader.count)

    /// Column widths (characters).
    enum Table {
        static let file = 40, duration = 11, level = 8, percent = 9, noise = 11, clipped = 9
    }

    /// What the table shows where a record has no value.
    ///
    /// `—` (an em dash): not measured — the analysis was not asked for, could not be done
    /// (`not_measured`, e.g. loudness of a file under 400 ms) or the file failed. `-inf`: a
    /// level that is −∞ (digital silence; integrated loudness with every block under the
    /// −70 LUFS gate), `null` in JSON. Never 0.
    public static let notMeasured = "—"

    /// One table row.
    ///
    /// An `ok` row gives the duration, `integrated_lufs`, `true_peak_dbtp`, `speech_ratio` and
    /// `music_ratio` as percentages, `noise_category` and `clipped_samples`, each
    /// ``notMeasured`` when absent and `-inf` when −∞; its status names the analyses in
    /// `not_measured` with their reasons. An `error` row leaves every measure ``notMeasured``
    /// and gives the error kind and message (without the path, which is in the first column).
    public static func tableRow(_ score: FileScore) -> String {
        var row = pad(shortened(score.audioFilepath), Table.file)
        guard score.status == .ok else {
            for width in [Table.duration, Table.level, Table.level, Table.percent, Table.percent] {
                row += pad(notMeasured, width, right: true)
            }
            row += "  " + pad(notMeasured, Table.noise) + pad(notMeasured, Table.clipped, right: true)
            return row + "  error: " + errorText(score)
        }
        func level(_ value: Double?, present: Bool) -> String {
            guard present else { return notMeasured }
            return value.map { String(format: "%.1f", $0) } ?? "-inf"
        }
        func percent(_ ratio: Double?) -> String { ratio.map { String(format: "%.1f", $0 * 100) } ?? notMeasured }
        let loudness = score.loudness
        // truePeakDBTP holds −∞ for silence and is nil only when the true_peak analysis was off.
        let truePeak = loudness?.truePeakDBTP.map { $0 == -.infinity ? "-inf" : String(format: "%.1f", $0) } ?? notMeasured
        row += pad(String(format: "%.3f", score.duration), Table.duration, right: true)
            + pad(level(loudness?.integratedLUFS, present: loudness != nil), Table.level, right: true)
            + pad(truePeak, Table.level, right: true)
            + pad(percent(score.detection?.speechRatio), Table.percent, right: true)
            + pad(percent(score.detection?.musicRatio), Table.percent, right: true)
            + "  " + pad(score.environment?.noiseCategory ?? notMeasured, Table.noise)
            + pad(score.levels.map { String($0.clippedSamples) } ?? notMeasured, Table.clipped, right: true)
            + "  ok"
        if let missing = score.notMeasured, !missing.isEmpty {
            let reasons = [("levels", missing.levels), ("loudness", missing.loudness), ("detection", missing.detection),
                           ("environment", missing.environment)]
                .compactMap { name, reason in reason.map { "\(name) \($0)" } }
            row += "; not measured: " + reasons.joined(separator: ", ")
        }
        return row
    }

    /// What a table's totals row adds up: files, ok and failed, audio duration, and speech and
    /// music time over the files where they were measured.
    public struct TableTotals: Equatable, Sendable {
        /// Records added.
        public private(set) var files = 0
        /// Of those, `ok`.
        public private(set) var ok = 0
        /// Of those, `error`.
        public private(set) var failed = 0
        /// Σ duration of the `ok` records, seconds.
        public private(set) var durationSeconds = 0.0
        /// Σ clipped samples of the records with levels.
        public private(set) var clippedSamples = 0
        /// Σ speech_ratio × duration and Σ duration over the records with detection.
        var speechSeconds = 0.0, speechBaseSeconds = 0.0
        /// Σ music_ratio × duration and Σ duration over the records with music detection.
        var musicSeconds = 0.0, musicBaseSeconds = 0.0

        /// Empty totals.
        public init() {}

        /// Counts one record.
        public mutating func add(_ score: FileScore) {
            files += 1
            guard score.status == .ok else {
                failed += 1
                return
            }
            ok += 1
            durationSeconds += score.duration
            if let levels = score.levels { clippedSamples += levels.clippedSamples }
            if let detection = score.detection {
                speechSeconds += detection.speechRatio * score.duration
                speechBaseSeconds += score.duration
                if let music = detection.musicRatio {
                    musicSeconds += music * score.duration
                    musicBaseSeconds += score.duration
                }
            }
        }

        /// Speech time over the duration of the files where speech was detected, 0…1 (weighted
        /// by duration: a long file counts for more); nil when no file had detection.
        public var speechRatio: Double? { speechBaseSeconds > 0 ? speechSeconds / speechBaseSeconds : nil }
        /// Music time over the duration of the files where music was detected, 0…1; nil when
        /// no file had music detection.
        public var musicRatio: Double? { musicBaseSeconds > 0 ? musicSeconds / musicBaseSeconds : nil }
    }

    /// The totals row, e.g. `total: 30 files … 139.053 … 61.2 4.9 … 4245  30 ok, 0 error; 0:02:19 of audio`:
    /// total duration, duration-weighted speech and music percentages (``TableTotals``),
    /// clipped samples, and the file counts. Loudness, true peak and noise do not add up and
    /// are left blank.
    public static func tableTotalsRow(_ totals: TableTotals) -> String {
        func percent(_ ratio: Double?) -> String { ratio.map { String(format: "%.1f", $0 * 100) } ?? notMeasured }
        return pad("total: \(totals.files) file\(totals.files == 1 ? "" : "s")", Table.file)
            + pad(String(format: "%.3f", totals.durationSeconds), Table.duration, right: true)
            + pad("", 2 * Table.level)
            + pad(percent(totals.speechRatio), Table.percent, right: true)
            + pad(percent(totals.musicRatio), Table.percent, right: true)
            + "  " + pad("", Table.noise) + pad(String(totals.clippedSamples), Table.clipped, right: true)
            + "  \(totals.ok) ok, \(totals.failed) error; \(clock(totals.durationSeconds)) of audio"
    }

    /// The path, cut to the file column (the end kept, after `…`).
    static func shortened(_ path: String) -> String {
        path.count > Table.file - 1 ? "…" + path.suffix(Table.file - 2) : path
    }

    /// `kind: message`, the message without the `path: ` it starts with (the row names the file)
    /// and without the kind spelled out again after it.
    static func errorText(_ score: FileScore) -> String {
        guard let error = score.error else { return "unknown" }
        var message = error.message
        if message.hasPrefix(score.audioFilepath + ": ") { message.removeFirst(score.audioFilepath.count + 2) }
        if message == score.audioFilepath { message = "" }
        // "not found: …" after the kind not_found says it twice.
        let spelled = error.kind.replacingOccurrences(of: "_", with: " ")
        if message.hasPrefix(spelled + ": ") { message.removeFirst(spelled.count + 2) }
        return message.isEmpty ? error.kind : error.kind + ": " + message
    }

    /// `h:mm:ss`.
    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
    }

    /// The CSV header: the record's scalar fields that are CSV columns, in schema order (from
    /// the record's field tables). Empty cells are JSON `null` (−∞ levels, or fields a failed
    /// file does not have).
    public static let csvHeader = FileScore.csvColumns.joined(separator: ",")

    /// One CSV row (RFC 4180 quoting for free-text fields; numbers as Swift prints them).
    public static func csvRow(_ score: FileScore) -> String {
        var cells: [String] = []
        withUnsafeBytes(of: score) { FileScore.appendCSVCells(at: $0.baseAddress, optional: false, to: &cells) }
        return cells.joined(separator: ",")
    }

    private static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let count = text.count
        guard count < width else { return right ? " " + text : text + " " }
        let padding = String(repeating: " ", count: width - count)
        return right ? padding + text : text + padding
    }
}

