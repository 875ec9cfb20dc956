// Conformance signals for the loudness meter, built from the spec's descriptions.
//
// The EBU ships the Tech 3341 / 3342 test set as WAV files; these generators rebuild every
// case that the documents describe as a synthetic signal, at any sample rate, deterministically
// (no random numbers; Double-precision sines rounded once to Float32):
//
// - EBU Tech 3341 v4 (2023), Table 1 ("minimum requirements"): cases 1–6 and 9–23. Cases 7 and
//   8 are excerpts of broadcast programmes and cannot be built. Where the document gives the
//   structure but not every number (10, 12, 13, 20–23), the choices are written next to the
//   case and chosen to exercise what the case tests.
// - EBU Tech 3342 v4 (2023), Table 1: cases 1–4. Cases 5 and 6 are the programme excerpts of
//   Tech 3341 cases 7 and 8.
//
// Levels are peak levels per channel in dBFS; "1 kHz" means 1000 Hz. A stereo 1 kHz sine at
// X dBFS in both channels reads X − 0.0067 LUFS (the K-weighting gain at 1 kHz is +0.6977 dB
// against the −0.691 dB offset), which is why the spec can quote X as the expected loudness.
import DSPAnalysis
import Foundation
import TestSupport

enum LoudnessConformanceSignals {
    /// A stretch of steady tone: `seconds` long, one peak level per channel (nil: silent).
    struct Segment {
        var seconds: Double
        var levelsDBFS: [Double?]
        /// Linear fade-in and fade-out (raised cosine) at the ends of the segment, seconds.
        var taperSeconds: Double = 0

        static func stereo(_ seconds: Double, _ dBFS: Double?) -> Segment {
            Segment(seconds: seconds, levelsDBFS: [dBFS, dBFS])
        }
    }

    /// Tone segments back to back, one continuous sine per channel, `x_c(t) = A_c(t)·sin(2π f t
    /// + φ_c)`. `frequency` in Hz, or as a fraction of the sample rate when `relative`.
    static func tones(
        _ segments: [Segment], sampleRate: Int, frequency: Double = 1000, relative: Bool = false,
        phasesDegrees: [Double]? = nil
    ) -> [Float] {
        let channels = segments[0].levelsDBFS.count
        let f = relative ? frequency * Double(sampleRate) : frequency
        let total = Int((segments.reduce(0) { $0 + $1.seconds } * Double(sampleRate)).rounded())
        var storage = [Float](repeating: 0, count: total * channels)
        storage.withUnsafeMutableBufferPointer { out in
        var start = 0
        var elapsed = 0.0
        for segment in segments {
            elapsed += segment.seconds
            let end = Int((elapsed * Double(sampleRate)).rounded())
            let taper = Int(segment.taperSeconds * Double(sampleRate))
            for c in 0..<channels {
                guard let level = segment.levelsDBFS[c] else { continue }
                let amplitude = pow(10, level / 20)
                let phase = (phasesDegrees?[c] ?? 0) * .pi / 180
                for n in start..<end {
                    var gain = amplitude
                    let fromStart = n - start, toEnd = end - 1 - n
                    if taper > 0 && fromStart < taper { gain *= 0.5 - 0.5 * cos(.pi * Double(fromStart) / Double(taper)) }
                    if taper > 0 && toEnd < taper { gain *= 0.5 - 0.5 * cos(.pi * Double(toEnd) / Double(taper)) }
                    out[n * channels + c] = Float(gain * sin(2 * .pi * f * Double(n) / Double(sampleRate) + phase))
                }
            }
            start = end
        }
        }
        return storage
    }

    /// A band-limited pulse whose continuous-time peak is exactly 1.0 (0 dBTP), falling
    /// `offset` samples after a sampling instant: `x(t) = sinc(0.8·(t − t₀))·w(t − t₀)`, content
    /// up to 0.4 `f_s`, `w` a Hann window 128 samples wide; stereo, the same in both channels,
    /// 1 s long with the peak at 0.5 s.
    static func pulse(offset: Double, sampleRate: Int) -> [Float] {
        let count = sampleRate
        let t0 = Double(count / 2) + offset
        var out = [Float](repeating: 0, count: 2 * count)
        for n in 0..<count {
            let t = Double(n) - t0
            guard abs(t) < 64 else { continue }
            let m = 0.8 * t
            let sinc = m == 0 ? 1 : sin(.pi * m) / (.pi * m)
            let window = 0.5 + 0.5 * cos(.pi * t / 64)
            out[2 * n] = Float(sinc * window)
            out[2 * n + 1] = Float(sinc * window)
        }
        return out
    }

