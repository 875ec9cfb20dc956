@testable import DSPAnalysis
import Testing

// The level and loudness front-end C kernels (`cdsp_level_measure`, `cdsp_level_load_mono`,
// `cdsp_level_load_stereo` in CDSPKernels/MeteringLevels.c) against the Swift loops they replaced,
// kept here as the reference: bit-identical results on random and adversarial input (NaN,
// ±Inf, −0, subnormals, full scale, values at the clip threshold), at every length around the
// 8-lane and 4096-sample block boundaries.

/// `LevelMeter.measure` before the C kernel (eight Float lanes in Swift), with the two clip
/// levels (`x ≥ high` or `x ≤ low`) and the Double sums of a block whose Float lanes overflow.
func referenceMeasure(_ samples: UnsafeBufferPointer<Float>, clipThreshold: Float) -> FrameLevel {
    referenceMeasure(samples, clipHigh: clipThreshold, clipLow: -clipThreshold)
}

func referenceMeasure(_ samples: UnsafeBufferPointer<Float>, clipHigh: Float, clipLow: Float) -> FrameLevel {
    guard let base = samples.baseAddress, !samples.isEmpty else { return .empty }
    var sumSquares = 0.0
    var sum = 0.0
    var peak: Float = 0
    var clipped = 0
    var nonFinite = 0
    let count = samples.count
    let high = SIMD8<Float>(repeating: clipHigh)
    let low = SIMD8<Float>(repeating: clipLow)
    var index = 0
    while count - index >= 8 {
        let blockStart = index
        let blockEnd = index + Swift.min((count - index) & ~7, 4096)
        var squares = SIMD8<Float>()
        var sums = SIMD8<Float>()
        var peaks = SIMD8<Float>()
        var clips = SIMD8<Int32>()
        var bad = SIMD8<Int32>()
        // Fast pass, assuming every sample is finite: `x · 0` is 0 for finite x and NaN for
        // NaN or ±Inf, so `poison` tells afterwards whether the assumption held.
        var poison = SIMD8<Float>()
        while index < blockEnd {
            let x = UnsafeRawPointer(base + index).loadUnaligned(as: SIMD8<Float>.self)
            let magnitude = x.replacing(with: -x, where: x .< 0)
            clips &-= SIMD8<Int32>(repeating: 0).replacing(with: -1, where: (x .>= high) .| (x .<= low))
            squares += x * x
            sums += x
            poison += x * 0
            peaks.replace(with: magnitude, where: magnitude .> peaks)
            index += 8
        }
        if poison != poison {
            // Careful pass over the same block: non-finite samples counted and zeroed.
            index = blockStart
            squares = SIMD8<Float>()
            sums = SIMD8<Float>()
            peaks = SIMD8<Float>()
            clips = SIMD8<Int32>()
            let infinity = SIMD8<Float>(repeating: .infinity)
            while index < blockEnd {
                var x = UnsafeRawPointer(base + index).loadUnaligned(as: SIMD8<Float>.self)
                var magnitude = x.replacing(with: -x, where: x .< 0)
                let finite = magnitude .< infinity  // false for NaN and ±Inf
                x.replace(with: 0, where: .!finite)
                magnitude.replace(with: 0, where: .!finite)
                bad &+= SIMD8<Int32>(repeating: 1).replacing(with: 0, where: finite)
                clips &+= SIMD8<Int32>(repeating: 0).replacing(with: 1, where: (x .>= high) .| (x .<= low))
                squares += x * x
                sums += x
                peaks.replace(with: magnitude, where: magnitude .> peaks)
                index += 8
            }
        }
        let check = (squares + sums) * 0
        if check != check {
            // A lane overflowed Float: the block's finite samples summed in Double, in order.
            var wideSquares = 0.0
            var wideSum = 0.0
            for i in blockStart..<blockEnd where base[i].isFinite {
                wideSquares += Double(base[i]) * Double(base[i])
                wideSum += Double(base[i])
            }
            sumSquares += wideSquares
            sum += wideSum
        } else {
            for lane in 0..<8 {
                sumSquares += Double(squares[lane])
                sum += Double(sums[lane])
            }
        }
        for lane in 0..<8 { peak = Swift.max(peak, peaks[lane]) }
        clipped += Int(clips.wrappedSum())
        nonFinite += Int(bad.wrappedSum())
    }
    while index < count {
        let x = base[index]
        index += 1
        guard x.isFinite else { nonFinite += 1; continue }
        let magnitude = Swift.abs(x)
        sumSquares += (x * x).isFinite ? Double(x * x) : Double(x) * Double(x)
        sum += Double(x)
        peak = Swift.max(peak, magnitude)
        if x >= clipHigh || x <= clipLow { clipped += 1 }
    }
    let finiteCount = count - nonFinite
    let n = Double(Swift.max(finiteCount, 1))
    return FrameLevel(
        sampleCount: finiteCount, meanSquare: sumSquares / n, peak: peak,
        dcOffset: sum / n, clippedCount: clipped, nonFiniteCount: nonFinite)
}


