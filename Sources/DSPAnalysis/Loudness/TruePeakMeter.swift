import DSPCore
import RealModule
internal import CDSPKernels

/// True peak per ITU-R BS.1770-5 Annex 2: the largest magnitude of the signal reconstructed
/// between samples, estimated by oversampling.
///
/// Each channel is upsampled by ``oversamplingFactor`` — 4 below 96 kHz, 2 from 96 kHz to below
/// 192 kHz, 1 (the sample peak) from 192 kHz — with a polyphase FIR, and the largest `|y|`
/// of the upsampled stream is kept; since phase 0 of the interpolator is the input itself,
/// the true peak is never below the sample peak. Reported in dBTP, `20·log10(max |y|)`.
///
/// The interpolator is a Kaiser-windowed sinc (β = ``kaiserBeta``) of ``tapsPerPhase`` taps
/// per phase (`L·24 + 1` in all), cut off at the input Nyquist frequency, each phase
/// normalised to unity gain at DC. Against the ideal fractional delays its phases are within
/// 0.005 dB up to 0.40 `f_s` (0.65 dB at 0.45 `f_s`); images are at least 71 dB down above
/// 0.6 `f_s`. (The example filter of BS.1770 Annex 2, 12 taps per phase, is within 0.24 dB up
/// to 0.40 `f_s`; libebur128's 49-tap Hann-windowed sinc within 0.9 dB.) Like every 4×
/// meter it can under-read a full-band peak by up to 0.69 dB (BS.1770 Annex 2), because the
/// true maximum can fall between the oversampled points.
///
/// Non-finite samples are counted and measured as 0. A block whose input cannot reach the
/// current peak (its sample peak times the interpolator's largest phase `Σ|h|` is below it)
/// skips the FIR; the result is identical, since no output of such a block can exceed the
/// peak already held.
///
/// Streams are interleaved Float32; a buffer may end inside a frame (the partial frame is
/// carried). ``flush()`` interpolates the last ``tapsPerPhase``/2 samples against silence.
public final class TruePeakMeter {
    /// Taps per interpolator phase.
    public static let tapsPerPhase = 24
    /// Kaiser window parameter of the interpolator.
    public static let kaiserBeta = 7.0

    /// The oversampling factor BS.1770 calls for at `sampleRate` Hz: 4 below 96 kHz, 2 below
    /// 192 kHz, else 1.
    public static func oversamplingFactor(forSampleRate sampleRate: Int) -> Int {
        sampleRate < 96_000 ? 4 : (sampleRate < 192_000 ? 2 : 1)
    }

    /// Sample rate in Hz. Range 8 000…768 000.
    public let sampleRate: Int
    /// Interleaved channels. Range 1…64.
    public let channelCount: Int
    /// Upsampling factor (1, 2 or 4).
    public var oversamplingFactor: Int { frontEnd.kernel?.factor ?? 1 }
    let frontEnd: ChannelFrontEnd
    private let carry: UnsafeMutablePointer<Float>
    private var carryCount = 0
    private static let chunkFrames = 1024

    /// Creates a meter; throws if the rate or channel count is out of range.
    public init(sampleRate: Int, channelCount: Int) throws(ConfigurationError) {
        try ConfigurationError.check("sampleRate", sampleRate, in: 8_000...768_000)
        try ConfigurationError.check("channelCount", channelCount, in: 1...64)
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        frontEnd = ChannelFrontEnd(
            channelCount: channelCount, maxChunkFrames: Self.chunkFrames,
            oversampling: Self.oversamplingFactor(forSampleRate: sampleRate))
        carry = .allocate(capacity: channelCount)
        carry.initialize(repeating: 0, count: channelCount)
    }

    deinit { carry.deallocate() }

