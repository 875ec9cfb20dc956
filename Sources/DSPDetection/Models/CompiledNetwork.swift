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

    /// ``apply(_:into:)`` for `count` vectors `x[k]` into `pre[k]`, each bit for bit what
    /// ``apply(_:into:)`` gives it alone; the weights are read once for every two vectors.
    @inline(__always)
    func apply(_ x: UnsafePointer<UnsafePointer<Float>?>, count: Int, into pre: UnsafePointer<UnsafeMutablePointer<Float>?>) {
        cdsp_model_rows_batch(weights.baseAddress!, biases.baseAddress!, x, count, inputs, rows, pre)
    }

    /// `rows` rounded up to a whole group: what a caller's `pre` must hold for the batch kernel.
    var paddedRows: Int { biases.count }

    func deallocate() {
        weights.deallocate()
        biases.deallocate()
    }

    var allocatedBytes: Int { MemoryFootprint.bytes(weights) + MemoryFootprint.bytes(biases) }
}

/// The immutable part of a compiled ``DetectionNetwork``: its layers in `cdsp_model_rows`'s
/// layout, the standardisation folded into the first layer. Built once per network and shared
/// by every detector that uses it (``CompiledNetwork/cache``); never written after `init`.
///
/// A convolution of width `w` and `R` outputs is laid out by tap: `w·R` rows over one frame of
/// its inputs, row `j·R + o` the weights of output `o` for the frame `w − 1 − j` frames before
/// the output's (tap `j`, oldest first). Each frame's rows are its contributions to the outputs
/// of that frame and the `w − 1` after it, which ``CompiledNetwork`` keeps as running sums: a
/// stream holds `(w − 1)·R` sums per layer rather than `w − 1` frames of the layer's inputs.
final class CompiledNetworkTables: @unchecked Sendable {
    let inputCount: Int
    let hiddenCount: Int
    /// The lane each input reads.
    let lanes: UnsafeMutableBufferPointer<Int>
    /// Each convolution by tap (`width × outputs` rows over one frame of its inputs); the
    /// first reads the raw inputs (its weights divided by the scales, each tap's bias less the
    /// means' share, so that a frame contributes what its standardised inputs would and a
    /// frame before the stream, `z = 0`, nothing), the layer's bias in its newest tap.
    let convolutions: UnsafeMutableBufferPointer<DenseRows>
    /// Each convolution's width (its outputs: its rows ÷ width).
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
        for i in 0..<n { lanes[i] = network.inputLanes[i] }
        let scale = network.inputScale, mean = network.inputMean
        /// A layer over one frame (`inputs` values) with `weight(row, input)` and `bias(row)`; over
        /// the raw inputs (`standardised`), the standardisation folded in: weights divided by the
        /// scales, biases less the means' share, so that a raw frame gives what its standardised
        /// one would.
        func layer(_ rows: Int, _ inputs: Int, standardised: Bool, _ weight: @escaping (Int, Int) -> Float,
                   _ bias: @escaping (Int) -> Float) -> DenseRows {
            guard standardised else { return DenseRows(rows: rows, inputs: inputs, groupRows: g, weight: weight, bias: bias) }
            return DenseRows(rows: rows, inputs: inputs, groupRows: g, weight: { r, i in weight(r, i) / scale[i] }, bias: { r in
                var b = bias(r)
                for i in 0..<inputs { b -= weight(r, i) / scale[i] * mean[i] }
                return b
            })
        }
        convolutions = .allocate(capacity: network.convolutions.count)
        widths = .allocate(capacity: network.convolutions.count)
        var inputs = n
        for (l, c) in network.convolutions.enumerated() {
            let r = c.outputCount, w = c.width, m = inputs
            // Row j·R + o: output o's weights at tap j, `weights[o][j][·]`; the layer's bias in
            // the newest tap (a frame before the stream, `z = 0`, then contributes nothing).
            (convolutions.baseAddress! + l).initialize(to: layer(w * r, m, standardised: l == 0, { row, i in
                c.weights[((row % r) * w + row / r) * m + i]
            }, { row in row / r == w - 1 ? c.bias[row % r] : 0 }))
            widths[l] = w
            inputs = r
        }
        gruInput = layer(3 * h, inputs, standardised: network.convolutions.isEmpty, { r, i in
            network.recurrentInputWeights[r * inputs + i]
        }, { network.recurrentInputBias[$0] })
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
    }

    /// Bytes of the tables.
    var allocatedBytes: Int {
        convolutions.reduce(0) { $0 + $1.allocatedBytes } + gruInput.allocatedBytes + gruRecurrent.allocatedBytes
            + MemoryFootprint.bytes(output) + MemoryFootprint.bytes(lanes) + MemoryFootprint.bytes(widths)
            + MemoryFootprint.bytes(convolutions)
    }
}

