import DSPCore
import Foundation
import Testing
import TestSupport

// MARK: - Helpers shared by the Resampler test files

enum ResamplerTestSignals {
    /// amplitude · sin(2π f n / rate + phase), computed in Double, rounded to Float.
    static func sine(count: Int, frequencyHz: Double, rate: Int, amplitude: Double = 1, phase: Double = 0.3) -> [Float] {
        let w = 2 * Double.pi * frequencyHz / Double(rate)
        return (0..<count).map { Float(amplitude * sin(w * Double($0) + phase)) }
    }

    /// Uniform noise in ±amplitude.
    static func noise(count: Int, seed: UInt64, amplitude: Float = 0.9) -> [Float] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in Float.random(in: -amplitude...amplitude, using: &rng) }
    }

    /// Pushes `input` in chunks of the given sizes (samples), each with an output buffer of
    /// `maxOutputCount` (or `room` samples when given), checks that the count was exact, and
    /// flushes. Returns all output.
    static func run(_ resampler: Resampler, _ input: [Float], chunks: [Int]? = nil, room: Int? = nil) -> [Float] {
        var output: [Float] = []
        output.reserveCapacity(resampler.maxOutputCount(forInputCount: input.count) + resampler.maxFlushOutputCount)
        let sizes = chunks ?? [input.count]
        var offset = 0
        input.withUnsafeBufferPointer { all in
            for size in sizes where size > 0 {
                var taken = 0
                while taken < size {
                    let slice = UnsafeBufferPointer(rebasing: all[(offset + taken)..<(offset + size)])
                    let expected = resampler.maxOutputCount(forInputCount: slice.count)
                    let capacity = room ?? expected
                    var buffer = [Float](repeating: .nan, count: capacity)
                    let counts = buffer.withUnsafeMutableBufferPointer { resampler.process(slice, into: $0) }
                    if room == nil {
                        precondition(counts.consumed == slice.count && counts.produced == expected, "inexact maxOutputCount")
                    }
                    precondition(counts.consumed > 0 || counts.produced > 0, "no progress")
                    output += buffer[..<counts.produced]
                    taken += counts.consumed
                }
                offset += size
            }
        }
        let pending = resampler.pendingFlushOutputCount
        precondition(pending <= resampler.maxFlushOutputCount)
        var tail = [Float](repeating: .nan, count: resampler.maxFlushOutputCount)
        let n = tail.withUnsafeMutableBufferPointer { resampler.flush(into: $0) }
        precondition(n == pending)
        output += tail[..<n]
        return output
    }

    /// Chunk sizes: fixed `size`, or seeded random in `range`, adding up to `total`.
    static func chunks(total: Int, size: Int) -> [Int] {
        stride(from: 0, to: total, by: size).map { Swift.min(size, total - $0) }
    }

    static func chunks(total: Int, in range: ClosedRange<Int>, seed: UInt64) -> [Int] {
        var rng = SplitMix64(seed: seed)
        var sizes: [Int] = []
        var left = total
        while left > 0 {
            let n = Swift.min(Int.random(in: range, using: &rng), left)
            sizes.append(n)
            left -= n
        }
        return sizes
    }

    /// Least-squares fit of a·cos + b·sin + c at `frequencyHz` over `range` of `y`.
    /// Returns the fitted amplitude, the fit's mean power and the residual's mean power.
    static func fitSine(_ y: [Float], range: Range<Int>, frequencyHz: Double, rate: Int) -> (amplitude: Double, signalPower: Double, residualPower: Double) {
        let w = 2 * Double.pi * frequencyHz / Double(rate)
        // Normal equations for the basis [cos, sin, 1] (scalar sums: fast in debug builds).
        var cc = 0.0, cs = 0.0, c1 = 0.0, ss = 0.0, s1 = 0.0, n1 = 0.0, rc = 0.0, rs = 0.0, r1 = 0.0
        for n in range {
            let c = cos(w * Double(n))
            let s = sin(w * Double(n))
            let v = Double(y[n])
            cc += c * c; cs += c * s; c1 += c; ss += s * s; s1 += s; n1 += 1
            rc += c * v; rs += s * v; r1 += v
        }
        let g = [[cc, cs, c1], [cs, ss, s1], [c1, s1, n1]]
        let r = [rc, rs, r1]
        let x = solve3(g, r)
        var signal = 0.0
        var residual = 0.0
        for n in range {
            let fit = x[0] * cos(w * Double(n)) + x[1] * sin(w * Double(n))
            let e = Double(y[n]) - fit - x[2]
            signal += fit * fit
            residual += e * e
        }
        let count = Double(range.count)
        return ((x[0] * x[0] + x[1] * x[1]).squareRoot(), signal / count, residual / count)
    }

    /// Gaussian elimination with partial pivoting on a 3×3 system.
    static func solve3(_ a0: [[Double]], _ b0: [Double]) -> [Double] {
        var a = a0
        var b = b0
        for c in 0..<3 {
            let p = (c..<3).max { abs(a[$0][c]) < abs(a[$1][c]) }!
            a.swapAt(c, p)
            b.swapAt(c, p)
            for r in (c + 1)..<3 {
                let f = a[r][c] / a[c][c]
                for k in c..<3 { a[r][k] -= f * a[c][k] }
                b[r] -= f * b[c]
            }
        }
        var x = [0.0, 0.0, 0.0]
        for r in stride(from: 2, through: 0, by: -1) {
            var s = b[r]
            for k in (r + 1)..<3 { s -= a[r][k] * x[k] }
            x[r] = s / a[r][r]
        }
        return x
    }

    /// Mean power over `range`.
    static func power(_ y: [Float], _ range: Range<Int>) -> Double {
        range.reduce(0.0) { $0 + Double($1 < y.count ? y[$1] : 0) * Double($1 < y.count ? y[$1] : 0) } / Double(range.count)
    }

    /// The steady-state output range of an untrimmed run over `inputFrames` frames: skips the
    /// start-up and end transients (the filter span, twice the delay, plus margin).
    static func steadyRange(_ resampler: Resampler, inputFrames: Int) -> Range<Int> {
        let produced = Int(Double(inputFrames) * Double(resampler.outputRate) / Double(resampler.inputRate))
        let span = 2 * resampler.outputDelay + 16
        return span..<(produced - 16)
    }
}

