import DSPCore
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
///
/// **Contract.** A ``/DSPCore/StreamingProcessor`` from band powers to noise floors: the input is
/// frames of ``bandCount`` powers back to back, the output one frame of ``bandCount`` noise
/// estimates (``noisePowers`` after that frame) per input frame, with no delay. A buffer may end
/// inside a frame (the partial frame is carried). ``flush(into:)`` writes nothing: a final partial
/// frame is not a frame (no band power can stand in for the missing ones), so it is discarded and
/// counted in ``discardedSampleCount``; the tracker is then as after ``reset()``.
/// ``update(_:)`` is the one-frame call (what ``AcousticDetector``'s cue tracking calls).
///
/// Not `Sendable`, unlike the streaming units around it: it lends its state as pointers
/// (``noisePowers``, ``smoothedPowers``), which no ownership flag can guard. Use one from one
/// thread, or move it with `sending`; the detector and the reverberation estimator each own
/// theirs privately.
public final class NoiseFloorTracker: StreamingProcessor {
    /// Input element: a band power (any power unit; the estimate is in the same unit).
    public typealias InputSample = Float
    /// Output element: a band's noise estimate, in the unit of the input powers.
    public typealias OutputSample = Float

    /// What a tracker is built for.
    public struct Configuration: Equatable, Sendable {
        /// Bands per frame. Range 1…4096; no default.
        public var bandCount: Int
        /// Time between frames (the analysis hop), seconds. Range 0.0001…10; no default.
        public var frameSeconds: Double
        /// Length of the minimum search, seconds. Range `frameSeconds`…600; default 1.5.
        public var windowSeconds: Double
        /// Smoothing factor α of the band powers, per frame. Range 0…0.99; default 0.7 (about
        /// 50 ms at a 16 ms hop).
        public var smoothing: Float
        /// Factor the minimum is multiplied by. Range 1…10 (0…+10 dB); default 1.6 (+2 dB).
        public var bias: Float

        /// Creates a configuration; see each property for its range and default.
        public init(bandCount: Int, frameSeconds: Double, windowSeconds: Double = 1.5, smoothing: Float = 0.7, bias: Float = 1.6) {
            self.bandCount = bandCount
            self.frameSeconds = frameSeconds
            self.windowSeconds = windowSeconds
            self.smoothing = smoothing
            self.bias = bias
        }

        /// Throws the first setting out of range, in the order of the properties.
        public func validate() throws(ConfigurationError) {
            try ConfigurationError.check("bandCount", bandCount, in: 1...4096)
            try ConfigurationError.check("frameSeconds", frameSeconds, in: 0.0001...10)
            try ConfigurationError.check("windowSeconds", windowSeconds, in: frameSeconds...600)
            try ConfigurationError.check("smoothing", smoothing, in: 0...0.99)
            try ConfigurationError.check("bias", bias, in: 1...10)
        }
    }

    /// The settings, as validated.
    public let configuration: Configuration
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
    /// The partial input frame carried between ``process(_:into:)`` calls.
    private let carry: UnsafeMutablePointer<Float>
    private var carryCount = 0
    /// Band powers of final partial frames that ``flush(into:)`` discarded, since construction
    /// or ``reset()``.
    public private(set) var discardedSampleCount = 0

    /// Creates a tracker for `bandCount` bands updated every `frameSeconds`.
    ///
    /// - Parameters:
    ///   - bandCount: Bands, 1…4096.
    ///   - frameSeconds: Time between updates, seconds (the analysis hop), 0.0001…10.
    ///   - windowSeconds: Minimum-search length, seconds, `frameSeconds`…600; default 1.5.
    ///   - smoothing: α, 0…0.99; default 0.7 (about 50 ms at a 16 ms hop).
    ///   - bias: Factor on the minimum, 1…10; default 1.6 (+2 dB).
    /// - Precondition: The values are in range (a ``/DSPCore/ConfigurationError`` traps); use
    ///   ``init(configuration:)`` to catch it.
    public convenience init(bandCount: Int, frameSeconds: Double, windowSeconds: Double = 1.5, smoothing: Float = 0.7, bias: Float = 1.6) {
        try! self.init(configuration: Configuration(
            bandCount: bandCount, frameSeconds: frameSeconds, windowSeconds: windowSeconds, smoothing: smoothing, bias: bias))
    }

