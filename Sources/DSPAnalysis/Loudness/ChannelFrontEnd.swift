import DSPCore
internal import CDSPKernels

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

extension ChannelFrontEnd {
    /// Bytes allocated: the per-channel scratch (history and a chunk) and three peak arrays,
    /// and the true-peak kernel's coefficients.
    var allocatedBytes: Int {
        MemoryFootprint.bytes(Float.self, channelCount * stride) + 3 * MemoryFootprint.bytes(Float.self, channelCount)
            + (kernel?.allocatedBytes ?? 0)
    }
}
