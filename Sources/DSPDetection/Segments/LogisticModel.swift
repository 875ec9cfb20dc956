#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A probability from up to eight cues: `p = 1 / (1 + e^−(bias + Σ wᵢ·xᵢ))`.
///
/// Each detector documents which cue sits in which lane of its feature vector; unused lanes
/// have weight 0. The defaults were fitted once by logistic regression on the development
/// corpus (`scripts/eval/`, `docs/detection.md`) and are fixed: nothing adapts per file.
@frozen
public struct LogisticModel: Equatable, Sendable {
    /// The intercept.
    public var bias: Float
    /// One weight per lane of the feature vector.
    public var weights: SIMD8<Float>

    /// Creates a model from its intercept and weights.
    @inlinable
    public init(bias: Float, weights: SIMD8<Float>) {
        self.bias = bias
        self.weights = weights
    }

    /// `bias + Σ wᵢ·xᵢ`.
    @inlinable
    public func logit(_ features: SIMD8<Float>) -> Float {
        bias + (weights * features).sum()
    }

    /// The probability for `features`, 0…1.
    @inlinable
    public func probability(_ features: SIMD8<Float>) -> Float {
        let z = max(-30, min(30, logit(features)))
        return 1 / (1 + expf(-z))
    }
}
