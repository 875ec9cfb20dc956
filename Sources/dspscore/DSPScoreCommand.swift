// dspscore: score audio corpora — one record per file, in input order, as a table, JSON Lines
// or CSV. Thin: argument parsing and I/O here, the work in DSPScoring.
import ArgumentParser
import CLISupport
import DSPDetection
import DSPIO
import DSPScoring
import Foundation
import Logging

@main
struct DSPScore: ParsableCommand {
    /// Parses the raw `argv` bytes, each argument escaped as DSPIO's `PathBytes` describes:
    /// `CommandLine.arguments` replaces invalid UTF-8 with U+FFFD, so a file named in latin-1
    /// could not be found.
    /// On a stderr that is not a terminal, a failure is one JSON line like the logs
    /// (``ToolMain``).
    static func main() {
        ToolMain.run(Self.self, label: "dspscore", arguments: Array(PathBytes.commandLineArguments().dropFirst()))
    }

    static let configuration = CommandConfiguration(
        commandName: "dspscore",
        abstract: "Score audio files for corpus work: duration, rate, channels, levels, clipping, loudness, speech, music, multiple speakers; convert them for a recognizer.",
        version: ToolVersion.text(tool: "dspscore"),
        subcommands: [Score.self, Convert.self, Schema.self, Merge.self, Report.self],
        defaultSubcommand: Score.self)
}