    /// Measures `input` (interleaved). Never allocates (checked by the compiler where
    /// `@_noAllocation` exists).
    #if hasAttribute(_noAllocation)
    @_noAllocation
    #endif
    public func process(_ input: UnsafeBufferPointer<Float>) {
        guard var source = input.baseAddress, !input.isEmpty else { return }
        var remaining = input.count
        if carryCount > 0 {
            let n = Swift.min(channelCount - carryCount, remaining)
            copyFloats(carry + carryCount, source, n)
            carryCount += n
            source += n
            remaining -= n
            guard carryCount == channelCount else { return }
            measure(carry, frames: 1)
            carryCount = 0
        }
        let frames = remaining / channelCount
        var done = 0
        while done < frames {
            let n = Swift.min(Self.chunkFrames, frames - done)
            measure(source + done * channelCount, frames: n)
            done += n
        }
        remaining -= frames * channelCount
        if remaining > 0 {
            copyFloats(carry, source + frames * channelCount, remaining)
            carryCount = remaining
        }
    }

    private func measure(_ frames: UnsafePointer<Float>, frames n: Int) {
        frontEnd.load(frames, frames: n)
        frontEnd.finishChunk(frames: n)
    }

    /// Ends the stream: a carried partial frame is completed with zeros and measured, and the
    /// interpolator runs out against silence. The peaks stay until ``reset()``.
    public func flush() {
        if carryCount > 0 {
            zeroFloats(carry + carryCount, channelCount - carryCount)
            measure(carry, frames: 1)
            carryCount = 0
        }
        frontEnd.flushTail()
    }

    /// The true peak of `channel` as a linear magnitude (full scale = 1).
    public func truePeak(channel: Int) -> Float {
        Swift.max(frontEnd.truePeaks[channel], frontEnd.samplePeaks[channel])
    }

    /// The true peak of `channel` in dBTP (−∞ for silence).
    public func truePeakDBTP(channel: Int) -> Double { Decibels.fromAmplitude(Double(truePeak(channel: channel))) }

    /// The largest true peak over all channels in dBTP (−∞ for silence).
    public var truePeakDBTP: Double { Decibels.fromAmplitude(Double(frontEnd.maximumTruePeak)) }

    /// The largest sample peak over all channels in dBFS (−∞ for silence).
    public var samplePeakDBFS: Double { Decibels.fromAmplitude(Double(frontEnd.maximumSamplePeak)) }

    /// NaN and ±Inf samples seen (measured as 0).
    public var nonFiniteCount: Int { frontEnd.nonFiniteCount }

    /// The interpolator's coefficients for `phase` (0 ..< ``oversamplingFactor``), oldest input
    /// first — for inspection; allocates.
    public func coefficients(phase: Int) -> [Float] {
        guard let kernel = frontEnd.kernel else { return [1] }
        return TruePeakKernel.design(factor: kernel.factor)[phase]
    }

    /// Forgets the stream.
    public func reset() {
        carryCount = 0
        frontEnd.reset()
    }
}

// MARK: - Kernel

/// The polyphase interpolator: phases 1 ..< L of a Kaiser-windowed sinc (phase 0 is the
/// identity and is covered by the sample peak).
///
/// The prototype is symmetric, so at 4× phase 2 is symmetric and phase 3 is phase 1 reversed.
/// The kernel folds the taps: with `s_t = x[n−t] + x[n−T+1+t]` and `d_t = x[n−t] − x[n−T+1+t]`,
/// `y₂ = Σ c₂[t]·s_t`, and `max(|y₁|, |y₃|) = |Σ P[t]·s_t| + |Σ Q[t]·d_t|` with
/// `P, Q = (c₁[t] ± c₁[T−1−t])/2` (since `max(|a+b|, |a−b|) = |a| + |b|`): 1.5·T multiplies per
/// output instead of 3·T.
final class TruePeakKernel {
    let factor: Int
    let taps = TruePeakMeter.tapsPerPhase
    /// Broadcast folded coefficients for `t < T/2`: at 4× `[P, Q, c₂]` per tap, at 2× `[c₁]`.
    let coefficients: UnsafeMutablePointer<SIMD8<Float>>
    /// Largest `Σ|h|` over the phases, with margin for Float rounding: `|y| ≤ bound · max|x|`.
    let bound: Float

