import DSPCore
internal import CDSPKernels
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A small feed-forward network that maps a cue vector to a probability: inputs standardised,
/// one hidden layer of `tanh` units, a logistic output.
///
///     zᵢ = (xᵢ − meanᵢ) / scaleᵢ
///     hⱼ = tanh(hiddenBiasⱼ + Σᵢ hiddenWeights[j·inputCount + i] · zᵢ)
///     p  = 1 / (1 + e^−(outputBias + Σⱼ outputWeightsⱼ · hⱼ))
///
/// The default models (``DefaultModels``) were fitted once on the train split of the detection
/// material by `scripts/detect/train_models.py` (settings chosen on its val split) and are fixed: nothing adapts per file. A model with no
/// hidden units is plain logistic regression on the standardised inputs (`outputWeights` then
/// has `inputCount` entries).
public struct ProbabilityModel: Hashable, Sendable {
    /// Inputs read: the first `inputCount` lanes of the cue vector (``CueLane``), or the
    /// lanes ``inputLanes`` lists.
    public var inputCount: Int
    /// The lanes read, in order, when not the first `inputCount` (`nil`).
    public var inputLanes: [Int]?
    /// Per-input mean subtracted before the network.
    public var inputMean: [Float]
    /// Per-input scale divided by before the network (> 0).
    public var inputScale: [Float]
    /// Hidden-layer weights, row-major: `hiddenCount × inputCount`.
    public var hiddenWeights: [Float]
    /// Hidden-layer biases, `hiddenCount` values.
    public var hiddenBias: [Float]
    /// Output weights: `hiddenCount` values (or `inputCount` without a hidden layer).
    public var outputWeights: [Float]
    /// Output bias.
    public var outputBias: Float

    /// Creates a model; ``isValid`` says whether the shapes agree.
    public init(
        inputCount: Int, inputLanes: [Int]? = nil, inputMean: [Float], inputScale: [Float], hiddenWeights: [Float],
        hiddenBias: [Float], outputWeights: [Float], outputBias: Float
    ) {
        self.inputCount = inputCount
        self.inputLanes = inputLanes
        self.inputMean = inputMean
        self.inputScale = inputScale
        self.hiddenWeights = hiddenWeights
        self.hiddenBias = hiddenBias
        self.outputWeights = outputWeights
        self.outputBias = outputBias
    }

    /// Hidden units.
    public var hiddenCount: Int { hiddenBias.count }

    /// The highest lane read, plus one.
    public var laneExtent: Int { (inputLanes?.max() ?? (inputCount - 1)) + 1 }

    /// Whether the model reads `lane`.
    public func reads(_ lane: CueLane) -> Bool {
        inputLanes.map { $0.contains(lane.rawValue) } ?? (lane.rawValue < inputCount)
    }

    /// Whether the shapes agree and every value is finite (and scales positive).
    public var isValid: Bool {
        let n = inputCount
        guard n >= 1, n <= CueLane.count, inputMean.count == n, inputScale.count == n,
              hiddenWeights.count == hiddenCount * n,
              outputWeights.count == (hiddenCount == 0 ? n : hiddenCount)
        else { return false }
        if let inputLanes, inputLanes.count != n || !inputLanes.allSatisfy({ (0..<CueLane.count).contains($0) }) {
            return false
        }
        let all = inputMean + inputScale + hiddenWeights + hiddenBias + outputWeights + [outputBias]
        return all.allSatisfy(\.isFinite) && inputScale.allSatisfy { $0 > 0 }
    }
}

/// The immutable part of a compiled ``ProbabilityModel``: its standardisation folded into the
/// first layer, the weights transposed for `cdsp_model_rows`. Built once per model and shared
/// by every detector that uses it (``CompiledModel/cache``); never written after `init`, so
/// any number of threads read it at once.
final class CompiledModelTables: @unchecked Sendable {
    let inputCount: Int
    let hiddenCount: Int
    /// The first layer's rows (`hiddenCount`, or 1 without a hidden layer).
    let rows: Int
    /// The `rows × inputCount` weights by groups of eight rows, transposed for
    /// `cdsp_model_rows`: `[(g·inputCount + i)·8 + l]` is row `8g + l`, input `i` (zero past
    /// the last row).
    let weights: UnsafeMutableBufferPointer<Float>
    /// The rows' biases, zero-padded to a multiple of eight.
    let biases: UnsafeMutableBufferPointer<Float>
    /// The output layer's weights (1 without a hidden layer).
    let output: UnsafeMutableBufferPointer<Float>
    let outputBias: Float
    /// The lane each input reads.
    let lanes: UnsafeMutableBufferPointer<Int>