struct Score: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Score files (the default subcommand).",
        discussion: """
            Inputs: files and directories (searched recursively by extension), --files-from \
            (one path per line; '-' reads standard input and streams: one record out per path \
            in), and --manifest (JSON Lines, plain or gzipped: NeMo lines with audio_filepath and \
            optional offset/duration, whose segment is scored; Lhotse recordings and cuts, whose \
            span and channels are scored). A manifest line's fields are carried into its record \
            under "manifest", verbatim, and its path is recorded as written. Records come out in \
            input order whatever --jobs is. Data goes to stdout; logs and progress to stderr. \
            A file that cannot be read gets an error record and the run goes on; the exit code \
            is 1 when more than --max-failures files failed.

            The table (the default format) has one row per file — duration, integrated loudness \
            (LUFS), true peak (dBTP), speech and music (% of the duration), noise category, \
            clipped samples, status — and a totals row (duration, duration-weighted speech and \
            music %, ok and error counts). '—' marks a value not measured (not asked for, not \
            possible for the file, or a failed file), '-inf' a level of digital silence; an \
            error row gives the error kind and message. On a stderr that is not a terminal, \
            progress events and logs are JSON, one object per line.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, jsonl, csv
    }

    @Argument(help: "Audio files or directories.")
    var paths: [String] = []

    @Option(name: .customLong("files-from"), help: "A file with one path per line, or - for standard input (streaming).")
    var filesFrom: String?

    @Option(help: """
        A JSON Lines manifest, .jsonl or .jsonl.gz: NeMo (audio_filepath, offset, duration) or Lhotse \
        (RecordingSet or CutSet lines). Relative paths are opened relative to the manifest's folder.
        """)
    var manifest: String?

    @Option(help: "Output: table (for a terminal, with a totals row), jsonl (one JSON record per line) or csv.")
    var format: Format = .table

    @Option(help: "Comma-separated extensions to pick from directories.")
    var extensions: String = AudioFileDiscovery.defaultExtensions.sorted().joined(separator: ",")

    @Option(help: "Parallel jobs (default: the cores this process may use).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Score only shard i of n (0-based), e.g. 2/8: a deterministic subset by the hash of audio_filepath (a file's segments stay together).")
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

    @Option(help: "Sample frames per analysis frame (1...65536).")
    var frameLength: Int = 1024

    @Option(help: "|x| at or above which a sample counts as clipped.")
    var clipThreshold: Float = 1.0

    @Option(help: """
        Comma-separated analyses to run: levels, loudness, true_peak, speech, music, speakers, environment (or all). \
        speech without music and speakers runs voice activity alone (its own model, about 40 % less detection work, \
        more music called speech: docs/detection.md, Limits).
        """)
    var analyses: String = "all"

    @Option(help: """
        Write per-file timelines to FILE (JSON Lines): one line per span with constant speech / \
        music / multi-speaker decisions, {"audio_filepath", "start", "end", "speech", "music", "multi_speaker"}, \
        then, with the environment analysis, one line per measurement (twice a second), \
        {"audio_filepath", "time", "environment": {"noise_dbfs", "noise_category", "snr_db", "c50_db", "speech_clarity"}}.
        """)
    var timeline: String?

    @Option(help: """
        Write speech segments to FILE in NIST RTTM (SPEAKER <file-id> 1 <start> <duration> <NA> <NA> speech <NA> <NA>); \
        the file id is audio_filepath without its extension (corpus/a/utt_1), times in the file's time.
        """)
    var rttm: String?

    @Flag(inversion: .prefixedNo, help: """
        Read a looped background (a repeating effect or machine) by its period in the noise estimate (the default; \
        about 0.8 % of the instructions with every analysis on). Records scored with --no-looped-backgrounds carry \
        provenance.options = no_looped_backgrounds (docs/scene-measures.md, Looped backgrounds).
        """)
    var loopedBackgrounds = true

    @Flag(inversion: .prefixedNo, help: """
        Blend the fitted detection network into voice activity (DefaultModels.speechBlend; with music or speakers \
        analysed; the default since 2026-12-07): fewer false alarms on noise and babble, about 9 % more detection \
        time (docs/detection.md, Results). Records scored with --no-speech-blend carry \
        provenance.options = no_speech_blend.
        """)
    var speechBlend = true

    @Flag(inversion: .prefixedNo, help: """
        Keep steady pure tones (test tones, beeps, sweeps, dial, ring-back and busy tones, DTMF digits) and sounds whose \
        spectrum holds still (square waves, buzzers, hum) out of voice activity, told by their spectrum (the default; \
        docs/detection.md, Pipeline). Records scored with \
        --no-pure-tone-gate carry provenance.options = no_pure_tone_gate.
        """)
    var pureToneGate = true

    @Flag(inversion: .prefixedNo, help: """
        Read speech segments' edges from the 16 ms hops' own power: an end moves back to the last hop that still \
        sounds, a start back over the hops just before it that already do, each by at most 0.1 s (the default; \
        docs/detection.md, Fitting, "Speech boundaries read from the hops' energy"). Records scored with \
        --no-speech-boundaries carry provenance.options = no_speech_boundaries.
        """)
    var speechBoundaries = true

    @Option(help: ArgumentHelp("""
        The voice-activity segmenter, as comma-separated KEY=VALUE settings over the default's: on and off (thresholds, \
        0 <= off <= on <= 1), end (the end threshold, off...1, or none), min_seconds, hangover_seconds, padding_seconds \
        (e.g. hangover_seconds=0.4,on=0.6). Records scored with another segmenter carry it in provenance.options \
        (speech_segments:on=...:end=...).
        """, valueName: "KEY=VALUE,..."))
    var speechSegments: String?

    @OptionGroup var logging: LoggingOptions

    /// The voice-activity segmenter `--speech-segments` gives (the default's settings where it
    /// names none); nil when a key or value is not understood.
    static func speechSegments(_ text: String?) -> ActivitySegmenter.Configuration? {
        var s = DefaultModels.speechSegments
        guard let text else { return s }
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { return nil }
            let (key, value) = (pair[0], pair[1])
            if key == "end" && value == "none" {
                s.endThreshold = nil
                continue
            }
            guard let number = Double(value) else { return nil }
            switch key {
            case "on": s.onThreshold = Float(number)
            case "off": s.offThreshold = Float(number)
            case "end": s.endThreshold = Float(number)
            case "min_seconds": s.minimumActiveSeconds = number
            case "hangover_seconds": s.hangoverSeconds = number
            case "padding_seconds": s.paddingSeconds = number
            default: return nil
            }
        }
        return s
    }

    /// The scorer's settings from the options.
    var scorerConfiguration: FileScorer.Configuration {
        FileScorer.Configuration(
            frameLength: frameLength, clipThreshold: clipThreshold,
            analyses: FileScorer.Analyses(names: analyses) ?? .all, recordsSegments: timeline != nil || rttm != nil,
            loopedBackgrounds: loopedBackgrounds, speechBlend: speechBlend, pureToneGate: pureToneGate,
            speechSegments: Self.speechSegments(speechSegments) ?? DefaultModels.speechSegments,
            speechBoundaries: speechBoundaries)
    }

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
        if Self.speechSegments(speechSegments) == nil {
            throw ValidationError("""
                --speech-segments takes comma-separated KEY=VALUE settings, KEY one of on, off, end, min_seconds, \
                hangover_seconds, padding_seconds (end=none for no end threshold); got '\(speechSegments ?? "")'
                """)
        }
        do {
            try scorerConfiguration.validate()
        } catch {
            throw ValidationError(error.commandLineDescription([
                "frameLength": "--frame-length", "clipThreshold": "--clip-threshold", "speechSegments": "--speech-segments",
            ]))
        }
    }

    mutating func run() throws {
        let logger = logging.bootstrap(label: "dspscore")
        let configuration = scorerConfiguration
        let segmentFiles = try SegmentWriters(timeline: timeline, rttm: rttm, logger: logger)
        let shard = self.shard.flatMap(Shard.init)

        if filesFrom == "-" {
            // Streaming mode for pipes (Spark RDD.pipe, Ray, GNU parallel): one path in, one record out.
            let output = try RecordWriter(format: format, path: nil)
            output.header()
            let scorer = try FileScorer(configuration: configuration)
            var failed = 0
            let start = Date()
            var summary = ScoringProgress(filesTotal: 0)
            while let line = RawInput.readLine() {
                let path = line.trimmingCharacters(in: .whitespaces)
                guard !path.isEmpty, !path.hasPrefix("#"), shard?.contains(path) ?? true else { continue }
                let record = scorer.score(path: path)
                if record.status == .error {
                    failed += 1
                    logger.error("\(record.error?.message ?? record.audioFilepath)")
                }
                summary.add(audioSeconds: record.duration, failed: record.status == .error)
                output.write(record)
                segmentFiles.write(record)
            }
            output.footer()
            summary.elapsedSeconds = Date().timeIntervalSince(start)
            logger.info("\(summary.summary())")
            if failed > maxFailures { throw ExitCode(1) }
            return
        }

        var named = paths
        if let filesFrom {
            named += ScoringInputs.paths(fromLines: try RawInput.contents(of: filesFrom))
        }
        let wanted = Set(extensions.split(separator: ",").map { $0.lowercased().trimmingCharacters(in: .whitespaces) })
        var files = AudioFileDiscovery.expand(named, extensions: wanted).map(ScoringInput.init(path:))
        if let manifest {
            do {
                files += try ScoringManifest.inputs(
                    fromBytes: try RawInput.bytes(of: manifest), manifestDirectory: (manifest as NSString).deletingLastPathComponent,
                    decodeText: PathBytes.text(decoding:))
            } catch {
                logger.error("\(manifest): \(error)")
                throw ExitCode(1)
            }
        }
        if let shard { files = files.filter { shard.contains($0.audioFilepath) } }
        if files.isEmpty { logger.warning("no audio files found") }

        // Resuming: ok records of the earlier run are kept verbatim, in input order.
        var kept: [RecordIdentity: String] = [:]
        if resume, let path = self.output {
            for candidate in [path, path + ".partial"] {
                guard let data = try RawInput.bytesIfPresent(of: candidate) else { continue }
                let earlier: ScoreResume.Kept
                do {
                    earlier = try ScoreResume.completedRecords(fromJSONL: data, source: candidate, provenance: configuration.provenance)
                } catch {
                    logger.error("--resume: \(error)")
                    throw ExitCode(1)
                }
                for diagnostic in earlier.diagnostics { logger.warning("resume: \(diagnostic)") }
                kept.merge(earlier.records) { _, new in new }
            }
            logger.info("resuming: \(kept.count) files already scored")
        }
        let output = try RecordWriter(format: format, path: self.output.map { $0 + ".partial" })
        output.header()
        let identities = kept.isEmpty ? [] : files.map(\.identity)
        let pending = files.indices.filter { kept.isEmpty || kept[identities[$0]] == nil }
        var nextFull = 0
        func writeKept(upTo end: Int) {
            while nextFull < end {
                if !kept.isEmpty, let line = kept[identities[nextFull]] { output.writeLine(line) }
                nextFull += 1
            }
        }

        let progress = Progress(total: pending.count, shown: !logging.quiet)
        var failed = 0
        try ParallelScoring.score(pending.map { files[$0] }, jobs: jobs, configuration: configuration) { index, record in
            progress.clearBar()  // rows and log lines go where the bar was; it is drawn again below
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
        progress.clearBar()
        writeKept(upTo: files.count)
        progress.finish()
        output.footer()
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
            provenance.config_hash); a record found twice (the same audio_filepath and, for a \
            manifest line, the same line) must be identical, while the lines a manifest lists \
            for one file (segments, channels) are separate records. Output is sorted by \
            audio_filepath, then segment start (the order of a run over the same directories), or follows --order.
            """)

    @Argument(help: "JSON Lines files written by dspscore --format jsonl.")
    var inputs: [String]

    @Option(help: "A file with one path per line giving the output order; every path must have a record.")
    var order: String?

    @OptionGroup var logging: LoggingOptions

    func run() throws {
        let logger = logging.bootstrap(label: "dspscore")
        let texts = try inputs.map { (label: $0, bytes: try RawInput.bytes(of: $0)) }
        let orderPaths = try order.map { ScoringInputs.paths(fromLines: try RawInput.contents(of: $0)) }
        do {
            for line in try ScoreMerging.merge(texts, order: orderPaths) { print(line) }
        } catch {
            logger.error("merge: \(error)")
            throw ExitCode(1)
        }
    }
}