    init(factor: Int) {
        precondition(factor == 2 || factor == 4)
        precondition(TruePeakMeter.tapsPerPhase == Int(CDSP_TP_TAPS))  // the C kernel's fixed tap count
        self.factor = factor
        let phases = Self.design(factor: factor)
        let taps = TruePeakMeter.tapsPerPhase, half = taps / 2
        // c_p[t] multiplies x[n − t]; the phases are stored oldest input first.
        func c(_ p: Int, _ t: Int) -> Float { phases[p][taps - 1 - t] }
        if factor == 4 {
            coefficients = .allocate(capacity: 3 * half)
            for t in 0..<half {
                (coefficients + 3 * t).initialize(to: SIMD8(repeating: (c(1, t) + c(1, taps - 1 - t)) / 2))
                (coefficients + 3 * t + 1).initialize(to: SIMD8(repeating: (c(1, t) - c(1, taps - 1 - t)) / 2))
                (coefficients + 3 * t + 2).initialize(to: SIMD8(repeating: c(2, t)))
            }
        } else {
            coefficients = .allocate(capacity: half)
            for t in 0..<half { (coefficients + t).initialize(to: SIMD8(repeating: c(1, t))) }
        }
        var l1: Float = 0
        for p in 1..<factor { l1 = Swift.max(l1, phases[p].reduce(0) { $0 + Swift.abs($1) }) }
        bound = l1 * (1 + 1e-5)
    }

    deinit { coefficients.deallocate() }

    /// The phases of the interpolator for `factor`, each oldest input first, normalised to
    /// unity DC gain. Phase `p` estimates `x(n − T/2 + p/L)` from `x[n − T + 1] … x[n]`.
    /// Mirror symmetry (phase `L − p` is phase `p` reversed) is imposed exactly.
    static func design(factor: Int) -> [[Float]] {
        let taps = TruePeakMeter.tapsPerPhase
        let length = factor * taps + 1
        let centre = factor * taps / 2
        let beta = TruePeakMeter.kaiserBeta
        var h = [Double](repeating: 0, count: length)
        for k in 0...centre {
            let m = Double(k - centre) / Double(factor)
            let sinc = m == 0 ? 1 : Double.sin(Double.pi * m) / (Double.pi * m)
            let r = Double(k - centre) / Double(centre)
            h[k] = sinc * besselI0(beta * Swift.max(0, 1 - r * r).squareRoot()) / besselI0(beta)
            h[length - 1 - k] = h[k]
        }
        return (0..<factor).map { p in
            // h[p + L·t] multiplies x[n − t]: reverse so the oldest input comes first.
            var phase = (0..<taps).map { h[p + factor * $0] }
            if p == 0 { phase = (0..<taps).map { $0 == taps / 2 ? 1 : 0 } }
            let sum = phase.reduce(0, +)
            return phase.reversed().map { Float($0 / sum) }
        }
    }

    /// Modified Bessel function of the first kind, order 0 (power series).
    static func besselI0(_ x: Double) -> Double {
        var sum = 1.0, term = 1.0, k = 1.0
        let q = x * x / 4
        while term > 1e-17 * sum {
            term *= q / (k * k)
            sum += term
            k += 1
        }
        return sum
    }

    /// The largest `|y|` over phases 1 ..< L for outputs `0 ..< count`, where output `i` uses
    /// `x[i − T + 1] … x[i]`; `x[−T ..< 0]` must hold the history and `x[count ..< count + 8]`
    /// must be readable.
    func peak(_ x: UnsafePointer<Float>, count: Int) -> Float {
        factor == 4 ? peak4(x, count: count) : peak2(x, count: count)
    }

