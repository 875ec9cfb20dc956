// Timing and allocation counting of one kernel.
import CBenchSupport

/// The clocks dspbench reads.
enum Clock {
    /// CLOCK_MONOTONIC, ns.
    @inline(__always)
    static func monotonic() -> UInt64 { cbs_monotonic_ns() }

    /// CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID), ns.
    @inline(__always)
    static func threadCPU() -> UInt64 { cbs_thread_cpu_ns() }

    /// The median cost of one CLOCK_MONOTONIC read, ns, from `samples` back-to-back reads. Every
    /// per-frame time includes one read; this is subtracted from it.
    static func monotonicReadOverhead(samples: Int = 20_000) -> UInt64 {
        let stamps = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: samples + 1)
        defer { stamps.deallocate() }
        for i in 0...samples { stamps[i] = monotonic() }
        var deltas = (0..<samples).map { stamps[$0 + 1] - stamps[$0] }
        deltas.sort()
        return deltas[samples / 2]
    }
}

/// Heap allocation calls made by the measuring thread (see CBenchSupport's AllocationCounter.c).
enum AllocationCounter {
    /// Whether allocations are counted: the build interposes the malloc family (Linux with
    /// glibc) and a self-test sees a Swift allocation go through it.
    static let isSupported: Bool = {
        guard cbs_allocation_counting_supported() != 0 else { return false }
        cbs_allocation_counting_begin()
        let probe = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
        cbs_black_hole_ptr(probe)
        probe.deallocate()
        let counts = cbs_allocation_counting_end()
        return counts.allocations >= 1 && counts.frees >= 1
    }()
}

/// How to measure.
struct MeasurementSettings {
    /// Timed passes.
    var repetitions: Int
    /// Untimed passes first.
    var warmupPasses: Int
    /// Subtracted from every per-frame time, ns.
    var clockOverheadNanoseconds: UInt64
}

/// What measuring one kernel gave.
struct KernelMeasurement {
    /// Thread CPU time of each timed throughput pass, s.
    var cpuSecondsPerPass: [Double] = []
    /// Wall time of each timed throughput pass, s.
    var wallSecondsPerPass: [Double] = []
    /// Thread CPU time of each latency pass (every push timed), s: against `cpuSecondsPerPass`,
    /// what the per-push clock reads cost.
    var latencyCPUSecondsPerPass: [Double] = []
    /// Per-frame wall time, ns, clock overhead subtracted: median, 99th percentile, maximum.
    var nsPerFrameP50 = 0.0
    var nsPerFrameP99 = 0.0
    var nsPerFrameMax = 0.0
    /// For analyses (``Kernel/analysisFrames``): wall time per analysis frame, ns — each push's
    /// time shared among the frames it completed — median, 99th percentile, maximum.
    var nsPerAnalysisFrameP50: Double?
    var nsPerAnalysisFrameP99: Double?
    var nsPerAnalysisFrameMax: Double?
    /// Heap allocation calls per pushed frame during the throughput passes (nil: not counted).
    var allocationsPerFrame: Double?
    /// Bytes those calls requested, per frame.
    var allocatedBytesPerFrame: Double?
    /// Output samples of the last pass, for units that produce audio.
    var producedSamplesPerPass: Int?
    /// Why the kernel failed, if it did.
    var failure: String?

    /// Median CPU seconds per pass.
    var medianCPUSeconds: Double { median(cpuSecondsPerPass) }
    var medianWallSeconds: Double { median(wallSecondsPerPass) }
}

func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : 0.5 * (sorted[middle - 1] + sorted[middle])
}

/// Measures a group of kernels doing the same work (SpeechDSP's and its peers') or set against
/// each other: warm-up passes of each, then, repetition by repetition and kernel by kernel in
/// turn (so that a change in the machine's load hits every kernel of the group alike and their
/// ratios hold),
/// 1. a **throughput pass**: every frame pushed back to back, timed as a whole with the thread's
///    CPU clock and the monotonic clock, allocation calls counted on this thread;
/// 2. a **latency pass**: every frame pushed and timed individually, one CLOCK_MONOTONIC read
///    after each into a preallocated array (a clock read costs 20–80 ns, so it is kept out of
///    the throughput figure and its median cost is subtracted from each frame's time).
/// The unit is reset (outside timing) before every pass. Nothing is allocated inside either
/// timed loop. For analyses, the per-push times of the latency passes are then shared among
/// the analysis frames each push completed (``AnalysisFrameSchedule``), for times per frame.
/// The latency passes' own CPU time is kept too: set against the throughput passes', it is
/// what timing every push costs.
func measure(group kernels: [Kernel], settings: MeasurementSettings) -> [KernelMeasurement] {
    let runs = kernels.map { KernelRun($0, repetitions: settings.repetitions) }
    for run in runs where run.frames > 0 {
        for _ in 0..<settings.warmupPasses { run.untimedPass() }
    }
    for repetition in 0..<settings.repetitions {
        for run in runs where run.frames > 0 {
            run.throughputPass(isLast: repetition == settings.repetitions - 1)
            run.latencyPass(repetition: repetition, clockOverhead: settings.clockOverheadNanoseconds)
        }
    }
    return runs.map { $0.finish() }
}

