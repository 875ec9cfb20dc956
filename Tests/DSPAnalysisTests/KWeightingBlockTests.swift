@testable import DSPAnalysis
import DSPCore
import Foundation
import Testing
import TestSupport

// The block state-space K-weighting kernel (`KWeightingBank`, C `cdsp_kweighting_*`) against the
// serial Double recursion (`KWeightingKernel`) it replaced: per-step energies on random and
// adversarial input at several rates and channel counts, invariance under any push sizes, and
// the whole LoudnessMeter (readings, integrated loudness, loudness range) against the same
// measurement rebuilt in the test from serial energies.
//
// Stated tolerance: step energies within 1e−10 relative (4.3e−10 dB; measured ~1e−12) on every
// step within 90 dB of the stream's loudest step; on all steps within 1e−10 relative plus 1e−18
// of the loudest step's energy. In the free decay after sound stops, steps fall 100–250 dB
// below the sound within ~150 ms and the two recursions' last-bit differences, carried by the
// slowest mode, become a larger fraction of what is left (~1e−9 relative at 250 dB down; the
// two also settle their state to exact zero a step apart) — far below any gate (−70 LUFS).
// Loudness values (the meter against the same measurement from serial energies) within 1e−9 LU.

/// One test signal of `count` samples; `kind` picks the character.
private func testSignal(kind: Int, count: Int, sampleRate: Int, seed: UInt64) -> [Float] {
    var rng = SplitMix64(seed: seed)
    let fs = Double(sampleRate)
    return (0..<count).map { n in
        let t = Double(n) / fs
        switch kind % 6 {
        case 0:  // white noise under a slow envelope
            return Float(0.5 * (0.55 + 0.45 * sin(2 * .pi * 0.7 * t)) * rng.uniform())
        case 1:  // 20 Hz at full scale with a little noise: the high-pass cancels most of it
            return Float(0.95 * sin(2 * .pi * 20 * t) + 0.01 * rng.uniform())
        case 2:  // a DC offset with noise
            return Float(0.5 + 0.1 * rng.uniform())
        case 3:  // noise, then silence to the end (the decay must reach exact zero)
            return n < count / 3 ? Float(0.7 * rng.uniform()) : 0
        case 4:  // full-scale random ±1
            return rng.next() & 1 == 0 ? 1 : -1
        default:  // a 3 kHz tone near the shelf, quiet (−60 dBFS)
            return Float(0.001 * sin(2 * .pi * 3000 * t))
        }
    }
}

/// Stream position of the end of 10 ms step `k` (as LoudnessMeter: ⌊k·f_s/100⌋).
private func boundary(_ k: Int, _ sampleRate: Int) -> Int { k * sampleRate / 100 }

/// Σ v² per 10 ms step of one channel by the serial recursion, settled at each step's end as
/// the meter did before the block kernel.
private func serialStepEnergies(_ x: [Float], _ filter: KWeightingFilter, steps: Int) -> [Double] {
    let kernel = KWeightingKernel(filter)
    let state = UnsafeMutablePointer<Double>.allocate(capacity: KWeightingKernel.stateCount)
    state.initialize(repeating: 0, count: KWeightingKernel.stateCount)
    defer { state.deallocate() }
    let rate = Int(filter.sampleRate)
    return x.withUnsafeBufferPointer { p in
        (0..<steps).map { k in
            let start = boundary(k, rate), end = boundary(k + 1, rate)
            var energy = 0.0
            kernel.run(p.baseAddress! + start, count: end - start, state: state, energy: &energy)
            KWeightingKernel.settle(state)
            return energy
        }
    }
}

/// Σ v² per step and channel by the block kernel, the frames pushed in random sizes of
/// 1…`maxPush` (cut at step ends, as the meter does).
private func blockStepEnergies(_ channels: [[Float]], _ filter: KWeightingFilter, steps: Int, maxPush: Int, seed: UInt64) -> [[Double]] {
    let bank = KWeightingBank(filter, channelCount: channels.count)
    let rate = Int(filter.sampleRate)
    var energies = [[Double]](repeating: [], count: channels.count)
    var rng = SplitMix64(seed: seed)
    var position = 0, step = 0, fill = 0
    let total = boundary(steps, rate)
    while position < total {
        var push = min(Int(rng.next() % UInt64(maxPush)) + 1, total - position)
        while push > 0 {
            let length = boundary(step + 1, rate) - boundary(step, rate)
            let m = min(push, length - fill)
            for c in channels.indices {
                channels[c].withUnsafeBufferPointer { bank.run(c, $0.baseAddress! + position, count: m, filled: fill) }
            }
            fill += m
            position += m
            push -= m
            if fill == length {
                for c in channels.indices { energies[c].append(bank.closeStep(c, length: length)) }
                fill = 0
                step += 1
            }
        }
    }
    return energies
}

@Suite("K-weighting block kernel")
struct KWeightingBlockTests {
    @Test("block kernel = serial recursion within 1e−10 relative per step (within 90 dB of the loudest); any push sizes give identical bits",
          arguments: [16_000, 44_100, 48_000, 96_000], [1, 2, 6])
    func againstSerial(rate: Int, channelCount: Int) throws {
        let filter = try KWeightingFilter(sampleRate: Double(rate))
        let steps = 150  // 1.5 s
        let frames = boundary(steps, rate)
        let channels = (0..<channelCount).map { c in
            testSignal(kind: c == 0 ? 0 : c + (rate / 1000), count: frames, sampleRate: rate, seed: UInt64(rate + c))
        }
        let block = blockStepEnergies(channels, filter, steps: steps, maxPush: 4096, seed: 1)
        var worst = 0.0
        for c in 0..<channelCount {
            let serial = serialStepEnergies(channels[c], filter, steps: steps)
            let loudest = serial.max()!
            for k in 0..<steps {
                let difference = abs(block[c][k] - serial[k])
                #expect(difference <= 1e-10 * serial[k] + 1e-18 * loudest, "channel \(c) step \(k): \(block[c][k]) vs \(serial[k])")
                if serial[k] > 1e-9 * loudest { worst = max(worst, difference / serial[k]) }
            }
        }
        #expect(worst < 1e-10)
        // Tiny pushes (1…9 frames, mostly inside one block) and large ones: the same bits.
        #expect(blockStepEnergies(channels, filter, steps: steps, maxPush: 9, seed: 2) == block)
        #expect(blockStepEnergies(channels, filter, steps: steps, maxPush: 100_000, seed: 3) == block)
    }

