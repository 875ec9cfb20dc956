import DSPCore
import DSPDetection
import DSPIO
import Foundation
import Testing
import TestSupport

/// BandwidthEstimator on band-limited noise and speech, tones and silence; its streaming
/// contract and its configuration's validation.
@Suite("BandwidthEstimator")
struct BandwidthEstimatorTests {
    /// A TestAudio file as mono Float at its own rate (channels averaged).
    static func mono(_ name: String) throws -> (samples: [Float], rate: Int) {
        let reader = try AudioFileReader(path: TestAudio.path(name))
        defer { reader.close() }
        var samples = [Float](repeating: 0, count: reader.frameCount * reader.channelCount)
        let got = try samples.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
        let channels = reader.channelCount
        let frames = got / channels
        let mono = (0..<frames).map { f in (0..<channels).reduce(Float(0)) { $0 + samples[f * channels + $1] } / Float(channels) }
        return (mono, reader.sampleRate)
    }

    /// `x` at `rate` resampled to `through` and back: band-limited to about `through / 2`.
    static func bandLimit(_ x: [Float], rate: Int, through: Int) throws -> [Float] {
        let down = try Resampler(inputRate: rate, outputRate: through, trimsLeadingDelay: true).processAll(x)
        return try Resampler(inputRate: through, outputRate: rate, trimsLeadingDelay: true).processAll(down)
    }

    /// Uniform white noise, RMS about −20 dBFS.
    static func white(count: Int, seed: UInt64) -> [Float] {
        var g = SplitMix64(seed: seed)
        return (0..<count).map { _ in Float(0.17 * g.uniform()) }
    }

    /// Pink noise (Paul Kellett's economy filter on white noise), RMS about −20 dBFS.
    static func pink(count: Int, seed: UInt64) -> [Float] {
        var g = SplitMix64(seed: seed)
        var b0 = 0.0, b1 = 0.0, b2 = 0.0
        return (0..<count).map { _ in
            let w = g.uniform()
            b0 = 0.99765 * b0 + w * 0.0990460
            b1 = 0.96300 * b1 + w * 0.2965164
            b2 = 0.57000 * b2 + w * 1.0526913
            return Float(0.05 * (b0 + b1 + b2 + w * 0.1848))
        }
    }

    static func estimate(_ x: [Float], rate: Int, configuration: BandwidthEstimator.Configuration? = nil) throws -> BandwidthEstimate {
        let unit = try BandwidthEstimator(configuration: configuration ?? .init(sampleRate: rate))
        _ = unit.processAll(x)
        return unit.finalize()
    }

    /// A case: a signal, the bandwidth it should read, its class.
    struct Case: CustomStringConvertible {
        var name: String
        var samples: [Float]
        var rate: Int
        var expectedHz: Double
        var description: String { name }
    }

    /// Noise and speech band-limited through 8, 16, 22.05, 32 and 44.1 kHz at 48 kHz, plus the
    /// unlimited signals. The bundled speech is espeak-ng's, synthesised at 22.05 kHz: its own
    /// bandwidth is about 10.5–11 kHz, so limits above that leave it unchanged.
    static func cases() throws -> [Case] {
        var cases: [Case] = []
        let rate = 48_000
        let speechOwnHz = 11_025.0
        let sources: [(String, [Float], Double)] = [
            ("white", white(count: 3 * rate, seed: 11), 24_000),
            ("pink", pink(count: 3 * rate, seed: 12), 24_000),
            ("pink file", try mono("noise_pink_48k_s24.flac").samples, 24_000),
            ("speech en-us", try mono("speech_en-us_48k.flac").samples, speechOwnHz),
            ("speech de", try mono("speech_de_48k.flac").samples, speechOwnHz),
            ("speech es", try mono("speech_es_48k.w64").samples, speechOwnHz),
        ]
        for (name, x, ownHz) in sources {
            cases.append(Case(name: "\(name) unlimited", samples: x, rate: rate, expectedHz: ownHz))
            for through in [8000, 16_000, 22_050, 32_000, 44_100] {
                let limit = Double(through) / 2
                cases.append(Case(
                    name: "\(name) through \(through) Hz", samples: try bandLimit(x, rate: rate, through: through), rate: rate,
                    expectedHz: Swift.min(limit, ownHz)))
            }
        }
        return cases
    }

