// dspscore: score audio corpora — one record per file, in input order, as a table, JSON Lines
// or CSV. Thin: argument parsing and I/O here, the work in DSPScoring.
import ArgumentParser
import DSPScoring
import Foundation
import Logging

@main
struct DSPScore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dspscore",
        abstract: "Score audio files for corpus work: duration, rate, channels, levels, clipping, loudness, speech, music, multiple speakers.",
        subcommands: [Score.self, Schema.self, Merge.self, Report.self],
        defaultSubcommand: Score.self)
}

struct Score: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Score files (the default subcommand).",
        discussion: """
            Inputs: files and directories (searched recursively by extension), --files-from \
            (one path per line; '-' reads standard input and streams: one record out per path \
            in), and --manifest (JSON Lines with an audio_filepath field). Records come out in \
            input order whatever --jobs is. Data goes to stdout; logs and progress to stderr. \
            A file that cannot be read gets an error record and the run goes on; the exit code \
            is 1 when more than --max-failures files failed.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, jsonl, csv
    }

    @Argument(help: "Audio files or directories.")
    var paths: [String] = []

    @Option(name: .customLong("files-from"), help: "A file with one path per line, or - for standard input (streaming).")
    var filesFrom: String?

    @Option(help: "A JSON Lines manifest whose lines have an audio_filepath field (NeMo/Lhotse).")
    var manifest: String?

    @Option(help: "Output: table (for a terminal), jsonl (one JSON record per line) or csv.")
    var format: Format = .table

    @Option(help: "Comma-separated extensions to pick from directories.")
    var extensions: String = AudioFileDiscovery.defaultExtensions.sorted().joined(separator: ",")

    @Option(help: "Parallel jobs (default: the cores this process may use).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Score only shard i of n (0-based), e.g. 2/8: a deterministic subset by path hash.")
    var shard: String?

    @Option(help: """
        Write records to FILE instead of stdout: appended to FILE.partial as they come (one whole \
        line each), renamed to FILE when the run completes.
        """)
    var output: String?

    @Flag(help: "With --output: skip files already recorded as ok in FILE or FILE.partial (JSON Lines only).")
    var resume = false

    @Option(name: .customLong("max-failures"), help: "Failed files tolerated before the exit code is 1.")
    var maxFailures: Int = 0

    @Option(help: "Sample frames per analysis frame.")
    var frameLength: Int = 1024

    @Option(help: "|x| at or above which a sample counts as clipped.")
    var clipThreshold: Float = 1.0

    @Option(help: "Comma-separated analyses to run: levels, loudness, true_peak, speech, music, speakers, environment (or all).")
    var analyses: String = "all"

    @Option(help: """
        Write per-file timelines to FILE (JSON Lines): one line per span with constant speech / \
        music / multi-speaker decisions, {"audio_filepath", "start", "end", "speech", "music", "multi_speaker"}.
        """)
    var timeline: String?

    @Option(help: "Write speech segments to FILE in NIST RTTM (SPEAKER <file-id> 1 <start> <duration> <NA> <NA> speech <NA> <NA>).")
    var rttm: String?

    func validate() throws {
        if paths.isEmpty && filesFrom == nil && manifest == nil {
            throw ValidationError("give files or directories, --files-from or --manifest")
        }
        if jobs < 1 { throw ValidationError("--jobs must be at least 1, got \(jobs)") }
        if let shard, Shard(shard) == nil { throw ValidationError("--shard takes i/n with 0 <= i < n, got '\(shard)'") }
        if maxFailures < 0 { throw ValidationError("--max-failures must be >= 0, got \(maxFailures)") }
        if resume && (output == nil || format != .jsonl) { throw ValidationError("--resume needs --output and --format jsonl") }
        if output != nil && filesFrom == "-" { throw ValidationError("--output does not combine with --files-from - (streaming)") }
        guard let set = FileScorer.Analyses(names: analyses), !set.isEmpty else {
            throw ValidationError("--analyses takes a comma list of levels, loudness, true_peak, speech, music, speakers, environment or all; got '\(analyses)'")
        }
        if (timeline != nil || rttm != nil) && set.isDisjoint(with: [.speech, .music, .speakers]) {
            throw ValidationError("--timeline and --rttm need a detection in --analyses (speech, music or speakers)")
        }
        if resume && (timeline != nil || rttm != nil) { throw ValidationError("--resume does not combine with --timeline or --rttm") }
    }

    mutating func run() throws {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        let logger = Logger(label: "dspscore")
        let configuration = FileScorer.Configuration(
            frameLength: frameLength, clipThreshold: clipThreshold,
            analyses: FileScorer.Analyses(names: analyses) ?? .all, recordsSegments: timeline != nil || rttm != nil)
        let segmentFiles = try SegmentWriters(timeline: timeline, rttm: rttm)
        do { try configuration.validate() } catch { throw ValidationError(error.description) }
        let shard = self.shard.flatMap(Shard.init)

        if filesFrom == "-" {
            // Streaming mode for pipes (Spark RDD.pipe, Ray, GNU parallel): one path in, one record out.
            let output = try RecordWriter(format: format, path: nil)
            output.header()
            let scorer = try FileScorer(configuration: configuration)
            var failed = 0
            let start = Date()
            var summary = ScoringProgress(filesTotal: 0)
            while let line = readLine() {
                let path = line.trimmingCharacters(in: .whitespaces)
                guard !path.isEmpty, !path.hasPrefix("#"), shard?.contains(path) ?? true else { continue }
                let record = scorer.score(path: path)
                if record.status == .error { failed += 1 }
                summary.add(audioSeconds: record.duration, failed: record.status == .error)
                output.write(record)
                segmentFiles.write(record)
            }
            summary.elapsedSeconds = Date().timeIntervalSince(start)
            logger.info("\(summary.summary())")
            if failed > maxFailures { throw ExitCode(1) }
            return
        }

        var inputs = paths
        if let filesFrom {
            inputs += ScoringInputs.paths(fromLines: try String(contentsOfFile: filesFrom, encoding: .utf8))
        }
        if let manifest {
            let text = try String(contentsOfFile: manifest, encoding: .utf8)
            inputs += try ScoringInputs.paths(
                fromManifest: text, manifestDirectory: (manifest as NSString).deletingLastPathComponent)
        }
        let wanted = Set(extensions.split(separator: ",").map { $0.lowercased().trimmingCharacters(in: .whitespaces) })
        var files = AudioFileDiscovery.expand(inputs, extensions: wanted)
        if let shard { files = files.filter(shard.contains) }
        if files.isEmpty { logger.warning("no audio files found") }

        // Resuming: ok records of the earlier run are kept verbatim, in input order.
        var kept: [String: String] = [:]
        if resume, let path = self.output {
            for candidate in [path, path + ".partial"] where FileManager.default.fileExists(atPath: candidate) {
                guard let data = FileManager.default.contents(atPath: candidate) else {
                    throw ValidationError("--resume: cannot read \(candidate)")
                }
                let earlier: ScoreResume.Kept
                do {
                    earlier = try ScoreResume.completedRecords(fromJSONL: Array(data), source: candidate, provenance: configuration.provenance)
                } catch {
                    FileHandle.standardError.write(Data("dspscore --resume: \(error)\n".utf8))
                    throw ExitCode(1)
                }
                for diagnostic in earlier.diagnostics { logger.warning("resume: \(diagnostic)") }
                kept.merge(earlier.records) { _, new in new }
            }
            logger.info("resuming: \(kept.count) files already scored")
        }
        let output = try RecordWriter(format: format, path: self.output.map { $0 + ".partial" })
        output.header()
        let pending = files.indices.filter { kept[files[$0]] == nil }
        var nextFull = 0
        func writeKept(upTo end: Int) {
            while nextFull < end {
                if let line = kept[files[nextFull]] { output.writeLine(line) }
                nextFull += 1
            }
        }

        let progress = Progress(total: pending.count)
        var failed = 0
        try ParallelScoring.score(pending.map { files[$0] }, jobs: jobs, configuration: configuration) { index, record in
            writeKept(upTo: pending[index])
            nextFull = pending[index] + 1
            if record.status == .error {
                failed += 1
                logger.error("\(record.error?.message ?? record.audioFilepath)")
            }
            output.write(record)
            segmentFiles.write(record)
            progress.update(done: 1, audioSeconds: record.duration, failed: record.status == .error)
            return true
        }
        writeKept(upTo: files.count)
        progress.finish()
        try output.finish(renamingTo: self.output)
        logger.info("\(progress.state.summary(kept: files.count - pending.count))")
        if failed > maxFailures { throw ExitCode(1) }
    }
}

struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the JSON Schema of a dspscore record.")

    func run() {
        print(FileScore.jsonSchema)
    }
}

struct Merge: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join JSON Lines outputs (e.g. shards) into one, validating them.",
        discussion: """
            Every line must be a dspscore record, all scored with one configuration (the same \
            provenance.config_hash); a path recorded twice must have identical records. Output is sorted by audio_filepath (the order of a run over the same \
            directories), or follows --order.
            """)

    @Argument(help: "JSON Lines files written by dspscore --format jsonl.")
    var inputs: [String]

    @Option(help: "A file with one path per line giving the output order; every path must have a record.")
    var order: String?

    func run() throws {
        let texts = try inputs.map { input in
            guard let data = FileManager.default.contents(atPath: input) else { throw ValidationError("cannot read \(input)") }
            return (label: input, bytes: Array(data))
        }
        let orderPaths = try order.map { ScoringInputs.paths(fromLines: try String(contentsOfFile: $0, encoding: .utf8)) }
        do {
            for line in try ScoreMerging.merge(texts, order: orderPaths) { print(line) }
        } catch {
            FileHandle.standardError.write(Data("dspscore merge: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}

/// Writes records in the chosen format, one whole line per write, flushed, so a pipe reader
/// (or a resumed run) sees only complete records: to stdout, or to a `.partial` file that
/// ``finish(renamingTo:)`` renames into place.
final class RecordWriter {
    let format: Score.Format
    let handle: FileHandle
    let partialPath: String?

    init(format: Score.Format, path: String?) throws {
        self.format = format
        partialPath = path
        if let path {
            if !FileManager.default.fileExists(atPath: path) {
                FileManager.default.createFile(atPath: path, contents: nil)
            }
            handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.truncate(atOffset: 0)
        } else {
            handle = FileHandle.standardOutput
        }
    }

    func header() {
        switch format {
        case .table: writeLine(ScoreFormatting.tableHeader)
        case .csv: writeLine(ScoreFormatting.csvHeader)
        case .jsonl: break
        }
    }

    func write(_ record: FileScore) {
        switch format {
        case .table: writeLine(ScoreFormatting.tableRow(record))
        case .jsonl: writeLine(ScoreFormatting.jsonLine(record))
        case .csv: writeLine(ScoreFormatting.csvRow(record))
        }
    }

    func writeLine(_ line: String) {
        handle.write(Data((line + "\n").utf8))
    }

    /// Closes a `.partial` file and renames it to `path` (atomic within one file system).
    func finish(renamingTo path: String?) throws {
        guard let partialPath, let path else { return }
        try handle.synchronize()
        try handle.close()
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        try FileManager.default.moveItem(atPath: partialPath, toPath: path)
    }
}

/// The optional timeline (JSON Lines) and RTTM outputs, written in record order.
final class SegmentWriters {
    let timeline: FileHandle?
    let rttm: FileHandle?

    init(timeline: String?, rttm: String?) throws {
        func open(_ path: String?) throws -> FileHandle? {
            guard let path else { return nil }
            if path == "-" { return FileHandle.standardOutput }
            FileManager.default.createFile(atPath: path, contents: nil)
            return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        }
        self.timeline = try open(timeline)
        self.rttm = try open(rttm)
    }

    func write(_ record: FileScore) {
        if let timeline {
            let lines = TimelineFormatting.timelineLines(record)
            if !lines.isEmpty { timeline.write(Data((lines.joined(separator: "\n") + "\n").utf8)) }
        }
        if let rttm {
            let lines = TimelineFormatting.rttmLines(record)
            if !lines.isEmpty { rttm.write(Data((lines.joined(separator: "\n") + "\n").utf8)) }
        }
    }
}

/// Progress on stderr: a self-overwriting progress bar on a terminal, JSON events (one per
/// second at most, and a final one) otherwise. Formatting is ``ScoringProgress``'s.
final class Progress {
    let start = Date()
    let isTerminal = isatty(STDERR_FILENO) != 0
    var state: ScoringProgress
    var lastReport = Date.distantPast

    init(total: Int) { state = ScoringProgress(filesTotal: total) }

    var audioSecondsPerSecond: Double { state.audioHoursPerWallHour }

    func update(done count: Int, audioSeconds seconds: Double, failed didFail: Bool) {
        state.add(audioSeconds: seconds, failed: didFail)
        if Date().timeIntervalSince(lastReport) >= 1 || state.filesDone == state.filesTotal { report(final: false) }
    }

    func finish() { report(final: true) }

    private func report(final: Bool) {
        lastReport = Date()
        state.elapsedSeconds = Date().timeIntervalSince(start)
        if isTerminal {
            // \r and erase-to-end-of-line: the line rewrites itself in place.
            FileHandle.standardError.write(Data(("\r" + state.terminalLine() + "\u{1B}[K" + (final ? "\n" : "")).utf8))
        } else {
            FileHandle.standardError.write(Data((state.jsonEvent(final: final) + "\n").utf8))
        }
    }
}