/// A ``DetectionNetwork`` evaluated without allocating: the shared ``CompiledNetworkTables``, this
/// instance's (one stream's) state — each convolution's running sums of the outputs still to
/// come and the GRU state, in one buffer — and an evaluation's buffers from the calling
/// thread's workspace.
///
/// ``steps(_:count:into:)`` takes up to ``batchLimit`` frames at once: each layer's rows for all
/// of them with its weights read once for every two frames (`cdsp_model_rows_batch`, bit for
/// bit the one-frame kernel), then the frames in order through the running sums, and the GRU
/// state through them in order. The results do not depend on how frames are grouped.
final class CompiledNetwork {
    /// The tables of every network in use, one copy per network.
    static let cache = SharedTableCache<DetectionNetwork, CompiledNetworkTables>()
    /// The most frames one ``steps(_:count:into:)`` takes: a spectral batch's.
    static let batchLimit = CompiledModel.batchLimit

    private let tables: CompiledNetworkTables
    private let inputCount: Int
    private let hiddenCount: Int
    private let layerCount: Int
    /// Per convolution, `(width − 1)·outputs` running sums (the outputs of the next `width − 1`
    /// frames, next first), then the GRU state (`hiddenCount` values).
    private let storage: UnsafeMutableBufferPointer<Float>
    /// The widest layer input (the raw inputs, a convolution's outputs) and the most rows a
    /// layer's frame takes (a convolution's `width × outputs` or the GRU's 3H, whole groups).
    private let widestInput: Int
    private let widestRows: Int
    private let workspace = ScratchWorkspace()

    init(_ network: DetectionNetwork) {
        let tables = Self.cache.table(for: network) { CompiledNetworkTables(network) }
        self.tables = tables
        inputCount = tables.inputCount
        hiddenCount = tables.hiddenCount
        layerCount = tables.convolutions.count
        var sums = 0, input = tables.inputCount, rows = tables.gruInput.paddedRows
        for l in 0..<layerCount {
            let outputs = tables.convolutions[l].rows / tables.widths[l]
            sums += (tables.widths[l] - 1) * outputs
            input = Swift.max(input, outputs)
            rows = Swift.max(rows, tables.convolutions[l].paddedRows)
        }
        widestInput = (input + 7) / 8 * 8
        widestRows = Swift.max(rows, (3 * tables.hiddenCount + 7) / 8 * 8)
        storage = .allocate(capacity: sums + tables.hiddenCount)
        reset()
    }

    deinit {
        storage.deallocate()
    }

    /// Forgets the stream: no frame before the next contributes (every running sum is 0: the
    /// zero padding), the GRU state is zero.
    func reset() {
        storage.update(repeating: 0)
    }

    /// The GRU state.
    private var state: UnsafeMutablePointer<Float> { storage.baseAddress! + (storage.count - hiddenCount) }

    /// Bytes an evaluation takes from the workspace: a batch's layer inputs (twice: the layer
    /// read and the one written), rows and their pointer tables, and the GRU's recurrent rows
    /// and next state.
    var workspaceBytes: Int {
        let b = Self.batchLimit
        return 2 * ScratchWorkspace.bytes(Float.self, b * widestInput) + ScratchWorkspace.bytes(Float.self, b * widestRows)
            + ScratchWorkspace.bytes(UnsafePointer<Float>?.self, b) + ScratchWorkspace.bytes(UnsafeMutablePointer<Float>?.self, b)
            + 2 * ScratchWorkspace.bytes(Float.self, widestRows)
    }

    /// The largest magnitude an input is taken at: far beyond any cue's range, small enough
    /// that no sum of the first layer overflows.
    static let inputLimit: Float = 1e9

    /// One frame: ``steps(_:count:into:)`` with `count` 1.
    func step(_ x: UnsafePointer<Float>, into p: UnsafeMutablePointer<Float>) {
        var vector = UnsafeMutablePointer(mutating: x)
        withUnsafePointer(to: &vector) { steps($0, count: 1, into: p) }
    }

