// dspscore report: one self-contained HTML page (inline CSS and SVG, no scripts) from the
// JSON Lines records of one or more runs. The records are read a line at a time.
import ArgumentParser
import CLISupport
import DSPScoring
import Foundation

struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write an HTML report (histograms, clipping, errors, worst files) from JSON Lines records.",
        discussion: """
            Reads dspscore --format jsonl output (several files, e.g. shards, are summed; '-' \
            reads standard input) and writes one self-contained HTML page: inline CSS and SVG, \
            no scripts, nothing fetched. Sections for detection and environment appear when the \
            records carry those fields and say "not in these records" otherwise.
            """)

    @Argument(help: "JSON Lines files written by dspscore --format jsonl ('-' for standard input).")
    var inputs: [String]

    @Option(help: "Write the page to FILE (default: standard output).")
    var output: String?

    @Option(help: "The page title.")
    var title: String = "dspscore report"

    @OptionGroup var logging: LoggingOptions

    func run() throws {
        let logger = logging.bootstrap(label: "dspscore")
        var summary = CorpusSummary()
        for input in inputs {
            guard let file = input == "-" ? fdopen(dup(STDIN_FILENO), "r") : fopen(input, "r") else {
                throw ToolFailure("cannot open \(input): \(String(cString: strerror(errno)))")
            }
            defer { fclose(file) }
            var line: UnsafeMutablePointer<CChar>?
            var capacity = 0
            var number = 0
            defer { free(line) }
            while case let length = getline(&line, &capacity, file), length >= 0, let line {
                number += 1
                // The line's bytes as read (NUL bytes and invalid UTF-8 included), without its newline.
                var bytes = Array(UnsafeRawBufferPointer(start: line, count: length))
                if bytes.last == 0x0A { bytes.removeLast() }
                summary.add(lineBytes: bytes, number: number, source: input)
            }
        }
        let page = HTMLReport.render(summary, title: title, sources: inputs)
        if let output {
            try page.write(toFile: output, atomically: true, encoding: .utf8)
            logger.info("report: \(summary.files) records (\(summary.ok) ok, \(summary.failed) failed) -> \(output)")
        } else {
            FileHandle.standardOutput.write(Data(page.utf8))
        }
        if summary.unreadableLineCount > 0 {
            logger.warning("report: \(summary.unreadableLineCount) lines were not dspscore records and are left out")
            for diagnostic in summary.diagnostics { logger.warning("report: \(diagnostic)") }
        }
    }
}
