import DSPCore
import DSPPipeline
import Foundation
import Testing

/// `reserveWorkspace()`: a worker thread can take its scratch workspace before its first push,
/// so that push allocates nothing; without it, the first push is what allocates it.
@Suite("SpeechFrontEnd: a thread's workspace reserved ahead of its first push")
struct FrontEndWorkspaceTests {
    final class Result: @unchecked Sendable {
        var value: (reserved: Int, afterPushes: Int, unreservedBefore: Int, unreservedAfter: Int) = (0, 0, 0, 0)
        let done = DispatchSemaphore(value: 0)
    }

    @Test("after reserveWorkspace the thread's workspace does not grow in process or flush; without it the first push makes it")
    func reserveAhead() throws {
        let frontEnd = try SpeechFrontEnd(configuration: .init(inputRate: 48_000, channelCount: 2))
        let result = Result()
        let thread = Thread {
            let workspace = ScratchWorkspace()
            let unreservedBefore = workspace.currentThreadBytes
            frontEnd.reserveWorkspace()
            let reserved = workspace.currentThreadBytes
            // Pushes of every size up to more than one internal block, then the flush.
            let input = [Float](repeating: 0.25, count: 2 * 9000)
            var output = [Int16](repeating: 0, count: frontEnd.maxOutputCount(forInputCount: input.count))
            let events = FrontEndEventBuffer(capacity: frontEnd.maxEventCount(forInputCount: input.count))
            for count in [2, 2048, 2 * 4096, 2 * 9000] {
                input.withUnsafeBufferPointer { samples in
                    output.withUnsafeMutableBufferPointer { out in
                        _ = frontEnd.process(UnsafeBufferPointer(rebasing: samples[..<count]), into: out, events: events)
                    }
                }
            }
            var tail = [Int16](repeating: 0, count: frontEnd.maxFlushOutputCount)
            let flushEvents = FrontEndEventBuffer(capacity: frontEnd.maxFlushEventCount)
            tail.withUnsafeMutableBufferPointer { _ = frontEnd.flush(into: $0, events: flushEvents) }
            result.value = (reserved, workspace.currentThreadBytes, unreservedBefore, 0)
            result.done.signal()
        }
        thread.start()
        result.done.wait()
        #expect(result.value.unreservedBefore == 0, "a new thread holds no workspace")
        #expect(result.value.reserved >= frontEnd.memory.total.workspaceBytes)
        #expect(result.value.afterPushes == result.value.reserved, "the pushes and the flush took nothing more")

        // Without the reservation, a new thread's first push makes the workspace.
        let second = Result()
        let other = Thread {
            let workspace = ScratchWorkspace()
            let before = workspace.currentThreadBytes
            let input = [Float](repeating: 0.25, count: 2 * 1024)
            var output = [Int16](repeating: 0, count: frontEnd.maxOutputCount(forInputCount: input.count))
            let events = FrontEndEventBuffer(capacity: frontEnd.maxEventCount(forInputCount: input.count))
            input.withUnsafeBufferPointer { samples in
                output.withUnsafeMutableBufferPointer { _ = frontEnd.process(samples, into: $0, events: events) }
            }
            second.value = (0, 0, before, workspace.currentThreadBytes)
            second.done.signal()
        }
        other.start()
        second.done.wait()
        #expect(second.value.unreservedBefore == 0 && second.value.unreservedAfter > 0)
    }
}
