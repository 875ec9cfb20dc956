import Foundation

/// A JSON value as a manifest line holds it: what ``ManifestLine`` compares and what
/// ``ScoringManifest`` reads fields from.
///
/// Numbers are `Double` (JSON has one number type; an integer above 2⁵³ is compared to the
/// nearest `Double`). Decodable from any JSON, so a record's `manifest` reads back whatever it
/// holds.
public enum JSONValue: Codable, Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The member `key` of an object; `nil` for a missing key or a value that is not an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    /// The string, for `.string`.
    public var string: String? { if case .string(let value) = self { value } else { nil } }
    /// The number, for `.number`.
    public var number: Double? { if case .number(let value) = self { value } else { nil } }
    /// The elements, for `.array`.
    public var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    /// Whether the value is `null`.
    public var isNull: Bool { self == .null }

    /// The value as JSON with sorted keys (`JSONEncoder` with `.sortedKeys`,
    /// `.withoutEscapingSlashes`): the same text for equal values, whatever their spelling was.
    public var canonicalText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}

/// A manifest line carried into its record (the record's `manifest`): the JSON object exactly
/// as the line spelled it, and its value.
///
/// The record writer writes ``text`` byte for byte — every field, nested ones included, in the
/// line's own key order and number spelling — so `json.loads(record["manifest"])` equals
/// `json.loads(line)` and the text is the line's. Two manifest lines are the same input when
/// their ``value``s are equal (``canonicalText``), however they were spelled; a record decoded
/// from JSON holds the canonical text of what it read.
public struct ManifestLine: Codable, Equatable, Sendable {
    /// The JSON object as written (surrounding white space removed).
    public let text: String
    /// The parsed object.
    public let value: JSONValue

    /// A line already parsed: `text` must be the JSON text of `value`.
    public init(text: String, value: JSONValue) {
        self.text = text
        self.value = value
    }

    /// Parses one manifest line; `nil` when it is not a JSON object.
    public init?(line: some StringProtocol) {
        let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.first == "{", let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)),
            case .object = value
        else { return nil }
        self.init(text: text, value: value)
    }

    /// ``value`` with sorted keys: equal for equal lines.
    public var canonicalText: String { value.canonicalText }

    public static func == (a: Self, b: Self) -> Bool { a.value == b.value }

    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        guard case .object = value else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "manifest is not an object"))
        }
        self.init(text: value.canonicalText, value: value)
    }

    public func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}
