import DSPAnalysis
import DSPCore
import DSPDetection

/// Turns one 16 kHz analysis frame into the environment analyzer's input, by running
/// ``AcousticDetector`` (voice activity, music, multiple speakers) over it.
///
/// The detector works on 16 ms hops, four per 1024-sample frame; the frame's features are the
/// mean of its hops' probabilities and spectral entropies, the decisions in force at the end
/// of the frame, and the tracked noise floor then. A short final frame (end of stream) is
/// flushed through the detector so its last partial hop counts too.
final class DetectionAdapter {
    /// Whether the detectors are wired in.
    static let isAvailable = true

    /// Analysis rate, Hz.
    let sampleRate: Int
    private let frameLength: Int
    private let detector: AcousticDetector

    /// Builds the detector for `sampleRate` and frames of `frameLength` samples.
    init(sampleRate: Int, frameLength: Int) throws(ConfigurationError) {
        self.sampleRate = sampleRate
        self.frameLength = frameLength
        var configuration = AcousticDetector.Configuration()
        configuration.analysis.sampleRate = Double(sampleRate)
        detector = try AcousticDetector(configuration: configuration)
    }

    /// The features of one frame. `frame` holds the frame's `validCount` real samples (then zero
    /// padding), starting at 16 kHz stream position `startSample`; `level` is its measured level.
    /// Does not allocate.
    func analyze(
        _ frame: UnsafeBufferPointer<Float>, validCount: Int, startSample: Int64, level: FrameLevel
    ) -> EnvironmentAnalyzer.FrameFeatures {
        var accumulator = Accumulator()
        let samples = UnsafeBufferPointer(rebasing: frame[..<max(0, min(validCount, frame.count))])
        detector.process(samples) { accumulator.add($0) }
        if validCount < frameLength {
            _ = detector.flush { accumulator.add($0) }
        }
        let hops = Double(max(1, accumulator.count))
        return EnvironmentAnalyzer.FrameFeatures(
            startSample: startSample, sampleCount: validCount, levelDBFS: level.rmsDBFS,
            speechProbability: accumulator.speech / hops, isSpeech: accumulator.isSpeech,
            noiseFloorDBFS: accumulator.noiseFloor.isFinite ? accumulator.noiseFloor : .nan,
            musicProbability: accumulator.music / hops, isMusic: accumulator.isMusic,
            multiSpeakerProbability: accumulator.multi / hops, isMultiSpeaker: accumulator.isMulti,
            spectralEntropy: accumulator.entropy / hops)
    }

    /// Forgets the stream.
    func reset() {
        detector.reset()
    }

    private struct Accumulator {
        var count = 0
        var speech = 0.0, music = 0.0, multi = 0.0, entropy = 0.0
        var isSpeech = false, isMusic = false, isMulti = false
        var noiseFloor = -Double.infinity

        mutating func add(_ d: DetectionFrame) {
            count += 1
            speech += Double(d.speechProbability)
            music += Double(d.musicProbability)
            multi += Double(d.multiSpeakerProbability)
            entropy += Double(d.features.entropy)
            isSpeech = d.isSpeech
            isMusic = d.isMusic
            isMulti = d.isMultiSpeaker
            noiseFloor = Double(d.cues.noiseFloorDBFS)
        }
    }
}
