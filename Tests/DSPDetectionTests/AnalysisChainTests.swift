import DSPCore
import DSPDetection
import DSPIO
import Testing
import TestSupport

/// The analysis chain as a streaming unit, and what it reports on labelled audio.
@Suite("AnalysisChain")
struct AnalysisChainTests {
    /// A TestAudio file conditioned to 16 kHz mono, as every caller of the chain conditions it.
    static func mono16k(_ name: String) throws -> [Float] {
        let reader = try AudioFileReader(path: TestAudio.path(name))
        defer { reader.close() }
        var samples = [Float](repeating: 0, count: reader.frameCount * reader.channelCount)
        let got = try samples.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
        let conditioner = try StreamConditioner(configuration: .init(inputRate: reader.sampleRate, channelCount: reader.channelCount))
        return conditioner.processAll(Array(samples[..<got]))
    }

    @Test("the streaming contract: chunking, flush and reset change nothing",
          arguments: ["eval_speech_music_16k.flac", "eval_overlap_16k.flac"])
    func contract(file: String) throws {
        let signal = try Self.mono16k(file)
        let failures = try checkStreamingUnit({ try AnalysisChain() }, input: signal, singleSamples: false, same: ==)
        #expect(failures.isEmpty, "\(failures)")
        // Single samples on a shorter piece (a push per sample is slow in a debug build).
        let short = Array(signal[..<24_000])
        let reference = runStream(try AnalysisChain(), short, chunking: .whole)
        #expect(runStream(try AnalysisChain(), short, chunking: .single) == reference)
    }

    @Test("an event buffer too small for the push takes only what fits, and loses nothing")
    func smallEventBuffer() throws {
        let signal = try Self.mono16k("eval_speech_music_16k.flac")
        let reference = runStream(try AnalysisChain(), signal, chunking: .whole)
        // Hops go four at a time, so 16 events (four hops' worth) is the least room that
        // guarantees progress.
        for room in [16, 17, 33] {
            #expect(runStream(try AnalysisChain(), signal, chunking: .random, outputRoom: room) == reference, "room \(room)")
        }
    }

    @Test("events pair up: every start has its end, in order, inside the stream")
    func segmentsPairUp() throws {
        let signal = try Self.mono16k("eval_speech_music_16k.flac")
        let chain = try AnalysisChain()
        let events = chain.processAll(signal)
        var open: [Activity: Int64] = [:]
        var measurements: [Int64] = []
        for event in events {
            switch event {
            case .started(let a, let t):
                #expect(open[a] == nil)
                open[a] = t
            case .ended(let a, let t):
                let start = try #require(open[a])
                #expect(t > start && t <= Int64(signal.count))
                open[a] = nil
            case .environment(let m):
                measurements.append(m.endSample)
            }
        }
        #expect(open.isEmpty)
        #expect(measurements == measurements.sorted() && measurements.last == Int64(signal.count))
        #expect(events.contains(.started(.speech, at: events.compactMap { if case .started(.speech, let t) = $0 { t } else { nil } }.first ?? -1)))
        let summary = chain.finalize()
        #expect(summary.detection.sampleCount == Int64(signal.count))  // the flushed stream's totals
    }

