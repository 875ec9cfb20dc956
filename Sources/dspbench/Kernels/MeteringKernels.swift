// metering: LevelMeter (one block) and LevelAnalyzer (streaming, per-frame levels + summary),
// each beside a plain C loop with the same semantics.
import CBenchReferences
import DSPAnalysis
import DSPCore

enum MeteringKernels {
    /// The analysis frame of LevelAnalyzer and its C counterpart, in samples.
    static let analysisFrameLength = 1024

    static func make(_ context: SuiteContext) -> [Kernel] {
        let audio = context.audio
        let n = context.frameLength
        let frames = FrameSource(UnsafeBufferPointer(audio.mono.buffer), samplesPerFrame: n)
        let seconds = Double(frames.pushedSamples) / Double(audio.sampleRate)
        let sink = Sink()
        var kernels: [Kernel] = []

        func add(_ group: String, _ name: String, ours: Bool, reset: @escaping () -> Void = {}, step: @escaping (Int) -> Bool) {
            kernels.append(Kernel(
                suite: .metering, group: group, name: name,
                implementation: ours ? "SpeechDSP" : "C reference", slug: ours ? "speechdsp" : "c-reference",
                isOurs: ours, isGroupReference: ours, frames: frames, audioSecondsPerPass: seconds,
                reset: reset, sink: sink, step: step))
        }

        // LevelMeter: RMS, peak, DC, clipped and non-finite counts of each pushed block.
        do {
            let meter = try LevelMeter()
            add("level-meter", "LevelMeter block of \(n)", ours: true) { i in
                let level = meter.measure(frames[i])
                sink.total += level.meanSquare + level.dcOffset + Double(level.peak)
                sink.count &+= level.clippedCount &+ level.nonFiniteCount
                return true
            }
            if context.compare {
                add("level-meter", "LevelMeter block of \(n)", ours: false) { i in
                    let level = cbs_ref_measure_level(frames[i].baseAddress, n, 1.0)
                    sink.total += level.sum_squares + level.sum + Double(level.peak)
                    sink.count &+= level.clipped &+ level.non_finite
                    return true
                }
            }
        } catch {
            context.notes.add("metering: LevelMeter: \(error)")
        }

        // LevelAnalyzer: 1024-sample analysis frames from pushes of any length, plus the summary.
        do {
            let analyzer = try LevelAnalyzer(configuration: .init(
                sampleRate: audio.sampleRate, channelCount: 1, frameLength: analysisFrameLength))
            let capacity = analyzer.maxOutputCount(forInputCount: n) + 1
            let levels = UnsafeMutableBufferPointer<TimedFrameLevel>.allocate(capacity: capacity)
            let levelStorage = LevelStorage(levels)
            add("level-analyzer", "LevelAnalyzer frames of \(analysisFrameLength)", ours: true, reset: { analyzer.reset() }) { i in
                let result = analyzer.process(frames[i], into: levelStorage.buffer)
                sink.count &+= result.produced
                return result.consumed == n
            }
            if context.compare, let reference = cbs_ref_level_analyzer_create(analysisFrameLength, 1.0) {
                let owner = ReferenceAnalyzer(reference)
                add("level-analyzer", "LevelAnalyzer frames of \(analysisFrameLength)", ours: false,
                    reset: { cbs_ref_level_analyzer_reset(owner.handle) }) { i in
                    sink.count &+= cbs_ref_level_analyzer_push(owner.handle, frames[i].baseAddress, n)
                    return true
                }
            }
        } catch {
            context.notes.add("metering: LevelAnalyzer: \(error)")
        }
        if context.compare { checkEquivalence(frames: frames, notes: context.notes) }
        return kernels
    }

    /// Checks, outside timing, that the C level kernel agrees with LevelMeter on every pushed
    /// block (same peak and counts, sums of squares within 1e-5 relative: the two sum in different lane orders in Float32); a mismatch is noted.
    static func checkEquivalence(frames: FrameSource, notes: Notes) {
        guard let meter = try? LevelMeter() else { return }
        var same = true
        for i in 0..<frames.count {
            let ours = meter.measure(frames[i])
            let theirs = cbs_ref_measure_level(frames[i].baseAddress, frames.samplesPerFrame, 1.0)
            let finite = Double(Swift.max(ours.sampleCount, 1))
            same = same && ours.peak == theirs.peak && ours.clippedCount == theirs.clipped
                && ours.nonFiniteCount == theirs.non_finite
                && Swift.abs(ours.meanSquare * finite - theirs.sum_squares) <= 1e-5 * Swift.max(theirs.sum_squares, 1e-30)
        }
        if !same { notes.add("metering: the C level kernel differs from LevelMeter on this audio") }
    }
}

/// Owns the per-frame level records an analyzer writes into.
private final class LevelStorage {
    let buffer: UnsafeMutableBufferPointer<TimedFrameLevel>
    init(_ buffer: UnsafeMutableBufferPointer<TimedFrameLevel>) { self.buffer = buffer }
    deinit { buffer.deallocate() }
}

/// Owns the C reference analyzer.
private final class ReferenceAnalyzer {
    let handle: OpaquePointer
    init(_ handle: OpaquePointer) { self.handle = handle }
    deinit { cbs_ref_level_analyzer_destroy(handle) }
}
