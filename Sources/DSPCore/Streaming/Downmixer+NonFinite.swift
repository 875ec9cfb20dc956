/// The downmixer's non-finite policy as vector kernels: NaN and ±Inf count as 0.
extension Downmixer {
    /// `x` if finite, else 0.
    @inlinable @inline(__always)
    static func finite(_ x: Float) -> Float { x.isFinite ? x : 0 }

    /// The eight lanes of `v`, each non-finite one replaced by 0 (`v − v` is 0 for a finite
    /// value and NaN for ±Inf and NaN).
    @inline(__always)
    static func finite(_ v: SIMD8<Float>) -> SIMD8<Float> {
        v.replacing(with: 0, where: .!((v - v) .== SIMD8<Float>()))
    }

    /// `out[i]` = the mean of frame i's `channels` interleaved samples, non-finite ones taken as
    /// 0. Eight frames per step for mono (a copy) and stereo, the common cases; the mean of
    /// stereo is `(l + r) × 0.5`, of C channels `Σ × (1 / C)`.
    /// With `knownFinite` the caller vouches that no input is NaN or ±Inf, and the stereo path
    /// skips its output check (a finite sum beyond Float's range then stays ±Inf).
    static func averageFinite(
        _ block: UnsafePointer<Float>, channels: Int, frames: Int, into out: UnsafeMutablePointer<Float>,
        knownFinite: Bool = false
    ) {
        var i = 0
        switch channels {
        case 1:
            while i + 8 <= frames {
                let v = UnsafeRawPointer(block + i).loadUnaligned(as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(out + i).storeBytes(of: finite(v), as: SIMD8<Float>.self)
                i += 8
            }
        case 2:
            // The plain mean (which the compiler vectorizes), then one read-only check of the
            // output: a non-finite value there (rare) means a non-finite input, or a finite sum
            // beyond Float's range; only then is the block mixed again with the inputs cleaned,
            // which gives the same values wherever the inputs were finite.
            for j in 0..<frames { out[j] = (block[2 * j] + block[2 * j + 1]) * 0.5 }
            if knownFinite || allFinite(UnsafeBufferPointer(start: out, count: frames)) { return }
            while i + 8 <= frames {
                let a = UnsafeRawPointer(block + 2 * i).loadUnaligned(as: SIMD16<Float>.self)
                let l = finite(a.evenHalf), r = finite(a.oddHalf)
                UnsafeMutableRawPointer(out + i).storeBytes(of: (l + r) * 0.5, as: SIMD8<Float>.self)
                i += 8
            }
        default:
            break
        }
        if channels == 2 {
            while i < frames {
                out[i] = (finite(block[2 * i]) + finite(block[2 * i + 1])) * 0.5
                i += 1
            }
            return
        }
        let scale = 1 / Float(channels)
        while i < frames {
            var sum: Float = 0
            for c in 0..<channels { sum += finite(block[i * channels + c]) }
            out[i] = sum * scale
            i += 1
        }
    }

    /// Whether `x[0 ..< count]` holds no NaN or ±Inf: `Σ (x − x)` is 0 for finite values and NaN
    /// as soon as one is not (a read-only pass: four independent eight-lane sums, so the adds'
    /// latency does not bound it, then eight lanes, then the tail).
    public static func allFinite(_ samples: UnsafeBufferPointer<Float>) -> Bool {
        guard let x = samples.baseAddress else { return true }
        let count = samples.count
        var acc = SIMD8<Float>(), acc1 = SIMD8<Float>(), acc2 = SIMD8<Float>(), acc3 = SIMD8<Float>()
        var i = 0
        @inline(__always) func load(_ j: Int) -> SIMD8<Float> {
            UnsafeRawPointer(x + j).loadUnaligned(as: SIMD8<Float>.self)
        }
        while i + 32 <= count {
            let v0 = load(i), v1 = load(i + 8), v2 = load(i + 16), v3 = load(i + 24)
            acc += v0 - v0
            acc1 += v1 - v1
            acc2 += v2 - v2
            acc3 += v3 - v3
            i += 32
        }
        acc += (acc1 + acc2) + acc3
        while i + 8 <= count {
            let v = load(i)
            acc += v - v
            i += 8
        }
        var tail: Float = 0
        while i < count {
            tail += x[i] - x[i]
            i += 1
        }
        return acc == SIMD8<Float>() && tail == 0
    }
}