    /// Advances `count` frames (`count ≤ batchLimit`) on the cue vectors `x[0 ..< count]`
    /// (``CueLane/count`` lanes each) and writes each frame's music, voice-activity and
    /// several-speakers probabilities into `p[3k ..< 3k + 3]` (``DetectionNetwork/Output``
    /// order). Non-finite inputs read as 0, the rest are clamped to ±``inputLimit``. Should a
    /// frame's output not be finite, its three are 0 and the GRU state stays as it was (the
    /// convolutions advance).
    func steps(_ x: UnsafePointer<UnsafeMutablePointer<Float>>, count: Int, into p: UnsafeMutablePointer<Float>) {
        precondition(count <= Self.batchLimit, "CompiledNetwork.steps: more than batchLimit frames")
        guard count > 0 else { return }
        let scope = workspace.enter(reserving: workspaceBytes)
        defer { scope.leave() }
        let b = Self.batchLimit
        var input = scope.take(Float.self, count: b * widestInput), spare = scope.take(Float.self, count: b * widestInput)
        let rows = scope.take(Float.self, count: b * widestRows)
        let inputTable = scope.take(UnsafePointer<Float>?.self, count: b)
        let rowTable = scope.take(UnsafeMutablePointer<Float>?.self, count: b)
        let recurrent = scope.take(Float.self, count: widestRows), next = scope.take(Float.self, count: widestRows)
        // The layer inputs: the gathered lanes, then each convolution's outputs (frame k at
        // `k·widestInput`).
        // Eight lanes at a time, each clamped as the scalar tail clamps it (a finite value's
        // `max(−limit, min(limit, v))` is the value or the bound it passes; `v − v` is 0 for a
        // finite value only).
        let n = inputCount, lanes = tables.lanes.baseAddress!
        let high = SIMD8<Float>(repeating: Self.inputLimit), low = SIMD8<Float>(repeating: -Self.inputLimit)
        for k in 0..<count {
            let v = x[k], row = input + k * widestInput
            var i = 0
            while i + 8 <= n {
                let value = SIMD8<Float>(
                    v[lanes[i]], v[lanes[i + 1]], v[lanes[i + 2]], v[lanes[i + 3]],
                    v[lanes[i + 4]], v[lanes[i + 5]], v[lanes[i + 6]], v[lanes[i + 7]])
                let clamped = value.replacing(with: high, where: value .> high).replacing(with: low, where: value .< low)
                UnsafeMutableRawPointer(row + i).storeBytes(
                    of: SIMD8<Float>.zero.replacing(with: clamped, where: value - value .== 0), as: SIMD8<Float>.self)
                i += 8
            }
            while i < n {
                let value = v[lanes[i]]
                row[i] = value.isFinite ? Swift.max(-Self.inputLimit, Swift.min(Self.inputLimit, value)) : 0
                i += 1
            }
        }
        var sums = storage.baseAddress!
        for l in 0..<layerCount {
            let layer = tables.convolutions[l], width = tables.widths[l], r = layer.rows / width
            let padded = layer.paddedRows
            for k in 0..<count {
                inputTable[k] = UnsafePointer(input + k * widestInput)
                rowTable[k] = rows + k * padded
            }
            layer.apply(inputTable, count: count, into: rowTable)
            // Frame by frame: the output is the running sum plus the newest tap; the sums move
            // one frame on, each taking this frame's tap for it.
            let pending = (width - 1) * r
            for k in 0..<count {
                let u = rows + k * padded, out = spare + k * widestInput
                let newest = u + (width - 1) * r
                if width == 1 {
                    for o in 0..<r { out[o] = Swift.max(0, newest[o]) }
                    continue
                }
                for o in 0..<r { out[o] = Swift.max(0, sums[o] + newest[o]) }
                // sums[d] (output of the frame d + 1 after this one) ← sums[d + 1] + tap w − 2 − d.
                for d in 0..<(width - 2) {
                    let to = sums + d * r, from = sums + (d + 1) * r, tap = u + (width - 2 - d) * r
                    for o in 0..<r { to[o] = from[o] + tap[o] }
                }
                (sums + (width - 2) * r).update(from: u, count: r)
            }
            sums += pending
            swap(&input, &spare)
        }
        // The GRU: every frame's input rows at once, then the state through them in order.
        let h = hiddenCount, s = state, padded = tables.gruInput.paddedRows
        for k in 0..<count {
            inputTable[k] = UnsafePointer(input + k * widestInput)
            rowTable[k] = rows + k * padded
        }
        tables.gruInput.apply(inputTable, count: count, into: rowTable)
        let o = tables.output.baseAddress!
        for k in 0..<count {
            let a = rows + k * padded, out = p + 3 * k
            tables.gruRecurrent.apply(s, into: recurrent)
            CompiledModel.gatedUpdate(inputRows: a, recurrentRows: recurrent, gates: a, state: s, into: next, count: h)
            var zMusic = tables.outputBias.0, zSpeech = tables.outputBias.1, zMulti = tables.outputBias.2
            for j in 0..<h {
                zMusic += o[j] * next[j]
                zSpeech += o[h + j] * next[j]
                zMulti += o[2 * h + j] * next[j]
            }
            guard zMusic.isFinite, zSpeech.isFinite, zMulti.isFinite else {
                out[0] = 0; out[1] = 0; out[2] = 0
                continue
            }
            s.update(from: next, count: h)
            out[0] = CompiledModel.sigmoid(zMusic)
            out[1] = CompiledModel.sigmoid(zSpeech)
            out[2] = CompiledModel.sigmoid(zMulti)
        }
    }

    /// The GRU state, for tests (allocates).
    var stateValues: [Float] { Array(UnsafeBufferPointer(start: state, count: hiddenCount)) }
}

extension CompiledNetwork: MemoryAccounting {
    /// The layers' tables (shared by every instance with the same network), an evaluation's
    /// buffers (the thread's workspace) and, owned, the running sums and the GRU state.
    var memoryFootprint: MemoryFootprint {
        MemoryFootprint(ownedBytes: MemoryFootprint.bytes(storage), sharedBytes: tables.allocatedBytes, workspaceBytes: workspaceBytes)
    }
}
