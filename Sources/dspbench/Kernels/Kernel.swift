// The unit of measurement: one streaming call per pushed frame, over a whole pass of audio.
import CBenchSupport

/// The benchmark suites, in the order `dspbench run` measures them.
enum Suite: String, CaseIterable, Codable, Sendable {
    case conversion, metering, reframing, fft, resample, loudness, detection, environment, pipeline

    /// One line for `--help`.
    static var helpList: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// One kernel: an implementation (SpeechDSP or a peer) of one piece of work (its group), with a
/// closure that pushes frame `i` of the pass.
///
/// `step` is called once per frame, in order, after `reset`; it must not allocate, and returns
/// false if the unit failed (did not take all of its input, or a peer reported an error).
final class Kernel {
    let suite: Suite
    /// What is being measured, shared by every implementation of it (e.g. `48000-16000`).
    let group: String
    /// Human name of the work (e.g. `48 kHz → 16 kHz`).
    let name: String
    /// Who does it: `SpeechDSP`, `C reference`, `libsoxr HQ`, ...
    let implementation: String
    /// `implementation` as an identifier (e.g. `speechdsp-default`, `libsoxr-hq`).
    let slug: String
    /// Whether this is SpeechDSP's own code.
    let isOurs: Bool
    /// The SpeechDSP kernel that peers of the same group are compared with in the table.
    let isGroupReference: Bool
    /// Frames pushed per pass.
    let framesPerPass: Int
    /// Input samples per push, all channels.
    let samplesPerFrame: Int
    /// Seconds of audio one pass represents.
    let audioSecondsPerPass: Double
    /// Returns the unit to a fresh stream; called before every pass, outside the timing.
    let reset: () -> Void
    /// Pushes frame `i`; false on failure.
    let step: (Int) -> Bool
    /// Output samples written during the last pass, for units that produce audio.
    let producedSamples: (() -> Int)?
    /// Where `step` puts results; read once after the passes so that no work is optimized away.
    let sink: Sink?
    /// Consecutive kernels with the same key are measured together, their passes interleaved
    /// (`group` unless set): kernels doing different work whose costs are compared with each
    /// other (the detector with and without music and multi-speaker detection).
    let measuredWith: String
    /// For analyses: the analysis frames (16 ms hops) each push completes, from which the
    /// per-push times give times per analysis frame.
    let analysisFrames: AnalysisFrameSchedule?
    /// The id of a SpeechDSP kernel this one's CPU time is set against (e.g. the analysis chain
    /// with the environment stage against the chain without it).
    let relativeTo: String?

    init(
        suite: Suite, group: String, name: String, implementation: String, slug: String,
        isOurs: Bool, isGroupReference: Bool = false,
        frames: FrameSource, audioSecondsPerPass: Double,
        measuredWith: String? = nil, analysisFrames: AnalysisFrameSchedule? = nil, relativeTo: String? = nil,
        reset: @escaping () -> Void = {}, producedSamples: (() -> Int)? = nil, sink: Sink? = nil,
        step: @escaping (Int) -> Bool
    ) {
        self.suite = suite
        self.group = group
        self.name = name
        self.implementation = implementation
        self.slug = slug
        self.isOurs = isOurs
        self.isGroupReference = isGroupReference
        self.framesPerPass = frames.count
        self.samplesPerFrame = frames.samplesPerFrame
        self.audioSecondsPerPass = audioSecondsPerPass
        self.reset = reset
        self.step = step
        self.producedSamples = producedSamples
        self.sink = sink
        self.measuredWith = measuredWith ?? group
        self.analysisFrames = analysisFrames
        self.relativeTo = relativeTo
    }

    /// Stable identifier across runs, used by `dspbench compare`.
    var id: String { Self.id(suite, group, slug) }

    static func id(_ suite: Suite, _ group: String, _ slug: String) -> String { "\(suite.rawValue)/\(group)/\(slug)" }
}

/// Whole frames of a sample buffer, `samplesPerFrame` each (a trailing partial frame is not
/// pushed).
struct FrameSource {
    let base: UnsafePointer<Float>
    let samplesPerFrame: Int
    let count: Int

    init(_ buffer: UnsafeBufferPointer<Float>, samplesPerFrame: Int) {
        base = buffer.baseAddress!
        self.samplesPerFrame = samplesPerFrame
        count = buffer.count / samplesPerFrame
    }

    /// Frame `i`.
    @inline(__always)
    subscript(i: Int) -> UnsafeBufferPointer<Float> {
        UnsafeBufferPointer(start: base + i * samplesPerFrame, count: samplesPerFrame)
    }

    /// Samples actually pushed per pass.
    var pushedSamples: Int { count * samplesPerFrame }
}

/// Caller-owned memory that lives as long as the kernels that capture it.
final class Scratch<Element> {
    let buffer: UnsafeMutableBufferPointer<Element>
    var pointer: UnsafeMutablePointer<Element> { buffer.baseAddress! }

    init(count: Int, repeating value: Element) {
        let start = UnsafeMutablePointer<Element>.allocate(capacity: Swift.max(count, 1))
        start.initialize(repeating: value, count: Swift.max(count, 1))
        buffer = UnsafeMutableBufferPointer(start: start, count: count)
    }

    deinit { buffer.baseAddress!.deallocate() }
}

/// Somewhere to put results so the optimizer cannot drop the work that made them: the
/// measurement reads it into an opaque C call after the passes.
final class Sink {
    var total = 0.0
    var count = 0

    func consume() { cbs_black_hole_f64(total + Double(count)) }
}

/// What a suite needs to build its kernels.
struct SuiteContext {
    let audio: BenchAudio
    /// Samples (per channel) per push.
    let frameLength: Int
    /// Whether to add peer kernels (`--compare`).
    let compare: Bool
    let peers: PeerLibraries
    let notes: Notes
    /// The front end's ``/DSPPipeline/SpeechFrontEnd/Configuration/loopedBackgrounds`` in the
    /// pipeline suite (on unless `--no-looped-backgrounds`).
    var loopedBackgrounds = true
    /// Whether the pipeline suite's front end blends the network into voice activity
    /// (``/DSPPipeline/SpeechFrontEnd/Configuration/detector``'s `speechBlend`; on unless
    /// `--no-speech-blend`).
    var speechBlend = true
}

/// Notes collected during a run (omitted peers, skipped kernels), printed under the table and
/// recorded in the JSON.
final class Notes {
    private(set) var lines: [String] = []
    func add(_ line: String) {
        if !lines.contains(line) { lines.append(line) }
    }
}
