// The phase step and history copies of the polyphase resampler. The dot products themselves
// are a C kernel with run-time CPU dispatch: `cdsp_polyphase` in the CDSPKernels target.

internal import CDSPKernels

/// The small loops of ``Resampler`` around its C kernels, as static functions of a caseless
/// enum so calling them needs no class metadata (the `@_noAllocation` checker accepts them).
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

    /// Copies `frames` interleaved frames of `channels` channels into planar rows: channel c's
    /// samples go to `destination + c × rowStride`, frame after frame.
    @inline(__always)
    static func deinterleave(
        _ source: UnsafePointer<Float>, _ channels: Int, _ frames: Int, _ destination: UnsafeMutablePointer<Float>,
        _ rowStride: Int
    ) {
        for channel in 0..<channels {
            let row = destination + channel * rowStride
            var s = source + channel
            var i = 0
            while i < frames {
                row[i] = s.pointee
                s += channels
                i &+= 1
            }
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

    // MARK: Dispatched C kernels

    // The optimizer's performance checks cannot see into C, so a call to a C function is an
    // "unknown callee" to `@_noAllocation`. This wrapper is the audited boundary: the C kernel
    // allocates nothing, takes no locks and touches no global state (see CDSPResampling.h), so it
    // is excluded from the analysis; everything around it stays checked. Never inlined, so the
    // exclusion stays attached to exactly this call.

    /// Computes `count` output frames into `out` (one call per push); see `cdsp_polyphase`.
    @inline(never) @_semantics("no_performance_analysis")
    static func polyphase(
        _ bank: UnsafePointer<Float>, _ taps: Int, _ window: UnsafePointer<Float>, _ stride: Int, _ channels: Int,
        _ phase: Int, _ slot: Int, _ frameStep: Int, _ phaseStep: Int, _ phases: Int, _ count: Int,
        _ out: UnsafeMutablePointer<Float>
    ) {
        cdsp_polyphase(bank, taps, window, stride, channels, phase, slot, frameStep, phaseStep, phases, count, out)
    }

    /// Splits `pairs` frame pairs of one interleaved channel (stride `stride`) into its even and
    /// odd frames; see `cdsp_split_even_odd`.
    @inline(never) @_semantics("no_performance_analysis")
    static func splitEvenOdd(
        _ source: UnsafePointer<Float>, _ stride: Int, _ pairs: Int,
        _ even: UnsafeMutablePointer<Float>, _ odd: UnsafeMutablePointer<Float>
    ) {
        cdsp_split_even_odd(source, stride, pairs, even, odd)
    }

    /// `count` half-band decimator outputs of one channel; see `cdsp_halfband`.
    @inline(never) @_semantics("no_performance_analysis")
    static func halfBand(
        _ even: UnsafePointer<Float>, _ odd: UnsafePointer<Float>, _ taps: UnsafePointer<Float>, _ tapCount: Int,
        _ count: Int, _ out: UnsafeMutablePointer<Float>
    ) {
        cdsp_halfband(even, odd, taps, tapCount, 0.5, count, out)
    }

    /// `count` outputs of one channel by the staggered-groups kernel; see `cdsp_polyphase_groups`.
    /// Chunks starting before frame `split` read `x`, the others `y` (frame `split` at `y[0]`).
    @inline(never) @_semantics("no_performance_analysis")
    static func polyphaseGroups(
        _ bank: StaggeredBank, _ x: UnsafePointer<Float>, _ y: UnsafePointer<Float>, split: Int, _ base: Int,
        _ lo: Int, _ hi: Int, _ pattern: Int, _ groups: Int, _ skip: Int, _ count: Int,
        _ out: UnsafeMutablePointer<Float>, _ stride: Int
    ) {
        cdsp_polyphase_groups(
            bank.coefficients, bank.chunkOffsets, bank.spans, bank.patterns, bank.width, x, y, split, base, lo, hi,
            pattern, groups, skip, count, out, stride)
    }

    /// The same outputs for small ratios, vectorised across outputs; see `cdsp_polyphase_small`.
    @inline(never) @_semantics("no_performance_analysis")
    static func polyphaseSmall(
        _ bank: UnsafePointer<Float>, _ taps: Int, _ window: UnsafePointer<Float>, _ stride: Int, _ channels: Int,
        _ phase: Int, _ slot: Int, _ frameStep: Int, _ phaseStep: Int, _ phases: Int, _ count: Int,
        _ out: UnsafeMutablePointer<Float>
    ) {
        cdsp_polyphase_small(bank, taps, window, stride, channels, phase, slot, frameStep, phaseStep, phases, count, out)
    }
}
