// DSPCore.Resampler's dispatched kernels (Resampling.c, ResamplingGroups.c): the polyphase
// dot products (general, small-ratio and staggered-groups layouts) and the half-band
// decimator. See docs/resampling.md for the design.
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: - Polyphase resampler (DSPCore.Resampler)
//
// Determinism: each output is one dot product summed in a fixed order that depends only on the
// tap count — 16 lane accumulators over the taps in steps of 16 (a multiply-add per lane, fused
// where the CPU has FMA), an 8-wide then a 4-wide tail, then a fixed pairwise tree over the
// lanes. How many outputs one call computes, or how they are grouped inside it, never changes a
// bit, so a stream's output does not depend on how its input was chunked. It may differ in
// the last bits between CPUs (fused vs separate multiply-add), never between runs on one CPU.

/// Polyphase outputs: `count` output frames of `channels` channels, interleaved, into
/// `out`. Output frame k uses coefficient row `bank + ((slot + k) mod phases) * taps` (`taps` a
/// multiple of 8: the bank stores the phases in the order consecutive outputs use them, so
/// rows are read sequentially) and, for channel c, the `taps` contiguous history floats
/// starting at `window + c * stride + (frame_k − frame_0)`, where (frame, phase) advances per
/// output by `frame_step` frames and `phase_step` phases with carry at `phases` (= L),
/// starting at `(0, phase)`. Mono computes four outputs at a time (consecutive ones; or, for L > 1 and
/// `count` ≥ 2L, in phase order, two rows × two outputs each); multichannel shares each row
/// across four channels at a time.
void cdsp_polyphase(
    const float *bank, size_t taps, const float *window, size_t stride, size_t channels,
    size_t phase, size_t slot, size_t frame_step, size_t phase_step, size_t phases, size_t count, float *out);

/// `cdsp_polyphase` for small ratios — L = `phases` ≤ 4, M ≤ 8, `taps` ≤ 1024 (any count,
/// not only multiples of 8) — vectorised across outputs instead of along taps: the window is
/// de-interleaved by M into a stack scratch, so outputs L·j + a (j = 0, 1, …) of one phase
/// read contiguous floats, 8 outputs per vector (up to eight vectors per pass) with the
/// coefficient broadcast. Tap i = g·M + r; each output adds its taps (one multiply-add each,
/// fused where the CPU has FMA) from 0, r = 0…M − 1 in turn, and within one r in the fixed
/// shared-load order of the half-band kernel below (blocks of 32 g's; in each, g ≡ 0, 1, …,
/// 7 mod 8; within one residue g ascending). That order depends only on `taps` and M, never
/// on grouping, so chunking cannot change a bit; it differs from `cdsp_polyphase`, so a
/// resampler uses one of the two for all its outputs.
void cdsp_polyphase_small(
    const float *bank, size_t taps, const float *window, size_t stride, size_t channels,
    size_t phase, size_t slot, size_t frame_step, size_t phase_step, size_t phases, size_t count, float *out);

// MARK: - Half-band decimator (DSPCore.Resampler's first stage)

/// Splits `pairs` interleaved-frame pairs of one channel into its even and odd frames:
/// `even[j] = src[2j·stride]`, `odd[j] = src[(2j + 1)·stride]` (`stride` = channel count).
void cdsp_split_even_odd(const float *src, size_t stride, size_t pairs, float *even, float *odd);

/// Half-band decimation by two, `count` outputs of one channel, vectorised across outputs:
/// `out[n] = center · even[n] + Σ_{t < taps} coef[t] · odd[n + t]` — a multiply, then one
/// multiply-add per tap (fused where the CPU has FMA), the taps in a fixed order chosen so
/// that one window load feeds up to four taps: blocks of 32 taps, in each the taps ≡ 0, 1, …,
/// 7 mod 8, within one residue ascending (taps t and t + 8 read the window one vector
/// apart). Every output gets the same lane operations whatever `count` is, so results do not
/// depend on grouping. Reads up to 7 floats past `even + count` and `odd + count + taps − 1`
/// (in owned memory; their lanes are discarded).
void cdsp_halfband(
    const float *even, const float *odd, const float *coef, size_t taps, float center, size_t count, float *out);

// MARK: - Staggered groups (DSPCore.Resampler, large L; ResamplingGroups.c)
//
// The 44.1 → 24 kHz first stage of 44.1 → 16 kHz, 22.05 and 11.025 → 16 kHz, and the other
// 44.1-kHz-family ratios.

