import DSPDetection
import DSPScoring
import Foundation
import TestSupport
import Testing

@Suite("Provenance and its configuration hash")
struct ProvenanceTests {
    /// 64-bit FNV-1a, written out again here as the oracle.
    static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 14_695_981_039_346_656_037
        for byte in Array(text.utf8) {
            hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    @Test("the oracle is FNV-1a (published 64-bit test vectors)")
    func oracle() {
        #expect(Self.fnv1a("") == "cbf29ce484222325")
        #expect(Self.fnv1a("a") == "af63dc4c8601ec8c")
        #expect(Self.fnv1a("foobar") == "85944171f73967e8")
    }

    @Test("config_hash is FNV-1a of the canonical description, written into every record")
    func hashOfDescription() throws {
        let scorer = try FileScorer(configuration: .init(analyses: [.levels, .loudness]))
        let record = scorer.score(path: testAudio.appendingPathComponent("silence_16k.wav").path)
        let provenance = record.provenance
        #expect(provenance.configurationDescription
            == "library=SpeechDSP;version=\(provenance.version);frame_length=1024;clip_threshold=1.0;analyses=levels,loudness")
        #expect(provenance.configurationHash == Self.fnv1a(provenance.configurationDescription))
        let line = ScoreFormatting.jsonLine(record)
        #expect(line.contains("\"config_hash\":\"\(provenance.configurationHash)\""))
        // An error record carries the same provenance.
        #expect(scorer.score(path: "/nonexistent.wav").provenance.configurationHash == provenance.configurationHash)
        // Read back (the hash is recomputed, not trusted), and from a record written before the field.
        let decoded = try JSONDecoder().decode(FileScore.self, from: Data(line.utf8))
        #expect(decoded.provenance == provenance)
        let old = line.replacingOccurrences(of: ",\"config_hash\":\"\(provenance.configurationHash)\"", with: "")
        #expect(old != line)
        #expect(try JSONDecoder().decode(FileScore.self, from: Data(old.utf8)).provenance.configurationHash == provenance.configurationHash)
    }