    private static let lanes = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)

    @inline(__always)
    private static func magnitude(_ v: SIMD8<Float>) -> SIMD8<Float> { v.replacing(with: -v, where: v .< 0) }

    /// The 4× case in C (`cdsp_truepeak4`, CDSPKernels/TruePeak.c): the same folded sums, lane
    /// for lane and tap for tap, as 8-float vectors (AVX2: about half the instructions of
    /// `SIMD8<Float>` in baseline SSE), products rounded before adding: bit-identical results.
    private func peak4(_ x: UnsafePointer<Float>, count: Int) -> Float {
        UnsafeRawPointer(coefficients).withMemoryRebound(to: Float.self, capacity: 24 * (taps / 2)) {
            cdsp_truepeak4(x, count, $0)
        }
    }

    private func peak2(_ x: UnsafePointer<Float>, count: Int) -> Float {
        let c = coefficients
        let half = taps / 2, last = 4 * (taps - 1)
        var m = SIMD8<Float>()
        var i = 0
        while i < count {
            var y = SIMD8<Float>()
            let base = UnsafeRawPointer(x + i)
            for t in 0..<half {
                let newer = base.loadUnaligned(fromByteOffset: -4 * t, as: SIMD8<Float>.self)
                let older = base.loadUnaligned(fromByteOffset: 4 * t - last, as: SIMD8<Float>.self)
                y += c[t] * (newer + older)
            }
            var peak = Self.magnitude(y)
            if count - i < 8 { peak.replace(with: 0, where: Self.lanes .>= Int32(count - i)) }
            m = m.replacing(with: peak, where: peak .> m)
            i += 8
        }
        return m.max()
    }
}

// MARK: - Channel front end

/// `memmove` of `count` Floats (regions may overlap). Unlike the generic
/// `UnsafeMutablePointer.update(from:count:)`, provably free of (de)allocation.
@inline(__always)
func copyFloats(_ destination: UnsafeMutablePointer<Float>, _ source: UnsafePointer<Float>, _ count: Int) {
    UnsafeMutableRawPointer(destination).copyMemory(from: source, byteCount: count * MemoryLayout<Float>.stride)
}

/// Zeroes `count` Floats.
@inline(__always)
func zeroFloats(_ destination: UnsafeMutablePointer<Float>, _ count: Int) {
    for i in 0..<count { destination[i] = 0 }
}

/// Deinterleaves a chunk of frames into per-channel scratch (non-finite samples → 0, counted),
/// keeps per-channel sample peaks, and runs the true-peak interpolator over each channel with
/// the history it needs. Shared by ``TruePeakMeter`` and ``LoudnessMeter``.
final class ChannelFrontEnd {
    let channelCount: Int
    let maxChunkFrames: Int
    /// Samples of history kept before each channel's chunk (the interpolator's taps; 0 without).
    let history: Int
    let stride: Int
    let scratch: UnsafeMutablePointer<Float>
    let samplePeaks: UnsafeMutablePointer<Float>
    let truePeaks: UnsafeMutablePointer<Float>
    let chunkPeaks: UnsafeMutablePointer<Float>
    let kernel: TruePeakKernel?
    var nonFiniteCount = 0

    /// `oversampling` 0 turns true peak off; 1 measures sample peaks only.
    init(channelCount: Int, maxChunkFrames: Int, oversampling: Int) {
        self.channelCount = channelCount
        self.maxChunkFrames = maxChunkFrames
        kernel = oversampling >= 2 ? TruePeakKernel(factor: oversampling) : nil
        history = kernel?.taps ?? 0
        stride = (history + maxChunkFrames + 8 + 7) & ~7
        scratch = .allocate(capacity: channelCount * stride)
        scratch.initialize(repeating: 0, count: channelCount * stride)
        samplePeaks = .allocate(capacity: channelCount)
        samplePeaks.initialize(repeating: 0, count: channelCount)
        truePeaks = .allocate(capacity: channelCount)
        truePeaks.initialize(repeating: 0, count: channelCount)
        chunkPeaks = .allocate(capacity: channelCount)
        chunkPeaks.initialize(repeating: 0, count: channelCount)
    }

