import DSPCore
import RealModule

/// Summarises the acoustic environment a few times a second from per-frame detector features,
/// and recommends a recognizer with hysteresis.
///
/// Fed one ``AnalysisFrame`` per analysis frame (level, speech, music and multi-speaker
/// decisions, noise floor and spectral entropy, grouped from the detector's hops by
/// ``FrameGrouper``; ``AnalysisChain`` wires the three), it emits an
/// ``EnvironmentMeasurement`` at the end of the first frame that reaches each multiple of the
/// update interval `round(sampleRate / updateRateHz)` samples (8000 samples, 0.5 s, by default),
/// over the frames that ended within the last ``Configuration/windowSeconds``. Positions are
/// integer sample counts: measurement times never drift, however long the stream.
/// The definitions of every measure are on ``EnvironmentMeasurement``; the recognizer policy and
/// its hysteresis on ``RecommendationPolicy``.
///
/// Frames go in stream order. Non-finite inputs have a defined meaning: a NaN level reads as
/// digital silence (−∞), a NaN probability or entropy as 0, a NaN noise floor as "no estimate".
///
/// It is a ``/DSPCore/StreamingProcessor`` from frames to measurements: ``process(_:into:)`` takes
/// any number of frames and writes at most one measurement per frame; ``flush(into:)`` writes a
/// last measurement for the frames after the final one and readies the analyzer for a new stream;
/// ``finalize()`` returns the ended stream's ``EnvironmentSummary``. ``add(_:)`` is the same for
/// one frame. The window's frames live in a ring allocated at construction; nothing allocates
/// after `init`.
///
/// ```swift
/// let environment = try EnvironmentAnalyzer()
/// if let measurement = environment.add(frame) { print(measurement.categoryKey) }
/// ```
public final class EnvironmentAnalyzer: StreamAnalyzer, @unchecked Sendable {
    // @unchecked: the ring and the running totals below are reached only holding `ownership`
    // (see StreamOwnership).
    /// What the ring keeps of a frame.
    struct Entry {
        var end: Int64
        var samples: Int64
        /// Mean square (0 for silence or a NaN level).
        var power: Double
        /// Noise-floor mean square, NaN when unknown.
        var noisePower: Double
        var entropy: Double
        var isSpeech: Bool
        var isMusic: Bool
        var isMultiSpeaker: Bool
    }

    /// The settings this analyzer was built with.
    public let configuration: Configuration
    /// Samples between measurements, `round(sampleRate / updateRateHz)` (at least 1).
    public let updateIntervalSamples: Int64
    /// Samples each measurement looks back over, `round(sampleRate × windowSeconds)`.
    public let windowSamples: Int64
    private let minimumNoiseSamples: Int64
    private let holdSamples: Int64
    private let ring: UnsafeMutablePointer<Entry>
    private let ringCapacity: Int
    private var ringStart = 0
    private var ringCount = 0

    private var nextBoundary: Int64
    private var lastMeasurementEnd: Int64 = 0
    private var lastFrameEnd: Int64 = 0
    private var framesSinceMeasurement = 0
    private var current: RecognizerRecommendation
    private var pendingSince: Int64? = nil
    /// The latest background estimate a frame carried (NaN: none yet).
    private var background = Double.nan
    /// The latest reverberation estimate the frames carried.
    private var reverberation: ReverberationEstimate?

    private var categorySamples: (Int64, Int64, Int64, Int64, Int64) = (0, 0, 0, 0, 0)
    private var fastSamples: Int64 = 0
    private var accurateSamples: Int64 = 0
    private var changeCount = 0
    private var lastChange: Int64? = nil
    private var measurementCount = 0
    private var musicCount = 0
    private var multiCount = 0
    private var quietestNoise = Double.infinity
    private var loudestNoise = -Double.infinity
    /// A flushed stream's summary, until ``finalize()`` or the next stream's first frame.
    private var flushed: EnvironmentSummary?
    private let ownership = StreamOwnership()

