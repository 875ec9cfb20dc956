// Speech segment edges read from the hops' own power: `AcousticDetector.Configuration.speechBoundaries`.

import DSPCore
import DSPSpectral

/// Where a speech segment begins and ends, read from the 16 ms hops' own power rather than from
/// the frame decisions alone.
///
/// A frame's 64 ms window still holds an utterance's tail for three hops after its hop has gone
/// quiet, and the segmenter ends a segment at its last active frame plus its padding; at the
/// start, the probability climbs over a few hops the segmenter does not count. The detection
/// material's labels mark a talker's frames within 40 dB of the utterance's loudest, so a segment's
/// edges can be read from the hops' power
/// (``/DSPSpectral/SpectralFeatures/hopPower``): a hop *sounds* when its power is finite, at least
/// ``floorMarginDB`` over the cue tracker's noise floor (``DetectionCues/noiseFloorDBFS``) and
/// within ``peakRangeDB`` of the segment's loudest hop.
///
/// - **End.** When a segment ends, its end moves back to the end of the last sounding hop that
///   ends within its last ``endSearchSeconds`` (to that many seconds before the end when none
///   does, but never to less than one hop after its start). The loudest hop is the loudest since
///   the segment's start. The detector keeps the last hops' power for
///   `max(hangover, minimum run + padding) + max(endSearchSeconds, startSearchSeconds)` of the
///   speech segmenter, in hops, plus four, rounded up to a power of two (32 hops, 0.5 s, at the
///   defaults); an end decided after its last hop has left them — frames between the off and the
///   end threshold keep a segment open without a hangover count — stays where the segmenter put it.
/// - **Start.** When one opens, its start moves back over the sounding hops just before it, up
///   to ``startSearchSeconds``, never before the end of the previous speech segment or the stream's
///   start. The loudest hop is the loudest from the look-back's start to the hop that opened it.
///
/// Only speech segments move (events, timelines, summaries); no probability, live flag
/// (``DetectionFrame/isSpeech``), model or other task. Measured on the detection material in
/// `docs/detection.md` (Fitting, "Speech boundaries read from the hops' energy").
public struct SpeechBoundaryRefinement: Equatable, Sendable {
    /// Decibels a hop's power must be over the cue tracker's noise floor to sound. 0…60; default 6.
    public var floorMarginDB: Float
    /// Decibels under the segment's loudest hop within which a hop may sound. 0…120; default 40.
    public var peakRangeDB: Float
    /// How far back a segment's end may move, seconds. 0…1; default 0.1.
    public var endSearchSeconds: Double
    /// How far back a segment's start may move, seconds. 0…1; default 0.1.
    public var startSearchSeconds: Double

    /// A refinement with the given settings (the defaults are those measured).
    public init(floorMarginDB: Float = 6, peakRangeDB: Float = 40, endSearchSeconds: Double = 0.1, startSearchSeconds: Double = 0.1) {
        self.floorMarginDB = floorMarginDB
        self.peakRangeDB = peakRangeDB
        self.endSearchSeconds = endSearchSeconds
        self.startSearchSeconds = startSearchSeconds
    }

    /// Throws ``/DSPCore/ConfigurationError`` naming the first setting out of its range.
    func validate() throws(ConfigurationError) {
        try ConfigurationError.check("speechBoundaries.floorMarginDB", Double(floorMarginDB), in: 0...60)
        try ConfigurationError.check("speechBoundaries.peakRangeDB", Double(peakRangeDB), in: 0...120)
        try ConfigurationError.check("speechBoundaries.endSearchSeconds", endSearchSeconds, in: 0...1)
        try ConfigurationError.check("speechBoundaries.startSearchSeconds", startSearchSeconds, in: 0...1)
    }
}

/// The per-stream state of a ``SpeechBoundaryRefinement``: the last hops' power and whether each
/// was over the floor by the margin, in a ring long enough for a segment's end to be refined a
/// hangover after it, and the open segment's loudest hop.
final class SpeechBoundaryTracker {
    private let peakRange: Float
    private let floorMargin: Float
    private let hopLength: Int64
    private let endSearch: Int64
    private let startSearch: Int64
    /// Hops the ring holds (a power of two).
    private let capacity: Int
    /// Per hop: its power in dBFS (−∞ when silent or not finite), and whether it was at least the
    /// margin over the cue floor.
    private let levels: UnsafeMutableBufferPointer<Float>
    private let overFloor: UnsafeMutableBufferPointer<Bool>
    /// The newest hop recorded (−1: none yet) and where it ends (a stream's last hop may be short).
    private var newest: Int64 = -1
    private var newestEnd: Int64 = 0
    /// The open segment's loudest hop, dBFS.
    private var peak: Float = -.infinity
    /// Where the previous speech segment ended as reported (0 at a stream's start).
    private var previousEnd: Int64 = 0

