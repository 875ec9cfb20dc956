// The JSON Schema of a record, written from the parts' tables (RecordField.swift).

extension FileScore {
    /// The JSON Schema (draft 2020-12) of one record, as `dspscore schema` prints it: generated
    /// from the record's field tables (types, `null`s, required keys, ranges, descriptions).
    public static let jsonSchema = RecordSchemaText.document(
        id: "https://speechdsp.example/schemas/dspscore-record.json", title: "dspscore record",
        description: "One audio file scored by SpeechDSP's dspscore. Levels are in dB relative to digital full scale. Every number is a true value or an explicit absence with one meaning: a dB level is null exactly when it is -infinity (digital silence; for integrated_lufs, no block above the -70 LUFS gate); other nullable fields state their one reason; an analysis asked for but not done is left out and named in not_measured; a NaN, infinite or out-of-range result makes the record an error (non_finite_result, out_of_range_result).",
        fields: FileScore.record.infos)
}

/// Writes a JSON Schema from field tables, laid out for reading: one line per scalar field, one
/// block per object; a list (`required`, `enum`) stays on one line when it ends within
/// ``lineLimit`` columns and is otherwise wrapped at ``wrapWidth``, continued under its first item.
enum RecordSchemaText {
    static let lineLimit = 160
    static let wrapWidth = 120

    static func document(id: String, title: String, description: String, fields: [RecordFieldInfo]) -> String {
        var lines = [
            "{", "  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\",", "  \"$id\": \(quoted(id)),",
            "  \"title\": \(quoted(title)),", "  \"description\": \(quoted(description)),", "  \"type\": \"object\",",
        ]
        lines += list("  \"required\": [", required(fields), then: ",")
        lines.append("  \"properties\": {")
        lines += properties(fields, indent: 4)
        lines += ["  }", "}"]
        return lines.joined(separator: "\n")
    }

    /// Keys always written and not computed (older records lack computed ones).
    private static func required(_ fields: [RecordFieldInfo]) -> [String] {
        fields.filter { $0.presence == .required || { if case .nullable = $0.presence { true } else { false } }($0) }.map(\.name)
    }

    private static func properties(_ fields: [RecordFieldInfo], indent: Int) -> [String] {
        let pad = String(repeating: " ", count: indent)
        var lines: [String] = []
        for (index, field) in fields.enumerated() {
            let comma = index < fields.count - 1 ? "," : ""
            let head = pad + quoted(field.name) + ": {"
            guard let child = field.child else {
                lines += scalar(field, head: head, end: "}" + comma)
                continue
            }
            let inner = pad + "  "
            let childFields = infos(child)
            let childRequired = required(childFields)
            lines.append(head)
            if let description = field.schema.description {
                lines.append(inner + "\"type\": \"object\", \"description\": \(quoted(description)),")
                lines += list(inner + "\"required\": [", childRequired, then: ",")
            } else if (inner + "\"type\": \"object\", \"required\": [" + childRequired.map(quoted).joined(separator: ", ") + "]").count <= lineLimit {
                lines += list(inner + "\"type\": \"object\", \"required\": [", childRequired, then: ",")
            } else {
                lines.append(inner + "\"type\": \"object\",")
                lines += list(inner + "\"required\": [", childRequired, then: ",")
            }
            lines.append(inner + "\"properties\": {")
            lines += properties(childFields, indent: indent + 4)
            lines += [inner + "}", pad + "}" + comma]
        }
        return lines
    }

    private static func infos<Part: RecordPart>(_: Part.Type) -> [RecordFieldInfo] { Part.record.infos }

    /// `"name": {...}`: the type (or `enum` / `const`), then the bounds, pattern and description.
    private static func scalar(_ field: RecordFieldInfo, head: String, end: String) -> [String] {
        let terms = field.schema
        var rest: [String] = []
        if let minimum = terms.minimum { rest.append("\"minimum\": \(minimum)") }
        if let maximum = terms.maximum { rest.append("\"maximum\": \(maximum)") }
        if let exclusiveMinimum = terms.exclusiveMinimum { rest.append("\"exclusiveMinimum\": \(exclusiveMinimum)") }
        if let pattern = terms.pattern { rest.append("\"pattern\": \(quoted(pattern))") }
        if let description = terms.description { rest.append("\"description\": \(quoted(description))") }
        let tail = rest.map { ", " + $0 }.joined() + end
        if let values = terms.values { return list(head + "\"enum\": [", values, then: tail) }
        let type: String
        if let constant = terms.constant {
            type = "\"const\": \(quoted(constant))"
        } else {
            let name = switch field.kind {
            case .integer: "integer"
            case .number, .float: "number"
            case .text, .identifier, .status, .computed: "string"
            case .object, .json: "object"
            }
            if field.presence.allowsNull { type = "\"type\": [\(quoted(name)), \"null\"]" } else { type = "\"type\": \(quoted(name))" }
        }
        return [head + type + tail]
    }

    /// `prefix` + the quoted items + `]` + `then`, wrapped when longer than ``lineLimit``.
    private static func list(_ prefix: String, _ items: [String], then suffix: String) -> [String] {
        let items = items.map(quoted)
        let oneLine = prefix + items.joined(separator: ", ") + "]"
        if oneLine.count <= lineLimit { return [oneLine + suffix] }
        var lines: [String] = []
        var line = prefix
        for (index, item) in items.enumerated() {
            let piece = item + (index < items.count - 1 ? "," : "]")
            if line.count == prefix.count {
                line += piece
            } else if line.count + 1 + piece.count > wrapWidth {
                lines.append(line)
                line = String(repeating: " ", count: prefix.count) + piece
            } else {
                line += " " + piece
            }
        }
        return lines + [line + suffix]
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
