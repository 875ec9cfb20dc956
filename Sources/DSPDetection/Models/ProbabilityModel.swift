import DSPCore
internal import CDSPKernels
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A small network that maps a cue vector to a probability: inputs standardised, one hidden
/// layer — feed-forward `tanh` units, or a gated recurrent unit (GRU) when ``recurrence`` is
/// set — and a logistic output.
///
/// Feed-forward (``recurrence`` `nil`), `H` = ``hiddenCount`` units:
///
///     zᵢ = (xᵢ − meanᵢ) / scaleᵢ
///     hⱼ = tanh(hiddenBiasⱼ + Σᵢ hiddenWeights[j·inputCount + i] · zᵢ)
///     p  = σ(outputBias + Σⱼ outputWeightsⱼ · hⱼ),   σ(x) = 1 / (1 + e^−x)
///
/// A model with no hidden units is plain logistic regression on the standardised inputs
/// (`outputWeights` then has `inputCount` entries).
///
/// Gated recurrent (``recurrence`` set; PyTorch `nn.GRU`'s convention, Cho et al. 2014), `H`
/// units, rows of the `3H`-row layers in the order reset (r), update (u, PyTorch's z),
/// candidate (n), and a state `h` of `H` values, zero at a stream's start and after a reset:
///
///     a = hiddenWeights · z + hiddenBias                       (3H: W_ih, b_ih)
///     g = recurrence.weights · h + recurrence.bias             (3H: W_hh, b_hh)
///     r = σ(a_r + g_r),  u = σ(a_u + g_u),  n = tanh(a_n + r ⊙ g_n)
///     h ← (1 − u) ⊙ n + u ⊙ h
///     p = σ(outputBias + Σⱼ outputWeightsⱼ · hⱼ)
///
/// With ``evaluationStride`` `N` > 1 the model is evaluated on the first frame it is given and
/// on every `N`th after it; the frames between read the last evaluation's probability, and a
/// recurrent state advances only on the frames evaluated (a slow task's model, music, steps at
/// a coarser rate than the 16 ms hop).
///
/// The state advances once per evaluation: ``AcousticDetector`` evaluates a model only on
/// frames with sound (not on silent frames or frames with non-finite samples), and only while
/// its detection is on, so a recurrent model sees the sequence of those frames; the
/// detector's `reset()`, `flush` and `finalize()` zero the state. An evaluation whose new state or output is not finite
/// gives 0 and leaves the state as it was.
///
/// The default models (``DefaultModels``) were fitted once on the train split of the detection
/// material by `scripts/detect/train_models.py` (settings chosen on its val split) and are
/// fixed: nothing adapts per file.
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
    /// Hidden-layer weights, row-major: `hiddenCount × inputCount`; with ``recurrence``, the
    /// input-to-hidden weights `3·hiddenCount × inputCount` (PyTorch's W_ih, rows r, z, n).
    public var hiddenWeights: [Float]
    /// Hidden-layer biases, `hiddenCount` values; with ``recurrence``, `3·hiddenCount`
    /// (PyTorch's b_ih, rows r, z, n).
    public var hiddenBias: [Float]
    /// Output weights: `hiddenCount` values (or `inputCount` without a hidden layer).
    public var outputWeights: [Float]
    /// Output bias.
    public var outputBias: Float
    /// When set, the hidden layer is a gated recurrent unit (GRU) of `hiddenCount` units with
    /// these recurrent weights, and the model keeps a state from one evaluation to the next (see
    /// the type's formula); `nil` (the default) for a feed-forward `tanh` layer.
    public var recurrence: GatedRecurrence?
    /// The model is evaluated on every `evaluationStride`th frame it is given, starting with
    /// the first (and after every reset); the frames between read the last evaluation's
    /// probability. 1 (the default) evaluates every frame; at most ``maximumEvaluationStride``.
    public var evaluationStride: Int
    /// The largest ``evaluationStride`` accepted: 16 frames, 256 ms at the detector's hop.
    public static let maximumEvaluationStride = 16

    /// Creates a model; ``isValid`` says whether the shapes agree.
    public init(
        inputCount: Int, inputLanes: [Int]? = nil, inputMean: [Float], inputScale: [Float], hiddenWeights: [Float],
        hiddenBias: [Float], outputWeights: [Float], outputBias: Float, recurrence: GatedRecurrence? = nil,
        evaluationStride: Int = 1
    ) {
        self.inputCount = inputCount
        self.inputLanes = inputLanes
        self.inputMean = inputMean
        self.inputScale = inputScale
        self.hiddenWeights = hiddenWeights
        self.hiddenBias = hiddenBias
        self.outputWeights = outputWeights
        self.outputBias = outputBias
        self.recurrence = recurrence
        self.evaluationStride = evaluationStride
    }

    /// Hidden units: `hiddenBias.count`, or `hiddenBias.count / 3` with ``recurrence``.
    public var hiddenCount: Int { recurrence == nil ? hiddenBias.count : hiddenBias.count / 3 }

    /// The highest lane read, plus one.
    public var laneExtent: Int { (inputLanes?.max() ?? (inputCount - 1)) + 1 }

    /// Whether the model reads `lane`.
    public func reads(_ lane: CueLane) -> Bool {
        inputLanes.map { $0.contains(lane.rawValue) } ?? (lane.rawValue < inputCount)
    }

    /// Whether the shapes agree, every value is finite (and scales positive) and
    /// ``evaluationStride`` is within 1…``maximumEvaluationStride``. A recurrent
    /// model needs at least one unit: `hiddenBias` and ``GatedRecurrence/bias`` `3H` values
    /// (H ≥ 1), `hiddenWeights` `3H × inputCount`, ``GatedRecurrence/weights`` `3H × H`,
    /// `outputWeights` `H`.
    public var isValid: Bool {
        let n = inputCount
        guard (1...Self.maximumEvaluationStride).contains(evaluationStride) else { return false }
        guard n >= 1, n <= CueLane.count, inputMean.count == n, inputScale.count == n else { return false }
        if let recurrence {
            let h = hiddenCount
            guard h >= 1, hiddenBias.count == 3 * h, hiddenWeights.count == 3 * h * n, outputWeights.count == h,
                  recurrence.weights.count == 3 * h * h, recurrence.bias.count == 3 * h,
                  recurrence.weights.allSatisfy(\.isFinite), recurrence.bias.allSatisfy(\.isFinite)
            else { return false }
        } else {
            guard hiddenWeights.count == hiddenCount * n, outputWeights.count == (hiddenCount == 0 ? n : hiddenCount)
            else { return false }
        }
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
    /// Whether the hidden layer is a GRU (``ProbabilityModel/recurrence``).
    let isRecurrent: Bool
    /// The first layer's rows (`hiddenCount`, or 1 without a hidden layer; `3·hiddenCount` for
    /// a GRU: reset, update and candidate rows).
    let rows: Int
    /// The rows per group of the weights' layout: `cdsp_model_group_rows()` (16 at dispatch
    /// level avx512, else 8).
    let groupRows: Int
    /// The `rows × inputCount` weights by groups of ``groupRows`` rows, transposed for
    /// `cdsp_model_rows`: `[(g·inputCount + i)·G + l]` is row `G·g + l`, input `i` (zero past
    /// the last row).
    let weights: UnsafeMutableBufferPointer<Float>
    /// The rows' biases, zero-padded to a multiple of ``groupRows``.
    let biases: UnsafeMutableBufferPointer<Float>
    /// A GRU's `rows × hiddenCount` recurrent weights, laid out as ``weights`` (`hiddenCount`
    /// inputs: the state); empty for a feed-forward model.
    let recurrentWeights: UnsafeMutableBufferPointer<Float>
    /// A GRU's recurrent biases (b_hh), zero-padded to a multiple of ``groupRows``; empty for a
    /// feed-forward model.
    let recurrentBiases: UnsafeMutableBufferPointer<Float>
    /// The output layer's weights (1 without a hidden layer).
    let output: UnsafeMutableBufferPointer<Float>
    let outputBias: Float
    /// The lane each input reads.
    let lanes: UnsafeMutableBufferPointer<Int>
    /// ``ProbabilityModel/evaluationStride``.
    let evaluationStride: Int

    init(_ model: ProbabilityModel) {
        evaluationStride = model.evaluationStride
        inputCount = model.inputCount
        hiddenCount = model.hiddenCount
        isRecurrent = model.recurrence != nil
        lanes = .allocate(capacity: model.inputCount)
        for i in 0..<model.inputCount { lanes[i] = model.inputLanes?[i] ?? i }
        let rows = isRecurrent ? 3 * hiddenCount : max(1, hiddenCount)
        self.rows = rows
        let groupRows = Int(cdsp_model_group_rows())
        self.groupRows = groupRows
        output = .allocate(capacity: max(1, hiddenCount))
        let n = inputCount
        let rowWeights = hiddenCount == 0 ? model.outputWeights : model.hiddenWeights
        let rowBiases = hiddenCount == 0 ? [model.outputBias] : model.hiddenBias
        // The standardisation folded in: w / scale, and the bias less Σ (w / scale)·mean in
        // input order.
        let first = DenseRows(rows: rows, inputs: n, groupRows: groupRows, weight: { r, i in
            rowWeights[r * n + i] / model.inputScale[i]
        }, bias: { r in
            var bias = rowBiases[r]
            for i in 0..<n { bias -= rowWeights[r * n + i] / model.inputScale[i] * model.inputMean[i] }
            return bias
        })
        weights = first.weights
        biases = first.biases
        for j in 0..<max(1, hiddenCount) { output[j] = hiddenCount == 0 ? 1 : model.outputWeights[j] }
        outputBias = hiddenCount == 0 ? 0 : model.outputBias
        if let recurrence = model.recurrence {
            let h = hiddenCount
            let recurrent = DenseRows(rows: rows, inputs: h, groupRows: groupRows,
                                      weight: { r, i in recurrence.weights[r * h + i] }, bias: { recurrence.bias[$0] })
            recurrentWeights = recurrent.weights
            recurrentBiases = recurrent.biases
        } else {
            recurrentWeights = .allocate(capacity: 0)
            recurrentBiases = .allocate(capacity: 0)
        }
    }

    deinit {
        weights.deallocate()
        biases.deallocate()
        recurrentWeights.deallocate()
        recurrentBiases.deallocate()
        output.deallocate()
        lanes.deallocate()
    }

    /// Bytes of the tables.
    var allocatedBytes: Int {
        MemoryFootprint.bytes(weights) + MemoryFootprint.bytes(biases) + MemoryFootprint.bytes(output)
            + MemoryFootprint.bytes(lanes) + MemoryFootprint.bytes(recurrentWeights)
            + MemoryFootprint.bytes(recurrentBiases)
    }
}