    /// A tracker for segments whose edges are decided up to `decisionDelaySeconds` after them.
    init(refinement: SpeechBoundaryRefinement, sampleRate: Double, hopLength: Int, decisionDelaySeconds: Double) {
        peakRange = refinement.peakRangeDB
        floorMargin = refinement.floorMarginDB
        self.hopLength = Int64(hopLength)
        endSearch = Int64((refinement.endSearchSeconds * sampleRate).rounded())
        startSearch = Int64((refinement.startSearchSeconds * sampleRate).rounded())
        let span = decisionDelaySeconds + Swift.max(refinement.endSearchSeconds, refinement.startSearchSeconds)
        let hops = Int((span * sampleRate / Double(hopLength)).rounded(.up)) + 4
        var capacity = 8
        while capacity < hops { capacity *= 2 }
        self.capacity = capacity
        levels = .allocate(capacity: capacity)
        overFloor = .allocate(capacity: capacity)
        levels.initialize(repeating: -.infinity)
        overFloor.initialize(repeating: false)
    }

    deinit {
        levels.deallocate()
        overFloor.deallocate()
    }

    /// Bytes owned: the ring (the object itself is not counted, as for every unit).
    var ownedBytes: Int { MemoryFootprint.bytes(levels) + MemoryFootprint.bytes(overFloor) }

    /// Forgets the stream.
    func reset() {
        levels.update(repeating: -.infinity)
        overFloor.update(repeating: false)
        newest = -1
        newestEnd = 0
        peak = -.infinity
        previousEnd = 0
    }

    /// Records hop `index` (its samples `[index·hop, end)`), its mean square and the cue floor.
    @inline(__always)
    func record(index: Int64, end: Int64, hopPower: Float, floorDBFS: Float) {
        let level = hopPower > 0 && hopPower.isFinite ? FastLog.decibels(hopPower) : -.infinity
        let slot = Int(index & Int64(capacity - 1))
        levels[slot] = level
        overFloor[slot] = level.isFinite && level >= floorDBFS + floorMargin
        newest = index
        newestEnd = end
    }

    /// Takes the newest hop into the open segment's loudest.
    @inline(__always)
    func extendPeak() {
        guard newest >= 0 else { return }
        let level = levels[Int(newest & Int64(capacity - 1))]
        if level > peak { peak = level }
    }

    @inline(__always)
    private func held(_ index: Int64) -> Bool { index >= 0 && index <= newest && index > newest - Int64(capacity) }

    @inline(__always)
    private func end(of index: Int64) -> Int64 { index == newest ? newestEnd : (index + 1) * hopLength }

    @inline(__always)
    private func sounds(_ index: Int64) -> Bool {
        let slot = Int(index & Int64(capacity - 1))
        return overFloor[slot] && levels[slot] >= peak - peakRange
    }

    /// The start of a segment the segmenter opened at `start`, moved back over the sounding hops
    /// before it; the loudest hop is taken from the look-back's start to the newest hop.
    func refineStart(_ start: Int64) -> Int64 {
        let floor = Swift.max(start - startSearch, previousEnd, 0)
        var first = floor / hopLength
        if first * hopLength < floor { first += 1 }
        peak = -.infinity
        var j = Swift.max(first, newest - Int64(capacity) + 1)
        while j <= newest {
            let level = levels[Int(j & Int64(capacity - 1))]
            if level > peak { peak = level }
            j += 1
        }
        guard start % hopLength == 0 else { return start }
        var refined = start
        var hop = start / hopLength - 1
        while hop >= first, held(hop), sounds(hop) {
            refined = hop * hopLength
            hop -= 1
        }
        return refined
    }

    /// The end of a segment that started at `start` and that the segmenter ended at `end`, moved
    /// back to the end of its last sounding hop within the search.
    func refineEnd(_ end: Int64, start: Int64) -> Int64 {
        let earliest = Swift.max(start, end - endSearch)
        var refined = earliest
        var hop = (end - 1) / hopLength
        // An end decided long after it (frames between the off and the end threshold keep a
        // segment open without a hangover count) may lie before the ring: no evidence, no move.
        guard held(hop) else {
            previousEnd = end
            peak = -.infinity
            return end
        }
        while hop >= 0, held(hop) {
            let hopEnd = self.end(of: hop)
            if hopEnd <= earliest { break }
            if hopEnd <= end, sounds(hop) {
                refined = hopEnd
                break
            }
            hop -= 1
        }
        refined = Swift.max(refined, Swift.min(end, start + hopLength))
        previousEnd = refined
        peak = -.infinity
        return refined
    }
}
