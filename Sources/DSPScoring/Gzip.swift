import CZlib

/// gzip decompression over zlib's `inflate`, for gzipped manifests (`.jsonl.gz`, as Lhotse
/// writes them with Python's `gzip`).
///
/// zlib rather than a Swift package: every Linux and macOS has it, and the packages that wrap
/// it (compress-nio) bring SwiftNIO into every program that uses DSPScoring.
public enum Gzip {
    /// Why decompression failed.
    public struct DecodingError: Error, Equatable, CustomStringConvertible {
        /// zlib's message, or what was wrong.
        public var message: String
        public var description: String { "gzip: \(message)" }
    }

    /// Whether `bytes` start with the gzip magic number (1f 8b).
    public static func isCompressed(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    }

    /// The decompressed bytes of a gzip stream (`inflateInit2` with window bits 15 + 16),
    /// every member of a multi-member file (`cat a.gz b.gz`, Python's `gzip` in append mode)
    /// in turn.
    ///
    /// - Throws: ``DecodingError`` for a corrupt or truncated stream, naming zlib's reason.
    public static func decompress(_ bytes: [UInt8]) throws(DecodingError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 4)
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw DecodingError(message: "inflateInit2 failed")
        }
        defer { inflateEnd(&stream) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var consumed = 0
        if bytes.isEmpty { throw DecodingError(message: "no data") }
        while true {
            let status: Int32 = bytes.withUnsafeBufferPointer { input in
                chunk.withUnsafeMutableBufferPointer { out in
                    // Not empty (checked above), so the base address is set.
                    stream.next_in = input.baseAddress.map { UnsafeMutablePointer(mutating: $0 + consumed) }
                    stream.avail_in = UInt32(input.count - consumed)
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    consumed = input.count - Int(stream.avail_in)
                    return status
                }
            }
            output += chunk[..<(chunk.count - Int(stream.avail_out))]
            switch status {
            case Z_OK:
                continue
            case Z_STREAM_END:
                // Another member may follow (trailing zero padding ends the data).
                if bytes[consumed...].allSatisfy({ $0 == 0 }) { return output }
                guard inflateReset(&stream) == Z_OK else { throw DecodingError(message: "inflateReset failed") }
            case Z_BUF_ERROR:
                // No progress possible: the input ended inside a member.
                throw DecodingError(message: "the stream is truncated")
            default:
                let reason = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                throw DecodingError(message: reason)
            }
        }
    }
}