    /// Takes the ownership flag; two overlapping calls stop the program.
    @inline(__always)
    private func enter() {
        if !ownership.acquire() { preconditionFailure("EnvironmentAnalyzer: overlapping calls from two threads (one stream, one caller at a time)") }
    }

    /// Creates an analyzer; throws ``/DSPCore/ConfigurationError`` quoting the first bad setting.
    public init(configuration: Configuration = Configuration()) throws(ConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        let rate = Double(configuration.sampleRate)
        updateIntervalSamples = Swift.max(1, Int64((rate / configuration.updateRateHz).rounded()))
        windowSamples = Swift.max(1, Int64((rate * configuration.windowSeconds).rounded()))
        minimumNoiseSamples = Int64((rate * configuration.minimumNoiseSeconds).rounded())
        holdSamples = Int64((rate * configuration.policy.holdSeconds).rounded())
        // Frames ending within the window, plus one that straddles its start.
        ringCapacity = Int((windowSamples + Int64(configuration.frameLength) - 1) / Int64(configuration.frameLength)) + 2
        ring = .allocate(capacity: ringCapacity)
        nextBoundary = updateIntervalSamples
        current = configuration.policy.initialRecommendation
    }

    deinit { ring.deallocate() }

    /// The recommendation in force (after hysteresis).
    public var recommendation: RecognizerRecommendation {
        enter(); defer { ownership.release() }
        return current
    }

    /// No delay: a measurement is made at the end of the frame that reaches an update time.
    public var outputDelay: Int { 0 }

    /// At most one measurement per frame.
    public func maxOutputCount(forInputCount inputCount: Int) -> Int { Swift.max(0, inputCount) }

    /// Adds `frames` in stream order, writing the measurements they complete into `output`;
    /// takes only as many frames as `output` has room for. Never allocates.
    public func process(
        _ frames: UnsafeBufferPointer<AnalysisFrame>, into output: UnsafeMutableBufferPointer<EnvironmentMeasurement>
    ) -> ProcessResult {
        enter(); defer { ownership.release() }
        let take = Swift.min(frames.count, output.count)
        var produced = 0
        for i in 0..<take {
            if let m = include(frames[i]) {
                output[produced] = m
                produced += 1
            }
        }
        return ProcessResult(consumed: take, produced: produced)
    }

    /// At most one measurement.
    public var maxFlushOutputCount: Int { 1 }

    /// Ends the stream: writes a measurement for the frames after the last one, if any, keeps
    /// the stream's summary for ``finalize()`` and readies the analyzer for a new stream.
    /// - Precondition: `output` has room for one measurement.
    public func flush(into output: UnsafeMutableBufferPointer<EnvironmentMeasurement>) -> Int {
        enter(); defer { ownership.release() }
        let last = measureRemainder()
        let ended = currentSummary()
        resetStream()
        flushed = ended
        guard let last else { return 0 }
        precondition(!output.isEmpty, "EnvironmentAnalyzer.flush: output smaller than maxFlushOutputCount (1)")
        output[0] = last
        return 1
    }

    /// Whether adding `frame` makes a measurement (its end reaches the next update time): where
    /// a caller with a noise estimator attaches ``AnalysisFrame/backgroundNoiseDBFS``.
    public func measures(after frame: AnalysisFrame) -> Bool {
        enter(); defer { ownership.release() }
        return frame.endSample >= nextBoundary
    }

    /// Adds one frame; returns a measurement when the frame reaches the next update time.
    /// Never allocates.
    public func add(_ frame: AnalysisFrame) -> EnvironmentMeasurement? {
        enter(); defer { ownership.release() }
        return include(frame)
    }

