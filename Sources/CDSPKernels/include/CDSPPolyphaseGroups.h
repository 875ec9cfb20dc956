// The staggered-groups polyphase kernel: DSPCore.Resampler's stage for large L (44.1 → 16 kHz's
// 22.05 → 16 kHz stage and the other 44.1-kHz-family ratios). Included from CDSPKernels.h.
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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
/// Non-finite input: when any frame the call reads is NaN or ±∞, the call computes its
/// outputs lane by lane instead, adding only each lane's nonzero coefficients in the same
/// chains and order (bit-identical for finite windows), so a NaN or infinity poisons exactly
/// the outputs whose windows hold it, however the stream is chunked. With `known_finite`
/// nonzero the caller guarantees frames `lo ..< hi` are finite (it checked them as they were
/// written: `cdsp_copy_finite`, `cdsp_all_finite`) and the call does not scan them; with 0
/// it scans the frames it reads first.
///
/// - `x`: one channel's history; frames `lo ..< hi` (indices into `x`) are readable, the
///   stored outputs' windows lie inside them, and no other frame is read.
/// - `base`: window start of the first group (may precede `lo`); `pattern`: its pattern.
/// - `groups` groups are computed; of their outputs, the first `skip` are dropped and the next
///   `count` stored at `out[r · out_stride]`.
/// - `width` is 1…12.
void cdsp_polyphase_groups(const float *coef, const uint32_t *chunk_offset, const uint32_t *span, size_t patterns,
                           size_t width, const float *x, ptrdiff_t base, ptrdiff_t lo, ptrdiff_t hi, size_t pattern,
                           size_t groups, size_t skip, size_t count, int known_finite, float *out,
                           size_t out_stride);

/// Copies `n` floats from `src` to `dst` (not overlapping) and returns 1 when all of them are
/// finite, 0 when any is NaN or ±∞ — one pass, for history writes that feed
/// `cdsp_polyphase_groups` its `known_finite`.
int cdsp_copy_finite(float *dst, const float *src, size_t n);

/// 1 when the `n` floats at `x` are all finite, else 0.
int cdsp_all_finite(const float *x, size_t n);

/// C, the partial sums per lane `cdsp_polyphase_groups` keeps for `width`: 4 up to width 2,
/// 2 up to 7 (width 3: 2, so the paired runs' 2 × 3 × 2 accumulators stay in registers),
/// else 1.
size_t cdsp_polyphase_groups_chains(size_t width);

#ifdef __cplusplus
}
#endif
