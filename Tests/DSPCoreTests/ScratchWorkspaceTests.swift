@testable import DSPCore
import Foundation
import Testing

/// A result handed from a test's thread back to the test.
private final class ThreadResult<T>: @unchecked Sendable {
    var value: T?
    let done = DispatchSemaphore(value: 0)
}

@Suite("ScratchWorkspace: per-thread scratch, nested scopes, no growth after the first call")
struct ScratchWorkspaceTests {
    /// Runs `body` on a thread of its own (a fresh workspace) and waits for it.
    static func onNewThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let box = ThreadResult<T>()
        let thread = Thread {
            box.value = body()
            box.done.signal()
        }
        thread.start()
        box.done.wait()
        return box.value!
    }

    @Test("buffers are 64-byte aligned, a nested scope takes above its caller, leave gives the bytes back")
    func nesting() {
        let result = Self.onNewThread { () -> [Bool] in
            let workspace = ScratchWorkspace()
            var checks: [Bool] = []
            let outer = workspace.enter(reserving: 4096)
            let a = outer.take(Float.self, count: 100)
            checks.append(Int(bitPattern: a) % 64 == 0)
            a.update(repeating: 1, count: 100)
            do {
                let inner = workspace.enter(reserving: 1024)
                let b = inner.take(Float.self, count: 10)
                checks.append(Int(bitPattern: b) % 64 == 0)
                checks.append(b >= a + 100 || b + 10 <= a)  // no overlap with the caller's buffer
                b.update(repeating: 2, count: 10)
                inner.leave()
            }
            checks.append((0..<100).allSatisfy { a[$0] == 1 })
            // After the inner scope is left, the next take reuses its bytes.
            let c = outer.take(Float.self, count: 10)
            let inner2 = workspace.enter(reserving: 64)
            let d = inner2.take(Float.self, count: 1)
            inner2.leave()
            checks.append(d == c + 16)
            outer.leave()
            // The outer scope's leave gives everything back: the same first buffer again.
            let again = workspace.enter(reserving: 4096)
            checks.append(again.take(Float.self, count: 100) == a)
            again.leave()
            return checks
        }
        #expect(result == [true, true, true, true, true, true])
    }

    @Test("a reservation larger than the chunk moves to a new chunk; the caller's buffers stay; nothing grows after the first time")
    func growth() {
        let (first, second, third, intact) = Self.onNewThread { () -> (Int, Int, Int, Bool) in
            let workspace = ScratchWorkspace()
            func call() -> Bool {
                let outer = workspace.enter(reserving: 8192)
                let a = outer.take(UInt8.self, count: 8192)
                a.update(repeating: 7, count: 8192)
                // A re-entrant call needing more than is left: a second chunk, made once.
                let inner = workspace.enter(reserving: 100_000)
                let b = inner.take(UInt8.self, count: 100_000)
                b.update(repeating: 9, count: 100_000)
                inner.leave()
                outer.leave()
                return (0..<8192).allSatisfy { a[$0] == 7 }
            }
            _ = call()
            let first = workspace.currentThreadBytes
            var intact = true
            for _ in 0..<100 { intact = call() && intact }
            let second = workspace.currentThreadBytes
            for _ in 0..<100 { intact = call() && intact }
            return (first, second, workspace.currentThreadBytes, intact)
        }
        #expect(first >= 108_192)
        #expect(second == first && third == first)
        #expect(intact)
    }

    @Test("each thread has its own workspace: a thread's first call makes it, the key's destructor frees it")
    func perThread() {
        let workspace = ScratchWorkspace()
        let bytes = Self.onNewThread { () -> (Int, Int) in
            let before = workspace.currentThreadBytes
            let scope = workspace.enter(reserving: 50_000)
            _ = scope.take(UInt8.self, count: 50_000)
            scope.leave()
            return (before, workspace.currentThreadBytes)
        }
        #expect(bytes.0 == 0)
        #expect(bytes.1 >= 50_000)
        #expect(ScratchWorkspace.bytes(Float.self, 1) == 64 && ScratchWorkspace.bytes(Float.self, 16) == 64
            && ScratchWorkspace.bytes(Float.self, 17) == 128 && ScratchWorkspace.bytes(Float.self, 0) == 0)
    }
}
