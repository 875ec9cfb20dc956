// SpectralAnalyzer's framing: the ring the stream is copied into, the hop logic that cuts
// it into overlapping frames (a batch of `framesPerBatch` at a time, whatever the push size),
// the final frames and the reset.

import DSPCore
internal import CDSPKernels

extension SpectralAnalyzer {
    /// Pushes `input` and calls `body` for each frame it completes, in order, a batch at a time
    /// (``Configuration-swift.struct/framesPerBatch``, four by default): frames wait until
    /// their batch is complete (a stream's last up to `framesPerBatch − 1` come with
    /// ``flush(_:)``), so that with batches of four they take the four-frame path whatever the
    /// push size. Never allocates.
    ///
    /// The input is copied into the ring as far as it fits; the frames it completes are then
    /// analysed in order, their window dot products and hop energies (sequential eight-lane
    /// sums, latency-bound one at a time) taken up to four frames at a time by
    /// `cdsp_spectral_frame_dots`, bit-identical to `cdsp_spectral_dot` per frame. Four
    /// complete frames whose windows are finite go through the rest of the analysis together
    /// (`analyzeFour`: the same operations per frame, bit for bit, the callbacks in frame
    /// order after the four are done); others one at a time. Frames depend only on stream
    /// positions, so neither how the input is chunked nor the batch size changes a frame.
    public func process(_ input: UnsafeBufferPointer<Float>, _ body: (SpectralFrame) -> Void) {
        enter(); defer { ownership.release() }
        push(input) { frames in for frame in frames { body(frame) } }
    }

    /// ``process(_:_:)`` handing `body` a batch's frames together: the four of a four-frame
    /// batch in one call (every one's buffers valid during it), any other frame alone. For a
    /// consumer that does work per batch rather than per frame (the detector's models read
    /// their weights once for four frames). The frames and their order are ``process(_:_:)``'s.
    package func processBatches(_ input: UnsafeBufferPointer<Float>, _ body: (UnsafeBufferPointer<SpectralFrame>) -> Void) {
        enter(); defer { ownership.release() }
        push(input, body)
    }

    /// ``processBatches(_:_:)`` for a caller holding the ownership flag.
    func push(_ input: UnsafeBufferPointer<Float>, _ body: (UnsafeBufferPointer<SpectralFrame>) -> Void) {
        guard let source = input.baseAddress else { return }
        samplesPushed += Int64(input.count)
        let scope = enterWorkspace()
        defer { scope.leave() }
        let scratch = Scratch(scope, layout)
        let batchWindowDots = scratch.batchWindowDots, batchHopEnergies = scratch.batchHopEnergies
        var offset = 0
        while offset < input.count {
            let n = min(ringCapacity - frameStart - fill, input.count - offset)
            cdsp_spectral_copy(ring + frameStart + fill, source + offset, n)
            fill += n
            offset += n
            var complete = fill >= windowLength ? (fill - windowLength) / hopLength + 1 : 0
            complete -= complete % framesPerBatch  // whole batches only; the rest wait for their batch
            while complete > 0 {
                let batch = min(4, complete)
                cdsp_spectral_frame_dots(
                    ring + frameStart, hopLength, batch, window.baseAddress!, windowLength, windowLength - hopLength,
                    hopLength, batchWindowDots, batchHopEnergies)
                if batch == 4, allFinite(scratch) {
                    analyzeFour(scratch, body)
                    frameStart += 4 * hopLength
                    fill -= 4 * hopLength
                    complete -= 4
                    continue
                }
                for i in 0..<batch {
                    analyze(
                        UnsafeBufferPointer(start: ring + frameStart, count: windowLength), validCount: hopLength,
                        sums: (batchWindowDots[i], batchHopEnergies[i]), scratch) { Self.handOver($0, scratch, body) }
                    frameStart += hopLength
                    fill -= hopLength
                }
                complete -= batch
            }
            // Move the frame being assembled to the front when the next frame would run past the
            // end, or when the ring is full up to its end while frames wait for their batch (a
            // batch size that does not divide the frames per refill: nothing more would fit).
            if frameStart + windowLength > ringCapacity || (frameStart > 0 && frameStart + fill == ringCapacity) {
                ring.update(from: ring + frameStart, count: fill)
                frameStart = 0
            }
        }
    }

    /// Ends the stream: emits the complete frames still waiting for their batch, then the frame
    /// of a final partial hop (zero-padded; its ``SpectralFeatures/validCount`` is the real
    /// sample count), then resets.
    public func flush(_ body: (SpectralFrame) -> Void) {
        enter(); defer { ownership.release() }
        drain { frames in for frame in frames { body(frame) } }
    }

    /// ``flush(_:)`` handing each frame to `body` alone, as ``processBatches(_:_:)`` does.
    package func flushBatches(_ body: (UnsafeBufferPointer<SpectralFrame>) -> Void) {
        enter(); defer { ownership.release() }
        drain(body)
    }

