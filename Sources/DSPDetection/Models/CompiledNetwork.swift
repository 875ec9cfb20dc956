import DSPCore
internal import CDSPKernels

/// One dense layer in `cdsp_model_rows`'s layout: `rows × inputs` weights by groups of
/// `cdsp_model_group_rows()` rows, transposed (`[(g·inputs + i)·G + l]` is row `G·g + l`, input
/// `i`; zero past the last row), and the rows' biases zero-padded to a whole group. The layers of
/// ``CompiledModelTables`` and ``CompiledNetworkTables`` are laid out here; the owner deallocates.
struct DenseRows {
    let rows: Int
    let inputs: Int
    let weights: UnsafeMutableBufferPointer<Float>
    let biases: UnsafeMutableBufferPointer<Float>

    /// Lays out `weight(row, input)` and `bias(row)`.
    init(rows: Int, inputs: Int, groupRows g: Int, weight: (Int, Int) -> Float, bias: (Int) -> Float) {
        self.rows = rows
        self.inputs = inputs
        let padded = (rows + g - 1) / g * g
        weights = .allocate(capacity: padded * inputs)
        weights.initialize(repeating: 0)
        biases = .allocate(capacity: padded)
        biases.initialize(repeating: 0)
        for r in 0..<rows {
            for i in 0..<inputs { weights[((r / g) * inputs + i) * g + r % g] = weight(r, i) }
            biases[r] = bias(r)
        }
    }

    /// `pre[r] = bias[r] + Σᵢ w[r][i]·x[i]` for `r < rows` (the kernel's fixed order).
    @inline(__always)
    func apply(_ x: UnsafePointer<Float>, into pre: UnsafeMutablePointer<Float>) {
        cdsp_model_rows(weights.baseAddress!, biases.baseAddress!, x, inputs, rows, pre)
    }

    func deallocate() {
        weights.deallocate()
        biases.deallocate()
    }

    var allocatedBytes: Int { MemoryFootprint.bytes(weights) + MemoryFootprint.bytes(biases) }
}

/// The immutable part of a compiled ``DetectionNetwork``: its layers in `cdsp_model_rows`'s
/// layout, the standardisation folded into the first layer. Built once per network and shared
/// by every detector that uses it (``CompiledNetwork/cache``); never written after `init`.
final class CompiledNetworkTables: @unchecked Sendable {
    let inputCount: Int
    let hiddenCount: Int
    /// The lane each input reads.
    let lanes: UnsafeMutableBufferPointer<Int>
    /// The raw inputs' means: what a frame before the stream reads as (`z = 0`).
    let inputMean: UnsafeMutableBufferPointer<Float>
    /// Each convolution as a dense layer over its window (`width × inputs` values, oldest frame
    /// first); the first reads the raw inputs (its weights divided by the scales, its biases
    /// less the means' share).
    let convolutions: UnsafeMutableBufferPointer<DenseRows>
    /// Each convolution's width.
    let widths: UnsafeMutableBufferPointer<Int>
    /// The GRU's input rows (3H over the last layer's outputs, or the raw inputs without a
    /// convolution) and recurrent rows (3H over the state).
    let gruInput: DenseRows
    let gruRecurrent: DenseRows
    /// The output rows (3 × H) and biases.
    let output: UnsafeMutableBufferPointer<Float>
    let outputBias: (Float, Float, Float)

