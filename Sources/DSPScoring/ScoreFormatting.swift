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

    /// The CSV header: the record's scalar fields. Empty cells are JSON `null` (−∞ levels, or
    /// fields a failed file does not have).
    public static let csvHeader = [
        "audio_filepath", "duration", "sample_rate", "channels", "frames", "format", "status", "error_kind",
        "rms_dbfs", "rms_dbfs_aes17", "peak_dbfs", "dc_offset", "clipped_samples", "non_finite_samples",
        "loudest_frame_rms_dbfs", "quietest_frame_rms_dbfs",
        "integrated_lufs", "loudness_range_lu", "true_peak_dbtp",
        "speech_ratio", "music_ratio", "multi_speaker_ratio", "speech_seconds", "speech_segments", "noise_floor_dbfs",
    ].joined(separator: ",")

    /// One CSV row (RFC 4180 quoting for text fields).
    public static func csvRow(_ score: FileScore) -> String {
        func quoted(_ text: String?) -> String {
            guard let text else { return "" }
            let needsQuotes = text.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }
            return needsQuotes ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
        }
        func number(_ value: Double?) -> String { value.map { "\($0)" } ?? "" }
        func count(_ value: Int?) -> String { value.map(String.init) ?? "" }
        let levels = score.levels
        var cells: [String] = [
            quoted(score.audioFilepath), number(score.duration), count(score.sampleRate),
            count(score.channels), count(score.frames), quoted(score.format),
            score.status.rawValue, score.error?.kind ?? "",
        ]
        cells += [number(levels?.rmsDBFS), number(levels?.rmsDBFSAES17), number(levels?.peakDBFS), number(levels?.dcOffset)]
        cells += [count(levels?.clippedSamples), count(levels?.nonFiniteSamples)]
        cells += [number(levels?.loudestFrameRMSDBFS), number(levels?.quietestFrameRMSDBFS)]
        let loudness = score.loudness
        cells += [number(loudness?.integratedLUFS), number(loudness?.loudnessRangeLU), number(loudness?.truePeakDBTP)]
        let detection = score.detection
        cells += [number(detection?.speechRatio), number(detection?.musicRatio), number(detection?.multiSpeakerRatio)]
        cells += [number(detection?.speechSeconds), count(detection?.speechSegments), number(detection?.noiseFloorDBFS)]
        return cells.joined(separator: ",")
    }

    private static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let count = text.count
        guard count < width else { return text + " " }
        let padding = String(repeating: " ", count: width - count)
        return right ? padding + text : text + padding
    }
}

