@testable import DSPDetection
import Foundation
import Testing

/// The compiled models against the formula in ``ProbabilityModel``'s documentation, evaluated
/// directly in Double with Foundation's `tanh`.
@Suite struct ProbabilityModelTests {
    /// `p = σ(b₂ + Σⱼ w₂ⱼ · tanh(b₁ⱼ + Σᵢ W₁ⱼᵢ · (x_lane(i) − meanᵢ) / scaleᵢ))`.
    static func reference(_ m: ProbabilityModel, _ x: [Float]) -> Double {
        let n = m.inputCount
        var z = Double(m.outputBias)
        for j in 0..<m.hiddenCount {
            var a = Double(m.hiddenBias[j])
            for i in 0..<n {
                let lane = m.inputLanes?[i] ?? i
                a += Double(m.hiddenWeights[j * n + i]) * (Double(x[lane]) - Double(m.inputMean[i])) / Double(m.inputScale[i])
            }
            z += Double(m.outputWeights[j]) * Foundation.tanh(a)
        }
        return 1 / (1 + Foundation.exp(-z))
    }

    @Test func fastTanhIsWithinOneMillionth() {
        var worst: Double = 0
        var x: Float = -12
        while x <= 12 {
            worst = max(worst, abs(Double(CompiledModel.tanh(x)) - Foundation.tanh(Double(x))))
            x += 0.0007
        }
        #expect(worst < 1e-6)
        #expect(CompiledModel.tanh(0) == 0)
        #expect(CompiledModel.tanh(.infinity) == 1 && CompiledModel.tanh(-.infinity) == -1)
        #expect(CompiledModel.tanh(.nan).isNaN)
    }

    @Test(arguments: [("music", DefaultModels.music), ("speech", DefaultModels.speech),
                      ("multiSpeaker", DefaultModels.multiSpeaker), ("standaloneSpeech", DefaultModels.standaloneSpeech)])
    func compiledModelMatchesTheFormula(_ name: String, _ model: ProbabilityModel) {
        let compiled = CompiledModel(model)
        var generator = SplitMix(seed: 42)
        var worst: Double = 0
        for _ in 0..<200 {
            // Inputs around the training distribution, some far outside it.
            let x = (0..<CueLane.count).map { i -> Float in
                let mean = model.inputMean[min(i, model.inputCount - 1)]
                let scale = model.inputScale[min(i, model.inputCount - 1)]
                return mean + scale * Float.random(in: -4...4, using: &generator)
            }
            let p = x.withUnsafeBufferPointer { compiled.probability($0.baseAddress!) }
            worst = max(worst, abs(Double(p) - Self.reference(model, x)))
        }
        #expect(worst < 1e-4, "\(name): worst difference \(worst)")
    }

    @Test func nonFiniteInputGivesZero() {
        let compiled = CompiledModel(DefaultModels.speech)
        var x = DefaultModels.multiSpeaker.inputMean
        x[3] = .nan
        #expect(x.withUnsafeBufferPointer { compiled.probability($0.baseAddress!) } == 0)
    }
}