// MARK: - Construction and layout

@Suite("Resampler construction")
struct ResamplerConstructionTests {
    @Test func reducesTheRatioExactly() throws {
        let r = try Resampler(inputRate: 44_100, outputRate: 16_000)
        #expect(r.interpolationFactor == 160)
        #expect(r.decimationFactor == 441)
        let d = try Resampler(inputRate: 48_000, outputRate: 16_000)
        #expect(d.interpolationFactor == 1)
        #expect(d.decimationFactor == 3)
        #expect(d.filterLength % 2 == 1)
        // 48 → 16 kHz runs in two stages: a half-band (4K − 1 taps), then 24 → 16 kHz, whose
        // L₂ = 2 phases of tapsPerPhase taps hold the whole prototype.
        #expect(d.halfBandLength % 4 == 3)
        #expect(2 * d.tapsPerPhase >= d.filterLength)
        #expect(try Resampler(inputRate: 32_000, outputRate: 16_000).halfBandLength == 0)
    }

    @Test(arguments: [
        (999, 16_000, 1, "inputRate", "999"),
        (768_001, 16_000, 1, "inputRate", "768001"),
        (48_000, 0, 1, "outputRate", "0"),
        (48_000, -16_000, 1, "outputRate", "-16000"),
        (48_000, 16_000, 0, "channelCount", "0"),
        (48_000, 16_000, 65, "channelCount", "65"),
        (767_999, 768_000, 1, "outputRate/inputRate", "768000/767999 (reduced 768000/767999)"),
        (1_000, 1_999, 1, "outputRate/inputRate", "1999/1000 (reduced 1999/1000)"),
    ])
    func refusesBadConfigurations(input: Int, output: Int, channels: Int, parameter: String, value: String) {
        #expect(throws: ConfigurationError.self) {
            try Resampler(inputRate: input, outputRate: output, channelCount: channels)
        }
        do {
            _ = try Resampler(inputRate: input, outputRate: output, channelCount: channels)
        } catch {
            #expect(error.parameter == parameter)
            #expect(error.value == value)
            #expect(!error.expected.isEmpty)
        }
    }

    @Test func acceptsTheRangeEnds() throws {
        _ = try Resampler(inputRate: 1_000, outputRate: 768_000)
        _ = try Resampler(inputRate: 768_000, outputRate: 1_000, channelCount: 64)
        _ = try Resampler(inputRate: 11_025, outputRate: 16_000, quality: .high)
    }

    @Test func processAllMatchesStreaming() throws {
        let x = ResamplerTestSignals.noise(count: 10_001, seed: 4)
        for (input, output) in [(48_000, 16_000), (44_100, 16_000), (16_000, 44_100)] {
            let r = try Resampler(inputRate: input, outputRate: output, trimsLeadingDelay: true)
            #expect(r.processAll(x) == ResamplerTestSignals.run(r, x, chunks: ResamplerTestSignals.chunks(total: x.count, size: 1024)))
        }
    }

    @Test func identityIsAPassThrough() throws {
        let r = try Resampler(inputRate: 16_000, outputRate: 16_000)
        let x = ResamplerTestSignals.noise(count: 5000, seed: 3)
        #expect(r.outputDelay == 0)
        #expect(ResamplerTestSignals.run(r, x) == x)
    }

    @Test func reportsDelayWithinFiveMilliseconds() throws {
        for input in [8_000, 11_025, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000, 88_200, 96_000] {
            let r = try Resampler(inputRate: input, outputRate: 16_000)
            #expect(r.groupDelaySeconds <= 0.005)
            #expect(r.outputDelaySeconds <= 0.005)
            #expect(abs(r.outputDelaySeconds - Double(r.outputDelay) / 16_000) < 1e-15)
            let trimmed = try Resampler(inputRate: input, outputRate: 16_000, trimsLeadingDelay: true)
            #expect(trimmed.outputDelay == 0)
        }
    }
}

