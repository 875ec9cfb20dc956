#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The tools' standard error: a terminal gets text, anything else JSON Lines only.
package enum StandardError {
    /// Whether standard error is a terminal (`isatty(2)`).
    package static let isTerminal = isatty(STDERR_FILENO) != 0

    private static let lock = NSLock()

    /// Writes `line` (which ends in `\n`) with as few `write(2)` calls as the kernel allows —
    /// one for a pipe line under PIPE_BUF — under a process-wide lock, so that lines written
    /// from several threads never interleave.
    @Sendable package static func writeLine(_ line: String) {
        let bytes = Array(line.utf8)
        lock.lock()
        defer { lock.unlock() }
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let written = write(STDERR_FILENO, base + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}