    @Test("adversarial inputs at 48 and 44.1 kHz: 20 Hz at full scale, DC, ±1, decay to exact silence, −60 dBFS tone",
          arguments: [44_100, 48_000], 1..<6)
    func adversarial(rate: Int, kind: Int) throws {
        let filter = try KWeightingFilter(sampleRate: Double(rate), design: kind.isMultiple(of: 2) ? .bilinear : .matched)
        let steps = 400  // 4 s: long enough for the decay after sound to settle to zero
        let x = testSignal(kind: kind, count: boundary(steps, rate), sampleRate: rate, seed: UInt64(kind))
        let serial = serialStepEnergies(x, filter, steps: steps)
        let block = blockStepEnergies([x], filter, steps: steps, maxPush: 1000, seed: UInt64(kind))[0]
        let loudest = serial.max()!
        for k in 0..<steps {
            #expect(abs(block[k] - serial[k]) <= 1e-10 * serial[k] + 1e-18 * loudest, "step \(k): \(block[k]) vs \(serial[k])")
        }
        if kind == 3 {
            // The decay after sound reaches exact zero (−∞ LUFS), as the serial recursion did.
            #expect(block.suffix(50).allSatisfy { $0 == 0 })
            #expect(serial.suffix(50).allSatisfy { $0 == 0 })
        }
    }

    @Test("LoudnessMeter readings, integrated loudness and LRA = the same measurement from serial energies (1e−9 LU)",
          arguments: [(16_000, 1), (44_100, 2), (48_000, 2), (48_000, 6), (96_000, 1)])
    func meterAgainstSerial(rate: Int, channelCount: Int) throws {
        let layout: LoudnessMeter.ChannelLayout = channelCount == 1 ? .mono : (channelCount == 2 ? .stereo : .surround5_1)
        let configuration = LoudnessMeter.Configuration(sampleRate: rate, channelLayout: layout, measuresTruePeak: false)
        let meter = try LoudnessMeter(configuration: configuration)
        let steps = 700  // 7 s: integrated blocks and LRA blocks
        let frames = boundary(steps, rate)
        let channels = (0..<channelCount).map { c in
            testSignal(kind: [0, 3, 5][c % 3], count: frames, sampleRate: rate, seed: UInt64(10 * rate + c))
        }
        var interleaved = [Float](repeating: 0, count: frames * channelCount)
        for n in 0..<frames { for c in 0..<channelCount { interleaved[n * channelCount + c] = channels[c][n] } }
        let run = runMeter(meter, interleaved, pushes: pushSizes(interleaved.count, maxSize: 3000, seed: 8))
        #expect(run.readings.count == steps)

        // The meter's measurement, rebuilt from serial per-step energies.
        let filter = meter.kWeighting
        let gain2 = filter.highPass.b0 * filter.highPass.b0
        let weights = layout.weights
        let perChannel = channels.map { serialStepEnergies($0, filter, steps: steps) }
        let stepEnergy = (0..<steps).map { k in
            (0..<channelCount).reduce(0.0) { $0 + weights[$1] * gain2 * perChannel[$1][k] }
        }
        let blocks = GatingHistogram(), shortTermBlocks = GatingHistogram()
        func window(_ end: Int, _ length: Int) -> Double { stepEnergy[max(0, end - length)..<end].reduce(0, +) }
        var maxM = -Double.infinity, maxS = -Double.infinity
        for k in 1...steps {
            let m = window(k, 40) / (0.4 * Double(rate)), s = window(k, 300) / (3 * Double(rate))
            let reading = run.readings[k - 1]
            #expect(abs(reading.momentaryLUFS - GatingHistogram.loudness(m)) <= 1e-9 || reading.momentaryLUFS == GatingHistogram.loudness(m))
            #expect(abs(reading.shortTermLUFS - GatingHistogram.loudness(s)) <= 1e-9 || reading.shortTermLUFS == GatingHistogram.loudness(s))
            maxM = max(maxM, GatingHistogram.loudness(m))
            maxS = max(maxS, GatingHistogram.loudness(s))
            if k >= 40 && k % 10 == 0 { blocks.add(m) }
            if k >= 300 && (k - 300) % 10 == 0 { shortTermBlocks.add(s) }
        }
        let integrated = LoudnessGating.integrated(blocks), range = LoudnessGating.range(shortTermBlocks)
        #expect(integrated.count == run.summary.gatedBlockCount)
        #expect(abs(run.summary.integratedLUFS - integrated.lufs) <= 1e-9)
        #expect(abs(run.summary.relativeGateLUFS - integrated.gateLUFS) <= 1e-9)
        #expect(abs(run.summary.loudnessRangeLU - range.lu) <= 1e-9)
        #expect(abs(run.summary.maxMomentaryLUFS - maxM) <= 1e-9)
        #expect(abs(run.summary.maxShortTermLUFS - maxS) <= 1e-9)
        #expect(run.summary.integratedLUFS > -70 && run.summary.loudnessRangeLU > 0)
    }
}
