import DSPCore

/// Gathers the detector's hops (16 ms at 16 kHz) into analysis frames of
/// ``frameLength`` samples (64 ms: four hops), the environment analyzer's unit.
///
/// A frame's level is the power mean of its hops, `10·log10(Σ pᵢ·nᵢ / Σ nᵢ)` over the hops'
/// mean squares `pᵢ` and real sample counts `nᵢ` — the mean square of the frame's samples, so
/// no second pass over the audio. Probabilities and entropy are the hops' means; decisions
/// and the noise floor are those in force after the frame's last hop. Frames start at
/// multiples of ``frameLength``; the stream's last frame may be short (``close()``).
public struct FrameGrouper: Sendable {
    /// Samples per frame: a multiple of the hop length.
    public let frameLength: Int
    private let hopsPerFrame: Int
    private var index: Int64 = 0
    private var hops = 0
    private var samples = 0
    private var energy = 0.0
    private var speech = 0.0, music = 0.0, multi = 0.0, entropy = 0.0
    private var isSpeech = false, isMusic = false, isMulti = false
    private var noiseFloor = Double.nan

    /// Creates a grouper; `frameLength` must be a positive multiple of `hopLength`.
    public init(frameLength: Int, hopLength: Int) throws(ConfigurationError) {
        guard hopLength > 0, frameLength >= hopLength, frameLength % hopLength == 0 else {
            throw ConfigurationError(
                parameter: "frameLength", value: "\(frameLength)", expected: "a positive multiple of the hop length \(hopLength)")
        }
        self.frameLength = frameLength
        hopsPerFrame = frameLength / hopLength
    }

    /// Adds one hop; returns the frame it completes, if it completes one.
    public mutating func add(_ hop: DetectionFrame) -> AnalysisFrame? {
        hops += 1
        samples += hop.features.validCount
        energy += Double(hop.features.hopPower) * Double(hop.features.validCount)
        speech += Double(hop.speechProbability)
        music += Double(hop.musicProbability)
        multi += Double(hop.multiSpeakerProbability)
        entropy += Double(hop.features.entropy)
        isSpeech = hop.isSpeech
        isMusic = hop.isMusic
        isMulti = hop.isMultiSpeaker
        noiseFloor = hop.cues.noiseFloorDBFS.isFinite ? Double(hop.cues.noiseFloorDBFS) : .nan
        return hops == hopsPerFrame ? close() : nil
    }

    /// Closes the open frame (the last, partial one at the end of a stream), if any hop is in it.
    public mutating func close() -> AnalysisFrame? {
        guard hops > 0 else { return nil }
        let n = Double(hops)
        let meanPower = samples > 0 ? energy / Double(samples) : 0
        let frame = AnalysisFrame(
            startSample: index * Int64(frameLength), sampleCount: samples,
            levelDBFS: meanPower > 0 ? Decibels.fromPower(meanPower) : -.infinity,
            speechProbability: speech / n, isSpeech: isSpeech, noiseFloorDBFS: noiseFloor,
            musicProbability: music / n, isMusic: isMusic, multiSpeakerProbability: multi / n,
            isMultiSpeaker: isMulti, spectralEntropy: entropy / n)
        index += 1
        clearFrame()
        return frame
    }

    /// Forgets the stream.
    public mutating func reset() {
        index = 0
        clearFrame()
    }

    private mutating func clearFrame() {
        hops = 0
        samples = 0
        energy = 0
        speech = 0; music = 0; multi = 0; entropy = 0
        isSpeech = false; isMusic = false; isMulti = false
        noiseFloor = .nan
    }
}
