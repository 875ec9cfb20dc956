@testable import DSPDetection
import DSPCore
import DSPSpectral
import Foundation
import Testing
import TestSupport

/// `AcousticDetector.Configuration.speechBoundaries`: speech segments' edges read from the hops'
/// power. The refined segments are checked against the definition written out here with plain
/// loops over the frames of a detector without it (whose decisions are the same: only the edges'
/// positions move), and for what the definition implies whatever the loops say.
@Suite("SpeechBoundaries")
struct SpeechBoundariesTests {
    /// Speech with pauses, clean and over pink noise 10 dB under it (so the floor test decides).
    static let audio: [(String, [Float])] = {
        let speech = try! ["speech_es_16k.aiff", "speech_en-f3_16k.wav", "speech_en-us_16k.wav"].flatMap {
            try ReverberationEstimatorTests.speech16k($0)
        }
        var rng = SplitMix64(seed: 19)
        // Pink-ish noise: white noise through a one-pole low-pass, scaled 10 dB under the speech.
        var y: Float = 0
        let noise = (0..<speech.count).map { _ -> Float in
            y = 0.95 * y + 0.05 * Float(Double(rng.next() >> 11) / Double(1 << 53) * 2 - 1)
            return y
        }
        let ps = speech.reduce(0) { $0 + $1 * $1 } / Float(speech.count)
        let pn = noise.reduce(0) { $0 + $1 * $1 } / Float(noise.count)
        let gain = (ps / pn / 10).squareRoot()
        return [("clean", speech), ("over noise at 10 dB", zip(speech, noise).map { $0 + gain * $1 })]
    }()

    static func run(_ audio: [Float], refinement: SpeechBoundaryRefinement?, chunk: (inout SplitMix64) -> Int = { _ in Int.max })
        throws -> (frames: [DetectionFrame], end: DetectionEnd) {
        var configuration = AcousticDetector.Configuration()
        configuration.speechBoundaries = refinement
        let detector = try AcousticDetector(configuration: configuration)
        var frames: [DetectionFrame] = []
        var rng = SplitMix64(seed: 7)
        audio.withUnsafeBufferPointer { all in
            var offset = 0
            while offset < all.count {
                let n = Swift.min(all.count - offset, Swift.max(1, chunk(&rng)))
                detector.process(UnsafeBufferPointer(rebasing: all[offset..<(offset + n)])) { frames.append($0) }
                offset += n
            }
        }
        let end = detector.flush { frames.append($0) }
        return (frames, end)
    }

    /// Speech segments from frames' transitions and the stream's end.
    static func segments(_ frames: [DetectionFrame], _ end: DetectionEnd) -> [(Int64, Int64)] {
        var out: [(Int64, Int64)] = []
        var open: Int64?
        for f in frames {
            if case .started(let at) = f.speechChange { open = at }
            if case .ended(let at) = f.speechChange { out.append((open!, at)); open = nil }
        }
        if let at = end.speechEndedAt { out.append((open!, at)) }
        return out
    }

    /// The hops the detector keeps for a segmenter and a refinement (the type's documentation).
    static func heldHops(_ segments: ActivitySegmenter.Configuration, _ r: SpeechBoundaryRefinement) -> Int {
        let span = Swift.max(segments.hangoverSeconds, segments.minimumActiveSeconds + segments.paddingSeconds)
            + Swift.max(r.endSearchSeconds, r.startSearchSeconds)
        let hops = Int((span * 16_000 / 256).rounded(.up)) + 4
        var capacity = 8
        while capacity < hops { capacity *= 2 }
        return capacity
    }