    @Test("reads the bandwidth of band-limited noise and speech within 10 %, class exact")
    func bandLimited() throws {
        var exact = 0, within = 0, total = 0
        var lines: [String] = []
        for c in try Self.cases() {
            let e = try Self.estimate(c.samples, rate: c.rate)
            total += 1
            let hz = e.bandwidthHz ?? .nan
            let expectedClass = BandwidthClass(bandwidthHz: c.expectedHz)
            let ratio = hz / c.expectedHz
            if e.bandwidthClass == expectedClass { exact += 1 }
            if abs(ratio - 1) <= 0.1 { within += 1 }
            lines.append("\(c.name): \(Int(hz)) Hz (\(String(format: "%.3f", ratio)) of \(Int(c.expectedHz))), \(e.bandwidthClass?.description ?? "-"), drop \(e.edgeDropDB.map { String(format: "%.0f", $0) } ?? "-") dB")
            #expect(e.bandwidthClass == expectedClass, "\(c.name): \(e)")
            #expect(abs(ratio - 1) <= 0.1, "\(c.name): \(hz) Hz, expected \(c.expectedHz)")
        }
        print("BandwidthEstimator: class exact \(exact)/\(total), within 10 % \(within)/\(total)\n" + lines.joined(separator: "\n"))
    }
}


extension BandwidthEstimatorTests {
    @Test("bundled files at their own rates: 16 kHz speech reads its Nyquist frequency, 48 kHz espeak-ng speech about 10.8 kHz")
    func bundledFiles() throws {
        let expected: [(String, BandwidthClass, ClosedRange<Double>)] = [
            ("speech_en-us_16k.wav", .wideband, 8000...8000),
            ("speech_de_16k.flac", .wideband, 8000...8000),
            ("noise_white_16k.wav", .wideband, 8000...8000),
            ("speech_en-f3_48k.ogg", .superWideband, 9900...12_100),
            ("speech_2ch_en-us_de_44k1.flac", .superWideband, 9900...12_100),
        ]
        for (name, bandwidthClass, range) in expected {
            let (x, rate) = try Self.mono(name)
            let e = try Self.estimate(x, rate: rate)
            print("\(name): \(e.bandwidthHz ?? .nan) Hz \(e.status) drop \(e.edgeDropDB ?? .nan)")
            #expect(e.bandwidthClass == bandwidthClass, "\(name): \(e)")
            #expect(range.contains(e.bandwidthHz ?? -1), "\(name): \(e)")
        }
    }

