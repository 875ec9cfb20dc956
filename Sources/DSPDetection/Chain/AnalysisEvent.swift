/// What a stream can be doing, as the detector segments it.
public enum Activity: Int, CaseIterable, Sendable, CustomStringConvertible {
    /// Someone speaks.
    case speech
    /// Music plays.
    case music
    /// Two or more people speak at once.
    case multipleSpeakers

    /// `speech`, `music` or `multi_speaker` (the names records and timelines use).
    public var description: String {
        switch self {
        case .speech: "speech"
        case .music: "music"
        case .multipleSpeakers: "multi_speaker"
        }
    }
}

/// One output of ``AnalysisChain``: a segment boundary or an environment measurement.
///
/// Positions are integer samples at the analysis rate. A segment's start is back-dated by the
/// segmenter (it is known only once the activity has lasted its minimum), and its end comes a
/// hangover after the activity stops, so an event's position generally lies before the audio
/// that produced it.
public enum AnalysisEvent: Equatable, Sendable {
    /// `activity` starts at sample `at` (inclusive).
    case started(Activity, at: Int64)
    /// `activity` ends at sample `at` (exclusive).
    case ended(Activity, at: Int64)
    /// A new environment measurement, made at the end of the frame reaching an update time
    /// (``EnvironmentMeasurement/endSample``).
    case environment(EnvironmentMeasurement)

    /// The sample position the event refers to.
    public var sample: Int64 {
        switch self {
        case .started(_, let at), .ended(_, let at): at
        case .environment(let m): m.endSample
        }
    }
}
