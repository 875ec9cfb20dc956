// The record described once. Each part of a `dspscore` record (``FileScore`` and each nested
// object) lists its fields in one table, `record`; the JSON writer, `Codable`, the JSON Schema,
// the CSV columns and the non-finite check all derive from those tables. Adding a field is the
// stored property plus one row.

/// A part of the record with a field table: ``FileScore`` and each object nested in it.
protocol RecordPart: Codable, Equatable, Sendable {
    /// The part's fields, in schema and CSV order.
    static var record: RecordDescription<Self> { get }
    /// A value whose fields the decoder then sets.
    init()

    // Entry points for a parent that holds this part as a field (called through
    // `any RecordPart.Type`); RecordField+JSON, +CSV and +NonFinite implement them for every part.

    /// Whether the `Self?` at `raw` is `nil`.
    static func isNil(at raw: UnsafeRawPointer) -> Bool
    /// Writes the part at `raw` (a `Self`, or a non-nil `Self?`) as a JSON object.
    static func writeJSON(at raw: UnsafeRawPointer, into writer: inout JSONRecordWriter)
    /// Appends the part's CSV cells; empty cells when `raw` is `nil` or holds `nil`.
    static func appendCSVCells(at raw: UnsafeRawPointer?, optional: Bool, to cells: inout [String])
    /// The key of the first number field that is NaN or ±∞ in the part at `raw`, in key order
    /// (−∞ in a level that writes it as `null` is a value, not a failure).
    static func firstNonFiniteKey(at raw: UnsafeRawPointer, optional: Bool) -> String?
    /// The key of the first finite number or integer outside its schema `minimum`/`maximum`.
    static func firstOutOfRangeKey(at raw: UnsafeRawPointer, optional: Bool) -> String?
}

/// What a field holds, as the outputs see it.
enum RecordValueKind: Equatable, Sendable {
    /// Free text: a JSON string, a quoted CSV cell.
    case text
    /// One of the field's enumerated values (schema `enum`): a JSON string, a bare CSV cell.
    case identifier
    /// ``FileScore/Status``, written as its raw value.
    case status
    /// `Int`.
    case integer
    /// `Double`.
    case number
    /// `Float`.
    case float
    /// A nested part (its own table).
    case object
    /// A JSON object carried through as written (``ManifestLine``): its text in the JSON
    /// record, a quoted CSV cell holding that text.
    case json
    /// Text computed from the part's other fields (`config_hash`): written, never read back.
    case computed
}

/// Whether a field's key is always in the record, and why a value may be missing.
enum RecordPresence: Equatable, Sendable {
    /// Always present, never `null`.
    case required
    /// Always present; `null` when the reason holds (JSON has no −∞, or the analysis was off).
    case nullable(String)
    /// Left out when the reason holds.
    case omitted(String)
    /// A level (`Double?`): left out when `nil` (the first reason: not measured), `null` when
    /// −∞ (the second reason), a number otherwise.
    case omittedOrNull(absent: String, null: String)
    /// Computed and always written, but not required of readers: older records lack it.
    case derived

    /// The schema allows `null`.
    var allowsNull: Bool {
        switch self {
        case .nullable, .omittedOrNull: true
        case .required, .omitted, .derived: false
        }
    }

    /// −∞ is written as `null`.
    var minusInfinityIsNull: Bool {
        if case .omittedOrNull = self { true } else { false }
    }

    /// The key is written even when the value is missing (as `null`).
    var alwaysWritten: Bool {
        switch self {
        case .required, .nullable, .derived: true
        case .omitted, .omittedOrNull: false
        }
    }
}

/// A field's JSON Schema keywords beyond its type.
struct RecordSchemaTerms: Sendable {
    /// The allowed values (`enum`).
    var values: [String]? = nil
    /// The one allowed value (`const`).
    var constant: String? = nil
    /// `minimum`.
    var minimum: Int? = nil
    /// `maximum`.
    var maximum: Int? = nil
    /// `exclusiveMinimum`.
    var exclusiveMinimum: Int? = nil
    /// `pattern`.
    var pattern: String? = nil
    /// `description`: what the field means, with its unit.
    var description: String? = nil
}

