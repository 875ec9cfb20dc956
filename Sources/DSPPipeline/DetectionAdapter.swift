import DSPAnalysis
import DSPCore

/// Turns one 16 kHz analysis frame into the environment analyzer's input: the detectors'
/// speech, music and multi-speaker decisions, their noise floor and spectral entropy.
///
/// TODO(lead): wire `DSPDetection` in here — this is the only place that needs it.
/// 1. `Package.swift`: add `"DSPDetection"` to the `DSPPipeline` target's dependencies.
/// 2. This file: `import DSPDetection`; hold the detector(s) built in `init` (16 kHz, 1024-sample
///    frames); fill every field of `FrameFeatures` in `analyze` from their per-frame output
///    (speech/music/multi-speaker probabilities and decisions, tracked noise floor in dBFS,
///    normalised spectral entropy 0…1); forward `reset()` and `flush()`.
/// 3. Set `isAvailable` to true. The `.detection` and `.environment` stages then validate, join
///    ``SpeechFrontEnd/Stages/default`` and feed speech events and environment measurements —
///    the rest of the front end (event plumbing, timestamps, environment analyzer, tests of the
///    event stage with feature streams) is already in place.
///
/// Until then the detection-dependent stages are unavailable (``SpeechFrontEnd`` refuses them
/// with a ``ConfigurationError``) rather than fed invented values.
final class DetectionAdapter {
    /// Whether the detectors are wired in. TODO(lead): true once `analyze` is real.
    static let isAvailable = false

    /// Analysis rate, Hz.
    let sampleRate: Int

    /// Builds the detectors for `sampleRate` and frames of `frameLength` samples.
    init(sampleRate: Int, frameLength: Int) throws(ConfigurationError) {
        guard Self.isAvailable else {
            throw ConfigurationError(
                parameter: "stages", value: "detection",
                expected: "a build with DSPDetection wired into DSPPipeline (not yet available)")
        }
        self.sampleRate = sampleRate
    }

    /// The features of one frame. `frame` holds the frame's `validCount` real samples (then zero
    /// padding), starting at 16 kHz stream position `startSample`; `level` is its measured level.
    /// Must not allocate.
    func analyze(
        _ frame: UnsafeBufferPointer<Float>, validCount: Int, startSample: Int64, level: FrameLevel
    ) -> EnvironmentAnalyzer.FrameFeatures {
        // TODO(lead): the detectors' outputs. Not reachable while `isAvailable` is false.
        preconditionFailure("DetectionAdapter.analyze called without DSPDetection")
    }

    /// Forgets the stream.
    func reset() {}
}
