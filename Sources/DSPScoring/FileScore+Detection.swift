import DSPDetection

extension FileScore {
    /// Voice activity, music and multiple speakers over the whole file
    /// (``/DSPDetection/AcousticDetector`` on the file mixed to mono and resampled to 16 kHz).
    public struct Detection: Codable, Equatable, Sendable {
        /// Fraction of the file's duration inside speech segments, 0…1.
        public var speechRatio: Double = 0
        /// Fraction inside music segments, 0…1 (`null` when music detection was off).
        public var musicRatio: Double?
        /// Fraction inside multi-speaker segments, 0…1 (`null` when that detection was off).
        public var multiSpeakerRatio: Double?
        /// Total speech, seconds.
        public var speechSeconds: Double = 0
        /// Number of speech segments.
        public var speechSegments: Int = 0
        /// Median of the stream's background-noise readings (``/DSPDetection/DetectionSummary/medianNoiseFloorDBFS``:
        /// the noise under speech, music and talkers, every 0.5 s), dBFS, to 0.5 dB: the same with
        /// the environment on or off, and then `environment.noise_dbfs` to 0.5 dB. `null` when the median reading
        /// found a digitally silent background.
        public var noiseFloorDBFS: Double?

        static let record = RecordDescription<Self>([
            .number("speech_ratio", \.speechRatio, minimum: 0, maximum: 1, csv: .column, "Fraction of the duration inside speech segments."),
            .number("music_ratio", \.musicRatio, null: "when music detection was off", minimum: 0, maximum: 1, csv: .column,
                    "Fraction inside music segments; null when music detection was off."),
            .number("multi_speaker_ratio", \.multiSpeakerRatio, null: "when that detection was off", minimum: 0, maximum: 1, csv: .column,
                    "Fraction inside segments where two or more people talk at once; null when that detection was off."),
            .number("speech_seconds", \.speechSeconds, minimum: 0, csv: .column, "Total speech, seconds."),
            .integer("speech_segments", \.speechSegments, minimum: 0, csv: .column, "Number of speech segments."),
            .number("noise_floor_dbfs", \.noiseFloorDBFS, null: "when the median reading found a digitally silent background", csv: .column,
                    "Median of the background-noise readings (the noise under speech, music and talkers, read every 0.5 s), dBFS, to 0.5 dB; the same with the environment on or off, and then its noise_dbfs to 0.5 dB."),
        ])
    }
}

extension FileScore.Detection: RecordPart {}

extension FileScore.Detection {
    /// The record's fields from a detector summary; ratios of detections that were off are
    /// `nil`. Values are rounded to 1e-6 so records do not carry floating-point noise.
    public init(_ summary: DetectionSummary, music: Bool, multipleSpeakers: Bool) {
        func rounded(_ x: Double) -> Double { (x * 1e6).rounded() / 1e6 }
        speechRatio = rounded(summary.speechRatio)
        musicRatio = music ? rounded(summary.musicRatio) : nil
        multiSpeakerRatio = multipleSpeakers ? rounded(summary.multiSpeakerRatio) : nil
        speechSeconds = rounded(summary.speechSeconds)
        speechSegments = summary.speechSegmentCount
        noiseFloorDBFS = summary.medianNoiseFloorDBFS.isFinite ? rounded(Double(summary.medianNoiseFloorDBFS)) : nil
    }
}

/// A file's speech, music and multi-speaker segments, in seconds, in time order.
public struct DetectionSegments: Equatable, Sendable {
    /// One span of activity.
    public struct Segment: Equatable, Sendable {
        /// Start, seconds.
        public var start: Double
        /// End, seconds (> start).
        public var end: Double

        /// Creates a segment.
        public init(start: Double, end: Double) {
            self.start = start
            self.end = end
        }
    }