/// A field's CSV column. Every field that is not a nested object is a column (the CSV carries
/// every scalar of the record; nested objects' fields are columns of their own): named like its
/// JSON key unless a row names it otherwise.
enum RecordCSVColumn: Sendable {
    /// A column named like the JSON key (the default).
    case column
    /// A column with another name (where the key alone would be ambiguous, `error_kind`).
    case named(String)
}

/// What the schema and CSV need of a field, whatever part it is in.
struct RecordFieldInfo: Sendable {
    /// The JSON key.
    let name: String
    let kind: RecordValueKind
    let presence: RecordPresence
    let schema: RecordSchemaTerms
    /// The CSV column name; `nil` for a nested object (whose fields are columns).
    let csvColumn: String?
    /// The nested part, for ``RecordValueKind/object``.
    let child: (any RecordPart.Type)?
    /// An analysis result: withheld (set to `nil`) when one of its numbers is not finite.
    let isAnalysisResult: Bool
}

/// A key built from a field name.
struct RecordKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// One row of a part's table: the JSON key, the stored property, how a missing value is written
/// and why, the schema terms, the CSV column.
struct RecordField<Part: RecordPart>: Sendable {
    typealias Path<Value> = WritableKeyPath<Part, Value> & Sendable

    let info: RecordFieldInfo
    /// The stored property's byte offset in `Part` (`MemoryLayout.offset(of:)`), read by the
    /// writers; -1 for a computed field.
    let offset: Int
    /// The Swift property is an `Optional`.
    let isOptional: Bool
    let decode: @Sendable (inout Part, KeyedDecodingContainer<RecordKey>) throws -> Void
    let encode: @Sendable (Part, inout KeyedEncodingContainer<RecordKey>) throws -> Void
    /// Sets an optional field to `nil`.
    let clear: (@Sendable (inout Part) -> Void)?
    /// The value of a computed field.
    let computed: (@Sendable (Part) -> String)?

    /// A stored field: the parts common to every kind, with the kind's own coding closures.
    private init(
        _ name: String, offsetOf path: PartialKeyPath<Part>, kind: RecordValueKind, presence: RecordPresence,
        schema: RecordSchemaTerms, csv: RecordCSVColumn?, child: (any RecordPart.Type)?, analysis: Bool, isOptional: Bool,
        coding: (decode: @Sendable (inout Part, KeyedDecodingContainer<RecordKey>) throws -> Void,
                 encode: @Sendable (Part, inout KeyedEncodingContainer<RecordKey>) throws -> Void),
        clear: (@Sendable (inout Part) -> Void)?
    ) {
        info = RecordFieldInfo(
            name: name, kind: kind, presence: presence, schema: schema, csvColumn: kind == .object ? nil : Self.column(csv ?? .column, name),
            child: child, isAnalysisResult: analysis)
        guard let offset = MemoryLayout<Part>.offset(of: path) else { preconditionFailure("\(name): not a stored property") }
        self.offset = offset
        self.isOptional = isOptional
        decode = coding.decode
        encode = coding.encode
        self.clear = clear
        computed = nil
    }

    /// A non-optional field: always read and written.
    private init<Value: Codable & Sendable>(
        _ name: String, _ path: Path<Value>, kind: RecordValueKind, schema: RecordSchemaTerms, csv: RecordCSVColumn?,
        child: (any RecordPart.Type)? = nil
    ) {
        let key = RecordKey(stringValue: name)
        self.init(
            name, offsetOf: path, kind: kind, presence: .required, schema: schema, csv: csv, child: child, analysis: false,
            isOptional: false,
            coding: (
                { part, container in part[keyPath: path] = try container.decode(Value.self, forKey: key) },
                { part, container in try container.encode(part[keyPath: path], forKey: key) }
            ),
            clear: nil)
    }

