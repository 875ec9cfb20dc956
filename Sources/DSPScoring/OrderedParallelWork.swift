import DSPCore
import Foundation

/// Runs numbered work items on several threads and hands the results back in index order: the
/// engine of ``ParallelScoring`` and ``FileConverter/convert(_:jobs:configuration:overwrite:emit:)``.
///
/// Each worker thread owns one worker object (a scorer, a converter: built on the caller's
/// thread before any thread starts, so one that cannot be built throws from the call instead of
/// trapping in a thread). Workers take the next index from a shared counter; finished results
/// wait in a table until every earlier one has been emitted, so `emit` sees them in index order
/// whatever the parallelism. A worker does not start an item more than `16 × jobs` places ahead
/// of the next result to emit, so one slow item cannot make the table grow without bound.
/// `emit` runs on the calling thread. With one job (or one item) the calling thread does the
/// items itself, one after the other.
enum OrderedParallelWork {
    static func run<Worker, Result: Sendable>(
        count: Int, jobs: Int, makeWorker: () throws(ConfigurationError) -> Worker,
        work: @escaping @Sendable (Worker, Int) -> Result, emit: (Int, Result) -> Bool
    ) throws(ConfigurationError) {
        if jobs <= 1 || count <= 1 {
            // One job: work on the calling thread, with no hand-over per item.
            let worker = try makeWorker()
            for index in 0..<count {
                if !emit(index, work(worker, index)) { break }
            }
            return
        }
        let state = SharedState<Result>(window: 16 * Swift.max(1, jobs))
        let threads = Swift.max(1, Swift.min(jobs, count))
        var workers: [HandOver<Worker>] = []
        for _ in 0..<threads { workers.append(HandOver(try makeWorker())) }
        for handOver in workers {
            let thread = Thread {
                let worker = handOver.worker
                while let index = state.nextIndex(limit: count) {
                    state.finish(index, work(worker, index))
                }
                state.workerDone()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        var next = 0
        while next < count {
            guard let result = state.waitFor(next) else { break }
            if !emit(next, result) {
                state.stop()
                break
            }
            next += 1
        }
        state.waitForWorkers(threads)
    }

    /// A worker built on the caller's thread and used by exactly one thread from then on.
    private final class HandOver<Worker>: @unchecked Sendable {
        let worker: Worker
        init(_ worker: Worker) { self.worker = worker }
    }

    /// The work counter and the table of finished results, behind one condition.
    private final class SharedState<Result>: @unchecked Sendable {
        private let condition = NSCondition()
        private var claimed = 0
        private var stopped = false
        private var finished: [Int: Result] = [:]
        private var doneWorkers = 0
        private var emitted = 0
        private let window: Int

        init(window: Int) { self.window = window }

        func nextIndex(limit: Int) -> Int? {
            condition.lock()
            defer { condition.unlock() }
            while !stopped, claimed < limit, claimed >= emitted + window { condition.wait() }
            guard !stopped, claimed < limit else { return nil }
            claimed += 1
            return claimed - 1
        }

        func finish(_ index: Int, _ result: Result) {
            condition.lock()
            finished[index] = result
            condition.broadcast()
            condition.unlock()
        }

        func waitFor(_ index: Int) -> Result? {
            condition.lock()
            defer { condition.unlock() }
            while finished[index] == nil { condition.wait() }
            emitted = index + 1
            condition.broadcast()
            return finished.removeValue(forKey: index)
        }

        func stop() {
            condition.lock()
            stopped = true
            condition.broadcast()
            condition.unlock()
        }

        func workerDone() {
            condition.lock()
            doneWorkers += 1
            condition.broadcast()
            condition.unlock()
        }

        func waitForWorkers(_ count: Int) {
            condition.lock()
            while doneWorkers < count { condition.wait() }
            condition.unlock()
        }
    }
}
