#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CSndFile

// How a failed `sf_open` becomes an ``AudioFileError/Kind``. Error paths only: these helpers
// allocate and make system calls freely.

extension AudioFileError {
    /// The kind an `errno` from `stat`/`open` stands for.
    static func kind(forErrno code: Int32) -> Kind {
        switch code {
        case ENOENT, ENOTDIR, ENAMETOOLONG, ELOOP: .notFound
        case EACCES, EPERM, EROFS: .permissionDenied
        case EISDIR: .isDirectory
        default: .ioFailure
        }
    }

    /// The system's text for `errno` (`strerror`).
    static func systemMessage(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }

    /// Checks `path` before `sf_open(…, SFM_READ, …)`: it must exist, not be a directory and not
    /// be empty. Catching these first gives precise kinds, and keeps libsndfile from opening a
    /// directory as a file. The path is an escaped byte string (``PathBytes``); one holding NUL
    /// names no file.
    static func checkReadablePath(_ path: String) throws(AudioFileError) {
        if path.utf8.contains(0) {
            throw AudioFileError(kind: .notFound, path: path, message: "the path holds a NUL byte, which no file name can")
        }
        var status = stat()
        guard PathBytes.stat(path, &status) == 0 else {
            let code = errno
            throw AudioFileError(kind: kind(forErrno: code), path: path, message: systemMessage(code))
        }
        let type = status.st_mode & S_IFMT
        if type == S_IFDIR {
            throw AudioFileError(kind: .isDirectory, path: path, message: "the path names a directory, not an audio file")
        }
        if type == S_IFREG && status.st_size == 0 {
            throw AudioFileError(kind: .empty, path: path, message: "the file has 0 bytes")
        }
    }

    /// Classifies a failed `sf_open(path, SFM_READ, …)` from libsndfile's error number
    /// (`sf_error(NULL)`) and message (`sf_strerror(NULL)`), probing the file itself where
    /// libsndfile's public codes are too coarse.
    static func classifyReadOpenFailure(path: String, code: Int32, message: String) -> AudioFileError {
        if code == Int32(SF_ERR_SYSTEM) {
            // Re-open to learn the errno: libsndfile's own errno may have been overwritten.
            let descriptor = PathBytes.open(path, O_RDONLY)
            if descriptor < 0 {
                let systemCode = errno
                return AudioFileError(kind: kind(forErrno: systemCode), path: path, message: message)
            }
            close(descriptor)
            return AudioFileError(kind: .ioFailure, path: path, message: message)
        }
        if code == Int32(SF_ERR_UNSUPPORTED_ENCODING) {
            return AudioFileError(kind: .unsupportedFormat, path: path, message: message)
        }
        let sniff = FileSniff(path: path)
        if sniff.headerIsCut {
            return AudioFileError(
                kind: .truncated, path: path,
                message: message + " (the file ends inside its header: it is \(sniff.fileSize) bytes)")
        }
        if code == Int32(SF_ERR_UNRECOGNISED_FORMAT) && !sniff.hasKnownSignature
            && !hasAudioExtension(path)
        {
            return AudioFileError(kind: .unsupportedFormat, path: path, message: message)
        }
        return AudioFileError(kind: .corrupt, path: path, message: message)
    }

    /// Classifies a failed `sf_open(path, SFM_WRITE, …)`. libsndfile reports every such failure
    /// as `SF_ERR_SYSTEM`; the kind comes from probing the path and its directory.
    static func classifyWriteOpenFailure(path: String, message: String) -> AudioFileError {
        var status = stat()
        if PathBytes.stat(path, &status) == 0 {
            if status.st_mode & S_IFMT == S_IFDIR {
                return AudioFileError(kind: .isDirectory, path: path, message: message)
            }
            if PathBytes.withCString(path, { access($0, W_OK) }) != 0 {
                return AudioFileError(kind: .permissionDenied, path: path, message: message)
            }
        }
        let directory = parentDirectory(of: path)
        guard PathBytes.stat(directory, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            return AudioFileError(kind: .notFound, path: path, message: message + " (no directory \(directory))")
        }
        if PathBytes.withCString(directory, { access($0, W_OK | X_OK) }) != 0 {
            return AudioFileError(kind: .permissionDenied, path: path, message: message)
        }
        return AudioFileError(kind: .ioFailure, path: path, message: message)
    }