    /// An optional field: read if present; written as `null` or left out, as `presence` says.
    private init<Value: Codable & Sendable>(
        _ name: String, _ path: Path<Value?>, kind: RecordValueKind, presence: RecordPresence,
        schema: RecordSchemaTerms, csv: RecordCSVColumn?, child: (any RecordPart.Type)? = nil, analysis: Bool = false
    ) {
        let key = RecordKey(stringValue: name)
        let written = presence.alwaysWritten
        self.init(
            name, offsetOf: path, kind: kind, presence: presence, schema: schema, csv: csv, child: child, analysis: analysis,
            isOptional: true,
            coding: (
                { part, container in part[keyPath: path] = try container.decodeIfPresent(Value.self, forKey: key) },
                { part, container in
                    if written {
                        try container.encode(part[keyPath: path], forKey: key)
                    } else {
                        try container.encodeIfPresent(part[keyPath: path], forKey: key)
                    }
                }
            ),
            clear: { part in part[keyPath: path] = nil })
    }

    /// A level: `nil` left out, −∞ written as `null` (and read back as −∞), other values as numbers.
    private init(_ name: String, level path: Path<Double?>, presence: RecordPresence, schema: RecordSchemaTerms, csv: RecordCSVColumn?) {
        let key = RecordKey(stringValue: name)
        self.init(
            name, offsetOf: path, kind: .number, presence: presence, schema: schema, csv: csv, child: nil, analysis: false,
            isOptional: true,
            coding: (
                { part, container in
                    guard container.contains(key) else { return part[keyPath: path] = nil }
                    part[keyPath: path] = try container.decodeNil(forKey: key) ? -.infinity : container.decode(Double.self, forKey: key)
                },
                { part, container in
                    guard let value = part[keyPath: path] else { return }
                    if value == -.infinity { try container.encodeNil(forKey: key) } else { try container.encode(value, forKey: key) }
                }
            ),
            clear: { part in part[keyPath: path] = nil })
    }

    private init(_ name: String, computed: @escaping @Sendable (Part) -> String, schema: RecordSchemaTerms) {
        info = RecordFieldInfo(
            name: name, kind: .computed, presence: .derived, schema: schema, csvColumn: name, child: nil, isAnalysisResult: false)
        offset = -1
        isOptional = false
        let key = RecordKey(stringValue: name)
        decode = { _, _ in }
        encode = { part, container in try container.encode(computed(part), forKey: key) }
        clear = nil
        self.computed = computed
    }

    private static func column(_ csv: RecordCSVColumn, _ name: String) -> String {
        switch csv {
        case .column: name
        case .named(let column): column
        }
    }
}

// The rows, one constructor per kind of value: a non-optional property is required; an optional
// one says why it may be missing (`null:` written as null, `absent:` key left out).
extension RecordField {
    /// Free text.
    static func text(_ name: String, _ path: Path<String>, constant: String? = nil, csv: RecordCSVColumn? = nil, _ description: String? = nil) -> Self {
        Self(name, path, kind: .text, schema: .init(constant: constant, description: description), csv: csv)
    }

    /// A manifest line's JSON object, left out when `nil`.
    static func json(_ name: String, _ path: Path<ManifestLine?>, absent reason: String, csv: RecordCSVColumn = .column, _ description: String? = nil) -> Self {
        Self(name, path, kind: .json, presence: .omitted(reason), schema: .init(description: description), csv: csv)
    }

    /// Free text, left out when `nil`.
    static func text(_ name: String, _ path: Path<String?>, absent reason: String, csv: RecordCSVColumn? = nil, _ description: String? = nil) -> Self {
        Self(name, path, kind: .text, presence: .omitted(reason), schema: .init(description: description), csv: csv)
    }

    /// One of `values`, left out when `nil`.
    static func identifier(
        _ name: String, _ path: Path<String?>, absent reason: String, values: [String], csv: RecordCSVColumn? = nil, _ description: String? = nil
    ) -> Self {
        Self(name, path, kind: .identifier, presence: .omitted(reason), schema: .init(values: values, description: description), csv: csv)
    }

