import DSPCore
@testable import DSPDetection
import Foundation
import Testing
import TestSupport

/// ``DetectionNetwork``: the compiled step against the formula in the type's documentation
/// evaluated directly in Double (convolutions with their zero padding, GRU, three outputs),
/// the state (windows and GRU per instance, reset), input handling, validation, and a detector
/// configured with a network (chunking, reset).
@Suite struct DetectionNetworkTests {
    /// A network with seeded small weights over `lanes`, convolutions of the given widths and
    /// channels, `hidden` GRU units.
    static func network(lanes: [Int], layers: [(width: Int, channels: Int)], hidden: Int, seed: UInt64) -> DetectionNetwork {
        var g = SplitMix64(seed: seed)
        func values(_ count: Int, _ range: ClosedRange<Float>) -> [Float] { (0..<count).map { _ in Float.random(in: range, using: &g) } }
        let n = lanes.count
        var inputs = n
        var convolutions: [DetectionNetwork.Convolution] = []
        for (width, channels) in layers {
            let bound = 1.5 / Float(width * inputs).squareRoot()
            convolutions.append(.init(width: width, outputCount: channels, weights: values(channels * width * inputs, -bound...bound),
                                      bias: values(channels, -0.2...0.3)))
            inputs = channels
        }
        let h3 = 3 * hidden
        let bound = 1.5 / Float(inputs).squareRoot()
        return DetectionNetwork(
            inputLanes: lanes, inputMean: values(n, -2...2), inputScale: values(n, 0.1...3), convolutions: convolutions,
            hiddenCount: hidden, recurrentInputWeights: values(h3 * inputs, -bound...bound), recurrentInputBias: values(h3, -0.5...0.5),
            recurrence: GatedRecurrence(weights: values(h3 * hidden, -0.6...0.6), bias: values(h3, -0.5...0.5)),
            outputWeights: values(3 * hidden, -1.5...1.5), outputBias: [0.2, -0.1, 0.05])
    }

    /// The probabilities over `frames` (full lane vectors) from a fresh stream, in Double straight
    /// from the network's fields: standardise, each convolution over its zero-padded history of
    /// standardised inputs (`[o][j][i]` weights, oldest frame first) then `max(0, ·)`, the GRU,
    /// three logistic outputs.
    static func reference(_ m: DetectionNetwork, _ frames: [[Float]]) -> [[Double]] {
        func sigmoid(_ x: Double) -> Double { 1 / (1 + Foundation.exp(-x)) }
        let n = m.inputCount, hidden = m.hiddenCount
        // Each layer's input history, newest last.
        var histories: [[[Double]]] = m.convolutions.map { _ in [] }
        var h = [Double](repeating: 0, count: hidden)
        return frames.map { x in
            var y = (0..<n).map { i in (Double(x[m.inputLanes[i]]) - Double(m.inputMean[i])) / Double(m.inputScale[i]) }
            for (l, c) in m.convolutions.enumerated() {
                histories[l].append(y)
                let inputs = y.count
                var out = [Double](repeating: 0, count: c.outputCount)
                for o in 0..<c.outputCount {
                    var sum = Double(c.bias[o])
                    for j in 0..<c.width {
                        let back = c.width - 1 - j   // frames before the current one
                        guard histories[l].count > back else { continue }   // zero padding
                        let frame = histories[l][histories[l].count - 1 - back]
                        for i in 0..<inputs { sum += Double(c.weights[(o * c.width + j) * inputs + i]) * frame[i] }
                    }
                    out[o] = max(0, sum)
                }
                y = out
            }
            let inputs = y.count
            var a = [Double](repeating: 0, count: 3 * hidden), g = a
            for row in 0..<(3 * hidden) {
                var sum = Double(m.recurrentInputBias[row])
                for i in 0..<inputs { sum += Double(m.recurrentInputWeights[row * inputs + i]) * y[i] }
                a[row] = sum
                var recurrent = Double(m.recurrence.bias[row])
                for k in 0..<hidden { recurrent += Double(m.recurrence.weights[row * hidden + k]) * h[k] }
                g[row] = recurrent
            }
            var next = h
            for j in 0..<hidden {
                let r = sigmoid(a[j] + g[j]), u = sigmoid(a[hidden + j] + g[hidden + j])
                let c = Foundation.tanh(a[2 * hidden + j] + r * g[2 * hidden + j])
                next[j] = (1 - u) * c + u * h[j]
            }
            h = next
            return (0..<3).map { t in
                var logit = Double(m.outputBias[t])
                for j in 0..<hidden { logit += Double(m.outputWeights[t * hidden + j]) * h[j] }
                return sigmoid(logit)
            }
        }
    }

