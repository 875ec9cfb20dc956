// The part of a file a record scored, when a manifest line named one (NeMo `offset`/`duration`,
// a Lhotse cut's `start`/`duration`/`channel`).

extension FileScore {
    /// Which frames and channels of the file the record scored: present when the input named a
    /// segment or a channel (a manifest line with `offset` or `duration`, a Lhotse cut), absent
    /// when the whole file was scored.
    ///
    /// Frames are at the file's rate: `start_frame = round(offset × rate)` and
    /// `end_frame = start_frame + round(duration × rate)` (half away from zero, as Lhotse's
    /// `compute_num_samples`), the end cut to the file's end when the segment runs past it by at
    /// most ``FileScorer/segmentEndTolerance`` — `missing_frames` says by how many frames — and an
    /// error record `segment_out_of_range` beyond that. The record's `frames` and `duration` are
    /// the segment's; its `channels` are the channels scored.
    public struct Segment: Codable, Equatable, Sendable {
        /// First frame scored (0-based, at the file's rate).
        public var startFrame: Int = 0
        /// One past the last frame scored; in an error record, the end the manifest asked for.
        public var endFrame: Int = 0
        /// Frames the manifest asked for past the file's end, within the tolerance (0 when the
        /// segment lies inside the file).
        public var missingFrames: Int = 0
        /// ``startFrame`` ÷ the file's rate, seconds.
        public var offset: Double = 0
        /// The file's channels scored (0-based, comma-separated, e.g. `"1"`), when not all of
        /// them; `nil` when every channel was scored.
        public var fileChannels: String?

        /// A segment at frame 0 of no frames, which the decoder fills in.
        public init() {}

        /// Creates a segment.
        public init(startFrame: Int, endFrame: Int, missingFrames: Int = 0, offset: Double, fileChannels: String? = nil) {
            self.startFrame = startFrame
            self.endFrame = endFrame
            self.missingFrames = missingFrames
            self.offset = offset
            self.fileChannels = fileChannels
        }

        static let record = RecordDescription<Self>([
            .integer("start_frame", \.startFrame, minimum: 0, "First frame scored (0-based): round(offset * sample_rate)."),
            .integer("end_frame", \.endFrame, minimum: 0,
                     "One past the last frame scored (start_frame + frames); in an error record, the end the manifest asked for."),
            .integer("missing_frames", \.missingFrames, minimum: 0,
                     "Frames asked for past the file's end, within the 25 ms tolerance (0 inside the file); beyond it the record is a segment_out_of_range error."),
            .number("offset", \.offset, minimum: 0, "start_frame / sample_rate, seconds."),
            .text("file_channels", \.fileChannels, absent: "when every channel of the file was scored",
                  "The file's channels scored, 0-based and comma-separated (a Lhotse cut's channel mapped through its recording's source)."),
        ])
    }
}

extension FileScore.Segment: RecordPart {}