/// `ChannelFrontEnd.load` before the C kernels (mono: eight lanes in Swift; stereo: scalar).
/// Returns the channels, their peaks and the non-finite count.
func referenceLoad(_ source: UnsafePointer<Float>, frames n: Int, channelCount: Int) -> (channels: [[Float]], peaks: [Float], bad: Int) {
    let store = (0..<channelCount).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: Swift.max(n, 1)) }
    defer { store.forEach { $0.deallocate() } }
    var chunkPeaks = [Float](repeating: 0, count: channelCount)
    func channel(_ c: Int) -> UnsafeMutablePointer<Float> { store[c] }
    let infinity = SIMD8<Float>(repeating: .infinity)
    var bad = 0
    switch channelCount {
    case 1:
        let destination = channel(0)
        var peak = SIMD8<Float>()
        var badLanes = SIMD8<Int32>()
        var i = 0
        while n - i >= 8 {
            let v = UnsafeRawPointer(source + i).loadUnaligned(as: SIMD8<Float>.self)
            var a = v.replacing(with: -v, where: v .< 0)
            let finite = a .< infinity
            a.replace(with: 0, where: .!finite)
            UnsafeMutableRawPointer(destination + i).storeBytes(of: v.replacing(with: 0, where: .!finite), as: SIMD8<Float>.self)
            peak = peak.replacing(with: a, where: a .> peak)
            badLanes &+= SIMD8<Int32>(repeating: 1).replacing(with: 0, where: finite)
            i += 8
        }
        var p = peak.max()
        bad = Int(badLanes.wrappedSum())
        while i < n {
            let v = source[i]
            let a = Swift.abs(v)
            if a < .infinity {
                destination[i] = v
                p = Swift.max(p, a)
            } else {
                destination[i] = 0
                bad += 1
            }
            i += 1
        }
        chunkPeaks[0] = p
    case 2:
        let left = channel(0), right = channel(1)
        var pl: Float = 0, pr: Float = 0
        for i in 0..<n {
            let l = source[2 * i], r = source[2 * i + 1]
            let al = Swift.abs(l), ar = Swift.abs(r)
            let okL = al < .infinity, okR = ar < .infinity
            left[i] = okL ? l : 0
            right[i] = okR ? r : 0
            pl = Swift.max(pl, okL ? al : 0)
            pr = Swift.max(pr, okR ? ar : 0)
            bad &+= (okL ? 0 : 1) &+ (okR ? 0 : 1)
        }
        chunkPeaks[0] = pl
        chunkPeaks[1] = pr
    default:
        preconditionFailure("the C kernels replace the mono and stereo loads only")
    }
    return (store.map { Array(UnsafeBufferPointer(start: $0, count: n)) }, chunkPeaks, bad)
}