    /// ``add(_:)`` for a caller holding the flag.
    private func include(_ frame: AnalysisFrame) -> EnvironmentMeasurement? {
        flushed = nil
        if !frame.backgroundNoiseDBFS.isNaN { background = frame.backgroundNoiseDBFS }
        if let estimate = frame.reverberation { reverberation = estimate }
        let level = frame.levelDBFS.isNaN ? -Double.infinity : frame.levelDBFS
        let noise = frame.noiseFloorDBFS
        let entry = Entry(
            end: frame.endSample, samples: Int64(Swift.max(0, frame.sampleCount)),
            power: Decibels.toPower(level), noisePower: noise.isNaN ? .nan : Decibels.toPower(noise),
            entropy: frame.spectralEntropy.isNaN ? 0 : Swift.min(1, Swift.max(0, frame.spectralEntropy)),
            isSpeech: frame.isSpeech, isMusic: frame.isMusic, isMultiSpeaker: frame.isMultiSpeaker)
        if ringCount == ringCapacity {
            ringStart = (ringStart + 1) % ringCapacity
            ringCount -= 1
        }
        ring[(ringStart + ringCount) % ringCapacity] = entry
        ringCount += 1
        lastFrameEnd = entry.end
        framesSinceMeasurement += 1
        guard entry.end >= nextBoundary else { return nil }
        nextBoundary = (entry.end / updateIntervalSamples + 1) * updateIntervalSamples
        return measure(at: entry.end)
    }

    /// A measurement for the frames added since the last one, if any (end of stream).
    private func measureRemainder() -> EnvironmentMeasurement? {
        guard framesSinceMeasurement > 0, lastFrameEnd > lastMeasurementEnd else { return nil }
        return measure(at: lastFrameEnd)
    }

    /// The ended stream's summary: the one ``flush(into:)`` kept, or — without a flush — the
    /// current stream's, flushed first (its last measurement discarded). The analyzer is left as
    /// after ``reset()``.
    public func finalize() -> EnvironmentSummary {
        enter(); defer { ownership.release() }
        if let flushed {
            self.flushed = nil
            return flushed
        }
        _ = measureRemainder()
        let result = currentSummary()
        resetStream()
        return result
    }

    /// The summary of the measurements so far.
    public var summary: EnvironmentSummary {
        enter(); defer { ownership.release() }
        return currentSummary()
    }

    /// ``summary`` for a caller holding the flag.
    private func currentSummary() -> EnvironmentSummary {
        var s = EnvironmentSummary()
        let rate = Double(configuration.sampleRate)
        s.durationSeconds = Double(lastMeasurementEnd) / rate
        s.measurementCount = measurementCount
        s.secondsInCategory.veryQuiet = Double(categorySamples.0) / rate
        s.secondsInCategory.quiet = Double(categorySamples.1) / rate
        s.secondsInCategory.moderate = Double(categorySamples.2) / rate
        s.secondsInCategory.loud = Double(categorySamples.3) / rate
        s.secondsInCategory.veryLoud = Double(categorySamples.4) / rate
        s.secondsFast = Double(fastSamples) / rate
        s.secondsAccurate = Double(accurateSamples) / rate
        s.recommendationChangeCount = changeCount
        s.lastRecommendationChangeSeconds = lastChange.map { Double($0) / rate }
        s.finalRecommendation = current
        s.musicMeasurementCount = musicCount
        s.multipleSpeakersMeasurementCount = multiCount
        s.quietestNoiseDBFS = quietestNoise
        s.loudestNoiseDBFS = loudestNoise
        return s
    }

    /// Bradley's useful-to-detrimental ratio U50, dB: the early (first 50 ms) speech energy over
    /// the late reverberation plus the noise, `−10·log10(10^(−SNR/10) + 10^(−C50/10))`; the SNR
    /// alone when C50 is unknown. ±∞ pass through (a silent background leaves C50).
    public static func usefulToDetrimental(snrDB: Double, c50DB: Double?) -> Double {
        guard let c50DB, c50DB.isFinite else { return snrDB }
        if snrDB == -.infinity { return -.infinity }
        let detrimental = Decibels.toPower(-c50DB) + (snrDB == .infinity ? 0 : Decibels.toPower(-snrDB))
        return -Decibels.fromPower(detrimental)
    }

