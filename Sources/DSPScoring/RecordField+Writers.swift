// What each part does as a field of its parent, from its table: write itself as JSON, give its
// CSV cells, find a non-finite number. Called through `any RecordPart.Type`.

extension RecordPart {
    static func isNil(at raw: UnsafeRawPointer) -> Bool {
        raw.load(as: Self?.self) == nil
    }

    /// A non-nil `Self?` holds its `Self` at offset 0 (Swift's single-payload enum layout), so
    /// the part is written where it is stored, optional or not.
    static func writeJSON(at raw: UnsafeRawPointer, into writer: inout JSONRecordWriter) {
        writer.writeObject(Self.self, at: raw)
    }

    /// The CSV columns of this part and the parts in it, in table order.
    static var csvColumns: [String] {
        record.fields.flatMap { field in
            if let child = field.info.child { return columns(child) }
            return field.info.csvColumn.map { [$0] } ?? []
        }
    }

    private static func columns<Child: RecordPart>(_: Child.Type) -> [String] { Child.csvColumns }

    static func appendCSVCells(at raw: UnsafeRawPointer?, optional: Bool, to cells: inout [String]) {
        guard let raw, !(optional && isNil(at: raw)) else {
            cells += Array(repeating: "", count: csvColumns.count)
            return
        }
        guard let part = optional ? raw.load(as: Self?.self) : raw.load(as: Self.self) else { return }
        withUnsafeBytes(of: part) { storage in
            guard let base = storage.baseAddress else { return }
            for field in record.fields {
                if let child = field.info.child {
                    child.appendCSVCells(at: base + field.offset, optional: field.isOptional, to: &cells)
                    continue
                }
                guard field.info.csvColumn != nil else { continue }
                if let computed = field.computed {
                    cells.append(csvQuoted(computed(part)))
                    continue
                }
                switch RecordScalar(field.info.kind, optional: field.isOptional, at: base + field.offset) {
                case .missing: cells.append("")
                case .text(let text): cells.append(field.info.kind == .text ? csvQuoted(text) : text)
                case .integer(let value): cells.append(String(value))
                case .number(let value) where value == -.infinity && field.info.presence.minusInfinityIsNull: cells.append("")
                case .number(let value): cells.append(value.description)
                case .float(let value): cells.append(value.description)
                case .json(let text): cells.append(csvQuoted(text))
                }
            }
        }
    }

    /// RFC 4180: quoted when holding a comma, quote or line break, quotes doubled.
    private static func csvQuoted(_ text: String) -> String {
        let needsQuotes = text.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }
        return needsQuotes ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }

    static func firstOutOfRangeKey(at raw: UnsafeRawPointer, optional: Bool) -> String? {
        guard let part = optional ? raw.load(as: Self?.self) : raw.load(as: Self.self) else { return nil }
        return withUnsafeBytes(of: part) { storage in
            guard let base = storage.baseAddress else { return nil }
            for step in record.jsonPlan.steps where step.kind == .number || step.kind == .integer {
                let terms = record.fields[step.field].info.schema
                guard terms.minimum != nil || terms.maximum != nil else { continue }
                let value: Double
                switch RecordScalar(step.kind, optional: step.isOptional, at: base + step.offset) {
                case .number(let number) where number.isFinite: value = number
                case .integer(let integer): value = Double(integer)
                default: continue
                }
                if let minimum = terms.minimum, value < Double(minimum) { return record.fields[step.field].info.name }
                if let maximum = terms.maximum, value > Double(maximum) { return record.fields[step.field].info.name }
            }
            return nil
        }
    }

    static func firstNonFiniteKey(at raw: UnsafeRawPointer, optional: Bool) -> String? {
        guard !(optional && isNil(at: raw)) else { return nil }
        guard let part = optional ? raw.load(as: Self?.self) : raw.load(as: Self.self) else { return nil }
        return withUnsafeBytes(of: part) { storage in
            guard let base = storage.baseAddress else { return nil }
            for step in record.jsonPlan.steps where step.kind == .number || step.kind == .float {
                switch RecordScalar(step.kind, optional: step.isOptional, at: base + step.offset) {
                case .number(let value) where value == -.infinity && step.minusInfinityIsNull: continue
                case .number(let value) where !value.isFinite: return record.fields[step.field].info.name
                case .float(let value) where !value.isFinite: return record.fields[step.field].info.name
                default: continue
                }
            }
            return nil
        }
    }
}
