// Which pushes complete which analysis frames, so that per-push times become times per
// analysis frame (a 16 ms hop of the detector).
import DSPSpectral

/// The analysis frames each push of a pass completes, counted once at set-up by a
/// ``SpectralAnalyzer`` with the detector's settings over the same pushes.
///
/// The detector (and the analysis chain above it) emits a frame per hop, four at a time (the
/// analyzer's batches): the push that completes a batch does the work of its four frames, the
/// pushes between only copy samples. Where frames fall depends only on stream positions, not on
/// the audio, so one count serves every kernel over the same pushes and no timed loop counts
/// anything. A push's time is shared equally among the frames it completed; pushes that
/// complete none are left out of the per-frame figures (they are in the per-push ones).
final class AnalysisFrameSchedule {
    /// Frames completed by push `i`.
    let framesPerPush: Scratch<Int32>
    /// Frames completed by a whole pass (flush excluded).
    let framesPerPass: Int
    /// Seconds of audio per analysis frame (the hop).
    let frameSeconds: Double

    /// Counts the frames of `pushes` with an analyzer built from `configuration`.
    init(pushes: FrameSource, configuration: SpectralAnalyzer.Configuration = .init()) throws {
        let analyzer = try SpectralAnalyzer(configuration: configuration)
        framesPerPush = Scratch(count: pushes.count, repeating: 0)
        var total = 0
        for i in 0..<pushes.count {
            let due = analyzer.maxOutputCount(forInputCount: pushes.samplesPerFrame)
            // Advance the analyzer as the kernels will: the count above is exact, this checks it.
            var seen = 0
            analyzer.process(pushes[i]) { _ in seen += 1 }
            precondition(seen == due, "SpectralAnalyzer.maxOutputCount disagrees with process")
            framesPerPush.buffer[i] = Int32(seen)
            total += seen
        }
        framesPerPass = total
        frameSeconds = Double(configuration.hopLength) / configuration.sampleRate
    }
}
