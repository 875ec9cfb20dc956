@testable import DSPScoring
import Foundation
import Testing
import TestSupport

/// `ScoreFormatting.jsonLine` writes the record's bytes itself; these tests hold its escaping
/// and number formatting to Foundation's `JSONEncoder` (with the options it replaced), on
/// records of every shape. Both follow the same field tables, so the key set is checked
/// against independent oracles elsewhere (RecordSchemaTests).
@Suite("JSON record writer")
struct ScoreFormattingJSONTests {
    /// What `jsonLine` did before the hand-written writer: the reference.
    static func encoderLine(_ score: FileScore) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(score)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Text with the characters JSON treats specially: quotes, backslashes, every control
    /// character, slashes, DEL, non-ASCII (2-, 3- and 4-byte UTF-8, U+2028, combining marks).
    static func text(_ rng: inout SplitMix64) -> String {
        let pieces: [String] = [
            "a", "Z", "0", " ", "/", "\\", "\"", "'", ",", ".wav", "é", "中文", "🎙️", "\u{2028}", "\u{2029}",
            "e\u{301}", "\u{7F}", "\u{FEFF}", "\u{10FFFF}", "{}", "[", ":", "%", "\\u0041", "null",
        ] + (0..<32).map { String(UnicodeScalar(UInt8($0))) }
        let count = Int.random(in: 0...24, using: &rng)
        return (0..<count).map { _ in pieces.randomElement(using: &rng)! }.joined()
    }

