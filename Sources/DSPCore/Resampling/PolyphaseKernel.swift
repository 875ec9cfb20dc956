// Dot-product kernels and the phase step of the polyphase resampler.

/// The hot loops of ``Resampler``, as static functions of a caseless enum so calling them
/// needs no class metadata (the `@_noAllocation` checker accepts them).
enum PolyphaseKernel {
    /// Advances (frame, phase) by M prototype samples: frame += ⌊M/L⌋, phase += M mod L, carry.
    @inline(__always)
    static func advance(_ frame: inout Int, _ phase: inout Int, _ frameStep: Int, _ phaseStep: Int, _ l: Int) {
        frame &+= frameStep
        phase &+= phaseStep
        if phase >= l {
            phase &-= l
            frame &+= 1
        }
    }

    /// Copies `count` floats forward (`destination` ≤ `source` may overlap, as in compaction).
    @inline(__always)
    static func copy(_ destination: UnsafeMutablePointer<Float>, _ source: UnsafePointer<Float>, _ count: Int) {
        var i = 0
        while i < count {
            destination[i] = source[i]
            i &+= 1
        }
    }

    /// Copies `count` floats from `source` into `mirror` in reverse: `mirror[-i] = source[i]`.
    @inline(__always)
    static func copyReversed(_ mirror: UnsafeMutablePointer<Float>, _ source: UnsafePointer<Float>, _ count: Int) {
        var i = 0
        while i &+ 4 <= count {
            let v = UnsafeRawPointer(source + i).loadUnaligned(as: SIMD4<Float>.self)
            UnsafeMutableRawPointer(mirror - (i &+ 3)).storeBytes(of: SIMD4(v[3], v[2], v[1], v[0]), as: SIMD4<Float>.self)
            i &+= 4
        }
        while i < count {
            mirror[-i] = source[i]
            i &+= 1
        }
    }

    /// Writes `count` zeros.
    @inline(__always)
    static func zero(_ destination: UnsafeMutablePointer<Float>, _ count: Int) {
        var i = 0
        while i < count {
            destination[i] = 0
            i &+= 1
        }
    }

    // Every output is summed in the same order whichever kernel computes
    // it — one SIMD8 accumulator over the taps in steps of 8, then `sum()` — so the output does
    // not depend on how outputs were grouped, i.e. on input chunking. `acc += a * b`, not
    // `addingProduct`, which becomes a library call without FMA in the target.

    @inline(__always)
    static func load8(_ p: UnsafePointer<Float>, _ offset: Int) -> SIMD8<Float> {
        UnsafeRawPointer(p + offset).loadUnaligned(as: SIMD8<Float>.self)
    }

