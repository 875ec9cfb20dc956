import DSPScoring
import Foundation
import Testing

/// A ``FileScorer`` keeps its detector, its resamplers (one per input rate) and its loudness
/// meters (one per configuration) across files and resets them between files instead of
/// building new ones. Resetting must leave exactly the state of a new object: a file scored
/// after others by one scorer gets the record a fresh scorer gives it.
@Suite("FileScorer reuse across files")
struct ScorerReuseTests {
    /// Rates and channel counts that make a scorer switch resamplers and loudness meters and
    /// come back to ones it has used: 44.1 kHz stereo, 48 kHz mono twice, 44.1 kHz mono,
    /// 16 kHz, 48 kHz 24-bit, then 44.1 kHz stereo again.
    static let sequence = [
        "speech_2ch_en-us_de_44k1.flac", "speech_de_48k.flac", "speech_en-us_48k.flac", "music_violin_44k1.flac",
        "speech_overlap_16k.wav", "noise_pink_48k_s24.flac", "speech_2ch_en-us_de_44k1.flac",
    ]

    static let analyses: [FileScorer.Analyses] = [
        [.levels], [.loudness], [.loudness, .truePeak], [.speech], [.speech, .music], [.speech, .speakers],
        [.speech, .environment], [.levels, .loudness, .speech], .all,
    ]

    @Test("scoring A, B, … with one scorer gives each file the record of a fresh scorer", arguments: analyses)
    func reuseEqualsFresh(_ analyses: FileScorer.Analyses) throws {
        for segments in [false, true] {
            let configuration = FileScorer.Configuration(analyses: analyses, recordsSegments: segments)
            let reused = try FileScorer(configuration: configuration)
            for name in Self.sequence {
                let path = testAudio.appendingPathComponent(name).path
                let again = reused.score(path: path)
                let fresh = try FileScorer(configuration: configuration).score(path: path)
                try #require(fresh.status == .ok, "\(name): \(String(describing: fresh.error))")
                #expect(again == fresh, "\(name), analyses \(analyses.rawValue), segments \(segments)")
                // Byte for byte, as dspscore writes it (Double fields compared by their text too).
                #expect(ScoreFormatting.jsonLine(again) == ScoreFormatting.jsonLine(fresh), "\(name) JSON")
            }
        }
    }
}