    @Test("8 and 192 kHz streams; band-limited speech stored as 16-bit with dither; speech in noise")
    func ratesAndFloors() throws {
        // Telephone-rate white noise reaches its Nyquist frequency: narrowband.
        let telephone = try Self.estimate(Self.white(count: 16_000, seed: 3), rate: 8000)
        #expect(telephone.status == .nyquist && telephone.bandwidthHz == 4000 && telephone.bandwidthClass == .narrowband)
        // 192 kHz: white noise, and the same through 44.1 kHz.
        let hires = Self.white(count: 192_000 * 2, seed: 4)
        #expect(try Self.estimate(hires, rate: 192_000).bandwidthHz == 96_000)
        let limited = try Self.estimate(try Self.bandLimit(hires, rate: 192_000, through: 44_100), rate: 192_000)
        #expect(limited.bandwidthClass == .fullband && abs(limited.bandwidthHz! / 22_050 - 1) <= 0.1, "\(limited)")
        // Telephone speech upsampled to 48 kHz and stored as 16-bit PCM with TPDF dither: the
        // dither floor extends to 24 kHz, 60+ dB under the speech.
        let (speech, rate) = try Self.mono("speech_en-us_48k.flac")
        var g = SplitMix64(seed: 9)
        let stored = try Self.bandLimit(speech, rate: rate, through: 8000).map { x in
            ((x * 32_768 + Float(g.unitInterval() - g.unitInterval())).rounded()) / 32_768
        }
        let dithered = try Self.estimate(stored, rate: rate)
        #expect(dithered.bandwidthClass == .narrowband && abs(dithered.bandwidthHz! / 4000 - 1) <= 0.1, "\(dithered)")
        // Speech in pink noise at about 10 dB SNR, then through 16 kHz: wideband.
        let noise = Self.pink(count: speech.count, seed: 8)
        let noisy = zip(speech, noise).map { $0 + 0.3 * $1 }
        let wide = try Self.estimate(try Self.bandLimit(noisy, rate: rate, through: 16_000), rate: rate)
        #expect(wide.bandwidthClass == .wideband && abs(wide.bandwidthHz! / 8000 - 1) <= 0.1, "\(wide)")
    }

    @Test("a 1 kHz sine reads about 1 kHz (the content's bandwidth); silence and a short stream have none")
    func toneAndSilence() throws {
        let (sine, rate) = try Self.mono("sine_1k_-20dBFS_48k_f32.wav")
        let tone = try Self.estimate(sine, rate: rate)
        #expect(tone.status == .rollOff && tone.bandwidthClass == .narrowband && abs(tone.bandwidthHz! / 1000 - 1) <= 0.15, "\(tone)")

        let silence = try Self.estimate([Float](repeating: 0, count: 48_000 * 3), rate: 48_000)
        #expect(silence.status == .tooLittleSignal && silence.bandwidthHz == nil && silence.bandwidthClass == nil)
        #expect(silence.analyzedFrameCount == 0 && silence.silentFrameCount == 24 && silence.inputSeconds == 3)
        // −90 dBFS noise is below the −80 dBFS silence threshold.
        let hiss = Self.white(count: 48_000, seed: 5).map { $0 * 3e-4 }
        #expect(try Self.estimate(hiss, rate: 48_000).status == .tooLittleSignal)
        // 0.375 s of noise: three frames (0.375 s), less than the 0.5 s minimum.
        let short = try Self.estimate(Self.white(count: 18_000, seed: 6), rate: 48_000)
        #expect(short.status == .tooLittleSignal && short.analyzedFrameCount == 3)
        #expect(try Self.estimate([], rate: 48_000) == BandwidthEstimate.empty)
    }

    @Test("frames holding NaN or ±∞ are skipped and counted; the others still give the bandwidth")
    func nonFinite() throws {
        let x = try Self.bandLimit(Self.white(count: 48_000 * 3, seed: 7), rate: 48_000, through: 16_000)
        let clean = try Self.estimate(x, rate: 48_000)
        var dirty = x
        dirty[100] = .nan              // frame 0
        dirty[6000 + 5] = .infinity    // frame 1
        dirty[12_000 + 1023] = -.infinity  // frame 2's last sample
        dirty[12_000 + 1024] = .nan    // between frames: not looked at
        let e = try Self.estimate(dirty, rate: 48_000)
        #expect(e.nonFiniteFrameCount == 3 && e.analyzedFrameCount == clean.analyzedFrameCount - 3)
        #expect(e.bandwidthClass == .wideband && abs(e.bandwidthHz! - clean.bandwidthHz!) <= 250, "\(e) vs \(clean)")
    }

