@testable import DSPDetection
import Foundation
import Testing
import TestSupport

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

    @Test(arguments: Self.feedForwardDefaults)
    func compiledModelMatchesTheFormula(_ name: String, _ model: ProbabilityModel) {
        let compiled = CompiledModel(model)
        var generator = SplitMix64(seed: 42)
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

    /// A model of the given shape with seeded weights (for shapes the defaults do not have).
    static func model(inputs: Int, hidden: Int, seed: UInt64) -> ProbabilityModel {
        var g = SplitMix64(seed: seed)
        func values(_ count: Int, _ range: ClosedRange<Float>) -> [Float] { (0..<count).map { _ in Float.random(in: range, using: &g) } }
        return ProbabilityModel(
            inputCount: inputs, inputMean: values(inputs, -2...2), inputScale: values(inputs, 0.1...3),
            hiddenWeights: values(hidden * inputs, -2...2), hiddenBias: values(hidden, -1...1),
            outputWeights: values(hidden == 0 ? inputs : hidden, -2...2), outputBias: 0.3)
    }

    @Test("the C first layer equals the Swift row loop bit for bit",
          arguments: [("music", DefaultModels.music), ("speech", DefaultModels.speech),
                      ("multiSpeaker", DefaultModels.multiSpeaker), ("standaloneSpeech", DefaultModels.standaloneSpeech),
                      ("5 inputs x 3 hidden", Self.model(inputs: 5, hidden: 3, seed: 1)),
                      ("3 inputs x 17 hidden", Self.model(inputs: 3, hidden: 17, seed: 2)),
                      ("7 inputs, no hidden layer", Self.model(inputs: 7, hidden: 0, seed: 3)),
                      ("1 input x 8 hidden", Self.model(inputs: 1, hidden: 8, seed: 4))])
    func firstLayerMatchesTheSwiftOrder(_ name: String, _ model: ProbabilityModel) {
        #expect(model.isValid)
        let compiled = CompiledModel(model)
        var generator = SplitMix64(seed: 7)
        let edges: [Float] = [0, -0.0, 1e30, -1e30, .leastNonzeroMagnitude, .infinity, .nan]
        for trial in 0..<300 {
            var x = (0..<CueLane.count).map { _ in Float.random(in: -40...40, using: &generator) }
            if trial >= 250 { x[trial % CueLane.count] = edges[trial % edges.count] }
            let evaluation = x.withUnsafeBufferPointer { compiled.evaluate($0.baseAddress!) }
            let pre = evaluation.preActivations
            for j in 0..<pre.count {
                let reference = compiled.referencePreActivation(j, inputs: evaluation.inputs)
                #expect(pre[j].bitPattern == reference.bitPattern || (pre[j].isNaN && reference.isNaN),
                        "\(name) trial \(trial) row \(j): C \(pre[j]) Swift \(reference)")
            }
        }
    }

    /// The shipped models with a feed-forward hidden layer (a recurrent one, the music model
    /// since 2026-12-06, is held to its formula by `GatedRecurrenceTests`).
    static let feedForwardDefaults: [(String, ProbabilityModel)] = [
        ("music", DefaultModels.music), ("speech", DefaultModels.speech),
        ("multiSpeaker", DefaultModels.multiSpeaker), ("standaloneSpeech", DefaultModels.standaloneSpeech),
    ].filter { $0.1.recurrence == nil }

    @Test("the vectorised hidden layer equals the one-unit-at-a-time tanh loop bit for bit",
          arguments: Self.feedForwardDefaults + [
                      ("5 inputs x 3 hidden", Self.model(inputs: 5, hidden: 3, seed: 1)),
                      ("3 inputs x 17 hidden", Self.model(inputs: 3, hidden: 17, seed: 2)),
                      ("7 inputs, no hidden layer", Self.model(inputs: 7, hidden: 0, seed: 3)),
                      ("1 input x 8 hidden", Self.model(inputs: 1, hidden: 8, seed: 4))])
    func hiddenLayerMatchesTheScalarLoop(_ name: String, _ model: ProbabilityModel) {
        let compiled = CompiledModel(model)
        var generator = SplitMix64(seed: 11)
        // Pre-activations from small to saturating (|x| > 9 is clamped), and non-finite ones.
        let edges: [Float] = [0, -0.0, 9, -9, 9.5, 1e30, -1e30, .leastNonzeroMagnitude, .infinity, -.infinity, .nan]
        var differing = 0
        for trial in 0..<400 {
            let spread: Float = trial < 200 ? 4 : 400
            var x = (0..<CueLane.count).map { _ in Float.random(in: -spread...spread, using: &generator) }
            if trial >= 350 { x[trial % CueLane.count] = edges[trial % edges.count] }
            let p = x.withUnsafeBufferPointer { compiled.probability($0.baseAddress!) }
            let evaluation = x.withUnsafeBufferPointer { compiled.evaluate($0.baseAddress!) }
            let reference = compiled.referenceProbability(preActivations: evaluation.preActivations)
            if p.bitPattern != reference.bitPattern || evaluation.probability.bitPattern != p.bitPattern { differing += 1 }
        }
        #expect(differing == 0, "\(name): \(differing) of 400 probabilities differ from the scalar loop")
    }

    @Test("a batch of one to four vectors gives each vector's own probability bit for bit",
          arguments: [("music", DefaultModels.music), ("speech", DefaultModels.speech),
                      ("multiSpeaker", DefaultModels.multiSpeaker), ("standaloneSpeech", DefaultModels.standaloneSpeech),
                      ("3 inputs x 17 hidden", Self.model(inputs: 3, hidden: 17, seed: 2)),
                      ("5 inputs x 3 hidden", Self.model(inputs: 5, hidden: 3, seed: 1)),
                      ("7 inputs, no hidden layer", Self.model(inputs: 7, hidden: 0, seed: 3)),
                      ("GRU, 13 inputs x 5 hidden", GatedRecurrenceTests.model(inputs: 13, hidden: 5, seed: 9)),
                      ("GRU, 40 inputs x 32 hidden", GatedRecurrenceTests.model(inputs: 40, hidden: 32, seed: 10))])
    func batchMatchesSingleCalls(_ name: String, _ model: ProbabilityModel) {
        // Two instances: one fed in batches of 1, 2, 3 and 4 vectors in turn, one a vector at a
        // time (a GRU's state runs through both the same way).
        let batched = CompiledModel(model), single = CompiledModel(model)
        var generator = SplitMix64(seed: 13)
        let edges: [Float] = [0, -0.0, 1e30, -1e30, .infinity, -.infinity, .nan]
        var vectors: [[Float]] = []
        for trial in 0..<300 {
            let spread: Float = trial < 150 ? 4 : 400
            var x = (0..<CueLane.count).map { _ in Float.random(in: -spread...spread, using: &generator) }
            if trial >= 250 { x[trial % CueLane.count] = edges[trial % edges.count] }
            vectors.append(x)
        }
        let expected = vectors.map { x in x.withUnsafeBufferPointer { single.probability($0.baseAddress!) } }
        var got: [Float] = []
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: 4 * CueLane.count)
        let table = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 4)
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 4)
        defer { storage.deallocate(); table.deallocate(); out.deallocate() }
        var index = 0, size = 1
        while index < vectors.count {
            let count = min(size, vectors.count - index)
            for k in 0..<count {
                (storage + k * CueLane.count).update(from: vectors[index + k], count: CueLane.count)
                table[k] = storage + k * CueLane.count
            }
            batched.probabilities(table, count: count, into: out)
            got += (0..<count).map { out[$0] }
            index += count
            size = size % 4 + 1
        }
        let differing = zip(got, expected).filter { $0.bitPattern != $1.bitPattern }.count
        #expect(differing == 0, "\(name): \(differing) of 300 probabilities differ from one call per vector")
        #expect(batched.stateValues.map(\.bitPattern) == single.stateValues.map(\.bitPattern))
    }

    /// A full lane vector (``CueLane/count`` lanes) holding `values[i]` in the lane input `i` reads.
    static func lanes(_ m: ProbabilityModel, _ values: [Float]) -> [Float] {
        var x = [Float](repeating: 0, count: CueLane.count)
        for i in 0..<m.inputCount { x[m.inputLanes?[i] ?? i] = values[i] }
        return x
    }

    @Test func nonFiniteInputGivesZero() {
        let compiled = CompiledModel(DefaultModels.speech)
        var x = Self.lanes(DefaultModels.speech, DefaultModels.speech.inputMean)
        x[3] = .nan
        #expect(x.withUnsafeBufferPointer { compiled.probability($0.baseAddress!) } == 0)
    }

    @Test("one copy of a model's tables per model: shared by every instance, independent scratch, freed with the last holder")
    func tablesAreShared() throws {
        var modified = DefaultModels.speech   // feed-forward: `reference` below is its formula
        modified.outputBias += 0.25  // a model no other test builds, so the cache's count is this test's
        var a: CompiledModel? = CompiledModel(modified)
        var b: CompiledModel! = CompiledModel(modified)
        let other = CompiledModel(DefaultModels.multiSpeaker)
        #expect(a!.sharesTables(with: b))
        #expect(!a!.sharesTables(with: other))
        #expect(a!.memoryFootprint.sharedBytes > 0 && a!.memoryFootprint.sharedBytes == b.memoryFootprint.sharedBytes)
        #expect(a!.memoryFootprint.ownedBytes < a!.memoryFootprint.sharedBytes)
        // Scratch is per instance: interleaved evaluations give each input's own answer.
        let x1 = Self.lanes(modified, modified.inputMean), x2 = Self.lanes(modified, modified.inputMean.map { $0 + 1 })
        let p1 = x1.withUnsafeBufferPointer { a!.probability($0.baseAddress!) }
        let p2 = x2.withUnsafeBufferPointer { b.probability($0.baseAddress!) }
        #expect(abs(Double(p1) - Self.reference(modified, x1)) < 1e-5)
        #expect(abs(Double(p2) - Self.reference(modified, x2)) < 1e-5)
        // Freed when the last holder goes; built afresh (equal values) when asked again.
        a = nil
        let cache = CompiledModel.cache
        #expect(cache.isLive(modified))
        b = nil
        #expect(!cache.isLive(modified))
        let c = CompiledModel(modified)
        #expect(x1.withUnsafeBufferPointer { c.probability($0.baseAddress!) } == p1)
    }

    @Test("detectors built on 8 threads at once share one copy of each model")
    func concurrentBuildsShare() {
        // Each thread keeps its model alive in its own slot until all are compared.
        // (Distinct elements of one buffer allocated up front: no shared array to mutate.)
        final class Slots: @unchecked Sendable {
            let models = UnsafeMutableBufferPointer<CompiledModel?>.allocate(capacity: 8)
            init() { models.initialize(repeating: nil) }
            deinit { models.deinitialize(); models.deallocate() }
        }
        let slots = Slots()
        DispatchQueue.concurrentPerform(iterations: 8) { i in slots.models[i] = CompiledModel(DefaultModels.multiSpeaker) }
        let models = slots.models.compactMap { $0 }
        #expect(models.count == 8)
        #expect(models.allSatisfy { $0.sharesTables(with: models[0]) })
    }
}
