// The result of `dspbench run`: what the JSON holds and the table shows.
import DSPCore

/// One run: provenance, settings, peers and a result per kernel. Schema `dspbench.run/1`
/// (documented in docs/benchmarks.md).
struct RunReport: Codable {
    static let schemaName = "dspbench.run/1"

    var schema = RunReport.schemaName
    var library: LibraryInfo
    /// `debug` or `release` (`#if DEBUG`).
    var buildConfiguration: String
    /// ISO 8601, UTC.
    var date: String
    var commandLine: String
    var machine: MachineInfo
    var settings: RunSettings
    /// Peers tried (`--compare` only).
    var peers: [PeerStatus]
    var kernels: [KernelResult]
    var notes: [String]

    enum CodingKeys: String, CodingKey {
        case schema, library, buildConfiguration = "build_configuration", date, commandLine = "command_line"
        case machine, settings, peers, kernels, notes
    }

    struct LibraryInfo: Codable, Equatable {
        var name: String
        var version: String

        static let current = LibraryInfo(name: "SpeechDSP", version: SpeechDSPVersion.current)
    }
}

/// How the run measured.
struct RunSettings: Codable {
    var suites: [Suite]
    /// Description of the audio.
    var input: String
    var inputPath: String?
    var sampleRate: Int
    var durationSeconds: Double
    /// Samples per push (per channel).
    var frameLength: Int
    var repetitions: Int
    var warmupPasses: Int
    var compare: Bool
    /// Median cost of one CLOCK_MONOTONIC read, subtracted from per-frame times, ns.
    var clockOverheadNs: Double
    /// Whether allocation calls were counted (Linux/glibc).
    var allocationCounting: Bool

    enum CodingKeys: String, CodingKey {
        case suites, input, inputPath = "input_path", sampleRate = "sample_rate"
        case durationSeconds = "duration_seconds", frameLength = "frame_length", repetitions
        case warmupPasses = "warmup_passes", compare, clockOverheadNs = "clock_overhead_ns"
        case allocationCounting = "allocation_counting"
    }
}

/// One kernel's figures.
struct KernelResult: Codable {
    /// `suite/group/implementation-slug`, stable across runs.
    var id: String
    var suite: Suite
    var group: String
    var name: String
    var implementation: String
    var isSpeechDSP: Bool
    /// The SpeechDSP kernel of its group that the table compares peers with.
    var isGroupReference: Bool
    /// Frames per pass and samples (all channels) per frame.
    var framesPerPass: Int
    var samplesPerFrame: Int
    var audioSecondsPerPass: Double
    /// Audio seconds per CPU second (thread CPU time, median pass). Equals real-time streams
    /// per core.
    var xRealtime: Double?
    /// From the fastest pass.
    var xRealtimeBest: Double?
    /// Audio seconds per wall second (median pass).
    var xRealtimeWall: Double?
    var realtimeStreamsPerCore: Double?
    /// Input samples (all channels) per CPU second.
    var samplesPerSecond: Double?
    /// Per-push wall time, clock overhead subtracted, ns.
    var nsPerFrameP50: Double?
    var nsPerFrameP99: Double?
    var nsPerFrameMax: Double?
    /// Analyses (detection, environment): analysis frames (hops) completed per pass, the
    /// seconds of audio each one is, and the wall time per analysis frame, ns (each push's time
    /// shared among the frames it completed).
    var analysisFramesPerPass: Int?
    var analysisFrameSeconds: Double?
    var nsPerAnalysisFrameP50: Double?
    var nsPerAnalysisFrameP99: Double?
    var nsPerAnalysisFrameMax: Double?
    /// Heap allocation calls per push (malloc family, this thread), and bytes they requested.
    var allocationsPerFrame: Double?
    var allocatedBytesPerFrame: Double?
    var cpuSecondsPerPass: [Double]
    var wallSecondsPerPass: [Double]
    /// Thread CPU time of each latency pass (every push timed), s; absent from reports made
    /// before 2026-11-28.
    var latencyCPUSecondsPerPass: [Double]?
    /// Output samples of one pass (resamplers).
    var outputSamplesPerPass: Int?
    /// For peers: SpeechDSP kernels of the group ÷ this peer, in × real time.
    var oursOverPeer: [Ratio]?
    /// This kernel's CPU time against another SpeechDSP kernel's measured with it.
    var relativeTo: Relative?
    var failure: String?

    struct Ratio: Codable {
        /// The SpeechDSP kernel's id.
        var ours: String
        var ratio: Double
        /// Whether it is the group's reference (the one the table shows).
        var isReference: Bool

        enum CodingKeys: String, CodingKey { case ours, ratio, isReference = "is_reference" }
    }

    struct Relative: Codable {
        /// The other kernel's id.
        var kernel: String
        /// This kernel's median CPU time per pass ÷ the other's (= its × real time ÷ this one's).
        var cpuRatio: Double

        enum CodingKeys: String, CodingKey { case kernel, cpuRatio = "cpu_ratio" }
    }