    /// The definition (the type's documentation) applied with plain loops to a run without it;
    /// `stayed` counts the ends decided after their last hop left the kept hops.
    static func reference(_ frames: [DetectionFrame], _ end: DetectionEnd, _ r: SpeechBoundaryRefinement,
                          segments: ActivitySegmenter.Configuration = AcousticDetector.Configuration().speechSegments)
        -> (segments: [(Int64, Int64)], stayed: Int) {
        let held = Self.heldHops(segments, r)
        var stayed = 0
        let hop: Int64 = 256
        let level = frames.map { f -> Float in
            let p = f.features.hopPower
            return p > 0 && p.isFinite ? FastLog.decibels(p) : -.infinity
        }
        let overFloor = frames.indices.map { level[$0].isFinite && level[$0] >= frames[$0].cues.noiseFloorDBFS + r.floorMarginDB }
        let hopEnd = frames.map { $0.startSample + Int64($0.sampleCount) }
        let search = (start: Int64((r.startSearchSeconds * 16_000).rounded()), end: Int64((r.endSearchSeconds * 16_000).rounded()))
        var out: [(Int64, Int64)] = []
        var previousEnd: Int64 = 0
        var start: Int64 = 0
        var peak = -Float.infinity
        func sounds(_ j: Int) -> Bool { overFloor[j] && level[j] >= peak - r.peakRangeDB }
        func close(_ e: Int64, decidedAt k: Int) {
            if Int((e - 1) / hop) <= k - held {
                out.append((start, e))
                previousEnd = e
                stayed += 1
                return
            }
            let earliest = Swift.max(start, e - search.end)
            var refined = earliest
            for j in stride(from: Int((e - 1) / hop), through: 0, by: -1) {
                if hopEnd[j] <= earliest { break }
                if hopEnd[j] <= e, sounds(j) { refined = hopEnd[j]; break }
            }
            refined = Swift.max(refined, Swift.min(e, start + hop))
            out.append((start, refined))
            previousEnd = refined
        }
        for (k, f) in frames.enumerated() {
            switch f.speechChange {
            case .started(let s):
                let lookBack = Swift.max(s - search.start, previousEnd, 0)
                let first = Int((lookBack + hop - 1) / hop)
                peak = level[first...k].max()!
                start = s
                var j = Int(s / hop) - 1
                while j >= first, sounds(j) { start = Int64(j) * hop; j -= 1 }
            case .ended(let e):
                close(e, decidedAt: k)
            case .none:
                break
            }
            if f.isSpeech { peak = Swift.max(peak, level[k]) }
        }
        if let e = end.speechEndedAt { close(e, decidedAt: frames.count - 1) }
        return (out, stayed)
    }

    @Test("the refined segments are the definition's, within the searches, in order, counted in the summary", arguments: 0..<2)
    func matchesDefinition(_ index: Int) throws {
        let (name, audio) = Self.audio[index]
        let refinement = try #require(AcousticDetector.Configuration().speechBoundaries)
        let off = try Self.run(audio, refinement: nil)
        let on = try Self.run(audio, refinement: refinement)
        let plain = Self.segments(off.frames, off.end)
        let refined = Self.segments(on.frames, on.end)
        #expect(plain.count >= 5, "\(name): \(plain.count) segments")
        #expect(refined.count == plain.count)
        let expected = Self.reference(off.frames, off.end, refinement).segments
        #expect(refined.map(\.0) == expected.map(\.0), "\(name): starts")
        #expect(refined.map(\.1) == expected.map(\.1), "\(name): ends")
        var moved = (starts: 0, ends: 0)
        for ((s0, e0), (s, e)) in zip(plain, refined) {
            #expect(s <= s0 && s >= s0 - 1600 && e <= e0 && e >= e0 - 1600 && s < e, "\(name): \(s0)–\(e0) → \(s)–\(e)")
            if s < s0 { moved.starts += 1 }
            if e < e0 { moved.ends += 1 }
        }
        #expect(moved.starts > 0 && moved.ends > 0, "\(name): \(moved)")
        for (a, b) in zip(refined, refined.dropFirst()) { #expect(a.1 <= b.0) }
        #expect(on.end.summary.speechSamples == refined.reduce(0) { $0 + $1.1 - $1.0 })
        #expect(on.end.summary.speechSegmentCount == off.end.summary.speechSegmentCount)
        // Nothing but the speech edges moves.
        #expect(on.frames.count == off.frames.count)
        for (a, b) in zip(on.frames, off.frames) {
            #expect(a.speechProbability == b.speechProbability && a.isSpeech == b.isSpeech && a.musicChange == b.musicChange
                    && a.multiSpeakerChange == b.multiSpeakerChange)
        }
    }

