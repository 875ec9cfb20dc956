import DSPAnalysis
import DSPCore
import Foundation
import Testing
import TestSupport

/// `count` frames of a sine of `frequency` Hz at peak `amplitude` in every one of `channels`.
private func sine(_ frequency: Double, amplitude: Double, seconds: Double, sampleRate: Int, channels: Int = 1) -> [Float] {
    let count = Int(seconds * Double(sampleRate))
    var out = [Float](repeating: 0, count: count * channels)
    out.withUnsafeMutableBufferPointer { p in
        for n in 0..<count {
            let v = Float(amplitude * sin(2 * .pi * frequency * Double(n) / Double(sampleRate)))
            for c in 0..<channels { p[n * channels + c] = v }
        }
    }
    return out
}

/// Deterministic noise, uniform in ±`amplitude`, with a slow envelope (so gates and LRA have work).
private func noise(seconds: Double, sampleRate: Int, channels: Int, amplitude: Double = 0.3, seed: UInt64 = 3) -> [Float] {
    var rng = SplitMix64(seed: seed)
    let count = Int(seconds * Double(sampleRate))
    var out = [Float](repeating: 0, count: count * channels)
    out.withUnsafeMutableBufferPointer { p in
        for n in 0..<count {
            let envelope = 0.55 + 0.45 * sin(2 * .pi * 0.3 * Double(n) / Double(sampleRate))
            for c in 0..<channels { p[n * channels + c] = Float(amplitude * envelope * rng.uniform()) }
        }
    }
    return out
}

// MARK: - K-weighting

@Suite("Loudness: K-weighting filter design")
struct LoudnessKWeightingTests {
    /// ITU-R BS.1770-5 Tables 1 and 2 (48 kHz).
    static let shelf = BiquadCoefficients(
        b0: 1.53512485958697, b1: -2.69169618940638, b2: 1.19839281085285, a1: -1.69065929318241, a2: 0.73248077421585)
    static let highPass = BiquadCoefficients(b0: 1, b1: -2, b2: 1, a1: -1.99004745483398, a2: 0.99007225036621)

    @Test("both designs reproduce the BS.1770 coefficients at 48 kHz", arguments: [KWeightingFilter.Design.matched, .bilinear])
    func coefficientsAt48k(design: KWeightingFilter.Design) throws {
        let filter = try KWeightingFilter(sampleRate: 48_000, design: design)
        for (ours, table) in [(filter.shelf, Self.shelf), (filter.highPass, Self.highPass)] {
            for (a, b) in [(ours.b0, table.b0), (ours.b1, table.b1), (ours.b2, table.b2), (ours.a1, table.a1), (ours.a2, table.a2)] {
                #expect(abs(a - b) < 1e-8, "\(a) vs \(b)")
            }
        }
    }

    /// Largest |response − target| in dB over `frequencies`.
    static func deviation(_ filter: KWeightingFilter, _ frequencies: StrideThrough<Double>, to target: (Double) -> Double) -> Double {
        frequencies.map { abs(filter.magnitudeDB(atFrequency: $0) - target($0)) }.max()!
    }

    @Test("16 kHz: matched within 0.01 dB of the prototype and the 48 kHz response up to 7 kHz; bilinear is not")
    func response16k() throws {
        let band = stride(from: 20.0, through: 7_000, by: 10)
        let matched = try KWeightingFilter(sampleRate: 16_000)
        let bilinear = try KWeightingFilter(sampleRate: 16_000, design: .bilinear)
        let toPrototype = Self.deviation(matched, band, to: KWeightingFilter.prototypeMagnitudeDB(atFrequency:))
        let toReference = Self.deviation(matched, band, to: KWeightingFilter.referenceMagnitudeDB(atFrequency:))
        let bilinearToPrototype = Self.deviation(bilinear, band, to: KWeightingFilter.prototypeMagnitudeDB(atFrequency:))
        let bilinearToReference = Self.deviation(bilinear, band, to: KWeightingFilter.referenceMagnitudeDB(atFrequency:))
        print("K-weighting @16 kHz, 20 Hz–7 kHz: matched \(toPrototype) dB from prototype, \(toReference) dB from 48 kHz filter; bilinear \(bilinearToPrototype) / \(bilinearToReference) dB")
        #expect(toPrototype < 0.01)
        #expect(toReference < 0.01)
        #expect(bilinearToPrototype > 0.1 && bilinearToReference > 0.1)
    }