/// Writes records in the chosen format, one whole line per write, flushed, so a pipe reader
/// (or a resumed run) sees only complete records: to stdout, or to a `.partial` file that
/// ``finish(renamingTo:)`` renames into place. A table ends with a totals row (``footer()``).
final class RecordWriter {
    let format: Score.Format
    let handle: FileHandle
    let partialPath: String?
    var totals = ScoreFormatting.TableTotals()

    init(format: Score.Format, path: String?) throws {
        self.format = format
        partialPath = path
        if let path {
            handle = try RawInput.create(path)
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
        case .table:
            totals.add(record)
            writeLine(ScoreFormatting.tableRow(record))
        case .jsonl: writeLine(ScoreFormatting.jsonLine(record))
        case .csv: writeLine(ScoreFormatting.csvRow(record))
        }
    }

    /// The table's rule and totals row (nothing for JSON Lines and CSV).
    func footer() {
        guard format == .table else { return }
        writeLine(ScoreFormatting.tableRule)
        writeLine(ScoreFormatting.tableTotalsRow(totals))
    }

    func writeLine(_ line: String) {
        handle.write(Data((line + "\n").utf8))
    }

    /// Closes a `.partial` file and renames it to `path` (atomic within one file system).
    func finish(renamingTo path: String?) throws {
        guard let partialPath, let path else { return }
        try handle.synchronize()
        try handle.close()
        try RawInput.move(partialPath, to: path)
    }
}