    @Test("the estimate is the same however the input is chunked, after flush and after reset")
    func chunking() throws {
        let (speech, rate) = try Self.mono("speech_de_48k.flac")
        let x = try Self.bandLimit(speech, rate: rate, through: 16_000)
        let make = { try BandwidthEstimator(configuration: .init(sampleRate: rate)) }
        let failures = try checkStreamingUnit(make, input: x, expectedCount: 0, singleSamples: false, same: ==)
        #expect(failures.isEmpty, "\(failures)")
        let reference = try make()
        _ = reference.processAll(x)
        let expected = reference.finalize()
        #expect(expected.bandwidthClass == .wideband)
        for chunking in Chunking.allCases where chunking != .single {
            let unit = try make()
            _ = runStream(unit, x, chunking: chunking)
            #expect(unit.finalize() == expected, "\(chunking)")
        }
        let single = try make()
        _ = runStream(single, Array(x[..<60_000]), chunking: .single)
        let whole = try make()
        _ = whole.processAll(Array(x[..<60_000]))
        #expect(single.finalize() == whole.finalize())
        // Mid-stream reset, then the stream; estimate read before finalize; finalize twice.
        let unit = try make()
        _ = unit.processAll(Array(x[..<50_000]))   // processAll flushes: the next stream starts fresh
        _ = runStream(unit, Array(x[..<30_000]), chunking: .blocks1024)
        unit.reset()
        _ = x.withUnsafeBufferPointer { unit.process($0, into: UnsafeMutableBufferPointer(start: nil, count: 0)) }
        #expect(unit.estimate == expected)
        #expect(unit.finalize() == expected)
        #expect(unit.finalize() == BandwidthEstimate.empty)
    }

    @Test("refuses each out-of-range field; reports its memory")
    func configuration() throws {
        typealias C = BandwidthEstimator.Configuration
        let refused: [(C, parameter: String, value: String)] = [
            (C(sampleRate: 7999), "sampleRate", "7999"),
            (C(sampleRate: 384_001), "sampleRate", "384001"),
            (C(sampleRate: 48_000, frameSeconds: 0.001), "frameSeconds", "0.001"),
            (C(sampleRate: 48_000, frameSeconds: .nan), "frameSeconds", "nan"),
            (C(sampleRate: 48_000, framesPerSecond: 0.1), "framesPerSecond", "0.1"),
            (C(sampleRate: 48_000, framesPerSecond: 201), "framesPerSecond", "201.0"),
            (C(sampleRate: 48_000, silenceThresholdDBFS: 1), "silenceThresholdDBFS", "1.0"),
            (C(sampleRate: 48_000, silenceThresholdDBFS: -.infinity), "silenceThresholdDBFS", "-inf"),
            (C(sampleRate: 48_000, dropDB: 5), "dropDB", "5.0"),
            (C(sampleRate: 48_000, minimumAnalyzedSeconds: -1), "minimumAnalyzedSeconds", "-1.0"),
        ]
        let failures = checkRefusals(refused) { try BandwidthEstimator(configuration: $0) }
        #expect(failures.isEmpty, "\(failures)")
        let unit = BandwidthEstimator(sampleRate: 48_000)
        #expect(unit.frameLength == 1024 && unit.hopLength == 6000 && unit.configuration == C(sampleRate: 48_000))
        #expect(BandwidthEstimator(sampleRate: 16_000).frameLength == 256)
        #expect(BandwidthEstimator(sampleRate: 192_000).frameLength == 4096)
        #expect(unit.memoryFootprint.ownedBytes > 3 * 1024 * 4 && unit.memoryFootprint.ownedBytes < 64 * 1024)
        #expect(BandwidthClass.allCases.map(\.description) == ["narrowband", "wideband", "super_wideband", "fullband"])
        #expect(BandwidthClass(bandwidthHz: 4500) == .narrowband && BandwidthClass(bandwidthHz: 4501) == .wideband)
        #expect(BandwidthClass(bandwidthHz: 16_500) == .superWideband && BandwidthClass(bandwidthHz: 16_501) == .fullband)
    }
}
