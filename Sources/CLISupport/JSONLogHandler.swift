#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Logging

/// A swift-log handler that writes one JSON object per line: what the tools log on a standard
/// error that is not a terminal, so that a collector reads stderr as JSON Lines (beside
/// `dspscore`'s JSON progress events).
///
/// `{"ts":"2026-11-26T21:56:45.123Z","level":"info","label":"dspscore","message":"…","metadata":{…}}`:
/// `ts` is UTC, ISO 8601 with milliseconds; `metadata` (the handler's, the provider's and the
/// call's, the call's winning) is left out when empty; values are strings, arrays and objects
/// as swift-log holds them; an error attached to the event is `"error"` (its description).
/// Each line goes out in one `write(2)` under a process-wide lock, so lines from several
/// threads never interleave.
package struct JSONLogHandler: LogHandler {
    package var logLevel: Logger.Level = .info
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    let label: String
    let write: @Sendable (String) -> Void

    /// A handler for `label` writing each line (with its `\n`) through `write`.
    package init(label: String, metadataProvider: Logger.MetadataProvider? = nil, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = write
    }

    /// A handler for `label` writing to standard error.
    package static func standardError(label: String) -> JSONLogHandler {
        JSONLogHandler(label: label, write: StandardError.writeLine)
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let own = event.metadata { merged.merge(own) { _, new in new } }
        write(Self.line(
            date: Date(), level: event.level, label: label, message: event.message.description, metadata: merged,
            error: event.error.map { String(describing: $0) }))
    }

    /// One log line (with its `\n`): the JSON object described above, keys in that order.
    package static func line(
        date: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata = [:], error: String? = nil
    ) -> String {
        var out = "{\"ts\":\"" + timestamp(date) + "\",\"level\":\"" + level.rawValue + "\",\"label\":"
        JSONText.appendString(label, to: &out)
        out += ",\"message\":"
        JSONText.appendString(message, to: &out)
        if let error {
            out += ",\"error\":"
            JSONText.appendString(error, to: &out)
        }
        if !metadata.isEmpty {
            out += ",\"metadata\":"
            append(.dictionary(metadata), to: &out)
        }
        return out + "}\n"
    }

    private static func append(_ value: Logger.Metadata.Value, to out: inout String) {
        switch value {
        case .string(let text): JSONText.appendString(text, to: &out)
        case .stringConvertible(let value): JSONText.appendString(value.description, to: &out)
        case .array(let values):
            out += "["
            for (i, element) in values.enumerated() {
                if i > 0 { out += "," }
                append(element, to: &out)
            }
            out += "]"
        case .dictionary(let entries):
            out += "{"
            for (i, entry) in entries.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { out += "," }
                JSONText.appendString(entry.key, to: &out)
                out += ":"
                append(entry.value, to: &out)
            }
            out += "}"
        }
    }

    /// `2026-11-26T21:56:45.123Z`: UTC, milliseconds.
    package static func timestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds.quotientAndRemainder(dividingBy: 1000).quotient)
        var remainder = Int(milliseconds - Int64(seconds) * 1000)
        if remainder < 0 {  // before 1970: floor, not truncation
            seconds -= 1
            remainder += 1000
        }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), remainder)
    }
}

/// JSON string literals (RFC 8259): `"`, `\` and the control characters escaped, everything
/// else as is (UTF-8).
package enum JSONText {
    package static func appendString(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// `text` as a JSON string literal.
    package static func string(_ text: String) -> String {
        var out = ""
        appendString(text, to: &out)
        return out
    }
}