    /// What a case asserts.
    enum Quantity: Equatable, Sendable, CustomStringConvertible {
        case integrated
        case loudnessRange
        case maxMomentary
        case maxShortTerm
        case truePeak
        /// Every short-term reading from this time on (s).
        case shortTermFrom(Double)
        /// Every momentary reading from this time on (s).
        case momentaryFrom(Double)
        /// The largest short-term reading in segment `index` of `seconds`-long segments.
        case maxShortTermIn(index: Int, seconds: Double)
        /// The largest momentary reading in segment `index` of `seconds`-long segments.
        case maxMomentaryIn(index: Int, seconds: Double)

        var description: String {
            switch self {
            case .integrated: return "I"
            case .loudnessRange: return "LRA"
            case .maxMomentary: return "max M"
            case .maxShortTerm: return "max S"
            case .truePeak: return "TP"
            case .shortTermFrom(let t): return "S ≥ \(t) s"
            case .momentaryFrom(let t): return "M ≥ \(t) s"
            case .maxShortTermIn(let i, let s): return "max S [\(Double(i) * s), \(Double(i + 1) * s)) s"
            case .maxMomentaryIn(let i, let s): return "max M [\(Double(i) * s), \(Double(i + 1) * s)) s"
            }
        }
    }

    /// An expected value with the spec's tolerance `expected − below … expected + above`.
    struct Expectation: Sendable {
        var quantity: Quantity
        var expected: Double
        var below: Double = 0.1
        var above: Double = 0.1
    }

    struct Case: Sendable, CustomStringConvertible {
        var id: String
        var layout: LoudnessMeter.ChannelLayout = .stereo
        var signal: @Sendable (Int) -> [Float]
        var expectations: [Expectation]
        var description: String { id }
        /// Whether M / S readings are checked (libebur128 is then queried on the 10 ms grid).
        var needsMomentary: Bool {
            expectations.contains { e in
                switch e.quantity {
                case .maxMomentary, .momentaryFrom, .maxMomentaryIn: return true
                default: return false
                }
            }
        }
        var needsShortTerm: Bool {
            expectations.contains { e in
                switch e.quantity {
                case .maxShortTerm, .shortTermFrom, .maxShortTermIn: return true
                default: return false
                }
            }
        }
        var needsTruePeak: Bool { expectations.contains { $0.quantity == .truePeak } }
    }

    static func steady(_ id: String, _ dBFS: Double, seconds: Double = 20) -> Case {
        Case(id: id, signal: { tones([.stereo(seconds, dBFS)], sampleRate: $0) }, expectations: [
            Expectation(quantity: .maxMomentary, expected: dBFS),
            Expectation(quantity: .maxShortTerm, expected: dBFS),
            Expectation(quantity: .integrated, expected: dBFS),
        ])
    }

    static func integrated(_ id: String, _ segments: [(Double, Double)]) -> Case {
        Case(id: id, signal: { tones(segments.map { .stereo($0.0, $0.1) }, sampleRate: $0) },
             expectations: [Expectation(quantity: .integrated, expected: -23)])
    }

    /// 1 kHz sine at fraction `f` of `f_s`, 1 s with 0.1 s raised-cosine ends.
    static func truePeakTone(_ id: String, f: Double, amplitude: Double, phaseDegrees: Double, expected: Double) -> Case {
        Case(id: id, signal: {
            tones([Segment(seconds: 1, levelsDBFS: [20 * log10(amplitude), 20 * log10(amplitude)], taperSeconds: 0.1)],
                  sampleRate: $0, frequency: f, relative: true, phasesDegrees: [phaseDegrees, phaseDegrees])
        }, expectations: [Expectation(quantity: .truePeak, expected: expected, below: 0.4, above: 0.2)])
    }

