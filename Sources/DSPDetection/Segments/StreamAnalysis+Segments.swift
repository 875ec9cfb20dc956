// Segments from a whole-stream analysis (`StreamAnalyzer.analyze(_:)`) of the chain or the
// detector.

import DSPCore

extension StreamAnalysis where Output == AnalysisEvent {
    /// The speech, music and several-speaker segments among ``/DSPCore/StreamAnalysis/outputs``
    /// (``ActivitySegment/segments(from:)``), in samples at the chain's rate.
    ///
    /// ```swift
    /// let chain = try AnalysisChain(configuration: .init(environment: nil))
    /// for segment in chain.analyze(samples16k).segments where segment.activity == .speech {
    ///     print(segment.startSeconds(sampleRate: 16_000), segment.endSeconds(sampleRate: 16_000))
    /// }
    /// ```
    public var segments: [ActivitySegment] { ActivitySegment.segments(from: outputs) }
}

extension StreamAnalysis where Output == DetectionFrame, Summary == DetectionEnd {
    /// The segments an ``AcousticDetector``'s frames opened and closed, the ones still open at
    /// the end of the stream closed there (``DetectionEnd``), in samples at the detector's rate.
    public var segments: [ActivitySegment] {
        var events: [AnalysisEvent] = []
        func add(_ change: ActivitySegmenter.Transition, _ activity: Activity) {
            switch change {
            case .none: break
            case .started(let at): events.append(.started(activity, at: at))
            case .ended(let at): events.append(.ended(activity, at: at))
            }
        }
        for frame in outputs {
            add(frame.speechChange, .speech)
            add(frame.musicChange, .music)
            add(frame.multiSpeakerChange, .multipleSpeakers)
        }
        if let at = summary.speechEndedAt { events.append(.ended(.speech, at: at)) }
        if let at = summary.musicEndedAt { events.append(.ended(.music, at: at)) }
        if let at = summary.multiSpeakerEndedAt { events.append(.ended(.multipleSpeakers, at: at)) }
        return ActivitySegment.segments(from: events)
    }
}
