import CLISupport
import DSPCore
import Foundation
import Logging
import Testing

/// A log line parsed back with Foundation's JSON reader.
func parsedObject(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
    return try #require(object as? [String: Any], sourceLocation: sourceLocation)
}

/// Lines a handler wrote.
final class CapturedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    var lines: [String] { lock.withLock { stored } }
    func append(_ line: String) { lock.withLock { stored.append(line) } }
}

@Suite("JSONLogHandler: one JSON object per line")
struct JSONLogHandlerTests {
    @Test("a line holds ts, level, label, message and metadata, and ends in one newline")
    func shape() throws {
        let date = Date(timeIntervalSince1970: 1_795_720_605.1239)  // 2026-11-26T19:16:45.123Z
        let line = JSONLogHandler.line(
            date: date, level: .warning, label: "dspscore", message: "3 files failed",
            metadata: ["kind": "truncated", "count": .stringConvertible(3), "paths": ["a.wav", "b.wav"], "nested": ["x": "1"]])
        #expect(line.hasSuffix("}\n"))
        #expect(line.dropLast().contains("\n") == false)
        let object = try parsedObject(line)
        #expect(object["ts"] as? String == "2026-11-26T19:16:45.123Z")
        #expect(object["level"] as? String == "warning")
        #expect(object["label"] as? String == "dspscore")
        #expect(object["message"] as? String == "3 files failed")
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["kind"] as? String == "truncated")
        #expect(metadata["count"] as? String == "3")
        #expect(metadata["paths"] as? [String] == ["a.wav", "b.wav"])
        #expect((metadata["nested"] as? [String: String]) == ["x": "1"])
        #expect(line.hasPrefix(#"{"ts":"#))
    }

    @Test("messages with quotes, backslashes, newlines, control characters and any Unicode stay one valid line")
    func escaping() throws {
        let nasty = "say \"hi\"\\ \n\r\t\u{0}\u{1F}\u{7F} é 日本 \u{10FF80} 🎙️"
        let line = JSONLogHandler.line(date: Date(), level: .error, label: "a\"b", message: nasty, metadata: ["k\n": "\u{1}"])
        #expect(line.filter { $0 == "\n" }.count == 1)
        let object = try parsedObject(line)
        #expect(object["message"] as? String == nasty)
        #expect(object["label"] as? String == "a\"b")
        #expect((object["metadata"] as? [String: String]) == ["k\n": "\u{1}"])
    }

    @Test("no metadata: the key is left out; an error is its own key")
    func optionalKeys() throws {
        let plain = try parsedObject(JSONLogHandler.line(date: Date(), level: .info, label: "x", message: "m"))
        #expect(plain["metadata"] == nil && plain["error"] == nil)
        #expect(Set(plain.keys) == ["ts", "level", "label", "message"])
        let failed = try parsedObject(JSONLogHandler.line(date: Date(), level: .error, label: "x", message: "m", error: "disk full"))
        #expect(failed["error"] as? String == "disk full")
    }

    @Test("timestamps: UTC, milliseconds, the epoch and dates before it")
    func timestamps() {
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: 951_782_400.25)) == "2000-02-29T00:00:00.250Z")
    }

    @Test("through a Logger: the level filter, the handler's, the provider's and the call's metadata (the call's wins)")
    func throughLogger() throws {
        let captured = CapturedLines()
        var handler = JSONLogHandler(
            label: "test", metadataProvider: Logger.MetadataProvider { ["request": "r1", "shared": "provider"] },
            write: { captured.append($0) })
        handler.logLevel = .notice
        var logger = Logger(label: "test") { _ in handler }
        logger[metadataKey: "shared"] = "handler"
        logger[metadataKey: "run"] = "7"
        logger.info("dropped: below notice")
        logger.notice("kept", metadata: ["shared": "call"])
        logger.critical("also kept")
        #expect(captured.lines.count == 2)
        let first = try parsedObject(captured.lines[0])
        #expect(first["level"] as? String == "notice")
        #expect((first["metadata"] as? [String: String]) == ["request": "r1", "shared": "call", "run": "7"])
        #expect(try parsedObject(captured.lines[1])["level"] as? String == "critical")
    }

    @Test("a command-line error names the option, not the API field")
    func commandLineWords() {
        let error = ConfigurationError(parameter: "frameLength", value: "0", expected: "1...65536")
        #expect(error.commandLineDescription(["frameLength": "--frame-length"]) == "invalid --frame-length: 0 (expected 1...65536)")
        #expect(error.commandLineDescription([:]) == "invalid frameLength: 0 (expected 1...65536)")
    }
}
