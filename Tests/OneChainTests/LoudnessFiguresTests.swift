import DSPAnalysis
import DSPCore
import DSPIO
import DSPPipeline
import DSPScoring
import Foundation
import Testing
import TestSupport

/// The loudness figures the tools print for one file, and why they differ (docs/loudness.md,
/// "Which loudness is which"): `dspscore` measures the file as it is (BS.1770 channel sum at the
/// file's rate), the front end and `speechdsp-live` measure what they send a recognizer (the
/// channels' mean, at 16 kHz). The two are the same meter on two signals; for a stereo file the
/// gap is set by how alike the channels are.
@Suite("Loudness figures: dspscore, the front end, LoudnessMeter")
struct LoudnessFiguresTests {
    /// Integrated loudness of interleaved `samples` with `LoudnessMeter`.
    static func integrated(_ samples: [Float], rate: Int, layout: LoudnessMeter.ChannelLayout) throws -> Double {
        let meter = try LoudnessMeter(configuration: .init(sampleRate: rate, channelLayout: layout))
        samples.withUnsafeBufferPointer { meter.process($0) }
        return meter.finalize().integratedLUFS
    }

    /// `samples` through `StreamConditioner` (the front end's and the scorer's downmix and
    /// resampler): mono at 16 kHz.
    static func conditioned(_ samples: [Float], rate: Int, channels: Int) throws -> [Float] {
        let conditioner = try StreamConditioner(configuration: .init(inputRate: rate, channelCount: channels))
        return conditioner.processAll(samples)
    }

    @Test("the stereo speech file: dspscore = LoudnessMeter(stereo, 44.1 kHz); speechdsp-live = LoudnessMeter(mono, 16 kHz) on the mix")
    func stereoSpeechFile() throws {
        let path = TestAudio.path("speech_2ch_en-us_de_44k1.flac")
        let audio = try LiveAndFileAgreeTests.read(path)
        try #require(audio.channels == 2 && audio.rate == 44_100)

        let record = try FileScorer().score(path: path)
        let dspscore = try #require(record.loudness?.integratedLUFS)
        let fileMeter = try Self.integrated(audio.samples, rate: 44_100, layout: .stereo)
        #expect(dspscore == fileMeter, "dspscore's integrated_lufs is LoudnessMeter on the file as it is")

        let live = try LiveAndFileAgreeTests.live(audio, seed: 4, maxChunk: 1024).summary
        let frontEnd = try #require(live.loudness?.integratedLUFS)
        let mix16k = try Self.conditioned(audio.samples, rate: 44_100, channels: 2)
        let mixMeter = try Self.integrated(mix16k, rate: 16_000, layout: .mono)
        #expect(frontEnd == mixMeter, "the front end's integrated loudness is LoudnessMeter on its 16 kHz mono stream")

        // The mix at the file's rate: resampling to 16 kHz moves it by hundredths of a dB
        // (K-weighting at 16 kHz, energy above 8 kHz removed).
        var mix44k: [Float] = []
        mix44k.reserveCapacity(audio.samples.count / 2)
        for i in stride(from: 0, to: audio.samples.count - 1, by: 2) { mix44k.append((audio.samples[i] + audio.samples[i + 1]) / 2) }
        let mixAtFileRate = try Self.integrated(mix44k, rate: 44_100, layout: .mono)
        #expect(abs(mixAtFileRate - frontEnd) < 0.1)

        // The channels hold different talkers (uncorrelated): the mean of two channels has a
        // quarter of their summed power, so the front end reads about 10·log10(4) = 6.02 dB
        // below BS.1770's channel sum.
        #expect(abs((dspscore - frontEnd) - 10 * log10(4.0)) < 0.25, "dspscore \(dspscore), front end \(frontEnd)")
        print(String(format: "speech_2ch_en-us_de_44k1.flac: dspscore %.2f LUFS, mix at 44.1 kHz %.2f, front end %.2f", dspscore, mixAtFileRate, frontEnd))
    }

    @Test("the gap between the channel sum and the mean, on signals whose answer is known")
    func gapOracle() throws {
        // At 16 kHz the conditioner only mixes, so the two figures differ by the mix alone.
        let rate = 16_000
        let frames = 3 * rate
        let tone = (0..<frames).map { Float(0.25 * sin(2 * Double.pi * 1000 * Double($0) / Double(rate))) }
        var noise = SplitMix64(seed: 11)
        let other = (0..<frames).map { _ in Float.random(in: -0.43...0.43, using: &noise) }
        func stereo(_ left: [Float], _ right: [Float]) -> [Float] {
            var out: [Float] = []
            out.reserveCapacity(2 * left.count)
            for i in left.indices { out += [left[i], right[i]] }
            return out
        }
        func gap(_ left: [Float], _ right: [Float]) throws -> Double {
            let sum = try Self.integrated(stereo(left, right), rate: rate, layout: .stereo)
            let mean = try Self.integrated(try Self.conditioned(stereo(left, right), rate: rate, channels: 2), rate: 16_000, layout: .mono)
            return sum - mean
        }
        // Identical channels: the sum has twice the power of one, the mean is that one.
        #expect(abs(try gap(tone, tone) - 10 * log10(2.0)) < 0.001)
        // One silent channel: the mean is half the signal, a quarter of the power.
        #expect(abs(try gap(tone, [Float](repeating: 0, count: frames)) - 10 * log10(4.0)) < 0.001)
        // Uncorrelated channels of equal loudness (a tone against noise matched to it): the
        // mean's power is a quarter of the sum's, as for two different talkers.
        let toneAlone = try Self.integrated(tone, rate: rate, layout: .mono)
        let noiseAlone = try Self.integrated(other, rate: rate, layout: .mono)
        let matched = other.map { $0 * Float(pow(10, (toneAlone - noiseAlone) / 20)) }
        #expect(abs(try gap(tone, matched) - 10 * log10(4.0)) < 0.05)
        // Opposite channels cancel in the mean: digital silence, −∞.
        let cancelled = try Self.integrated(
            try Self.conditioned(stereo(tone, tone.map { -$0 }), rate: rate, channels: 2), rate: 16_000, layout: .mono)
        #expect(cancelled == -.infinity)
    }
}
