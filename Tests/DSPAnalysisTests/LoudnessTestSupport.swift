// Test-only helpers for the loudness tests: a libebur128 wrapper (the differential oracle), a
// minimal RIFF/WAVE reader, and ways to push a signal through a meter.
import CEBUR128
import DSPAnalysis
import DSPCore
import Foundation
import TestSupport

// MARK: - libebur128

/// libebur128 1.2.6 in its default (exact, non-histogram) mode, with I, LRA and true peak.
final class EBUR128 {
    private var state: UnsafeMutablePointer<ebur128_state>?
    let channelCount: Int
    let sampleRate: Int

    /// `layout` as libebur128 channel codes; default: its own map for the channel count
    /// (1: L; 2: L R; 5: L R C Ls Rs; 6: L R C unused Ls Rs).
    init(channels: Int, sampleRate: Int, channelMap: [Int32]? = nil) {
        let mode = EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue | EBUR128_MODE_TRUE_PEAK.rawValue
            | EBUR128_MODE_S.rawValue | EBUR128_MODE_M.rawValue | EBUR128_MODE_SAMPLE_PEAK.rawValue
        state = ebur128_init(UInt32(channels), UInt(sampleRate), Int32(mode))
        channelCount = channels
        self.sampleRate = sampleRate
        if let channelMap {
            for (i, code) in channelMap.enumerated() { _ = ebur128_set_channel(state, UInt32(i), code) }
        }
    }

    deinit { ebur128_destroy(&state) }

    func add(_ interleaved: UnsafeBufferPointer<Float>) {
        _ = ebur128_add_frames_float(state, interleaved.baseAddress, interleaved.count / channelCount)
    }

    func add(_ interleaved: [Float]) { interleaved.withUnsafeBufferPointer { add($0) } }

    var integrated: Double { var v = 0.0; _ = ebur128_loudness_global(state, &v); return v }
    var range: Double { var v = 0.0; _ = ebur128_loudness_range(state, &v); return v }
    var momentary: Double { var v = 0.0; _ = ebur128_loudness_momentary(state, &v); return v }
    var shortTerm: Double { var v = 0.0; _ = ebur128_loudness_shortterm(state, &v); return v }
    var truePeakDBTP: Double {
        var m = 0.0
        for c in 0..<channelCount { var v = 0.0; _ = ebur128_true_peak(state, UInt32(c), &v); m = max(m, v) }
        return 20 * log10(m)
    }
    var samplePeakDBFS: Double {
        var m = 0.0
        for c in 0..<channelCount { var v = 0.0; _ = ebur128_sample_peak(state, UInt32(c), &v); m = max(m, v) }
        return 20 * log10(m)
    }
}

/// libebur128's figures for a whole signal, with momentary and short-term maxima sampled on
/// the same 10 ms grid as ``LoudnessMeter`` (it is fed one 10 ms step at a time and queried
/// after each).
struct ReferenceResult {
    var integrated: Double
    var range: Double
    var truePeakDBTP: Double
    var samplePeakDBFS: Double
    var maxMomentary: Double
    var maxShortTerm: Double
    var momentary: [Double]
    var shortTerm: [Double]

    /// `momentaryGrid` / `shortTermGrid`: query M / S after every 10 ms step `k` (0-based)
    /// for which `shortTermSteps(k)` holds (NaN elsewhere) — an S query sums 3 s inside
    /// libebur128, so the tests sample the grid.
    init(_ signal: [Float], channels: Int, sampleRate: Int, channelMap: [Int32]? = nil,
         momentaryGrid: Bool = false, shortTermGrid: Bool = false, shortTermSteps: (Int) -> Bool = { _ in true }) {
        let grid = momentaryGrid || shortTermGrid
        let meter = EBUR128(channels: channels, sampleRate: sampleRate, channelMap: channelMap)
        var momentary: [Double] = []
        var shortTerm: [Double] = []
        signal.withUnsafeBufferPointer { buffer in
            if grid {
                let frames = buffer.count / channels
                var k: Int64 = 1
                var start = 0
                while true {
                    let end = Int(k * Int64(sampleRate) / 100)
                    if end > frames { break }
                    meter.add(UnsafeBufferPointer(rebasing: buffer[start * channels..<end * channels]))
                    momentary.append(momentaryGrid ? meter.momentary : .nan)
                    shortTerm.append(shortTermGrid && shortTermSteps(Int(k) - 1) ? meter.shortTerm : .nan)
                    start = end
                    k += 1
                }
                meter.add(UnsafeBufferPointer(rebasing: buffer[(start * channels)...]))
            } else {
                meter.add(buffer)
            }
        }
        integrated = meter.integrated
        range = meter.range
        truePeakDBTP = meter.truePeakDBTP
        samplePeakDBFS = meter.samplePeakDBFS
        self.momentary = momentary
        self.shortTerm = shortTerm
        maxMomentary = momentary.filter { !$0.isNaN }.max() ?? -.infinity
        maxShortTerm = shortTerm.filter { !$0.isNaN }.max() ?? -.infinity
    }
}

