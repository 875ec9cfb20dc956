import DSPCore
import DSPDetection
import Testing
import TestSupport

/// The chain's units write only inside the buffers they are given and refuse a short flush
/// buffer.
@Suite("Detection units: capacities")
struct DetectionCapacityTests {
    @Test("process writes only inside the output and loses nothing, whatever the room")
    func bounds() throws {
        let x = testSignal(count: 20_000, seed: 29)
        var failures = try checkOutputBounds({ try AnalysisChain() }, input: x, rooms: [0, 15, 16, 17, 40], same: ==)
        failures += try checkOutputBounds(
            { try AcousticDetector() }, input: x, rooms: [0, 3, 4, 9], same: DetectionUnitContractTests.same)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("a flush buffer below maxFlushOutputCount stops the process")
    func flushPreconditions() async {
        await #expect(processExitsWith: .failure) {
            let chain = try AnalysisChain()
            _ = chain.flush(into: UnsafeMutableBufferPointer.allocate(capacity: 3))
        }
        await #expect(processExitsWith: .failure) {
            let detector = try AcousticDetector()
            [Float](repeating: 0.1, count: 900).withUnsafeBufferPointer { detector.process($0) { _ in } }
            _ = detector.flush(into: UnsafeMutableBufferPointer(start: nil, count: 0))
        }
        await #expect(processExitsWith: .failure) {
            let environment = try EnvironmentAnalyzer()
            _ = environment.add(AnalysisFrame(startSample: 0, sampleCount: 1024, levelDBFS: -30))
            _ = environment.flush(into: UnsafeMutableBufferPointer(start: nil, count: 0))
        }
    }
}