    init(_ model: ProbabilityModel) {
        inputCount = model.inputCount
        hiddenCount = model.hiddenCount
        lanes = .allocate(capacity: model.inputCount)
        for i in 0..<model.inputCount { lanes[i] = model.inputLanes?[i] ?? i }
        let rows = max(1, hiddenCount)
        self.rows = rows
        let padded = (rows + 7) / 8 * 8
        weights = .allocate(capacity: padded * inputCount)
        weights.initialize(repeating: 0)
        biases = .allocate(capacity: padded)
        biases.initialize(repeating: 0)
        output = .allocate(capacity: max(1, hiddenCount))
        let rowWeights = hiddenCount == 0 ? model.outputWeights : model.hiddenWeights
        let rowBiases = hiddenCount == 0 ? [model.outputBias] : model.hiddenBias
        for r in 0..<rows {
            var bias = rowBiases[r]
            for i in 0..<inputCount {
                let w = rowWeights[r * inputCount + i] / model.inputScale[i]
                weights[((r / 8) * inputCount + i) * 8 + r % 8] = w
                bias -= w * model.inputMean[i]
            }
            biases[r] = bias
        }
        for j in 0..<max(1, hiddenCount) { output[j] = hiddenCount == 0 ? 1 : model.outputWeights[j] }
        outputBias = hiddenCount == 0 ? 0 : model.outputBias
    }

    deinit {
        weights.deallocate()
        biases.deallocate()
        output.deallocate()
        lanes.deallocate()
    }

    /// Bytes of the tables.
    var allocatedBytes: Int {
        MemoryFootprint.bytes(weights) + MemoryFootprint.bytes(biases) + MemoryFootprint.bytes(output)
            + MemoryFootprint.bytes(lanes)
    }
}

/// A ``ProbabilityModel`` evaluated without allocating: the shared ``CompiledModelTables``,
/// and an evaluation's buffers (gathered inputs, pre-activations, activations) from the calling
/// thread's workspace (``/DSPCore/ScratchWorkspace``).
final class CompiledModel {
    /// The tables of every model in use, one copy per model.
    static let cache = SharedTableCache<ProbabilityModel, CompiledModelTables>()

    private let tables: CompiledModelTables
    let inputCount: Int
    let hiddenCount: Int
    private let rows: Int
    private let weights: UnsafeMutableBufferPointer<Float>
    private let biases: UnsafeMutableBufferPointer<Float>
    private let output: UnsafeMutableBufferPointer<Float>
    private let outputBias: Float
    private let lanes: UnsafeMutableBufferPointer<Int>
    /// `rows` rounded up to a multiple of eight.
    private let paddedRows: Int
    /// The process's workspace key.
    private let workspace = ScratchWorkspace()

    /// One evaluation's buffers, written before they are read.
    struct Scratch {
        /// The inputs gathered contiguously (the rows then read two dense vectors).
        let inputs: UnsafeMutablePointer<Float>
        /// The rows' pre-activations for the input.
        let preActivations: UnsafeMutablePointer<Float>
        /// The hidden layer's activations (`e^{2x}`, then `tanh x`), padded to a multiple of
        /// eight.
        let activations: UnsafeMutablePointer<Float>
    }

    /// Bytes an evaluation takes from the workspace.
    var workspaceBytes: Int {
        ScratchWorkspace.bytes(Float.self, inputCount) + 2 * ScratchWorkspace.bytes(Float.self, paddedRows)
    }

    init(_ model: ProbabilityModel) {
        let tables = Self.cache.table(for: model) { CompiledModelTables(model) }
        self.tables = tables
        inputCount = tables.inputCount
        hiddenCount = tables.hiddenCount
        rows = tables.rows
        weights = tables.weights
        biases = tables.biases
        output = tables.output
        outputBias = tables.outputBias
        lanes = tables.lanes
        paddedRows = (rows + 7) / 8 * 8
    }

    /// Whether `other` reads the same tables (one copy per model).
    func sharesTables(with other: CompiledModel) -> Bool { tables === other.tables }

    /// The probability for the cue vector at `x` (at least `inputCount` lanes). Non-finite
    /// inputs give 0.
    func probability(_ x: UnsafePointer<Float>) -> Float {
        let scope = workspace.enter(reserving: workspaceBytes)
        defer { scope.leave() }
        return probability(x, Scratch(
            inputs: scope.take(Float.self, count: inputCount), preActivations: scope.take(Float.self, count: paddedRows),
            activations: scope.take(Float.self, count: paddedRows)))
    }

    /// ``probability(_:)`` in `scratch`'s buffers.
    @inline(__always)
    func probability(_ x: UnsafePointer<Float>, _ scratch: Scratch) -> Float {
        let inputs = scratch.inputs, preActivations = scratch.preActivations, activations = scratch.activations
        for i in 0..<inputCount { inputs[i] = x[lanes[i]] }
        cdsp_model_rows(weights.baseAddress!, biases.baseAddress!, inputs, inputCount, rows, preActivations)
        var z = outputBias
        if hiddenCount == 0 {
            z += preActivations[0]
        } else {
            hiddenActivations(scratch)
            for j in 0..<hiddenCount { z += output[j] * activations[j] }
        }
        guard z.isFinite else { return 0 }
        return 1 / (1 + expf(-max(-30, min(30, z))))
    }

