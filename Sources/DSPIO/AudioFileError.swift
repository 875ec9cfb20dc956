/// A failure opening, reading or writing an audio file.
///
/// Every error names the file, says what went wrong as a ``Kind`` you can switch on, and keeps
/// the detail text — libsndfile's own message (`sf_strerror`) where libsndfile reported the
/// failure, or a sentence from DSPIO quoting the offending value.
///
/// ```swift
/// do {
///     let reader = try AudioFileReader(path: path)
///     ...
/// } catch {   // error is AudioFileError (typed throws)
///     switch error.kind {
///     case .notFound, .permissionDenied: ...
///     case .truncated, .corrupt: ...
///     default: ...
///     }
/// }
/// ```
public struct AudioFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, coarsely enough to act on.
    public enum Kind: Hashable, Sendable, CustomStringConvertible {
        /// No file at the path (or, when writing, no directory to create it in).
        case notFound
        /// The file or its directory exists but may not be opened in this mode.
        case permissionDenied
        /// The path names a directory.
        case isDirectory
        /// The file has zero bytes.
        case empty
        /// The file ends before the audio its header declares (a cut-off download or an
        /// interrupted recording). See ``AudioFileReader`` for how each container is checked.
        case truncated
        /// The file claims a format libsndfile reads (by its leading bytes or its extension)
        /// but cannot be parsed or decoded, or its header holds values outside what DSPIO
        /// accepts (channel count, sample rate, frame count).
        case corrupt
        /// Neither the contents nor the extension identify a format libsndfile reads, or the
        /// requested container/encoding combination cannot be written.
        case unsupportedFormat
        /// A caller-supplied value was refused: a buffer smaller than one frame, a sample count
        /// that is not a whole number of frames, a seek target outside the file, a sample rate or
        /// channel count out of range.
        case invalidParameters
        /// The operating system or libsndfile failed to read or write (disk full, I/O error,
        /// an encoder that refused the data).
        case ioFailure
        /// The handle was used after `close()`.
        case closed

        /// A short lowercase name, e.g. `"truncated"`.
        public var description: String {
            switch self {
            case .notFound: "not found"
            case .permissionDenied: "permission denied"
            case .isDirectory: "is a directory"
            case .empty: "empty"
            case .truncated: "truncated"
            case .corrupt: "corrupt"
            case .unsupportedFormat: "unsupported format"
            case .invalidParameters: "invalid parameters"
            case .ioFailure: "I/O failure"
            case .closed: "closed"
            }
        }
    }

    /// What went wrong.
    public var kind: Kind
    /// The file's path, as given to the reader or writer.
    public var path: String
    /// Detail: libsndfile's message (`sf_strerror`) or DSPIO's own sentence.
    public var message: String

    /// Creates an error of `kind` for the file at `path`.
    public init(kind: Kind, path: String, message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }

    /// `"<path>: <kind>: <message>"`.
    public var description: String {
        "\(path): \(kind): \(message)"
    }
}
