// The dispatched exponential (Exponential.c): glibc's `expf`, eight lanes at a time, bit for bit.
#pragma once
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// `y[i] = e^x[i]` for `i < count` (`y` may be `x`), as glibc's `expf` computes it on a CPU with
/// AVX2 and FMA (`__expf_fma`, glibc ≥ 2.27; the algorithm of Arm's optimized-routines, also
/// musl's): `k = round(x·32/ln 2)` through the 1.5·2⁵² shift, `r = x·32/ln 2 − k`,
/// `2^(k/32)` from a 32-entry table, and `2^(r/32) ≈ (C₀r + C₁)·r² + (C₂r + 1)`, in double, with
/// the four products fused (`fma`) exactly where that compilation fuses them, then rounded
/// to float. Eight lanes per vector (two zmm-halves or ymm registers, or libm's `fma` on the
/// SSE2 copy, which is slow: callers use the kernel at CDSP_LEVEL_V3 and above, where glibc's
/// own `expf` is that compilation). Lanes with |x| ≥ 88 or NaN go through libm's `expf`.
/// Every copy gives the same bits.
void cdsp_exp(const float *x, float *y, size_t count);

#ifdef __cplusplus
}
#endif
