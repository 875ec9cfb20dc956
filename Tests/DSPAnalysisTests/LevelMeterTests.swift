import Foundation
import Testing
import DSPCore
import DSPAnalysis
import TestSupport

private func measure(_ samples: [Float], clipThreshold: Float = 1) -> FrameLevel {
    samples.withUnsafeBufferPointer { try! LevelMeter(clipThreshold: clipThreshold).measure($0) }
}

/// A sine with a whole number of periods in `count` samples.
private func sine(amplitude: Float, periods: Int, count: Int = 1024, phase: Double = 0.3) -> [Float] {
    (0..<count).map { Float(Double(amplitude) * sin(2 * .pi * Double(periods * $0) / Double(count) + phase)) }
}

@Suite("LevelMeter: exact per-frame expectations")
struct LevelMeterTests {
    /// dB tolerance for Float32 signals: the sine samples themselves are rounded to Float32.
    static let dbTolerance = 1e-4

    @Test("sines at known levels", arguments: [1.0, 0.5, 0.1, 0.001, 1e-5] as [Float], [1, 37, 511])
    func sines(amplitude: Float, periods: Int) {
        let samples = sine(amplitude: amplitude, periods: periods)
        let level = measure(samples)
        let expected = 20 * log10(Double(amplitude)) - 10 * log10(2.0)
        #expect(abs(level.rmsDBFS - expected) < Self.dbTolerance)
        #expect(abs(level.rmsDBFSSineReferenced - 20 * log10(Double(amplitude))) < Self.dbTolerance)
        #expect(abs(level.peakDBFS - 20 * log10(Double(amplitude))) < 0.01)  // sampled peak ≤ amplitude
        #expect(level.peak <= amplitude)
        #expect(abs(level.dcOffset) < 1e-6 * Double(amplitude) * 1024)
        #expect(level.sampleCount == 1024)
        #expect(level.clippedCount == samples.filter { abs($0) >= 1 }.count)
        #expect(amplitude < 1 ? level.clippedCount == 0 : true)
    }

    @Test("full-scale sine reads −3.01 dBFS, AES17 0 dB")
    func fullScaleSine() {
        let level = measure(sine(amplitude: 1, periods: 64, phase: 0))  // hits ±1 exactly at quarter periods
        #expect(abs(level.rmsDBFS - -3.0103) < 1e-4)
        #expect(abs(level.rmsDBFSSineReferenced) < 1e-4)
        #expect(level.peakDBFS == 0)
        #expect(level.clippedCount == 128)  // 64 periods × (+1, −1)
    }

    @Test("squares and DC", arguments: [1.0, 0.25, -0.5] as [Float])
    func squareAndDC(a: Float) {
        let square = measure((0..<1000).map { $0 % 10 < 5 ? a : -a })
        #expect(abs(square.rmsDBFS - 20 * log10(Double(abs(a)))) < 1e-6)
        #expect(abs(square.rmsDBFSSineReferenced - (20 * log10(Double(abs(a))) + 3.0103)) < 1e-4)
        #expect(square.peak == abs(a))
        #expect(square.dcOffset == 0)
        #expect(square.clippedCount == (abs(a) >= 1 ? 1000 : 0))
        let dc = measure([Float](repeating: a, count: 333))
        #expect(dc.dcOffset == Double(a))
        #expect(abs(dc.rmsDBFS - 20 * log10(Double(abs(a)))) < 1e-6)
        #expect(dc.peak == abs(a))
    }

    @Test("digital silence is −∞; empty is −∞ with no samples")
    func silence() {
        let level = measure([Float](repeating: 0, count: 1024))
        #expect(level.rmsDBFS == -.infinity && level.peakDBFS == -.infinity)
        #expect(level.sampleCount == 1024 && level.dcOffset == 0)
        let negativeZero = measure([Float](repeating: -0.0, count: 17))
        #expect(negativeZero.rmsDBFS == -.infinity)
        let empty = measure([])
        #expect(empty == .empty && empty.rmsDBFS == -.infinity)
    }

    @Test("clipped input is counted against the threshold")
    func clipped() {
        // A 1.5-amplitude sine hard-clipped to ±1.
        let clipped = sine(amplitude: 1.5, periods: 8).map { min(1, max(-1, $0)) }
        let expected = clipped.filter { abs($0) >= 1 }.count
        #expect(expected > 100)
        #expect(measure(clipped).clippedCount == expected)
        let nearFullScale = clipped.map { $0 * 0.9995 }
        #expect(measure(nearFullScale).clippedCount == 0)
        #expect(measure(nearFullScale, clipThreshold: 0.999).clippedCount == expected)
        #expect(throws: ConfigurationError.self) { try LevelMeter(clipThreshold: 0) }
        #expect(throws: ConfigurationError.self) { try LevelMeter(clipThreshold: .nan) }
    }

