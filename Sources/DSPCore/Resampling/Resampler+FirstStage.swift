// A polyphase first stage of a Resampler (44.1 → 24 → 16 kHz): a second Resampler driven
// through an unretained pointer, its output scattered into the polyphase stage's history.

extension Resampler {
    /// Calls `body` with the first stage, unretained (the caller has checked ``firstStagePointer != nil``).
    @inline(__always)
    func withFirstStage<R>(_ body: (Resampler) -> R) -> R {
        Unmanaged<Resampler>.fromOpaque(firstStagePointer.unsafelyUnwrapped)._withUnsafeGuaranteedRef(body)
    }

    /// Runs `n` interleaved input frames through the polyphase first stage into the history at
    /// ``writeIndex`` (de-interleaving through the scratch for several channels), which must
    /// have room for every output they make due (``roomFrames()``). Returns the stage frames.
    /// Calls the first stage's ``push(_:frameCount:into:limit:)`` directly: ``makeRoom()`` has
    /// made its room, ``roomFrames()`` bounded `n` by it, and whole frames leave it no carry.
    @inline(__always)
    func firstStagePush(_ source: UnsafePointer<Float>, frameCount n: Int) -> Int {
        if channelCount == 1 {
            let output = history + writeIndex
            return withFirstStage { $0.push(source, frameCount: n, into: output, limit: Int.max) }
        }
        let scratch = firstStageScratch
        let frames = withFirstStage { $0.push(source, frameCount: n, into: scratch, limit: Int.max) }
        scatterFirstStage(frames)
        return frames
    }

    /// Flushes the polyphase first stage's tail into the history (compacting first if needed)
    /// and advances ``writeIndex`` past it.
    @inline(__always)
    func appendFirstStageTail() {
        guard firstStagePointer != nil else { return }
        let channels = channelCount
        let pending = withFirstStage { $0.pendingFlushOutputCount } / channels
        if historyCapacity - writeIndex < pending { compact() }
        let room = historyCapacity - writeIndex
        let frames: Int
        if channels == 1 {
            let output = UnsafeMutableBufferPointer(start: history + writeIndex, count: room)
            frames = withFirstStage { $0.flush(into: output) }
        } else {
            let scratch = UnsafeMutableBufferPointer(start: firstStageScratch, count: room * channels)
            frames = withFirstStage { $0.flush(into: scratch) } / channels
            scatterFirstStage(frames)
        }
        writeIndex += frames
    }

    /// Copies `frames` interleaved frames from the first stage's scratch into the planar
    /// history at ``writeIndex``.
    @inline(__always)
    func scatterFirstStage(_ frames: Int) {
        PolyphaseKernel.deinterleave(firstStageScratch, channelCount, frames, history + writeIndex, historyCapacity)
    }
}
