import DSPScoring
import Foundation
import Testing
import TestSupport

/// Every number a record holds is a true value or an explicit absence with one meaning:
/// `null` only for −∞, analyses not done named with a reason, impossible results an error,
/// clipping counted at the format's own rails. Real files, made here as bytes.
@Suite("Honest records: no silent null, no dropped analysis, clipping at the rails")
struct HonestRecordTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "dspscore-honest")
    }

    /// A float32 WAV (format tag 3) of `samples`.
    static func floatWAV(_ samples: [Float], rate: Int = 16_000) -> Data {
        let payload = samples.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) }
        return HostileWAV.file(channels: 1, sampleRate: rate, bitsPerSample: 32, formatTag: 3, payload: payload)
    }

    /// Levels of `samples` computed here in Double, the oracle: (rms dBFS, peak dBFS), finite samples only.
    static func oracle(_ samples: [Float]) -> (rms: Double, peak: Double) {
        let finite = samples.filter(\.isFinite).map(Double.init)
        let meanSquare = finite.reduce(0) { $0 + $1 * $1 } / Double(finite.count)
        return (10 * log10(meanSquare), 20 * log10(finite.map(abs).max() ?? 0))
    }

    /// No `ok` record carries a non-finite or a silently null level.
    static func checkHonest(_ record: FileScore, samples: [Float], _ note: String) {
        guard record.status == .ok else {
            #expect(["non_finite_result", "out_of_range_result", "unsupported"].contains(record.error?.kind ?? ""), "\(note): \(String(describing: record.error))")
            return
        }
        #expect(record.firstNonFiniteField == nil && record.firstOutOfRangeField == nil, "\(note)")
        let finite = samples.filter(\.isFinite)
        guard let levels = record.levels else {
            #expect(finite.isEmpty && record.notMeasured?.levels == "no_finite_samples", "\(note)")
            return
        }
        let silent = finite.allSatisfy { $0 == 0 }
        // null means digital silence and nothing else.
        #expect((levels.rmsDBFS == nil) == silent && (levels.peakDBFS == nil) == silent, "\(note): rms \(String(describing: levels.rmsDBFS))")
        if !silent {
            let (rms, peak) = oracle(samples)
            #expect(abs(levels.rmsDBFS! - rms) < 1e-3 && abs(levels.peakDBFS! - peak) < 1e-3, "\(note): \(levels) vs \(rms) \(peak)")
        }
        #expect(levels.nonFiniteSamples == samples.count - finite.count, "\(note)")
    }

    @Test("a float WAV with one sample of 1e20: true levels (about +400 dBFS peak), never ok with rms null")
    func hugeSample() throws {
        var samples = (0..<16_000).map { Float(sin(Double($0) * 0.1) * 0.1) }
        samples[8000] = 1e20
        let path = try directory.write("huge.wav", bytes: Self.floatWAV(samples))
        let record = try FileScorer().score(path: path)
        Self.checkHonest(record, samples: samples, "huge")
        #expect(record.status == .ok, "\(String(describing: record.error))")
        let levels = try #require(record.levels)
        #expect(abs(levels.peakDBFS! - 400) < 1e-6)
        #expect(levels.rmsDBFS! > 300, "the 1e20 sample dominates: 400 - 10 log10(16000) = 357.96 dBFS")
        #expect(levels.clippedSamples == 1, "beyond full scale is clipped")
        // No level field is null, and the line says so.
        #expect(!ScoreFormatting.jsonLine(record).contains("\"rms_dbfs\":null"))
    }

    @Test("corrupted float WAVs (random bytes over the payload): every record is honest (true levels, an error, or not_measured)")
    func corruptedFloats() throws {
        var rng = SplitMix64(seed: 0xC0_22_0B7)
        let scorer = try FileScorer()
        for index in 0..<46 {
            var samples = (0..<4096).map { _ in Float.random(in: -0.5...0.5, using: &rng) }
            // Overwrite a run of samples with random bit patterns: NaN, ±Inf, huge and denormal values.
            let start = Int.random(in: 0..<4096, using: &rng)
            for i in start..<Swift.min(4096, start + Int.random(in: 1...4096, using: &rng)) {
                samples[i] = Float(bitPattern: UInt32.random(in: 0...UInt32.max, using: &rng))
            }
            if index == 0 { samples = samples.map { _ in .nan } }
            if index == 1 { samples = Array(repeating: 0, count: 8000) }  // 0.5 s: long enough for loudness
            let path = try directory.write("corrupt_\(index).wav", bytes: Self.floatWAV(samples))
            let record = scorer.score(path: path)
            Self.checkHonest(record, samples: samples, "corrupt_\(index)")
            if index == 0 {
                #expect(record.status == .error && record.error?.kind == "unsupported" && record.notMeasured?.levels == "no_finite_samples")
            }
            if index == 1 {
                #expect(record.status == .ok && record.levels?.rmsDBFS == nil && record.loudness?.truePeakDBTP == -.infinity)
                #expect(ScoreFormatting.jsonLine(record).contains("\"true_peak_dbtp\":null"))
            }
        }
    }

    @Test("a rate an analysis does not take says so: 4 kHz has no loudness, 900 kHz no detection, each with its reason")
    func unsupportedRates() throws {
        let scorer = try FileScorer()
        let low = try directory.write("4k.wav", bytes: HostileWAV.file(channels: 1, sampleRate: 4_000, payload: HostileWAV.pcm16(frames: 8_000)))
        let record = scorer.score(path: low)
        #expect(record.status == .ok && record.loudness == nil && record.notMeasured?.loudness == "unsupported_sample_rate")
        #expect(record.levels != nil)
        let high = try directory.write("900k.wav", bytes: HostileWAV.file(channels: 1, sampleRate: 900_000, payload: HostileWAV.pcm16(frames: 900_000)))
        let fast = scorer.score(path: high)
        #expect(fast.status == .ok && fast.levels != nil, "\(String(describing: fast.error))")
        #expect((fast.detection == nil) == (fast.notMeasured?.detection == "unsupported_sample_rate"), "\(String(describing: fast.notMeasured))")
        #expect((fast.loudness == nil) == (fast.notMeasured?.loudness != nil))
        if fast.detection == nil { #expect(fast.notMeasured?.environment == "unsupported_sample_rate") }
        // Every analysis asked for is in the record or in not_measured.
        for r in [record, fast] {
            #expect(r.levels != nil || r.notMeasured?.levels != nil)
            #expect(r.loudness != nil || r.notMeasured?.loudness != nil)
            #expect(r.detection != nil || r.notMeasured?.detection != nil)
            #expect(r.environment != nil || r.notMeasured?.environment != nil)
        }
        // Nothing measurable at all: the file is unsupported, with the reason.
        let loudnessOnly = try FileScorer(configuration: .init(analyses: .loudness)).score(path: low)
        #expect(loudnessOnly.status == .error && loudnessOnly.error?.kind == "unsupported")
        #expect(loudnessOnly.error?.message.contains("loudness: unsupported_sample_rate") == true)
        // The CSV has a column per reason.
        #expect(ScoreFormatting.csvHeader.contains("loudness_not_measured"))
        #expect(ScoreFormatting.csvRow(record).contains("unsupported_sample_rate"))
    }

    /// Integer PCM little-endian bytes for `codes` at `bits` (8-bit WAV is unsigned, offset 128).
    static func pcm(_ codes: [Int64], bits: Int) -> [UInt8] {
        codes.flatMap { code -> [UInt8] in
            let stored = bits == 8 ? code + 128 : code
            return (0..<(bits / 8)).map { UInt8(truncatingIfNeeded: stored >> (8 * Int64($0))) }
        }
    }

    @Test("clipping is counted at the format's own rails: both for 8, 16, 24 and 32 bits; one code inside is not a rail",
          arguments: [8, 16, 24, 32])
    func rails(bits: Int) throws {
        let top = (Int64(1) << (bits - 1)) - 1
        let bottom = -(Int64(1) << (bits - 1))
        // 17 000 samples at each rail, 5 000 one code inside the negative rail (−32767 for 16
        // bits: not a rail), and a quiet ramp in between.
        var codes: [Int64] = []
        for i in 0..<40_000 {
            switch i % 8 {
            case 0, 1: codes.append(top)
            case 2, 3: codes.append(bottom)
            case 4: codes.append(bottom + 1)
            default: codes.append(Int64(i % 100 - 50) << Int64(bits - 8))
            }
        }
        let expected = codes.filter { $0 == top || $0 == bottom }.count
        #expect(expected == 20_000)
        let path = try directory.write("rails_\(bits).wav", bytes: HostileWAV.file(channels: 1, sampleRate: 16_000, bitsPerSample: bits, payload: Self.pcm(codes, bits: bits)))
        let record = try FileScorer().score(path: path)
        #expect(record.status == .ok, "\(String(describing: record.error))")
        if bits == 32 {
            // Float cannot tell −2^31 + 1 from −2^31: the 32-bit rail takes the codes that read as ±1.0.
            #expect(record.levels?.clippedSamples == expected + 5_000, "\(record.format ?? "")")
        } else {
            #expect(record.levels?.clippedSamples == expected, "\(record.format ?? "")")
        }
        // A float file's clipping is unchanged: |x| >= 1.
        let floats = codes.map { Float(Double($0) / Double(Int64(1) << (bits - 1))) }
        let floatRecord = try FileScorer().score(path: directory.write("rails_float_\(bits).wav", bytes: Self.floatWAV(floats)))
        #expect(floatRecord.levels?.clippedSamples == floats.filter { abs($0) >= 1 }.count)
    }
}
