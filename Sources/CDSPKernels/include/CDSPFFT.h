// SpeechDSP's own real FFT (DSPSpectral's built-in FFT backend): a real transform of N points
// through a complex transform of M = N/2 points (FFTPlan.c plans, FFT.c transforms).
//
// The complex transform is a mixed-radix Stockham autosort FFT (radix 4, 2, 3, 5 butterflies and
// a generic one for odd primes up to CDSP_FFT_MAX_RADIX), ping-ponging between two scratch
// buffers with the real and imaginary parts split. When its length is a multiple of 8 (and at
// least 64) it runs on eight-float vectors: the points are read as P rows of eight, the P-point transform runs
// down the rows (every lane an independent transform, every load and store a whole vector), and
// a last pass twiddles, transposes 8 × 8 blocks and finishes with an 8-point DFT across the
// lanes (the "four-step" split into P·8). Otherwise it runs on scalars. An M with a prime factor
// above CDSP_FFT_MAX_RADIX goes through Bluestein's chirp-z algorithm instead: the DFT as a
// circular convolution of length L (the power of two ≥ 2M − 1), three such transforms' work.
// The real spectrum is unpacked from the complex one with the usual twiddle W_N^k (and packed
// again for the inverse, which runs the same forward transform with real and imaginary parts
// exchanged).
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

/// Most stages a complex transform can have (a length ≤ 65536 has at most 16 prime factors).
#define CDSP_FFT_MAX_STAGES 32
/// Largest prime radix of the Stockham stages; a length with a larger prime factor runs
/// through Bluestein's algorithm (the generic butterfly costs O(p) per point).
#define CDSP_FFT_MAX_RADIX 61
/// Largest transform size in real points.
#define CDSP_FFT_MAX_SIZE 65536

/// One complex Stockham transform: its factorisation and where its tables are.
typedef struct cdsp_fft_complex {
    /// The transform length.
    size_t points;
    /// 8 on the vector route (`points` a multiple of 8, at least 64), 1 on the scalar route.
    size_t lanes;
    /// `points / lanes`: the length of the Stockham transform.
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
    /// The vector route's last-pass twiddles `W^{n2·k1}`, `n2 < 8`, `k1 < rows`: the real parts
    /// (row `n2`, `rows` values over `k1`), then the imaginary parts in the same order.
    size_t lane_twiddles;
} cdsp_fft_complex;

/// The factorisation and table layout of one real transform size. Plain data: copy it freely.
typedef struct cdsp_fft_plan {
    /// N, real points.
    size_t size;
    /// M = N/2, complex points.
    size_t half;
    /// The M-point transform, or (Bluestein) the L-point transform of the convolution.
    cdsp_fft_complex transform;
    /// 0 for a direct M-point transform; L for Bluestein's algorithm.
    size_t bluestein;
    /// Bluestein: the chirp `w_t = e^{−iπt²/M}`, `t < M`: M real parts, then M imaginary.
    size_t chirp;
    /// Bluestein: the L-point DFT of `conj w_{|j|}` (j taken circularly), divided by L: L real
    /// parts, then L imaginary.
    size_t chirp_spectrum;
    /// The real unpacking twiddles `W_N^k`, `k = 0 … M/2`: M/2 + 1 real parts, then as many
    /// imaginary parts.
    size_t real_twiddles;
    /// Floats in the table.
    size_t table_count;
    /// Floats of scratch a transform needs: two buffers of max(M, L) complex values, split.
    size_t scratch_count;
} cdsp_fft_plan;

/// Plans transforms of `size` real points: returns 0 and fills `plan` for an even `size`,
/// 2 ≤ size ≤ CDSP_FFT_MAX_SIZE; returns −1 (and leaves `plan` unspecified) for any other.
int cdsp_fft_plan_init(cdsp_fft_plan *plan, size_t size);

/// Fills `table` (`plan->table_count` floats) with the plan's twiddles, computed in double and
/// rounded once to float (Bluestein's chirp spectrum by a double-precision FFT). Returns 0, or
/// −1 if the temporary double buffer Bluestein's chirp spectrum needs could not be allocated.
int cdsp_fft_plan_tables(const cdsp_fft_plan *plan, float *table);

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
