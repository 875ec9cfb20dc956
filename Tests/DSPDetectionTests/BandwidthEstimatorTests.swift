import DSPCore
import DSPDetection
import DSPIO
import DSPSpectral
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
    @Test("bundled files at their own rates: 16 kHz speech reads sox's anti-alias edge just under 8 kHz, 48 kHz espeak-ng speech about 10.5 kHz")
    func bundledFiles() throws {
        // The 16 kHz speech was resampled by `sox rate -v 16k`: its spectrum falls from −27 dB
        // at 7.69 kHz to −43 dB at 7.81 kHz and −83 dB at 8 kHz (LTAS re the 2–4 kHz level),
        // so its edge is about 7.75 kHz, not the Nyquist frequency (the white noise generated
        // at 16 kHz does reach it).
        let expected: [(String, BandwidthClass, ClosedRange<Double>)] = [
            ("speech_en-us_16k.wav", .wideband, 7600...8000),
            ("speech_de_16k.flac", .wideband, 7600...8000),
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
        // The tone's spectrum is the window's main lobe, ±4 bins (±190 Hz at 48 kHz): it ends
        // where that falls under the signal floor, about 1.16 kHz.
        let (sine, rate) = try Self.mono("sine_1k_-20dBFS_48k_f32.wav")
        let tone = try Self.estimate(sine, rate: rate)
        #expect(tone.status == .rollOff && tone.bandwidthClass == .narrowband && abs(tone.bandwidthHz! / 1000 - 1) <= 0.2, "\(tone)")
        // A tone with nothing under 4 kHz is measured against itself (the reference level is
        // at least the loudest band's less 40 dB), not read as fullband.
        let high = (0..<48_000).map { Float(0.1 * sin(2 * Double.pi * 10_000 * Double($0) / 48_000)) }
        let highTone = try Self.estimate(high, rate: 48_000)
        #expect(highTone.bandwidthClass == .superWideband && abs(highTone.bandwidthHz! / 10_000 - 1) <= 0.1, "\(highTone)")

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
            (C(sampleRate: 48_000, signalRangeDB: 19), "signalRangeDB", "19.0"),
            (C(sampleRate: 48_000, signalRangeDB: .nan), "signalRangeDB", "nan"),
            (C(sampleRate: 48_000, edgeDepthDB: 2), "edgeDepthDB", "2.0"),
            (C(sampleRate: 48_000, edgeDepthDB: 31), "edgeDepthDB", "31.0"),
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
        // Each limit is its band's Nyquist frequency + 10 % and belongs to the lower class.
        #expect(BandwidthClass(bandwidthHz: 4400) == .narrowband && BandwidthClass(bandwidthHz: 4401) == .wideband)
        #expect(BandwidthClass(bandwidthHz: 8800) == .wideband && BandwidthClass(bandwidthHz: 8801) == .superWideband)
        #expect(BandwidthClass(bandwidthHz: 17_600) == .superWideband && BandwidthClass(bandwidthHz: 17_601) == .fullband)
    }
}

// MARK: Channel skirts, noise floors and artefacts (issue 19's failure modes)