    enum CodingKeys: String, CodingKey {
        case id, suite, group, name, implementation, isSpeechDSP = "is_speechdsp", isGroupReference = "is_group_reference"
        case framesPerPass = "frames_per_pass", samplesPerFrame = "samples_per_frame"
        case audioSecondsPerPass = "audio_seconds_per_pass", xRealtime = "x_realtime"
        case xRealtimeBest = "x_realtime_best", xRealtimeWall = "x_realtime_wall"
        case realtimeStreamsPerCore = "realtime_streams_per_core", samplesPerSecond = "samples_per_second"
        case nsPerFrameP50 = "ns_per_frame_p50", nsPerFrameP99 = "ns_per_frame_p99", nsPerFrameMax = "ns_per_frame_max"
        case analysisFramesPerPass = "analysis_frames_per_pass", analysisFrameSeconds = "analysis_frame_seconds"
        case nsPerAnalysisFrameP50 = "ns_per_analysis_frame_p50", nsPerAnalysisFrameP99 = "ns_per_analysis_frame_p99"
        case nsPerAnalysisFrameMax = "ns_per_analysis_frame_max"
        case allocationsPerFrame = "allocations_per_frame", allocatedBytesPerFrame = "allocated_bytes_per_frame"
        case cpuSecondsPerPass = "cpu_seconds_per_pass", wallSecondsPerPass = "wall_seconds_per_pass"
        case latencyCPUSecondsPerPass = "latency_cpu_seconds_per_pass"
        case outputSamplesPerPass = "output_samples_per_pass", oursOverPeer = "ours_over_peer"
        case relativeTo = "relative_to", failure
    }

    init(kernel: Kernel, measurement m: KernelMeasurement) {
        id = kernel.id
        relativeToID = kernel.relativeTo
        suite = kernel.suite
        group = kernel.group
        name = kernel.name
        implementation = kernel.implementation
        isSpeechDSP = kernel.isOurs
        isGroupReference = kernel.isGroupReference
        framesPerPass = kernel.framesPerPass
        samplesPerFrame = kernel.samplesPerFrame
        audioSecondsPerPass = kernel.audioSecondsPerPass
        cpuSecondsPerPass = m.cpuSecondsPerPass
        wallSecondsPerPass = m.wallSecondsPerPass
        latencyCPUSecondsPerPass = m.latencyCPUSecondsPerPass
        if let schedule = kernel.analysisFrames {
            analysisFramesPerPass = schedule.framesPerPass
            analysisFrameSeconds = schedule.frameSeconds
        }
        failure = m.failure
        guard m.failure == nil, !m.cpuSecondsPerPass.isEmpty else { return }
        let audio = kernel.audioSecondsPerPass
        xRealtime = finite(audio / m.medianCPUSeconds)
        xRealtimeBest = finite(audio / (m.cpuSecondsPerPass.min() ?? .nan))
        xRealtimeWall = finite(audio / m.medianWallSeconds)
        realtimeStreamsPerCore = xRealtime
        samplesPerSecond = finite(Double(kernel.framesPerPass * kernel.samplesPerFrame) / m.medianCPUSeconds)
        nsPerFrameP50 = m.nsPerFrameP50
        nsPerFrameP99 = m.nsPerFrameP99
        nsPerFrameMax = m.nsPerFrameMax
        nsPerAnalysisFrameP50 = m.nsPerAnalysisFrameP50
        nsPerAnalysisFrameP99 = m.nsPerAnalysisFrameP99
        nsPerAnalysisFrameMax = m.nsPerAnalysisFrameMax
        allocationsPerFrame = m.allocationsPerFrame
        allocatedBytesPerFrame = m.allocatedBytesPerFrame
        outputSamplesPerPass = m.producedSamplesPerPass
    }

    /// The kernel `relativeTo` is to name, until ``RunReport/computeRatios()`` fills it in.
    private(set) var relativeToID: String?

    /// Median CPU time of the latency passes ÷ that of the throughput passes: what timing every
    /// push costs (nil for older reports or a failed kernel).
    var timingCostRatio: Double? {
        guard failure == nil, let latency = latencyCPUSecondsPerPass, !latency.isEmpty, !cpuSecondsPerPass.isEmpty else { return nil }
        return finite(median(latency) / median(cpuSecondsPerPass))
    }

    /// The ratio the table shows (against the group's reference SpeechDSP kernel).
    var referenceRatio: Double? { oursOverPeer?.first(where: \.isReference)?.ratio }
}

/// `value` if finite, else nil (JSON has no infinities).
func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }

extension RunReport {
    /// Fills `oursOverPeer` of every peer kernel: SpeechDSP's × real time ÷ the peer's, for
    /// every SpeechDSP kernel of the same suite and group; and `relativeTo` of every kernel set
    /// against another: its CPU time ÷ the other's.
    mutating func computeRatios() {
        for index in kernels.indices where !kernels[index].isSpeechDSP {
            let peer = kernels[index]
            guard let peerSpeed = peer.xRealtime, peerSpeed > 0 else { continue }
            let ours = kernels.filter { $0.isSpeechDSP && $0.suite == peer.suite && $0.group == peer.group }
            let ratios = ours.compactMap { kernel -> KernelResult.Ratio? in
                guard let speed = kernel.xRealtime else { return nil }
                let isReference = kernel.isGroupReference
                return KernelResult.Ratio(ours: kernel.id, ratio: speed / peerSpeed, isReference: isReference)
            }
            kernels[index].oursOverPeer = ratios.isEmpty ? nil : ratios
        }
        for index in kernels.indices {
            guard let otherID = kernels[index].relativeToID,
                let other = kernels.first(where: { $0.id == otherID }),
                let mine = kernels[index].xRealtime, let theirs = other.xRealtime, mine > 0
            else { continue }
            kernels[index].relativeTo = KernelResult.Relative(kernel: otherID, cpuRatio: theirs / mine)
        }
    }
}
