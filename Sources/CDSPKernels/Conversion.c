// Dispatched sample-format conversion kernels: the 16-bit PCM widening of DSPIO's reader. See
// include/CDSPConversion.h for the contract.
//
// GCC/clang vector code (16 and 8 lanes), contraction off for the whole file as in the
// metering kernels it came from (the widening is a single exact multiply per sample: every
// clone gives the same bits).
#include "CDSPConversion.h"

#pragma STDC FP_CONTRACT OFF
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

#include "Dispatch.h"  // CDSP_DISPATCH_V3, CDSP_INLINE
#include "Vectors.h"   // v8, v16

typedef int16_t s8 __attribute__((vector_size(16)));
typedef int16_t s16 __attribute__((vector_size(32)));

CDSP_INLINE void widen_pcm16(const int16_t *in, float *out, size_t count) {
    const float scale = 1.0f / 32768.0f;  // 2⁻¹⁵: the products are exact
    size_t i = 0;
    // In place: float i covers bytes 4i ..< 4i + 4 of `out`; short i sits at byte 2·count + 2i
    // or later. Each group of 16 (then 8) shorts is loaded before its floats (bytes
    // 4i ..< 4i + 64) are stored, and 4i + 64 ≤ 2·count + 2(i + 16) whenever i + 16 ≤ count:
    // no store reaches a short not yet loaded. Loads and stores may alias, so the compiler
    // keeps their order.
    for (; count - i >= 16; i += 16) {
        s16 v;
        __builtin_memcpy(&v, in + i, sizeof v);
        v16 f = __builtin_convertvector(v, v16) * scale;
        __builtin_memcpy(out + i, &f, sizeof f);
    }
    for (; count - i >= 8; i += 8) {
        s8 v;
        __builtin_memcpy(&v, in + i, sizeof v);
        v8 f = __builtin_convertvector(v, v8) * scale;
        __builtin_memcpy(out + i, &f, sizeof f);
    }
    for (; i < count; i++) {
        float f = (float)in[i] * scale;
        out[i] = f;
    }
}

CDSP_DISPATCH_V3_VOID(cdsp_widen_pcm16, (const int16_t *in, float *out, size_t count), (in, out, count)) {
    widen_pcm16(in, out, count);
}