    /// `count` lane vectors around the network's standardisation (±3 scales), seeded.
    static func frames(_ m: DetectionNetwork, count: Int, seed: UInt64) -> [[Float]] {
        var g = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            var x = (0..<CueLane.count).map { _ in Float.random(in: -5...5, using: &g) }
            for i in 0..<m.inputCount { x[m.inputLanes[i]] = m.inputMean[i] + m.inputScale[i] * Float.random(in: -3...3, using: &g) }
            return x
        }
    }

    /// The compiled network's probabilities, stepped over `frames`.
    static func run(_ compiled: CompiledNetwork, _ frames: [[Float]]) -> [[Float]] {
        frames.map { x in
            var p = [Float](repeating: -1, count: 3)
            x.withUnsafeBufferPointer { xs in p.withUnsafeMutableBufferPointer { compiled.step(xs.baseAddress!, into: $0.baseAddress!) } }
            return p
        }
    }

    /// 29 distinct lanes out of order, no probability lane.
    static let scatteredLanes: [Int] = {
        var g = SplitMix64(seed: 77)
        let allowed = (0..<CueLane.count).filter { $0 != CueLane.musicProbability.rawValue && $0 != CueLane.speechProbability.rawValue }
        return Array(allowed.shuffled(using: &g).prefix(29))
    }()

    /// The shapes tested, by name.
    static let cases: [String: DetectionNetwork] = [
        "29 scattered lanes, convolutions 5x16 and 3x12, 10 units": network(
            lanes: scatteredLanes, layers: [(5, 16), (3, 12)], hidden: 10, seed: 11),
        "83 lanes, convolution 4x24, 17 units": network(
            lanes: Array(0..<43) + Array(45..<85), layers: [(4, 24)], hidden: 17, seed: 12),
        "3 lanes, no convolution, 1 unit": network(lanes: [0, 7, 60], layers: [], hidden: 1, seed: 13),
        "2 lanes, convolution 1x1, 2 units": network(lanes: [5, 3], layers: [(1, 1)], hidden: 2, seed: 14),
    ]

    @Test("the compiled network follows the formula in Double over 120 frames", arguments: cases.keys.sorted())
    func matchesTheDoubleReference(_ name: String) {
        let network = Self.cases[name]!
        #expect(network.isValid)
        let frames = Self.frames(network, count: 120, seed: 5)
        let got = Self.run(CompiledNetwork(network), frames)
        let expected = Self.reference(network, frames)
        var worst: Double = 0
        for (p, q) in zip(got, expected) {
            for t in 0..<3 { worst = max(worst, abs(Double(p[t]) - q[t])) }
        }
        #expect(worst < 2e-5, "\(name): worst difference \(worst)")
        // Not a degenerate test: each output spreads, and the history matters.
        for t in 0..<3 {
            let column = got.map { $0[t] }
            #expect(column.max()! - column.min()! > 0.02, "\(name) output \(t): \(column.min()!)…\(column.max()!)")
        }
        let fresh = frames.map { Self.run(CompiledNetwork(network), [$0])[0] }
        #expect(fresh != got, "\(name): the state had no effect")
    }

    @Test("reset starts the stream again; instances share tables, not windows or state")
    func stateIsPerInstance() {
        let network = Self.cases["29 scattered lanes, convolutions 5x16 and 3x12, 10 units"]!
        let frames = Self.frames(network, count: 40, seed: 6), other = Self.frames(network, count: 40, seed: 7)
        let a = CompiledNetwork(network), b = CompiledNetwork(network)
        let first = Self.run(a, frames)
        #expect(a.stateValues.contains { $0 != 0 })
        a.reset()
        #expect(a.stateValues.allSatisfy { $0 == 0 })
        #expect(Self.run(a, frames) == first)
        a.reset()
        let alone = Self.run(CompiledNetwork(network), other)
        var gotA: [[Float]] = [], gotB: [[Float]] = []
        for (x, y) in zip(frames, other) {
            gotA += Self.run(a, [x])
            gotB += Self.run(b, [y])
        }
        #expect(gotA == first)
        #expect(gotB == alone)
        let m = a.memoryFootprint
        #expect(m.sharedBytes > 0 && m.sharedBytes == b.memoryFootprint.sharedBytes)
        // Owned: the running sums of the outputs still to come ((5 − 1)·16 and (3 − 1)·12 floats)
        // and the GRU state (10 floats).
        #expect(m.ownedBytes == ((5 - 1) * 16 + (3 - 1) * 12 + 10) * 4)
        #expect(m.workspaceBytes == a.workspaceBytes && a.workspaceBytes > 0)
    }

    @Test("frames stepped together give bit for bit what one at a time gives", arguments: cases.keys.sorted())
    func batchesMatchSingleSteps(_ name: String) {
        let network = Self.cases[name]!
        let frames = Self.frames(network, count: 90, seed: 21)
        let single = Self.run(CompiledNetwork(network), frames)
        var rng = SplitMix64(seed: 22)
        let batched = CompiledNetwork(network)
        var got: [[Float]] = []
        var offset = 0
        while offset < frames.count {
            let count = min(frames.count - offset, 1 + Int(rng.next() % UInt64(CompiledNetwork.batchLimit)))
            var block = frames[offset..<(offset + count)].flatMap { $0 }   // CueLane.count lanes per frame
            var p = [Float](repeating: -1, count: 3 * count)
            block.withUnsafeMutableBufferPointer { lanes in
                let pointers = (0..<count).map { lanes.baseAddress! + $0 * CueLane.count }
                pointers.withUnsafeBufferPointer { x in p.withUnsafeMutableBufferPointer { batched.steps(x.baseAddress!, count: count, into: $0.baseAddress!) } }
            }
            for k in 0..<count { got.append(Array(p[(3 * k)..<(3 * k + 3)])) }
            offset += count
        }
        #expect(got.map { $0.map(\.bitPattern) } == single.map { $0.map(\.bitPattern) })
    }

    @Test("non-finite inputs read as 0, huge ones are clamped; the outputs stay probabilities")
    func inputsAreSanitised() {
        let network = Self.cases["3 lanes, no convolution, 1 unit"]!
        let frames = Self.frames(network, count: 10, seed: 9)
        var zeroed = frames[4], nan = frames[4]
        zeroed[network.inputLanes[0]] = 0
        nan[network.inputLanes[0]] = .nan
        let history = Array(frames[..<4])
        #expect(Self.run(CompiledNetwork(network), history + [nan]) == Self.run(CompiledNetwork(network), history + [zeroed]))
        // +Inf reads as 0 too; 1e12 as the limit.
        var limit = frames[4], infinite = frames[4], huge = frames[4], zero = frames[4]
        limit[network.inputLanes[1]] = CompiledNetwork.inputLimit
        infinite[network.inputLanes[1]] = .infinity
        huge[network.inputLanes[1]] = 1e12
        zero[network.inputLanes[1]] = 0
        #expect(Self.run(CompiledNetwork(network), history + [infinite]) == Self.run(CompiledNetwork(network), history + [zero]))
        #expect(Self.run(CompiledNetwork(network), history + [huge]) == Self.run(CompiledNetwork(network), history + [limit]))
        #expect(Self.run(CompiledNetwork(network), history + [huge]) != Self.run(CompiledNetwork(network), history + [zero]))
        for edge: Float in [1e30, -1e30, .infinity, -.infinity, .nan] {
            let compiled = CompiledNetwork(network)
            var x = frames[0]
            for lane in network.inputLanes { x[lane] = edge }
            let p = Self.run(compiled, [x, frames[1]])
            #expect(p.allSatisfy { $0.allSatisfy { $0 >= 0 && $0 <= 1 } }, "\(edge): \(p)")
            #expect(compiled.stateValues.allSatisfy { $0.isFinite })
        }
    }

    @Test("bad shapes, non-finite values and probability lanes are rejected, by the detector too")
    func validation() throws {
        let good = Self.cases["29 scattered lanes, convolutions 5x16 and 3x12, 10 units"]!
        #expect(good.isValid)
        var bad: [String: DetectionNetwork] = [:]
        var m = good; m.inputLanes.append(CueLane.speechProbability.rawValue); m.inputMean.append(0); m.inputScale.append(1)
        bad["reads a probability"] = m
        m = good; m.inputScale[0] = 0; bad["zero scale"] = m
        m = good; m.inputMean.removeLast(); bad["short mean"] = m
        m = good; m.convolutions[0].width = 4; bad["width disagrees with the weights"] = m
        m = good; m.convolutions[1].bias[0] = .nan; bad["NaN bias"] = m
        m = good; m.hiddenCount = 0; bad["no units"] = m
        m = good; m.outputBias = [0, 0]; bad["two outputs"] = m
        m = good; m.recurrence.weights.removeLast(); bad["short recurrence"] = m
        m = good; m.inputLanes[0] = CueLane.count; bad["lane past the end"] = m
        for (name, network) in bad {
            #expect(!network.isValid, "\(name)")
            var c = AcousticDetector.Configuration()
            c.network = network
            #expect(throws: ConfigurationError.self, "\(name)") { _ = try AcousticDetector(configuration: c) }
        }
        #expect(good.multiplyAdds == 16 * 5 * 29 + 12 * 3 * 16 + 3 * 10 * (12 + 10) + 30)
    }

    @Test("a detector with a network: chunking, flush and reset change nothing; the network is what decides")
    func detectorWithANetwork() throws {
        let signal = try DetectionHarness.mono16k("speech_overlap_16k.wav")
        var c = AcousticDetector.Configuration()
        c.network = Self.cases["83 lanes, convolution 4x24, 17 units"]!
        let detector = try AcousticDetector(configuration: c)
        let whole = DetectionHarness.run(detector, signal, chunks: [signal.count])
        var rng = SplitMix64(seed: 8)
        let random = (0..<64).map { _ in 1 + Int(rng.next() % 4096) }
        for chunks in [[1024], [100, 7, 3000], random] {
            #expect(DetectionHarness.run(detector, signal, chunks: chunks) == whole, "chunks \(chunks.prefix(3))")
        }
        signal.withUnsafeBufferPointer { detector.process(UnsafeBufferPointer(rebasing: $0[..<40_000])) { _ in } }
        detector.reset()
        #expect(DetectionHarness.run(detector, signal, chunks: [1024]) == whole)
        // The probabilities are the network's, not the default models'.
        let models = DetectionHarness.run(try AcousticDetector(), signal, chunks: [1024])
        #expect(models.probabilities != whole.probabilities)
        // Every probability is one; silent frames (the file's lead-in) stay at 0.
        #expect(whole.probabilities.allSatisfy { $0.allSatisfy { $0 >= 0 && $0 <= 1 } })
        // Multiple speakers off: their probability is 0, the others unchanged.
        c.detectsMultipleSpeakers = false
        let single = DetectionHarness.run(try AcousticDetector(configuration: c), signal, chunks: [1024])
        #expect(single.probabilities.map { Array($0[..<2]) } == whole.probabilities.map { Array($0[..<2]) })
        #expect(single.probabilities.allSatisfy { $0[2] == 0 })
    }

    /// `Goldens/network-reference.json`: a small network trained by `train_network.py` (its
    /// ``DetectionNetwork`` fields as `--export` writes them), 96 audible frames of
    /// `TestAudio/speech_overlap_16k.wav`'s cue vectors (as `dspbench detect --frames` prints
    /// them) and the probabilities PyTorch gives for them from a fresh stream. Made by the command
    /// in its `made_by` field (in `scripts/detect/train_network.py`'s docstring).
    struct Reference: Decodable {
        let network: DetectionNetwork
        let lanes: [[Float]]
        let probabilities: [[Double]]
    }

    /// The reference frames as ``CueLane/count`` lanes: recorded with the 85 lanes of 2026-11-29
    /// (a reference made since holds 86), so lane 85 (``CueLane/streamSeconds``, which the
    /// reference network does not read) is filled in as 0 where it is missing.
    static func frames(_ reference: Reference) -> [[Float]] {
        reference.lanes.map { $0 + [Float](repeating: 0, count: max(0, CueLane.count - $0.count)) }
    }

    static func worstDifference(_ network: DetectionNetwork, _ reference: Reference) -> Double {
        let got = run(CompiledNetwork(network), frames(reference))
        var worst: Double = 0
        for (p, q) in zip(got, reference.probabilities) {
            for t in 0..<3 { worst = max(worst, abs(Double(p[t]) - q[t])) }
        }
        return worst
    }

    @Test("a network exported from PyTorch gives PyTorch's probabilities (within 1e-4) on TestAudio frames")
    func exportedNetworkMatchesPyTorch() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Goldens/network-reference.json")
        let reference = try JSONDecoder().decode(Reference.self, from: Data(contentsOf: url))
        let network = reference.network
        #expect(network.isValid && network.convolutions.count == 2)
        #expect(reference.lanes.count == 96 && reference.lanes.allSatisfy { (CueLane.streamSeconds.rawValue...CueLane.count).contains($0.count) })
        #expect(network.inputLanes.allSatisfy { $0 < CueLane.streamSeconds.rawValue })
        // Float32 on both sides, summed in different orders over 96 recurrent steps.
        let worst = Self.worstDifference(network, reference)
        #expect(worst < 1e-4, "worst difference \(worst)")
        // The comparison can fail: the first convolution's weights read in PyTorch's own order
        // ([out][in][k], not [out][k][in]) miss by far more.
        var misread = network
        let c = network.convolutions[0], inputs = network.inputCount
        for o in 0..<c.outputCount {
            for j in 0..<c.width {
                for i in 0..<inputs {
                    misread.convolutions[0].weights[(o * c.width + j) * inputs + i] = c.weights[(o * inputs + i) * c.width + j]
                }
            }
        }
        #expect(Self.worstDifference(misread, reference) > 1e-3)
        // So do the outputs in PyTorch's head order (speech, music, several talkers).
        var swapped = network
        let h = network.hiddenCount
        swapped.outputWeights = Array(network.outputWeights[h..<(2 * h)] + network.outputWeights[..<h] + network.outputWeights[(2 * h)...])
        swapped.outputBias = [network.outputBias[1], network.outputBias[0], network.outputBias[2]]
        #expect(Self.worstDifference(swapped, reference) > 1e-3)
    }
}
