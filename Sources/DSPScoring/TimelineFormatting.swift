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
    public static func timelineLines(_ score: FileScore) -> [String] {
        guard let segments = score.segments else { return [] }
        let path = jsonString(score.audioFilepath)
        let spans = segments.timeline.map { span in
            "{\"audio_filepath\":\(path),\"start\":\(seconds(span.start)),\"end\":\(seconds(span.end)),"
                + "\"speech\":\(span.speech),\"music\":\(span.music),\"multi_speaker\":\(span.multiSpeaker)}"
        }
        let points = segments.environment.map { p in
            "{\"audio_filepath\":\(path),\"time\":\(seconds(p.time)),\"environment\":{\"noise_dbfs\":\(decibels(p.noiseDBFS)),"
                + "\"noise_category\":\"\(p.noiseCategory)\",\"snr_db\":\(decibels(p.snrDB)),"
                + "\"c50_db\":\(decibels(p.c50DB)),\"speech_clarity\":\(p.speechClarity.map { String(format: "%.3f", $0) } ?? "null")}}"
        }
        return spans + points
    }

    private static func decibels(_ value: Double?) -> String {
        value.map { String(format: "%.2f", $0) } ?? "null"
    }

    /// One NIST RTTM line per speech segment:
    /// `SPEAKER <file-id> 1 <start> <duration> <NA> <NA> speech <NA> <NA>`, where the file id
    /// is the file name without its extension, spaces (and any other white space or control
    /// character) replaced by `_` (RTTM fields are space-separated, one line per segment). A
    /// name that is not UTF-8 appears in its escaped form (DSPIO's `PathBytes`), as in the
    /// record's `audio_filepath`.
    public static func rttmLines(_ score: FileScore) -> [String] {
        guard let segments = score.segments else { return [] }
        let name = ((score.audioFilepath as NSString).lastPathComponent as NSString).deletingPathExtension
        let id =
            name.isEmpty
            ? "unnamed"
            : String(String.UnicodeScalarView(name.unicodeScalars.map { scalar in
                scalar.properties.isWhitespace || scalar.properties.generalCategory == .control ? "_" : scalar
            }))
        return segments.speech.map { s in
            "SPEAKER \(id) 1 \(seconds(s.start)) \(seconds(s.end - s.start)) <NA> <NA> speech <NA> <NA>"
        }
    }

    private static func seconds(_ value: Double) -> String {
        String(format: "%.3f", value)
    }

    private static func jsonString(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\\/", with: "/")
    }
}