    /// EBU Tech 3341 v4, Table 1, as far as it can be built.
    static let tech3341: [Case] = {
        var cases: [Case] = [
            // 1, 2: stereo 1 kHz at −23 / −33 dBFS, 20 s: M, S, I = −23.0 / −33.0 ±0.1.
            steady("3341-1", -23),
            steady("3341-2", -33),
            // 3: −36, −23, −36 dBFS for 10, 60, 10 s: the relative gate drops the −36 parts.
            integrated("3341-3", [(10, -36), (60, -23), (10, -36)]),
            // 4: −72, −36, −23, −36, −72 dBFS for 10, 10, 60, 10, 10 s: both gates.
            integrated("3341-4", [(10, -72), (10, -36), (60, -23), (10, -36), (10, -72)]),
            // 5: −26, −20, −26 dBFS for 20, 20.1, 20 s: nothing gated.
            integrated("3341-5", [(20, -26), (20.1, -20), (20, -26)]),
            // 6: 5.0 (L, R, C, Ls, Rs) at −28, −28, −24, −30, −30 dBFS, 20 s: surround weights.
            Case(id: "3341-6", layout: .surround5_0,
                 signal: { tones([Segment(seconds: 20, levelsDBFS: [-28, -28, -24, -30, -30])], sampleRate: $0) },
                 expectations: [Expectation(quantity: .integrated, expected: -23)]),
            // 6 in 5.1 (the test set's 6-channel file has a silent LFE; here the LFE carries a
            // −10 dBFS tone to show it is excluded).
            Case(id: "3341-6 (5.1, loud LFE)", layout: .surround5_1,
                 signal: { tones([Segment(seconds: 20, levelsDBFS: [-28, -28, -24, -10, -30, -30])], sampleRate: $0) },
                 expectations: [Expectation(quantity: .integrated, expected: -23)]),
            // 9: −20 dBFS 1.34 s, −30 dBFS 1.66 s, five times: S = −23.0 ±0.1 from 3 s on.
            Case(id: "3341-9",
                 signal: { tones(Array(repeating: [Segment.stereo(1.34, -20), .stereo(1.66, -30)], count: 5).flatMap { $0 }, sampleRate: $0) },
                 expectations: [Expectation(quantity: .shortTermFrom(3), expected: -23)]),
        ]
        // 10-1 … 10-20: a 3 s tone at −23 dBFS after a silent lead-in of 0.1 s + (k − 1)·50.5 ms,
        // so the onsets sweep 0 … 9.5 ms against the 10 ms grid: max S = −23.0 ±0.1.
        for k in 1...20 {
            let lead = 0.1 + Double(k - 1) * 0.0505
            cases.append(Case(id: "3341-10-\(k)",
                              signal: { tones([.stereo(lead, nil), .stereo(3, -23), .stereo(0.2, nil)], sampleRate: $0) },
                              expectations: [Expectation(quantity: .maxShortTerm, expected: -23)]))
        }
        // 11: twenty 6 s segments, a 3 s tone at −38, −37, …, −19 dBFS then 3 s of silence:
        // max S per segment = −38 … −19 ±0.1.
        cases.append(Case(id: "3341-11",
                          signal: { rate in tones((0..<20).flatMap { [Segment.stereo(3, Double(-38 + $0)), .stereo(3, nil)] }, sampleRate: rate) },
                          expectations: (0..<20).map { Expectation(quantity: .maxShortTermIn(index: $0, seconds: 6), expected: Double(-38 + $0)) }))
        // 12: −20 dBFS 178 ms, −30 dBFS 222 ms, repeated (period = the 400 ms window): M =
        // −23.0 ±0.1 from 1 s on (the M counterpart of case 9).
        cases.append(Case(id: "3341-12",
                          signal: { tones(Array(repeating: [Segment.stereo(0.178, -20), .stereo(0.222, -30)], count: 10).flatMap { $0 }, sampleRate: $0) },
                          expectations: [Expectation(quantity: .momentaryFrom(1), expected: -23)]))
        // 13-1 … 13-20: a 400 ms tone at −23 dBFS after a lead-in of 0.1 s + (k − 1)·20 ms:
        // max M = −23.0 ±0.1.
        for k in 1...20 {
            let lead = 0.1 + Double(k - 1) * 0.02
            cases.append(Case(id: "3341-13-\(k)",
                              signal: { tones([.stereo(lead, nil), .stereo(0.4, -23), .stereo(0.1, nil)], sampleRate: $0) },
                              expectations: [Expectation(quantity: .maxMomentary, expected: -23)]))
        }
        // 14: twenty 0.8 s segments, a 0.4 s tone at −38 … −19 dBFS then 0.4 s of silence:
        // max M per segment = −38 … −19 ±0.1.
        cases.append(Case(id: "3341-14",
                          signal: { rate in tones((0..<20).flatMap { [Segment.stereo(0.4, Double(-38 + $0)), .stereo(0.4, nil)] }, sampleRate: rate) },
                          expectations: (0..<20).map { Expectation(quantity: .maxMomentaryIn(index: $0, seconds: 0.8), expected: Double(-38 + $0)) }))
        // 15–19: true peak of sines at f_s/4, /6, /8 whose peaks fall between samples:
        // −6.0 (0.5 FS) and +3.0 (1.41 FS) dBTP, +0.2/−0.4 dB.
        cases.append(truePeakTone("3341-15", f: 1.0 / 4, amplitude: 0.5, phaseDegrees: 0, expected: -6))
        cases.append(truePeakTone("3341-16", f: 1.0 / 4, amplitude: 0.5, phaseDegrees: 45, expected: -6))
        cases.append(truePeakTone("3341-17", f: 1.0 / 6, amplitude: 0.5, phaseDegrees: 60, expected: -6))
        cases.append(truePeakTone("3341-18", f: 1.0 / 8, amplitude: 0.5, phaseDegrees: 67.5, expected: -6))
        cases.append(truePeakTone("3341-19", f: 1.0 / 4, amplitude: 1.41, phaseDegrees: 45, expected: 3))
        // 20–23: a 0 dBTP band-limited pulse whose peak falls 0, ¼, ½, ¾ of a sample after a
        // sampling instant (the test set's four sample offsets of one signal): 0.0 dBTP.
        for (i, offset) in [0.0, 0.25, 0.5, 0.75].enumerated() {
            cases.append(Case(id: "3341-\(20 + i)", signal: { pulse(offset: offset, sampleRate: $0) },
                              expectations: [Expectation(quantity: .truePeak, expected: 0, below: 0.4, above: 0.2)]))
        }
        return cases
    }()

