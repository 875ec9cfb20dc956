// EBU Tech 3341 / 3342 conformance, two-tier, at 48 kHz and 44.1 kHz.
//
// Tier 1 (spec): the meter as configured by default must meet the document's tolerance.
// Tier 2 (tight regression): the meter must agree with libebur128 1.2.6 on the same signal to
// 0.001 LU — with libebur128's own K-weighting (`.bilinear`; identical to the default at
// 48 kHz) and, for LRA, its 1 s block hop — or, for true peak, with the analytic peak to 0.02
// dB. Momentary readings are compared at every 10 ms step; short-term readings (a 3 s sum per
// query inside libebur128) at every 10th step and around each maximum.
// Each check prints a Markdown table row ("| 3341-…") for docs/loudness.md.
import DSPAnalysis
import Foundation
import Testing

private typealias Signals = LoudnessConformanceSignals

/// One case at one rate.
struct ConformanceArgument: Sendable, CustomTestStringConvertible {
    var testCase: LoudnessConformanceSignals.Case
    var sampleRate: Int
    var testDescription: String { "\(testCase.id) @ \(sampleRate) Hz" }
}

private func arguments(_ cases: [LoudnessConformanceSignals.Case]) -> [ConformanceArgument] {
    cases.flatMap { c in [48_000, 44_100].map { ConformanceArgument(testCase: c, sampleRate: $0) } }
}

/// Readings (0-based step k ends at (k + 1)·10 ms) that a quantity looks at.
private func steps(_ quantity: Signals.Quantity, count: Int) -> Range<Int> {
    func step(_ seconds: Double) -> Int { Int((seconds * 100).rounded()) }
    switch quantity {
    case .shortTermFrom(let t), .momentaryFrom(let t): return (step(t) - 1)..<count
    case .maxShortTermIn(let i, let s), .maxMomentaryIn(let i, let s):
        return step(Double(i) * s)..<min(step(Double(i + 1) * s), count)
    default: return 0..<count
    }
}

private func isShortTerm(_ quantity: Signals.Quantity) -> Bool {
    switch quantity {
    case .maxShortTerm, .shortTermFrom, .maxShortTermIn: return true
    default: return false
    }
}

/// The value a quantity reports from readings: the maximum, or for "from t" the reading
/// farthest from `expected`. NaN readings (not queried) are skipped.
private func reduce(_ quantity: Signals.Quantity, _ readings: [Double], expected: Double) -> Double {
    let values = readings[steps(quantity, count: readings.count)].filter { !$0.isNaN }
    switch quantity {
    case .shortTermFrom, .momentaryFrom: return values.max { abs($0 - expected) < abs($1 - expected) } ?? .nan
    default: return values.max() ?? -.infinity
    }
}

private func format(_ x: Double) -> String { x.isFinite ? String(format: "%.4f", x) : "\(x)" }

@Suite("Loudness conformance: EBU Tech 3341 / 3342 (built from the spec's descriptions)")
struct LoudnessConformanceTests {
    /// Tight tolerance against libebur128 (LU) and against analytic true peaks (dB).
    static let tightLU = 0.001
    static let tightTruePeakDB = 0.02

    @Test("Tech 3341 and 3342", arguments: arguments(Signals.tech3341 + Signals.tech3342))
    func conformance(_ argument: ConformanceArgument) {
        let c = argument.testCase
        let rate = argument.sampleRate
        let signal = c.signal(rate)
        let base = LoudnessMeter.Configuration(sampleRate: rate, channelLayout: c.layout, measuresTruePeak: c.needsTruePeak)
        let ours = measureLoudness(signal, base)
        // libebur128's conventions: its K-weighting (identical to ours at 48 kHz), for LRA its 1 s hop.
        var compatible = base
        if rate != 48_000 { compatible.kWeighting = .bilinear }
        if c.expectations.contains(where: { $0.quantity == .loudnessRange }) { compatible.loudnessRangeHopMilliseconds = 1000 }
        let twin = compatible == base ? ours : measureLoudness(signal, compatible)
        let m = ours.readings.map(\.momentaryLUFS), s = ours.readings.map(\.shortTermLUFS)
        let tm = twin.readings.map(\.momentaryLUFS), ts = twin.readings.map(\.shortTermLUFS)

        // Query libebur128's S every 10th step and around the twin's maximum of each S check.
        var around = Set<Int>()
        for e in c.expectations where isShortTerm(e.quantity) {
            let range = steps(e.quantity, count: ts.count)
            if let top = range.max(by: { ts[$0] < ts[$1] }) { around.formUnion((top - 2)...(top + 2)) }
        }
        let reference = ReferenceResult(
            signal, channels: c.layout.channelCount, sampleRate: rate,
            momentaryGrid: c.needsMomentary, shortTermGrid: c.needsShortTerm,
            shortTermSteps: { $0 % 10 == 0 || around.contains($0) })

        for e in c.expectations {
            let mine: Double, theirs: Double, tight: Double
            switch e.quantity {
            case .integrated:
                (mine, theirs) = (ours.summary.integratedLUFS, reference.integrated)
                tight = abs(twin.summary.integratedLUFS - reference.integrated)
            case .loudnessRange:
                (mine, theirs) = (ours.summary.loudnessRangeLU, reference.range)
                tight = abs(twin.summary.loudnessRangeLU - reference.range)
            case .truePeak:
                (mine, theirs) = (ours.summary.truePeakDBTP ?? .nan, reference.truePeakDBTP)
                tight = abs(mine - Self.analyticTruePeak(c.id))
            default:
                let short = isShortTerm(e.quantity)
                let (own, pair, ref) = short ? (s, ts, reference.shortTerm) : (m, tm, reference.momentary)
                mine = reduce(e.quantity, own, expected: e.expected)
                theirs = reduce(e.quantity, ref, expected: e.expected)
                // Every queried reading in the stretch, against the twin's reading at the same step.
                tight = steps(e.quantity, count: min(pair.count, ref.count))
                    .filter { !ref[$0].isNaN }
                    .map { pair[$0] == ref[$0] ? 0 : abs(pair[$0] - ref[$0]) }.max() ?? .nan
            }
            let limit = e.quantity == .truePeak ? Self.tightTruePeakDB : Self.tightLU
            let specPass = mine >= e.expected - e.below && mine <= e.expected + e.above
            let referencePass = theirs >= e.expected - e.below && theirs <= e.expected + e.above
            print("| \(c.id) | \(rate) | \(e.quantity) | \(e.expected) −\(e.below)/+\(e.above) | \(format(mine)) | \(format(theirs)) | \(referencePass ? "pass" : "FAIL") | \(specPass ? "pass" : "FAIL") | \(String(format: "%.1e", tight)) \(tight <= limit ? "pass" : "FAIL") |")
            #expect(specPass, "\(c.id) @ \(rate): \(e.quantity) = \(mine), expected \(e.expected) −\(e.below)/+\(e.above)")
            #expect(tight <= limit, "\(c.id) @ \(rate): \(e.quantity) tight difference \(tight) > \(limit)")
        }
    }

    /// The peak the continuous signal actually reaches, dBTP.
    static func analyticTruePeak(_ id: String) -> Double {
        switch id {
        case "3341-19": return 20 * log10(1.41)
        case "3341-15", "3341-16", "3341-17", "3341-18": return 20 * log10(0.5)
        default: return 0
        }
    }
}