    @Test("every measurement's noise is the background estimator's: speech over −50 dBFS noise reads the noise")
    func backgroundNoise() throws {
        let speech = try Self.mono16k("speech_de_16k.flac")
        let noise = NoiseLevelEstimatorTests.noise(count: speech.count, dBFS: -50, seed: 9)
        let truth = NoiseLevelEstimatorTests.level(noise)
        let events = try AnalysisChain().processAll(zip(speech, noise).map { $0 + $1 })
        let measurements = events.compactMap { if case .environment(let m) = $0 { m } else { nil } }
        #expect(measurements.count >= 8)
        for m in measurements {
            #expect(m.noiseSource == .backgroundEstimator)
            // After the first two seconds (the estimator's window), within 1.5 dB.
            if m.timeSeconds >= 2 { #expect(abs(m.noiseDBFS - truth) <= 1.5, "\(m.timeSeconds) s: \(m.noiseDBFS) dBFS, noise \(truth)") }
        }
    }
}

extension AnalysisChainTests {
    /// Speech in a room (RT60 0.8 s, direct-to-reverberant 0 dB) over −60 dBFS noise: the
    /// measurements carry the stream's reverberation once it is estimated — the chain's own
    /// estimate (its estimator with the background-noise estimate as the decays' floor), close to
    /// the estimator run alone, however the stream is chunked — and the room lowers the clarity
    /// that the SNR alone would give.
    @Test("measurements carry the reverberation estimate, chunk for chunk, and the room lowers clarity")
    func reverberation() throws {
        let speech = try ["speech_es_16k.aiff", "speech_en-f3_16k.wav"].flatMap { try ReverberationEstimatorTests.speech16k($0) }
        let h = ReverberationEstimatorTests.roomResponse(rt60: 0.8, drrDB: 0, seed: 7)
        let wet = try ReverberationEstimatorTests.convolve(speech, h)
        let noise = NoiseLevelEstimatorTests.noise(count: wet.count, dBFS: -60, seed: 4)
        let signal = zip(wet, noise).map { $0 + $1 }
        let chain = try AnalysisChain()
        let whole = runStream(chain, signal, chunking: .whole)
        let summary = try #require(chain.finalize().reverberation)
        #expect(runStream(try AnalysisChain(), signal, chunking: .random) == whole)
        let measurements = whole.compactMap { if case .environment(let m) = $0 { m } else { nil } }
        let estimated = measurements.filter { $0.c50DB != nil }
        #expect(!estimated.isEmpty && estimated.count >= measurements.count / 2, "\(estimated.count) of \(measurements.count)")
        // The last measurement (at flush) carries the estimate over the whole stream: the chain's
        // own. The chain gives the estimator the background-noise estimate as the decays' floor
        // where it lies under the tracked one, so the estimator run alone, on its tracked floor,
        // finds nearly but not exactly the same decays here.
        let last = try #require(measurements.last)
        #expect(last.rt60Seconds == summary.rt60Seconds && last.c50DB == summary.c50DB)
        let alone = try ReverberationEstimatorTests.estimate(signal)
        let rt60 = try #require(summary.rt60Seconds), c50 = try #require(summary.c50DB)
        // Measured: RT60 0.926 s and C50 2.77 dB from 39 decays; alone 0.939 s and 2.77 dB from 38.
        #expect(abs(rt60 / alone.rt60Seconds! - 1) <= 0.1 && abs(c50 - alone.c50DB!) <= 1, "\(summary) against \(alone)")
        for m in estimated {
            guard let snr = m.speechToNoiseDB, snr.isFinite, let c50 = m.c50DB else { continue }
            let u50 = EnvironmentAnalyzer.usefulToDetrimental(snrDB: snr, c50DB: c50)
            #expect(u50 < Swift.min(snr, c50) + 0.01 && u50 >= Swift.min(snr, c50) - 3.02)
            #expect(abs(m.speechClarity - 1 / (1 + Double.exp(-(u50 - 12) / 4))) < 1e-12)
        }
    }
}

/// The detector and the environment analyzer under the shared streaming-unit harness.
@Suite("Detection units keep the streaming contract")
struct DetectionUnitContractTests {
    /// Frames compared by what they report: position, probabilities (bits), decisions, changes.
    static func same(_ a: DetectionFrame, _ b: DetectionFrame) -> Bool {
        a.startSample == b.startSample && a.sampleCount == b.sampleCount
            && a.speechProbability.bitPattern == b.speechProbability.bitPattern
            && a.musicProbability.bitPattern == b.musicProbability.bitPattern
            && a.multiSpeakerProbability.bitPattern == b.multiSpeakerProbability.bitPattern
            && a.isSpeech == b.isSpeech && a.isMusic == b.isMusic && a.isMultiSpeaker == b.isMultiSpeaker
            && a.speechChange == b.speechChange && a.musicChange == b.musicChange
            && a.multiSpeakerChange == b.multiSpeakerChange
            && a.features.hopPower.bitPattern == b.features.hopPower.bitPattern
            && a.cues.noiseFloorDBFS.bitPattern == b.cues.noiseFloorDBFS.bitPattern
    }

