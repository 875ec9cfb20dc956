import DSPCore

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
        try score(paths.map(ScoringInput.init(path:)), jobs: jobs, configuration: configuration, emit: emit)
    }

    /// Scores `inputs` (files, or segments that manifest lines name) with `jobs` threads,
    /// calling `emit(index, record)` in index order.
    public static func score(
        _ inputs: [ScoringInput], jobs: Int, configuration: FileScorer.Configuration,
        emit: (Int, FileScore) -> Bool
    ) throws(ConfigurationError) {
        try OrderedParallelWork.run(
            count: inputs.count, jobs: jobs,
            makeWorker: { () throws(ConfigurationError) in try FileScorer(configuration: configuration) },
            work: { scorer, index in scorer.score(inputs[index]) }, emit: emit)
    }
}
