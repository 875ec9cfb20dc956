import DSPCore
import DSPDetection
import DSPSpectral
import Testing
import TestSupport

/// The spectral analyzer's batch size (`detector.analysis.framesPerBatch`, 1…4) through the
/// detector and the chain: the same frames and events, value for value, whatever the batch size
/// and the chunking; the size queries exact for each.
@Suite("Detection: batch sizes 1…4")
struct DetectionBatchSizeTests {
    static func detectorConfiguration(_ batch: Int) -> AcousticDetector.Configuration {
        var c = AcousticDetector.Configuration()
        c.analysis.framesPerBatch = batch
        return c
    }

    static func chain(_ batch: Int, frameLength: Int = 1024, environment: EnvironmentAnalyzer.Configuration? = .init()) throws -> AnalysisChain {
        try AnalysisChain(configuration: .init(detector: detectorConfiguration(batch), environment: environment, frameLength: frameLength))
    }

    /// Reverberant speech over noise (the reverberation estimate moves during the stream, so a
    /// measurement that read it at another sample would differ), 16 kHz.
    static let reverberant: [Float] = {
        let speech = try! ["speech_es_16k.aiff", "speech_en-f3_16k.wav"].flatMap { try ReverberationEstimatorTests.speech16k($0) }
        let h = ReverberationEstimatorTests.roomResponse(rt60: 0.8, drrDB: 0, seed: 7)
        let wet = try! ReverberationEstimatorTests.convolve(speech, h)
        let noise = NoiseLevelEstimatorTests.noise(count: wet.count, dBFS: -60, seed: 4)
        return zip(wet, noise).map { $0 + $1 }
    }()

