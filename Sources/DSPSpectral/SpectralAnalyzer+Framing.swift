// SpectralAnalyzer's framing: the ring the stream is copied into, the hop logic that cuts
// it into overlapping frames (four at a time, whatever the push size), the final frames and
// the reset.

internal import CDSPKernels

extension SpectralAnalyzer {
    /// Pushes `input` and calls `body` for each frame it completes, in order, four at a time:
    /// frames wait until four are complete (a stream's last up to three come with
    /// ``flush(_:)``), so that they take the four-frame path whatever the push size. Never
    /// allocates.
    ///
    /// The input is copied into the ring as far as it fits; the frames it completes are then
    /// analysed in order, their window dot products and hop energies (sequential eight-lane
    /// sums, latency-bound one at a time) taken four frames at a time by
    /// `cdsp_spectral_frame_dots`, bit-identical to `cdsp_spectral_dot` per frame. Four
    /// complete frames whose windows are finite go through the rest of the analysis together
    /// (`analyzeFour`: the same operations per frame, bit for bit, the callbacks in frame
    /// order after the four are done); others one at a time. Frames depend only on stream
    /// positions, so how the input is chunked changes nothing.
    public func process(_ input: UnsafeBufferPointer<Float>, _ body: (SpectralFrame) -> Void) {
        guard let source = input.baseAddress else { return }
        var offset = 0
        while offset < input.count {
            let n = min(ringCapacity - frameStart - fill, input.count - offset)
            cdsp_spectral_copy(ring + frameStart + fill, source + offset, n)
            fill += n
            offset += n
            var complete = fill >= windowLength ? (fill - windowLength) / hopLength + 1 : 0
            complete -= complete % 4  // whole batches only; the rest wait for their fourth frame
            while complete > 0 {
                let batch = min(4, complete)
                cdsp_spectral_frame_dots(
                    ring + frameStart, hopLength, batch, window.baseAddress!, windowLength, windowLength - hopLength,
                    hopLength, batchWindowDots, batchHopEnergies)
                if batch == 4, allFinite() {
                    analyzeFour(body)
                    frameStart += 4 * hopLength
                    fill -= 4 * hopLength
                    complete -= 4
                    continue
                }
                for i in 0..<batch {
                    analyze(
                        UnsafeBufferPointer(start: ring + frameStart, count: windowLength), validCount: hopLength,
                        sums: (batchWindowDots[i], batchHopEnergies[i]), body)
                    frameStart += hopLength
                    fill -= hopLength
                }
                complete -= batch
            }
            if frameStart + windowLength > ringCapacity {
                ring.update(from: ring + frameStart, count: fill)
                frameStart = 0
            }
        }
    }

    /// Ends the stream: emits the complete frames still waiting for their batch, then the frame
    /// of a final partial hop (zero-padded; its ``SpectralFeatures/validCount`` is the real
    /// sample count), then resets.
    public func flush(_ body: (SpectralFrame) -> Void) {
        // Complete frames still waiting for their batch, one at a time.
        while fill >= windowLength {
            analyze(UnsafeBufferPointer(start: ring + frameStart, count: windowLength), validCount: hopLength, body)
            frameStart += hopLength
            fill -= hopLength
        }
        let valid = fill - (windowLength - hopLength)
        if valid > 0 {
            (ring + frameStart + fill).update(repeating: 0, count: windowLength - fill)
            analyze(UnsafeBufferPointer(start: ring + frameStart, count: windowLength), validCount: valid, body)
        }
        reset()
    }

    /// Forgets the stream; the next ``process(_:_:)`` starts at frame 0.
    /// Forgets the stream; the next ``process(_:_:)`` starts at frame 0.
    public func reset() {
        frameStart = 0
        frameIndex = 0
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
}
