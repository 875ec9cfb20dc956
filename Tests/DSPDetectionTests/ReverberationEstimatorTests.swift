import DSPCore
import DSPDetection
import DSPIO
import DSPSpectral
import Foundation
import Testing
import TestSupport

/// ReverberationEstimator on speech convolved with synthetic room responses of known RT60 and
/// C50; its streaming contract and its configuration's validation.
@Suite("ReverberationEstimator")
struct ReverberationEstimatorTests {
    static let rate = 16_000

    /// A TestAudio speech file at 16 kHz mono.
    static func speech16k(_ name: String) throws -> [Float] {
        let reader = try AudioFileReader(path: TestAudio.path(name))
        defer { reader.close() }
        var samples = [Float](repeating: 0, count: reader.frameCount * reader.channelCount)
        let got = try samples.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
        let channels = reader.channelCount
        let mono = (0..<(got / channels)).map { f in (0..<channels).reduce(Float(0)) { $0 + samples[f * channels + $1] } / Float(channels) }
        if reader.sampleRate == rate { return mono }
        return try Resampler(inputRate: reader.sampleRate, outputRate: rate, trimsLeadingDelay: true).processAll(mono)
    }

    /// A synthetic room response: a direct-path impulse at 0 and, from 1 ms, Gaussian noise
    /// under an exponential envelope that falls 60 dB in `rt60` seconds, scaled so that the
    /// direct-to-reverberant energy ratio is `drrDB`. Length 1.2 × RT60 (72 dB down).
    static func roomResponse(rt60: Double, drrDB: Double, seed: UInt64) -> [Float] {
        var g = SplitMix64(seed: seed)
        let length = Int(1.2 * rt60 * Double(rate))
        var h = [Double](repeating: 0, count: length)
        let decayPerSample = 6.9078 / (rt60 * Double(rate))   // amplitude: e^(−6.9078 t / T) = −60 dB at T
        var tail = 0.0
        for n in 16..<length {
            // Box–Muller Gaussian.
            let u1 = Swift.max(g.unitInterval(), 1e-300), u2 = g.unitInterval()
            let gauss = (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
            h[n] = gauss * exp(-decayPerSample * Double(n))
            tail += h[n] * h[n]
        }
        h[0] = (tail * pow(10, drrDB / 10)).squareRoot()
        let norm = 1 / (h[0] * h[0] + tail).squareRoot()
        return h.map { Float($0 * norm) }
    }

    /// The truth from the response itself: RT60 by Schroeder backward integration and a T20 fit
    /// (−5 to −25 dB, least squares, extrapolated to 60 dB), C50 = 10·log10(E(0–50 ms)/E(50 ms–∞))
    /// from the direct sound at sample 0.
    static func truth(_ h: [Float]) -> (rt60: Double, c50: Double) {
        var edc = [Double](repeating: 0, count: h.count + 1)
        for n in stride(from: h.count - 1, through: 0, by: -1) { edc[n] = edc[n + 1] + Double(h[n]) * Double(h[n]) }
        let total = edc[0]
        var ts: [Double] = [], ls: [Double] = []
        for n in 0..<h.count {
            let l = 10 * log10(edc[n] / total)
            if l <= -5, l >= -25 {
                ts.append(Double(n) / Double(rate))
                ls.append(l)
            }
        }
        let m = Double(ts.count)
        let st = ts.reduce(0, +), sl = ls.reduce(0, +)
        let stt = ts.reduce(0) { $0 + $1 * $1 }, stl = zip(ts, ls).reduce(0) { $0 + $1.0 * $1.1 }
        let slope = (m * stl - st * sl) / (m * stt - st * st)
        let split = rate / 20
        let c50 = 10 * log10((total - edc[split]) / edc[split])
        return (-60 / slope, c50)
    }

    /// `x` convolved with `h` (overlap-add over 65536-point FFTs), the length of `x`.
    static func convolve(_ x: [Float], _ h: [Float]) throws -> [Float] {
        let size = 65_536
        let block = size - h.count
        precondition(block > 0)
        let fft = try RealFFT(size: size)
        let bins = fft.binCount
        var hr = [Float](repeating: 0, count: bins), hi = hr
        var padded = [Float](repeating: 0, count: size)
        for i in 0..<h.count { padded[i] = h[i] }
        padded.withUnsafeBufferPointer { p in
            hr.withUnsafeMutableBufferPointer { r in hi.withUnsafeMutableBufferPointer { fft.forward(p, real: r, imaginary: $0) } }
        }
        var y = [Float](repeating: 0, count: x.count + size)
        var xr = hr, xi = hi, out = padded
        var start = 0
        while start < x.count {
            for i in 0..<size { padded[i] = 0 }
            for i in 0..<Swift.min(block, x.count - start) { padded[i] = x[start + i] }
            padded.withUnsafeBufferPointer { p in
                xr.withUnsafeMutableBufferPointer { r in xi.withUnsafeMutableBufferPointer { fft.forward(p, real: r, imaginary: $0) } }
            }
            for k in 0..<bins {
                let re = xr[k] * hr[k] - xi[k] * hi[k], im = xr[k] * hi[k] + xi[k] * hr[k]
                xr[k] = re; xi[k] = im
            }
            xr.withUnsafeBufferPointer { r in xi.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { fft.inverse(real: r, imaginary: i, into: $0) } } }
            for i in 0..<size { y[start + i] += out[i] / Float(size) }
            start += block
        }
        return Array(y[..<x.count])
    }

