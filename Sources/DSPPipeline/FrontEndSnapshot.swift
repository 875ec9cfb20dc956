import DSPDetection
import Synchronization

/// A live stream's state as of the end of its last `process`/`flush` call, readable from any
/// thread while the stream runs (``SpeechFrontEnd/snapshot()``).
public struct FrontEndSnapshot: Equatable, Sendable {
    /// Input frames (per channel) consumed so far.
    public var inputFrameCount: Int64 = 0
    /// 16 kHz samples written so far.
    public var outputSampleCount: Int64 = 0
    /// Momentary loudness at the last completed 10 ms step, LUFS (−∞ for silence); NaN when the
    /// loudness stage is off.
    public var momentaryLUFS = Double.nan
    /// Short-term loudness at the last completed step, LUFS; NaN when the loudness stage is off.
    public var shortTermLUFS = Double.nan
    /// Integrated loudness (BS.1770 gating), LUFS, as of the last whole half second of the
    /// 16 kHz stream (it is recomputed twice a second, not per push); NaN when the loudness
    /// stage is off, −∞ before any block passed the gates.
    public var integratedLUFS = Double.nan
    /// Whether a speech segment is open (detection stage).
    public var isSpeech = false
    /// Whether a music segment is open.
    public var isMusic = false
    /// Whether a several-speaker segment is open.
    public var isMultipleSpeakers = false
    /// The last environment measurement, if any was made.
    public var environment: EnvironmentMeasurement? = nil
    /// Clipped input samples so far (clipping stage).
    public var clippedSampleCount = 0
    /// Non-finite input samples so far (clipping stage).
    public var nonFiniteSampleCount = 0

    /// An empty snapshot (a stream that has not started).
    public init() {}

    /// The snapshot of `progress` and `environment`.
    init(_ progress: FrontEndProgress, environment: EnvironmentMeasurement?) {
        inputFrameCount = progress.inputFrameCount
        outputSampleCount = progress.outputSampleCount
        momentaryLUFS = progress.momentaryLUFS
        shortTermLUFS = progress.shortTermLUFS
        integratedLUFS = progress.integratedLUFS
        isSpeech = progress.isSpeech
        isMusic = progress.isMusic
        isMultipleSpeakers = progress.isMultipleSpeakers
        self.environment = environment
        clippedSampleCount = progress.clippedSampleCount
        nonFiniteSampleCount = progress.nonFiniteSampleCount
    }
}

/// The part of a snapshot that changes with every call (a few words, published per call).
struct FrontEndProgress {
    var inputFrameCount: Int64 = 0
    var outputSampleCount: Int64 = 0
    var momentaryLUFS = Double.nan
    var shortTermLUFS = Double.nan
    var integratedLUFS = Double.nan
    var clippedSampleCount = 0
    var nonFiniteSampleCount = 0
    var isSpeech = false
    var isMusic = false
    var isMultipleSpeakers = false

    /// Marks `activity` open or closed.
    mutating func setActive(_ activity: Activity, _ active: Bool) {
        switch activity {
        case .speech: isSpeech = active
        case .music: isMusic = active
        case .multipleSpeakers: isMultipleSpeakers = active
        }
    }
}

/// Storage for one plain-data value written by the processing thread and read by any thread,
/// without a lock: a sequence lock over atomic words (the writer makes the version odd, stores
/// the value's bytes word by word, makes it even again; a reader retries until it saw the same
/// even version before and after copying the words out). The writer never waits or allocates;
/// every access is atomic, so there is no data race.
final class SnapshotCell<Value>: @unchecked Sendable {
    // @unchecked: `words` is reached only through atomic operations; `Value` is plain data.
    private let version = Atomic<UInt64>(0)
    private let words: UnsafeMutablePointer<Atomic<UInt64>>
    private let wordCount = (MemoryLayout<Value>.size + 7) / 8

    init(_ initial: Value) {
        precondition(_isPOD(Value.self), "SnapshotCell holds plain data only")
        words = .allocate(capacity: wordCount)
        for i in 0..<wordCount { (words + i).initialize(to: Atomic<UInt64>(0)) }
        publish(initial)
    }

    deinit {
        words.deinitialize(count: wordCount)
        words.deallocate()
    }

    /// Publishes `value`. Only the owning (processing) thread calls this.
    func publish(_ value: borrowing Value) {
        let v = version.load(ordering: .relaxed)
        version.store(v &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .acquiringAndReleasing)
        withUnsafePointer(to: value) { pointer in
            let bytes = UnsafeRawBufferPointer(start: pointer, count: MemoryLayout<Value>.size)
            for i in 0..<wordCount {
                var word: UInt64 = 0
                let n = Swift.min(8, bytes.count - 8 * i)
                withUnsafeMutableBytes(of: &word) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[(8 * i)..<(8 * i + n)])) }
                words[i].store(word, ordering: .relaxed)
            }
        }
        version.store(v &+ 2, ordering: .releasing)
    }

    /// The last value published, consistent (never half of one and half of another).
    func read(into value: inout Value) {
        while true {
            let before = version.load(ordering: .acquiring)
            if before & 1 != 0 { continue }
            withUnsafeMutableBytes(of: &value) { bytes in
                for i in 0..<wordCount {
                    var word = words[i].load(ordering: .relaxed)
                    let n = Swift.min(8, bytes.count - 8 * i)
                    withUnsafeBytes(of: &word) {
                        UnsafeMutableRawBufferPointer(rebasing: bytes[(8 * i)..<(8 * i + n)]).copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[..<n]))
                    }
                }
            }
            atomicMemoryFence(ordering: .acquiring)
            if version.load(ordering: .relaxed) == before { return }
        }
    }
}