    /// One of `values`.
    static func identifier(_ name: String, _ path: Path<String>, values: [String], csv: RecordCSVColumn? = nil, _ description: String? = nil) -> Self {
        Self(name, path, kind: .identifier, schema: .init(values: values, description: description), csv: csv)
    }

    /// The record's status.
    static func status(_ name: String, _ path: Path<FileScore.Status>, csv: RecordCSVColumn? = nil) -> Self {
        Self(name, path, kind: .status, schema: .init(values: FileScore.Status.allCases.map(\.rawValue)), csv: csv)
    }

    /// An integer.
    static func integer(_ name: String, _ path: Path<Int>, minimum: Int? = nil, csv: RecordCSVColumn? = nil, _ description: String? = nil) -> Self {
        Self(name, path, kind: .integer, schema: .init(minimum: minimum, description: description), csv: csv)
    }

    /// An integer, left out when `nil`.
    static func integer(
        _ name: String, _ path: Path<Int?>, absent reason: String, minimum: Int? = nil, csv: RecordCSVColumn? = nil, _ description: String? = nil
    ) -> Self {
        Self(name, path, kind: .integer, presence: .omitted(reason), schema: .init(minimum: minimum, description: description), csv: csv)
    }

    /// A number.
    static func number(
        _ name: String, _ path: Path<Double>, minimum: Int? = nil, maximum: Int? = nil, csv: RecordCSVColumn? = nil, _ description: String? = nil
    ) -> Self {
        Self(name, path, kind: .number, schema: .init(minimum: minimum, maximum: maximum, description: description), csv: csv)
    }

    /// A number written as `null` when `nil`.
    static func number(
        _ name: String, _ path: Path<Double?>, null reason: String, minimum: Int? = nil, maximum: Int? = nil, csv: RecordCSVColumn? = nil,
        _ description: String? = nil
    ) -> Self {
        Self(
            name, path, kind: .number, presence: .nullable(reason),
            schema: .init(minimum: minimum, maximum: maximum, description: description), csv: csv)
    }

    /// A level in dB: left out when `nil` (not measured, for `absent`), `null` for −∞ (for
    /// `null`: digital silence), a number otherwise.
    static func level(
        _ name: String, _ path: Path<Double?>, absent: String, null: String, csv: RecordCSVColumn? = nil, _ description: String? = nil
    ) -> Self {
        Self(name, level: path, presence: .omittedOrNull(absent: absent, null: null), schema: .init(description: description), csv: csv)
    }

    /// A single-precision number.
    static func float(_ name: String, _ path: Path<Float>, exclusiveMinimum: Int? = nil, csv: RecordCSVColumn? = nil, _ description: String? = nil) -> Self {
        Self(name, path, kind: .float, schema: .init(exclusiveMinimum: exclusiveMinimum, description: description), csv: csv)
    }

    /// A nested part that is always present.
    static func object<Child: RecordPart>(_ name: String, _ path: Path<Child>, _ description: String? = nil) -> Self {
        Self(name, path, kind: .object, schema: .init(description: description), csv: nil, child: Child.self)
    }

    /// A nested part, left out when `nil`; an `analysis` part is withheld when one of its
    /// numbers is not finite.
    static func object<Child: RecordPart>(
        _ name: String, _ path: Path<Child?>, absent reason: String, analysis: Bool = false, _ description: String? = nil
    ) -> Self {
        Self(
            name, path, kind: .object, presence: .omitted(reason), schema: .init(description: description), csv: nil, child: Child.self,
            analysis: analysis)
    }

    /// Text computed from the other fields: written, never read back.
    static func computed(_ name: String, pattern: String? = nil, _ description: String? = nil, _ value: @escaping @Sendable (Part) -> String) -> Self {
        Self(name, computed: value, schema: .init(pattern: pattern, description: description))
    }
}

