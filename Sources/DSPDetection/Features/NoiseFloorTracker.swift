import DSPSpectral

/// Tracks the background-noise power per band by minimum statistics.
///
/// Each band's power is smoothed (`S_b ← α·S_b + (1−α)·P_b`, α = ``smoothing``) and the
/// noise estimate is the minimum of `S_b` over the last ``windowSeconds`` (kept as the minima
/// of `subwindowCount` sub-windows, so the sliding minimum costs O(1) per frame), times a bias
/// factor that compensates for the minimum of a fluctuating power lying below its mean.
/// Speech pauses of a few hundred milliseconds inside the window are enough for the estimate
/// to find the noise under continuous speech. Reference: R. Martin, "Noise power spectral
/// density estimation based on optimal smoothing and minimum statistics", IEEE Trans. Speech
/// and Audio Processing 9(5), 2001 (a simplified form: fixed α and bias).
///
/// Before the first full window the estimate is the minimum seen so far. Never allocates
/// after `init`.
public final class NoiseFloorTracker {
    /// Bands tracked.
    public let bandCount: Int
    /// Smoothing factor α of the band powers, per frame.
    public let smoothing: Float
    /// Bias factor the minimum is multiplied by (≥ 1).
    public let bias: Float
    /// Length of the minimum search, seconds.
    public let windowSeconds: Double

    private let subwindowCount: Int
    private let subwindowFrames: Int
    private let smoothed: UnsafeMutableBufferPointer<Float>
    /// `subwindowCount × bandCount` minima of completed sub-windows (a ring).
    private let minima: UnsafeMutableBufferPointer<Float>
    private let current: UnsafeMutableBufferPointer<Float>
    private let noise: UnsafeMutableBufferPointer<Float>
    private var framesInSubwindow = 0
    private var completedSubwindows = 0
    private var ringIndex = 0
    private var started = false

    /// Creates a tracker for `bandCount` bands updated every `frameSeconds`.
    ///
    /// - Parameters:
    ///   - bandCount: Bands, ≥ 1.
    ///   - frameSeconds: Time between updates, seconds (the analysis hop).
    ///   - windowSeconds: Minimum-search length, seconds; default 1.5.
    ///   - smoothing: α, 0…0.99; default 0.7 (about 50 ms at a 16 ms hop).
    ///   - bias: Factor on the minimum; default 1.6 (+2 dB).
    public init(bandCount: Int, frameSeconds: Double, windowSeconds: Double = 1.5, smoothing: Float = 0.7, bias: Float = 1.6) {
        precondition(bandCount >= 1 && frameSeconds > 0 && windowSeconds > 0)
        self.bandCount = bandCount
        self.smoothing = smoothing
        self.bias = bias
        self.windowSeconds = windowSeconds
        subwindowCount = 6
        subwindowFrames = max(1, Int((windowSeconds / frameSeconds / Double(subwindowCount)).rounded()))
        smoothed = .allocate(capacity: bandCount); smoothed.initialize(repeating: 0)
        minima = .allocate(capacity: bandCount * subwindowCount); minima.initialize(repeating: .infinity)
        current = .allocate(capacity: bandCount); current.initialize(repeating: .infinity)
        noise = .allocate(capacity: bandCount); noise.initialize(repeating: 0)
    }

    deinit {
        smoothed.deallocate(); minima.deallocate(); current.deallocate(); noise.deallocate()
    }

    /// The noise estimate per band, in the units of the band powers.
    public var noisePowers: UnsafeBufferPointer<Float> { UnsafeBufferPointer(noise) }
    /// The smoothed band powers.
    public var smoothedPowers: UnsafeBufferPointer<Float> { UnsafeBufferPointer(smoothed) }

    /// Feeds one frame's band powers and updates the estimate.
    ///
    /// - Precondition: `bandPowers.count == bandCount`.
    public func update(_ bandPowers: UnsafeBufferPointer<Float>) {
        precondition(bandPowers.count == bandCount)
        let a = smoothing
        if !started {
            for b in 0..<bandCount { smoothed[b] = bandPowers[b] }
            started = true
        } else {
            for b in 0..<bandCount { smoothed[b] = a * smoothed[b] + (1 - a) * bandPowers[b] }
        }
        for b in 0..<bandCount { current[b] = min(current[b], smoothed[b]) }
        // Minimum over the completed sub-windows in the ring and the current one.
        // Per band the same `min` chain as `m = current[b]; for s { m = min(m, minima[s][b]) }`,
        // in the same order; walked sub-window by sub-window so the inner loop runs along the
        // bands (contiguous, vectorised).
        for b in 0..<bandCount { noise[b] = current[b] }
        for s in 0..<min(completedSubwindows, subwindowCount) {
            let row = minima.baseAddress! + s * bandCount
            for b in 0..<bandCount { noise[b] = min(noise[b], row[b]) }
        }
        for b in 0..<bandCount { noise[b] *= bias }
        framesInSubwindow += 1
        if framesInSubwindow == subwindowFrames {
            for b in 0..<bandCount {
                minima[ringIndex * bandCount + b] = current[b]
                current[b] = .infinity
            }
            ringIndex = (ringIndex + 1) % subwindowCount
            completedSubwindows += 1
            framesInSubwindow = 0
        }
    }

    /// Forgets the estimate.
    public func reset() {
        smoothed.update(repeating: 0)
        minima.update(repeating: .infinity)
        current.update(repeating: .infinity)
        noise.update(repeating: 0)
        framesInSubwindow = 0
        completedSubwindows = 0
        ringIndex = 0
        started = false
    }
}