    /// The directory part of `path` (`"."` when there is none).
    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = path[..<slash]
        return directory.isEmpty ? "/" : String(directory)
    }

    /// Whether the path's extension is one libsndfile lists for a major format
    /// (`SFC_GET_FORMAT_MAJOR`), or a common alias of one.
    static func hasAudioExtension(_ path: String) -> Bool {
        let name = path.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        let fileExtension = name[name.index(after: dot)...].lowercased()
        if ["wav", "wave", "bwf", "aif", "aiff", "aifc", "ogg", "oga", "opus", "flac", "w64", "rf64", "caf", "au", "snd"]
            .contains(fileExtension)
        {
            return true
        }
        var count: Int32 = 0
        sf_command(nil, Int32(SFC_GET_FORMAT_MAJOR_COUNT), &count, Int32(MemoryLayout<Int32>.size))
        for index in 0..<count {
            var info = SF_FORMAT_INFO()
            info.format = index
            sf_command(nil, Int32(SFC_GET_FORMAT_MAJOR), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size))
            if let known = info.extension, String(cString: known).lowercased() == fileExtension {
                return true
            }
        }
        return false
    }
}

/// The first bytes of a file that libsndfile refused, to tell a cut or damaged audio file from
/// something that is not audio at all.
struct FileSniff {
    /// The file's size in bytes (0 when it cannot be read).
    var fileSize = 0
    /// Whether the file starts with a signature of a container libsndfile reads.
    var hasKnownSignature = false
    /// Whether a RIFF/RIFX/FORM header declares more bytes than the file holds, or the file ends
    /// before the 12-byte RIFF/FORM preamble does.
    var headerIsCut = false

    private static let signatures: [[UInt8]] = [
        Array("RIFF".utf8), Array("RIFX".utf8), Array("RF64".utf8), Array("BW64".utf8), Array("FORM".utf8),
        Array("riff".utf8), Array("fLaC".utf8), Array("OggS".utf8), Array("caff".utf8), Array(".snd".utf8),
    ]

    init(path: String) {
        let descriptor = PathBytes.open(path, O_RDONLY)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return }
        fileSize = Int(status.st_size)
        var bytes = [UInt8](repeating: 0, count: 12)
        let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 12) }
        guard got > 0 else { return }
        let head = Array(bytes[..<got])
        for signature in Self.signatures where head.starts(with: signature.prefix(head.count)) {
            hasKnownSignature = true
            if head.count < 12 && ["RIFF", "RIFX", "FORM"].contains(where: { signature == Array($0.utf8) }) {
                headerIsCut = true
            }
        }
        guard got >= 8 else { return }
        let sizeBytes = head[4..<8].map(UInt32.init)
        let declared: UInt32
        if head.starts(with: Array("RIFF".utf8)) {
            declared = sizeBytes[0] | sizeBytes[1] << 8 | sizeBytes[2] << 16 | sizeBytes[3] << 24
        } else if head.starts(with: Array("RIFX".utf8)) || head.starts(with: Array("FORM".utf8)) {
            declared = sizeBytes[3] | sizeBytes[2] << 8 | sizeBytes[1] << 16 | sizeBytes[0] << 24
        } else {
            return
        }
        if !StreamingPlaceholder.contains(UInt64(declared)) && UInt64(declared) + 8 > UInt64(fileSize) + 1 {
            headerIsCut = true
        }
    }
}

/// Chunk sizes that streaming writers leave in a header they could not rewind to fix: FFmpeg
/// writes `0xFFFFFFFF`, SoX `0x7FFFF000`, others `0x7FFFFFFF`. A file declaring one of these is
/// not taken to be truncated.
enum StreamingPlaceholder {
    static func contains(_ value: UInt64) -> Bool {
        value == 0xFFFF_FFFF || value == 0x7FFF_FFFF || value == 0x7FFF_F000
    }
}