/// The state of one kernel across its passes.
private final class KernelRun {
    let kernel: Kernel
    let frames: Int
    let repetitions: Int
    let step: (Int) -> Bool
    let stamps: UnsafeMutableBufferPointer<UInt64>
    var durations: UnsafeMutableBufferPointer<UInt64>
    var result = KernelMeasurement()
    var ok = true
    var allocations: UInt64 = 0
    var bytes: UInt64 = 0

    init(_ kernel: Kernel, repetitions: Int) {
        self.kernel = kernel
        self.frames = kernel.framesPerPass
        self.repetitions = repetitions
        step = kernel.step
        stamps = .allocate(capacity: frames + 1)
        durations = .allocate(capacity: Swift.max(frames * repetitions, 1))
        result.cpuSecondsPerPass.reserveCapacity(repetitions)
        result.wallSecondsPerPass.reserveCapacity(repetitions)
        result.latencyCPUSecondsPerPass.reserveCapacity(repetitions)
    }

    deinit {
        stamps.deallocate()
        durations.deallocate()
    }

    func untimedPass() {
        kernel.reset()
        let step = self.step
        var ok = true
        for i in 0..<frames { ok = step(i) && ok }
        self.ok = self.ok && ok
    }

    func throughputPass(isLast: Bool) {
        kernel.reset()
        let step = self.step
        let frames = self.frames
        var ok = true
        cbs_allocation_counting_begin()
        let cpu0 = Clock.threadCPU()
        let wall0 = Clock.monotonic()
        for i in 0..<frames { ok = step(i) && ok }
        let wall1 = Clock.monotonic()
        let cpu1 = Clock.threadCPU()
        let counts = cbs_allocation_counting_end()
        self.ok = self.ok && ok
        allocations += counts.allocations
        bytes += counts.requested_bytes
        result.cpuSecondsPerPass.append(Double(cpu1 &- cpu0) * 1e-9)
        result.wallSecondsPerPass.append(Double(wall1 &- wall0) * 1e-9)
        if isLast, let produced = kernel.producedSamples { result.producedSamplesPerPass = produced() }
    }

    func latencyPass(repetition: Int, clockOverhead: UInt64) {
        kernel.reset()
        let step = self.step
        let frames = self.frames
        let stamps = self.stamps
        var ok = true
        let cpu0 = Clock.threadCPU()
        stamps[0] = Clock.monotonic()
        for i in 0..<frames {
            ok = step(i) && ok
            stamps[i + 1] = Clock.monotonic()
        }
        let cpu1 = Clock.threadCPU()
        self.ok = self.ok && ok
        result.latencyCPUSecondsPerPass.append(Double(cpu1 &- cpu0) * 1e-9)
        let row = repetition * frames
        for i in 0..<frames {
            let elapsed = stamps[i + 1] &- stamps[i]
            durations[row + i] = elapsed > clockOverhead ? elapsed - clockOverhead : 0
        }
    }

    func finish() -> KernelMeasurement {
        kernel.sink?.consume()
        guard frames > 0 else {
            result.failure = "no whole frame of input"
            return result
        }
        if let schedule = kernel.analysisFrames { perAnalysisFrame(schedule) }
        durations.sort()
        result.nsPerFrameP50 = Double(percentile(durations, 50))
        result.nsPerFrameP99 = Double(percentile(durations, 99))
        result.nsPerFrameMax = Double(durations[durations.count - 1])
        if AllocationCounter.isSupported {
            let pushed = Double(frames * repetitions)
            result.allocationsPerFrame = Double(allocations) / pushed
            result.allocatedBytesPerFrame = Double(bytes) / pushed
        }
        if !ok {
            result.failure = kernel.isOurs
                ? "a push did not take all of its input"
                : "the peer reported an error or did not take all of its input"
        }
        return result
    }

    /// Shares each push's time among the analysis frames it completed (`schedule`), for every
    /// latency pass, and takes the percentiles over frames. After the passes, before
    /// `durations` is sorted.
    private func perAnalysisFrame(_ schedule: AnalysisFrameSchedule) {
        let total = schedule.framesPerPass * repetitions
        guard total > 0 else { return }
        let perFrame = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: total)
        defer { perFrame.deallocate() }
        var n = 0
        for repetition in 0..<repetitions {
            for i in 0..<frames {
                let k = Int(schedule.framesPerPush.buffer[i])
                guard k > 0 else { continue }
                let share = durations[repetition * frames + i] / UInt64(k)
                for _ in 0..<k {
                    perFrame[n] = share
                    n += 1
                }
            }
        }
        var measured = UnsafeMutableBufferPointer(rebasing: perFrame[..<n])
        measured.sort()
        result.nsPerAnalysisFrameP50 = Double(percentile(measured, 50))
        result.nsPerAnalysisFrameP99 = Double(percentile(measured, 99))
        result.nsPerAnalysisFrameMax = Double(measured[n - 1])
    }
}

/// Nearest-rank percentile of sorted values.
private func percentile(_ sorted: UnsafeMutableBufferPointer<UInt64>, _ p: Int) -> UInt64 {
    let rank = (p * sorted.count + 99) / 100  // ⌈p/100 · n⌉
    return sorted[Swift.max(rank, 1) - 1]
}
