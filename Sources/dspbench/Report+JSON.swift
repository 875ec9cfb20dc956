// Reports as JSON: one document per run (`dspbench run --json`), read back by `dspbench compare`.
import Foundation

enum JSONOutput {
    /// Pretty-printed JSON of `value`, keys sorted (stable diffs between runs).
    static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, from path: String) throws -> T {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try JSONDecoder().decode(type, from: data)
    }
}

extension RunReport {
    func renderJSON() throws -> String { try JSONOutput.encode(self) }
}
