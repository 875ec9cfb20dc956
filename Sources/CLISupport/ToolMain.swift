#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import Foundation
import Logging

/// The tools' `main`: parse, run, and report a failure the way stderr is read — as
/// swift-argument-parser prints it on a terminal, as one JSON log line (``JSONLogHandler``'s
/// shape, level `error`) otherwise, so that a non-terminal stderr holds JSON only.
package enum ToolMain {
    /// Parses `arguments` (without the program name) as `command`'s, runs the chosen command
    /// and exits: 0, or the error's exit code. Help and `--version` go to stdout as usual.
    package static func run(_ command: any ParsableCommand.Type, label: String, arguments: [String]) -> Never {
        let code = outcome(command, label: label, arguments: arguments)
        fflush(nil)  // every C stream, stdout included
        exit(code)
    }

    /// Runs the command and reports its failure; returns the exit code. The error is released
    /// when this returns, so nothing of it is alive at `exit` (LeakSanitizer, which the tools
    /// run under in CI's sanitizer suite, reports an object still allocated at exit as a leak).
    private static func outcome(_ command: any ParsableCommand.Type, label: String, arguments: [String]) -> Int32 {
        do {
            var parsed = try command.parseAsRoot(arguments)
            try parsed.run()
            return 0
        } catch {
            let code = command.exitCode(for: error)
            // Help and --version (exit code 0) to stdout; anything else on a terminal as
            // swift-argument-parser's `exit(withError:)` prints it, else as one JSON line.
            if code == .success || StandardError.isTerminal {
                let text = command.fullMessage(for: error)
                if !text.isEmpty {
                    if code == .success { print(text) } else { StandardError.writeLine(text) }
                }
                return code.rawValue
            }
            let message = command.message(for: error)
            if !message.isEmpty {
                StandardError.writeLine(JSONLogHandler.line(date: Date(), level: .error, label: label, message: message))
            }
            return code.rawValue
        }
    }
}

/// A failure of a run, printed as its message (swift-argument-parser prints `Error: ` and the
/// description, without the usage that a `ValidationError` adds).
package struct ToolFailure: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