    @Test("an end decided after its hops left the kept ones stays where the segmenter put it (a high end threshold makes such ends)")
    func lateEndsStay() throws {
        var segments = AcousticDetector.Configuration().speechSegments
        segments.endThreshold = 0.95
        let refinement = SpeechBoundaryRefinement()
        func run(_ r: SpeechBoundaryRefinement?) throws -> (frames: [DetectionFrame], end: DetectionEnd) {
            var configuration = AcousticDetector.Configuration()
            configuration.speechSegments = segments
            configuration.speechBoundaries = r
            let detector = try AcousticDetector(configuration: configuration)
            var frames: [DetectionFrame] = []
            Self.audio[1].1.withUnsafeBufferPointer { detector.process($0) { frames.append($0) } }
            let end = detector.flush { frames.append($0) }
            return (frames, end)
        }
        let off = try run(nil), on = try run(refinement)
        let expected = Self.reference(off.frames, off.end, refinement, segments: segments)
        #expect(expected.stayed > 0, "no late end in this run: the test shows nothing")
        let refined = Self.segments(on.frames, on.end)
        #expect(refined.map(\.0) == expected.segments.map(\.0))
        #expect(refined.map(\.1) == expected.segments.map(\.1))
    }

    @Test("any chunking, and after reset(), gives the same frames")
    func chunking() throws {
        let audio = Self.audio[1].1
        let refinement = SpeechBoundaryRefinement()
        let whole = try Self.run(audio, refinement: refinement)
        let random = try Self.run(audio, refinement: refinement) { Int($0.next() % 3000) + 1 }
        #expect(random.frames.map(\.speechChange) == whole.frames.map(\.speechChange))
        #expect(random.end.speechEndedAt == whole.end.speechEndedAt)
        var configuration = AcousticDetector.Configuration()
        configuration.speechBoundaries = refinement
        let detector = try AcousticDetector(configuration: configuration)
        for _ in 0..<2 {
            var changes: [ActivitySegmenter.Transition] = []
            audio.withUnsafeBufferPointer { detector.process($0) { changes.append($0.speechChange) } }
            _ = detector.flush { changes.append($0.speechChange) }
            #expect(changes == whole.frames.map(\.speechChange))
        }
    }

    @Test("a setting out of range is refused and named")
    func validation() {
        func detector(_ r: SpeechBoundaryRefinement) throws -> AcousticDetector {
            var c = AcousticDetector.Configuration()
            c.speechBoundaries = r
            return try AcousticDetector(configuration: c)
        }
        let failures = checkRefusals([
            (SpeechBoundaryRefinement(floorMarginDB: -1), parameter: "speechBoundaries.floorMarginDB", value: "-1.0"),
            (SpeechBoundaryRefinement(peakRangeDB: .nan), parameter: "speechBoundaries.peakRangeDB", value: "nan"),
            (SpeechBoundaryRefinement(endSearchSeconds: 2), parameter: "speechBoundaries.endSearchSeconds", value: "2.0"),
            (SpeechBoundaryRefinement(startSearchSeconds: -0.1), parameter: "speechBoundaries.startSearchSeconds", value: "-0.1"),
        ], detector)
        #expect(failures.isEmpty, "\(failures)")
        #expect(refusal { try detector(SpeechBoundaryRefinement(floorMarginDB: 0, peakRangeDB: 0, endSearchSeconds: 0, startSearchSeconds: 0)) } == nil)
    }
}