    static func estimate(_ x: [Float], configuration: ReverberationEstimator.Configuration = .init()) throws -> ReverberationEstimate {
        let unit = try ReverberationEstimator(configuration: configuration)
        _ = unit.processAll(x)
        return unit.finalize()
    }

    /// Two voices back to back per recording; voices split between calibration and report.
    static let calibrationSpeech = ["speech_en-us_16k.wav", "speech_de_16k.flac"]
    static let reportSpeech = ["speech_es_16k.aiff", "speech_en-f3_16k.wav"]

    /// The rooms: RT60 0.3, 0.6, 1.0 and 1.4 s, each at a direct-to-reverberant ratio of −5, 0
    /// and +5 dB.
    static let rooms: [(rt60: Double, drrDB: Double)] = [0.3, 0.6, 1.0, 1.4].flatMap { rt in [-5.0, 0, 5].map { (rt, $0) } }

    @Test("RT60 within 25 % (all but one room) and C50 median error ≤ 3 dB on voices the calibration never saw")
    func accuracy() throws {
        let speech = try Self.reportSpeech.flatMap { try Self.speech16k($0) }
        var c50Errors: [Double] = []
        var estimated = 0, within25 = 0
        var lines: [String] = []
        for (index, room) in Self.rooms.enumerated() {
            let h = Self.roomResponse(rt60: room.rt60, drrDB: room.drrDB, seed: UInt64(100 + index))
            let truth = Self.truth(h)
            let e = try Self.estimate(try Self.convolve(speech, h))
            lines.append(String(
                format: "RT60 %.2f s DRR %+.0f dB: truth RT60 %.3f C50 %.2f | estimate RT60 %.3f C50 %.2f (%d decays)", room.rt60,
                room.drrDB, truth.rt60, truth.c50, e.rt60Seconds ?? .nan, e.c50DB ?? .nan, e.decayCount))
            guard let rt60 = e.rt60Seconds, let c50 = e.c50DB else { continue }
            estimated += 1
            if abs(rt60 / truth.rt60 - 1) <= 0.25 { within25 += 1 }
            #expect(abs(rt60 / truth.rt60 - 1) <= 0.4, "\(room): \(rt60) s vs \(truth.rt60) s")
            c50Errors.append(abs(c50 - truth.c50))
        }
        let medianC50 = c50Errors.sorted()[c50Errors.count / 2]
        print("ReverberationEstimator: \(estimated)/\(Self.rooms.count) rooms estimated, RT60 within 25 % in \(within25), C50 median abs error \(medianC50) dB\n" + lines.joined(separator: "\n"))
        // Measured: 11 of 12 estimated (RT60 1.4 s at DRR −5 dB gives 16 decays in 12 s of
        // speech, under the 20 needed), 10 of 11 within 25 % (RT60 1.0 s at −5 dB: +39 %).
        #expect(estimated >= Self.rooms.count - 1)
        #expect(within25 >= estimated - 1)
        #expect(medianC50 <= 3)
        #expect(c50Errors.max()! <= 4.5)
    }

    @Test("dry speech reads a short RT60 and a high C50")
    func drySpeech() throws {
        for voices in [Self.calibrationSpeech, Self.reportSpeech] {
            let e = try Self.estimate(try voices.flatMap { try Self.speech16k($0) })
            #expect(e.status == .estimated && e.rt60Seconds! <= 0.3 && e.c50DB! >= 10, "\(voices): \(e)")
        }
    }

