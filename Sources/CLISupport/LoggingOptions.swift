import ArgumentParser
import Logging

/// `--log-level` and `--quiet`, shared by the tools that log (swift-log, bootstrapped here and
/// only in executables).
package struct LoggingOptions: ParsableArguments {
    /// The levels `--log-level` takes, swift-log's.
    package enum Level: String, ExpressibleByArgument, CaseIterable, Sendable {
        case trace, debug, info, notice, warning, error, critical

        package var loggerLevel: Logger.Level {
            switch self {
            case .trace: .trace
            case .debug: .debug
            case .info: .info
            case .notice: .notice
            case .warning: .warning
            case .error: .error
            case .critical: .critical
            }
        }
    }

    @Option(
        name: .customLong("log-level"),
        help: "Lowest level logged on stderr: trace, debug, info, notice, warning, error or critical (default: info; warning with --quiet).")
    package var logLevel: Level?

    @Flag(name: .shortAndLong, help: "Log only warnings and errors, and show no progress.")
    package var quiet = false

    package init() {}

    /// The level in force: `--log-level`, else warning with `--quiet`, else info.
    package var level: Logger.Level { logLevel?.loggerLevel ?? (quiet ? .warning : .info) }

    /// Sends swift-log output to stderr at ``level`` — text on a terminal, one JSON object per
    /// line (``JSONLogHandler``) otherwise — and returns a logger for `label`. Call once, first
    /// thing in `run()`.
    package func bootstrap(label: String) -> Logger {
        let level = self.level
        if StandardError.isTerminal {
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        } else {
            LoggingSystem.bootstrap { label in
                var handler = JSONLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        }
        return Logger(label: label)
    }
}
