// The FFTW backend's real split step (DSPSpectral's FFTWBackend; FFTWSplit.c): the spectrum of
// N = 2M real points from FFTW's M-point complex DFT of their even/odd pairs, in the operations
// of the step FFTW's own r2c plan ends with, so the result is FFTW's r2c spectrum bit for bit.
#pragma once
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Turns `spectrum` (interleaved, `m + 1` bins; on entry bins 0 … m − 1 hold
/// `Z[k] = Σ_{t<M} z[t]·e^{−2πi·k·t/M}`, `z[t] = x[2t] + i·x[2t + 1]`) into the real transform
/// `X[k] = Σ_{t<N} x[t]·e^{−2πi·k·t/N}`, `k = 0 … M`, in place. `m` even, ≥ 2; `cosine[k]`,
/// `sine[k]` = `cos(2πk/N)`, `sin(2πk/N)` rounded to float for `k < m/2`. For `0 < k < M/2`,
/// with `T = conj Z[M − k]`, `S = T − Z[k]`, `E = Z[k] + T`, `D = i·e^{−2πik/N}·S` (as
/// `sin·S + cos·(i·S)`, no fused operations): `X[k] = ½(E + D)`, `X[M − k] = conj(½(E − D))` —
/// FFTW 3.3's `hc2cfdftv_2` (its non-FMA compilation); `X[M/2] = conj Z[M/2]`,
/// `X[0] = Re Z[0] + Im Z[0]`, `X[M] = Re Z[0] − Im Z[0]` with zero imaginary parts.
void cdsp_fftw_real_split(float *spectrum, size_t m, const float *cosine, const float *sine);

#ifdef __cplusplus
}
#endif
