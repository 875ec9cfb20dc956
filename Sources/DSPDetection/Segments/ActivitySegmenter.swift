import DSPCore

/// Turns a per-frame probability into activity segments: hysteresis, a minimum duration
/// before a segment opens, hangover before it closes, and padding.
///
/// Causal and frame-based (so independent of how audio was chunked), and exact: frames and
/// boundaries are integer sample positions at the stream's rate, the configured durations
/// converted once at construction. A segment opens when the probability has stayed at or above
/// ``Configuration-swift.struct/onThreshold`` for ``Configuration-swift.struct/minimumActiveSeconds``;
/// its start is then back-dated to the first frame of that run minus
/// ``Configuration-swift.struct/paddingSeconds`` (never before the previous segment's end). It
/// closes when the probability has stayed below ``Configuration-swift.struct/offThreshold`` for
/// ``Configuration-swift.struct/hangoverSeconds``; its end is the end of the last active frame
/// plus the padding (the hangover bridges pauses shorter than itself). A frame is active for the
/// end at or above ``Configuration-swift.struct/endThreshold`` when that is set (the
/// probability's decay after an utterance, above the off threshold, then stays out of the
/// segment while it still bridges pauses), and at or above the off threshold otherwise.
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

        /// Throws unless `0 ≤ off ≤ on ≤ 1`, `off ≤ end ≤ 1` (when set) and the durations are
        /// finite and non-negative, naming `parameter`.
        public func validate(parameter: String) throws(ConfigurationError) {
            guard onThreshold >= 0, onThreshold <= 1, offThreshold >= 0, offThreshold <= onThreshold,
                  minimumActiveSeconds >= 0, hangoverSeconds >= 0, paddingSeconds >= 0,
                  minimumActiveSeconds.isFinite, hangoverSeconds.isFinite, paddingSeconds.isFinite,
                  endThreshold.map({ $0 >= offThreshold && $0 <= 1 }) ?? true
            else {
                throw ConfigurationError(
                    parameter: parameter, value: "\(self)", expected: "0 ≤ off ≤ on ≤ 1, off ≤ end ≤ 1, finite non-negative durations")
            }
        }
    }

    /// A change reported by ``update(probability:start:count:)``.
    public enum Transition: Equatable, Sendable {
        /// Nothing changed.
        case none
        /// A segment opened; it starts at the given sample position (back-dated).
        case started(at: Int64)
        /// The open segment closed; it ends at the given sample position (exclusive).
        case ended(at: Int64)
    }

    /// The configuration.
    public let configuration: Configuration
    /// The stream's sample rate, Hz: what turns the configured seconds into samples.
    public let sampleRate: Double
    /// Whether a segment is open.
    public private(set) var isActive = false
    /// Start of the open segment, sample position (meaningful while ``isActive``).
    public private(set) var activeStart: Int64 = 0

    /// ``Configuration-swift.struct/minimumActiveSeconds`` in samples, rounded up.
    public let minimumActiveSamples: Int64
    /// ``Configuration-swift.struct/hangoverSeconds`` in samples, rounded up.
    public let hangoverSamples: Int64
    /// ``Configuration-swift.struct/paddingSeconds`` in samples, rounded to nearest.
    public let paddingSamples: Int64

    private var runStart: Int64 = 0
    private var runSamples: Int64 = 0
    private var quietSamples: Int64 = 0
    private var lastActiveEnd: Int64 = 0
    private var previousEnd: Int64 = 0

    /// The threshold that extends a segment's end: ``Configuration-swift.struct/endThreshold``,
    /// at least ``Configuration-swift.struct/offThreshold``.
    private let endThreshold: Float

    /// Creates a segmenter for a stream at `sampleRate` Hz (> 0). Durations become whole
    /// samples: a run must last at least ⌈seconds × rate⌉ samples (less one part in 10⁶, so
    /// that 0.25 s at 16 kHz is exactly 4000), padding is rounded to the nearest sample.
    public init(configuration: Configuration, sampleRate: Double) {
        precondition(sampleRate > 0 && sampleRate.isFinite, "ActivitySegmenter: sample rate must be positive")
        self.configuration = configuration
        self.sampleRate = sampleRate
        func atLeast(_ seconds: Double) -> Int64 {
            Int64(Swift.max(0, (seconds * sampleRate - 1e-6).rounded(.up)))
        }
        minimumActiveSamples = atLeast(configuration.minimumActiveSeconds)
        hangoverSamples = atLeast(configuration.hangoverSeconds)
        paddingSamples = Int64(Swift.max(0, (configuration.paddingSeconds * sampleRate).rounded()))
        endThreshold = max(configuration.offThreshold, configuration.endThreshold ?? configuration.offThreshold)
    }

    /// Feeds one frame (`count` samples from position `start`) and returns what changed.
    public mutating func update(probability: Float, start: Int64, count: Int) -> Transition {
        let c = configuration
        let n = Int64(count)
        if !isActive {
            if probability >= c.onThreshold {
                if runSamples == 0 { runStart = start }
                runSamples += n
                if runSamples >= minimumActiveSamples {
                    isActive = true
                    activeStart = Swift.max(previousEnd, runStart - paddingSamples, 0)
                    lastActiveEnd = start + n
                    quietSamples = 0
                    runSamples = 0
                    return .started(at: activeStart)
                }
            } else {
                runSamples = 0
            }
            return .none
        }
        if probability < c.offThreshold {
            quietSamples += n
            if quietSamples >= hangoverSamples {
                isActive = false
                let end = Swift.min(lastActiveEnd + paddingSamples, start + n)
                previousEnd = end
                quietSamples = 0
                return .ended(at: end)
            }
        } else {
            quietSamples = 0
            if probability >= endThreshold { lastActiveEnd = start + n }
        }
        return .none
    }

    /// Closes the open segment without waiting for its hangover, at sample position `position`
    /// at the latest: it ends after its last active frame plus the padding, but not past
    /// `position`. A run that was opening one is dropped. `.none` when no segment is open.
    public mutating func close(at position: Int64) -> Transition {
        runSamples = 0
        guard isActive else { return .none }
        isActive = false
        let end = Swift.max(activeStart, Swift.min(lastActiveEnd + paddingSamples, position))
        previousEnd = end
        quietSamples = 0
        return .ended(at: end)
    }

    /// Ends the stream at sample position `end`: closes an open segment there, padded but not
    /// past the end of the stream.
    public mutating func finish(at end: Int64) -> Transition {
        defer { reset() }
        guard isActive else { return .none }
        return .ended(at: Swift.min(lastActiveEnd + paddingSamples, end))
    }

    /// Forgets the stream.
    public mutating func reset() {
        isActive = false
        activeStart = 0
        runStart = 0
        runSamples = 0
        quietSamples = 0
        lastActiveEnd = 0
        previousEnd = 0
    }
}