    /// Doubles of every kind a record can hold: whole numbers (written without `.0`), tiny,
    /// huge, subnormal, negative zero, round decimals, arbitrary bit patterns.
    static func double(_ rng: inout SplitMix64) -> Double {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: return Double(Int.random(in: -100_000...100_000, using: &rng))
        case 1: return Double.random(in: -1...1, using: &rng) * 1e-300
        case 2: return Double.random(in: -1...1, using: &rng) * 1e300
        case 3: return [0.0, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1e16, 1e-5, 0.1, 1e15, 123456789012345680000.0].randomElement(using: &rng)!
        case 4: return (Double.random(in: -200...200, using: &rng) * 1e6).rounded() / 1e6
        case 5:
            let bits = rng.next()
            let value = Double(bitPattern: bits)
            return value.isFinite ? value : 0.5
        default: return Double.random(in: -120...10, using: &rng)
        }
    }

    static func optionalDouble(_ rng: inout SplitMix64) -> Double? {
        Bool.random(using: &rng) ? nil : double(&rng)
    }

    static func float(_ rng: inout SplitMix64) -> Float {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return 1
        case 1: return [0.999, 0.5, 1e-30, 3.4e38, 0.1, 1e7, 16_777_216].randomElement(using: &rng)!
        case 2:
            let value = Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))
            return value.isFinite ? value : 0.25
        default: return Float.random(in: 0...2, using: &rng)
        }
    }

    static func integer(_ rng: inout SplitMix64) -> Int {
        [0, 1, -1, Int.max, Int.min, Int.random(in: -1_000_000...1_000_000, using: &rng)].randomElement(using: &rng)!
    }

    /// A random JSON object (a manifest line): strings, numbers, booleans, nulls, nested arrays and objects.
    static func json(_ rng: inout SplitMix64, depth: Int) -> JSONValue {
        func element(_ rng: inout SplitMix64) -> JSONValue {
            switch Int.random(in: 0..<(depth < 3 ? 7 : 5), using: &rng) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &rng))
            case 2: return .number(double(&rng))
            case 3: return .number(Double(Int.random(in: -1_000...1_000, using: &rng)))
            case 4: return .string(text(&rng))
            case 5: return .array((0..<Int.random(in: 0...3, using: &rng)).map { _ in element(&rng) })
            default: return json(&rng, depth: depth + 1)
            }
        }
        var members: [String: JSONValue] = [:]
        for _ in 0..<Int.random(in: 0...5, using: &rng) { members[text(&rng)] = element(&rng) }
        return .object(members)
    }

    /// A random record: each part present or absent independently (so every combination of
    /// analyses, ok and error records, and the odd ones in between), nil fields included.
    static func record(_ rng: inout SplitMix64) -> FileScore {
        let analyses = Bool.random(using: &rng) ? nil : text(&rng)
        var score = FileScore(
            audioFilepath: text(&rng), duration: double(&rng), status: Bool.random(using: &rng) ? .ok : .error,
            provenance: .init(frameLength: integer(&rng), clipThreshold: float(&rng), analyses: analyses))
        if Bool.random(using: &rng) { score.provenance.library = text(&rng) }
        if Bool.random(using: &rng) { score.provenance.version = text(&rng) }
        if Bool.random(using: &rng) { score.sampleRate = integer(&rng) }
        if Bool.random(using: &rng) { score.channels = integer(&rng) }
        if Bool.random(using: &rng) { score.frames = integer(&rng) }
        if Bool.random(using: &rng) { score.format = text(&rng) }
        if Bool.random(using: &rng) {
            score.levels = .init(
                rmsDBFS: optionalDouble(&rng), rmsDBFSAES17: optionalDouble(&rng), peakDBFS: optionalDouble(&rng),
                dcOffset: double(&rng), clippedSamples: integer(&rng), nonFiniteSamples: integer(&rng),
                loudestFrameRMSDBFS: optionalDouble(&rng), quietestFrameRMSDBFS: optionalDouble(&rng))
        }
        if Bool.random(using: &rng) {
            score.loudness = .init(
                integratedLUFS: optionalDouble(&rng), loudnessRangeLU: double(&rng), truePeakDBTP: optionalDouble(&rng),
                maxMomentaryLUFS: optionalDouble(&rng), maxShortTermLUFS: optionalDouble(&rng), channelLayout: text(&rng))
        }
        if Bool.random(using: &rng) {
            score.detection = .init(
                speechRatio: double(&rng), musicRatio: optionalDouble(&rng), multiSpeakerRatio: optionalDouble(&rng),
                speechSeconds: double(&rng), speechSegments: integer(&rng), noiseFloorDBFS: optionalDouble(&rng))
        }
        if Bool.random(using: &rng) {
            score.environment = .init(
                noiseDBFS: optionalDouble(&rng), speechDBFS: optionalDouble(&rng), snrDB: optionalDouble(&rng),
                rt60Seconds: optionalDouble(&rng), c50DB: optionalDouble(&rng), bandwidthHz: optionalDouble(&rng),
                bandwidthClass: Bool.random(using: &rng) ? nil : text(&rng), f0MedianHz: optionalDouble(&rng),
                f0SpreadHz: optionalDouble(&rng), speakingRateSPS: optionalDouble(&rng), noiseCategory: text(&rng), categoryKey: text(&rng),
                speechClarity: optionalDouble(&rng), frequencyComplexity: double(&rng), recommendation: text(&rng),
                measurements: integer(&rng))
        }
        if Bool.random(using: &rng) { score.error = .init(kind: text(&rng), message: text(&rng)) }
        if Bool.random(using: &rng) {
            score.segment = .init(
                startFrame: integer(&rng), endFrame: integer(&rng), missingFrames: integer(&rng), offset: double(&rng),
                fileChannels: Bool.random(using: &rng) ? nil : text(&rng))
        }
        if Bool.random(using: &rng) {
            // Written as the line spelled it; here the canonical spelling, which is what JSONEncoder writes.
            let value = json(&rng, depth: 0)
            score.manifest = ManifestLine(text: value.canonicalText, value: value)
        }
        if Bool.random(using: &rng) { score.segments = DetectionSegments() }  // not part of the JSON
        return score
    }

    @Test("10 000 random records: the same bytes as JSONEncoder")
    func randomRecords() {
        var rng = SplitMix64(seed: 0x5EED_2026)
        var mismatches = 0
        for _ in 0..<10_000 {
            let score = Self.record(&rng)
            let ours = ScoreFormatting.jsonLine(score)
            let reference = Self.encoderLine(score)
            if ours != reference {
                mismatches += 1
                if mismatches <= 3 { Issue.record("ours:\n\(ours)\nJSONEncoder:\n\(reference)") }
            }
        }
        #expect(mismatches == 0)
    }

    @Test("every control character, quote and backslash in a path, one at a time")
    func everyEscape() {
        for byte in 0..<128 {
            let path = "x" + String(UnicodeScalar(UInt8(byte))) + "y"
            let score = FileScore(audioFilepath: path, duration: 0, status: .error, provenance: .init(frameLength: 1024, clipThreshold: 1))
            #expect(ScoreFormatting.jsonLine(score) == Self.encoderLine(score), "byte \(byte)")
        }
    }

    @Test("a non-finite analysis number turns the record into an error record naming the field; only a non-finite duration or clip threshold gives {}",
          arguments: [Double.nan, .infinity, -.infinity])
    func nonFinite(_ bad: Double) throws {
        let base = FileScore(
            audioFilepath: "a.wav", duration: 1, sampleRate: 16_000, channels: 1, frames: 16_000, format: "WAV/PCM_16",
            status: .ok, provenance: .init(frameLength: 1024, clipThreshold: 1))
        var withheld: [(FileScore, String)] = []
        var s = base
        s.levels = .init(rmsDBFS: bad, rmsDBFSAES17: nil, peakDBFS: nil, dcOffset: 0, clippedSamples: 0, nonFiniteSamples: 0, loudestFrameRMSDBFS: nil, quietestFrameRMSDBFS: nil)
        withheld.append((s, "levels.rms_dbfs"))
        s = base
        s.levels = .init(rmsDBFS: -20, rmsDBFSAES17: nil, peakDBFS: nil, dcOffset: bad, clippedSamples: 0, nonFiniteSamples: 0, loudestFrameRMSDBFS: nil, quietestFrameRMSDBFS: nil)
        withheld.append((s, "levels.dc_offset"))
        s = base
        s.loudness = .init(integratedLUFS: nil, loudnessRangeLU: bad, truePeakDBTP: nil, maxMomentaryLUFS: nil, maxShortTermLUFS: nil, channelLayout: "mono")
        withheld.append((s, "loudness.loudness_range_lu"))
        s = base
        s.detection = .init(speechRatio: 0, musicRatio: nil, multiSpeakerRatio: nil, speechSeconds: 0, speechSegments: 0, noiseFloorDBFS: bad)
        withheld.append((s, "detection.noise_floor_dbfs"))
        s = base
        s.environment = .init(noiseDBFS: nil, noiseCategory: "quiet", categoryKey: "", speechClarity: bad, frequencyComplexity: 0, recommendation: "fast", measurements: 0)
        withheld.append((s, "environment.speech_clarity"))
        for (score, field) in withheld {
            #expect(score.firstNonFiniteField == field)
            #expect(Self.encoderLine(score) == "{}")  // what JSONEncoder (and this writer, before) gave
            let line = ScoreFormatting.jsonLine(score)
            let record = try JSONDecoder().decode(FileScore.self, from: Data(line.utf8))
            #expect(record.audioFilepath == "a.wav" && record.status == .error && record.error?.kind == "non_finite_result")
            #expect(record.error?.message.contains(field) == true)
            #expect(record.sampleRate == 16_000 && record.channels == 1 && record.frames == 16_000 && record.duration == 1)
            #expect(record.levels == nil && record.loudness == nil && record.detection == nil && record.environment == nil)
            #expect(line == Self.encoderLine(score.withholdingNonFiniteResults()))
        }
        // Not analysis results: a hand-built record with these still gives {} (FileScorer never makes one).
        s = base
        s.duration = bad
        #expect(s.firstNonFiniteField == nil)
        #expect(ScoreFormatting.jsonLine(s) == "{}")
        s = base
        s.provenance.clipThreshold = Float(bad)
        #expect(ScoreFormatting.jsonLine(s) == "{}")
        // Finite records pass through unchanged.
        #expect(base.withholdingNonFiniteResults() == base)
    }

    @Test("real records of TestAudio, every analysis combination, and error records")
    func realRecords() throws {
        let files = testAudioFiles() + ["/nonexistent/dir/x.wav", testAudio.path, repositoryRoot.appendingPathComponent("Package.swift").path]
        let sets: [FileScorer.Analyses] = [[], .levels, .loudness, [.loudness, .truePeak], .speech, [.levels, .loudness, .speech], .all, [.speech, .music], [.speech, .speakers, .environment]]
        for analyses in sets {
            let scorer = try FileScorer(configuration: .init(analyses: analyses))
            for file in files {
                let score = scorer.score(path: file)
                #expect(ScoreFormatting.jsonLine(score) == Self.encoderLine(score), "\(file) \(analyses)")
            }
        }
    }
}
