import DSPCore
import Foundation

/// Scores a list of files on several threads and hands the records back in input order.
///
/// Each worker thread owns one ``FileScorer`` (so memory per job is one read block and one
/// analyzer, whatever the file lengths). Workers take the next file index from a shared counter;
/// finished records wait in a table until every earlier one has been emitted, so `emit` sees
/// them in input order whatever the parallelism. A worker does not start a file more than
/// `16 × jobs` places ahead of the next record to emit, so one slow file cannot make the table
/// grow without bound. `emit` runs on the calling thread. With one job (or one file) the
/// calling thread scores the files itself, one after the other.
public enum ParallelScoring {
    /// Scores `paths` with `jobs` threads, calling `emit(index, record)` in index order.
    /// `emit` returns false to stop early (remaining files are not started).
    public static func score(
        _ paths: [String], jobs: Int, configuration: FileScorer.Configuration,
        emit: (Int, FileScore) -> Bool
    ) throws(ConfigurationError) {
        if jobs <= 1 || paths.count <= 1 {
            // One job: score on the calling thread, with no hand-over per file.
            let scorer = try FileScorer(configuration: configuration)
            for (index, path) in paths.enumerated() {
                if !emit(index, scorer.score(path: path)) { break }
            }
            return
        }
        let state = SharedState(window: 16 * Swift.max(1, jobs))
        let workers = Swift.max(1, Swift.min(jobs, paths.count))
        // Every worker's scorer is built here, on the caller's thread, before any thread starts:
        // a scorer that cannot be built throws from this call instead of trapping in a worker.
        var scorers: [ScorerHandOver] = []
        for _ in 0..<workers { scorers.append(ScorerHandOver(try FileScorer(configuration: configuration))) }
        for handOver in scorers {
            let thread = Thread {
                let scorer = handOver.scorer
                while let index = state.nextIndex(limit: paths.count) {
                    let record = scorer.score(path: paths[index])
                    state.finish(index, record)
                }
                state.workerDone()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        var next = 0
        while next < paths.count {
            guard let record = state.waitFor(next) else { break }
            if !emit(next, record) {
                state.stop()
                break
            }
            next += 1
        }
        state.waitForWorkers(workers)
    }

    /// A scorer built on the caller's thread and used by exactly one worker thread from then on.
    private final class ScorerHandOver: @unchecked Sendable {
        let scorer: FileScorer
        init(_ scorer: FileScorer) { self.scorer = scorer }
    }

    /// The work counter and the table of finished records, behind one condition.
    private final class SharedState: @unchecked Sendable {
        private let condition = NSCondition()
        private var claimed = 0
        private var stopped = false
        private var finished: [Int: FileScore] = [:]
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

        func finish(_ index: Int, _ record: FileScore) {
            condition.lock()
            finished[index] = record
            condition.broadcast()
            condition.unlock()
        }

        func waitFor(_ index: Int) -> FileScore? {
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
