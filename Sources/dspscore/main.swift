// dspscore: score audio files — levels per file, as a table or JSON Lines.
import ArgumentParser
import DSPScoring
import Foundation
import Logging

struct DSPScore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dspscore",
        abstract: "Score audio files: duration, rate, channels, RMS and peak dBFS, clipped samples.",
        discussion: """
            Directories are searched recursively for audio files (by extension). Data goes to \
            stdout, progress and errors to stderr. A file that cannot be read gets an error \
            record and the run continues; the exit code is 1 if any file failed.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, jsonl
    }

    @Argument(help: "Audio files or directories.")
    var paths: [String]

    @Option(help: "Output format: table (for a terminal) or jsonl (one JSON record per line).")
    var format: Format = .table

    @Option(help: "Comma-separated extensions to pick from directories.")
    var extensions: String = AudioFileDiscovery.defaultExtensions.sorted().joined(separator: ",")

    @Option(help: "Sample frames per analysis frame.")
    var frameLength: Int = 1024

    @Option(help: "|x| at or above which a sample counts as clipped.")
    var clipThreshold: Float = 1.0

    mutating func run() throws {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        let logger = Logger(label: "dspscore")
        let scorer: FileScorer
        do {
            scorer = try FileScorer(configuration: .init(frameLength: frameLength, clipThreshold: clipThreshold))
        } catch {
            throw ValidationError(error.description)
        }
        let wanted = Set(extensions.split(separator: ",").map { $0.lowercased().trimmingCharacters(in: .whitespaces) })
        let files = AudioFileDiscovery.expand(paths, extensions: wanted)
        if files.isEmpty { logger.warning("no audio files found") }
        if format == .table { print(ScoreFormatting.tableHeader) }
        var failed = 0
        for file in files {
            let score = scorer.score(path: file)
            if score.status == .error {
                failed += 1
                logger.error("\(score.error?.message ?? file)")
            }
            print(format == .table ? ScoreFormatting.tableRow(score) : ScoreFormatting.jsonLine(score))
        }
        logger.info("scored \(files.count - failed) of \(files.count) files")
        if failed > 0 { throw ExitCode(1) }
    }
}

DSPScore.main()