/// A ``ProbabilityModel`` evaluated without allocating: the shared ``CompiledModelTables``,
/// a recurrent model's state (owned: one per instance, so per stream), and an evaluation's
/// buffers (gathered inputs, pre-activations, activations) from the calling thread's workspace
/// (``/DSPCore/ScratchWorkspace``).
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
    /// Whether the hidden layer is a GRU.
    let isRecurrent: Bool
    private let recurrentWeights: UnsafeMutableBufferPointer<Float>
    private let recurrentBiases: UnsafeMutableBufferPointer<Float>
    /// A GRU's state `h` (`hiddenCount` values, zero at a stream's start; empty for a
    /// feed-forward model): this instance's own.
    private let state: UnsafeMutableBufferPointer<Float>
    /// `rows` rounded up to a multiple of eight.
    private let paddedRows: Int
    /// ``ProbabilityModel/evaluationStride``.
    let evaluationStride: Int
    /// Frames given since the last evaluation (0: the next frame is evaluated); below
    /// ``evaluationStride``.
    private var phase = 0
    /// The last evaluation's probability, read by the frames between evaluations.
    private var held: Float = 0
    /// Whether the hidden layer's exponentials go through `cdsp_exp` (glibc's `expf`, eight lanes
    /// at a time): at dispatch level x86-64-v3 and above, where glibc's own `expf` is the FMA
    /// compilation the kernel reproduces bit for bit. Elsewhere (SSE2 or FMA-only CPUs, builds
    /// without dispatch, other C libraries) one `expf` call per unit, as before.
    let usesExpKernel: Bool
    /// The process's workspace key.
    private let workspace = ScratchWorkspace()

    /// One evaluation's buffers, written before they are read.
    struct Scratch {
        /// The inputs gathered contiguously (the rows then read two dense vectors).
        let inputs: UnsafeMutablePointer<Float>
        /// The rows' pre-activations for the input.
        let preActivations: UnsafeMutablePointer<Float>
        /// The hidden layer's activations (`e^{2x}`, then `tanh x`; a GRU's reset and update
        /// gates), padded to a multiple of eight.
        let activations: UnsafeMutablePointer<Float>
        /// A GRU's recurrent pre-activations `W_hh·h + b_hh` (`paddedRows`; none for a
        /// feed-forward model).
        let recurrentPreActivations: UnsafeMutablePointer<Float>
        /// A GRU's new state, kept only when it and the output are finite (`hiddenCount`; none
        /// for a feed-forward model).
        let nextState: UnsafeMutablePointer<Float>
    }

    /// Floats of ``Scratch/recurrentPreActivations`` and ``Scratch/nextState``.
    private var recurrentScratchCounts: (preActivations: Int, nextState: Int) {
        isRecurrent ? (paddedRows, hiddenCount) : (0, 0)
    }

    /// Bytes an evaluation takes from the workspace: one ``probability(_:)``'s, or a batch's
    /// (``probabilities(_:count:into:)``, up to ``batchLimit`` vectors) when that is more.
    var workspaceBytes: Int {
        Swift.max(singleWorkspaceBytes, batchWorkspaceBytes) + strideWorkspaceBytes
    }

    /// Bytes a strided model's batch takes before its evaluations: the vectors evaluated and
    /// their probabilities (none at stride 1).
    private var strideWorkspaceBytes: Int {
        evaluationStride == 1 ? 0 : ScratchWorkspace.bytes(UnsafeMutablePointer<Float>.self, Self.batchLimit)
            + ScratchWorkspace.bytes(Float.self, Self.batchLimit)
    }

    /// Bytes one ``probability(_:)`` takes from the workspace.
    private var singleWorkspaceBytes: Int {
        let (recurrentRows, nextState) = recurrentScratchCounts
        return ScratchWorkspace.bytes(Float.self, inputCount) + 2 * ScratchWorkspace.bytes(Float.self, paddedRows)
            + ScratchWorkspace.bytes(Float.self, recurrentRows) + ScratchWorkspace.bytes(Float.self, nextState)
    }

    /// Bytes a batch takes from the workspace: per vector its gathered inputs, pre-activations
    /// and activations, the kernel's two pointer tables, and a recurrent model's one step's
    /// recurrent rows and new state.
    private var batchWorkspaceBytes: Int {
        let b = Self.batchLimit
        let (recurrentRows, nextState) = recurrentScratchCounts
        return ScratchWorkspace.bytes(Float.self, b * inputCount) + 2 * ScratchWorkspace.bytes(Float.self, b * paddedRows)
            + ScratchWorkspace.bytes(UnsafePointer<Float>?.self, b) + ScratchWorkspace.bytes(UnsafeMutablePointer<Float>?.self, b)
            + ScratchWorkspace.bytes(Float.self, recurrentRows) + ScratchWorkspace.bytes(Float.self, nextState)
    }

    /// The most vectors one ``probabilities(_:count:into:)`` takes: a spectral batch's frames.
    static let batchLimit = 4

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
        isRecurrent = tables.isRecurrent
        recurrentWeights = tables.recurrentWeights
        recurrentBiases = tables.recurrentBiases
        state = .allocate(capacity: tables.isRecurrent ? tables.hiddenCount : 0)
        state.initialize(repeating: 0)
        paddedRows = (rows + 7) / 8 * 8
        evaluationStride = tables.evaluationStride
        usesExpKernel = Self.expKernelAvailable
    }

    /// Whether this process's kernels run at x86-64-v3 or above, over glibc (``usesExpKernel``).
    static var expKernelAvailable: Bool {
        #if canImport(Glibc)
        Int(cdsp_dispatch_level()) >= Int(CDSP_LEVEL_V3)
        #else
        false
        #endif
    }

    deinit {
        state.deallocate()
    }

    /// Whether `other` reads the same tables (one copy per model).
    func sharesTables(with other: CompiledModel) -> Bool { tables === other.tables }

    /// Zeroes a recurrent model's state and the stride's count: the next frame is evaluated, as
    /// a stream's first. A feed-forward model at stride 1 has nothing to reset.
    func reset() {
        state.update(repeating: 0)
        phase = 0
        held = 0
    }

    /// The recurrent state (empty for a feed-forward model), for tests (allocates; not for
    /// real-time use).
    var stateValues: [Float] { Array(state) }

    /// The probability for the cue vector at `x` (at least `inputCount` lanes); a recurrent
    /// model's state advances one step. NaN inputs give 0 (and leave the state as it was).
    /// With ``evaluationStride`` > 1, only every stride-th call evaluates; the others return the
    /// last evaluation's probability and read nothing.
    func probability(_ x: UnsafePointer<Float>) -> Float {
        if evaluationStride > 1 {
            let evaluates = phase == 0
            phase = nextPhase(after: phase)
            if !evaluates { return held }
            held = evaluatedProbability(x)
            return held
        }
        return evaluatedProbability(x)
    }

    /// ``probability(_:)`` evaluated, whatever the stride.
    private func evaluatedProbability(_ x: UnsafePointer<Float>) -> Float {
        let scope = workspace.enter(reserving: workspaceBytes)
        defer { scope.leave() }
        let (recurrentRows, nextState) = recurrentScratchCounts
        return probability(x, Scratch(
            inputs: scope.take(Float.self, count: inputCount), preActivations: scope.take(Float.self, count: paddedRows),
            activations: scope.take(Float.self, count: paddedRows),
            recurrentPreActivations: scope.take(Float.self, count: recurrentRows),
            nextState: scope.take(Float.self, count: nextState)))
    }

    /// The probabilities at the `count` cue vectors `x[0 ..< count]` (`count ≤ batchLimit`),
    /// into `p[0 ..< count]`: bit for bit `count` ``probability(_:)`` calls in order. A
    /// feed-forward model's first layer reads its weights once for every two vectors
    /// (`cdsp_model_rows_batch`: the detector's layers are more than L1 holds, so one vector at
    /// a time streams them from L2 once per frame), the hidden units of all the vectors go
    /// through one activation pass where they are contiguous, and the output sums of two
    /// vectors run side by side (each in its own order). A recurrent model's input rows are
    /// found for all the vectors the same way; then its state runs through them in order.
    /// With ``evaluationStride`` > 1, the vectors a stride-th call would evaluate go through
    /// that together and the others read the last evaluation's probability, as one call at a
    /// time gives.
    func probabilities(_ x: UnsafePointer<UnsafeMutablePointer<Float>>, count: Int, into p: UnsafeMutablePointer<Float>) {
        precondition(count <= Self.batchLimit, "CompiledModel.probabilities: more than batchLimit vectors")
        if evaluationStride == 1 {
            evaluatedProbabilities(x, count: count, into: p)
            return
        }
        let scope = workspace.enter(reserving: workspaceBytes)
        defer { scope.leave() }
        let chosen = scope.take(UnsafeMutablePointer<Float>.self, count: Self.batchLimit)
        let evaluated = scope.take(Float.self, count: Self.batchLimit)
        var m = 0, phase = self.phase
        for k in 0..<count {
            if phase == 0 {
                chosen[m] = x[k]
                m += 1
            }
            phase = nextPhase(after: phase)
        }
        if m > 0 { evaluatedProbabilities(chosen, count: m, into: evaluated) }
        var j = 0
        for k in 0..<count {
            if self.phase == 0 {
                held = evaluated[j]
                j += 1
            }
            p[k] = held
            self.phase = nextPhase(after: self.phase)
        }
    }

    /// The stride's count after one more frame given.
    @inline(__always)
    private func nextPhase(after phase: Int) -> Int {
        phase + 1 == evaluationStride ? 0 : phase + 1
    }

    /// ``probabilities(_:count:into:)`` with every vector evaluated, whatever the stride.
    private func evaluatedProbabilities(
        _ x: UnsafePointer<UnsafeMutablePointer<Float>>, count: Int, into p: UnsafeMutablePointer<Float>
    ) {
        let scope = workspace.enter(reserving: batchWorkspaceBytes)
        defer { scope.leave() }
        let inputs = scope.take(Float.self, count: count * inputCount)
        let pre = scope.take(Float.self, count: count * paddedRows), a = scope.take(Float.self, count: count * paddedRows)
        let inputTable = scope.take(UnsafePointer<Float>?.self, count: count)
        let preTable = scope.take(UnsafeMutablePointer<Float>?.self, count: count)
        for k in 0..<count {
            let v = x[k], gathered = inputs + k * inputCount
            for i in 0..<inputCount { gathered[i] = v[lanes[i]] }
            inputTable[k] = UnsafePointer(gathered)
            preTable[k] = pre + k * paddedRows
        }
        cdsp_model_rows_batch(weights.baseAddress!, biases.baseAddress!, inputTable, count, inputCount, rows, preTable)
        if isRecurrent {
            let (recurrentRows, nextState) = recurrentScratchCounts
            let g = scope.take(Float.self, count: recurrentRows), next = scope.take(Float.self, count: nextState)
            for k in 0..<count {
                p[k] = recurrentStep(Scratch(
                    inputs: inputs + k * inputCount, preActivations: pre + k * paddedRows, activations: a + k * paddedRows,
                    recurrentPreActivations: g, nextState: next))
            }
            return
        }
        if hiddenCount == 0 {
            for k in 0..<count {
                let z = outputBias + pre[k * paddedRows]
                p[k] = z.isFinite ? Self.sigmoid(z) : 0
            }
            return
        }
        if hiddenCount == paddedRows {
            hiddenActivations(pre, a, count: count * hiddenCount)   // the vectors' units side by side
        } else {
            for k in 0..<count { hiddenActivations(pre + k * paddedRows, a + k * paddedRows, count: hiddenCount) }
        }
        let u = output.baseAddress!
        var k = 0
        while k + 2 <= count {
            let b = a + k * paddedRows, c = b + paddedRows
            var y = outputBias, z = outputBias
            for j in 0..<hiddenCount {
                y += u[j] * b[j]
                z += u[j] * c[j]
            }
            p[k] = y.isFinite ? Self.sigmoid(y) : 0
            p[k + 1] = z.isFinite ? Self.sigmoid(z) : 0
            k += 2
        }
        if k < count {
            let b = a + k * paddedRows
            var y = outputBias
            for j in 0..<hiddenCount { y += u[j] * b[j] }
            p[k] = y.isFinite ? Self.sigmoid(y) : 0
        }
    }

    /// ``probability(_:)`` in `scratch`'s buffers.
    @inline(__always)
    func probability(_ x: UnsafePointer<Float>, _ scratch: Scratch) -> Float {
        let inputs = scratch.inputs, preActivations = scratch.preActivations, activations = scratch.activations
        for i in 0..<inputCount { inputs[i] = x[lanes[i]] }
        cdsp_model_rows(weights.baseAddress!, biases.baseAddress!, inputs, inputCount, rows, preActivations)
        if isRecurrent { return recurrentStep(scratch) }
        var z = outputBias
        if hiddenCount == 0 {
            z += preActivations[0]
        } else {
            hiddenActivations(scratch)
            for j in 0..<hiddenCount { z += output[j] * activations[j] }
        }
        guard z.isFinite else { return 0 }
        return Self.sigmoid(z)
    }

    /// `activations[j] = tanh(preActivations[j])` for `j < hiddenCount`, exactly as
    /// ``tanh(_:)`` computes it: the exponentials first — `cdsp_exp` over the whole layer where
    /// ``usesExpKernel``, which gives `expf`'s bits, else one `expf` call per unit (independent,
    /// so they overlap) — then `(e − 1)/(e + 1)` eight lanes at a time (the same IEEE operations
    /// per lane), NaN passed through.
    @inline(__always)
    private func hiddenActivations(_ scratch: Scratch) {
        hiddenActivations(scratch.preActivations, scratch.activations, count: hiddenCount)
    }

    /// ``hiddenActivations(_:)`` over `count` units from `x` into `a`.
    @inline(__always)
    private func hiddenActivations(_ x: UnsafeMutablePointer<Float>, _ a: UnsafeMutablePointer<Float>, count hiddenCount: Int) {
        if usesExpKernel {
            for j in 0..<hiddenCount { a[j] = 2 * max(-9, min(9, x[j])) }
            cdsp_exp(a, a, hiddenCount)
        } else {
            for j in 0..<hiddenCount { a[j] = expf(2 * max(-9, min(9, x[j]))) }
        }
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

    /// A GRU's step from the input rows' pre-activations `a` (``Scratch/preActivations``,
    /// rows r, u, n): `g = W_hh·h + b_hh` through the same kernel with the state as its input,
    /// `r = σ(a_r + g_r)`, `u = σ(a_u + g_u)`, `n = tanh(a_n + r·g_n)`,
    /// `h' = (1 − u)·n + u·h`, then the output. The state becomes `h'` only when the output
    /// logit is finite — which it is not when any `h'ⱼ` is not (the output weights are finite,
    /// and `0·±∞` is NaN) — otherwise the result is 0 and the state stays.
    @inline(__always)
    private func recurrentStep(_ scratch: Scratch) -> Float {
        let h = hiddenCount, s = state.baseAddress!
        let a = scratch.preActivations, g = scratch.recurrentPreActivations
        let gates = scratch.activations, next = scratch.nextState
        cdsp_model_rows(recurrentWeights.baseAddress!, recurrentBiases.baseAddress!, s, h, rows, g)
        Self.gatedUpdate(inputRows: a, recurrentRows: g, gates: gates, state: s, into: next, count: h)
        var z = outputBias
        for j in 0..<h { z += output[j] * next[j] }
        guard z.isFinite else { return 0 }
        s.update(from: next, count: h)
        return Self.sigmoid(z)
    }

    /// The GRU's new state from its input rows `a` and recurrent rows `g` (`3h` each, rows r, u,
    /// n) and the state `s`: `r = σ(a_r + g_r)`, `u = σ(a_u + g_u)` into `gates[0 ..< 2h]`,
    /// `n = tanh(a_n + r·g_n)`, `next = (1 − u)·n + u·s`. Shared by ``ProbabilityModel``'s and
    /// ``DetectionNetwork``'s recurrent layers; `gates` may be `a` itself. Where the process's
    /// kernels run at x86-64-v3 or above (``expKernelAvailable``), eight units at a time, the
    /// exponentials of all the gates in one `cdsp_exp` call and those of all the candidate values
    /// in another (`cdsp_exp` gives `expf`'s bits, value by value): every lane the same IEEE
    /// operations as ``sigmoid(_:)`` and ``tanh(_:)``, so the same bits as one unit at a time.
    /// (A NaN lane stays NaN, its payload not kept: a NaN gate makes the step's output
    /// non-finite, which leaves the state as it was and gives 0.)
    @inline(__always)
    static func gatedUpdate(
        inputRows a: UnsafeMutablePointer<Float>, recurrentRows g: UnsafePointer<Float>, gates: UnsafeMutablePointer<Float>,
        state s: UnsafePointer<Float>, into next: UnsafeMutablePointer<Float>, count h: Int
    ) {
        let vectorised = expKernelAvailable
        var j = 0
        if vectorised {
            // Reset and update gates (rows 0 ..< 2H): their exponents, then one exponential
            // pass, then the sigmoids, in `gates` (rows already read when `gates` is `a`).
            let whole = 2 * h & ~7
            while j < whole {
                store8(-clamped(load8(a + j) + load8(g + j), 30), gates + j)
                j += 8
            }
            cdsp_exp(gates, gates, whole)
            j = 0
            while j < whole {
                store8(1 / (1 + load8(gates + j)), gates + j)
                j += 8
            }
        }
        // Independent `expf` calls, so they overlap.
        while j < 2 * h {
            gates[j] = Self.sigmoid(a[j] + g[j])
            j += 1
        }
        j = 0
        if vectorised {
            // The candidate values: their exponents in `next`, one exponential pass, then the
            // new state over them.
            let whole = h & ~7
            while j < whole {
                store8(2 * clamped(load8(a + 2 * h + j) + load8(gates + j) * load8(g + 2 * h + j), 9), next + j)
                j += 8
            }
            cdsp_exp(next, next, whole)
            j = 0
            while j < whole {
                let e = load8(next + j)
                let n = (e - 1) / (e + 1)
                let u = load8(gates + h + j)
                store8((1 - u) * n + u * load8(s + j), next + j)
                j += 8
            }
        }
        while j < h {
            let n = Self.tanh(a[2 * h + j] + gates[j] * g[2 * h + j])
            let u = gates[h + j]
            next[j] = (1 - u) * n + u * s[j]
            j += 1
        }
    }

    /// Eight floats from `p` (unaligned).
    @inline(__always)
    private static func load8(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }

    /// Eight floats to `p` (unaligned).
    @inline(__always)
    private static func store8(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self)
    }

    /// `max(−limit, min(limit, x))` per lane as the scalar expression computes it for a number
    /// (NaN lanes are replaced by the callers).
    @inline(__always)
    private static func clamped(_ x: SIMD8<Float>, _ limit: Float) -> SIMD8<Float> {
        let high = SIMD8<Float>(repeating: limit), low = SIMD8<Float>(repeating: -limit)
        return x.replacing(with: high, where: x .> high).replacing(with: low, where: x .< low)
    }

    /// `σ(x) = 1 / (1 + e^−x)` through `expf`, argument clamped to ±30 (σ is then within 1e-13
    /// of 0 or 1); NaN stays NaN (the output check then gives 0).
    @inline(__always)
    static func sigmoid(_ x: Float) -> Float {
        let e = expf(-max(-30, min(30, x)))
        return x.isNaN ? x : 1 / (1 + e)
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
    /// pre-activations it computed (allocates; not for real-time use), evaluated whatever the
    /// stride. A recurrent model's state advances as in ``probability(_:)``.
    func evaluate(_ x: UnsafePointer<Float>) -> (probability: Float, inputs: [Float], preActivations: [Float]) {
        let inputs = UnsafeMutablePointer<Float>.allocate(capacity: Swift.max(1, inputCount))
        let preActivations = UnsafeMutablePointer<Float>.allocate(capacity: paddedRows)
        let activations = UnsafeMutablePointer<Float>.allocate(capacity: paddedRows)
        let recurrentPreActivations = UnsafeMutablePointer<Float>.allocate(capacity: paddedRows)
        let nextState = UnsafeMutablePointer<Float>.allocate(capacity: Swift.max(1, hiddenCount))
        defer {
            inputs.deallocate(); preActivations.deallocate(); activations.deallocate()
            recurrentPreActivations.deallocate(); nextState.deallocate()
        }
        let p = probability(x, Scratch(
            inputs: inputs, preActivations: preActivations, activations: activations,
            recurrentPreActivations: recurrentPreActivations, nextState: nextState))
        return (p, Array(UnsafeBufferPointer(start: inputs, count: inputCount)),
                Array(UnsafeBufferPointer(start: preActivations, count: rows)))
    }

    /// ``probability(_:)`` with the hidden layer one unit at a time through ``tanh(_:)`` (the
    /// loop ``hiddenActivations(_:)`` replaced), from `preActivations` (an ``evaluate(_:)``'s).
    /// Kept as the reference the tests hold the vectorised layer to, bit for bit. Feed-forward
    /// models only.
    func referenceProbability(preActivations: [Float]) -> Float {
        precondition(!isRecurrent, "referenceProbability: a feed-forward model's reference")
        var z = outputBias
        if hiddenCount == 0 {
            z += preActivations[0]
        } else {
            for j in 0..<hiddenCount { z += output[j] * Self.tanh(preActivations[j]) }
        }
        guard z.isFinite else { return 0 }
        return Self.sigmoid(z)
    }

    /// Bias plus row `row`'s weights times the gathered inputs, as `cdsp_model_rows` computes it
    /// a group of rows at a time (dispatched C, AVX2 or AVX-512 where available): four interleaved partial sums
    /// (`i ≡ 0, 1, 2, 3 mod 4`, the tail on the first), then `bias + ((s0 + s1) + (s2 + s3))`.
    /// The order is fixed, so results are deterministic and the same on every CPU. Kept in Swift
    /// as the reference the tests hold the kernel to; `inputs` are an ``evaluate(_:)``'s.
    func referencePreActivation(_ row: Int, inputs x: [Float]) -> Float {
        let g = tables.groupRows
        func w(_ i: Int) -> Float { weights[((row / g) * inputCount + i) * g + row % g] }
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
    /// model), an evaluation's buffers (from the thread's workspace) and, owned, a recurrent
    /// model's state (nothing owned for a feed-forward model).
    var memoryFootprint: MemoryFootprint {
        MemoryFootprint(
            ownedBytes: MemoryFootprint.bytes(state), sharedBytes: tables.allocatedBytes, workspaceBytes: workspaceBytes)
    }
}
