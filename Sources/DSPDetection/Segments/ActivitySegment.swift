import DSPCore

/// One span of activity — speech, music or several speakers — in integer sample positions at
/// the analysis rate (16 kHz for the chain): the segmenter's start and end events paired.
public struct ActivitySegment: Equatable, Hashable, Sendable {
    /// What was active.
    public var activity: Activity
    /// First sample of the segment (inclusive), back-dated as ``AnalysisEvent/started(_:at:)``.
    public var startSample: Int64
    /// End of the segment (exclusive), as ``AnalysisEvent/ended(_:at:)``.
    public var endSample: Int64

    /// Creates a segment.
    public init(activity: Activity, startSample: Int64, endSample: Int64) {
        self.activity = activity
        self.startSample = startSample
        self.endSample = endSample
    }

    /// `endSample − startSample`.
    public var sampleCount: Int64 { endSample - startSample }

    /// The start in seconds at `sampleRate` (Hz): `startSample / sampleRate`.
    public func startSeconds(sampleRate: Int) -> Double { Double(startSample) / Double(sampleRate) }

    /// The end in seconds at `sampleRate` (Hz): `endSample / sampleRate`.
    public func endSeconds(sampleRate: Int) -> Double { Double(endSample) / Double(sampleRate) }

    /// The segments a stream's events describe: each ``AnalysisEvent/started(_:at:)`` paired
    /// with the next ``AnalysisEvent/ended(_:at:)`` of the same activity, ordered by start (then
    /// by activity). A start with no end (a stream not flushed) gives no segment; environment
    /// events are ignored.
    public static func segments(from events: some Sequence<AnalysisEvent>) -> [ActivitySegment] {
        var open: [Activity: Int64] = [:]
        var segments: [ActivitySegment] = []
        for event in events {
            switch event {
            case .started(let activity, let at):
                open[activity] = at
            case .ended(let activity, let at):
                if let start = open.removeValue(forKey: activity) {
                    segments.append(ActivitySegment(activity: activity, startSample: start, endSample: at))
                }
            case .environment:
                break
            }
        }
        return segments.sorted { ($0.startSample, $0.activity.rawValue) < ($1.startSample, $1.activity.rawValue) }
    }
}
