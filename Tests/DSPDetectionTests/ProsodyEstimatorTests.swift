import DSPCore
import DSPDetection
import DSPIO
import DSPSpectral
import Foundation
import Testing
import TestSupport

/// ProsodyEstimator on synthetic voices whose F0 contour and syllables are known by
/// construction, on TestAudio speech, and as a streaming unit inside ``AnalysisChain``.
@Suite("ProsodyEstimator")
struct ProsodyEstimatorTests {
    static let rate = 16_000

    /// A synthetic talker and the truth about it, computed from the generator's own parameters.
    struct Voice {
        var samples: [Float]
        /// Median and standard deviation of the imposed F0 contour over the vowels' samples, Hz.
        var f0MedianHz: Double
        var f0SpreadHz: Double
        /// Vowels (syllables) spoken.
        var syllables: Int
        /// Time from each phrase's first consonant to its last vowel's end, summed, seconds.
        var speakingSeconds: Double
        var speakingRate: Double { Double(syllables) / speakingSeconds }
    }

    /// Vowel formants (F1, F2, F3), Hz: /a/, /i/, /u/, /e/, /o/ (Peterson & Barney averages).
    static let vowels: [(Double, Double, Double)] = [(730, 1090, 2440), (270, 2290, 3010), (300, 870, 2240), (530, 1840, 2480), (570, 840, 2410)]

    /// Magnitude of a cascade of three second-order resonances (bandwidths 80, 100, 120 Hz) at `f`,
    /// 1 at DC.
    static func formantGain(_ f: Double, _ formants: (Double, Double, Double)) -> Double {
        var gain = 1.0
        for (fi, bi) in [(formants.0, 80.0), (formants.1, 100.0), (formants.2, 120.0)] {
            let r = f / fi
            gain /= ((1 - r * r) * (1 - r * r) + (f * bi / (fi * fi)) * (f * bi / (fi * fi))).squareRoot()
        }
        return gain
    }

    /// Syllables at `syllablesPerSecond` in phrases of `phraseSyllables`, 0.5 s pauses between
    /// phrases: each syllable a 30 ms noise burst (a consonant, 20 dB below the vowels) and a
    /// vowel (a harmonic complex up to 4 kHz, −6 dB per octave, shaped by the formants of one
    /// of five vowels in turn, under a raised-cosine envelope) taking the rest of the syllable
    /// but a 15 % gap. F0 follows `f0 · (1 + depth · sin(2π · 1.5 Hz · t))` (intonation-like,
    /// slow enough for 64 ms frames to follow), so its spread is `f0 · depth / √2` over a whole
    /// number of cycles; the truth is taken over the vowels' samples. Pink-ish noise at −65 dBFS
    /// underneath. Vowels peak near −14 dBFS.
    static func voice(
        f0: Double, depth: Double = 0.06, syllablesPerSecond: Double = 4, phraseSyllables: Int = 8, phrases: Int = 3,
        seed: UInt64 = 1
    ) -> Voice {
        let fs = Double(rate)
        let syllable = 1 / syllablesPerSecond
        let consonant = 0.03, pause = 0.5, lead = 0.3
        let phraseSeconds = Double(phraseSyllables) * syllable
        let total = lead + Double(phrases) * (phraseSeconds + pause)
        let n = Int(total * fs)
        var x = [Float](repeating: 0, count: n)
        var g = SplitMix64(seed: seed)
        var pink: Double = 0
        for i in 0..<n {
            pink = 0.95 * pink + 0.05 * g.uniform()
            x[i] = Float(pink * 0.0025)
        }
        var contour: [Double] = []
        var phase = 0.0
        var syllables = 0
        for p in 0..<phrases {
            let phraseStart = lead + Double(p) * (phraseSeconds + pause)
            for s in 0..<phraseSyllables {
                let start = phraseStart + Double(s) * syllable
                // The consonant: differenced noise.
                var previous = 0.0
                for i in Int(start * fs)..<Int((start + consonant) * fs) {
                    let w = g.uniform()
                    x[i] += Float(0.02 * (w - previous))
                    previous = w
                }
                // The vowel.
                let vowelStart = start + consonant, vowelEnd = start + 0.85 * syllable
                let formants = vowels[syllables % vowels.count]
                syllables += 1
                let first = Int(vowelStart * fs), last = Int(vowelEnd * fs)
                var gains: [Double] = []
                for i in first..<last {
                    let t = Double(i) / fs
                    let f = f0 * (1 + depth * sin(2 * Double.pi * 1.5 * t))
                    contour.append(f)
                    phase += 2 * Double.pi * f / fs
                    let u = Double(i - first) / Double(last - first)
                    let envelope = 0.5 - 0.5 * cos(2 * Double.pi * u)
                    let harmonics = Int(4000 / f)
                    if (i - first) % 32 == 0 {
                        gains = (1...harmonics).map { h in formantGain(Double(h) * f, formants) / Double(h) }
                    }
                    var v = 0.0
                    for h in 1...min(harmonics, gains.count) { v += gains[h - 1] * sin(Double(h) * phase) }
                    x[i] += Float(0.02 * envelope * v)
                }
            }
        }
        let sorted = contour.sorted()
        let mean = contour.reduce(0, +) / Double(contour.count)
        let spread = (contour.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(contour.count)).squareRoot()
        // The last vowel of a phrase ends 0.15 syllable before the phrase does.
        let speaking = Double(phrases) * (phraseSeconds - 0.15 * syllable)
        return Voice(samples: x, f0MedianHz: sorted[sorted.count / 2], f0SpreadHz: spread, syllables: syllables, speakingSeconds: speaking)
    }