    @Test("every rate stays within 0.01 dB of the 48 kHz response (to 0.4375 f_s, ≤ 20 kHz)",
          arguments: [11_025, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000, 88_200, 96_000, 192_000])
    func responseAllRates(rate: Int) throws {
        let filter = try KWeightingFilter(sampleRate: Double(rate))
        let top = min(0.4375 * Double(rate), 20_000)
        let deviation = Self.deviation(filter, stride(from: 20.0, through: top, by: 10), to: KWeightingFilter.referenceMagnitudeDB(atFrequency:))
        #expect(deviation < 0.01, "\(rate) Hz: \(deviation) dB")
    }

    @Test("design constants and edge rates")
    func edges() throws {
        #expect(throws: ConfigurationError.self) { try KWeightingFilter(sampleRate: 7_999) }
        #expect(throws: ConfigurationError.self) { try KWeightingFilter(sampleRate: .nan) }
        let f = try KWeightingFilter(sampleRate: 8_000)  // Nyquist 2.4 × f₀: 0.04 dB at most
        #expect(Self.deviation(f, stride(from: 20.0, through: 3_500, by: 10), to: KWeightingFilter.referenceMagnitudeDB(atFrequency:)) < 0.05)
        // The RLB high-pass gain the normative [1, −2, 1] numerator carries: +0.0433 dB.
        #expect(abs(KWeightingFilter.prototypeMagnitudeDB(atFrequency: 10_000_000) - 0.0433 - KWeightingFilter.shelfGainDB) < 1e-3)
    }
}

// MARK: - Meter behaviour

@Suite("LoudnessMeter: measures, streaming contract, edge cases")
struct LoudnessMeterTests {
    @Test("a sine reads −0.691 + 10·log10(A²/2 · |H(f)|²) at every rate", arguments: [8_000, 16_000, 44_100, 48_000, 96_000])
    func sineAnalytic(rate: Int) throws {
        for frequency in [100.0, 997, 3_000] where frequency < 0.4 * Double(rate) {
            let signal = sine(frequency, amplitude: 0.25, seconds: 2, sampleRate: rate)
            let meter = try LoudnessMeter(configuration: .init(sampleRate: rate, measuresTruePeak: false))
            let r = runMeter(meter, signal)
            let gain = meter.kWeighting.magnitudeDB(atFrequency: frequency)
            let expected = -0.691 + 10 * log10(0.25 * 0.25 / 2) + gain
            #expect(abs(r.summary.integratedLUFS - expected) < 2e-3, "\(rate) Hz, \(frequency) Hz: \(r.summary.integratedLUFS) vs \(expected)")
            #expect(abs(r.summary.maxMomentaryLUFS - expected) < 2e-3)
            #expect(abs(r.summary.samplePeakDBFS - 20 * log10(0.25)) < 0.01)
        }
    }

    @Test("a full-scale 997 Hz sine in one channel reads −3.01 LUFS (BS.1770's calibration)")
    func calibration() {
        let r = measureLoudness(sine(997, amplitude: 1, seconds: 1, sampleRate: 48_000), .init(sampleRate: 48_000, measuresTruePeak: false))
        #expect(abs(r.summary.integratedLUFS - -3.0103) < 0.001)
    }

