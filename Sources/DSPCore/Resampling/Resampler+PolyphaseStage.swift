// The polyphase stage of a Resampler: the planar history, the (frame, phase) walk and the
// dispatched dot-product kernels (one per filter-bank layout).

extension Resampler {
    /// Outputs (skipped ones included) that become due once `frames` more stage frames are written:
    /// those k ≥ 0 with nextFrame + ⌊(nextPhase + k·M) / L⌋ < writeIndex + frames.
    @inline(__always)
    func dueOutputs(afterFrames frames: Int) -> Int {
        let ahead = writeIndex + frames - nextFrame
        guard ahead > 0 else { return 0 }
        return stepDivisor.quotient(ahead * layout.phaseCount - nextPhase + layout.step - 1)
    }

    /// Moves the newest T − 1 frames of every channel to the front of its history.
    func compact() {
        let kept = layout.tapsPerPhase - 1
        let shift = writeIndex - kept
        guard shift > 0 else { return }
        for channel in 0..<channelCount {
            let base = history + channel * historyCapacity
            PolyphaseKernel.copy(base, base + shift, kept)
        }
        writeIndex -= shift
        nextFrame -= shift
    }

    /// Writes `frameCount` interleaved frames from `source` (zeros if nil) into the history —
    /// which must have room — then computes every due output, at most `limit` walked
    /// (skipped ones included), into `output`. Returns the frames written to `output`.
    @inline(__always)
    func push(_ source: UnsafePointer<Float>?, frameCount: Int, into output: UnsafeMutablePointer<Float>, limit: Int) -> Int {
        let channels = channelCount
        let capacity = historyCapacity
        let start = writeIndex
        var added = frameCount
        // A mono staggered stage reads a push straight from the caller's buffer: only the first
        // chunk's worth of frames (read by the chunks that start in the history) is copied
        // now, and after the kernel the frames later calls read (``copyDirectTail``).
        var direct: UnsafePointer<Float>? = nil
        if firstStagePointer != nil, let source {
            added = firstStagePush(source, frameCount: frameCount)
        } else if halfBandTaps > 0 {
            added = halfBandPush(source, frameCount: frameCount)
        } else if let source {
            if channels == 1 {
                if let staggered, frameCount > staggered.maxSpan {
                    PolyphaseKernel.copy(history + start, source, staggered.maxSpan)
                    direct = source
                } else {
                    PolyphaseKernel.copy(history + start, source, frameCount)
                }
            } else {
                PolyphaseKernel.deinterleave(source, channels, frameCount, history + start, capacity)
            }
        } else {
            for channel in 0..<channels {
                PolyphaseKernel.zero(history + channel * capacity + start, frameCount)
            }
        }
        let end = start + added
        writeIndex = end
        if source != nil { streamFrames += frameCount }

        var frame = nextFrame
        var phase = nextPhase
        var skip = skipRemaining
        var walked = 0
        let l = layout.phaseCount
        let m = layout.step
        // Leading outputs to drop (trimsLeadingDelay): at most d of them per stream.
        while skip > 0 && frame < end && walked < limit {
            skip -= 1
            walked += 1
            PolyphaseKernel.advance(&frame, &phase, frameStep, phaseStep, l)
        }
        // Every remaining due output (frame + ⌊(phase + k·M)/L⌋ < end), up to the limit, in one
        // call of the dispatched C kernel.
        var written = 0
        if frame < end && walked < limit {
            written = Swift.min(stepDivisor.quotient(((end - frame) * l - phase) + m - 1), limit - walked)
        }
        if written > 0 {
            let taps = layout.tapsPerPhase
            if let staggered {
                // Groups of 8 slots; the first output is lane slot mod 8 of its group.
                let slot = phaseDivisor.remainder(phase * slotStep)
                let lane = slot & 7
                let lo = frame - (taps - 1)
                for channel in 0..<channels {
                    let x = UnsafePointer(history + channel * capacity)
                    PolyphaseKernel.polyphaseGroups(
                        staggered, x, direct ?? x, split: direct == nil ? end : start, lo - staggered.laneOffsets[slot],
                        lo, end, slot >> 3, (lane + written + 7) >> 3, lane, written, output + channel, channels)
                }
            } else if usesSmallKernel {
                PolyphaseKernel.polyphaseSmall(
                    bank, taps, history + (frame - (taps - 1)), capacity, channels,
                    phase, phaseDivisor.remainder(phase * slotStep), frameStep, phaseStep, l, written, output)
            } else {
                PolyphaseKernel.polyphase(
                    bank, taps, history + (frame - (taps - 1)), capacity, channels,
                    phase, phaseDivisor.remainder(phase * slotStep), frameStep, phaseStep, l, written, output)
            }
            let advance = phase + written * m
            frame += phaseDivisor.quotient(advance)
            phase = phaseDivisor.remainder(advance)
        }
        nextFrame = frame
        nextPhase = phase
        skipRemaining = skip
        streamOutputFrames += written
        if let direct, let staggered { copyDirectTail(direct, start: start, headEnd: start + staggered.maxSpan, end: end) }
        return written
    }

    /// After a push read straight from `source` (history frames `start ..< end`, of which
    /// `start ..< headEnd` were copied), copies the frames from `headEnd` on that later calls
    /// can read: those from the next output's window start, ``nextFrame`` − (T − 1). No call
    /// reads a frame below that, so the frames left unwritten (and whatever compaction moves
    /// of them) are never read.
    @inline(__always)
    func copyDirectTail(_ source: UnsafePointer<Float>, start: Int, headEnd: Int, end: Int) {
        let first = Swift.max(headEnd, nextFrame - (layout.tapsPerPhase - 1))
        guard first < end else { return }
        PolyphaseKernel.copy(history + first, source + (first - start), end - first)
    }
}