/// The optional timeline (JSON Lines) and RTTM outputs, written in record order.
final class SegmentWriters {
    let timeline: FileHandle?
    let rttm: FileHandle?
    let logger: Logger
    /// The path each RTTM file id was given to, to warn when two paths share one (they differ
    /// only in their extension).
    var rttmPaths: [String: PathKey] = [:]

    init(timeline: String?, rttm: String?, logger: Logger) throws {
        self.logger = logger
        func open(_ path: String?) throws -> FileHandle? {
            guard let path else { return nil }
            if path == "-" { return FileHandle.standardOutput }
            return try RawInput.create(path)
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
            let id = TimelineFormatting.rttmFileID(record.audioFilepath)
            let path = PathKey(record.audioFilepath)
            if let earlier = rttmPaths[id], earlier != path {
                logger.warning("RTTM file id \(id) is both \(earlier) and \(path) (their paths differ only in the extension)")
            }
            rttmPaths[id] = path
            let lines = TimelineFormatting.rttmLines(record)
            if !lines.isEmpty { rttm.write(Data((lines.joined(separator: "\n") + "\n").utf8)) }
        }
    }
}

/// Progress on stderr: a self-overwriting progress bar on a terminal, JSON events (one per
/// second at most, and a final one) otherwise; nothing with `--quiet`. Formatting is
/// ``ScoringProgress``'s.
final class Progress {
    let start = Date()
    let isTerminal = StandardError.isTerminal
    let shown: Bool
    var state: ScoringProgress
    var lastReport = Date.distantPast
    /// Whether the terminal's last line is the bar (no newline after it).
    var barShown = false

