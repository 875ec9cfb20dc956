// Fuzz target `file`: bytes → a temporary file → AudioFileReader → FileScorer record.
// Must never crash, hang or leak; the record (and its timeline and RTTM lines) must be valid
// JSON that conforms to the record's JSON Schema and decodes back to the same record.
// Run: scripts/fuzz.sh file SECONDS
import DSPIO
import DSPScoring
import Foundation

private let path = FileManager.default.temporaryDirectory.appendingPathComponent("speechdsp-fuzz-\(getpid()).wav").path
nonisolated(unsafe) private let scorer = try! FileScorer(configuration: .init(recordsSegments: true))
nonisolated(unsafe) private let schema = try! JSONSerialization.jsonObject(with: Data(FileScore.jsonSchema.utf8)) as! [String: Any]

/// Writes the input to the temporary file: removes the last input's file and creates a new one
/// (plain POSIX calls). Not `FileManager.createFile`, which writes a file beside it, fsyncs it
/// and renames it over the old one, nor truncating the old file in place, which ext4 answers
/// with a flush of the file's data on close (its replace-by-truncate heuristic): each cost ~3–7
/// ms of a run that otherwise takes ~1 ms (docs/reliability.md, "Fuzzing").
private func write(_ data: UnsafePointer<UInt8>, _ size: Int, to path: String) {
    guard unlink(path) == 0 || errno == ENOENT else { fatalError("cannot remove \(path): errno \(errno)") }
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
    guard fd >= 0 else { fatalError("cannot create \(path): errno \(errno)") }
    var written = 0
    while written < size {
        let n = Foundation.write(fd, data + written, size - written)
        guard n > 0 else { fatalError("cannot write \(path): errno \(errno)") }
        written += n
    }
    guard close(fd) == 0 else { fatalError("cannot close \(path): errno \(errno)") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    write(data, size, to: path)
    let record = scorer.score(path: path)
    let line = ScoreFormatting.jsonLine(record)
    guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) else {
        fatalError("not JSON: \(line)")
    }
    if let problem = SchemaCheck.problem(object, against: schema, at: "record") {
        fatalError("\(problem): \(line)")
    }
    guard let decoded = try? JSONDecoder().decode(FileScore.self, from: Data(line.utf8)),
        ScoreFormatting.jsonLine(decoded) == line
    else { fatalError("does not round-trip: \(line)") }
    for text in TimelineFormatting.timelineLines(record) where (try? JSONSerialization.jsonObject(with: Data(text.utf8))) == nil {
        fatalError("timeline line not JSON: \(text)")
    }
    for text in TimelineFormatting.rttmLines(record) where text.split(separator: " ", omittingEmptySubsequences: false).count != 10 {
        fatalError("RTTM line without ten fields: \(text)")
    }
    return 0
}

/// The parts of JSON Schema the record's schema uses: type (one or a list), required,
/// properties, additionalProperties false, enum, const, minimum/maximum/exclusiveMinimum.
enum SchemaCheck {
    static func problem(_ value: Any, against schema: [String: Any], at where_: String) -> String? {
        if let types = schema["type"] {
            let allowed = (types as? [String]) ?? [types as? String ?? ""]
            guard allowed.contains(where: { matches(value, type: $0) }) else { return "\(where_): not of type \(allowed)" }
        }
        if let options = schema["enum"] as? [Any], !options.contains(where: { "\($0)" == "\(value)" }) {
            return "\(where_): \(value) not in \(options)"
        }
        if let constant = schema["const"], "\(constant)" != "\(value)" { return "\(where_): \(value) is not \(constant)" }
        if let number = value as? NSNumber, !isBool(value) {
            let x = number.doubleValue
            if !x.isFinite { return "\(where_): non-finite" }
            if let minimum = (schema["minimum"] as? NSNumber)?.doubleValue, x < minimum { return "\(where_): \(x) < \(minimum)" }
            if let maximum = (schema["maximum"] as? NSNumber)?.doubleValue, x > maximum { return "\(where_): \(x) > \(maximum)" }
            if let bound = (schema["exclusiveMinimum"] as? NSNumber)?.doubleValue, x <= bound { return "\(where_): \(x) <= \(bound)" }
        }
        if let object = value as? [String: Any] {
            for key in schema["required"] as? [String] ?? [] where object[key] == nil { return "\(where_): no \(key)" }
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for (key, member) in object {
                guard let sub = properties[key] as? [String: Any] else {
                    if (schema["additionalProperties"] as? Bool) == false { return "\(where_): unexpected \(key)" }
                    continue
                }
                if let problem = problem(member, against: sub, at: "\(where_).\(key)") { return problem }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (index, item) in array.enumerated() {
                if let problem = problem(item, against: items, at: "\(where_)[\(index)]") { return problem }
            }
        }
        return nil
    }

    static func matches(_ value: Any, type: String) -> Bool {
        switch type {
        case "null": return value is NSNull
        case "object": return value is [String: Any]
        case "array": return value is [Any]
        case "string": return value is String
        case "boolean": return isBool(value)
        case "integer":
            guard !isBool(value), let number = value as? NSNumber else { return false }
            return number.doubleValue.rounded() == number.doubleValue
        case "number": return !isBool(value) && value is NSNumber
        default: return false
        }
    }

    /// JSONSerialization gives `true`/`false` as NSNumbers of ObjC type `c`, numbers as `i`/`q`/`d`.
    static func isBool(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c"
    }
}
