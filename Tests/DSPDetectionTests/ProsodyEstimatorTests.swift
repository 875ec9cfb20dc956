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

    @Test("the same estimate however the stream is chunked, after a flush and after reset() in mid-stream")
    func chunking() throws {
        let voice = Self.voice(f0: 150, syllablesPerSecond: 5, phraseSyllables: 10, phrases: 2)
        let chain = try AnalysisChain()
        let (reference, _) = try Self.prosody(voice.samples, chunking: .whole, chain: chain)
        let expected = try #require(reference)
        #expect(expected.f0MedianHz != nil && expected.speakingRate != nil && expected.syllableCount > 0)
        #expect(try Self.prosody(voice.samples, chunking: .whole, chain: chain).0 == expected, "the same chain after a flush")
        #expect(try Self.prosody(voice.samples, chunking: .blocks1024).0 == expected)
        for seed: UInt64 in [1, 2, 3] {
            let chain = try AnalysisChain()
            _ = runStream(chain, voice.samples, chunking: .random, seed: seed)
            #expect(chain.finalize().prosody == expected, "random pushes, seed \(seed)")
        }
        // Reset in mid-stream, then the whole stream.
        let resetting = try AnalysisChain()
        let half = Array(voice.samples[..<(voice.samples.count / 2)])
        var events = [AnalysisEvent](repeating: .started(.speech, at: 0), count: resetting.outputCapacity(forInputCount: half.count))
        _ = half.withUnsafeBufferPointer { h in events.withUnsafeMutableBufferPointer { resetting.process(h, into: $0) } }
        #expect(resetting.prosody!.estimate.hopCount > 0)
        resetting.reset()
        #expect(resetting.prosody!.estimate == ProsodyEstimate.empty)
        #expect(try Self.prosody(voice.samples, chunking: .random, chain: resetting).0 == expected, "after reset()")
    }

    @Test("the estimator fed by the detector's lent spectra equals the chain's; flush, finalize and the live estimate")
    func standalone() throws {
        let voice = Self.voice(f0: 200, syllablesPerSecond: 4, phrases: 2)
        let (expected, _) = try Self.prosody(voice.samples)
        let detector = try AcousticDetector()
        let prosody = try ProsodyEstimator()
        var halfway: ProsodyEstimate?
        var hops = 0
        let add: (DetectionFrame, SpectralFrame) -> Void = { hop, frame in
            prosody.add(hop, powerSpectrum: frame.powerSpectrum)
            hops += 1
            if hops == 150 { halfway = prosody.estimate }
        }
        voice.samples.withUnsafeBufferPointer { detector.process($0, lendingSpectra: add) }
        _ = detector.flush(lendingSpectra: add)
        let live = try #require(halfway)
        #expect(live.hopCount == 150 && live.f0MedianHz != nil && live.syllableCount > 0 && live.syllableCount < expected!.syllableCount)
        prosody.flush()
        #expect(prosody.estimate == expected, "kept after flush()")
        #expect(prosody.finalize() == expected)
        #expect(prosody.finalize() == ProsodyEstimate.empty, "a flushed stream's estimate is returned once")
    }

    @Test("silence, noise and a short stream give no estimate; without the environment analyzer there is none")
    func noEstimate() throws {
        let silence = try #require(try Self.prosody([Float](repeating: 0, count: Self.rate * 5)).0)
        #expect(silence.f0MedianHz == nil && silence.f0SpreadHz == nil && silence.speakingRate == nil)
        #expect(silence.voicedSeconds == 0 && silence.speechSeconds == 0 && silence.syllableCount == 0)
        #expect(silence.hopCount == 313 && silence.inputSeconds == 5)
        var g = SplitMix64(seed: 9)
        let noise = (0..<(Self.rate * 5)).map { _ in Float(0.05 * g.uniform()) }
        let steady = try #require(try Self.prosody(noise).0)
        #expect(steady.f0MedianHz == nil && steady.speakingRate == nil, "\(steady)")
        #expect(try Self.prosody([]).0 == ProsodyEstimate.empty)
        // A fifth of a second of a voice: too little voiced speech, too little speech.
        let short = Array(Self.voice(f0: 120).samples[..<Int(0.5 * Double(Self.rate))])
        let brief = try #require(try Self.prosody(short).0)
        #expect(brief.f0MedianHz == nil && brief.speakingRate == nil, "\(brief)")
        let bare = try AnalysisChain(configuration: .init(environment: nil))
        #expect(bare.prosody == nil)
        #expect(try Self.prosody(Self.voice(f0: 120, phrases: 1).samples, chain: bare).0 == nil)
    }

    /// A detector hop to dress up: the first one of a short noise burst.
    static func templateHop() throws -> DetectionFrame {
        let detector = try AcousticDetector()
        var g = SplitMix64(seed: 3)
        let noise = (0..<1024).map { _ in Float(0.1 * g.uniform()) }
        var hops: [DetectionFrame] = []
        noise.withUnsafeBufferPointer { detector.process($0) { hops.append($0) } }
        return hops[0]
    }

    /// The power spectrum (513 bins at 15.625 Hz) of a harmonic complex at `f0`: every harmonic
    /// up to 4 kHz a Gaussian lobe of its Hann-window width, falling 6 dB per octave.
    static func harmonicSpectrum(_ f0: Double) -> [Float] {
        var p = [Float](repeating: 1e-9, count: 513)
        var h = 1.0
        while h * f0 < 4000 {
            let centre = h * f0 / 15.625
            for k in max(0, Int(centre) - 4)...min(512, Int(centre) + 4) {
                let d = (Double(k) - centre) / 0.9
                p[k] += Float(exp(-d * d) / (h * h) * 1e-3)
            }
            h += 1
        }
        return p
    }

    @Test("pitches read an octave off are folded towards the running median; three times off are dropped")
    func octaveErrors() throws {
        var hop = try Self.templateHop()
        hop.isSpeech = true
        hop.speechProbability = 1
        hop.features.isFinite = true
        hop.features.harmonicity = 0.9
        hop.cues.dominantPitchHz = 0
        let prosody = try ProsodyEstimator()
        let spectrum = Self.harmonicSpectrum(120)
        var expectedFolds = 0
        for i in 0..<400 {
            // The autocorrelation pitch read right, twice, half or three times the 120 Hz voice.
            let reading: Double = i < 40 ? 120 : [120, 240, 120, 60, 120, 360, 120, 121][i % 8]
            if i >= 40, [240.0, 60].contains(reading) { expectedFolds += 1 }
            hop.features.pitchHz = Float(reading)
            spectrum.withUnsafeBufferPointer { prosody.add(hop, powerSpectrum: $0) }
        }
        let e = prosody.finalize()
        let median = try #require(e.f0MedianHz)
        let spread = try #require(e.f0SpreadHz)
        #expect(abs(median / 120 - 1) <= 0.01, "\(e)")
        #expect(spread < 2, "\(e)")
        #expect(e.octaveCorrectionCount == expectedFolds, "\(e)")
        // 360 Hz folds to 180 Hz, 0.58 octave off: dropped (45 hops), so 355 of the 400 count.
        #expect(abs(e.voicedSeconds - 355 * 0.016) < 1e-9, "\(e)")
    }

    @Test("the harmonic sieve's reading is taken where the autocorrelation locked onto two periods")
    func candidates() throws {
        var hop = try Self.templateHop()
        hop.isSpeech = true
        hop.features.isFinite = true
        hop.features.harmonicity = 0.9
        let spectrum = Self.harmonicSpectrum(200)
        for (sieve, autocorrelation) in [(Float(200), Float(100)), (0, 200), (600, 200), (206, 200)] {
            hop.cues.dominantPitchHz = sieve
            hop.features.pitchHz = autocorrelation
            let prosody = try ProsodyEstimator()
            for _ in 0..<40 { spectrum.withUnsafeBufferPointer { prosody.add(hop, powerSpectrum: $0) } }
            let median = try #require(prosody.finalize().f0MedianHz)
            #expect(abs(median / 200 - 1) <= 0.01, "sieve \(sieve), autocorrelation \(autocorrelation): \(median)")
        }
    }

    @Test("non-finite windows are gaps: counted as hops, the estimate survives")
    func nonFinite() throws {
        let voice = Self.voice(f0: 130, phrases: 2)
        let (clean, _) = try Self.prosody(voice.samples)
        var dirty = voice.samples
        for i in stride(from: 9000, to: dirty.count, by: 40_000) { dirty[i] = i % 2 == 0 ? .nan : .infinity }
        let (estimate, _) = try Self.prosody(dirty)
        let e = try #require(estimate), c = try #require(clean)
        #expect(e.hopCount == c.hopCount)
        #expect(abs(e.f0MedianHz! / c.f0MedianHz! - 1) <= 0.01, "\(e) vs \(c)")
        #expect(abs(e.speakingRate! / c.speakingRate! - 1) <= 0.15, "\(e) vs \(c)")
    }

    @Test("TestAudio speech reads a plausible pitch and rate",
          arguments: [("speech_en-us_16k.wav", 80.0...180.0), ("speech_de_16k.flac", 80.0...180.0), ("speech_es_16k.aiff", 80.0...180.0),
                      ("speech_en-f3_16k.wav", 150.0...320.0), ("speech_en-us_48k.flac", 80.0...180.0)])
    func testAudio(file: String, pitchRange: ClosedRange<Double>) throws {
        let reader = try AudioFileReader(path: TestAudio.path(file))
        var samples = [Float](repeating: 0, count: reader.frameCount * reader.channelCount)
        let got = try samples.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
        let conditioner = try StreamConditioner(configuration: .init(inputRate: reader.sampleRate, channelCount: reader.channelCount))
        reader.close()
        let (estimate, _) = try Self.prosody(conditioner.processAll(Array(samples[..<got])))
        let e = try #require(estimate)
        print("\(file): F0 median \(e.f0MedianHz ?? .nan) Hz, spread \(e.f0SpreadHz ?? .nan) Hz, \(e.syllableCount) nuclei in \(e.speechSeconds) s = \(e.speakingRate ?? .nan)/s")
        // espeak-ng's voices: the male ones speak around 100–150 Hz, f3 higher; speech at 2–8 syllables a second.
        #expect(pitchRange.contains(e.f0MedianHz ?? 0), "\(e)")
        #expect((2...40).contains(e.f0SpreadHz ?? 0), "\(e)")
        #expect((2...8).contains(e.speakingRate ?? 0), "\(e)")
    }

    @Test("refuses each out-of-range field; reports its memory")
    func configuration() throws {
        typealias C = ProsodyEstimator.Configuration
        let refused: [(C, parameter: String, value: String)] = [
            (C(sampleRate: 7999), "sampleRate", "7999"),
            (C(windowLength: 128), "windowLength", "128"),
            (C(hopLength: 0), "hopLength", "0"),
            (C(windowLength: 512, hopLength: 513), "hopLength", "513"),
            (C(minimumHarmonicity: 1.5), "minimumHarmonicity", "1.5"),
            (C(minimumVoicedSeconds: 0), "minimumVoicedSeconds", "0.0"),
            (C(minimumSpeechSeconds: .infinity), "minimumSpeechSeconds", "inf"),
            (C(speechBandHz: 10...4000), "speechBandHz", "10.0...4000.0"),
            (C(speechBandHz: 150...9000), "speechBandHz", "150.0...9000.0"),
            (C(speechBandHz: 1000...1050), "speechBandHz", "1000.0...1050.0"),
            (C(syllableDipDB: 0.1), "syllableDipDB", "0.1"),
            (C(minimumSyllableSeconds: 2), "minimumSyllableSeconds", "2.0"),
            (C(activityRangeDB: 5), "activityRangeDB", "5.0"),
            (C(bridgedPauseSeconds: -1), "bridgedPauseSeconds", "-1.0"),
            (C(activeSpeechProbability: .nan), "activeSpeechProbability", "nan"),
        ]
        let failures = checkRefusals(refused) { try ProsodyEstimator(configuration: $0) }
        #expect(failures.isEmpty, "\(failures)")
        let unit = try ProsodyEstimator()
        #expect(unit.binCount == 513)
        #expect(unit.memoryFootprint.ownedBytes == 160 * 4)
        let chain = try AnalysisChain()
        #expect(chain.prosody?.configuration.activeSpeechProbability == chain.configuration.detector.speechSegments.offThreshold)
    }
}
