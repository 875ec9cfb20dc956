// The half-band first stage of a Resampler (48, 88.2, 96 → 16 kHz): the even/odd input
// history and the decimate-by-two kernel that feeds the polyphase stage.

extension Resampler {
    /// Moves the newest 2K − 1 pairs (and a partial one) of every channel's half-band
    /// history to the front.
    @inline(__always)
    func compactHalfBand() {
        let kept = halfBandTaps - 1
        let shift = pairIndex - kept
        guard shift > 0 else { return }
        for channel in 0..<channelCount {
            let even = halfBandHistory + channel * 2 * (halfBandCapacity + 16)
            let odd = even + halfBandCapacity + 16
            PolyphaseKernel.copy(even, even + shift, kept + 1)
            PolyphaseKernel.copy(odd, odd + shift, kept + 1)
        }
        pairIndex -= shift
    }

    /// Writes `n` interleaved input frames (zeros if `source` is nil) into the half-band
    /// history, then decimates every completed pair into the polyphase history at
    /// ``writeIndex`` (which the caller then advances). Returns the stage frames written.
    @inline(__always)
    func halfBandPush(_ source: UnsafePointer<Float>?, frameCount n: Int) -> Int {
        let channels = channelCount
        let oddOffset = halfBandCapacity + 16
        let first = pairIndex
        let pending = pendingEven
        let leading = pending == 1 && n > 0 ? 1 : 0
        let pairs = (n - leading) / 2
        let trailing = n - leading - 2 * pairs
        for channel in 0..<channels {
            let even = halfBandHistory + channel * 2 * oddOffset
            let odd = even + oddOffset
            var p = first
            if let source {
                let s = source + channel
                if leading == 1 {
                    odd[p] = s[0]
                    p += 1
                }
                PolyphaseKernel.splitEvenOdd(s + leading * channels, channels, pairs, even + p, odd + p)
                p += pairs
                if trailing == 1 { even[p] = s[(n - 1) * channels] }
            } else {
                if leading == 1 {
                    odd[p] = 0
                    p += 1
                }
                PolyphaseKernel.zero(even + p, pairs)
                PolyphaseKernel.zero(odd + p, pairs)
                p += pairs
                if trailing == 1 { even[p] = 0 }
            }
        }
        let completed = (pending + n) / 2
        pendingEven = (pending + n) % 2
        if completed > 0 {
            // Output for pair j: ½·even[j + 1 − K] + Σ_t tap[t]·odd[j + 1 − 2K + t].
            let k = halfBandTaps / 2
            for channel in 0..<channels {
                let even = halfBandHistory + channel * 2 * oddOffset
                PolyphaseKernel.halfBand(
                    even + (first + 1 - k), even + oddOffset + (first + 1 - halfBandTaps), halfBandCoefficients,
                    halfBandTaps, completed, history + channel * historyCapacity + writeIndex)
            }
        }
        pairIndex = first + completed
        stageFrames += completed
        return completed
    }
}
