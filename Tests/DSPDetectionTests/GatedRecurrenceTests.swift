import DSPCore
@testable import DSPDetection
import Foundation
import Testing
import TestSupport

/// Recurrent (GRU) ``ProbabilityModel``s: the compiled step against the formula in the type's
/// documentation evaluated directly in Double, the state (per instance, reset), validation,
/// and a detector configured with recurrent models (chunking, reset).
@Suite struct GatedRecurrenceTests {
    /// A recurrent model with seeded small weights: `inputs` inputs (reading `lanes` when given),
    /// `hidden` units; means and scales as given, else random.
    static func model(
        inputs: Int, hidden: Int, lanes: [Int]? = nil, mean: [Float]? = nil, scale: [Float]? = nil, seed: UInt64
    ) -> ProbabilityModel {
        var g = SplitMix64(seed: seed)
        func values(_ count: Int, _ range: ClosedRange<Float>) -> [Float] { (0..<count).map { _ in Float.random(in: range, using: &g) } }
        let h3 = 3 * hidden
        return ProbabilityModel(
            inputCount: inputs, inputLanes: lanes, inputMean: mean ?? values(inputs, -2...2),
            inputScale: scale ?? values(inputs, 0.1...3),
            hiddenWeights: values(h3 * inputs, -0.6...0.6), hiddenBias: values(h3, -0.5...0.5),
            outputWeights: values(hidden, -1.5...1.5), outputBias: 0.2,
            recurrence: GatedRecurrence(weights: values(h3 * hidden, -0.6...0.6), bias: values(h3, -0.5...0.5)))
    }

    /// The probabilities of the model over `frames` (full lane vectors), from a zero state, in
    /// Double straight from the model's fields: standardisation unfolded, then
    /// `a = W_ih·z + b_ih`, `g = W_hh·h + b_hh`, `r = σ(a_r + g_r)`, `u = σ(a_z + g_z)`,
    /// `n = tanh(a_n + r·g_n)`, `h ← (1 − u)·n + u·h`, `p = σ(b + w·h)`; with an evaluation
    /// stride N, on every N-th frame from the first, the frames between holding the last value.
    static func reference(_ m: ProbabilityModel, _ frames: [[Float]]) -> [Double] {
        let n = m.inputCount, hidden = m.hiddenCount, rec = m.recurrence!
        func sigmoid(_ x: Double) -> Double { 1 / (1 + Foundation.exp(-x)) }
        var h = [Double](repeating: 0, count: hidden)
        let stride = m.evaluationStride
        let evaluated = Swift.stride(from: 0, to: frames.count, by: stride).map { frames[$0] }
        return evaluated.map { x in
            var a = [Double](repeating: 0, count: 3 * hidden), g = a
            for row in 0..<(3 * hidden) {
                var sum = Double(m.hiddenBias[row])
                for i in 0..<n {
                    let lane = m.inputLanes?[i] ?? i
                    let z = (Double(x[lane]) - Double(m.inputMean[i])) / Double(m.inputScale[i])
                    sum += Double(m.hiddenWeights[row * n + i]) * z
                }
                a[row] = sum
                var recurrent = Double(rec.bias[row])
                for k in 0..<hidden { recurrent += Double(rec.weights[row * hidden + k]) * h[k] }
                g[row] = recurrent
            }
            var next = h
            for j in 0..<hidden {
                let r = sigmoid(a[j] + g[j])
                let u = sigmoid(a[hidden + j] + g[hidden + j])
                let c = Foundation.tanh(a[2 * hidden + j] + r * g[2 * hidden + j])
                next[j] = (1 - u) * c + u * h[j]
            }
            h = next
            var logit = Double(m.outputBias)
            for j in 0..<hidden { logit += Double(m.outputWeights[j]) * h[j] }
            return sigmoid(logit)
        }.flatMap { [Double](repeating: $0, count: stride) }.prefix(frames.count).map { $0 }
    }

