import DSPAnalysis
import DSPCore
import Testing
import TestSupport

/// The meters write only inside the buffers they are given and refuse a short flush buffer.
@Suite("Meters: capacities")
struct MeterCapacityTests {
    @Test("process writes only inside the output and loses nothing, whatever the room")
    func bounds() throws {
        let x = testSignal(count: 2 * 9_000 + 1, seed: 23)
        var failures = try checkOutputBounds(
            { try LoudnessMeter(configuration: .init(sampleRate: 48_000, channelLayout: .stereo)) }, input: x,
            rooms: [0, 1, 2, 10], same: ==)
        failures += try checkOutputBounds(
            { try LevelAnalyzer(configuration: .init(sampleRate: 48_000, channelCount: 2, frameLength: 512)) }, input: x,
            rooms: [0, 1, 3], same: ==)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("a flush buffer below maxFlushOutputCount stops the process")
    func flushPreconditions() async {
        await #expect(processExitsWith: .failure) {
            let meter = try LoudnessMeter(configuration: .init(sampleRate: 48_000, channelLayout: .mono))
            _ = meter.flush(into: UnsafeMutableBufferPointer(start: nil, count: 0))
        }
        await #expect(processExitsWith: .failure) {
            let analyzer = try LevelAnalyzer(configuration: .init(sampleRate: 16_000, channelCount: 1, frameLength: 64))
            [Float](repeating: 0.25, count: 10).withUnsafeBufferPointer { analyzer.process($0) { _ in } }
            _ = analyzer.flush(into: UnsafeMutableBufferPointer(start: nil, count: 0))
        }
    }
}
