import Foundation

/// Renders a record's detection segments as timelines (JSON Lines) and NIST RTTM.
public enum TimelineFormatting {
    /// One JSON line per span of the record's timeline (``DetectionSegments/timeline``):
    /// `{"audio_filepath", "start", "end", "speech", "music", "multi_speaker"}`, seconds with
    /// millisecond resolution, keys in that order; then one line per environment measurement
    /// (``DetectionSegments/environment``): `{"audio_filepath", "time", "environment":
    /// {"noise_dbfs", "noise_category", "snr_db", "c50_db", "speech_clarity"}}` — `noise_dbfs`
    /// `null` for a digitally silent background, `snr_db` (−30…100) and `speech_clarity` (0…1)
    /// `null` when the measurement's window held no speech, `c50_db` (the stream's so far)
    /// `null` until enough free decays were found; dB to 0.01, clarity to 0.001. Empty for
    /// records without segments.
    ///
    /// Times are in the file's time: for a record of a segment (a manifest's `offset`, a
    /// Lhotse cut) the segment's `offset` is added, so the lines of several segments of one file
    /// share its clock, as RTTM's do.
    public static func timelineLines(_ score: FileScore) -> [String] {
        guard let segments = score.segments else { return [] }
        let path = jsonString(score.audioFilepath)
        let offset = score.segment?.offset ?? 0
        let spans = segments.timeline.map { span in
            "{\"audio_filepath\":\(path),\"start\":\(seconds(offset + span.start)),\"end\":\(seconds(offset + span.end)),"
                + "\"speech\":\(span.speech),\"music\":\(span.music),\"multi_speaker\":\(span.multiSpeaker)}"
        }
        let points = segments.environment.map { p in
            "{\"audio_filepath\":\(path),\"time\":\(seconds(offset + p.time)),\"environment\":{\"noise_dbfs\":\(decibels(p.noiseDBFS)),"
                + "\"noise_category\":\"\(p.noiseCategory)\",\"snr_db\":\(decibels(p.snrDB)),"
                + "\"c50_db\":\(decibels(p.c50DB)),\"speech_clarity\":\(p.speechClarity.map { String(format: "%.3f", $0) } ?? "null")}}"
        }
        return spans + points
    }

    private static func decibels(_ value: Double?) -> String {
        value.map { String(format: "%.2f", $0) } ?? "null"
    }

    /// One NIST RTTM line per speech segment:
    /// `SPEAKER <file-id> 1 <start> <duration> <NA> <NA> speech <NA> <NA>`, the file id
    /// ``rttmFileID(_:)`` of the record's `audio_filepath` and the start in the file's time (a
    /// segment's `offset` added, so the segments a manifest lists for one file share its id and
    /// clock).
    public static func rttmLines(_ score: FileScore) -> [String] {
        guard let segments = score.segments else { return [] }
        let id = rttmFileID(score.audioFilepath)
        let offset = score.segment?.offset ?? 0
        return segments.speech.map { s in
            "SPEAKER \(id) 1 \(seconds(offset + s.start)) \(seconds(s.end - s.start)) <NA> <NA> speech <NA> <NA>"
        }
    }

    /// An RTTM file id: the `audio_filepath` as recorded — the path as given, or found below a
    /// directory given (`corpus/a/utt_1.flac`), or as a manifest line wrote it — without its
    /// extension (`corpus/a/utt_1`), a leading `./` dropped, white space and control characters
    /// replaced by `_` (RTTM fields are space-separated); `unnamed` for an empty path. Unique for
    /// paths that differ other than in their extension: `a/utt_1.flac` and `b/utt_1.flac` are
    /// `a/utt_1` and `b/utt_1`. A name that is not UTF-8 appears in its escaped form (DSPIO's
    /// `PathBytes`), as in `audio_filepath`.
    public static func rttmFileID(_ audioFilepath: String) -> String {
        var path = audioFilepath
        while path.hasPrefix("./") { path.removeFirst(2) }
        let name = (path as NSString).lastPathComponent
        let stem = (name as NSString).deletingPathExtension
        // Only the last component's extension goes: `a.b/c` keeps its folder's dot.
        let id = String(path.dropLast(name.count - stem.count))
        guard !id.isEmpty else { return "unnamed" }
        return String(String.UnicodeScalarView(id.unicodeScalars.map { scalar in
            scalar.properties.isWhitespace || scalar.properties.generalCategory == .control ? "_" : scalar
        }))
    }

    private static func seconds(_ value: Double) -> String {
        String(format: "%.3f", value)
    }

    private static func jsonString(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\\/", with: "/")
    }
}