    /// EBU Tech 3342 v4, Table 1, cases 1–4: stereo 1 kHz, 20 s per level; LRA ±1 LU.
    static let tech3342: [Case] = [
        ("3342-1", [-20.0, -30], 10.0),
        ("3342-2", [-20, -15], 5),
        ("3342-3", [-40, -20], 20),
        ("3342-4", [-50, -35, -20, -35, -50], 15),
    ].map { id, levels, range in
        Case(id: id, signal: { rate in tones(levels.map { .stereo(20, $0) }, sampleRate: rate) },
             expectations: [Expectation(quantity: .loudnessRange, expected: range, below: 1, above: 1)])
    }

    /// A deterministic synthetic "music" excerpt, 10 s stereo: decaying harmonic notes of a
    /// chord progression with some stereo spread, a bass line and noise-burst percussion,
    /// with a crescendo — for differential tests where no music WAV is at hand (the music in
    /// TestAudio is FLAC, which this test target cannot decode).
    static func music(sampleRate: Int, seconds: Double = 10) -> [Float] {
        let count = Int(seconds * Double(sampleRate))
        var out = [Float](repeating: 0, count: 2 * count)
        let chords: [[Double]] = [[261.63, 329.63, 392.0], [220.0, 261.63, 329.63], [174.61, 220.0, 261.63], [196.0, 246.94, 293.66]]
        var rng = SplitMix64(seed: 7)
        let beat = 0.5
        for n in 0..<count {
            let t = Double(n) / Double(sampleRate)
            let bar = Int(t / (4 * beat)) % chords.count
            let inBeat = t.truncatingRemainder(dividingBy: beat)
            let crescendo = 0.25 + 0.75 * t / seconds
            var left = 0.0, right = 0.0
            for (i, f) in chords[bar].enumerated() {
                let env = exp(-3 * inBeat)
                var note = 0.0
                for h in 1...4 { note += sin(2 * .pi * f * Double(h) * t) / Double(h * h) }
                left += note * env * (i == 0 ? 0.3 : 0.18)
                right += note * env * (i == 2 ? 0.3 : 0.18)
            }
            let bass = 0.25 * sin(2 * .pi * chords[bar][0] / 2 * t) * exp(-2 * inBeat)
            let hit = inBeat < 0.05 ? rng.uniform() * 0.3 * exp(-60 * inBeat) : 0
            out[2 * n] = Float(crescendo * (left + bass + hit))
            out[2 * n + 1] = Float(crescendo * (right + bass + 0.8 * hit))
        }
        return out
    }
}
