// Eight-float vectors shared by the kernel files (private to CDSPKernels; not in include/).
// GCC/clang vector extensions: one ymm register per vector on the AVX-512F and AVX2+FMA
// clones, two xmm registers on the SSE2 default. Include after Dispatch.h.
#pragma once

#include <stdint.h>

typedef float v8 __attribute__((vector_size(32)));
typedef int32_t i8 __attribute__((vector_size(32)));

/// Eight floats from `p` (any alignment).
CDSP_INLINE v8 ld8(const float *p) {
    v8 v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

/// Eight floats to `p` (any alignment).
CDSP_INLINE void st8(float *p, v8 v) { __builtin_memcpy(p, &v, sizeof v); }

/// `x` in every lane.
CDSP_INLINE v8 splat8(float x) { return (v8){x, x, x, x, x, x, x, x}; }

/// The lanes' sum as `SIMD8<Float>.sum()` takes it: from −0, one add after another, left to
/// right: ((−0 + v₀) + v₁) + … + v₇.
CDSP_INLINE float lanesum8(v8 v) {
    float s = -0.0f;
    for (int j = 0; j < 8; j++) s += v[j];
    return s;
}