    /// `activations[j] = tanh(preActivations[j])` for `j < hiddenCount`, exactly as
    /// ``tanh(_:)`` computes it: the `expf` calls first (independent, so they overlap), then
    /// `(e − 1)/(e + 1)` eight lanes at a time (the same IEEE operations per lane), NaN passed
    /// through.
    @inline(__always)
    private func hiddenActivations(_ scratch: Scratch) {
        let x = scratch.preActivations, a = scratch.activations
        for j in 0..<hiddenCount { a[j] = expf(2 * max(-9, min(9, x[j]))) }
        var j = 0
        while j + 8 <= hiddenCount {
            let v = UnsafeRawPointer(x + j).loadUnaligned(as: SIMD8<Float>.self)
            let e = UnsafeRawPointer(a + j).loadUnaligned(as: SIMD8<Float>.self)
            let t = ((e - 1) / (e + 1)).replacing(with: v, where: v .!= v)
            UnsafeMutableRawPointer(a + j).storeBytes(of: t, as: SIMD8<Float>.self)
            j += 8
        }
        while j < hiddenCount {
            let e = a[j]
            a[j] = x[j].isNaN ? x[j] : (e - 1) / (e + 1)
            j += 1
        }
    }

    /// `tanh(x) = (e^{2x} − 1) / (e^{2x} + 1)` through `expf` (faster than glibc's `tanhf`;
    /// absolute error below 1e-6, argument clamped to ±9 where tanh is ±1 in Float). NaN
    /// stays NaN (the output check then gives 0).
    @inline(__always)
    static func tanh(_ x: Float) -> Float {
        let e = expf(2 * max(-9, min(9, x)))
        return x.isNaN ? x : (e - 1) / (e + 1)
    }

    /// ``probability(_:)`` for tests: the probability with the gathered inputs and the
    /// pre-activations it computed (allocates; not for real-time use).
    func evaluate(_ x: UnsafePointer<Float>) -> (probability: Float, inputs: [Float], preActivations: [Float]) {
        let inputs = UnsafeMutablePointer<Float>.allocate(capacity: Swift.max(1, inputCount))
        let preActivations = UnsafeMutablePointer<Float>.allocate(capacity: paddedRows)
        let activations = UnsafeMutablePointer<Float>.allocate(capacity: paddedRows)
        defer { inputs.deallocate(); preActivations.deallocate(); activations.deallocate() }
        let p = probability(x, Scratch(inputs: inputs, preActivations: preActivations, activations: activations))
        return (p, Array(UnsafeBufferPointer(start: inputs, count: inputCount)),
                Array(UnsafeBufferPointer(start: preActivations, count: rows)))
    }

    /// ``probability(_:)`` with the hidden layer one unit at a time through ``tanh(_:)`` (the
    /// loop ``hiddenActivations(_:)`` replaced), from `preActivations` (an ``evaluate(_:)``'s).
    /// Kept as the reference the tests hold the vectorised layer to, bit for bit.
    func referenceProbability(preActivations: [Float]) -> Float {
        var z = outputBias
        if hiddenCount == 0 {
            z += preActivations[0]
        } else {
            for j in 0..<hiddenCount { z += output[j] * Self.tanh(preActivations[j]) }
        }
        guard z.isFinite else { return 0 }
        return 1 / (1 + expf(-max(-30, min(30, z))))
    }

    /// Bias plus row `row`'s weights times the gathered inputs, as `cdsp_model_rows` computes it
    /// eight rows at a time (dispatched C, AVX2 where available): four interleaved partial sums
    /// (`i ≡ 0, 1, 2, 3 mod 4`, the tail on the first), then `bias + ((s0 + s1) + (s2 + s3))`.
    /// The order is fixed, so results are deterministic and the same on every CPU. Kept in Swift
    /// as the reference the tests hold the kernel to; `inputs` are an ``evaluate(_:)``'s.
    func referencePreActivation(_ row: Int, inputs x: [Float]) -> Float {
        func w(_ i: Int) -> Float { weights[((row / 8) * inputCount + i) * 8 + row % 8] }
        var s0: Float = 0, s1: Float = 0, s2: Float = 0, s3: Float = 0
        var i = 0
        while i + 4 <= inputCount {
            s0 += w(i) * x[i]
            s1 += w(i + 1) * x[i + 1]
            s2 += w(i + 2) * x[i + 2]
            s3 += w(i + 3) * x[i + 3]
            i += 4
        }
        while i < inputCount {
            s0 += w(i) * x[i]
            i += 1
        }
        return biases[row] + ((s0 + s1) + (s2 + s3))
    }
}

extension CompiledModel: MemoryAccounting {
    /// The scaled, transposed weights and biases (shared by every instance with the same
    /// model) and an evaluation's buffers (from the thread's workspace); nothing owned.
    var memoryFootprint: MemoryFootprint {
        MemoryFootprint(sharedBytes: tables.allocatedBytes, workspaceBytes: workspaceBytes)
    }
}
