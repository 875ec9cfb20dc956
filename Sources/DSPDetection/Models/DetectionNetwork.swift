/// A learned detector of all three tasks at once over the stream of cue vectors: causal
/// convolutions over the last few frames, one gated recurrent layer, and one logistic output per
/// task (music, voice activity, several speakers).
///
/// Per evaluated frame `t` (``AcousticDetector`` evaluates it on audible frames only, as its
/// other models), with `x_t` the ``inputLanes`` of the frame's cue vector (a non-finite value
/// reads as 0):
///
///     z_t = (x_t − inputMean) / inputScale
///     y⁰_t = z_t
///     yˡ_t = max(0, Wˡ · [yˡ⁻¹_{t−kˡ+1}, …, yˡ⁻¹_t] + bˡ)      (each ``Convolution``, width kˡ)
///     h_t  = GRU(y^L_t, h_{t−1})                              (``recurrentInputWeights``…)
///     p_t  = σ(outputWeights · h_t + outputBias)              (3 rows: music, speech, multi)
///
/// Frames before a stream's first count as zeros in each layer's input (`z = 0`, i.e. the
/// input mean, for the first layer; PyTorch's zero padding); the GRU state starts at zero. The
/// GRU follows PyTorch's `nn.GRU` (rows reset, update, candidate; ``ProbabilityModel``'s
/// formula). A convolution's weights are PyTorch `nn.Conv1d`'s `[out][in][k]` reordered to
/// `[out][k][in]` (oldest frame first), so that each row reads the window of frames as one
/// contiguous vector.
///
/// `scripts/detect/train_network.py` fits one with PyTorch and exports it as this type's JSON
/// (`Codable`, keys as the properties here), which `JSONDecoder` reads; nothing adapts per file.
/// One can be blended into the voice-activity model's probability (``SpeechBlend``; a fitted
/// one, the default: ``DefaultModels/speechBlend``); as the only model of all three tasks
/// (``AcousticDetector/Configuration-swift.struct/network``) none is the default: on the
/// detection material's val split the per-task models decide better (`docs/detection.md`, Fitting).
public struct DetectionNetwork: Hashable, Sendable, Codable {
    /// One causal convolution over the frames: `outputCount` rows, each over the last `width`
    /// frames of the layer below, then `max(0, ·)`.
    public struct Convolution: Hashable, Sendable, Codable {
        /// Frames each output reads (≥ 1), the current one and `width − 1` before it.
        public var width: Int
        /// Output channels (≥ 1).
        public var outputCount: Int
        /// Weights, `outputCount × width × inputs` (row-major; frame `j` of the window, oldest
        /// first, input `i` at `[o][j][i]`).
        public var weights: [Float]
        /// Biases, `outputCount` values.
        public var bias: [Float]

        /// Creates a layer; ``DetectionNetwork/isValid`` checks its shapes.
        public init(width: Int, outputCount: Int, weights: [Float], bias: [Float]) {
            self.width = width
            self.outputCount = outputCount
            self.weights = weights
            self.bias = bias
        }
    }

    /// The outputs, in row order.
    public enum Output: Int, CaseIterable, Sendable {
        /// Music probability.
        case music
        /// Voice-activity probability.
        case speech
        /// Several-speakers probability.
        case multiSpeaker
    }

    /// The lanes read, in order (``CueLane`` raw values; not the two probability lanes, which
    /// the network does not use).
    public var inputLanes: [Int]
    /// Per-input mean subtracted before the network.
    public var inputMean: [Float]
    /// Per-input scale divided by before the network (> 0).
    public var inputScale: [Float]
    /// The convolutions, first to last (none: the GRU reads the standardised inputs).
    public var convolutions: [Convolution]
    /// Units of the recurrent layer (≥ 1).
    public var hiddenCount: Int
    /// The GRU's input weights, `3·hiddenCount × inputs of the layer` (PyTorch's W_ih, rows r,
    /// z, n).
    public var recurrentInputWeights: [Float]
    /// The GRU's input biases, `3·hiddenCount` (b_ih).
    public var recurrentInputBias: [Float]
    /// The GRU's recurrent weights and biases (W_hh, b_hh).
    public var recurrence: GatedRecurrence
    /// Output weights, `3 × hiddenCount` (rows in ``Output`` order).
    public var outputWeights: [Float]
    /// Output biases, 3 values.
    public var outputBias: [Float]

    /// Creates a network; ``isValid`` says whether the shapes agree.
    public init(
        inputLanes: [Int], inputMean: [Float], inputScale: [Float], convolutions: [Convolution], hiddenCount: Int,
        recurrentInputWeights: [Float], recurrentInputBias: [Float], recurrence: GatedRecurrence,
        outputWeights: [Float], outputBias: [Float]
    ) {
        self.inputLanes = inputLanes
        self.inputMean = inputMean
        self.inputScale = inputScale
        self.convolutions = convolutions
        self.hiddenCount = hiddenCount
        self.recurrentInputWeights = recurrentInputWeights
        self.recurrentInputBias = recurrentInputBias
        self.recurrence = recurrence
        self.outputWeights = outputWeights
        self.outputBias = outputBias
    }

    /// Inputs per frame: `inputLanes.count`.
    public var inputCount: Int { inputLanes.count }

    /// Multiply-adds per evaluated frame (the layers' weights).
    public var multiplyAdds: Int {
        var n = 0, inputs = inputCount
        for c in convolutions {
            n += c.outputCount * c.width * inputs
            inputs = c.outputCount
        }
        return n + 3 * hiddenCount * (inputs + hiddenCount) + 3 * hiddenCount
    }

    /// Whether the shapes agree, every value is finite, the scales are positive and no input
    /// reads a probability lane (``CueLane/musicProbability``, ``CueLane/speechProbability``).
    public var isValid: Bool {
        let n = inputCount
        guard n >= 1, inputMean.count == n, inputScale.count == n,
              inputLanes.allSatisfy({ (0..<CueLane.count).contains($0) }),
              !inputLanes.contains(CueLane.musicProbability.rawValue), !inputLanes.contains(CueLane.speechProbability.rawValue),
              inputScale.allSatisfy({ $0 > 0 && $0.isFinite }), inputMean.allSatisfy(\.isFinite)
        else { return false }
        var inputs = n
        for c in convolutions {
            guard c.width >= 1, c.outputCount >= 1, c.weights.count == c.outputCount * c.width * inputs,
                  c.bias.count == c.outputCount, c.weights.allSatisfy(\.isFinite), c.bias.allSatisfy(\.isFinite)
            else { return false }
            inputs = c.outputCount
        }
        let h = hiddenCount
        guard h >= 1, recurrentInputWeights.count == 3 * h * inputs, recurrentInputBias.count == 3 * h,
              recurrence.weights.count == 3 * h * h, recurrence.bias.count == 3 * h,
              outputWeights.count == 3 * h, outputBias.count == 3
        else { return false }
        let all = recurrentInputWeights + recurrentInputBias + recurrence.weights + recurrence.bias + outputWeights + outputBias
        return all.allSatisfy(\.isFinite)
    }
}