    @Test("NaN and ±Inf are counted and excluded, in vector lanes and tails")
    func nonFinite() {
        var samples = [Float](repeating: 0.5, count: 1000)
        for i in stride(from: 0, to: 1000, by: 9) { samples[i] = .nan }
        samples[5] = .infinity
        samples[999] = -.infinity
        samples[998] = .nan
        let bad = samples.filter { !$0.isFinite }.count
        let level = measure(samples)
        #expect(level.nonFiniteCount == bad)
        #expect(level.sampleCount == 1000 - bad)
        #expect(abs(level.rmsDBFS - 20 * log10(0.5)) < 1e-6)
        #expect(level.peak == 0.5 && level.clippedCount == 0)
        let allNaN = measure([Float](repeating: .nan, count: 20))
        #expect(allNaN.sampleCount == 0 && allNaN.rmsDBFS == -.infinity)
    }

    @Test("denormals and tiny values do not disturb the sums")
    func denormals() {
        let level = measure([Float](repeating: .leastNonzeroMagnitude, count: 64) + [0.5])
        #expect(level.peak == 0.5)
        #expect(abs(level.meanSquare - 0.25 / 65) < 1e-12)
    }

    @Test("long blocks keep precision (Double accumulation across 4096-sample blocks)")
    func longBlock() {
        let level = measure(sine(amplitude: 0.5, periods: 1000, count: 1_000_000))
        #expect(abs(level.rmsDBFS - (20 * log10(0.5) - 3.0103)) < 1e-4)
    }
}

@Suite("LevelAnalyzer: streaming levels and summary")
struct LevelAnalyzerTests {
    private func run(_ analyzer: LevelAnalyzer, _ input: [Float], pushes: [Int]) -> [TimedFrameLevel] {
        var out: [TimedFrameLevel] = []
        var offset = 0
        for n in pushes {
            input[offset..<offset + n].withUnsafeBufferPointer { analyzer.process($0) { out.append($0) } }
            offset += n
        }
        analyzer.flush { out.append($0) }
        return out
    }

    private func pushes(_ total: Int, random: Bool) -> [Int] {
        var rng = SplitMix64(seed: UInt64(total))  // reproducible push sizes
        var left = total
        var sizes: [Int] = []
        while left > 0 {
            let n = random ? min(Int.random(in: 1...4096, using: &rng), left) : min(1024, left)
            sizes.append(n)
            left -= n
        }
        return sizes
    }

    @Test("identical frames for one buffer, 1024 pushes, random pushes; partial last frame")
    func chunking() throws {
        let input = (0..<48_013).map { Float(sin(Double($0) * 0.01)) * (Float($0 % 5000) / 5000) }
        let whole = run(try LevelAnalyzer(configuration: .init(sampleRate: 48_000)), input, pushes: [input.count])
        let blocks = run(try LevelAnalyzer(configuration: .init(sampleRate: 48_000)), input, pushes: pushes(input.count, random: false))
        let random = run(try LevelAnalyzer(configuration: .init(sampleRate: 48_000)), input, pushes: pushes(input.count, random: true))
        #expect(whole == blocks && whole == random)
        #expect(whole.count == 47)  // 46 full frames + 1 partial of 909
        #expect(whole.last!.frameCount == 48_013 - 46 * 1024 && whole.last!.level.sampleCount == 909)
        #expect(whole[3].startFrame == 3072 && whole[3].startSeconds == 3072.0 / 48_000)
    }

    @Test("buffer API with little room consumes only what fits and loses nothing")
    func bufferAPI() throws {
        let input = (0..<10_000).map { Float($0 % 100) / 100 }
        let analyzer = try LevelAnalyzer()
        var out: [TimedFrameLevel] = []
        var offset = 0
        var room = [TimedFrameLevel](repeating: TimedFrameLevel(index: 0, startFrame: 0, frameCount: 0, startSeconds: 0, level: .empty), count: 2)
        while offset < input.count {
            let counts = input[offset...].withUnsafeBufferPointer { s in room.withUnsafeMutableBufferPointer { analyzer.process(s, into: $0) } }
            out += room[..<counts.produced]
            offset += counts.consumed
        }
        let n = room.withUnsafeMutableBufferPointer { analyzer.flush(into: $0) }
        out += room[..<n]
        let reference = run(try LevelAnalyzer(), input, pushes: [input.count])
        #expect(out == reference)
    }

    @Test("summary equals one measurement of the whole stream; stereo frames span both channels")
    func summary() throws {
        let left = (0..<5000).map { Float(sin(Double($0) * 0.05)) * 0.5 }
        let interleaved = left.flatMap { [$0, $0 * 0.5] }
        let analyzer = try LevelAnalyzer(configuration: .init(sampleRate: 16_000, channelCount: 2))
        let frames = run(analyzer, interleaved, pushes: pushes(interleaved.count, random: true))
        #expect(frames.count == 5)
        #expect(frames[1].startFrame == 1024 && frames.last!.frameCount == 5000 - 4096)
        let summary = analyzer.finalize()
        let meter = try LevelMeter()
        let reference = interleaved.withUnsafeBufferPointer { meter.measure($0) }
        #expect(summary.overall.sampleCount == 10_000 && summary.sampleFrameCount == 5000)
        // Same samples, different summation order (per frame, then across frames): 1e-6 dB.
        #expect(abs(summary.overall.rmsDBFS - reference.rmsDBFS) < 1e-6)
        #expect(summary.overall.peak == reference.peak)
        #expect(abs(summary.durationSeconds - 5000.0 / 16_000) < 1e-12)
        #expect(summary.analysisFrameCount == 5)
        #expect(summary.loudestFrameRMSDBFS >= summary.quietestFrameRMSDBFS)
    }

