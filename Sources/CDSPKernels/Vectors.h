// The vector types and helpers shared by the kernel files, the one home of them (private to
// CDSPKernels; not in include/). GCC/clang vector extensions: an eight-float vector is one ymm
// register on the AVX-512F and AVX2+FMA clones, two xmm registers on the SSE2 default; a
// sixteen-float vector one zmm, two ymm or four xmm. Include after Dispatch.h.
#pragma once

#include <stdint.h>

typedef float v8 __attribute__((vector_size(32)));
typedef int32_t i8 __attribute__((vector_size(32)));
typedef float v16 __attribute__((vector_size(64)));
typedef int32_t i16 __attribute__((vector_size(64)));

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

/// Sixteen floats from `p` (any alignment).
CDSP_INLINE v16 ld16(const float *p) {
    v16 v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

/// `x` in every one of sixteen lanes.
CDSP_INLINE v16 splat16(float x) { return (v16){x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x}; }

/// Lane-wise `mask ? a : b` (mask lanes all ones or all zeros).
CDSP_INLINE v8 select8(i8 mask, v8 a, v8 b) {
    i8 ia, ib;
    __builtin_memcpy(&ia, &a, sizeof ia);
    __builtin_memcpy(&ib, &b, sizeof ib);
    i8 r = (ia & mask) | (ib & ~mask);
    v8 out;
    __builtin_memcpy(&out, &r, sizeof out);
    return out;
}

/// Lane-wise `mask ? a : b` over sixteen lanes (mask lanes all ones or all zeros).
CDSP_INLINE v16 select16(i16 mask, v16 a, v16 b) {
    i16 ia, ib;
    __builtin_memcpy(&ia, &a, sizeof ia);
    __builtin_memcpy(&ib, &b, sizeof ib);
    i16 r = (ia & mask) | (ib & ~mask);
    v16 out;
    __builtin_memcpy(&out, &r, sizeof out);
    return out;
}
