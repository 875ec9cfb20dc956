@testable import DSPAnalysis
import DSPIO
import Foundation
import Testing
import TestSupport

/// `LoudnessMeter`'s gating histogram (0.05 LU bins beside the exact energy sum) against
/// exact gating of the same blocks — every 400 ms and 3 s block energy taken from the
/// meter's own 10 ms readings, kept and sorted — on every TestAudio file and on all of them
/// concatenated (as one list of blocks: a long, varied programme). The bounds are the
/// documented ones (docs/loudness.md, Decisions, gating); the table is printed for the docs.
@Suite("Loudness: gating histogram against exact gating on TestAudio")
struct GatingOnTestAudioTests {
    private static func loudness(_ e: Double) -> Double { e > 0 ? -0.691 + 10 * log10(e) : -.infinity }
    private static let absoluteGate = pow(10, (-70 + 0.691) / 10)

    /// Blocks that pass −70 LUFS and the relative gate (`relativeLU` below their mean, moved by
    /// `shiftLU`).
    private static func kept(_ energies: [Double], relativeLU: Double, shiftLU: Double) -> [Double] {
        let passed = energies.filter { $0 >= absoluteGate }
        guard !passed.isEmpty else { return [] }
        let gate = passed.reduce(0, +) / Double(passed.count) * pow(10, (relativeLU + shiftLU) / 10)
        return passed.filter { $0 >= gate }
    }

    private static func integrated(_ energies: [Double], shiftLU: Double) -> Double {
        let k = kept(energies, relativeLU: -10, shiftLU: shiftLU)
        return k.isEmpty ? -.infinity : loudness(k.reduce(0, +) / Double(k.count))
    }

    private static func percentiles(_ energies: [Double], shiftLU: Double) -> (low: Double, high: Double)? {
        let k = kept(energies, relativeLU: -20, shiftLU: shiftLU).sorted()
        guard !k.isEmpty else { return nil }
        let n = k.count
        return (loudness(k[Int(Double(n - 1) * 0.10 + 0.5)]), loudness(k[Int(Double(n - 1) * 0.95 + 0.5)]))
    }

    /// The momentary (every 10th step from step 40) and short-term (every 10th step from step
    /// 300: the default 100 ms hop) block energies of a file, from the meter's readings.
    private static func blocks(_ readings: [LoudnessReading]) -> (momentary: [Double], shortTerm: [Double]) {
        var m: [Double] = [], s: [Double] = []
        for (j, r) in readings.enumerated() {
            let k = j + 1
            if k >= 40 && k % 10 == 0 { m.append(pow(10, (r.momentaryLUFS + 0.691) / 10)) }
            if k >= 300 && (k - 300) % 10 == 0 { s.append(pow(10, (r.shortTermLUFS + 0.691) / 10)) }
        }
        return (m, s)
    }

    @Test("integrated within 0.0028 LU, percentiles within 0.025 LU, LRA within 0.05 LU (gate within one bin)")
    func testAudio() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: TestAudio.directory.path)
            .filter { !$0.hasSuffix(".md") && !$0.hasSuffix(".jsonl") }.sorted()
        var allM: [Double] = [], allS: [Double] = []
        var worst = (i: 0.0, percentile: 0.0, range: 0.0)
        func check(_ name: String, _ m: [Double], _ s: [Double], _ summary: LoudnessSummary) {
            let shifts = [-0.05, 0, 0.05]
            let exactI = shifts.map { Self.integrated(m, shiftLU: $0) }
            let exactP = shifts.compactMap { Self.percentiles(s, shiftLU: $0) }
            let i = summary.integratedLUFS
            if exactI[1].isFinite {
                #expect(i >= exactI.min()! - 0.0028 && i <= exactI.max()! + 0.0028, "\(name): I \(i) vs exact \(exactI)")
                worst.i = max(worst.i, abs(i - exactI[1]))
            } else {
                #expect(i == -.infinity, "\(name)")
            }
            var dP = 0.0, dR = 0.0
            if let p = exactP.dropFirst().first {
                let lows = exactP.map(\.low), highs = exactP.map(\.high)
                #expect(summary.loudnessRangeLowLUFS >= lows.min()! - 0.025 - 1e-9 && summary.loudnessRangeLowLUFS <= lows.max()! + 0.025 + 1e-9, "\(name): L10")
                #expect(summary.loudnessRangeHighLUFS >= highs.min()! - 0.025 - 1e-9 && summary.loudnessRangeHighLUFS <= highs.max()! + 0.025 + 1e-9, "\(name): L95")
                dP = max(abs(summary.loudnessRangeLowLUFS - p.low), abs(summary.loudnessRangeHighLUFS - p.high))
                dR = abs(summary.loudnessRangeLU - (p.high - p.low))
                #expect(dR <= 0.05 + 1e-9, "\(name): LRA \(summary.loudnessRangeLU) vs exact \(p.high - p.low)")
                worst.percentile = max(worst.percentile, dP)
                worst.range = max(worst.range, dR)
            }
            print(String(format: "| %@ | %d / %d | %.4f | %+.1e | %.3f | %+.3f |", name, m.count, s.count, exactI[1], i - exactI[1],
                         exactP.dropFirst().first.map { $0.high - $0.low } ?? 0, dR))
        }
        for file in files {
            let contents = try AudioFileReader.readAll(path: TestAudio.path(file))
            guard contents.channelCount <= 2 else { continue }
            let layout: LoudnessMeter.ChannelLayout = contents.channelCount == 1 ? .mono : .stereo
            let meter = try LoudnessMeter(configuration: .init(sampleRate: contents.sampleRate, channelLayout: layout))
            let run = meter.analyze(contents.samples)
            // The flush completes a partial last step with silence: its reading makes no block.
            let frames = contents.samples.count / contents.channelCount
            let readings = frames % (contents.sampleRate / 100) == 0 ? run.outputs : Array(run.outputs.dropLast())
            let (m, s) = Self.blocks(readings)
            allM += m
            allS += s
            check(file, m, s, run.summary)
        }
        // All files' blocks as one programme, through the histogram the meter uses.
        let blocks = GatingHistogram(), shortTermBlocks = GatingHistogram()
        for e in allM { blocks.add(e) }
        for e in allS { shortTermBlocks.add(e) }
        var concatenated = LoudnessSummary()
        concatenated.integratedLUFS = LoudnessGating.integrated(blocks).lufs
        let range = LoudnessGating.range(shortTermBlocks)
        (concatenated.loudnessRangeLU, concatenated.loudnessRangeLowLUFS, concatenated.loudnessRangeHighLUFS) = (range.lu, range.low, range.high)
        check("all files concatenated", allM, allS, concatenated)
        print(String(format: "worst: I %.1e LU, percentile %.4f LU, LRA %.4f LU", worst.i, worst.percentile, worst.range))
    }
}
