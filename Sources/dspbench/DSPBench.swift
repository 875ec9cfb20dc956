// dspbench: the benchmark harness users run on their own machines.
import ArgumentParser
import Logging

@main
struct DSPBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dspbench",
        abstract: "Measure SpeechDSP on this machine, side by side with peer libraries.",
        discussion: """
            Data goes to stdout (a table, or one JSON document with --json); progress and logs \
            go to stderr. See docs/benchmarks.md for the method and the JSON schema.
            """,
        subcommands: [RunCommand.self, CompareCommand.self, ResampleCommand.self, DetectCommand.self, MachineCommand.self])
}

/// Options every subcommand shares.
struct LoggingOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Only warnings and errors on stderr.")
    var quiet = false

    /// Sends swift-log output to stderr; call once, first thing in `run()`.
    func bootstrap(label: String) -> Logger {
        let level: Logger.Level = quiet ? .warning : .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: label)
    }
}