    /// `count` lane vectors around the model's standardisation (±3 scales), seeded.
    static func frames(_ m: ProbabilityModel, count: Int, seed: UInt64) -> [[Float]] {
        var g = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            var x = (0..<CueLane.count).map { _ in Float.random(in: -5...5, using: &g) }
            for i in 0..<m.inputCount {
                x[m.inputLanes?[i] ?? i] = m.inputMean[i] + m.inputScale[i] * Float.random(in: -3...3, using: &g)
            }
            return x
        }
    }

    /// The compiled model's probabilities, stepped over `frames`.
    static func run(_ compiled: CompiledModel, _ frames: [[Float]]) -> [Float] {
        frames.map { x in x.withUnsafeBufferPointer { compiled.probability($0.baseAddress!) } }
    }

    /// 37 distinct lanes out of order (none of the first 37 in sequence).
    static let scatteredLanes: [Int] = {
        var g = SplitMix64(seed: 99)
        return Array(Array(0..<CueLane.count).shuffled(using: &g).prefix(37))
    }()

    /// The shapes tested, by name (the test arguments; the models print too long): seeded ones
    /// and every shipped model that is recurrent (the music model since 2026-12-06).
    static let cases: [String: ProbabilityModel] = {
        var cases = [
            "13 inputs x 5 units": model(inputs: 13, hidden: 5, seed: 21),
            "37 scattered lanes x 24 units": model(inputs: 37, hidden: 24, lanes: scatteredLanes, seed: 22),
            "1 input x 1 unit": model(inputs: 1, hidden: 1, seed: 23),
        ]
        for (name, shipped) in [
            ("music", DefaultModels.music), ("speech", DefaultModels.speech),
            ("multiSpeaker", DefaultModels.multiSpeaker), ("standaloneSpeech", DefaultModels.standaloneSpeech),
        ] where shipped.recurrence != nil {
            cases["shipped \(name) model"] = shipped
        }
        return cases
    }()

    @Test("the compiled GRU follows the formula in Double over 200 frames", arguments: cases.keys.sorted())
    func matchesTheDoubleReference(_ name: String) {
        let model = Self.cases[name]!
        #expect(model.isValid)
        #expect(model.hiddenCount == model.hiddenBias.count / 3)
        let frames = Self.frames(model, count: 200, seed: 5)
        let compiled = CompiledModel(model)
        let got = Self.run(compiled, frames)
        let expected = Self.reference(model, frames)
        var worst: Double = 0
        for (p, q) in zip(got, expected) { worst = max(worst, abs(Double(p) - q)) }
        #expect(worst < 2e-5, "\(name): worst difference \(worst)")
        // The state matters: the sequence is not what 200 fresh models give.
        let fresh = frames.map { x in x.withUnsafeBufferPointer { CompiledModel(model).probability($0.baseAddress!) } }
        #expect(fresh != got, "\(name): the recurrence had no effect")
        // Not a degenerate test: the probabilities spread.
        #expect((got.max()! - got.min()!) > 0.05, "\(name): \(got.min()!)…\(got.max()!)")
    }

    @Test("the input rows of a GRU equal the Swift row loop bit for bit", arguments: cases.keys.sorted())
    func inputRowsMatchTheSwiftOrder(_ name: String) {
        let model = Self.cases[name]!
        let compiled = CompiledModel(model)
        for x in Self.frames(model, count: 20, seed: 8) {
            let evaluation = x.withUnsafeBufferPointer { compiled.evaluate($0.baseAddress!) }
            #expect(evaluation.preActivations.count == 3 * model.hiddenCount)
            for (j, pre) in evaluation.preActivations.enumerated() {
                let reference = compiled.referencePreActivation(j, inputs: evaluation.inputs)
                #expect(pre.bitPattern == reference.bitPattern, "\(name) row \(j): C \(pre) Swift \(reference)")
            }
        }
    }

    /// The gate update eight units at a time (`cdsp_exp` where the kernels run at x86-64-v3)
    /// against one unit at a time through ``CompiledModel/sigmoid(_:)`` and
    /// ``CompiledModel/tanh(_:)``, bit for bit: widths with and without a tail of fewer than eight
    /// units, values from small to saturating, and non-finite ones.
    @Test("the gate update equals the one-unit-at-a-time loop bit for bit", arguments: [32, 13, 8, 5, 1])
    func gateUpdateMatchesTheScalarLoop(units h: Int) {
        var generator = SplitMix64(seed: UInt64(h))
        let edges: [Float] = [0, -0.0, 9, -9, 9.5, 30, -30, 31, 1e30, -1e30, .leastNonzeroMagnitude, .infinity, -.infinity, .nan]
        var differing = 0
        for trial in 0..<300 {
            let spread: Float = trial < 150 ? 4 : 60
            func values(_ n: Int) -> [Float] { (0..<n).map { _ in Float.random(in: -spread...spread, using: &generator) } }
            var a = values(3 * h), g = values(3 * h)
            let s = (0..<h).map { _ in Float.random(in: -1...1, using: &generator) }
            if trial >= 250 {
                a[trial % (3 * h)] = edges[trial % edges.count]
                g[(trial * 7) % (3 * h)] = edges[(trial / 3) % edges.count]
            }
            // One unit at a time.
            var gates = [Float](repeating: 0, count: 2 * h), expected = [Float](repeating: 0, count: h)
            for j in 0..<(2 * h) { gates[j] = CompiledModel.sigmoid(a[j] + g[j]) }
            for j in 0..<h {
                let n = CompiledModel.tanh(a[2 * h + j] + gates[j] * g[2 * h + j])
                let u = gates[h + j]
                expected[j] = (1 - u) * n + u * s[j]
            }
            var next = [Float](repeating: 0, count: h), rows = a, scratch = [Float](repeating: 0, count: 3 * h)
            rows.withUnsafeMutableBufferPointer { rp in
                scratch.withUnsafeMutableBufferPointer { gp in
                    next.withUnsafeMutableBufferPointer { np in
                        CompiledModel.gatedUpdate(inputRows: rp.baseAddress!, recurrentRows: g, gates: gp.baseAddress!,
                                                  state: s, into: np.baseAddress!, count: h)
                    }
                }
            }
            // The gates written over the input rows themselves, as DetectionNetwork calls it.
            var aliased = a, nextAliased = [Float](repeating: 0, count: h)
            aliased.withUnsafeMutableBufferPointer { rp in
                nextAliased.withUnsafeMutableBufferPointer { np in
                    CompiledModel.gatedUpdate(inputRows: rp.baseAddress!, recurrentRows: g, gates: rp.baseAddress!,
                                              state: s, into: np.baseAddress!, count: h)
                }
            }
            func same(_ x: some Sequence<Float>, _ y: [Float]) -> Bool {
                zip(x, y).allSatisfy { $0.bitPattern == $1.bitPattern || ($0.isNaN && $1.isNaN) }
            }
            if !same(scratch.prefix(2 * h), gates) || !same(next, expected)
                || !same(aliased.prefix(2 * h), gates) || !same(nextAliased, expected) { differing += 1 }
        }
        #expect(differing == 0, "\(h) units: \(differing) of 300 updates differ from the scalar loop")
    }

    @Test func sigmoidIsCarefulAtTheEdges() {
        var worst: Double = 0
        var x: Float = -40
        while x <= 40 {
            worst = max(worst, abs(Double(CompiledModel.sigmoid(x)) - 1 / (1 + Foundation.exp(-Double(x)))))
            x += 0.0013
        }
        #expect(worst < 1e-6)
        #expect(CompiledModel.sigmoid(0) == 0.5)
        #expect(CompiledModel.sigmoid(.infinity) == 1 && CompiledModel.sigmoid(-.infinity) < 1e-12)
        #expect(CompiledModel.sigmoid(.nan).isNaN)
    }

    @Test("reset starts the sequence again; two instances share tables, not state")
    func stateIsPerInstance() {
        let model = Self.model(inputs: 13, hidden: 5, seed: 31)
        let frames = Self.frames(model, count: 60, seed: 6), other = Self.frames(model, count: 60, seed: 7)
        let a = CompiledModel(model), b = CompiledModel(model)
        #expect(a.sharesTables(with: b))
        let first = Self.run(a, frames)
        #expect(a.stateValues.contains { $0 != 0 })
        a.reset()
        #expect(a.stateValues == [Float](repeating: 0, count: 5))
        #expect(Self.run(a, frames) == first)
        // Interleaved: each instance gives what it gives alone.
        a.reset()
        let alone = Self.run(CompiledModel(model), other)
        var gotA: [Float] = [], gotB: [Float] = []
        for (x, y) in zip(frames, other) {
            gotA.append(x.withUnsafeBufferPointer { a.probability($0.baseAddress!) })
            gotB.append(y.withUnsafeBufferPointer { b.probability($0.baseAddress!) })
        }
        #expect(gotA == first)
        #expect(gotB == alone)
        // The state is owned (H floats); the tables shared; the step's scratch in the workspace.
        let m = a.memoryFootprint
        #expect(m.ownedBytes == 5 * MemoryLayout<Float>.stride)
        #expect(m.sharedBytes > 0 && m.sharedBytes == b.memoryFootprint.sharedBytes)
        #expect(m.workspaceBytes == a.workspaceBytes)
        // 64-byte slices, a batch of four vectors (the larger of a batch and one step): 4 × 13
        // inputs, 4 × 16 input rows, 4 × 16 gates, two pointer tables, 15 recurrent rows, 5 new
        // states.
        #expect(a.workspaceBytes == 16 * 64)
        // A feed-forward model owns nothing and has no state; reset leaves it as it was.
        let feedForward = CompiledModel(DefaultModels.speech)
        #expect(feedForward.memoryFootprint.ownedBytes == 0 && feedForward.stateValues.isEmpty)
    }

    @Test("a non-finite step gives 0 and leaves the state; extreme finite inputs keep it finite")
    func nonFiniteStepsLeaveTheState() {
        let model = Self.model(inputs: 13, hidden: 5, seed: 41)
        let compiled = CompiledModel(model)
        let frames = Self.frames(model, count: 30, seed: 9)
        _ = Self.run(compiled, Array(frames[..<10]))
        let before = compiled.stateValues
        var bad = frames[10]
        bad[3] = .nan
        #expect(bad.withUnsafeBufferPointer { compiled.probability($0.baseAddress!) } == 0)
        #expect(compiled.stateValues == before)
        // The rest of the sequence is what it is without the NaN frame.
        let skipped = Array(frames[..<10] + frames[11...])
        let expected = Self.run(CompiledModel(model), skipped)
        #expect(Self.run(compiled, Array(frames[11...])) == Array(expected[10...]))
        // Saturating inputs (±1e30, ±Inf): probabilities in 0…1, the state finite.
        for edge: Float in [1e30, -1e30, .infinity, -.infinity] {
            var x = frames[0]
            x[0] = edge
            let p = x.withUnsafeBufferPointer { compiled.probability($0.baseAddress!) }
            #expect(p >= 0 && p <= 1)
            #expect(compiled.stateValues.allSatisfy { $0.isFinite })
        }
    }

    @Test("bad shapes, non-finite values and zero units are rejected")
    func validation() {
        let good = Self.model(inputs: 6, hidden: 4, seed: 51)
        #expect(good.isValid)
        var broken: [(String, ProbabilityModel)] = []
        func variant(_ name: String, _ change: (inout ProbabilityModel) -> Void) {
            var m = good
            change(&m)
            broken.append((name, m))
        }
        variant("recurrent weights H x H") { $0.recurrence!.weights.removeLast(4 * 4 * 2) }
        variant("recurrent weights one short") { $0.recurrence!.weights.removeLast() }
        variant("recurrent bias H") { $0.recurrence!.bias.removeLast(8) }
        variant("hidden bias not 3H") { $0.hiddenBias.append(0) }
        variant("hidden weights H x n") { $0.hiddenWeights.removeLast(2 * 4 * 6) }
        variant("output weights 3H") { $0.outputWeights += [Float](repeating: 0, count: 8) }
        variant("output weights n") { $0.outputWeights = [Float](repeating: 0, count: 6) }
        variant("NaN recurrent weight") { $0.recurrence!.weights[7] = .nan }
        variant("infinite recurrent bias") { $0.recurrence!.bias[2] = .infinity }
        variant("NaN input weight") { $0.hiddenWeights[3] = .nan }
        variant("zero scale") { $0.inputScale[1] = 0 }
        variant("zero units") {
            $0.hiddenWeights = []; $0.hiddenBias = []; $0.outputWeights = []
            $0.recurrence = GatedRecurrence(weights: [], bias: [])
        }
        variant("zero units, logistic-regression shape") {
            $0.hiddenWeights = []; $0.hiddenBias = []; $0.outputWeights = [Float](repeating: 0.1, count: 6)
            $0.recurrence = GatedRecurrence(weights: [], bias: [])
        }
        for (name, model) in broken {
            #expect(!model.isValid, "\(name)")
            var c = AcousticDetector.Configuration()
            c.multiSpeakerModel = model
            #expect(throws: ConfigurationError.self, "\(name)") { try AcousticDetector(configuration: c) }
        }
        var c = AcousticDetector.Configuration()
        c.multiSpeakerModel = good
        #expect(throws: Never.self) { try AcousticDetector(configuration: c) }
        c.speechModel = broken[0].1
        do throws(ConfigurationError) {
            _ = try AcousticDetector(configuration: c)
            Issue.record("accepted a bad recurrent model")
        } catch {
            #expect(error.parameter == "speechModel" && error.value.contains("4 hidden (GRU)"), "\(error)")
        }
    }
}

