import DSPCore

/// Measures RMS, peak, DC offset and clipping of a block of samples.
///
/// A stateless kernel: ``measure(_:)`` looks at one buffer (a frame, or any block) and never
/// allocates. Sums run over 8 Float32 lanes (two SSE registers each, so all five accumulators stay in registers) within blocks of 4096 samples and are combined in
/// Double, so a long block keeps full precision. For streams, ``LevelAnalyzer`` frames the
/// input and keeps a summary.
public struct LevelMeter: Sendable {
    /// |x| at or above which a sample counts as clipped. Range (0, ∞); default 1.0 (full
    /// scale). Use e.g. 0.999 to catch recordings clipped just below full scale.
    public let clipThreshold: Float

    /// Creates a meter; throws if the threshold is not a positive finite value.
    public init(clipThreshold: Float = 1.0) throws(ConfigurationError) {
        guard clipThreshold.isFinite, clipThreshold > 0 else {
            throw ConfigurationError(parameter: "clipThreshold", value: clipThreshold, expected: "finite, > 0")
        }
        self.clipThreshold = clipThreshold
    }

    /// Measures `samples`. Never allocates.
    @inlinable
    public func measure(_ samples: UnsafeBufferPointer<Float>) -> FrameLevel {
        guard let base = samples.baseAddress, !samples.isEmpty else { return .empty }
        var sumSquares = 0.0
        var sum = 0.0
        var peak: Float = 0
        var clipped = 0
        var nonFinite = 0
        let count = samples.count
        let threshold = SIMD8<Float>(repeating: clipThreshold)
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
                clips &-= SIMD8<Int32>(repeating: 0).replacing(with: -1, where: magnitude .>= threshold)
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
                    clips &+= SIMD8<Int32>(repeating: 0).replacing(with: 1, where: magnitude .>= threshold)
                    squares += x * x
                    sums += x
                    peaks.replace(with: magnitude, where: magnitude .> peaks)
                    index += 8
                }
            }
            for lane in 0..<8 {
                sumSquares += Double(squares[lane])
                sum += Double(sums[lane])
                peak = Swift.max(peak, peaks[lane])
            }
            clipped += Int(clips.wrappedSum())
            nonFinite += Int(bad.wrappedSum())
        }
        while index < count {
            let x = base[index]
            index += 1
            guard x.isFinite else { nonFinite += 1; continue }
            let magnitude = Swift.abs(x)
            sumSquares += Double(x * x)
            sum += Double(x)
            peak = Swift.max(peak, magnitude)
            if magnitude >= clipThreshold { clipped += 1 }
        }
        let finiteCount = count - nonFinite
        let n = Double(Swift.max(finiteCount, 1))
        return FrameLevel(
            sampleCount: finiteCount, meanSquare: sumSquares / n, peak: peak,
            dcOffset: sum / n, clippedCount: clipped, nonFiniteCount: nonFinite)
    }
}