// MARK: - Streaming behaviour

@Suite("Resampler streaming")
struct ResamplerStreamingTests {
    static let ratios = [(48_000, 16_000), (44_100, 16_000), (16_000, 48_000), (16_000, 44_100), (8_000, 16_000), (22_050, 16_000), (11_025, 16_000)]

    @Test(arguments: ratios)
    func chunkingDoesNotChangeOutput(input: Int, output: Int) throws {
        let x = ResamplerTestSignals.noise(count: input / 2, seed: 11)
        let r = try Resampler(inputRate: input, outputRate: output)
        let whole = ResamplerTestSignals.run(r, x)
        let blocks = ResamplerTestSignals.run(r, x, chunks: ResamplerTestSignals.chunks(total: x.count, size: 1024))
        let random = ResamplerTestSignals.run(r, x, chunks: ResamplerTestSignals.chunks(total: x.count, in: 1...4096, seed: 5))
        let tiny = ResamplerTestSignals.run(r, Array(x[..<3000]), chunks: ResamplerTestSignals.chunks(total: 3000, in: 1...7, seed: 9))
        let wholeShort = ResamplerTestSignals.run(r, Array(x[..<3000]))
        #expect(whole == blocks)
        #expect(whole == random)
        #expect(tiny == wholeShort)
    }

    @Test func smallOutputBuffersOnlyDelayOutput() throws {
        let x = ResamplerTestSignals.noise(count: 20_000, seed: 12)
        for room in [1, 2, 7, 100] {
            let r = try Resampler(inputRate: 44_100, outputRate: 16_000)
            let reference = ResamplerTestSignals.run(r, x)
            #expect(ResamplerTestSignals.run(r, x, chunks: ResamplerTestSignals.chunks(total: x.count, size: 1000), room: room) == reference)
        }
        let up = try Resampler(inputRate: 16_000, outputRate: 48_000, channelCount: 2)
        let stereo = ResamplerTestSignals.noise(count: 8_000, seed: 13)
        let reference = ResamplerTestSignals.run(up, stereo)
        #expect(ResamplerTestSignals.run(up, stereo, chunks: ResamplerTestSignals.chunks(total: stereo.count, in: 1...999, seed: 2), room: 6) == reference)
    }