    init(total: Int, shown: Bool) {
        state = ScoringProgress(filesTotal: total)
        self.shown = shown
    }

    var audioSecondsPerSecond: Double { state.audioHoursPerWallHour }

    func update(done count: Int, audioSeconds seconds: Double, failed didFail: Bool) {
        state.add(audioSeconds: seconds, failed: didFail)
        // On a terminal a bar cleared for output is drawn again at once.
        if Date().timeIntervalSince(lastReport) >= 1 || state.filesDone == state.filesTotal || (isTerminal && shown && !barShown) {
            report(final: false)
        }
    }

    /// On a terminal, erases the bar (`\r`, erase line) so that a table row on stdout or a log
    /// line on stderr starts at the beginning of the line instead of after the bar.
    func clearBar() {
        guard isTerminal, shown, barShown else { return }
        StandardError.writeLine("\r\u{1B}[K")
        barShown = false
    }

    func finish() { report(final: true) }

    private func report(final: Bool) {
        lastReport = Date()
        state.elapsedSeconds = Date().timeIntervalSince(start)
        guard shown else { return }
        if isTerminal {
            // \r and erase-to-end-of-line: the line rewrites itself in place.
            StandardError.writeLine("\r" + state.terminalLine() + "\u{1B}[K" + (final ? "\n" : ""))
            barShown = !final
        } else {
            StandardError.writeLine(state.jsonEvent(final: final) + "\n")
        }
    }
}

/// Files and standard input as bytes: paths are escaped byte strings (DSPIO's `PathBytes`), and
/// what is read is escaped the same way, so a list of paths or a manifest that holds a name
/// that is not UTF-8 (a latin-1 file list, say) names that file.
enum RawInput {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The bytes of the file at `path`, escaped: every byte as a name's byte (`--files-from`,
    /// `--order`) or, with `asText`, as text in which escapes are already escapes (JSON Lines).
    static func contents(of path: String, asText: Bool = false) throws -> String {
        let descriptor = PathBytes.open(path, O_RDONLY)
        guard descriptor >= 0 else { throw Failure(description: "\(path): \(String(cString: strerror(errno)))") }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let data = try handle.readToEnd() ?? Data()
        return asText ? PathBytes.text(decoding: data) : PathBytes.string(decoding: data)
    }

    /// The raw bytes of the file at `path` (JSON Lines are validated line by line by their
    /// readers).
    static func bytes(of path: String) throws -> [UInt8] {
        guard let bytes = try bytesIfPresent(of: path) else {
            throw Failure(description: "\(path): \(String(cString: strerror(ENOENT)))")
        }
        return bytes
    }

    /// The raw bytes of the file at `path`, or nil when there is no such file (any other
    /// failure throws).
    static func bytesIfPresent(of path: String) throws -> [UInt8]? {
        let descriptor = PathBytes.open(path, O_RDONLY)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw Failure(description: "\(path): \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        return Array(try handle.readToEnd() ?? Data())
    }

    /// Creates (or truncates) the file at `path` for writing.
    static func create(_ path: String) throws -> FileHandle {
        let descriptor = PathBytes.open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o666)
        guard descriptor >= 0 else { throw Failure(description: "\(path): \(String(cString: strerror(errno)))") }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// `rename(2)`: replaces `target` atomically.
    static func move(_ source: String, to target: String) throws {
        let result = PathBytes.withCString(source) { from in PathBytes.withCString(target) { to in rename(from, to) } }
        guard result == 0 else { throw Failure(description: "\(target): \(String(cString: strerror(errno)))") }
    }

    /// One line of standard input without its line break (`\n` or `\r\n`), escaped; nil at the end.
    /// Standard input as a C stream (used from the main thread only).
    nonisolated(unsafe) static let input = fdopen(STDIN_FILENO, "r")

    static func readLine() -> String? {
        guard let input else { return nil }
        var line: UnsafeMutablePointer<CChar>? = nil
        var capacity = 0
        defer { free(line) }
        let count = getline(&line, &capacity, input)
        guard count >= 0, let line else { return nil }
        var bytes = UnsafeRawBufferPointer(start: line, count: count)[...]
        if bytes.last == 0x0A { bytes = bytes.dropLast() }
        if bytes.last == 0x0D { bytes = bytes.dropLast() }
        return PathBytes.string(decoding: bytes)
    }
}