    @Test("each configuration field changes the hash; equal configurations give equal hashes")
    func distinguishes() throws {
        let base = FileScore.Provenance(frameLength: 1024, clipThreshold: 1, analyses: "levels,loudness")
        let variants = [
            FileScore.Provenance(frameLength: 512, clipThreshold: 1, analyses: "levels,loudness"),
            FileScore.Provenance(frameLength: 1024, clipThreshold: 0.99, analyses: "levels,loudness"),
            FileScore.Provenance(frameLength: 1024, clipThreshold: 1, analyses: "levels,loudness,speech"),
            FileScore.Provenance(frameLength: 1024, clipThreshold: 1, analyses: nil),
            FileScore.Provenance(version: "0.0.0-other", frameLength: 1024, clipThreshold: 1, analyses: "levels,loudness"),
            FileScore.Provenance(frameLength: 1024, clipThreshold: 1, analyses: "levels,loudness", options: "no_looped_backgrounds"),
        ]
        let hashes = Set(variants.map(\.configurationHash) + [base.configurationHash])
        #expect(hashes.count == variants.count + 1)
        #expect(FileScore.Provenance(frameLength: 1024, clipThreshold: 1, analyses: "levels,loudness").configurationHash
            == base.configurationHash)
        #expect(hashes.allSatisfy { $0.count == 16 && $0.allSatisfy(\.isHexDigit) && $0 == $0.lowercased() })
        let a = try FileScorer(configuration: .init(frameLength: 2048)).score(path: "/nonexistent.wav").provenance
        let b = try FileScorer(configuration: .init(frameLength: 2048)).score(path: "/nonexistent.wav").provenance
        #expect(a.configurationHash == b.configurationHash && a.configurationHash != base.configurationHash)
        // Without an option the description has no `options` part: such records keep the hash
        // they had before the field existed. The option is recorded only where a detection runs.
        #expect(!base.configurationDescription.contains("options"))
        // Looped backgrounds are read by default (no option written); scored without, records say so.
        #expect(try FileScorer(configuration: .init()).score(path: "/nonexistent.wav").provenance.options == nil)
        let plain = try FileScorer(configuration: .init(loopedBackgrounds: false)).score(path: "/nonexistent.wav").provenance
        #expect(plain.options == "no_looped_backgrounds" && plain.configurationDescription.hasSuffix(";options=no_looped_backgrounds"))
        let levelsOnly = try FileScorer(configuration: .init(analyses: .levels, loopedBackgrounds: false)).score(path: "/nonexistent.wav")
        #expect(levelsOnly.provenance.options == nil)
        // The speech blend is on by default; scored without it where it would run (music or
        // speakers analysed), records say so, after the other option.
        let unblended = try FileScorer(configuration: .init(speechBlend: false)).score(path: "/nonexistent.wav").provenance
        #expect(unblended.options == "no_speech_blend" && unblended.configurationHash != base.configurationHash)
        let both = try FileScorer(configuration: .init(loopedBackgrounds: false, speechBlend: false)).score(path: "/nonexistent.wav").provenance
        #expect(both.options == "no_looped_backgrounds,no_speech_blend")
        let speechOnly = try FileScorer(configuration: .init(analyses: [.speech], speechBlend: false)).score(path: "/nonexistent.wav")
        #expect(speechOnly.provenance.options == nil)
        // The pure-tone gate is on by default; scored without it, records that detect speech say so, last.
        let ungated = try FileScorer(configuration: .init(loopedBackgrounds: false, pureToneGate: false)).score(path: "/nonexistent.wav").provenance
        #expect(ungated.options == "no_looped_backgrounds,no_pure_tone_gate" && ungated.configurationHash != plain.configurationHash)
        let musicOnly = try FileScorer(configuration: .init(analyses: [.music], pureToneGate: false)).score(path: "/nonexistent.wav")
        #expect(musicOnly.provenance.options == nil)
        // Another voice-activity segmenter: every setting in the option, last; only where speech is detected.
        var segments = DefaultModels.speechSegments
        segments.hangoverSeconds = 0.5
        segments.endThreshold = nil
        let resegmented = try FileScorer(configuration: .init(pureToneGate: false, speechSegments: segments)).score(path: "/nonexistent.wav").provenance
        #expect(resegmented.options == "no_pure_tone_gate,speech_segments:on=0.5:off=0.35:min_seconds=0.032:hangover_seconds=0.5:padding_seconds=0.048:end=none")
        #expect(resegmented.configurationHash != ungated.configurationHash)
        #expect(try FileScorer(configuration: .init(analyses: [.music], speechSegments: segments)).score(path: "/nonexistent.wav").provenance.options == nil)
        #expect(try FileScorer(configuration: .init(speechSegments: DefaultModels.speechSegments)).score(path: "/nonexistent.wav").provenance.options == nil)
    }

    @Test("another voice-activity segmenter reaches the detector (a 0.5 s hangover bridges the clip's pauses); a bad one is refused naming speechSegments")
    func speechSegmentsReachTheDetector() throws {
        let path = testAudio.appendingPathComponent("speech_en-us_48k.flac").path
        #expect(try FileScorer().score(path: path).detection?.speechSegments == 3)
        var segments = DefaultModels.speechSegments
        segments.hangoverSeconds = 0.5
        #expect(try FileScorer(configuration: .init(speechSegments: segments)).score(path: path).detection?.speechSegments == 1)
        segments.offThreshold = 0.9
        let bad = FileScorer.Configuration(speechSegments: segments)
        #expect(refusal { try bad.validate() }?.parameter == "speechSegments")
        #expect(refusal { try FileScorer(configuration: bad) }?.parameter == "speechSegments")
    }

    @Test("merge refuses records scored with another configuration, naming both")
    func mergeChecksConfiguration() throws {
        let path = testAudio.appendingPathComponent("silence_16k.wav").path
        let other = testAudio.appendingPathComponent("noise_white_16k.wav").path
        let a = ScoreFormatting.jsonLine(try FileScorer().score(path: path)) + "\n"
        let b = ScoreFormatting.jsonLine(try FileScorer(configuration: .init(frameLength: 512)).score(path: other)) + "\n"
        let c = ScoreFormatting.jsonLine(try FileScorer().score(path: other)) + "\n"
        #expect(try ScoreMerging.merge([("a", a), ("c", c)]).count == 2)
        do {
            _ = try ScoreMerging.merge([("a", a), ("b", b)])
            Issue.record("merged two configurations")
        } catch {
            #expect(error.source == "b" && error.line == 1)
            #expect(error.message.contains("frame_length=512") && error.message.contains("frame_length=1024"))
        }
    }
}