    @Test("AcousticDetector: one frame per hop, the last partial")
    func detector() throws {
        let signal = Array(try AnalysisChainTests.mono16k("eval_overlap_16k.flac")[..<40_000]) + [0.25, -0.25, 0.5]
        let failures = try checkStreamingUnit(
            { try AcousticDetector() }, input: signal, expectedCount: (signal.count + 255) / 256, singleSamples: false,
            same: Self.same)
        #expect(failures.isEmpty, "\(failures)")
        // finalize after the flush hands over where the open segments ended and the totals.
        let detector = try AcousticDetector()
        _ = detector.processAll(signal)
        let end = detector.finalize()
        #expect(end.endSample == Int64(signal.count) && end.summary.sampleCount == Int64(signal.count))
    }

    @Test("EnvironmentAnalyzer: frames in, at most one measurement per frame")
    func environment() throws {
        var frames: [AnalysisFrame] = []
        var rng = SplitMix64(seed: 4)
        for k in 0..<700 {
            let speech = (k / 37) % 2 == 0
            frames.append(AnalysisFrame(
                startSample: Int64(k) * 1024, sampleCount: k == 699 ? 300 : 1024,
                levelDBFS: (speech ? -25 : -55) + Double.random(in: -3...3, using: &rng), speechProbability: speech ? 0.9 : 0.1,
                isSpeech: speech, noiseFloorDBFS: -58, musicProbability: 0.2, isMusic: k % 200 < 40, spectralEntropy: 0.5))
        }
        let failures = try checkStreamingUnit({ try EnvironmentAnalyzer() }, input: frames, same: ==)
        #expect(failures.isEmpty, "\(failures)")
    }
}

extension AnalysisChainTests {
    /// The summary's noise floor (`DetectionSummary.medianNoiseFloorDBFS`, the records'
    /// `noise_floor_dbfs`) is the median of the background estimator's readings: with the
    /// environment, exactly its measurements' readings, so their median to the histogram's
    /// 0.5 dB; without it, the detector's own readings at the same hops, so the same value, however
    /// the stream is chunked. Either way the noise under the speech, not the speech (the detection cue's
    /// tracked floor, which this field was until 2026-12-04, reads speech over −50 dBFS noise
    /// several dB high and clean speech 10–20 dB high).
    @Test("the summary's noise floor: the environment's median reading with it, the same readings without it")
    func summaryNoiseFloor() throws {
        let speech = try Self.mono16k("speech_de_16k.flac")
        let noise = NoiseLevelEstimatorTests.noise(count: speech.count, dBFS: -50, seed: 9)
        let truth = NoiseLevelEstimatorTests.level(noise)
        let signal = zip(speech, noise).map { $0 + $1 }

        let chain = try AnalysisChain()
        let events = chain.processAll(signal)
        let readings = events.compactMap { if case .environment(let m) = $0 { m.noiseDBFS } else { nil } }.sorted()
        let lowerMiddle = try #require(readings.isEmpty ? nil : readings[(readings.count - 1) / 2])
        let withEnvironment = Double(chain.finalize().detection.medianNoiseFloorDBFS)
        #expect(abs(withEnvironment - lowerMiddle) <= 0.25, "summary \(withEnvironment), measurements' median \(lowerMiddle)")

        let whole = DetectionHarness.run(try AcousticDetector(), signal, chunks: [1024]).summary.medianNoiseFloorDBFS
        let chunked = DetectionHarness.run(try AcousticDetector(), signal, chunks: [333, 4096, 1]).summary.medianNoiseFloorDBFS
        #expect(whole == chunked)
        // The detector alone reads at the hops the environment measures at: the same median.
        #expect(Double(whole) == withEnvironment, "detector alone \(whole), with the environment \(withEnvironment)")
        let withoutEnvironment = try AnalysisChain(configuration: .init(environment: nil))
        _ = withoutEnvironment.processAll(signal)
        #expect(Double(withoutEnvironment.finalize().detection.medianNoiseFloorDBFS) == withEnvironment)
        for (name, level) in [("with the environment", withEnvironment), ("detector alone", Double(whole))] {
            #expect(abs(level - truth) <= 1.5, "\(name): \(level) dBFS, noise \(truth)")
        }
    }
}