// MARK: - Running our meter

/// Everything a meter reported for a signal: the readings of every 10 ms step and the summary.
struct MeterRun: Equatable {
    var readings: [LoudnessReading]
    var summary: LoudnessSummary
}

/// Pushes `signal` through `meter` in pushes of the given sample counts (all at once when
/// nil), collecting readings through `process(_:into:)` with an output buffer of `room`
/// readings, then flushes and finalizes.
func runMeter(_ meter: LoudnessMeter, _ signal: [Float], pushes: [Int]? = nil, room: Int = 1 << 20) -> MeterRun {
    var readings: [LoudnessReading] = []
    let out = UnsafeMutableBufferPointer<LoudnessReading>.allocate(capacity: room)
    defer { out.deallocate() }
    signal.withUnsafeBufferPointer { source in
        var offset = 0
        for n in pushes ?? [source.count] {
            var chunk = UnsafeBufferPointer(rebasing: source[offset..<offset + n])
            repeat {
                let r = meter.process(chunk, into: out)
                readings.append(contentsOf: out[..<r.produced])
                chunk = UnsafeBufferPointer(rebasing: chunk[r.consumed...])
            } while !chunk.isEmpty
            offset += n
        }
    }
    let tail = meter.flush(into: out)
    readings.append(contentsOf: out[..<tail])
    let summary = meter.finalize()
    return MeterRun(readings: readings, summary: summary)
}

/// Measures `signal` with a fresh meter of `configuration`.
func measureLoudness(_ signal: [Float], _ configuration: LoudnessMeter.Configuration) -> MeterRun {
    runMeter(try! LoudnessMeter(configuration: configuration), signal)
}

/// Push sizes that add up to `total`: fixed `size`, or random in 1…`maxSize` (seeded).
func pushSizes(_ total: Int, size: Int? = nil, maxSize: Int = 4096, seed: UInt64 = 42) -> [Int] {
    var rng = SplitMix64(seed: seed)
    var left = total
    var sizes: [Int] = []
    while left > 0 {
        let n = min(size ?? Int(rng.next() % UInt64(maxSize)) + 1, left)
        sizes.append(n)
        left -= n
    }
    return sizes
}

// MARK: - WAV files

/// A decoded RIFF/WAVE file: interleaved Float32 samples (PCM16 / PCM24 / PCM32 scaled by
/// 2^(bits−1); float32 as stored).
struct WAVFile {
    var sampleRate: Int
    var channelCount: Int
    var samples: [Float]

    enum Failure: Error { case notWAV, unsupported(String) }

    static let testAudio = TestAudio.directory

    init(named name: String) throws { try self.init(url: Self.testAudio.appendingPathComponent(name)) }

    init(url: URL) throws {
        let data = try Data(contentsOf: url)
        let bytes = [UInt8](data)
        func u16(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
        func u32(_ i: Int) -> Int { u16(i) | u16(i + 2) << 16 }
        guard bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x41, 0x56, 0x45]
        else { throw Failure.notWAV }
        var format = 0, channels = 0, rate = 0, bits = 0
        var position = 12
        var payload: Range<Int>?
        while position + 8 <= bytes.count {
            let id = String(decoding: bytes[position..<position + 4], as: UTF8.self)
            let size = u32(position + 4)
            let body = position + 8
            if id == "fmt " {
                format = u16(body)
                channels = u16(body + 2)
                rate = u32(body + 4)
                bits = u16(body + 14)
                if format == 0xFFFE { format = u16(body + 24) }  // WAVE_FORMAT_EXTENSIBLE sub-format
            } else if id == "data" {
                payload = body..<min(body + size, bytes.count)
            }
            position = body + size + (size & 1)
        }
        guard let payload, channels > 0 else { throw Failure.notWAV }
        sampleRate = rate
        channelCount = channels
        switch (format, bits) {
        case (1, 16):
            samples = stride(from: payload.lowerBound, to: payload.upperBound - 1, by: 2).map {
                Float(Int16(bitPattern: UInt16(u16($0)))) / 32768
            }
        case (1, 24):
            samples = stride(from: payload.lowerBound, to: payload.upperBound - 2, by: 3).map {
                let v = Int32(bitPattern: UInt32(bytes[$0]) << 8 | UInt32(bytes[$0 + 1]) << 16 | UInt32(bytes[$0 + 2]) << 24)
                return Float(v >> 8) / 8_388_608
            }
        case (3, 32):
            samples = stride(from: payload.lowerBound, to: payload.upperBound - 3, by: 4).map {
                Float(bitPattern: UInt32(u32($0)))
            }
        default:
            throw Failure.unsupported("format \(format), \(bits) bits")
        }
    }
}