    @Test("silence, a short stream and steady noise give no estimate")
    func noEstimate() throws {
        let silence = try Self.estimate([Float](repeating: 0, count: Self.rate * 5))
        #expect(silence.status == .tooFewDecays && silence.rt60Seconds == nil && silence.c50DB == nil && silence.decayCount == 0)
        #expect(silence.frameCount == 312 && silence.inputSeconds == 5)
        #expect(try Self.estimate([]) == ReverberationEstimate.empty)
        let short = try Self.estimate(Array(try Self.speech16k("speech_en-us_16k.wav")[..<16_000]))
        #expect(short.status == .tooFewDecays)
        var g = SplitMix64(seed: 4)
        let noise = (0..<(Self.rate * 5)).map { _ in Float(0.1 * g.uniform()) }
        #expect(try Self.estimate(noise).status == .tooFewDecays)
    }

    /// Issue 19: in a long room the tracked floor (the least level over about 2 s) rises with
    /// the reverberant field while the talker speaks, so few decays clear it; a background level
    /// given from outside (what `AnalysisChain` takes from the background-noise estimator, which
    /// holds the field out) keeps them. RT60 1.8 s at a DRR of −5 dB (the scene corpus's
    /// `rooms_0046`: no estimate before) over white noise at −65 dBFS, whose level in each decay
    /// band is its share of the bins (8 and 34 of 64).
    @Test("a long room: a background level from outside keeps the decays the tracked floor loses")
    func backgroundFromOutside() throws {
        let speech = try Self.reportSpeech.flatMap { try Self.speech16k($0) }
        let h = Self.roomResponse(rt60: 1.8, drrDB: -5, seed: 61)
        let truth = Self.truth(h)
        var g = SplitMix64(seed: 62)
        let sigma = Float(Decibels.toAmplitude(-65) * 3.0.squareRoot())   // uniform ±a: a²/3 mean square
        let y = try Self.convolve(speech, h).map { $0 + sigma * Float(2 * g.uniform() - 1) }
        let plain = try Self.estimate(y)
        let unit = try ReverberationEstimator()
        for (band, share) in [8.0 / 64, 34.0 / 64].enumerated() {
            unit.setBackground(Float(-65 + Decibels.fromPower(share)), band: band)
        }
        _ = unit.processAll(y)
        let helped = unit.finalize()
        let summary = "truth RT60 \(truth.rt60) s C50 \(truth.c50) dB; tracked floor: \(plain); with the background: \(helped)"
        // Measured: 14 decays on the tracked floor (too few), 21 with the background: RT60 2.38 s
        // for 1.79 (+33 %, within the 40 % the accuracy test allows any room), C50 −2.5 dB for −0.4.
        #expect(plain.status == .tooFewDecays && helped.decayCount >= plain.decayCount + 5, "\(summary)")
        #expect(helped.status == .estimated, "\(summary)")
        if let rt60 = helped.rt60Seconds, let c50 = helped.c50DB {
            #expect(abs(rt60 / truth.rt60 - 1) <= 0.4 && abs(c50 - truth.c50) <= 3, "\(summary)")
        }
        // +∞ (as after reset) is the tracked floor alone, bit for bit; NaN and bands that do not
        // exist change nothing.
        let untouched = try ReverberationEstimator()
        untouched.setBackground(.infinity, band: 0)
        untouched.setBackground(.nan, band: 1)
        untouched.setBackground(-90, band: 2)
        untouched.setBackground(-90, band: -1)
        _ = untouched.processAll(y)
        #expect(untouched.finalize() == plain)
        unit.reset()
        _ = unit.processAll(y)
        #expect(unit.finalize() == plain)
        // A level given for a later sample waits for the hop that starts there: the same as giving
        // it at once when the stream has reached that sample, in any chunking.
        let at = 256 * 200
        let early = try ReverberationEstimator()
        for band in 0..<2 { early.setBackground(-70, band: band, from: Int64(at)) }
        _ = runStream(early, y, chunking: .random)
        let late = try ReverberationEstimator()
        _ = Array(y[..<at]).withUnsafeBufferPointer { late.process($0, into: UnsafeMutableBufferPointer(start: nil, count: 0)) }
        for band in 0..<2 { late.setBackground(-70, band: band) }
        _ = Array(y[at...]).withUnsafeBufferPointer { late.process($0, into: UnsafeMutableBufferPointer(start: nil, count: 0)) }
        let delayed = early.finalize()
        #expect(delayed == late.finalize())
        #expect(delayed.decayCount != plain.decayCount, "the level moved no decay: \(delayed)")
    }

