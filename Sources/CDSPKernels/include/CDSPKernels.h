// Small C kernels with run-time CPU dispatch (target_clones) for SpeechDSP's hottest loops,
// where default x86-64 Swift codegen (SSE2, no FMA) cannot reach the hardware's throughput.
//
// Every kernel is plain C: no allocation, no locks, no global state (the dispatcher's CPU
// probe runs once, in the loader's IFUNC resolver, before any call). On x86-64 each exported
// kernel is compiled three times — AVX-512F, AVX2+FMA and baseline SSE2 — and the loader
// binds the best one for the CPU, once per process.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include "CDSPKWeighting.h"
#include "CDSPPolyphaseGroups.h"
#include "CDSPLevels.h"

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

#ifdef __cplusplus
}
#endif
#include "CDSPSpectral.h"
#include "CDSPScoring.h"
#include "CDSPDetection.h"