    init(_ network: DetectionNetwork) {
        let n = network.inputCount, h = network.hiddenCount
        let g = Int(cdsp_model_group_rows())
        inputCount = n
        hiddenCount = h
        lanes = .allocate(capacity: n)
        inputMean = .allocate(capacity: n)
        for i in 0..<n {
            lanes[i] = network.inputLanes[i]
            inputMean[i] = network.inputMean[i]
        }
        let scale = network.inputScale, mean = network.inputMean
        /// Folds the standardisation into a layer reading `width` frames of the raw inputs.
        func folded(_ rows: Int, _ width: Int, _ w: [Float], _ b: [Float]) -> DenseRows {
            DenseRows(rows: rows, inputs: width * n, groupRows: g, weight: { r, k in
                w[r * width * n + k] / scale[k % n]
            }, bias: { r in
                var bias = b[r]
                for k in 0..<(width * n) { bias -= w[r * width * n + k] / scale[k % n] * mean[k % n] }
                return bias
            })
        }
        convolutions = .allocate(capacity: network.convolutions.count)
        widths = .allocate(capacity: network.convolutions.count)
        var inputs = n
        for (l, c) in network.convolutions.enumerated() {
            let layer = l == 0
                ? folded(c.outputCount, c.width, c.weights, c.bias)
                : DenseRows(rows: c.outputCount, inputs: c.width * inputs, groupRows: g,
                            weight: { r, k in c.weights[r * c.width * inputs + k] }, bias: { c.bias[$0] })
            (convolutions.baseAddress! + l).initialize(to: layer)
            widths[l] = c.width
            inputs = c.outputCount
        }
        gruInput = network.convolutions.isEmpty
            ? folded(3 * h, 1, network.recurrentInputWeights, network.recurrentInputBias)
            : DenseRows(rows: 3 * h, inputs: inputs, groupRows: g,
                        weight: { r, i in network.recurrentInputWeights[r * inputs + i] }, bias: { network.recurrentInputBias[$0] })
        gruRecurrent = DenseRows(rows: 3 * h, inputs: h, groupRows: g,
                                 weight: { r, i in network.recurrence.weights[r * h + i] }, bias: { network.recurrence.bias[$0] })
        output = .allocate(capacity: 3 * h)
        for k in 0..<(3 * h) { output[k] = network.outputWeights[k] }
        outputBias = (network.outputBias[0], network.outputBias[1], network.outputBias[2])
    }

    deinit {
        for layer in convolutions { layer.deallocate() }
        convolutions.deallocate()
        widths.deallocate()
        gruInput.deallocate()
        gruRecurrent.deallocate()
        output.deallocate()
        lanes.deallocate()
        inputMean.deallocate()
    }

    /// Bytes of the tables.
    var allocatedBytes: Int {
        convolutions.reduce(0) { $0 + $1.allocatedBytes } + gruInput.allocatedBytes + gruRecurrent.allocatedBytes
            + MemoryFootprint.bytes(output) + MemoryFootprint.bytes(lanes) + MemoryFootprint.bytes(inputMean)
            + MemoryFootprint.bytes(widths) + MemoryFootprint.bytes(convolutions)
    }
}

/// A ``DetectionNetwork`` evaluated without allocating: the shared ``CompiledNetworkTables``, this
/// instance's (one stream's) state — each layer's window of past frames and the GRU state —
/// and an evaluation's buffers from the calling thread's workspace.
///
/// Each layer's window is kept twice over (`2·width` frames, every frame written at slot `s`
/// and `s + width`), so that the last `width` frames, oldest first, are always contiguous: the
/// layer reads them as one vector.
final class CompiledNetwork {
    /// The tables of every network in use, one copy per network.
    static let cache = SharedTableCache<DetectionNetwork, CompiledNetworkTables>()

    private let tables: CompiledNetworkTables
    private let inputCount: Int
    private let hiddenCount: Int
    private let layerCount: Int
    /// Per layer: its input frames' window (`2·width·inputs` floats) and the next slot.
    private let windows: UnsafeMutableBufferPointer<UnsafeMutableBufferPointer<Float>>
    private let slots: UnsafeMutableBufferPointer<Int>
    /// The GRU state (`hiddenCount` values).
    private let state: UnsafeMutableBufferPointer<Float>
    /// The most values a layer reads or writes (inputs, a layer's rows, the GRU's 3H), rounded
    /// up to eight: the size of each scratch buffer.
    private let scratchCount: Int
    private let workspace = ScratchWorkspace()

    init(_ network: DetectionNetwork) {
        let tables = Self.cache.table(for: network) { CompiledNetworkTables(network) }
        self.tables = tables
        inputCount = tables.inputCount
        hiddenCount = tables.hiddenCount
        layerCount = tables.convolutions.count
        windows = .allocate(capacity: layerCount)
        slots = .allocate(capacity: layerCount)
        var widest = Swift.max(3 * tables.hiddenCount, tables.inputCount)
        for l in 0..<layerCount {
            let layer = tables.convolutions[l]
            (windows.baseAddress! + l).initialize(to: .allocate(capacity: 2 * layer.inputs))
            widest = Swift.max(widest, layer.rows)
        }
        scratchCount = (widest + 7) / 8 * 8
        state = .allocate(capacity: tables.hiddenCount)
        reset()
    }

    deinit {
        for w in windows { w.deallocate() }
        windows.deallocate()
        slots.deallocate()
        state.deallocate()
    }