/// Polyphase outputs computed across outputs for a large phase count L (a multiple of 8).
///
/// Outputs go in *groups* of 8 consecutive ones (aligned to their bank slots: group `g` holds
/// slots 8g…8g + 7), one vector lane per output. Group `g`'s window starts at the first lane's
/// window start `b_g`; the frames from `b_g` to `b_{g+1}` are its *chunk* (`span[g mod P]`
/// frames, P = `patterns` = L / 8). A group accumulates over its own chunk and the next
/// `width − 1`, so `width` groups are in flight at once and each frame's sample, broadcast
/// once, feeds all of them: acc[k] += row(k, n) · x[n]. The coefficients are laid out by
/// chunk: chunk pattern c (at `coef + chunk_offset[c]`) holds, for each of its frames n and
/// each slot k = 0…width − 1 (group c − width + 1 + k), the 8 lane coefficients — each lane's
/// filter row shifted to its own window start, zero outside it.
///
/// Summation order: each lane keeps C = `cdsp_polyphase_groups_chains(width)` partial sums
/// (1, 2 or 4, so that width × C accumulators hide the multiply-add latency); frame n of a
/// chunk starting at frame b goes into sum (n − b) mod C by one multiply-add (fused where the
/// CPU has FMA), frames ascending; the result is s₀ (C = 1), s₀ + s₁ (C = 2) or
/// (s₀ + s₂) + (s₁ + s₃) (C = 4). Only the lane's own taps are nonzero and a zero term leaves
/// a sum unchanged (finite input), and chunks are fixed by the slots, so an output is fixed by
/// its taps and its position in the stream: however outputs are grouped or a stream is
/// chunked, not a bit changes.
///
/// Paired runs (width ≤ 3, C ≤ 2): groups a whole number q of pattern periods apart (q·L/8
/// groups, q·M frames) use the same coefficients, so where at least two periods of groups lie
/// inside `lo ..< hi` the call runs two streams at once — groups [h, h + D) and
/// [h + D, h + 2D) — loading each coefficient vector once for both and giving each sum the
/// same operations in the same order as a single run; the groups before and after run alone.
///
/// Non-finite input: when any frame a stored group reads is NaN or ±∞, every lane of that
/// group comes out NaN or ±∞ (a zero coefficient times ±∞ is NaN), so the call checks the
/// groups it stores and, if any lane is not finite, computes its outputs again lane by lane,
/// adding only each lane's nonzero coefficients in the same chains and order (bit-identical
/// for finite windows): a NaN or infinity poisons exactly the outputs whose windows hold it,
/// however the stream is chunked. No frame is scanned beforehand.
///
/// - `x`, `y`, `split`: one channel's stream, indexed by frame. A chunk that starts before
///   `split` reads its frames from `x[n]`, one that starts at or after it from
///   `y[n − split]`, so the frames can come partly from a history (`x`) and partly straight
///   from the caller's buffer (`y`) without copying it. `x` and `y` must hold the same values
///   wherever both are read (the lane-by-lane path reads frame n from `y` when n ≥ `split`).
///   With one array, pass it as `x` and `split` = `hi`.
/// - Frames `lo ..< hi` are readable (from `x` below `split` and through the end of every
///   chunk that starts below it, from `y` from `split` on), the stored outputs' windows lie
///   inside them, and no other frame is read.
/// - `base`: window start of the first group (may precede `lo`); `pattern`: its pattern.
/// - `groups` groups are computed; of their outputs, the first `skip` are dropped and the next
///   `count` stored at `out[r · out_stride]`.
/// - `width` is 1…12.
void cdsp_polyphase_groups(const float *coef, const uint32_t *chunk_offset, const uint32_t *span, size_t patterns,
                           size_t width, const float *x, const float *y, ptrdiff_t split, ptrdiff_t base,
                           ptrdiff_t lo, ptrdiff_t hi, size_t pattern, size_t groups, size_t skip, size_t count,
                           float *out, size_t out_stride);

/// C, the partial sums per lane `cdsp_polyphase_groups` keeps for `width`: 4 up to width 2,
/// 2 up to 7 (width 3: 2, so the paired runs' 2 × 3 × 2 accumulators stay in registers),
/// else 1.
size_t cdsp_polyphase_groups_chains(size_t width);

#ifdef __cplusplus
}
#endif