    /// Validates `configuration` and allocates everything.
    public init(configuration: Configuration) throws(ConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        bandCount = configuration.bandCount
        smoothing = configuration.smoothing
        bias = configuration.bias
        windowSeconds = configuration.windowSeconds
        subwindowCount = 6
        subwindowFrames = max(1, Int((windowSeconds / configuration.frameSeconds / Double(subwindowCount)).rounded()))
        smoothed = .allocate(capacity: bandCount); smoothed.initialize(repeating: 0)
        minima = .allocate(capacity: bandCount * subwindowCount); minima.initialize(repeating: .infinity)
        current = .allocate(capacity: bandCount); current.initialize(repeating: .infinity)
        noise = .allocate(capacity: bandCount); noise.initialize(repeating: 0)
        carry = .allocate(capacity: bandCount); carry.initialize(repeating: 0, count: bandCount)
    }

    deinit {
        smoothed.deallocate(); minima.deallocate(); current.deallocate(); noise.deallocate(); carry.deallocate()
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

    // MARK: Streaming contract

    /// Each frame's floor is written as soon as the frame is complete: no delay.
    public var outputDelay: Int { 0 }

    /// The samples the frames that `inputCount` more powers complete give (whole frames).
    public func maxOutputCount(forInputCount inputCount: Int) -> Int {
        (carryCount + Swift.max(0, inputCount)) / bandCount * bandCount
    }

    /// 0: ``flush(into:)`` writes nothing.
    public var maxFlushOutputCount: Int { 0 }

    /// Feeds the whole frames of `input` (band powers, frame after frame) through
    /// ``update(_:)`` and writes each one's ``noisePowers`` into `output`; a trailing partial
    /// frame is carried. Takes only the frames whose output fits. Never allocates.
    public func process(
        _ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>
    ) -> ProcessResult {
        guard let source = input.baseAddress, !input.isEmpty else { return ProcessResult(consumed: 0, produced: 0) }
        let bands = bandCount
        var consumed = 0
        var produced = 0
        if carryCount > 0 {
            let n = Swift.min(bands - carryCount, input.count)
            // Completing the frame needs room for its output.
            if carryCount + n == bands, output.count < bands { return ProcessResult(consumed: 0, produced: 0) }
            (carry + carryCount).update(from: source, count: n)
            carryCount += n
            consumed = n
            if carryCount < bands { return ProcessResult(consumed: consumed, produced: 0) }
            emit(UnsafePointer(carry), into: output.baseAddress!)
            produced = bands
            carryCount = 0
        }
        let frames = Swift.min((input.count - consumed) / bands, (output.count - produced) / bands)
        for _ in 0..<frames {
            emit(source + consumed, into: output.baseAddress! + produced)
            consumed += bands
            produced += bands
        }
        // Carry a trailing partial frame if the output had room for all whole frames.
        let rest = input.count - consumed
        if rest > 0, rest < bands {
            carry.update(from: source + consumed, count: rest)
            carryCount = rest
            consumed += rest
        }
        return ProcessResult(consumed: consumed, produced: produced)
    }

    /// Updates with the frame at `frame` and copies the estimate to `destination`.
    @inline(__always)
    private func emit(_ frame: UnsafePointer<Float>, into destination: UnsafeMutablePointer<Float>) {
        update(UnsafeBufferPointer(start: frame, count: bandCount))
        destination.update(from: noise.baseAddress!, count: bandCount)
    }

    /// Ends the stream: a carried partial frame is discarded (counted in
    /// ``discardedSampleCount``), nothing is written, and the estimate starts over as after
    /// ``reset()``. Returns 0.
    public func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        let discarded = discardedSampleCount + carryCount
        reset()
        discardedSampleCount = discarded
        return 0
    }

    /// Forgets the estimate, a carried partial frame and ``discardedSampleCount``.
    public func reset() {
        smoothed.update(repeating: 0)
        minima.update(repeating: .infinity)
        current.update(repeating: .infinity)
        noise.update(repeating: 0)
        framesInSubwindow = 0
        completedSubwindows = 0
        ringIndex = 0
        started = false
        carryCount = 0
        discardedSampleCount = 0
    }
}

extension NoiseFloorTracker: MemoryAccounting {
    /// The per-band smoothed powers, minima, current minima, noise estimates and carry.
    public var memoryFootprint: MemoryFootprint {
        .owned(MemoryFootprint.bytes(smoothed) + MemoryFootprint.bytes(minima) + MemoryFootprint.bytes(current)
            + MemoryFootprint.bytes(noise) + MemoryFootprint.bytes(Float.self, bandCount))
    }
}