/// A part's table, with what the writers need compiled from it once.
struct RecordDescription<Part: RecordPart>: Sendable {
    /// The rows, in schema and CSV order.
    let fields: [RecordField<Part>]
    /// The rows in JSON key order, reduced to what the JSON writer reads per record.
    let jsonPlan: JSONRecordWriter.Plan

    init(_ fields: [RecordField<Part>]) {
        self.fields = fields
        var keys: [UInt8] = []
        var steps: [JSONRecordWriter.Step] = []
        for index in fields.indices.sorted(by: { fields[$0].info.name.utf8.lexicographicallyPrecedes(fields[$1].info.name.utf8) }) {
            let field = fields[index]
            let start = keys.count
            keys += Array("\"\(field.info.name)\":".utf8)
            steps.append(
                JSONRecordWriter.Step(
                    kind: field.info.kind, offset: field.offset, isOptional: field.isOptional,
                    alwaysWritten: field.info.presence.alwaysWritten, minusInfinityIsNull: field.info.presence.minusInfinityIsNull, keyStart: start, keyEnd: keys.count, field: index,
                    child: field.info.child))
        }
        // Never freed: a description is a static table.
        let stepStorage = UnsafeMutableBufferPointer<JSONRecordWriter.Step>.allocate(capacity: steps.count)
        _ = stepStorage.initialize(from: steps)
        let keyStorage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: keys.count)
        _ = keyStorage.initialize(from: keys)
        jsonPlan = JSONRecordWriter.Plan(steps: UnsafeBufferPointer(stepStorage), keys: UnsafeBufferPointer(keyStorage))
    }

    /// The schema and CSV view of the rows.
    var infos: [RecordFieldInfo] { fields.map(\.info) }

    /// Reads a part: each field by its key, optional ones with `decodeIfPresent`.
    func decode(from decoder: any Decoder) throws -> Part {
        let container = try decoder.container(keyedBy: RecordKey.self)
        var part = Part()
        for field in fields { try field.decode(&part, container) }
        return part
    }

    /// Writes a part: optional fields as `null` or left out, as their presence says.
    func encode(_ part: Part, to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: RecordKey.self)
        for field in fields { try field.encode(part, &container) }
    }
}

// `Codable` from the table: every part reads and writes exactly the rows it lists.
extension RecordPart {
    /// Reads the fields the part's table lists (optional ones with `decodeIfPresent`; computed
    /// ones are not read).
    public init(from decoder: any Decoder) throws { self = try Self.record.decode(from: decoder) }

    /// Writes the fields the part's table lists (`null` or left out for a missing value, as the
    /// row says).
    public func encode(to encoder: any Encoder) throws { try Self.record.encode(self, to: encoder) }
}

/// A scalar field's value read from a part's storage, for the writers.
enum RecordScalar {
    /// `nil`.
    case missing
    case text(String)
    case integer(Int)
    case number(Double)
    case float(Float)
    /// A ``ManifestLine``'s text.
    case json(String)

    /// The field of `kind` (a scalar kind) stored at `at`, an `Optional` when `optional`.
    @inline(__always)
    init(_ kind: RecordValueKind, optional: Bool, at: UnsafeRawPointer) {
        switch kind {
        case .text, .identifier:
            self = optional ? at.load(as: String?.self).map(Self.text) ?? .missing : .text(at.load(as: String.self))
        case .status:
            self = .text(at.load(as: FileScore.Status.self).rawValue)
        case .integer:
            self = optional ? at.load(as: Int?.self).map(Self.integer) ?? .missing : .integer(at.load(as: Int.self))
        case .number:
            self = optional ? at.load(as: Double?.self).map(Self.number) ?? .missing : .number(at.load(as: Double.self))
        case .float:
            self = optional ? at.load(as: Float?.self).map(Self.float) ?? .missing : .float(at.load(as: Float.self))
        case .json:
            self = at.load(as: ManifestLine?.self).map { .json($0.text) } ?? .missing
        case .object, .computed:
            preconditionFailure("not a scalar field")
        }
    }
}