    /// Forgets the stream: every window holds frames of zeros (the first layer's, the inputs'
    /// means), the GRU state is zero.
    func reset() {
        for l in 0..<layerCount {
            let w = windows[l], width = tables.widths[l], inputs = tables.convolutions[l].inputs / width
            if l == 0 {
                for k in 0..<(2 * width) { (w.baseAddress! + k * inputs).update(from: tables.inputMean.baseAddress!, count: inputs) }
            } else {
                w.update(repeating: 0)
            }
            slots[l] = 0
        }
        state.update(repeating: 0)
    }

    /// Bytes an evaluation takes from the workspace.
    var workspaceBytes: Int { 4 * ScratchWorkspace.bytes(Float.self, scratchCount) }

    /// The largest magnitude an input is taken at: far beyond any cue's range, small enough
    /// that no sum of the first layer overflows.
    static let inputLimit: Float = 1e9

    /// Advances one frame on the cue vector at `x` (``CueLane/count`` lanes) and writes the
    /// music, voice-activity and several-speakers probabilities into `p[0 ..< 3]`
    /// (``DetectionNetwork/Output`` order). Non-finite inputs read as 0, the rest are clamped
    /// to ±``inputLimit``. Should an output not be finite, all three are 0 and the GRU state
    /// stays as it was (the windows advance).
    func step(_ x: UnsafePointer<Float>, into p: UnsafeMutablePointer<Float>) {
        let scope = workspace.enter(reserving: workspaceBytes)
        defer { scope.leave() }
        let a = scope.take(Float.self, count: scratchCount), b = scope.take(Float.self, count: scratchCount)
        let gru = scope.take(Float.self, count: scratchCount), next = scope.take(Float.self, count: scratchCount)
        // The layer inputs: the gathered lanes, then each convolution's outputs.
        let n = inputCount
        for i in 0..<n {
            let v = x[tables.lanes[i]]
            a[i] = v.isFinite ? Swift.max(-Self.inputLimit, Swift.min(Self.inputLimit, v)) : 0
        }
        var input = a, spare = b, inputs = n
        for l in 0..<layerCount {
            let layer = tables.convolutions[l], width = tables.widths[l], w = windows[l].baseAddress!
            let s = slots[l]
            (w + s * inputs).update(from: input, count: inputs)
            (w + (s + width) * inputs).update(from: input, count: inputs)
            slots[l] = s + 1 == width ? 0 : s + 1
            layer.apply(w + (s + 1) * inputs, into: spare)
            for r in 0..<layer.rows { spare[r] = Swift.max(0, spare[r]) }
            swap(&input, &spare)
            inputs = layer.rows
        }
        // The GRU: input rows into `spare`, recurrent rows into `gru`.
        let h = hiddenCount, s = state.baseAddress!
        tables.gruInput.apply(input, into: spare)
        tables.gruRecurrent.apply(s, into: gru)
        CompiledModel.gatedUpdate(inputRows: spare, recurrentRows: gru, gates: input, state: s, into: next, count: h)
        let o = tables.output.baseAddress!
        var zMusic = tables.outputBias.0, zSpeech = tables.outputBias.1, zMulti = tables.outputBias.2
        for j in 0..<h {
            zMusic += o[j] * next[j]
            zSpeech += o[h + j] * next[j]
            zMulti += o[2 * h + j] * next[j]
        }
        guard zMusic.isFinite, zSpeech.isFinite, zMulti.isFinite else {
            p[0] = 0; p[1] = 0; p[2] = 0
            return
        }
        s.update(from: next, count: h)
        p[0] = CompiledModel.sigmoid(zMusic)
        p[1] = CompiledModel.sigmoid(zSpeech)
        p[2] = CompiledModel.sigmoid(zMulti)
    }

    /// The GRU state, for tests (allocates).
    var stateValues: [Float] { Array(state) }
}

extension CompiledNetwork: MemoryAccounting {
    /// The layers' tables (shared by every instance with the same network), an evaluation's
    /// buffers (the thread's workspace) and, owned, the windows and the GRU state.
    var memoryFootprint: MemoryFootprint {
        MemoryFootprint(
            ownedBytes: windows.reduce(0) { $0 + MemoryFootprint.bytes($1) } + MemoryFootprint.bytes(windows)
                + MemoryFootprint.bytes(slots) + MemoryFootprint.bytes(state),
            sharedBytes: tables.allocatedBytes, workspaceBytes: workspaceBytes)
    }
}