/// A detector configured with recurrent models: the frames do not depend on the chunking, and
/// reset, flush and finalize start the next stream from a zero state.
@Suite struct RecurrentDetectorTests {
    /// Recurrent models with seeded weights over the default models' lanes and standardisation.
    static func configuration() -> AcousticDetector.Configuration {
        var c = AcousticDetector.Configuration()
        func recurrent(_ m: ProbabilityModel, hidden: Int, seed: UInt64) -> ProbabilityModel {
            GatedRecurrenceTests.model(
                inputs: m.inputCount, hidden: hidden, lanes: m.inputLanes, mean: m.inputMean, scale: m.inputScale, seed: seed)
        }
        c.speechModel = recurrent(DefaultModels.speech, hidden: 12, seed: 61)
        c.standaloneSpeechModel = recurrent(DefaultModels.standaloneSpeech, hidden: 12, seed: 62)
        c.musicModel = recurrent(DefaultModels.music, hidden: 9, seed: 63)
        c.multiSpeakerModel = recurrent(DefaultModels.multiSpeaker, hidden: 5, seed: 64)
        return c
    }

    /// Speech with overlapping talkers, a second of digital silence (the models do not step),
    /// then music: 7 s.
    static func signal() throws -> [Float] {
        let speech = try DetectionHarness.mono16k("speech_overlap_16k.wav")
        let music = try DetectionHarness.mono16k("music_piano_bass_drums_44k1.flac")
        return Array(speech[..<48_000]) + [Float](repeating: 0, count: 16_000) + Array(music[..<48_000])
    }

