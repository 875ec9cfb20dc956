/// Turns a per-frame probability into activity segments: hysteresis, a minimum duration
/// before a segment opens, hangover before it closes, and padding.
///
/// Causal and frame-based (so independent of how audio was chunked). A segment opens when the
/// probability has stayed at or above ``Configuration-swift.struct/onThreshold`` for
/// ``Configuration-swift.struct/minimumActiveSeconds``; its start is then back-dated to the
/// first frame of that run minus ``Configuration-swift.struct/paddingSeconds`` (never before
/// the previous segment's end). It closes when the probability has stayed below
/// ``Configuration-swift.struct/offThreshold`` for ``Configuration-swift.struct/hangoverSeconds``;
/// its end is the end of the last active frame plus the padding (the hangover bridges pauses
/// shorter than itself). A frame is active for the end at or above
/// ``Configuration-swift.struct/endThreshold`` when that is set (the probability's decay after
/// an utterance, above the off threshold, then stays out of the segment while it still bridges
/// pauses), and at or above the off threshold otherwise. Times are in seconds from the stream
/// start.
public struct ActivitySegmenter: Sendable {
    /// Decision parameters.
    public struct Configuration: Equatable, Sendable {
        /// Probability at or above which a frame counts as active, 0…1.
        public var onThreshold: Float
        /// Probability below which an active segment starts to close, 0…`onThreshold`.
        public var offThreshold: Float
        /// Active run needed to open a segment, seconds, ≥ 0.
        public var minimumActiveSeconds: Double
        /// Inactive run needed to close a segment, seconds, ≥ 0.
        public var hangoverSeconds: Double
        /// Time added before each start and after each end, seconds, ≥ 0.
        public var paddingSeconds: Double
        /// Probability at or above which a frame extends the open segment's end, `offThreshold`…1,
        /// or `nil` for ``offThreshold``. A segment ends after the last frame at or above it (or
        /// after the frame that opened the segment, if none followed), plus the padding; frames
        /// between the off threshold and this one keep the segment open (no hangover counted)
        /// without extending it.
        public var endThreshold: Float?

        /// Creates a configuration.
        public init(
            onThreshold: Float, offThreshold: Float, minimumActiveSeconds: Double, hangoverSeconds: Double, paddingSeconds: Double,
            endThreshold: Float? = nil
        ) {
            self.onThreshold = onThreshold
            self.offThreshold = offThreshold
            self.minimumActiveSeconds = minimumActiveSeconds
            self.hangoverSeconds = hangoverSeconds
            self.paddingSeconds = paddingSeconds
            self.endThreshold = endThreshold
        }
    }

    /// A change reported by ``update(probability:time:duration:)``.
    public enum Transition: Equatable, Sendable {
        /// Nothing changed.
        case none
        /// A segment opened; it starts at the given time (back-dated, seconds).
        case started(at: Double)
        /// The open segment closed; it ends at the given time (seconds).
        case ended(at: Double)
    }

    /// The configuration.
    public let configuration: Configuration
    /// Whether a segment is open.
    public private(set) var isActive = false
    /// Start of the open segment, seconds (meaningful while ``isActive``).
    public private(set) var activeStart: Double = 0

    private var runStart: Double = 0
    private var runSeconds: Double = 0
    private var quietSeconds: Double = 0
    private var lastActiveEnd: Double = 0
    private var previousEnd: Double = 0

    /// The threshold that extends a segment's end: ``Configuration-swift.struct/endThreshold``,
    /// at least ``Configuration-swift.struct/offThreshold``.
    private let endThreshold: Float

    /// Creates a segmenter.
    public init(configuration: Configuration) {
        self.configuration = configuration
        endThreshold = max(configuration.offThreshold, configuration.endThreshold ?? configuration.offThreshold)
    }

    /// Feeds one frame (its start `time` and `duration`, seconds) and returns what changed.
    public mutating func update(probability: Float, time: Double, duration: Double) -> Transition {
        let c = configuration
        if !isActive {
            if probability >= c.onThreshold {
                if runSeconds == 0 { runStart = time }
                runSeconds += duration
                if runSeconds >= c.minimumActiveSeconds - 1e-9 {
                    isActive = true
                    activeStart = max(previousEnd, runStart - c.paddingSeconds, 0)
                    lastActiveEnd = time + duration
                    quietSeconds = 0
                    runSeconds = 0
                    return .started(at: activeStart)
                }
            } else {
                runSeconds = 0
            }
            return .none
        }
        if probability < c.offThreshold {
            quietSeconds += duration
            if quietSeconds >= c.hangoverSeconds - 1e-9 {
                isActive = false
                let end = min(lastActiveEnd + c.paddingSeconds, time + duration)
                previousEnd = end
                quietSeconds = 0
                return .ended(at: end)
            }
        } else {
            quietSeconds = 0
            if probability >= endThreshold { lastActiveEnd = time + duration }
        }
        return .none
    }

    /// Ends the stream at `time` (seconds): closes an open segment there, padded but not past
    /// the end of the stream.
    public mutating func finish(at time: Double) -> Transition {
        defer { reset() }
        guard isActive else { return .none }
        return .ended(at: min(lastActiveEnd + configuration.paddingSeconds, time))
    }

    /// Forgets the stream.
    public mutating func reset() {
        isActive = false
        activeStart = 0
        runStart = 0
        runSeconds = 0
        quietSeconds = 0
        lastActiveEnd = 0
        previousEnd = 0
    }
}
