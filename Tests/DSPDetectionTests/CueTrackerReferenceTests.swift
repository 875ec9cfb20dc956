@testable import DSPDetection
import DSPSpectral
import Foundation
import Testing
import TestSupport

/// The library's cue tracker against the plain loops it was restructured from
/// (`CueTrackerReference.swift`): every cue of every frame bit for bit, on real TestAudio
/// clips and on a stream with NaN, ±Inf, huge values and digital silence, with the music and
/// multi-speaker cues on and off, and across a reset.
@Suite struct CueTrackerReferenceTests {
    /// Each Float field of `cues` (the SIMD fields lane by lane) as its bit pattern.
    static func bits(_ cues: DetectionCues) -> [UInt32] {
        var out: [UInt32] = []
        for child in Mirror(reflecting: cues).children {
            if let v = child.value as? Float {
                out.append(v.bitPattern)
            } else if let v = child.value as? SIMD16<Float> {
                for i in 0..<16 { out.append(v[i].bitPattern) }
            } else if let v = child.value as? SIMD32<Float> {
                for i in 0..<32 { out.append(v[i].bitPattern) }
            } else {
                Issue.record("DetectionCues.\(child.label ?? "?") is neither Float nor SIMD16/32<Float>: extend the comparison")
            }
        }
        return out
    }

    static let clips = [
        "speech_en-us_16k.wav", "eval_music_guitar_16k.flac", "eval_overlap_16k.flac", "eval_noise_babble_16k.flac",
        "speech_clipped_16k.wav", "silence_16k.wav", "music_drums_44k1.flac",
    ]

    @Test("cues equal the reference loops bit for bit", arguments: [false, true])
    func cuesMatchTheReference(_ full: Bool) throws {
        var streams: [(String, [Float])] = try Self.clips.map { ($0, try DetectionHarness.mono16k($0)) }
        streams.append(("hostile stream", TestSignals.hostileStream()))
        let analyzer = try SpectralAnalyzer()
        let tracker = CueTracker(analyzer: analyzer, music: full, multipleSpeakers: full)
        let reference = ReferenceCueTracker(analyzer: analyzer, music: full, multipleSpeakers: full)
        var frames = 0, differing = 0, firstDifference = ""
        for (name, signal) in streams {
            tracker.reset()
            reference.reset()
            analyzer.reset()
            let compare = { (frame: SpectralFrame) in
                let ours = Self.bits(tracker.update(frame)), theirs = Self.bits(reference.update(frame))
                frames += 1
                if ours != theirs {
                    differing += 1
                    if firstDifference.isEmpty { firstDifference = "\(name) frame \(frame.features.index)" }
                }
            }
            signal.withUnsafeBufferPointer { analyzer.process($0, compare) }
            analyzer.flush(compare)
        }
        #expect(frames > 2000)
        #expect(differing == 0, "\(differing) of \(frames) frames differ, first at \(firstDifference)")
    }
}