    @Test func resultsDoNotDependOnChunking() throws {
        let c = Self.configuration()
        let signal = try Self.signal()
        let detector = try AcousticDetector(configuration: c)
        let whole = DetectionHarness.run(detector, signal, chunks: [signal.count])
        #expect(whole.summary.frameCount == (signal.count + 255) / 256)
        // The recurrent models produce varied probabilities (the test is not vacuous).
        for k in 0..<3 {
            let ps = whole.probabilities.map { $0[k] }
            #expect(ps.max()! - ps.min()! > 0.05, "model \(k): \(ps.min()!)…\(ps.max()!)")
        }
        let random = Chunking.random.sizes(total: signal.count, seed: 17)
        for chunks in [[1024], [1], [100, 7, 3000], random] {
            let run = DetectionHarness.run(try AcousticDetector(configuration: c), signal, chunks: chunks)
            #expect(run == whole, "chunks \(chunks.prefix(3))")
        }
    }

    @Test func resetFlushAndFinalizeStartAFreshStream() throws {
        let c = Self.configuration()
        let signal = try Self.signal()
        let fresh = DetectionHarness.run(try AcousticDetector(configuration: c), signal, chunks: [1024])
        let detector = try AcousticDetector(configuration: c)
        // reset() after half a stream.
        signal.withUnsafeBufferPointer { detector.process(UnsafeBufferPointer(rebasing: $0[..<40_000])) { _ in } }
        detector.reset()
        #expect(DetectionHarness.run(detector, signal, chunks: [1024]) == fresh)
        // flush() (at the end of the run above) reset it: a second run is identical.
        #expect(DetectionHarness.run(detector, signal, chunks: [1024]) == fresh)
        // finalize() without a flush.
        signal.withUnsafeBufferPointer { detector.process(UnsafeBufferPointer(rebasing: $0[..<70_000])) { _ in } }
        _ = detector.finalize()
        #expect(DetectionHarness.run(detector, signal, chunks: [1024]) == fresh)
        // Voice activity alone (the standalone model) too.
        var alone = c
        alone.detectsMusic = false
        alone.detectsMultipleSpeakers = false
        let aloneFresh = DetectionHarness.run(try AcousticDetector(configuration: alone), signal, chunks: [1024])
        let aloneDetector = try AcousticDetector(configuration: alone)
        signal.withUnsafeBufferPointer { aloneDetector.process(UnsafeBufferPointer(rebasing: $0[..<50_000])) { _ in } }
        aloneDetector.reset()
        #expect(DetectionHarness.run(aloneDetector, signal, chunks: [1024]) == aloneFresh)
    }

    @Test func memoryCountsTheStatesAsOwned() throws {
        let recurrent = try AcousticDetector(configuration: Self.configuration())
        let shipped = try AcousticDetector()
        let states = (12 + 9 + 5) * MemoryLayout<Float>.stride
        // The shipped models' states (the music model is a GRU since 2026-12-06).
        let shippedStates = [DefaultModels.speech, DefaultModels.music, DefaultModels.multiSpeaker]
            .filter { $0.recurrence != nil }.map(\.hiddenCount).reduce(0, +) * MemoryLayout<Float>.stride
        // The lanes, analyzer and cues are the same; the models' owned bytes are their states.
        #expect(recurrent.memoryFootprint.ownedBytes == shipped.memoryFootprint.ownedBytes - shippedStates + states)
        #expect(recurrent.memoryFootprint.workspaceBytes == recurrent.workspaceBytes)
    }
}
