@testable import DSPCore
import Testing

// The staggered-groups polyphase kernel (`cdsp_polyphase_groups`, large L) against the bank's
// dot products evaluated directly in Double. Output m of a stage (0-based in the stream, no
// trimming) uses row slot (t₀ + m·M)·(M mod L)⁻¹ mod L and the T frames ending at stream frame
// ⌊(t₀ + m·M) / L⌋, zero before the stream. Stated tolerance: 2e−6 × Σ|h·x| per output
// (Float32 sums of 26–72 products, in a different order).

@Suite("Staggered polyphase kernel")
struct StaggeredKernelTests {
    /// The stage `r` runs (its own first stage excluded): every output against Double.
    static func check(_ r: Resampler, input x: [Float], channels: Int, output y: [Float]) {
        let layout = r.layout
        let l = layout.phaseCount
        let m = layout.step
        let t = layout.tapsPerPhase
        let frames = x.count / channels
        var worst = 0.0
        for index in 0..<(y.count / channels) {
            let tau = r.gridOffset + index * m
            let newest = tau / l
            let slot = (tau % l) * r.slotStep % l
            for c in 0..<channels {
                var sum = 0.0
                var magnitude = 0.0
                for i in 0..<t {
                    let frame = newest - (t - 1) + i
                    guard frame >= 0, frame < frames else { continue }
                    let product = Double(r.bank[slot * t + i]) * Double(x[frame * channels + c])
                    sum += product
                    magnitude += abs(product)
                }
                let error = abs(Double(y[index * channels + c]) - sum)
                worst = max(worst, error / max(magnitude, 1e-30))
            }
        }
        #expect(worst <= 2e-6, "worst relative error \(worst)")
    }

    @Test("Single-stage ratios with large L use it and match Double", arguments: [(22_050, 1), (11_025, 1), (22_050, 3)])
    func singleStage(rate: Int, channels: Int) throws {
        let r = try Resampler(inputRate: rate, outputRate: 16_000, channelCount: channels)
        #expect(r.staggered != nil)
        #expect(r.intermediateRate == nil)
        let x = ResamplerTestSignals.noise(count: rate / 3 * channels, seed: UInt64(rate))
        let chunks = ResamplerTestSignals.chunks(total: x.count, in: 1...3000, seed: 7)
        let y = ResamplerTestSignals.run(r, x, chunks: chunks)
        Self.check(r, input: x, channels: channels, output: y)
    }

    @Test("44.1 → 16 kHz: the 44.1 → 24 kHz first stage uses it and matches Double", arguments: [1, 2])
    func firstStage(channels: Int) throws {
        let outer = try Resampler(inputRate: 44_100, outputRate: 16_000, channelCount: channels)
        #expect(outer.intermediateRate == 24_000)
        #expect(outer.halfBandLength == 0)
        let first = try #require(outer.firstStage)
        #expect(first.staggered != nil)
        #expect(first.outputRate == 24_000)
        #expect(outer.usesSmallKernel)
        // Driven alone (a fresh stream of the first stage, as the outer one drives it).
        first.reset()
        let x = ResamplerTestSignals.noise(count: 20_000 * channels, seed: 3)
        let y = ResamplerTestSignals.run(first, x, chunks: ResamplerTestSignals.chunks(total: x.count, in: 1...2000, seed: 4))
        Self.check(first, input: x, channels: channels, output: y)
    }

    @Test("A NaN or infinity poisons exactly the outputs whose windows hold it, however the input is chunked",
          arguments: [22_050, 44_100, 88_200])
    func nonFiniteInput(rate: Int) throws {
        let r = try Resampler(inputRate: rate, outputRate: 16_000)
        for bad in [Float.nan, .infinity] {
            for position in [0, 1000, 1001, 5003] {
                var x = ResamplerTestSignals.noise(count: 9000, seed: 21)
                x[position] = 0
                let clean = ResamplerTestSignals.run(r, x)
                x[position] = bad
                let whole = ResamplerTestSignals.run(r, x)
                let chunked = ResamplerTestSignals.run(r, x, chunks: ResamplerTestSignals.chunks(total: x.count, in: 1...700, seed: 2))
                let ones = ResamplerTestSignals.run(r, x, chunks: [Int](repeating: 1, count: x.count))
                #expect(whole.map(\.bitPattern) == chunked.map(\.bitPattern))
                #expect(whole.map(\.bitPattern) == ones.map(\.bitPattern))
                let poisoned = whole.indices.filter { !whole[$0].isFinite }
                #expect(!poisoned.isEmpty)
                // Contiguous, and no wider than one window (T frames at the stage's rate, in outputs).
                #expect(poisoned.last! - poisoned.first! + 1 == poisoned.count)
                #expect(poisoned.count <= r.tapsPerPhase + 2)
                // Every other output is exactly the clean stream's (the bad frame is outside its window).
                #expect(whole.indices.allSatisfy { !whole[$0].isFinite || whole[$0] == clean[$0] })
            }
        }
    }
    @Test("A NaN in one channel of a stereo stream poisons only that channel, as in a mono stream",
          arguments: [22_050, 44_100, 88_200])
    func nonFiniteInputStereo(rate: Int) throws {
        let mono = try Resampler(inputRate: rate, outputRate: 16_000)
        let stereo = try Resampler(inputRate: rate, outputRate: 16_000, channelCount: 2)
        var left = ResamplerTestSignals.noise(count: 9000, seed: 31)
        let right = ResamplerTestSignals.noise(count: 9000, seed: 32)
        left[4321] = .nan
        var x = [Float](repeating: 0, count: 18_000)
        for i in 0..<9000 {
            x[2 * i] = left[i]
            x[2 * i + 1] = right[i]
        }
        let expectedLeft = ResamplerTestSignals.run(mono, left)
        let expectedRight = ResamplerTestSignals.run(mono, right)
        for chunks in [nil, ResamplerTestSignals.chunks(total: x.count, in: 1...900, seed: 5)] {
            let y = ResamplerTestSignals.run(stereo, x, chunks: chunks)
            #expect(y.count == 2 * expectedLeft.count)
            let l = stride(from: 0, to: y.count, by: 2).map { y[$0] }
            let r = stride(from: 1, to: y.count, by: 2).map { y[$0] }
            #expect(l.map(\.bitPattern) == expectedLeft.map(\.bitPattern))
            #expect(r.map(\.bitPattern) == expectedRight.map(\.bitPattern))
            #expect(l.contains { $0.isNaN })
            #expect(r.allSatisfy { $0.isFinite })
        }
    }
}