    /// ``flushBatches(_:)`` for a caller holding the ownership flag.
    func drain(_ body: (UnsafeBufferPointer<SpectralFrame>) -> Void) {
        let scope = enterWorkspace()
        defer { scope.leave() }
        let scratch = Scratch(scope, layout)
        // Complete frames still waiting for their batch, one at a time.
        while fill >= windowLength {
            analyze(UnsafeBufferPointer(start: ring + frameStart, count: windowLength), validCount: hopLength, scratch) {
                Self.handOver($0, scratch, body)
            }
            frameStart += hopLength
            fill -= hopLength
        }
        let valid = fill - (windowLength - hopLength)
        if valid > 0 {
            (ring + frameStart + fill).update(repeating: 0, count: windowLength - fill)
            analyze(UnsafeBufferPointer(start: ring + frameStart, count: windowLength), validCount: valid, scratch) {
                Self.handOver($0, scratch, body)
            }
        }
        resetStream()
    }

    /// One frame handed to a batch consumer alone (in the scratch's first frame slot).
    @inline(__always)
    static func handOver(_ frame: SpectralFrame, _ scratch: Scratch, _ body: (UnsafeBufferPointer<SpectralFrame>) -> Void) {
        scratch.slotFrames[0] = frame
        body(UnsafeBufferPointer(start: scratch.slotFrames, count: 1))
    }

    /// Forgets the stream; the next ``process(_:_:)`` starts at frame 0.
    public func reset() {
        enter(); defer { ownership.release() }
        resetStream()
    }

    /// ``reset()`` for a caller holding the ownership flag (and `init`).
    func resetStream() {
        frameStart = 0
        frameIndex = 0
        samplesPushed = 0
        hasPrevious = false
        previousBandLevels.update(repeating: 0)
        prime()
    }

    /// Fills the window's history with zeros so that frame 0's hop starts at sample 0.
    func prime() {
        let history = windowLength - hopLength
        frameStart = 0
        ring.update(repeating: 0, count: history)
        fill = history
    }

    // MARK: The buffer tier (StreamingProcessor)

    /// Frames emitted once `total` samples have been pushed: the complete frames, in whole
    /// batches of ``framesPerBatch``.
    @inline(__always)
    func framesDue(after total: Int64) -> Int64 {
        let complete = total / Int64(hopLength)
        return complete - complete % Int64(framesPerBatch)
    }

    /// The frames the next push of `inputCount` samples emits (exact): the hops it completes,
    /// in whole batches of ``framesPerBatch`` (a multiple of it).
    public func maxOutputCount(forInputCount inputCount: Int) -> Int {
        enter(); defer { ownership.release() }
        return dueCount(forInputCount: inputCount)
    }

    /// ``maxOutputCount(forInputCount:)`` for a caller holding the ownership flag.
    func dueCount(forInputCount inputCount: Int) -> Int {
        Int(framesDue(after: samplesPushed + Int64(Swift.max(0, inputCount))) - framesDue(after: samplesPushed))
    }

    /// A frame capacity enough for any push of up to `inputCount` samples in any state:
    /// `⌊inputCount / hop⌋ + framesPerBatch` (the push completes at most `⌊inputCount / hop⌋ + 1`
    /// hops and releases up to `framesPerBatch − 1` held ones).
    public func outputCapacity(forInputCount inputCount: Int) -> Int {
        Swift.max(0, inputCount) / hopLength + framesPerBatch
    }

    /// The most samples, at most `inputCount`, whose frames fit in `room` frames: up to one
    /// sample before the batch that would no longer fit (so a room under ``framesPerBatch``
    /// takes no sample once a batch is due).
    public func acceptedCount(_ inputCount: Int, room: Int) -> Int {
        enter(); defer { ownership.release() }
        return accepted(inputCount, room: room)
    }

    /// ``acceptedCount(_:room:)`` for a caller holding the ownership flag.
    func accepted(_ inputCount: Int, room: Int) -> Int {
        guard dueCount(forInputCount: inputCount) > room else { return Swift.max(0, inputCount) }
        let batch = Int64(framesPerBatch)
        let due = framesDue(after: samplesPushed) + Int64(room) - Int64(room) % batch
        return Swift.max(0, Swift.min(inputCount, Int((due + batch) * Int64(hopLength) - 1 - samplesPushed)))
    }

    /// Pushes `input`, writing the features of the frames it completes into `output`; takes
    /// only the samples whose frames fit. Never allocates.
    public func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<SpectralFeatures>
    ) -> ProcessResult {
        enter(); defer { ownership.release() }
        let take = accepted(input.count, room: output.count)
        var produced = 0
        push(UnsafeBufferPointer(rebasing: input[..<take])) { frames in
            for frame in frames {
                output[produced] = frame.features
                produced += 1
            }
        }
        return ProcessResult(consumed: take, produced: produced)
    }

    /// At most ``framesPerBatch`` frames: up to `framesPerBatch − 1` complete ones waiting for
    /// their batch and a final partial hop (4 by default).
    public var maxFlushOutputCount: Int { framesPerBatch }

    /// Ends the stream (``flush(_:)``), writing the features of the frames it emits.
    /// - Precondition: `output` has room for ``maxFlushOutputCount`` frames.
    public func flush(into output: UnsafeMutableBufferPointer<SpectralFeatures>) -> Int {
        enter(); defer { ownership.release() }
        var produced = 0
        drain { frames in
            for frame in frames {
                precondition(produced < output.count, "SpectralAnalyzer.flush: output smaller than maxFlushOutputCount")
                output[produced] = frame.features
                produced += 1
            }
        }
        return produced
    }
}