    @Test func carriesPhaseAcrossCalls() throws {
        // 1024 samples at 48 kHz → 341 or 342 at 16 kHz, summing to the floor formula.
        let r = try Resampler(inputRate: 48_000, outputRate: 16_000)
        let block = [Float](repeating: 0.25, count: 1024)
        var output = [Float](repeating: 0, count: 400)
        var total = 0
        for index in 1...300 {
            let expected = r.maxOutputCount(forInputCount: 1024)
            #expect(expected == 341 || expected == 342)
            let counts = block.withUnsafeBufferPointer { source in
                output.withUnsafeMutableBufferPointer { r.process(source, into: $0) }
            }
            #expect(counts.produced == expected)
            #expect(counts.consumed == 1024)
            total += counts.produced
            // Output m is due once frame ⌊(3m + t₀)/1⌋ arrived: total = ⌊(3N − 1 − t₀)/3⌋ + 1.
            let frames = index * 1024
            #expect(abs(total - frames / 3) <= 1)
        }
    }

    @Test(arguments: [(48_000, 16_000), (44_100, 16_000), (16_000, 48_000), (16_000, 44_100), (8_000, 16_000), (11_025, 16_000), (96_000, 16_000)])
    func trimmedStreamsHaveExactLength(input: Int, output: Int) throws {
        let g = resamplerGCD(input, output)
        let l = output / g
        let m = input / g
        for channels in [1, 2] {
            let r = try Resampler(inputRate: input, outputRate: output, channelCount: channels, trimsLeadingDelay: true)
            for frames in [0, 1, 2, 3, 5, 159, 160, 441, 1023, 1024, 4410, 44_100] {
                let x = ResamplerTestSignals.noise(count: frames * channels, seed: UInt64(frames))
                let y = ResamplerTestSignals.run(r, x, chunks: ResamplerTestSignals.chunks(total: x.count, size: 1000))
                let expected = (2 * frames * l + m) / (2 * m)
                #expect(y.count == expected * channels, "N = \(frames)")
            }
        }
    }

    @Test(arguments: [48_000, 44_100, 22_050])
    func untrimmedFlushEmitsTheWholeTail(input: Int) throws {
        // A unit impulse: the output must contain the whole (symmetric) impulse response and
        // end with it, i.e. the last output still touches the input frame.
        // The overall response is linear phase, centred on outputDelay, so the whole of it is
        // the outputDelay outputs before the centre, the centre and as many after it:
        // 2 × outputDelay + 1 outputs (single stage: outputs m with 3m + t₀ ≤ K − 1; two
        // stages: the same count once the half-band's span is included).
        let r = try Resampler(inputRate: input, outputRate: 16_000)
        let y = ResamplerTestSignals.run(r, [1])
        #expect(y.count == 2 * r.outputDelay + 1)
        #expect(y.allSatisfy { $0.isFinite })
        // The response is centred on outputDelay.
        let peak = y.indices.max { abs(y[$0]) < abs(y[$1]) }!
        #expect(peak == r.outputDelay)
    }

    @Test func resetAndFlushRestartTheStream() throws {
        let a = ResamplerTestSignals.noise(count: 7_777, seed: 21)
        let b = ResamplerTestSignals.noise(count: 9_001, seed: 22)
        for (input, output) in Self.ratios {
            let fresh = try Resampler(inputRate: input, outputRate: output, channelCount: 1)
            let expected = ResamplerTestSignals.run(fresh, b)
            let used = try Resampler(inputRate: input, outputRate: output, channelCount: 1)
            _ = ResamplerTestSignals.run(used, a)  // ends with flush
            #expect(ResamplerTestSignals.run(used, b) == expected)
            // process without flush, then reset
            a.withUnsafeBufferPointer { source in
                var sink = [Float](repeating: 0, count: used.maxOutputCount(forInputCount: a.count))
                _ = sink.withUnsafeMutableBufferPointer { used.process(source, into: $0) }
            }
            used.reset()
            #expect(ResamplerTestSignals.run(used, b) == expected)
        }
    }

