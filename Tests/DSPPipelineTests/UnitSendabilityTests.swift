import DSPAnalysis
import DSPCore
import DSPDetection
import DSPSpectral
import Foundation
import Testing
import TestSupport
import DSPPipeline

/// Compiles only for `Sendable` types.
private func requireSendable<T: Sendable>(_: T.Type) {}

/// The streaming units are `Sendable` (an ownership flag orders calls handed between threads
/// and stops overlapping ones): they cross task boundaries, and a stream handed from task to
/// task gives the single-threaded result.
@Suite("Units are Sendable: hand-offs between threads are ordered, overlapping calls stop")
struct UnitSendabilityTests {
    @Test("every streaming unit and the front end's value types are Sendable (checked by the compiler)")
    func conformances() {
        requireSendable(Downmixer.self)
        requireSendable(Resampler.self)
        requireSendable(StreamConditioner.self)
        requireSendable(Reframer.self)
        requireSendable(Int16Converter.self)
        requireSendable(LevelMeter.self)
        requireSendable(LevelAnalyzer.self)
        requireSendable(LoudnessMeter.self)
        requireSendable(TruePeakMeter.self)
        requireSendable(SpectralAnalyzer.self)
        requireSendable(AcousticDetector.self)
        requireSendable(AnalysisChain.self)
        requireSendable(EnvironmentAnalyzer.self)
        requireSendable(NoiseLevelEstimator.self)
        requireSendable(ReverberationEstimator.self)
        requireSendable(BandwidthEstimator.self)
        requireSendable(ProsodyEstimator.self)
        requireSendable(SpeechFrontEnd.self)
        requireSendable(FrontEndOutput.self)
        requireSendable(FrontEndBufferSizes.self)
        requireSendable(ActivitySegment.self)
        requireSendable(StreamAnalysis<AnalysisEvent, AnalysisChain.Summary>.self)
        requireSendable(FrontEndOutputs<AsyncStream<[Float]>>.self)
        requireSendable(ProcessorOutputs<Resampler, AsyncStream<[Float]>>.self)
    }

    /// Pushes `input` through `unit` in 1024-sample chunks, each chunk on a new detached task
    /// that starts after the previous one ended (the stream moves from thread to thread).
    static func handedOff<P: StreamingProcessor & Sendable>(_ unit: P, _ input: [Float]) async -> [P.OutputSample]
    where P.InputSample == Float, P.OutputSample: Sendable {
        var output: [P.OutputSample] = []
        var offset = 0
        while offset < input.count {
            let chunk = Array(input[offset..<Swift.min(offset + 1024, input.count)])
            output += await Task.detached { unit.process(chunk) }.value
            offset += chunk.count
        }
        output += await Task.detached { unit.flush() }.value
        return output
    }

    @Test("a stream handed from task to task gives the single-threaded output, bit for bit")
    func handOff() async throws {
        let x = testSignal(count: 2 * 48_000 + 7, seed: 61)
        let resampled = await Self.handedOff(try Resampler(inputRate: 48_000, outputRate: 16_000, channelCount: 1), x)
        #expect(resampled.map(\.bitPattern) == (try Resampler(inputRate: 48_000, outputRate: 16_000)).processAll(x).map(\.bitPattern))
        let readings = await Self.handedOff(try LoudnessMeter(configuration: .init(sampleRate: 48_000, channelLayout: .stereo)), x)
        #expect(readings == (try LoudnessMeter(configuration: .init(sampleRate: 48_000, channelLayout: .stereo))).processAll(x))
        let mono16k = try StreamConditioner(configuration: .init(inputRate: 48_000, channelCount: 1)).processAll(x)
        let events = await Self.handedOff(try AnalysisChain(), mono16k)
        #expect(events == (try AnalysisChain()).processAll(mono16k))
    }

    @Test("two overlapping calls on one unit stop the program (here: a call from inside the unit's own callback)")
    func overlappingCallsStop() async {
        await #expect(processExitsWith: .failure) {
            let reframer = try! Reframer(configuration: .init(frameLength: 4))
            let x: [Float] = [1, 2, 3, 4, 5]
            x.withUnsafeBufferPointer { input in
                reframer.process(input) { _, _ in reframer.reset() }
            }
        }
        await #expect(processExitsWith: .failure) {
            let detector = try! AcousticDetector()
            let x = [Float](repeating: 0.1, count: 4096)
            x.withUnsafeBufferPointer { input in
                detector.process(input) { _ in _ = detector.finalize() }
            }
        }
        // The same calls one after another are fine.
        let reframer = try! Reframer(configuration: .init(frameLength: 4))
        var frames = 0
        [Float](repeating: 1, count: 9).withUnsafeBufferPointer { input in reframer.process(input) { _, _ in frames += 1 } }
        reframer.reset()
        #expect(frames == 2 && reframer.samplesConsumed == 0)
    }
}