    /// The chain's prosody summary of `x`, pushed in `chunking`.
    static func prosody(_ x: [Float], chunking: Chunking = .blocks1024, chain: AnalysisChain? = nil) throws -> (ProsodyEstimate?, DetectionSummary) {
        let chain = try chain ?? AnalysisChain()
        _ = runStream(chain, x, chunking: chunking)
        let summary = chain.finalize()
        return (summary.prosody, summary.detection)
    }

    @Test("a synthetic voice: F0 median within 3 %, spread within 25 %", arguments: [90.0, 120.0, 180.0, 250.0])
    func pitch(f0: Double) throws {
        let voice = Self.voice(f0: f0)
        let (estimate, detection) = try Self.prosody(voice.samples)
        let e = try #require(estimate)
        print(String(format: "F0 %.0f Hz: truth median %.1f spread %.2f | estimate median %.1f spread %.2f (voiced %.2f s, speech %.2f s of %.2f detected)",
                     f0, voice.f0MedianHz, voice.f0SpreadHz, e.f0MedianHz ?? .nan, e.f0SpreadHz ?? .nan, e.voicedSeconds, e.speechSeconds, detection.speechSeconds))
        let median = try #require(e.f0MedianHz)
        let spread = try #require(e.f0SpreadHz)
        #expect(abs(median / voice.f0MedianHz - 1) <= 0.03)
        #expect(abs(spread / voice.f0SpreadHz - 1) <= 0.25)
    }

    @Test("syllable trains at 3–6 per second: rate within 15 %", arguments: [3.0, 4.0, 5.0, 6.0])
    func speakingRate(syllablesPerSecond: Double) throws {
        let voice = Self.voice(f0: 140, syllablesPerSecond: syllablesPerSecond, phraseSyllables: Int(2 * syllablesPerSecond))
        let (estimate, _) = try Self.prosody(voice.samples)
        let e = try #require(estimate)
        print(String(format: "%.0f syllables/s: truth %d in %.2f s = %.2f | estimate %d in %.2f s = %.2f", syllablesPerSecond,
                     voice.syllables, voice.speakingSeconds, voice.speakingRate, e.syllableCount, e.speechSeconds, e.speakingRate ?? .nan))
        let rate = try #require(e.speakingRate)
        #expect(abs(rate / voice.speakingRate - 1) <= 0.15)
    }
}
