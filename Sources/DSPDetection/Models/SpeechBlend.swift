/// Voice activity from two opinions: the speech model's probability and a
/// ``DetectionNetwork``'s voice-activity output, each smoothed as the detector smooths voice
/// activity, blended as `(1 − weight)·model + weight·network`.
///
/// ``AcousticDetector`` runs the network beside its per-task models when the full cues run
/// (music or multiple-speaker detection on; the network reads every cue lane): the speech
/// segmenter and ``DetectionFrame/speechProbability`` read the blend, while the multi-speaker
/// model and the background-noise estimate keep reading the speech model's own probability, as
/// they were fitted and tuned. ``DefaultModels/speechBlend`` is the fitted blend, the
/// detector's default since 2026-12-07 (`docs/detection.md`, *Fitting* and *Results*).
public struct SpeechBlend: Hashable, Sendable {
    /// The network whose voice-activity output is blended in (its music and several-speakers
    /// outputs are not used).
    public var network: DetectionNetwork
    /// The network's share, 0…1 (0: the model alone, 1: the network alone).
    public var weight: Float
    /// The network is stepped on one audible frame in this many (the stream's first audible
    /// frame included), its output held in between; 1…16. A network is trained for its stride
    /// (`train_network.py --stride`).
    public var evaluationStride: Int

    /// Creates a blend; ``isValid`` checks it.
    public init(network: DetectionNetwork, weight: Float, evaluationStride: Int = 1) {
        self.network = network
        self.weight = weight
        self.evaluationStride = evaluationStride
    }

    /// The largest ``evaluationStride``.
    public static let maximumEvaluationStride = 16

    /// Whether the network is valid (``DetectionNetwork/isValid``), the weight in 0…1 and the
    /// stride in 1…``maximumEvaluationStride``.
    public var isValid: Bool {
        network.isValid && weight >= 0 && weight <= 1 && (1...Self.maximumEvaluationStride).contains(evaluationStride)
    }
}
