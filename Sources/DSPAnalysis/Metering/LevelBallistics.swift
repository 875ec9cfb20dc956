import DSPCore
import RealModule

/// Display ballistics for a level meter UI: a smoothed RMS level and a held peak.
///
/// Fed one ``FrameLevel`` per frame of `frameDurationSeconds`:
/// - **Smoothed level.** A one-pole smoother on the mean square, with separate time
///   constants: `p ← p + (1 − e^(−T/τ)) · (x − p)`, `τ` = ``Configuration/attackSeconds`` when
///   the frame is louder than `p`, ``Configuration/releaseSeconds`` otherwise (`T` = frame
///   duration). Reported as ``Reading/smoothedDBFS`` = `10·log10(p)`.
/// - **Peak hold.** The highest sample peak is held for ``Configuration/peakHoldSeconds``,
///   then falls at ``Configuration/peakFallDBPerSecond`` until a higher peak arrives.
///   Reported as ``Reading/heldPeakDBFS``.
///
/// A value type: copy it per meter; ``update(with:)`` never allocates.
public struct LevelBallistics: Sendable {
    /// Ballistics settings.
    public struct Configuration: Equatable, Sendable {
        /// Duration of one frame in seconds (e.g. 1024 / 48 000). Range (0, 10]; no default.
        public var frameDurationSeconds: Double
        /// Attack time constant in seconds. Range [0, 10]; default 0.010 (10 ms).
        public var attackSeconds: Double = 0.010
        /// Release time constant in seconds. Range [0, 10]; default 0.300 (300 ms, VU-like).
        public var releaseSeconds: Double = 0.300
        /// How long a peak is held, in seconds. Range [0, 60]; default 1.5.
        public var peakHoldSeconds: Double = 1.5
        /// How fast a held peak falls afterwards, in dB per second. Range (0, 1000]; default
        /// 11.8 (20 dB in 1.7 s, the IEC 60268-10 type I PPM return time).
        public var peakFallDBPerSecond: Double = 11.8

        /// Creates a configuration for frames of `frameDurationSeconds`.
        public init(frameDurationSeconds: Double, attackSeconds: Double = 0.010, releaseSeconds: Double = 0.300,
                    peakHoldSeconds: Double = 1.5, peakFallDBPerSecond: Double = 11.8) {
            self.frameDurationSeconds = frameDurationSeconds
            self.attackSeconds = attackSeconds
            self.releaseSeconds = releaseSeconds
            self.peakHoldSeconds = peakHoldSeconds
            self.peakFallDBPerSecond = peakFallDBPerSecond
        }
    }

    /// What a display shows after a frame.
    @frozen
    public struct Reading: Equatable, Sendable {
        /// Smoothed RMS level in dBFS (−∞ for silence).
        public var smoothedDBFS: Double
        /// Held sample peak in dBFS (−∞ for silence).
        public var heldPeakDBFS: Double

        /// Creates a reading.
        @inlinable
        public init(smoothedDBFS: Double, heldPeakDBFS: Double) {
            self.smoothedDBFS = smoothedDBFS
            self.heldPeakDBFS = heldPeakDBFS
        }
    }

    /// The settings.
    public let configuration: Configuration
    private let attackCoefficient: Double
    private let releaseCoefficient: Double
    private var smoothedPower = 0.0
    private var heldPeakDBFS = -Double.infinity
    private var holdRemainingSeconds = 0.0

    /// Creates ballistics; throws if a setting is out of range.
    public init(configuration: Configuration) throws(ConfigurationError) {
        try ConfigurationError.check("frameDurationSeconds", configuration.frameDurationSeconds, in: 1e-6...10)
        try ConfigurationError.check("attackSeconds", configuration.attackSeconds, in: 0...10)
        try ConfigurationError.check("releaseSeconds", configuration.releaseSeconds, in: 0...10)
        try ConfigurationError.check("peakHoldSeconds", configuration.peakHoldSeconds, in: 0...60)
        try ConfigurationError.check("peakFallDBPerSecond", configuration.peakFallDBPerSecond, in: 1e-6...1000)
        self.configuration = configuration
        let t = configuration.frameDurationSeconds
        attackCoefficient = configuration.attackSeconds > 0 ? 1 - Double.exp(-t / configuration.attackSeconds) : 1
        releaseCoefficient = configuration.releaseSeconds > 0 ? 1 - Double.exp(-t / configuration.releaseSeconds) : 1
    }

    /// Advances by one frame and returns the new reading.
    @discardableResult
    public mutating func update(with level: FrameLevel) -> Reading {
        let x = level.meanSquare
        let k = x > smoothedPower ? attackCoefficient : releaseCoefficient
        smoothedPower += k * (x - smoothedPower)
        if smoothedPower < 1e-30 { smoothedPower = 0 }  // settle to true silence, no denormals

        let peak = level.peakDBFS
        let t = configuration.frameDurationSeconds
        if peak >= heldPeakDBFS {
            heldPeakDBFS = peak
            holdRemainingSeconds = configuration.peakHoldSeconds
        } else if holdRemainingSeconds >= t {
            holdRemainingSeconds -= t
        } else {
            let fallSeconds = t - holdRemainingSeconds
            holdRemainingSeconds = 0
            heldPeakDBFS = Swift.max(peak, heldPeakDBFS - configuration.peakFallDBPerSecond * fallSeconds)
        }
        return reading
    }

    /// The current reading.
    public var reading: Reading {
        Reading(smoothedDBFS: Decibels.fromPower(smoothedPower), heldPeakDBFS: heldPeakDBFS)
    }

    /// Returns to silence.
    public mutating func reset() {
        smoothedPower = 0
        heldPeakDBFS = -.infinity
        holdRemainingSeconds = 0
    }
}