    /// Forgets the stream: empty window, initial recommendation, zero summary.
    public func reset() {
        enter(); defer { ownership.release() }
        resetStream()
    }

    private func resetStream() {
        flushed = nil
        ringStart = 0
        ringCount = 0
        nextBoundary = updateIntervalSamples
        lastMeasurementEnd = 0
        lastFrameEnd = 0
        framesSinceMeasurement = 0
        current = configuration.policy.initialRecommendation
        pendingSince = nil
        background = .nan
        reverberation = nil
        categorySamples = (0, 0, 0, 0, 0)
        fastSamples = 0
        accurateSamples = 0
        changeCount = 0
        lastChange = nil
        measurementCount = 0
        musicCount = 0
        multiCount = 0
        quietestNoise = .infinity
        loudestNoise = -.infinity
    }

    // MARK: Measuring

    private func measure(at end: Int64) -> EnvironmentMeasurement {
        let c = configuration
        let start = end - windowSamples
        var total: Int64 = 0
        var speech: Int64 = 0, music: Int64 = 0, multi: Int64 = 0, nonSpeech: Int64 = 0
        var speechEnergy = 0.0, nonSpeechEnergy = 0.0
        var trackerEnergy = 0.0, trackerSamples: Int64 = 0
        var entropySum = 0.0, entropySamples: Int64 = 0
        var quietest = Double.infinity
        for i in 0..<ringCount {
            let e = ring[(ringStart + i) % ringCapacity]
            guard e.end > start, e.end <= end else { continue }
            let n = e.samples
            total += n
            if e.isSpeech {
                speech += n
                speechEnergy += e.power * Double(n)
            } else {
                nonSpeech += n
                nonSpeechEnergy += e.power * Double(n)
            }
            if e.isMusic { music += n }
            if e.isMultiSpeaker { multi += n }
            if !e.noisePower.isNaN {
                trackerEnergy += e.noisePower * Double(n)
                trackerSamples += n
            }
            if e.power > 0 {
                entropySum += e.entropy * Double(n)
                entropySamples += n
            }
            if n > 0 { quietest = Swift.min(quietest, e.power) }
        }
        let totalD = Double(Swift.max(total, 1))

        // Background noise: the frames' background estimate; without one, non-speech frames,
        // else the tracker, else the quietest frame.
        let noisePower: Double
        let source: NoiseEstimateSource
        if !background.isNaN {
            noisePower = background == -.infinity ? 0 : Decibels.toPower(background)
            source = .backgroundEstimator
        } else if nonSpeech > 0, nonSpeech >= minimumNoiseSamples {
            noisePower = nonSpeechEnergy / Double(nonSpeech)
            source = .nonSpeechFrames
        } else if trackerSamples > 0 {
            noisePower = trackerEnergy / Double(trackerSamples)
            source = .noiseTracker
        } else {
            noisePower = quietest.isFinite ? quietest : 0
            source = .quietestFrame
        }
        let noiseDBFS = Decibels.fromPower(noisePower)
        let noiseLevelDB = noiseDBFS + c.fullScaleDB

        // Speech-to-noise ratio and clarity.
        let speechPower = speech > 0 ? speechEnergy / Double(speech) : 0
        let snr: Double?
        if speech == 0 {
            snr = nil
        } else if noisePower == 0 {
            snr = speechPower > 0 ? .infinity : -.infinity
        } else if speechPower <= noisePower {
            snr = -.infinity
        } else {
            snr = Decibels.fromPower((speechPower - noisePower) / noisePower)
        }
        // Clarity from the useful-to-detrimental ratio: the noise and, once estimated, the late
        // reverberation (C50) both mask the speech.
        let c50 = reverberation?.c50DB
        let useful = snr.map { Self.usefulToDetrimental(snrDB: $0, c50DB: c50) }
        let clarity = useful.map { 1 / (1 + Double.exp(-($0 - c.clarityMidpointDB) / c.clarityScaleDB)) } ?? 0

        let speechFraction = Double(speech) / totalD
        let musicFraction = Double(music) / totalD
        let multiFraction = Double(multi) / totalD
        let category = c.noiseThresholds.category(forLevelDB: noiseLevelDB)
        let keyLevel = noiseLevelDB.isFinite ? Int((Swift.min(200, Swift.max(0, noiseLevelDB)) / 5).rounded(.down)) * 5 : 0

        // Recommendation with hysteresis.
        let preferred = preference(
            noiseLevelDB: noiseLevelDB, musicFraction: musicFraction, multiFraction: multiFraction,
            speechFraction: speechFraction, clarity: clarity)
        if preferred == current {
            pendingSince = nil
        } else {
            let since = pendingSince ?? end
            pendingSince = since
            if end - since >= holdSamples {
                current = preferred
                pendingSince = nil
                changeCount += 1
                lastChange = end
            }
        }

        var measurement = EnvironmentMeasurement(
            endSample: end, timeSeconds: Double(end) / Double(c.sampleRate),
            windowSeconds: Double(total) / Double(c.sampleRate), noiseDBFS: noiseDBFS, noiseLevelDB: noiseLevelDB,
            noiseSource: source, noiseCategory: category, speechDBFS: Decibels.fromPower(speechPower),
            speechToNoiseDB: snr, speechFraction: speechFraction, musicFraction: musicFraction,
            multiSpeakerFraction: multiFraction, musicDetected: musicFraction >= c.detectionFraction,
            multipleSpeakersDetected: multiFraction >= c.detectionFraction, speechClarity: clarity,
            frequencyComplexity: entropySamples > 0 ? entropySum / Double(entropySamples) : 0,
            categoryNoiseLevel: keyLevel, recommendation: current, preferredRecommendation: preferred,
            rt60Seconds: reverberation?.rt60Seconds, c50DB: c50)
        if total == 0 { measurement.windowSeconds = 0 }

        // Summary: this measurement accounts for the time since the previous one.
        let span = Swift.max(0, end - lastMeasurementEnd)
        switch category {
        case .veryQuiet: categorySamples.0 += span
        case .quiet: categorySamples.1 += span
        case .moderate: categorySamples.2 += span
        case .loud: categorySamples.3 += span
        case .veryLoud: categorySamples.4 += span
        }
        if current == .fast { fastSamples += span } else { accurateSamples += span }
        measurementCount += 1
        if measurement.musicDetected { musicCount += 1 }
        if measurement.multipleSpeakersDetected { multiCount += 1 }
        quietestNoise = Swift.min(quietestNoise, noiseDBFS)
        loudestNoise = Swift.max(loudestNoise, noiseDBFS)
        lastMeasurementEnd = end
        framesSinceMeasurement = 0
        return measurement
    }

    /// What one measurement prefers, each threshold moved by its margin away from the current
    /// recommendation.
    private func preference(
        noiseLevelDB: Double, musicFraction: Double, multiFraction: Double, speechFraction: Double, clarity: Double
    ) -> RecognizerRecommendation {
        let p = configuration.policy
        // +1 while fast (harder to leave), −1 while accurate (harder to come back).
        let sign: Double = current == .fast ? 1 : -1
        var accurate = noiseLevelDB >= p.accurateNoiseDB + sign * p.noiseMarginDB
        let fraction = configuration.detectionFraction + sign * p.fractionMargin
        if p.accurateOnMusic, musicFraction >= fraction { accurate = true }
        if p.accurateOnMultipleSpeakers, multiFraction >= fraction { accurate = true }
        if p.minimumClarity > 0, speechFraction >= p.minimumSpeechFraction,
            clarity < p.minimumClarity - sign * p.clarityMargin
        {
            accurate = true
        }
        return accurate ? .accurate : .fast
    }
}

extension EnvironmentAnalyzer: MemoryAccounting {
    /// The ring of the window's frames.
    public var memoryFootprint: MemoryFootprint { .owned(MemoryFootprint.bytes(Entry.self, ringCapacity)) }
}
