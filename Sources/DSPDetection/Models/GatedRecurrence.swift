/// The recurrent half of a gated recurrent unit (GRU) hidden layer (PyTorch `nn.GRU`'s
/// `weight_hh_l0` and `bias_hh_l0`): what a ``ProbabilityModel`` with
/// ``ProbabilityModel/recurrence`` set adds to the hidden layer's input weights.
///
/// With `H` units, `rows(k)` the `H` rows `k·H ..< (k + 1)·H` (k = 0 reset, 1 update,
/// 2 candidate) and `h` the state before the frame:
///
///     gᵣ = rows(0) of (weights · h + bias)
///     g_z = rows(1) of (weights · h + bias)
///     gₙ = rows(2) of (weights · h + bias)
///
/// See ``ProbabilityModel`` for how they combine with the input rows (Cho et al. 2014,
/// "Learning Phrase Representations using RNN Encoder–Decoder", in PyTorch's formulation).
public struct GatedRecurrence: Hashable, Sendable, Codable {
    /// Recurrent weights, row-major 3H × H, rows in the order reset (r), update (z), candidate (n).
    public var weights: [Float]
    /// Recurrent biases, 3H (PyTorch's b_hh), same row order.
    public var bias: [Float]

    /// Creates the recurrent weights; ``ProbabilityModel/isValid`` checks their shapes against
    /// the model's.
    public init(weights: [Float], bias: [Float]) {
        self.weights = weights
        self.bias = bias
    }
}
