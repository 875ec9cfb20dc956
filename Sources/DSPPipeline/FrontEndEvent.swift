import DSPAnalysis
import DSPCore
import DSPDetection

/// Samples at or above the clip threshold, or non-finite, in one window of the input.
@frozen
public struct ClippingReport: Equatable, Sendable {
    /// Start of the window (exact in input frames).
    public var start: StreamTime
    /// Input frames (per channel) in the window: the configured window, or less for the last
    /// window of a stream.
    public var frameCount: Int
    /// Finite input samples (all channels) with |x| ≥ the clip threshold (default 1.0).
    public var clippedSampleCount: Int
    /// NaN and ±Inf input samples (all channels): they become 0 (NaN) or full scale (±Inf) in the
    /// Int16 output.
    public var nonFiniteSampleCount: Int

    /// Creates a report.
    @inlinable
    public init(start: StreamTime, frameCount: Int, clippedSampleCount: Int, nonFiniteSampleCount: Int) {
        self.start = start
        self.frameCount = frameCount
        self.clippedSampleCount = clippedSampleCount
        self.nonFiniteSampleCount = nonFiniteSampleCount
    }
}

/// Levels of one 1024-sample analysis frame of the 16 kHz stream.
@frozen
public struct FrameLevelReport: Equatable, Sendable {
    /// Start of the frame (exact in output samples).
    public var start: StreamTime
    /// Samples of real audio in the frame (1024, or less for the last frame of a stream).
    public var sampleCount: Int
    /// RMS level, `10·log10(mean x²)` dBFS (−∞ for digital silence).
    public var rmsDBFS: Double
    /// Sample peak, dBFS.
    public var peakDBFS: Double
    /// Momentary loudness (BS.1770, last 400 ms) at the end of the frame, LUFS; NaN when the
    /// loudness stage is off.
    public var momentaryLUFS: Double
    /// Short-term loudness (last 3 s) at the end of the frame, LUFS; NaN when the loudness stage
    /// is off.
    public var shortTermLUFS: Double

    /// Creates a report.
    @inlinable
    public init(start: StreamTime, sampleCount: Int, rmsDBFS: Double, peakDBFS: Double, momentaryLUFS: Double, shortTermLUFS: Double) {
        self.start = start
        self.sampleCount = sampleCount
        self.rmsDBFS = rmsDBFS
        self.peakDBFS = peakDBFS
        self.momentaryLUFS = momentaryLUFS
        self.shortTermLUFS = shortTermLUFS
    }
}

/// What a ``SpeechFrontEnd`` reports besides audio, in stream order within each kind.
public enum FrontEndEvent: Equatable, Sendable {
    /// An activity (speech, music, several speakers) starts: the segmenter's back-dated start —
    /// the first frame of the run that opened the segment, less the padding — as the file scorer
    /// records it. Emitted once the run has lasted the activity's minimum duration.
    case started(Activity, at: StreamTime)
    /// An activity ends: the end of its last active frame plus the padding (or the end of the
    /// stream). Emitted a hangover after the activity stopped, or at flush.
    case ended(Activity, at: StreamTime)
    /// A new environment measurement, at the end of the last frame it covers.
    case environment(EnvironmentMeasurement, at: StreamTime)
    /// Clipped or non-finite input samples in one window of the input.
    case clipping(ClippingReport)
    /// Levels of one analysis frame (when the levels stage is on).
    case levels(FrameLevelReport)

    /// The time the event refers to.
    public var time: StreamTime {
        switch self {
        case .started(_, let t), .ended(_, let t), .environment(_, let t): t
        case .clipping(let report): report.start
        case .levels(let report): report.start
        }
    }
}

/// A fixed-capacity, caller-owned list of events that a ``SpeechFrontEnd`` call fills.
///
/// Allocated once (``init(capacity:)``); ``SpeechFrontEnd/process(_:into:events:)`` and
/// ``SpeechFrontEnd/flush(into:events:)`` first empty it, then append. An event that does not
/// fit is dropped and counted — in ``droppedCount`` (this call), ``totalDroppedCount`` (since
/// creation) and the call's ``FrontEndResult/droppedEvents`` — never silently. Size it with
/// ``SpeechFrontEnd/maxEventCount(forInputCount:)`` and nothing is dropped. Iterating it (a
/// `RandomAccessCollection`) does not allocate. Not `Sendable`: one per stream, used by the
/// thread that processes it.
public final class FrontEndEventBuffer: RandomAccessCollection {
    /// The most events the buffer holds.
    public let capacity: Int
    @usableFromInline let storage: UnsafeMutablePointer<FrontEndEvent>
    /// Events held.
    public private(set) var count = 0
    /// Events dropped since the last ``removeAll()`` (for a front-end call: by that call).
    public private(set) var droppedCount = 0
    /// Events dropped since the buffer was created.
    public private(set) var totalDroppedCount = 0

    /// Creates an empty buffer for `capacity` events (at least 1).
    public init(capacity: Int) {
        self.capacity = Swift.max(1, capacity)
        storage = .allocate(capacity: self.capacity)
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    /// 0.
    public var startIndex: Int { 0 }
    /// ``count``.
    public var endIndex: Int { count }

    /// The `index`-th event held.
    public subscript(index: Int) -> FrontEndEvent {
        precondition(index >= 0 && index < count, "FrontEndEventBuffer index out of range")
        return storage[index]
    }

    /// Appends `event`, or drops and counts it when full. Never allocates.
    public func append(_ event: FrontEndEvent) {
        if count < capacity {
            (storage + count).initialize(to: event)
            count += 1
        } else {
            droppedCount += 1
            totalDroppedCount += 1
        }
    }

    /// Empties the buffer and clears ``droppedCount``.
    public func removeAll() {
        storage.deinitialize(count: count)
        count = 0
        droppedCount = 0
    }
}
