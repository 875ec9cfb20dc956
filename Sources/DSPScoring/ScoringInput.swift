/// One thing to score: a file, or the part of a file a manifest line names, and what its record
/// carries from the input.
public struct ScoringInput: Equatable, Sendable {
    /// The part of the file a manifest line asks for, in the line's units.
    public struct Segment: Equatable, Sendable {
        /// Start, seconds from the file's beginning (NeMo `offset`, a Lhotse cut's `start`); ≥ 0.
        public var offset: Double
        /// Length, seconds; `nil` to the file's end.
        public var duration: Double?
        /// The file's channels to score (0-based, in order); `nil` for all of them.
        public var fileChannels: [Int]?

        /// Creates a segment.
        public init(offset: Double = 0, duration: Double? = nil, fileChannels: [Int]? = nil) {
            self.offset = offset
            self.duration = duration
            self.fileChannels = fileChannels
        }
    }

    /// The path the scorer opens (a manifest's relative path joined to the manifest's folder).
    public var path: String
    /// The record's `audio_filepath`: the path as the user or the manifest line wrote it.
    public var audioFilepath: String
    /// The part to score; `nil` for the whole file.
    public var segment: Segment?
    /// The sample rate the manifest line declares (Lhotse `sampling_rate`); a file at another
    /// rate is an error record (`manifest_mismatch`), since the line's times and the file disagree.
    public var declaredSampleRate: Int?
    /// The manifest line, carried into the record as the record's `manifest`.
    public var manifest: ManifestLine?
    /// Why the line cannot be scored although it is well formed (a Lhotse source that is not a
    /// file, say): the record is this error, nothing is opened.
    public var failure: FileScore.Failure?

    /// A file given by path: scored whole, recorded under that path.
    public init(path: String) {
        self.init(path: path, audioFilepath: path)
    }

    /// An input with every part spelled out.
    public init(
        path: String, audioFilepath: String, segment: Segment? = nil, declaredSampleRate: Int? = nil,
        manifest: ManifestLine? = nil, failure: FileScore.Failure? = nil
    ) {
        self.path = path
        self.audioFilepath = audioFilepath
        self.segment = segment
        self.declaredSampleRate = declaredSampleRate
        self.manifest = manifest
        self.failure = failure
    }

    /// The key of this input's record (``RecordIdentity``).
    public var identity: RecordIdentity { RecordIdentity(audioFilepath: audioFilepath, manifest: manifest) }
}

/// What makes two records the same record, for `--resume` and `dspscore merge`: the
/// `audio_filepath` byte for byte (``PathKey``) and, for a manifest line, the line's value
/// (``ManifestLine/canonicalText``).
///
/// A manifest may list one file several times — segments at different offsets, cuts of
/// different channels, the same span under two cut ids — and each line gets its own record, so
/// the path alone cannot key them. Two records are the same when their paths and their lines'
/// values are equal: the same line written twice is one record; an edited line is another input
/// (and its record, which carries the line, is scored again by `--resume`).
public struct RecordIdentity: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The path, compared byte for byte.
    public let path: PathKey
    /// The manifest line's canonical text; `nil` for a file not read from a manifest.
    public let manifestLine: String?

    /// The identity of a record (or input) with this path and manifest line.
    public init(audioFilepath: String, manifest: ManifestLine? = nil) {
        path = PathKey(audioFilepath)
        manifestLine = manifest?.canonicalText
    }

    /// The identity of a file not read from a manifest.
    public init(_ audioFilepath: String) { self.init(audioFilepath: audioFilepath) }

    public init(stringLiteral value: String) { self.init(audioFilepath: value) }

    /// The identity of `record`.
    public init(_ record: FileScore) { self.init(audioFilepath: record.audioFilepath, manifest: record.manifest) }

    public var description: String { manifestLine.map { "\(path) (manifest line \($0))" } ?? path.description }
}