    /// Speech segments.
    public var speech: [Segment] = []
    /// Music segments.
    public var music: [Segment] = []
    /// Multi-speaker segments.
    public var multiSpeaker: [Segment] = []
    /// The file's duration, seconds.
    public var duration: Double = 0
    /// The environment measurements, in time order (when the environment was measured).
    public var environment: [EnvironmentPoint] = []

    /// One environment measurement on the timeline.
    public struct EnvironmentPoint: Equatable, Sendable {
        /// End of the measurement's window, seconds.
        public var time: Double
        /// Background-noise level, dBFS; `nil` for a digitally silent background.
        public var noiseDBFS: Double?
        /// Noise category (`very_quiet` … `very_loud`).
        public var noiseCategory: String
        /// Speech-to-noise ratio over the window, dB, −30…100 (speech no louder than the noise
        /// reads −30, a digitally silent background 100); `nil` when the window held no speech.
        public var snrDB: Double?
        /// The stream's blind clarity C50 so far, dB; `nil` until enough free decays were found.
        public var c50DB: Double?
        /// Speech clarity over the window, 0…1 (the useful-to-detrimental ratio of the SNR and
        /// C50, mapped); `nil` when the window held no speech.
        public var speechClarity: Double?

        /// Creates a point.
        public init(
            time: Double, noiseDBFS: Double?, noiseCategory: String, snrDB: Double?, c50DB: Double? = nil,
            speechClarity: Double? = nil
        ) {
            self.time = time
            self.noiseDBFS = noiseDBFS
            self.noiseCategory = noiseCategory
            self.snrDB = snrDB
            self.c50DB = c50DB
            self.speechClarity = speechClarity
        }

        /// The point of measurement `m`.
        public init(_ m: EnvironmentMeasurement) {
            self.init(
                time: m.timeSeconds, noiseDBFS: m.noiseDBFS.isFinite ? m.noiseDBFS : nil,
                noiseCategory: m.noiseCategory.description,
                snrDB: m.speechToNoiseDB.map { $0.isNaN ? -30 : Swift.min(100, Swift.max(-30, $0)) },
                c50DB: m.c50DB.flatMap { $0.isFinite ? $0 : nil },
                speechClarity: m.speechToNoiseDB == nil ? nil : m.speechClarity)
        }
    }

    /// Empty segment lists.
    public init() {}

    /// One piece of the timeline: a span over which the three decisions are constant.
    public struct Span: Equatable, Sendable {
        /// Start, seconds.
        public var start: Double
        /// End, seconds.
        public var end: Double
        /// Speech present.
        public var speech: Bool
        /// Music present.
        public var music: Bool
        /// Several people talking at once.
        public var multiSpeaker: Bool
    }

    /// The timeline: consecutive spans covering `0 … duration`, each with constant decisions,
    /// neighbours always differing (adjacent spans with equal decisions are merged).
    public var timeline: [Span] {
        var boundaries: [Double] = [0, duration]
        for list in [speech, music, multiSpeaker] {
            for s in list { boundaries.append(s.start); boundaries.append(s.end) }
        }
        let points = Array(Set(boundaries.filter { $0 >= 0 && $0 <= duration })).sorted()
        // Sweep: each list is sorted and non-overlapping, so one cursor per list suffices.
        var cursors = [0, 0, 0]
        let lists = [speech, music, multiSpeaker]
        func inside(_ which: Int, _ t: Double) -> Bool {
            let list = lists[which]
            while cursors[which] < list.count, list[cursors[which]].end <= t { cursors[which] += 1 }
            return cursors[which] < list.count && list[cursors[which]].start <= t
        }
        var spans: [Span] = []
        for (a, b) in zip(points, points.dropFirst()) where b > a {
            let mid = (a + b) / 2
            let span = Span(start: a, end: b, speech: inside(0, mid), music: inside(1, mid), multiSpeaker: inside(2, mid))
            if let last = spans.last, last.speech == span.speech, last.music == span.music, last.multiSpeaker == span.multiSpeaker {
                spans[spans.count - 1].end = b
            } else {
                spans.append(span)
            }
        }
        return spans
    }
}
