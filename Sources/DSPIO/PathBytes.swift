#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// File names as bytes, carried losslessly in a `String`.
///
/// A POSIX file name is any sequence of bytes other than NUL; it need not be UTF-8 (latin-1
/// names are common in old corpora), and a Swift `String` — like a JSON string — must be valid
/// Unicode. DSPIO therefore holds a path as a `String` in which every byte that is not part of
/// valid UTF-8 stands for itself as one scalar of the escape block **U+10FF80 … U+10FFFF**:
/// byte `b` (0x80 … 0xFF) ↔ U+10FF00 + `b`. It is the scheme of Python's `surrogateescape`
/// (PEP 383, byte `b` ↔ U+DC00 + `b`), moved from the surrogates, which no Swift or JSON string
/// may hold alone, to the last private-use scalars of plane 16.
///
/// - A name that is valid UTF-8 and holds no scalar of the escape block is its own `String`,
///   unchanged.
/// - A byte that does not belong to valid UTF-8 (a lone continuation byte, a latin-1 `é` =
///   0xE9, 0xFF, an overlong form, an encoded surrogate …) becomes its escape scalar, one per
///   byte.
/// - A name that really holds a scalar of the escape block has that scalar's four UTF-8 bytes
///   escaped too, so every byte string has exactly one escaped form and ``bytes(of:)`` gives
///   the original bytes back for all of them (`bytes(of: string(decoding: b)) == b`).
///
/// Everything that opens a file takes the escaped form (``AudioFileReader``,
/// ``AudioFileWriter``, ``open(_:_:_:)``) and converts it back to bytes at the system call.
/// In Python, `"".join(chr(0xDC00 + ord(c) - 0x10FF00) if ord(c) >= 0x10FF80 else c for c in
/// s).encode("utf-8", "surrogateescape")` turns an escaped path into the file's bytes.
///
/// A path holding NUL names no file (a C path ends at its first NUL): opening one fails with
/// ``AudioFileError/Kind/notFound``.
public enum PathBytes {
    /// The escape scalar of byte 0x00 (only 0x80 … 0xFF are ever escaped).
    static let escapeBase: UInt32 = 0x10_FF00
    /// The escape block, U+10FF80 … U+10FFFF.
    static let escapeBlock: ClosedRange<UInt32> = 0x10_FF80...0x10_FFFF

    /// The escaped `String` of a file name's bytes (lossless: ``bytes(of:)`` inverts it).
    public static func string(decoding bytes: some Collection<UInt8>) -> String {
        decode(bytes, keepingEscapes: false)
    }

    /// Text that carries escaped paths — a JSON manifest written from records, say — read from
    /// bytes: scalars of the escape block already stand for bytes and are kept as they are; only
    /// bytes that are not valid UTF-8 are escaped (a latin-1 manifest names its files too).
    public static func text(decoding bytes: some Collection<UInt8>) -> String {
        decode(bytes, keepingEscapes: true)
    }

    private static func decode(_ bytes: some Collection<UInt8>, keepingEscapes: Bool) -> String {
        if let valid = String(validating: bytes, as: UTF8.self), keepingEscapes || !holdsEscapeBlock(valid.utf8) {
            return valid
        }
        let source = Array(bytes)
        var scalars = String.UnicodeScalarView()
        var start = 0
        while start < source.count {
            var parser = Unicode.UTF8.ForwardParser()
            var input = source[start...].makeIterator()
            switch parser.parseScalar(from: &input) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if !keepingEscapes && escapeBlock.contains(scalar.value) {
                    for byte in encoded { scalars.append(escape(byte)) }
                } else {
                    scalars.append(scalar)
                }
                start += encoded.count
            case .error(let length):
                for byte in source[start..<start + length] { scalars.append(escape(byte)) }
                start += length
            case .emptyInput:
                start = source.count
            }
        }
        return String(scalars)
    }

    /// The bytes of the file name an escaped `String` stands for.
    public static func bytes(of path: String) -> [UInt8] {
        guard holdsEscapeBlock(path.utf8) else { return Array(path.utf8) }
        var result: [UInt8] = []
        result.reserveCapacity(path.utf8.count)
        for scalar in path.unicodeScalars {
            if escapeBlock.contains(scalar.value) {
                result.append(UInt8(truncatingIfNeeded: scalar.value - escapeBase))
            } else {
                result += String(scalar).utf8
            }
        }
        return result
    }

    /// Whether `path` holds escaped bytes (so is not the file's name as UTF-8).
    public static func isEscaped(_ path: String) -> Bool {
        holdsEscapeBlock(path.utf8) && path.unicodeScalars.contains { escapeBlock.contains($0.value) }
    }

    /// Calls `body` with the path's bytes as a NUL-terminated C string.
    public static func withCString<Result>(
        _ path: String, _ body: (UnsafePointer<CChar>) throws -> Result
    ) rethrows -> Result {
        guard holdsEscapeBlock(path.utf8) else { return try path.withCString(body) }
        var raw = bytes(of: path).map { CChar(bitPattern: $0) }
        raw.append(0)
        return try raw.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// `open(2)` on the file an escaped path names; −1 and `errno` on failure (`ENOENT` for a
    /// path holding NUL).
    public static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        guard !path.utf8.contains(0) else {
            errno = ENOENT
            return -1
        }
        return withCString(path) { systemOpen($0, flags, mode) }
    }

    /// `stat(2)` on the file an escaped path names; −1 and `errno` on failure (`ENOENT` for a
    /// path holding NUL).
    public static func stat(_ path: String, _ status: inout stat) -> Int32 {
        guard !path.utf8.contains(0) else {
            errno = ENOENT
            return -1
        }
        return withCString(path) { systemStat($0, &status) }
    }

    /// The process's command-line arguments as escaped paths, from the raw `argv` bytes.
    /// (`CommandLine.arguments` replaces invalid UTF-8 with U+FFFD, losing the name.)
    public static func commandLineArguments() -> [String] {
        (0..<Int(CommandLine.argc)).map { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return "" }
            return string(decoding: UnsafeRawBufferPointer(start: argument, count: strlen(argument)))
        }
    }

    private static func escape(_ byte: UInt8) -> Unicode.Scalar {
        Unicode.Scalar(escapeBase + UInt32(byte))!
    }

    /// Every scalar at or above U+100000 starts with the byte 0xF4 in UTF-8: a name without one
    /// holds no escape (the common case, decided by one scan).
    private static func holdsEscapeBlock(_ utf8: some Sequence<UInt8>) -> Bool {
        utf8.contains(0xF4)
    }
}

// The C calls, out of reach of `PathBytes`'s own `open` and `stat`.
private func systemStat(_ name: UnsafePointer<CChar>, _ status: inout stat) -> Int32 { stat(name, &status) }
private func systemOpen(_ name: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 { open(name, flags, mode) }