extension BandwidthEstimatorTests {
    /// `x` through the linear-phase FIR `taps` (overlap-add with 8192-point FFTs), delay removed:
    /// the output is aligned with the input and as long.
    static func filter(_ x: [Float], taps: [Float]) throws -> [Float] {
        let size = 8192
        let block = size - taps.count + 1
        let fft = try RealFFT(size: size)
        let bins = size / 2 + 1
        var hr = [Float](repeating: 0, count: bins), hi = [Float](repeating: 0, count: bins)
        var xr = [Float](repeating: 0, count: bins), xi = [Float](repeating: 0, count: bins)
        var frame = [Float](repeating: 0, count: size), out = [Float](repeating: 0, count: size)
        let padded = taps + [Float](repeating: 0, count: size - taps.count)
        padded.withUnsafeBufferPointer { p in
            hr.withUnsafeMutableBufferPointer { r in hi.withUnsafeMutableBufferPointer { i in fft.forward(p, real: r, imaginary: i) } }
        }
        let delay = taps.count / 2
        var y = [Float](repeating: 0, count: x.count + taps.count)
        var start = 0
        while start < x.count + delay {
            for t in 0..<size { frame[t] = t < block && start + t < x.count ? x[start + t] : 0 }
            frame.withUnsafeBufferPointer { p in
                xr.withUnsafeMutableBufferPointer { r in xi.withUnsafeMutableBufferPointer { i in fft.forward(p, real: r, imaginary: i) } }
            }
            for k in 0..<bins {
                let re = xr[k] * hr[k] - xi[k] * hi[k], im = xr[k] * hi[k] + xi[k] * hr[k]
                xr[k] = re / Float(size)
                xi[k] = im / Float(size)
            }
            xr.withUnsafeBufferPointer { r in xi.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { fft.inverse(real: r, imaginary: i, into: $0) } } }
            for t in 0..<size where start + t < y.count { y[start + t] += out[t] }
            start += block
        }
        return Array(y[delay..<(delay + x.count)])
    }

    /// A Kaiser-windowed sinc low-pass at `cutoffHz` (−6 dB there), `count` taps (odd), unit DC
    /// gain. With β = 8.6 the transition from the passband to −86 dB is about
    /// `5.5 · rate / count` Hz wide.
    static func lowPass(cutoffHz: Double, rate: Int, count: Int, beta: Double = 8.6) -> [Float] {
        func besselI0(_ x: Double) -> Double {
            var sum = 1.0, term = 1.0, k = 1.0
            while term > 1e-12 * sum {
                term *= (x / (2 * k)) * (x / (2 * k))
                sum += term
                k += 1
            }
            return sum
        }
        let fc = cutoffHz / Double(rate), m = Double(count - 1) / 2
        var h = (0..<count).map { n -> Double in
            let t = Double(n) - m
            let sinc = t == 0 ? 2 * fc : sin(2 * Double.pi * fc * t) / (Double.pi * t)
            let r = t / m
            return sinc * besselI0(beta * (1 - r * r).squareRoot()) / besselI0(beta)
        }
        let dc = h.reduce(0, +)
        h = h.map { $0 / dc }
        return h.map(Float.init)
    }

    /// `x` through issue 19's scipy round trip to `2 × cutoffHz` and back, without its images:
    /// twice through a Kaiser (β 8.6) sinc at `cutoffHz` whose transition spans ±27 % of it
    /// (−1 dB at 0.8, −12 dB at 1.0, −40 dB at 1.2 of the cut-off, as `resample_poly`'s).
    static func scipyLike(_ x: [Float], cutoffHz: Double, rate: Int) throws -> [Float] {
        let taps = lowPass(cutoffHz: cutoffHz, rate: rate, count: 2 * Int((Double(rate) / (0.2 * cutoffHz)).rounded()) + 1)
        return try filter(try filter(x, taps: taps), taps: taps)
    }

    /// TestAudio speech `name` at `rate` plus a white floor 35 dB under the speech's mean
    /// square, as issue 19's scene material builds it. The 48 kHz espeak-ng speech's own
    /// bandwidth is about 10.5 kHz, the 16 kHz one's 7.75 kHz.
    static func speechOverFloor(_ name: String = "speech_en-us_48k.flac", rate: Int, seed: UInt64) throws -> [Float] {
        var (speech, fileRate) = try mono(name)
        if fileRate != rate {
            speech = try Resampler(inputRate: fileRate, outputRate: rate, trimsLeadingDelay: true).processAll(speech)
            fileRate = rate
        }
        let power = speech.reduce(0) { $0 + Double($1) * Double($1) } / Double(speech.count)
        let scale = Float((power * pow(10, -3.5) * 3).squareRoot())  // uniform on ±a has power a²/3
        var g = SplitMix64(seed: seed)
        return speech.map { $0 + scale * Float(g.uniform()) }
    }

    /// Rounds to 16 bits with TPDF dither (±1 LSB), as a 16-bit file stores it: a white floor at
    /// about −96 dBFS up to the Nyquist frequency.
    static func dithered16(_ x: [Float], seed: UInt64) -> [Float] {
        var g = SplitMix64(seed: seed)
        return x.map { ((($0 * 32_768) + Float(g.unitInterval() - g.unitInterval())).rounded()) / 32_768 }
    }

    @Test("an 8 kHz channel reads about 4 kHz, narrowband, whatever its skirt (resampler, wide Kaiser, brick wall) and under 16-bit dither")
    func telephoneSkirts() throws {
        for rate in [44_100, 48_000] {
            let x = try Self.speechOverFloor(rate: rate, seed: 21)
            // The library's resampler through 8 kHz and back (pass to 3.5 kHz, stop from 4 kHz),
            // stored with dither: the dither lies ~80 dB under the speech band up to 24 kHz.
            let resampled = Self.dithered16(try Self.bandLimit(x, rate: rate, through: 8000), seed: 22)
            // Issue 19's scipy round trip: −1 dB at 3.2 kHz, −12 dB at 4 kHz, −40 dB at 4.8 kHz.
            // The earlier estimator read the foot of this skirt (4.65–4.8 kHz, wideband).
            let kaiser = try Self.scipyLike(x, cutoffHz: 4000, rate: rate)
            // A brick wall: 2047 taps, transition about 130 Hz.
            let brick = try Self.filter(x, taps: Self.lowPass(cutoffHz: 4000, rate: rate, count: 2047))
            for (name, y) in [("resampler + dither", resampled), ("wide Kaiser twice", kaiser), ("brick wall", brick)] {
                let e = try Self.estimate(y, rate: rate)
                print("8 kHz channel, \(name), \(rate) Hz: \(e.bandwidthHz ?? .nan) Hz, drop \(e.edgeDropDB ?? .nan) dB")
                #expect(e.status == .rollOff && e.bandwidthClass == .narrowband, "\(name) \(rate): \(e)")
                #expect(abs((e.bandwidthHz ?? 0) / 4000 - 1) <= 0.1, "\(name) \(rate): \(e)")
            }
        }
    }

    @Test("a white floor 35 dB under the speech counts; a floor of artefacts 55 dB under the speech band does not")
    func floorsAndArtefacts() throws {
        // 44.1 kHz speech (own bandwidth ~10.5 kHz) over a white floor, unfiltered: the floor
        // carries the spectrum to the Nyquist frequency (issue 19's "lowpass-22050").
        let open = try Self.estimate(try Self.speechOverFloor(rate: 44_100, seed: 31), rate: 44_100)
        #expect(open.status == .nyquist && open.bandwidthHz == 22_050 && open.bandwidthClass == .fullband, "\(open)")

        // 48 kHz speech over the floor through a scipy-like 22.05 kHz round trip, stored with
        // 16-bit dither (the earlier estimator read such files at 13.2 kHz or 24 kHz).
        let x = try Self.speechOverFloor(rate: 48_000, seed: 32)
        let swb = try Self.estimate(Self.dithered16(try Self.scipyLike(x, cutoffHz: 11_025, rate: 48_000), seed: 33), rate: 48_000)
        #expect(swb.bandwidthClass == .superWideband && abs(swb.bandwidthHz! / 11_025 - 1) <= 0.1, "\(swb)")
        // Speech from 16 kHz (its own edge at 7.75 kHz) over the floor at 48 kHz: above 7.75 kHz
        // only the floor, a shelf 20–30 dB under the speech, reaches the channel's edge.
        let shelf = try Self.speechOverFloor("speech_en-us_16k.wav", rate: 48_000, seed: 34)
        let through32 = try Self.estimate(try Self.bandLimit(shelf, rate: 48_000, through: 32_000), rate: 48_000)
        #expect(through32.bandwidthClass == .superWideband && abs(through32.bandwidthHz! / 16_000 - 1) <= 0.1, "\(through32)")
        // An MP3-like brick wall at 11 kHz: the floor's shelf, then nothing.
        let mp3 = try Self.estimate(try Self.filter(shelf, taps: Self.lowPass(cutoffHz: 11_000, rate: 48_000, count: 2047)), rate: 48_000)
        #expect(mp3.bandwidthClass == .superWideband && abs(mp3.bandwidthHz! / 11_000 - 1) <= 0.1, "\(mp3)")

        // A scipy-like 8 kHz channel decoded with noise-shaped dither, like opusdec's: white noise
        // differenced twice (+12 dB per octave), whose level per Hz at 24 kHz is 55 dB under
        // the speech's mean level per Hz over 100 Hz–3.9 kHz. It is not the signal's bandwidth.
        let telephone = try Self.scipyLike(x, cutoffHz: 4000, rate: 48_000)
        let power = telephone.reduce(0) { $0 + Double($1) * Double($1) } / Double(telephone.count)
        // Density at Nyquist of the second difference of white noise of power σ²: 16 σ² / (rate/2).
        let sigma2 = power / 3900 * pow(10, -5.5) * 24_000 / 16
        var g = SplitMix64(seed: 35)
        let white = (0..<telephone.count + 2).map { _ in Float((3 * sigma2).squareRoot() * g.uniform()) }
        var shaped = telephone
        for t in 0..<shaped.count {
            let difference: Float = white[t + 2] - 2 * white[t + 1] + white[t]
            shaped[t] += difference
        }
        let nb = try Self.estimate(shaped, rate: 48_000)
        #expect(nb.status == .rollOff && nb.bandwidthClass == .narrowband && abs(nb.bandwidthHz! / 4000 - 1) <= 0.1, "\(nb)")
        // With a signal range of 60 dB the shaped floor is content, and reaches 24 kHz.
        let deeper = try Self.estimate(shaped, rate: 48_000, configuration: .init(sampleRate: 48_000, signalRangeDB: 60))
        #expect(deeper.status == .nyquist && deeper.bandwidthClass == .fullband, "\(deeper)")
        print("floors: open \(open.bandwidthHz!), through 22.05 kHz \(swb.bandwidthHz!), shelf through 32 kHz \(through32.bandwidthHz!), MP3-like shelf \(mp3.bandwidthHz!), shaped \(nb.bandwidthHz!) (60 dB range: \(deeper.bandwidthHz!))")
    }
}