    @Test(arguments: [(44_100, 2), (44_100, 5), (48_000, 3), (48_000, 5)])
    func multichannelMatchesMonoPerChannel(input: Int, channels: Int) throws {
        let frames = 6_000
        let planar = (0..<channels).map { ResamplerTestSignals.noise(count: frames, seed: UInt64(100 + $0)) }
        var interleaved = [Float](repeating: 0, count: frames * channels)
        for f in 0..<frames { for c in 0..<channels { interleaved[f * channels + c] = planar[c][f] } }
        let r = try Resampler(inputRate: input, outputRate: 16_000, channelCount: channels)
        // Odd push sizes split frames: the partial frame is carried.
        let y = ResamplerTestSignals.run(r, interleaved, chunks: ResamplerTestSignals.chunks(total: interleaved.count, in: 1...777, seed: 8))
        for c in 0..<channels {
            let mono = ResamplerTestSignals.run(try Resampler(inputRate: input, outputRate: 16_000), planar[c])
            #expect(y.count == mono.count * channels)
            let channel = stride(from: c, to: y.count, by: channels).map { y[$0] }
            #expect(channel == mono)
        }
    }

    @Test func partialFrameAtEndIsPaddedNotDropped() throws {
        let r = try Resampler(inputRate: 48_000, outputRate: 16_000, channelCount: 2, trimsLeadingDelay: true)
        // 3001 samples = 1500 frames + one sample: flush completes the frame with a zero.
        let x = [Float](repeating: 0.5, count: 3001)
        let y = ResamplerTestSignals.run(r, x, chunks: [1001, 2000])
        #expect(y.count == 2 * ((2 * 1501 + 3) / 6))
        #expect(r.maxOutputCount(forInputCount: 1) == 0)
        // The same through 44.1 kHz's polyphase first stage: round(1501 · 160 / 441) frames,
        // and the padded frame reaches the output (untrimmed: the last outputs still see it).
        let s = try Resampler(inputRate: 44_100, outputRate: 16_000, channelCount: 2, trimsLeadingDelay: true)
        let z = ResamplerTestSignals.run(s, x, chunks: [1001, 2000])
        #expect(z.count == 2 * ((2 * 1501 * 160 + 441) / 882))
        let u = try Resampler(inputRate: 44_100, outputRate: 16_000, channelCount: 2)
        let full = ResamplerTestSignals.run(u, x, chunks: [3001])
        let dropped = ResamplerTestSignals.run(u, Array(x[..<3000]), chunks: [3000])
        #expect(full.count > dropped.count)
    }

    @Test(arguments: [44_100, 48_000])
    func edgeInputs(input: Int) throws {
        let r = try Resampler(inputRate: input, outputRate: 16_000)
        // Empty input: nothing in, nothing out, flush of an empty stream writes nothing.
        #expect(ResamplerTestSignals.run(r, []).isEmpty)
        var none: [Float] = []
        let counts = none.withUnsafeMutableBufferPointer { out in
            [Float]().withUnsafeBufferPointer { r.process($0, into: out) }
        }
        #expect(counts == ProcessResult(consumed: 0, produced: 0))
        // Zeros (and −0) give exact zeros.
        let zeros = ResamplerTestSignals.run(r, [Float](repeating: -0.0, count: 5000))
        #expect(zeros.allSatisfy { $0 == 0 })
        // Denormals stay tiny and finite.
        let denormals = ResamplerTestSignals.run(r, [Float](repeating: .leastNonzeroMagnitude, count: 2000))
        #expect(denormals.allSatisfy { $0.isFinite && abs($0) < 1e-30 })
        // A NaN or infinity poisons only the outputs whose window covers it.
        for bad in [Float.nan, .infinity, -.infinity] {
            var x = [Float](repeating: 0.1, count: 20_000)
            x[1000] = bad
            let y = ResamplerTestSignals.run(r, x)
            let poisoned = y.indices.filter { !y[$0].isFinite }
            #expect(!poisoned.isEmpty)
            #expect(poisoned.count <= r.tapsPerPhase + 1)
            #expect(y[(poisoned.last! + 1)...].allSatisfy { $0.isFinite })
        }
        // Full-scale DC stays within full scale plus the filter's overshoot-free step (Gibbs < 10 %).
        let dc = ResamplerTestSignals.run(r, [Float](repeating: 1, count: 20_000))
        #expect(dc.allSatisfy { abs($0) <= 1.1 })
        #expect(abs(dc[3000] - 1) < 1e-4)
    }
}

private func resamplerGCD(_ a: Int, _ b: Int) -> Int { b == 0 ? a : resamplerGCD(b, a % b) }
