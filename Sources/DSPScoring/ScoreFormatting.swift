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

    /// The table's header line.
    public static let tableHeader =
        pad("file", 40) + pad("dur s", 8, right: true) + pad("rate", 7, right: true) + pad("ch", 4, right: true)
        + pad("RMS dBFS", 10, right: true) + pad("peak dBFS", 11, right: true) + pad("clipped", 9, right: true)
        + "  status"

    /// One table row; `-inf` for silence.
    public static func tableRow(_ score: FileScore) -> String {
        func db(_ value: Double?) -> String { value.map { String(format: "%.2f", $0) } ?? "-inf" }
        let name = score.audioFilepath.count > 39 ? "…" + score.audioFilepath.suffix(38) : score.audioFilepath
        var row = pad(String(name), 40) + pad(String(format: "%.3f", score.duration), 8, right: true)
            + pad(score.sampleRate.map(String.init) ?? "-", 7, right: true)
            + pad(score.channels.map(String.init) ?? "-", 4, right: true)
        if let levels = score.levels {
            row += pad(db(levels.rmsDBFS), 10, right: true) + pad(db(levels.peakDBFS), 11, right: true)
                + pad(String(levels.clippedSamples), 9, right: true) + "  ok"
        } else {
            row += pad("", 30) + "  error: " + (score.error?.message ?? "unknown")
        }
        return row
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
        guard count < width else { return text + " " }
        let padding = String(repeating: " ", count: width - count)
        return right ? padding + text : text + padding
    }
}

