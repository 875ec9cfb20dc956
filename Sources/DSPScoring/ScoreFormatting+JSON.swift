// The JSON Lines record, written directly from the record's tables (RecordField.swift): the
// bytes `JSONEncoder` writes with `[.sortedKeys, .withoutEscapingSlashes]` for a `FileScore`,
// without its per-record set-up (an encoder, a boxed value tree, a key sort per object).

extension ScoreFormatting {
    /// A record as one JSON object: the same bytes as `JSONEncoder` with
    /// `[.sortedKeys, .withoutEscapingSlashes]` (keys in byte order, `nil` optionals of the
    /// record and of ``FileScore/Provenance`` omitted, the nested objects' `nil` fields written
    /// as `null`, numbers as Swift's shortest round-trip `description` without a trailing
    /// `.0`, strings escaped as `JSONEncoder` escapes them). A record holding NaN or ±∞ in an
    /// analysis number is written as its error record instead
    /// (``FileScore/withholdingNonFiniteResults()``: kind `non_finite_result`, naming the
    /// field; `FileScorer` never hands one over otherwise). Only a hand-built record with a
    /// non-finite `duration` or provenance clip threshold still gives `{}`, as the encoder
    /// (whose default strategy throws on a non-finite number) would.
    static func encodeJSON(_ score: FileScore) -> String {
        var json = JSONRecordWriter()
        json.write(score)
        if !json.failed { return String(decoding: json.bytes, as: UTF8.self) }
        let withheld = score.withholdingNonFiniteResults()
        guard withheld != score else { return "{}" }
        json = JSONRecordWriter()
        json.write(withheld)
        return json.failed ? "{}" : String(decoding: json.bytes, as: UTF8.self)
    }
}

/// Appends the JSON text of a record to a byte array, keys in sorted order, following each
/// part's table (``RecordDescription/jsonPlan``).
///
/// Fields are read at their stored offsets (`MemoryLayout.offset(of:)` of the row's key path):
/// a key-path read costs ~55 ns and a closure call ~11 ns per field on this machine, against
/// ~2.6 ns for the direct access the hand-written writer made, and a record has ~45 fields.
struct JSONRecordWriter {
    /// A part's steps and keys, allocated once for the program's life (the tables are static):
    /// reading them per record costs no reference counting.
    struct Plan: @unchecked Sendable {
        let steps: UnsafeBufferPointer<Step>
        /// Every key as `"name":`, back to back; the steps index into it.
        let keys: UnsafeBufferPointer<UInt8>
    }

    /// One field as the writer reads it: trivial values only, so walking the steps retains nothing.
    struct Step: Sendable {
        let kind: RecordValueKind
        let offset: Int
        let isOptional: Bool
        let alwaysWritten: Bool
        /// −∞ is written as `null` (a ``RecordPresence/omittedOrNull(absent:null:)`` level).
        let minusInfinityIsNull: Bool
        /// `"name":` is `keys[keyStart..<keyEnd]`.
        let keyStart: Int
        let keyEnd: Int
        /// The row in ``RecordDescription/fields`` (for a computed value).
        let field: Int
        let child: (any RecordPart.Type)?
    }

    var bytes: [UInt8] = []
    /// A number field held NaN or ±∞ (JSON has no such numbers).
    var failed = false
    /// Whether the current object has a member yet (a comma goes before the next).
    private var needsComma = false

    init() { bytes.reserveCapacity(1024) }

    mutating func write(_ score: FileScore) {
        writeObject(score)
    }

    /// A part as a JSON object.
    mutating func writeObject<Part: RecordPart>(_ part: Part) {
        withUnsafeBytes(of: part) { raw in
            if let base = raw.baseAddress { writeObject(Part.self, at: base) }
        }
    }

    /// The part at `raw` as a JSON object.
    mutating func writeObject<Part: RecordPart>(_: Part.Type, at raw: UnsafeRawPointer) {
        let plan = Part.record.jsonPlan
        let keys = plan.keys
        open()
        for step in plan.steps {
            let at = raw + step.offset
            switch step.kind {
            case .object:
                guard let child = step.child else { continue }
                let missing = step.isOptional && child.isNil(at: at)
                if missing && !step.alwaysWritten { continue }
                key(keys, step)
                if missing { null() } else { child.writeJSON(at: at, into: &self) }
            case .computed:
                guard let computed = Part.record.fields[step.field].computed else { continue }
                key(keys, step)
                string(computed(raw.assumingMemoryBound(to: Part.self).pointee))
            case .text, .identifier, .status, .integer, .number, .float, .json:
                let value = RecordScalar(step.kind, optional: step.isOptional, at: at)
                if case .missing = value, !step.alwaysWritten { continue }
                key(keys, step)
                switch value {
                case .number(let value) where step.minusInfinityIsNull && value == -.infinity: null()
                case .missing: null()
                case .text(let text): string(text)
                case .integer(let value): integer(value)
                case .number(let value): number(value)
                case .float(let value): float(value)
                case .json(let text): rawJSON(text)
                }
            }
        }
        close()
    }

    /// `"name":`, after a comma unless first in its object.
    @inline(__always)
    private mutating func key(_ keys: UnsafeBufferPointer<UInt8>, _ step: Step) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: keys[step.keyStart..<step.keyEnd]))
        needsComma = true
    }

    /// JSON text written as it is (a ``ManifestLine``, valid JSON by construction).
    private mutating func rawJSON(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    private mutating func null() {
        bytes.append(UInt8(ascii: "n"))
        bytes.append(UInt8(ascii: "u"))
        bytes.append(UInt8(ascii: "l"))
        bytes.append(UInt8(ascii: "l"))
    }

    private mutating func open() {
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    private mutating func close() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    private mutating func integer(_ value: Int) {
        var text = String(value)
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Swift's `description` (shortest digits that round-trip) with a trailing `.0` removed,
    /// as `JSONEncoder` does; non-finite values fail the record.
    private mutating func number(_ value: Double) {
        guard value.isFinite else {
            failed = true
            return
        }
        appendTrimmed(value.description)
    }

    private mutating func float(_ value: Float) {
        guard value.isFinite else {
            failed = true
            return
        }
        appendTrimmed(value.description)
    }

    private mutating func appendTrimmed(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            let whole = utf8.count >= 2 && utf8[utf8.count - 1] == UInt8(ascii: "0") && utf8[utf8.count - 2] == UInt8(ascii: ".")
            bytes.append(contentsOf: whole ? UnsafeBufferPointer(rebasing: utf8.dropLast(2)) : utf8)
        }
    }

    /// A JSON string: `"` and `\` escaped, `\b \f \n \r \t` for those controls, `\u00xx`
    /// (lowercase hex) for the other controls below U+0020; `/`, DEL and non-ASCII as they are.
    private mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var start = 0
            for (i, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i]))
                start = i + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 15)]])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