    @Test("AcousticDetector: the same frames for every batch size and chunking; bounds hold", arguments: 1...4)
    func detector(batch: Int) throws {
        let signal = Array(try AnalysisChainTests.mono16k("eval_overlap_16k.flac")[..<40_000]) + [0.25, -0.25, 0.5]
        let reference = runStream(try AcousticDetector(), signal, chunking: .whole)
        let make = { try AcousticDetector(configuration: Self.detectorConfiguration(batch)) }
        for (name, chunking, seed) in [("one buffer", Chunking.whole, UInt64(0)), ("random", .random, 5), ("1024", .blocks1024, 0)] {
            let got = runStream(try make(), signal, chunking: chunking, seed: seed)
            #expect(got.count == reference.count, "batch \(batch), \(name)")
            #expect(zip(got, reference).allSatisfy(DetectionUnitContractTests.same), "batch \(batch), \(name)")
        }
        let detector = try make()
        #expect(detector.outputDelay == batch * 256 && detector.maxFlushOutputCount == batch)
        #expect(detector.outputCapacity(forInputCount: 1000) == 1000 / 256 + batch)
        let failures = try checkOutputBounds(
            make, input: Array(signal[..<20_000]), rooms: [0, batch - 1, batch, batch + 1, 9], same: DetectionUnitContractTests.same)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("AnalysisChain: the same events (segments and measurements, reverberation included) for every batch size and chunking",
          arguments: 1...4)
    func chainEvents(batch: Int) throws {
        let signal = Self.reverberant
        let reference = runStream(try Self.chain(4), signal, chunking: .whole)
        let measurements = reference.compactMap { if case .environment(let m) = $0 { m } else { nil } }
        #expect(measurements.filter { $0.c50DB != nil }.count >= 4, "the estimate must move during the stream")
        for (name, chunking, seed) in [("one buffer", Chunking.whole, UInt64(0)), ("random", .random, 6), ("1024", .blocks1024, 0)] {
            #expect(runStream(try Self.chain(batch), signal, chunking: chunking, seed: seed) == reference, "batch \(batch), \(name)")
        }
        let chain = try Self.chain(batch)
        #expect(chain.outputDelay == batch * 256)
        #expect(chain.maxFlushOutputCount == AnalysisChain.eventsPerHop * batch + 5)
        #expect(chain.outputCapacity(forInputCount: 1000) == AnalysisChain.eventsPerHop * (1000 / 256 + batch))
        // The summary too.
        let a = try Self.chain(batch), b = try Self.chain(4)
        _ = a.processAll(signal); _ = b.processAll(signal)
        #expect(a.finalize() == b.finalize())
    }

    @Test("AnalysisChain: the streaming contract and its event bounds hold for every batch size", arguments: 1...4)
    func chainContract(batch: Int) throws {
        let signal = Array(try AnalysisChainTests.mono16k("eval_speech_music_16k.flac").prefix(64_000))
        let failures = try checkStreamingUnit({ try Self.chain(batch) }, input: signal, singleSamples: false, same: ==)
        #expect(failures.isEmpty, "\(failures)")
        let perBatch = AnalysisChain.eventsPerHop * batch
        let bounds = try checkOutputBounds(
            { try Self.chain(batch) }, input: Array(signal[..<20_000]), rooms: [0, perBatch - 1, perBatch, perBatch + 1, 40], same: ==)
        #expect(bounds.isEmpty, "\(bounds)")
    }

    /// Frames that are not whole batches (512 samples: two hops; 256: one hop, a measurement every
    /// frame, so up to four are pending at once with batches of four): the same events for every
    /// batch size, and each measurement carries the reverberation estimate over exactly the
    /// samples up to its frame's end (the background floor the chain gives the estimator moves at
    /// fixed samples too).
    @Test("AnalysisChain: a measurement reads the reverberation estimate at its frame's end, whatever the batch",
          arguments: [(512, 2.0), (256, 100.0), (1024, 2.0)])
    func measurementsReadTheirFrameEnd(frameLength: Int, rateHz: Double) throws {
        let signal = Self.reverberant
        var environment = EnvironmentAnalyzer.Configuration()
        environment.updateRateHz = rateHz
        let reference = runStream(try Self.chain(1, frameLength: frameLength, environment: environment), signal, chunking: .whole)
        for batch in 2...4 {
            let got = runStream(try Self.chain(batch, frameLength: frameLength, environment: environment), signal, chunking: .random, seed: 11)
            #expect(got == reference, "batch \(batch)")
        }
        let measured = reference.compactMap { if case .environment(let m) = $0 { m } else { nil } }
            .filter { $0.endSample < Int64(signal.count) && $0.c50DB != nil }
        #expect(measured.count >= 3)
        // The oracle: a chain with batches of one given exactly the samples up to the frame's
        // end in one push, whose estimator has then read those samples and no more (the chain
        // gives it the background estimate as the decays' floor, so the estimator alone is not
        // the same unit).
        for m in measured.enumerated().filter({ $0.offset % Swift.max(1, measured.count / 6) == 0 }).map(\.element) {
            let chain = try Self.chain(1, frameLength: frameLength, environment: environment)
            let prefix = Array(signal[..<Int(m.endSample)])
            let room = chain.maxOutputCount(forInputCount: prefix.count)
            let events = UnsafeMutableBufferPointer<AnalysisEvent>.allocate(capacity: room)
            defer { events.deallocate() }
            let result = prefix.withUnsafeBufferPointer { chain.process($0, into: events) }
            #expect(result.consumed == prefix.count)
            let estimate = try #require(chain.reverberation?.estimate)
            #expect(m.rt60Seconds == estimate.rt60Seconds && m.c50DB == estimate.c50DB, "measurement at \(m.endSample)")
        }
    }

    @Test("the batch size is validated through the detector")
    func validation() {
        for bad in [0, 5] {
            #expect(throws: ConfigurationError.self) { try AcousticDetector(configuration: Self.detectorConfiguration(bad)) }
            #expect(throws: ConfigurationError.self) { try Self.chain(bad) }
        }
    }
}
