import DSPCore
@testable import DSPDetection
import Testing
import TestSupport

/// ``ProbabilityModel/evaluationStride``: a model evaluated on every stride-th frame it is
/// given, its probability held between, its state stepping only when evaluated — one call at a
/// time, in batches of any split, after a reset, in a detector whatever the chunking.
@Suite struct EvaluationStrideTests {
    /// A seeded GRU (``GatedRecurrenceTests/model(inputs:hidden:lanes:mean:scale:seed:)``) at `stride`.
    static func recurrent(stride: Int, seed: UInt64 = 71) -> ProbabilityModel {
        var m = GatedRecurrenceTests.model(inputs: 13, hidden: 6, seed: seed)
        m.evaluationStride = stride
        return m
    }

    /// A seeded feed-forward model at `stride`.
    static func feedForward(stride: Int) -> ProbabilityModel {
        var m = ProbabilityModelTests.model(inputs: 9, hidden: 5, seed: 72)
        m.evaluationStride = stride
        return m
    }

    /// The probabilities of `model` at stride 1 over every `stride`-th frame, each repeated
    /// `stride` times and cut to the frames' count: what the strided model must give.
    static func expected(_ model: ProbabilityModel, stride: Int, _ frames: [[Float]]) -> [Float] {
        var plain = model
        plain.evaluationStride = 1
        let compiled = CompiledModel(plain)
        let evaluated = GatedRecurrenceTests.run(compiled, Swift.stride(from: 0, to: frames.count, by: stride).map { frames[$0] })
        return Array(evaluated.flatMap { [Float](repeating: $0, count: stride) }.prefix(frames.count))
    }

    /// `frames` through `compiled` in batches of the given sizes (cycled), four at most.
    static func batched(_ compiled: CompiledModel, _ frames: [[Float]], sizes: [Int]) -> [Float] {
        let lanes = CueLane.count
        let block = UnsafeMutablePointer<Float>.allocate(capacity: CompiledModel.batchLimit * lanes)
        let pointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: CompiledModel.batchLimit)
        let p = UnsafeMutablePointer<Float>.allocate(capacity: CompiledModel.batchLimit)
        defer { block.deallocate(); pointers.deallocate(); p.deallocate() }
        var out: [Float] = [], start = 0, s = 0
        while start < frames.count {
            let n = min(sizes[s % sizes.count], frames.count - start)
            s += 1
            for k in 0..<n {
                (block + k * lanes).update(from: frames[start + k], count: lanes)
                pointers[k] = block + k * lanes
            }
            compiled.probabilities(pointers, count: n, into: p)
            out += (0..<n).map { p[$0] }
            start += n
        }
        return out
    }

    @Test("a strided model gives its stride-1 probabilities on every stride-th frame, held between",
          arguments: [("GRU", 2), ("GRU", 3), ("GRU", 16), ("feed-forward", 2), ("feed-forward", 5)])
    func holdsBetweenEvaluations(_ kind: String, _ stride: Int) {
        let model = kind == "GRU" ? Self.recurrent(stride: stride) : Self.feedForward(stride: stride)
        #expect(model.isValid)
        let frames = GatedRecurrenceTests.frames(model, count: 101, seed: 12)
        let got = GatedRecurrenceTests.run(CompiledModel(model), frames)
        let want = Self.expected(model, stride: stride, frames)
        #expect(got.map(\.bitPattern) == want.map(\.bitPattern))
        // Not vacuous: the held values change from one evaluation to the next.
        #expect(Set(got).count > 101 / stride / 2, "\(kind) stride \(stride): \(Set(got).count) distinct values")
        // A GRU's state stepped only on the evaluated frames: stepping it on every frame differs.
        if kind == "GRU" {
            var every = model
            every.evaluationStride = 1
            let stepped = GatedRecurrenceTests.run(CompiledModel(every), frames)
            #expect(Swift.stride(from: 0, to: 101, by: stride).contains { stepped[$0] != got[$0] })
        }
    }

    @Test("batches of any split give what one call at a time gives, bit for bit", arguments: [1, 2, 3, 4])
    func batchesMatchOneAtATime(_ stride: Int) {
        let model = Self.recurrent(stride: stride, seed: 73)
        let frames = GatedRecurrenceTests.frames(model, count: 97, seed: 13)
        let single = GatedRecurrenceTests.run(CompiledModel(model), frames)
        for sizes in [[4], [1], [3], [2, 4, 1], [4, 3, 2, 1, 1]] {
            let got = Self.batched(CompiledModel(model), frames, sizes: sizes)
            #expect(got.map(\.bitPattern) == single.map(\.bitPattern), "stride \(stride), batches \(sizes)")
        }
    }

    @Test("reset evaluates the next frame as a stream's first")
    func resetRestartsTheStride() {
        let model = Self.recurrent(stride: 3, seed: 74)
        let frames = GatedRecurrenceTests.frames(model, count: 40, seed: 14)
        let compiled = CompiledModel(model)
        let first = GatedRecurrenceTests.run(compiled, frames)
        // Reset two frames into a stride: the next frame is evaluated, from a zero state.
        _ = GatedRecurrenceTests.run(compiled, Array(frames[..<5]))
        compiled.reset()
        #expect(GatedRecurrenceTests.run(compiled, frames) == first)
    }

    @Test("a stride below 1 or above the maximum is rejected, with the stride in the error")
    func validation() {
        for stride in [0, -1, ProbabilityModel.maximumEvaluationStride + 1] {
            let model = Self.recurrent(stride: stride)
            #expect(!model.isValid, "stride \(stride)")
            var c = AcousticDetector.Configuration()
            c.musicModel = { var m = DefaultModels.music; m.evaluationStride = stride; return m }()
            do throws(ConfigurationError) {
                _ = try AcousticDetector(configuration: c)
                Issue.record("accepted stride \(stride)")
            } catch {
                #expect(error.parameter == "musicModel" && error.value.contains("evaluation stride \(stride)"), "\(error)")
            }
        }
        #expect(Self.recurrent(stride: ProbabilityModel.maximumEvaluationStride).isValid)
    }

    @Test("a detector with strided recurrent models does not depend on the chunking")
    func detectorFramesDoNotDependOnChunking() throws {
        var c = RecurrentDetectorTests.configuration()
        c.musicModel.evaluationStride = 3
        c.multiSpeakerModel.evaluationStride = 2
        let signal = try RecurrentDetectorTests.signal()
        let whole = DetectionHarness.run(try AcousticDetector(configuration: c), signal, chunks: [signal.count])
        let plain = DetectionHarness.run(try AcousticDetector(configuration: RecurrentDetectorTests.configuration()), signal,
                                         chunks: [signal.count])
        #expect(whole != plain)   // the strides change the results (the test is not vacuous)
        for chunks in [[1024], [1], [100, 7, 3000], Chunking.random.sizes(total: signal.count, seed: 19)] {
            let run = DetectionHarness.run(try AcousticDetector(configuration: c), signal, chunks: chunks)
            #expect(run == whole, "chunks \(chunks.prefix(3))")
        }
        // And after a reset.
        let detector = try AcousticDetector(configuration: c)
        signal.withUnsafeBufferPointer { detector.process(UnsafeBufferPointer(rebasing: $0[..<30_001])) { _ in } }
        detector.reset()
        #expect(DetectionHarness.run(detector, signal, chunks: [1024]) == whole)
    }
}