    @Test("process → reset → process is identical; empty stream summary")
    func resetAndEmpty() throws {
        let analyzer = try LevelAnalyzer()
        let input = (0..<3000).map { Float($0 % 7) / 7 }
        let first = run(analyzer, input, pushes: [1000, 2000])
        input.prefix(500).withUnsafeBufferPointer { analyzer.process($0) { _ in } }
        analyzer.reset()
        #expect(run(analyzer, input, pushes: [3000]) == first)
        analyzer.reset()
        let empty = analyzer.finalize()
        #expect(empty.analysisFrameCount == 0 && empty.overall.rmsDBFS == -.infinity && empty.durationSeconds == 0)
    }

    @Test("settings are validated")
    func errors() {
        #expect(throws: ConfigurationError(parameter: "sampleRate", value: "0", expected: "1...1000000")) {
            try LevelAnalyzer(configuration: .init(sampleRate: 0))
        }
        #expect(throws: ConfigurationError.self) { try LevelAnalyzer(configuration: .init(channelCount: 65)) }
        #expect(throws: ConfigurationError.self) { try LevelAnalyzer(configuration: .init(frameLength: 0)) }
    }
}

@Suite("LevelBallistics")
struct LevelBallisticsTests {
    static let frame = 1024.0 / 48_000

    private func level(_ meanSquare: Double, peak: Float) -> FrameLevel {
        FrameLevel(sampleCount: 1024, meanSquare: meanSquare, peak: peak, dcOffset: 0, clippedCount: 0, nonFiniteCount: 0)
    }

    @Test("attack and release follow the one-pole step response")
    func smoothing() throws {
        var meter = try LevelBallistics(configuration: .init(frameDurationSeconds: Self.frame, attackSeconds: 0.05, releaseSeconds: 0.5))
        #expect(meter.reading.smoothedDBFS == -.infinity)
        var n = 0
        while Double(n) * Self.frame < 0.05 { meter.update(with: level(1, peak: 1)); n += 1 }
        let expected = 1 - exp(-Double(n) * Self.frame / 0.05)
        #expect(abs(meter.reading.smoothedDBFS - 10 * log10(expected)) < 1e-9)
        for _ in 0..<2000 { meter.update(with: level(1, peak: 1)) }
        #expect(abs(meter.reading.smoothedDBFS) < 1e-6)
        meter.update(with: level(0, peak: 0))
        #expect(abs(meter.reading.smoothedDBFS - 10 * log10(exp(-Self.frame / 0.5))) < 1e-9)
        for _ in 0..<100_000 { meter.update(with: level(0, peak: 0)) }
        #expect(meter.reading.smoothedDBFS == -.infinity)  // settles to true silence
    }

    @Test("peak is held, then falls at the configured rate")
    func peakHold() throws {
        var meter = try LevelBallistics(configuration: .init(frameDurationSeconds: 0.01, peakHoldSeconds: 0.5, peakFallDBPerSecond: 20))
        meter.update(with: level(0.01, peak: 0.5))
        let held = 20 * log10(0.5)
        for _ in 0..<50 { meter.update(with: level(0, peak: 0)) }
        #expect(abs(meter.reading.heldPeakDBFS - held) < 1e-9)  // 0.5 s of hold
        for _ in 0..<100 { meter.update(with: level(0, peak: 0)) }
        #expect(abs(meter.reading.heldPeakDBFS - (held - 20)) < 1e-6)  // then 1 s at 20 dB/s
        meter.update(with: level(0, peak: 0.9))
        #expect(abs(meter.reading.heldPeakDBFS - 20 * log10(Double(Float(0.9)))) < 1e-9)
        meter.reset()
        #expect(meter.reading == .init(smoothedDBFS: -.infinity, heldPeakDBFS: -.infinity))
    }

    @Test("settings are validated")
    func errors() {
        #expect(throws: ConfigurationError.self) { try LevelBallistics(configuration: .init(frameDurationSeconds: 0)) }
        #expect(throws: ConfigurationError.self) { try LevelBallistics(configuration: .init(frameDurationSeconds: 0.02, attackSeconds: -1)) }
        #expect(throws: ConfigurationError.self) { try LevelBallistics(configuration: .init(frameDurationSeconds: 0.02, peakFallDBPerSecond: .infinity)) }
    }
}
