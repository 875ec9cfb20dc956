// A plain text table for terminals: columns padded to their widest cell.

struct TextTable {
    enum Alignment { case left, right }

    var headers: [String]
    var alignments: [Alignment]
    /// nil rows print as blank separator lines.
    var rows: [[String]?] = []

    init(_ columns: [(String, Alignment)]) {
        headers = columns.map(\.0)
        alignments = columns.map(\.1)
    }

    mutating func add(_ row: [String]) { rows.append(row) }
    mutating func addSeparator() { rows.append(nil) }

    func render() -> String {
        var widths = headers.map(\.count)
        for row in rows.compactMap({ $0 }) {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                let padding = String(repeating: " ", count: max(0, widths[i] - cell.count))
                return alignments[i] == .left ? cell + padding : padding + cell
            }.joined(separator: "  ").replacing(/\s+$/, with: "")
        }
        var lines = [line(headers), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
        for row in rows { lines.append(row.map(line) ?? "") }
        return lines.joined(separator: "\n")
    }
}