    /// Σ a[i]·b[i] over `count` floats (a multiple of 8).
    @inline(__always)
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ count: Int) -> Float {
        var acc = SIMD8<Float>()
        var i = 0
        while i < count {
            acc += load8(a, i) * load8(b, i)
            i &+= 8
        }
        return acc.sum()
    }

    /// Four dot products of one coefficient row with four windows.
    @inline(__always)
    static func dot4(
        _ row: UnsafePointer<Float>, _ x0: UnsafePointer<Float>, _ x1: UnsafePointer<Float>,
        _ x2: UnsafePointer<Float>, _ x3: UnsafePointer<Float>, _ count: Int, _ out: UnsafeMutablePointer<Float>
    ) {
        var a0 = SIMD8<Float>()
        var a1 = SIMD8<Float>()
        var a2 = SIMD8<Float>()
        var a3 = SIMD8<Float>()
        var i = 0
        while i < count {
            let c = load8(row, i)
            a0 += c * load8(x0, i)
            a1 += c * load8(x1, i)
            a2 += c * load8(x2, i)
            a3 += c * load8(x3, i)
            i &+= 8
        }
        out[0] = a0.sum()
        out[1] = a1.sum()
        out[2] = a2.sum()
        out[3] = a3.sum()
    }

    /// Four dot products of four rows with four windows.
    @inline(__always)
    static func dot4(
        _ r0: UnsafePointer<Float>, _ x0: UnsafePointer<Float>, _ r1: UnsafePointer<Float>, _ x1: UnsafePointer<Float>,
        _ r2: UnsafePointer<Float>, _ x2: UnsafePointer<Float>, _ r3: UnsafePointer<Float>, _ x3: UnsafePointer<Float>,
        _ count: Int, _ out: UnsafeMutablePointer<Float>
    ) {
        var a0 = SIMD8<Float>()
        var a1 = SIMD8<Float>()
        var a2 = SIMD8<Float>()
        var a3 = SIMD8<Float>()
        var i = 0
        while i < count {
            a0 += load8(r0, i) * load8(x0, i)
            a1 += load8(r1, i) * load8(x1, i)
            a2 += load8(r2, i) * load8(x2, i)
            a3 += load8(r3, i) * load8(x3, i)
            i &+= 8
        }
        out[0] = a0.sum()
        out[1] = a1.sum()
        out[2] = a2.sum()
        out[3] = a3.sum()
    }

    @inline(__always)
    static func load4(_ p: UnsafePointer<Float>, _ offset: Int) -> SIMD4<Float> {
        UnsafeRawPointer(p + offset).loadUnaligned(as: SIMD4<Float>.self)
    }

    /// Σ f[j]·(a[j] + b[j]) over `count` pairs (a multiple of 4): one folded output. Steps of
    /// 8, then the two halves of the accumulator added, a 4-pair tail, and `sum()`.
    @inline(__always)
    static func foldedDot(_ f: UnsafePointer<Float>, _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ count: Int) -> Float {
        let full = count & ~7
        var acc = SIMD8<Float>()
        var i = 0
        while i < full {
            acc += load8(f, i) * (load8(a, i) + load8(b, i))
            i &+= 8
        }
        var tail = acc.lowHalf + acc.highHalf
        if full < count { tail += load4(f, i) * (load4(a, i) + load4(b, i)) }
        return tail.sum()
    }

    /// Four folded outputs sharing the coefficients `f`, each summed exactly as ``foldedDot``.
    @inline(__always)
    static func foldedDot4(
        _ f: UnsafePointer<Float>,
        _ a0: UnsafePointer<Float>, _ b0: UnsafePointer<Float>, _ a1: UnsafePointer<Float>, _ b1: UnsafePointer<Float>,
        _ a2: UnsafePointer<Float>, _ b2: UnsafePointer<Float>, _ a3: UnsafePointer<Float>, _ b3: UnsafePointer<Float>,
        _ count: Int, _ out: UnsafeMutablePointer<Float>
    ) {
        let full = count & ~7
        var s0 = SIMD8<Float>()
        var s1 = SIMD8<Float>()
        var s2 = SIMD8<Float>()
        var s3 = SIMD8<Float>()
        var i = 0
        while i < full {
            let c = load8(f, i)
            s0 += c * (load8(a0, i) + load8(b0, i))
            s1 += c * (load8(a1, i) + load8(b1, i))
            s2 += c * (load8(a2, i) + load8(b2, i))
            s3 += c * (load8(a3, i) + load8(b3, i))
            i &+= 8
        }
        var t0 = s0.lowHalf + s0.highHalf
        var t1 = s1.lowHalf + s1.highHalf
        var t2 = s2.lowHalf + s2.highHalf
        var t3 = s3.lowHalf + s3.highHalf
        if full < count {
            let c = load4(f, i)
            t0 += c * (load4(a0, i) + load4(b0, i))
            t1 += c * (load4(a1, i) + load4(b1, i))
            t2 += c * (load4(a2, i) + load4(b2, i))
            t3 += c * (load4(a3, i) + load4(b3, i))
        }
        out[0] = t0.sum()
        out[1] = t1.sum()
        out[2] = t2.sum()
        out[3] = t3.sum()
    }
}