    deinit {
        scratch.deallocate()
        samplePeaks.deallocate()
        truePeaks.deallocate()
        chunkPeaks.deallocate()
    }

    /// The first sample of `channel`'s current chunk.
    @inline(__always)
    func channel(_ channel: Int) -> UnsafeMutablePointer<Float> { scratch + channel * stride + history }

    var maximumSamplePeak: Float {
        var m: Float = 0
        for c in 0..<channelCount { m = Swift.max(m, samplePeaks[c]) }
        return m
    }

    var maximumTruePeak: Float {
        var m: Float = 0
        for c in 0..<channelCount { m = Swift.max(m, truePeaks[c], samplePeaks[c]) }
        return m
    }

    /// Deinterleaves `frames` frames (≤ `maxChunkFrames`) into the channels' chunks. Mono and
    /// stereo run in the C kernels `cdsp_level_load_mono` / `cdsp_level_load_stereo`
    /// (CDSPKernels, dispatched at run time), bit-identical to the Swift loops they replaced
    /// (kept in the tests as the reference): copies, zeroed non-finite samples and counts are
    /// exact, and the peaks are maxima of non-negative values, independent of order.
    func load(_ source: UnsafePointer<Float>, frames n: Int) {
        var bad: Int64 = 0
        switch channelCount {
        case 1:
            chunkPeaks[0] = cdsp_level_load_mono(source, n, channel(0), &bad)
        case 2:
            cdsp_level_load_stereo(source, n, channel(0), channel(1), chunkPeaks, &bad)
        default:
            let count = channelCount
            for c in 0..<count {
                let destination = channel(c)
                var p: Float = 0
                for i in 0..<n {
                    let v = source[i * count + c]
                    let a = Swift.abs(v)
                    if a < .infinity {
                        destination[i] = v
                        p = Swift.max(p, a)
                    } else {
                        destination[i] = 0
                        bad += 1
                    }
                }
                chunkPeaks[c] = p
            }
        }
        nonFiniteCount += Int(bad)
        for c in 0..<channelCount { samplePeaks[c] = Swift.max(samplePeaks[c], chunkPeaks[c]) }
    }

    /// Fills the channels' chunks with `frames` zeros (padding; no peaks, no counts).
    func loadSilence(frames n: Int) {
        for c in 0..<channelCount {
            zeroFloats(channel(c), n)
            chunkPeaks[c] = 0
        }
    }

    /// Runs the interpolator over the loaded chunk (unless it cannot raise a channel's peak)
    /// and keeps the last samples as history for the next chunk.
    func finishChunk(frames n: Int) {
        guard let kernel, n > 0 else { return }
        let h = history
        for c in 0..<channelCount {
            let x = channel(c)
            var past: Float = 0
            for i in 1...h { past = Swift.max(past, Swift.abs(x[-i])) }
            if Swift.max(past, chunkPeaks[c]) * kernel.bound > truePeaks[c] {
                truePeaks[c] = Swift.max(truePeaks[c], kernel.peak(x, count: n))
            }
            copyFloats(x - h, x - h + n, h)
        }
    }

    /// Interpolates the last samples against silence (`history / 2` zeros).
    func flushTail() {
        guard kernel != nil else { return }
        loadSilence(frames: history / 2)
        finishChunk(frames: history / 2)
    }

    func reset() {
        scratch.update(repeating: 0, count: channelCount * stride)
        samplePeaks.update(repeating: 0, count: channelCount)
        truePeaks.update(repeating: 0, count: channelCount)
        chunkPeaks.update(repeating: 0, count: channelCount)
        nonFiniteCount = 0
    }
}
