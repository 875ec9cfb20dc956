// SpeechDSP's own real FFT (DSPSpectral's built-in FFT backend): a real transform of N points
// through a complex transform of M = N/2 points (FFTPlan.c plans, FFT.c transforms).
//
// The complex transform is a mixed-radix Stockham autosort FFT (radix 4, 2, 3, 5 butterflies and
// a generic one for larger odd primes), ping-ponging between two scratch buffers with the real
// and imaginary parts split. When M is a multiple of 64 it runs on eight-float vectors: the M
// points are read as P = M/8 rows of eight, the P-point transform runs down the rows (every
// lane an independent transform, every load and store a whole vector), and a last pass
// twiddles, transposes 8 × 8 blocks and finishes with an 8-point DFT across the lanes (the
// "four-step" split M = P·8). Otherwise it runs on scalars. The real spectrum is unpacked from
// the complex one with the usual twiddle W_N^k (and packed again for the inverse, which runs the
// same forward transform with real and imaginary parts exchanged).
//
// Everything size-dependent — the factorisation, the twiddle tables — is made by
// `cdsp_fft_plan_init` and `cdsp_fft_plan_tables`, once; the transforms only read the plan and
// tables and write the caller's output and scratch: no allocation, no locks, no global state.
// Contraction is off in FFT.c, so the AVX-512F, AVX2+FMA and SSE2 clones give identical bits.
#pragma once
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Most stages a plan can have (M ≤ 32768 has at most 15 prime factors).
#define CDSP_FFT_MAX_STAGES 32
/// Largest prime factor of M a plan accepts: larger primes would run through the generic
/// butterfly's O(p) work per point.
#define CDSP_FFT_MAX_PRIME 257
/// Largest transform size in real points.
#define CDSP_FFT_MAX_SIZE 65536

/// The factorisation and table layout of one transform size. Plain data: copy it freely.
typedef struct cdsp_fft_plan {
    /// N, real points.
    size_t size;
    /// M = N/2, complex points.
    size_t half;
    /// 8 on the vector route (M a multiple of 64), 1 on the scalar route.
    size_t lanes;
    /// P = M / lanes: the length of the Stockham transform.
    size_t rows;
    /// Stockham stages, in order.
    size_t stage_count;
    /// Each stage's radix.
    size_t radix[CDSP_FFT_MAX_STAGES];
    /// Each stage's span: the product of the radices before it.
    size_t span[CDSP_FFT_MAX_STAGES];
    /// Each stage's twiddles in the table: `W^{k·r}` of its `span·radix` points for
    /// `k < span`, `r = 1 … radix − 1`, interleaved (re, im), `2·(radix − 1)` floats per `k`.
    size_t twiddles[CDSP_FFT_MAX_STAGES];
    /// A generic-radix stage's roots in the table: `cos(2πj/radix)` then `sin(2πj/radix)` for
    /// `j < radix`.
    size_t roots[CDSP_FFT_MAX_STAGES];
    /// The vector route's last-pass twiddles `W_M^{n2·k1}`: per block of eight rows `k1`, per
    /// lane index `n2 < 8`, eight real parts then eight imaginary parts (lanes over `k1`).
    size_t lane_twiddles;
    /// The real unpacking twiddles `W_N^k`, `k = 0 … M/2`: M/2 + 1 real parts, then as many
    /// imaginary parts.
    size_t real_twiddles;
    /// Floats in the table.
    size_t table_count;
    /// Floats of scratch a transform needs: two buffers of M complex values, split.
    size_t scratch_count;
} cdsp_fft_plan;

/// Plans transforms of `size` real points: returns 0 and fills `plan` for an even `size`,
/// 2 ≤ size ≤ CDSP_FFT_MAX_SIZE, whose half has no prime factor above CDSP_FFT_MAX_PRIME;
/// returns −1 (and leaves `plan` unspecified) for any other.
int cdsp_fft_plan_init(cdsp_fft_plan *plan, size_t size);

/// Fills `table` (`plan->table_count` floats) with the plan's twiddles, computed in double and
/// rounded once to float.
void cdsp_fft_plan_tables(const cdsp_fft_plan *plan, float *table);

/// Forward real-to-complex transform, unnormalised: `X[k] = Σ_{t<N} x[t]·e^{−2πi·k·t/N}` for
/// `k = 0 … N/2`, written to `spectrum` interleaved (re, im per bin; `N + 2` floats), with
/// `Im X[0]` and `Im X[N/2]` exactly 0. `input` (N floats) is not modified. `scratch` holds
/// `plan->scratch_count` floats and must overlap neither.
void cdsp_fft_forward(
    const cdsp_fft_plan *plan, const float *table, const float *input, float *spectrum, float *scratch);

/// Inverse complex-to-real transform, unnormalised: `y[t] = Σ_{k<N} X[k]·e^{+2πi·k·t/N}` with
/// `X[N − k] = conj X[k]`, from `spectrum` (interleaved, N/2 + 1 bins; the imaginary parts of
/// bins 0 and N/2 are ignored) to `output` (N floats): the inverse of a forward returns N·x.
/// `spectrum` is not modified. `scratch` as for the forward.
void cdsp_fft_inverse(
    const cdsp_fft_plan *plan, const float *table, const float *spectrum, float *output, float *scratch);

#ifdef __cplusplus
}
#endif