    @Test("frames holding NaN or ±∞ end decays and are counted; the estimate survives")
    func nonFinite() throws {
        let speech = try Self.calibrationSpeech.flatMap { try Self.speech16k($0) }
        let y = try Self.convolve(speech, Self.roomResponse(rt60: 0.6, drrDB: 0, seed: 7))
        let clean = try Self.estimate(y)
        var dirty = y
        // Frames are the last 128 samples of each 256-sample hop.
        let positions = Array(stride(from: 40_100, to: dirty.count, by: 47_872))
        for i in positions { dirty[i] = i % 2 == 0 ? .nan : .infinity }
        dirty[1] = .nan   // in the skipped half of the first hop: not looked at
        let e = try Self.estimate(dirty)
        #expect(positions.allSatisfy { $0 % 256 >= 128 } && e.nonFiniteFrameCount == positions.count)
        #expect(e.status == .estimated && abs(e.rt60Seconds! / clean.rt60Seconds! - 1) <= 0.1, "\(e) vs \(clean)")
    }

    @Test("the estimate is the same however the input is chunked, after flush and after reset")
    func chunking() throws {
        let speech = try Self.speech16k("speech_de_16k.flac")
        let y = try Self.convolve(speech, Self.roomResponse(rt60: 0.6, drrDB: 0, seed: 3))
        let make = { try ReverberationEstimator() }
        let failures = try checkStreamingUnit(make, input: y, expectedCount: 0, same: ==)
        #expect(failures.isEmpty, "\(failures)")
        let reference = try make()
        _ = reference.processAll(y)
        let expected = reference.finalize()
        #expect(expected.decayCount > 0)
        for chunking in Chunking.allCases {
            let unit = try make()
            _ = runStream(unit, y, chunking: chunking)
            #expect(unit.finalize() == expected, "\(chunking)")
        }
        let unit = try make()
        _ = runStream(unit, Array(y[..<30_000]), chunking: .random)   // flushed: a fresh stream follows
        _ = y[..<20_000].withContiguousStorageIfAvailable { unit.process($0, into: UnsafeMutableBufferPointer(start: nil, count: 0)) }
        unit.reset()
        _ = y.withUnsafeBufferPointer { unit.process($0, into: UnsafeMutableBufferPointer(start: nil, count: 0)) }
        #expect(unit.estimate.decayCount >= expected.decayCount)
        #expect(unit.finalize() == expected || unit.finalize() == expected)
        #expect(unit.finalize() == ReverberationEstimate.empty)
    }

    @Test("refuses each out-of-range field; reports its memory")
    func configuration() throws {
        typealias C = ReverberationEstimator.Configuration
        let refused: [(C, parameter: String, value: String)] = [
            (C(sampleRate: 7999), "sampleRate", "7999"),
            (C(sampleRate: 48_001), "sampleRate", "48001"),
            (C(hopSeconds: 0.004), "hopSeconds", "0.004"),
            (C(hopSeconds: .nan), "hopSeconds", "nan"),
            (C(minimumDecaySeconds: 0.01), "minimumDecaySeconds", "0.01"),
            (C(minimumFallDB: 61), "minimumFallDB", "61.0"),
            (C(floorMarginDB: -1), "floorMarginDB", "-1.0"),
            (C(rt60Quantile: 1), "rt60Quantile", "1.0"),
            (C(minimumDecayCount: 0), "minimumDecayCount", "0"),
        ]
        let failures = checkRefusals(refused) { try ReverberationEstimator(configuration: $0) }
        #expect(failures.isEmpty, "\(failures)")
        let unit = try ReverberationEstimator()
        #expect(unit.hopLength == 256 && unit.frameLength == 128 && unit.bandCentersHz == [707, 2828])
        #expect(unit.memoryFootprint.ownedBytes > 0 && unit.memoryFootprint.ownedBytes < 16 * 1024)
        #expect(try ReverberationEstimator(configuration: .init(sampleRate: 8000)).bandCentersHz == [707, 2828])
    }
}