    @Test("channel weights: L, R, C weigh 1.0, Ls and Rs 1.41, LFE 0; custom and dual mono")
    func weights() throws {
        let rate = 16_000
        let tone = sine(997, amplitude: 0.1, seconds: 1, sampleRate: rate)
        func place(_ channel: Int, of channels: Int) -> [Float] {
            var out = [Float](repeating: 0, count: tone.count * channels)
            for (i, v) in tone.enumerated() { out[i * channels + channel] = v }
            return out
        }
        func loudness(_ layout: LoudnessMeter.ChannelLayout, _ signal: [Float]) -> Double {
            measureLoudness(signal, .init(sampleRate: rate, channelLayout: layout, measuresTruePeak: false)).summary.integratedLUFS
        }
        let mono = loudness(.mono, tone)
        for c in [0, 1, 2] { #expect(abs(loudness(.surround5_1, place(c, of: 6)) - mono) < 1e-9) }
        for c in [4, 5] { #expect(abs(loudness(.surround5_1, place(c, of: 6)) - mono - 10 * log10(1.41)) < 1e-9) }
        #expect(loudness(.surround5_1, place(3, of: 6)) == -.infinity)  // LFE alone: nothing measured
        for c in [3, 4] { #expect(abs(loudness(.surround5_0, place(c, of: 5)) - mono - 10 * log10(1.41)) < 1e-9) }
        #expect(abs(loudness(.custom(weights: [2]), tone) - mono - 10 * log10(2)) < 1e-9)
        #expect(abs(loudness(.stereo, place(0, of: 2)) - mono) < 1e-9)
        // LFE is excluded from loudness but its peaks count.
        let lfe = measureLoudness(place(3, of: 6), .init(sampleRate: rate, channelLayout: .surround5_1))
        #expect(abs(lfe.summary.samplePeakDBFS - 20 * log10(0.1)) < 0.01)
    }

    /// Signals and configurations for the streaming-invariance tests.
    static let streams: [(String, LoudnessMeter.Configuration, [Float])] = [
        ("mono 16 kHz", .init(sampleRate: 16_000), noise(seconds: 5, sampleRate: 16_000, channels: 1)),
        ("stereo 44.1 kHz", .init(sampleRate: 44_100, channelLayout: .stereo, loudnessRangeHopMilliseconds: 200),
         noise(seconds: 3.5, sampleRate: 44_100, channels: 2)),
        ("5.1 22.05 kHz (uneven 10 ms steps)", .init(sampleRate: 22_050, channelLayout: .surround5_1),
         noise(seconds: 3.2, sampleRate: 22_050, channels: 6)),
        ("3 ch 96 kHz (2× true peak)", .init(sampleRate: 96_000, channelLayout: .custom(weights: [1, 0.5, 0])),
         noise(seconds: 1, sampleRate: 96_000, channels: 3)),
    ]

    @Test("chunking invariance: one buffer, 1024-sample pushes, random pushes and tiny output buffers agree exactly",
          arguments: 0..<streams.count)
    func chunking(index: Int) throws {
        let (name, configuration, signal) = Self.streams[index]
        let whole = measureLoudness(signal, configuration)
        #expect(whole.readings.count == Int((Double(whole.summary.frameCount) / Double(configuration.sampleRate) * 100).rounded(.up)))
        let pushes1024 = runMeter(try LoudnessMeter(configuration: configuration), signal, pushes: pushSizes(signal.count, size: 1024))
        let random = runMeter(try LoudnessMeter(configuration: configuration), signal, pushes: pushSizes(signal.count, seed: 9))
        let tinyRoom = runMeter(try LoudnessMeter(configuration: configuration), signal, pushes: pushSizes(signal.count, maxSize: 3000, seed: 5), room: 1)
        #expect(pushes1024 == whole, "\(name): 1024 pushes")
        #expect(random == whole, "\(name): random pushes")
        #expect(tinyRoom == whole, "\(name): one reading of room")
        // process(_:) without readings keeps the same summary.
        let plain = try LoudnessMeter(configuration: configuration)
        var offset = 0
        signal.withUnsafeBufferPointer { source in
            for n in pushSizes(signal.count, maxSize: 777, seed: 1) {
                plain.process(UnsafeBufferPointer(rebasing: source[offset..<offset + n]))
                offset += n
            }
        }
        #expect(plain.finalize() == whole.summary, "\(name): process(_:)")
    }

    @Test("maxOutputCount predicts every process(_:into:)")
    func outputCount() throws {
        let configuration = LoudnessMeter.Configuration(sampleRate: 22_050, channelLayout: .stereo)
        let meter = try LoudnessMeter(configuration: configuration)
        let signal = noise(seconds: 1.3, sampleRate: 22_050, channels: 2)
        let out = UnsafeMutableBufferPointer<LoudnessReading>.allocate(capacity: 1000)
        defer { out.deallocate() }
        var offset = 0
        signal.withUnsafeBufferPointer { source in
            for n in pushSizes(signal.count, maxSize: 1500, seed: 4) {
                let chunk = UnsafeBufferPointer(rebasing: source[offset..<offset + n])
                let predicted = meter.maxOutputCount(forInputCount: n)
                let r = meter.process(chunk, into: out)
                #expect(r.consumed == n && r.produced == predicted)
                offset += n
            }
        }
    }

    @Test("reset equivalence: process → reset → process equals a fresh meter")
    func resetEquivalence() throws {
        let (_, configuration, signal) = Self.streams[1]
        let meter = try LoudnessMeter(configuration: configuration)
        let first = runMeter(meter, signal)
        _ = runMeter(meter, noise(seconds: 2, sampleRate: 44_100, channels: 2, amplitude: 0.9, seed: 77))
        let afterFinalize = runMeter(meter, signal)
        meter.process(signal.withUnsafeBufferPointer { UnsafeBufferPointer(rebasing: $0[..<12_345]) })
        meter.reset()
        let afterReset = runMeter(meter, signal)
        #expect(afterFinalize == first)
        #expect(afterReset == first)
    }

    @Test("silence, empty input and short input read −∞; LRA 0")
    func silence() throws {
        let zeros = measureLoudness([Float](repeating: 0, count: 48_000 * 4), .init(sampleRate: 48_000))
        #expect(zeros.summary.integratedLUFS == -.infinity)
        #expect(zeros.summary.maxMomentaryLUFS == -.infinity && zeros.summary.maxShortTermLUFS == -.infinity)
        #expect(zeros.summary.samplePeakDBFS == -.infinity && zeros.summary.truePeakDBTP == -.infinity)
        #expect(zeros.summary.loudnessRangeLU == 0 && zeros.summary.relativeGateLUFS == -.infinity)
        #expect(zeros.readings.allSatisfy { $0.momentaryLUFS == -.infinity && $0.shortTermLUFS == -.infinity })
        let negativeZero = measureLoudness([Float](repeating: -0.0, count: 1_000), .init(sampleRate: 48_000))
        #expect(negativeZero.summary.samplePeakDBFS == -.infinity)

        let meter = try LoudnessMeter(configuration: .init(sampleRate: 48_000))
        meter.process(UnsafeBufferPointer(start: nil, count: 0))
        let empty = meter.finalize()
        #expect(empty == LoudnessSummary().with { $0.truePeakDBTP = -.infinity })

        // 390 ms of tone: no complete 400 ms block, so no integrated loudness; M/S still read.
        let short = measureLoudness(sine(997, amplitude: 0.5, seconds: 0.39, sampleRate: 48_000), .init(sampleRate: 48_000))
        #expect(short.summary.integratedLUFS == -.infinity && short.summary.gatedBlockCount == 0)
        #expect(short.summary.maxMomentaryLUFS > -20 && short.summary.maxMomentaryLUFS.isFinite)

        // Sound then silence: the filter settles to exact zero, so readings return to −∞.
        let tail = measureLoudness(sine(997, amplitude: 0.5, seconds: 1, sampleRate: 16_000) + [Float](repeating: 0, count: 16_000 * 4),
                                   .init(sampleRate: 16_000))
        #expect(tail.readings.last!.shortTermLUFS == -.infinity && tail.readings.last!.momentaryLUFS == -.infinity)

        // A single sample and a signal below the absolute gate.
        #expect(measureLoudness([0.5], .init(sampleRate: 16_000)).summary.samplePeakDBFS == 20 * log10(0.5))
        let quiet = measureLoudness(sine(997, amplitude: 1e-4, seconds: 1, sampleRate: 16_000), .init(sampleRate: 16_000))
        #expect(quiet.summary.integratedLUFS == -.infinity && quiet.summary.maxMomentaryLUFS < -70)
    }

    @Test("NaN and ±Inf are measured as 0 and counted; denormals and full scale are plain samples")
    func nonFinite() throws {
        var signal = noise(seconds: 3, sampleRate: 16_000, channels: 2)
        var cleaned = signal
        var bad = 0
        for i in stride(from: 5, to: signal.count, by: 997) {
            signal[i] = [Float.nan, .infinity, -.infinity][bad % 3]
            cleaned[i] = 0
            bad += 1
        }
        let configuration = LoudnessMeter.Configuration(sampleRate: 16_000, channelLayout: .stereo)
        let dirty = measureLoudness(signal, configuration)
        var clean = measureLoudness(cleaned, configuration)
        #expect(dirty.summary.nonFiniteCount == bad)
        clean.summary.nonFiniteCount = bad
        #expect(dirty == clean)
        #expect(dirty.summary.integratedLUFS.isFinite && dirty.summary.truePeakDBTP!.isFinite)

        let denormals = measureLoudness([Float](repeating: .leastNonzeroMagnitude, count: 16_000), .init(sampleRate: 16_000))
        #expect(denormals.summary.integratedLUFS == -.infinity && denormals.summary.samplePeakDBFS < -800)
        let fullScale = measureLoudness([Float](repeating: 1, count: 16_000).enumerated().map { $0.offset % 2 == 0 ? $0.element : -1 },
                                        .init(sampleRate: 16_000))
        #expect(fullScale.summary.samplePeakDBFS == 0 && fullScale.summary.integratedLUFS.isFinite)
    }

    @Test("configuration errors quote the bad value")
    func configurationErrors() {
        func fails(_ configuration: LoudnessMeter.Configuration, _ parameter: String) {
            #expect {
                try LoudnessMeter(configuration: configuration)
            } throws: { ($0 as? ConfigurationError)?.parameter == parameter }
        }
        fails(.init(sampleRate: 0), "sampleRate")
        fails(.init(sampleRate: 7_999), "sampleRate")
        fails(.init(sampleRate: 768_001), "sampleRate")
        fails(.init(channelLayout: .custom(weights: [])), "channelLayout.channelCount")
        fails(.init(channelLayout: .custom(weights: Array(repeating: 1, count: 65))), "channelLayout.channelCount")
        fails(.init(channelLayout: .custom(weights: [1, -1])), "channelLayout.weights[1]")
        fails(.init(channelLayout: .custom(weights: [.nan])), "channelLayout.weights[0]")
        fails(.init(loudnessRangeHopMilliseconds: 5), "loudnessRangeHopMilliseconds")
        fails(.init(loudnessRangeHopMilliseconds: 15), "loudnessRangeHopMilliseconds")
        fails(.init(loudnessRangeHopMilliseconds: 3010), "loudnessRangeHopMilliseconds")
        #expect(throws: ConfigurationError.self) { try TruePeakMeter(sampleRate: 48_000, channelCount: 0) }
        #expect(throws: ConfigurationError.self) { try TruePeakMeter(sampleRate: 1_000, channelCount: 1) }
        #expect((try? LoudnessMeter(configuration: .init(sampleRate: 8_000, channelLayout: .custom(weights: Array(repeating: 0, count: 64))))) != nil)
    }
}

// MARK: - True peak

@Suite("Loudness: TruePeakMeter")
struct LoudnessTruePeakTests {
    @Test("oversampling by rate; phase 0 is the identity; phases sum to 1")
    func design() throws {
        #expect(TruePeakMeter.oversamplingFactor(forSampleRate: 44_100) == 4)
        #expect(TruePeakMeter.oversamplingFactor(forSampleRate: 96_000) == 2)
        #expect(TruePeakMeter.oversamplingFactor(forSampleRate: 192_000) == 1)
        let meter = try TruePeakMeter(sampleRate: 48_000, channelCount: 1)
        let identity = meter.coefficients(phase: 0)
        #expect(identity.filter { $0 != 0 } == [1] && identity.count == TruePeakMeter.tapsPerPhase)
        for p in 1..<4 { #expect(abs(meter.coefficients(phase: p).reduce(0, +) - 1) < 1e-6) }
        // Phase 2 (half a sample) is symmetric; phases 1 and 3 mirror each other.
        #expect(meter.coefficients(phase: 2) == meter.coefficients(phase: 2).reversed())
        #expect(meter.coefficients(phase: 1) == meter.coefficients(phase: 3).reversed())
    }

    @Test("inter-sample peaks of sines up to 0.4 f_s read within 0.02 dB at 4×, also in 2 ch / 5 ch and at 2×",
          arguments: [(48_000, 1), (44_100, 2), (16_000, 5), (96_000, 2)])
    func sines(rate: Int, channels: Int) throws {
        let factor = Double(TruePeakMeter.oversamplingFactor(forSampleRate: rate))
        for fraction in [0.05, 0.125, 0.2, 0.25, 0.3] {
            // A phase that puts the crest on an oversampled point: t = (n + ½)/… between samples.
            let w = 2 * Double.pi * fraction
            let phase = Double.pi / 2 - w * 0.5
            let count = 4_000
            var signal = [Float](repeating: 0, count: count * channels)
            for n in 0..<count {
                let taper = min(1, Double(min(n, count - 1 - n)) / 400)
                for c in 0..<channels { signal[n * channels + c] = Float(0.7 * taper * sin(w * Double(n) + phase)) }
            }
            let meter = try TruePeakMeter(sampleRate: rate, channelCount: channels)
            signal.withUnsafeBufferPointer { meter.process($0) }
            let summary = meter.finalize()
            #expect(abs(summary.truePeakDBTP - 20 * log10(0.7)) < 0.02, "\(rate) Hz ×\(factor), f = \(fraction) f_s: \(summary.truePeakDBTP)")
            #expect(summary.samplePeakDBFS < summary.truePeakDBTP)
            #expect(summary.channelTruePeakDBTP == [Double](repeating: summary.truePeakDBTP, count: channels))
            #expect(summary.frameCount == Int64(count) && summary.nonFiniteCount == 0)
        }
    }

    @Test("flush interpolates the last samples against silence; reset forgets; NaN counted; the loudness meter agrees")
    func flushAndReset() throws {
        // A faded-in sine whose last crest falls half a sample before the last-but-one sample.
        let w = 2 * Double.pi * 0.2, count = 500
        let signal = (0..<count).map { n in
            Float(0.9 * min(1, Double(n) / 100) * sin(w * (Double(n) - Double(count) + 2.5) + .pi / 2))
        }
        let meter = try TruePeakMeter(sampleRate: 48_000, channelCount: 1)
        signal.withUnsafeBufferPointer { meter.process($0) }
        let before = meter.truePeakDBTP
        let flushed = meter.finalize()
        #expect(flushed.truePeakDBTP > before)
        // finalize (and flush) leave the meter as after reset().
        #expect(meter.truePeakDBTP == -.infinity)
        // Flushing is exactly feeding tapsPerPhase / 2 zeros.
        let padded = try TruePeakMeter(sampleRate: 48_000, channelCount: 1)
        (signal + [Float](repeating: 0, count: TruePeakMeter.tapsPerPhase / 2)).withUnsafeBufferPointer { padded.process($0) }
        #expect(padded.truePeakDBTP == flushed.truePeakDBTP)
        let loud = measureLoudness(signal, .init(sampleRate: 48_000))
        #expect(loud.summary.truePeakDBTP == flushed.truePeakDBTP)
        [Float(0.5)].withUnsafeBufferPointer { meter.process($0) }
        meter.reset()
        #expect(meter.truePeakDBTP == -.infinity)
        [Float.nan, 0.5, .infinity].withUnsafeBufferPointer { meter.process($0) }
        #expect(meter.nonFiniteCount == 2 && meter.samplePeakDBFS == 20 * log10(0.5))
        // Partial frames are carried.
        let stereo = try TruePeakMeter(sampleRate: 48_000, channelCount: 2)
        [Float(0.1)].withUnsafeBufferPointer { stereo.process($0) }
        [Float(-0.2), 0.3].withUnsafeBufferPointer { stereo.process($0) }
        let peaks = stereo.processAll([])  // flushes: one true peak per channel
        #expect(peaks.count == 2 && peaks[0] >= 0.3 && abs(peaks[1] - 0.2) < 0.05)
    }
}

extension LoudnessSummary {
    fileprivate func with(_ change: (inout LoudnessSummary) -> Void) -> LoudnessSummary {
        var copy = self
        change(&copy)
        return copy
    }
}
