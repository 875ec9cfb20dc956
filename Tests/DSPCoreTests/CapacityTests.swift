import DSPCore
import Testing
import TestSupport

/// Capacities: every unit writes only inside the buffers it is given, loses nothing when they
/// are small, and refuses a flush buffer below its bound in every build (a precondition, so
/// the process stops instead of writing out of bounds).
@Suite("DSPCore units: capacities")
struct CapacityTests {
    @Test("process writes only inside the output and loses nothing, whatever the room")
    func bounds() throws {
        let x = testSignal(count: 6_001, seed: 17)
        var failures = try checkOutputBounds({ try Downmixer(channelCount: 3) }, input: x, rooms: [0, 1, 2, 7], same: sameBits)
        failures += try checkOutputBounds({ try Reframer(configuration: .init(frameLength: 256, hopLength: 128)) },
                                          input: x, rooms: [0, 255, 256, 300, 1024], same: sameBits)
        failures += try checkOutputBounds({ try Resampler(inputRate: 48_000, outputRate: 16_000, trimsLeadingDelay: true) },
                                          input: x, rooms: [0, 1, 2, 5, 100], same: sameBits)
        failures += try checkOutputBounds({ try Resampler(inputRate: 16_000, outputRate: 48_000) },
                                          input: x, rooms: [3, 4, 10], same: sameBits)
        failures += try checkOutputBounds({ try StreamConditioner(configuration: .init(inputRate: 44_100, channelCount: 2)) },
                                          input: x, rooms: [0, 1, 3, 100], same: sameBits)
        failures += checkOutputBounds({ Int16Converter() }, input: x, rooms: [0, 1, 9], same: ==)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("a flush buffer below maxFlushOutputCount stops the process")
    func flushPreconditions() async {
        await #expect(processExitsWith: .failure) {
            let d = try Downmixer(channelCount: 2)
            _ = [Float(1)].withUnsafeBufferPointer { d.process($0, into: UnsafeMutableBufferPointer(start: nil, count: 0)) }
            _ = d.flush(into: UnsafeMutableBufferPointer(start: nil, count: 0))
        }
        await #expect(processExitsWith: .failure) {
            let r = try Reframer(configuration: .init(frameLength: 8))
            [Float](repeating: 1, count: 3).withUnsafeBufferPointer { r.process($0) { _, _ in } }
            let small = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4)
            _ = r.flush(into: small)
        }
        await #expect(processExitsWith: .failure) {
            let r = try Resampler(inputRate: 48_000, outputRate: 16_000)
            let out = UnsafeMutableBufferPointer<Float>.allocate(capacity: 64)
            _ = [Float](repeating: 0.5, count: 300).withUnsafeBufferPointer { r.process($0, into: out) }
            _ = r.flush(into: UnsafeMutableBufferPointer(rebasing: out[..<1]))
        }
        await #expect(processExitsWith: .failure) {
            let c = try StreamConditioner(configuration: .init(inputRate: 48_000))
            _ = c.flush(into: UnsafeMutableBufferPointer.allocate(capacity: 1))
        }
    }
}
