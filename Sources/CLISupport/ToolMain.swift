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
        do {
            var parsed = try command.parseAsRoot(arguments)
            try parsed.run()
        } catch {
            let code = command.exitCode(for: error)
            if StandardError.isTerminal || code == .success { command.exit(withError: error) }
            let message = command.message(for: error)
            if !message.isEmpty {
                StandardError.writeLine(JSONLogHandler.line(date: Date(), level: .error, label: label, message: message))
            }
            fflush(nil)  // every C stream, stdout included
            exit(code.rawValue)
        }
        fflush(nil)  // every C stream, stdout included
        exit(0)
    }
}

/// A failure of a run, printed as its message (swift-argument-parser prints `Error: ` and the
/// description, without the usage that a `ValidationError` adds).
package struct ToolFailure: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
