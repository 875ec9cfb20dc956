// The dispatched exponential. See include/CDSPExponential.h for the contract.
//
// glibc's sysdeps/ieee754/flt-32/e_expf.c (from Arm's optimized-routines), as its x86-64 FMA
// compilation `__expf_fma` runs it, read from that object: `kd = fma(InvLn2N, x, SHIFT)` (the
// product and the shift fused), `r = fma(InvLn2N, x, −(kd − SHIFT))`, `z = fma(C₀, r, C₁)`,
// `y = fma(C₂, r, 1)`, `y = fma(z, r², y)`, `y·s`. Contraction is off for the file; the fused
// operations are written out, so every copy computes the same bits.
#include "CDSPExponential.h"

#pragma STDC FP_CONTRACT OFF
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "Dispatch.h"   // CDSP_DISPATCH_VOID, CDSP_INLINE
#include "Vectors.h"

typedef double v8d __attribute__((vector_size(64)));
typedef int64_t v8l __attribute__((vector_size(64)));
typedef uint64_t v8u __attribute__((vector_size(64)));

/// `2^(i/32)`'s bits minus `i << 47` (glibc's `__exp2f_data.tab`).
static const uint64_t exp_table[32] = {
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
    0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
    0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
    0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
    0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
    0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540,
};

/// glibc's `invln2_scaled` (32/ln 2), `poly_scaled` (C₀, C₁, C₂) and `shift` (1.5·2⁵²).
#define EXP_INVLN2N 0x1.71547652b82fep+5
#define EXP_C0 0x1.c6af84b912394p-20
#define EXP_C1 0x1.ebfce50fac4f3p-13
#define EXP_C2 0x1.62e42ff0c52d6p-6
#define EXP_SHIFT 0x1.8p+52

#if defined(__has_builtin)
#if __has_builtin(__builtin_elementwise_fma)
#define EXP_VFMA(a, b, c) __builtin_elementwise_fma(a, b, c)
#endif
#endif
#ifndef EXP_VFMA
CDSP_INLINE v8d exp_vfma(v8d a, v8d b, v8d c) {
    v8d r;
    for (int l = 0; l < 8; l++) r[l] = __builtin_fma(a[l], b[l], c[l]);
    return r;
}
#define EXP_VFMA(a, b, c) exp_vfma(a, b, c)
#endif

CDSP_INLINE v8d splat8d(double x) { return (v8d){x, x, x, x, x, x, x, x}; }

/// Eight lanes of the fast path (|x| < 88).
CDSP_INLINE v8 exp8(v8 x) {
    v8d xd = __builtin_convertvector(x, v8d);
    v8d shifted = EXP_VFMA(splat8d(EXP_INVLN2N), xd, splat8d(EXP_SHIFT));
    v8u ki;
    memcpy(&ki, &shifted, sizeof ki);
    v8d kd = shifted - splat8d(EXP_SHIFT);
    v8d r = EXP_VFMA(splat8d(EXP_INVLN2N), xd, -kd);
    v8u t;
    for (int l = 0; l < 8; l++) t[l] = exp_table[ki[l] & 31];
    t += ki << 47;
    v8d s;
    memcpy(&s, &t, sizeof s);
    v8d z = EXP_VFMA(splat8d(EXP_C0), r, splat8d(EXP_C1));
    v8d r2 = r * r;
    v8d y = EXP_VFMA(splat8d(EXP_C2), r, splat8d(1.0));
    y = EXP_VFMA(z, r2, y);
    y = y * s;
    return __builtin_convertvector(y, v8);
}

/// Whether a lane leaves the fast path: |x| ≥ 88 (glibc's `abstop >= top12(88)`), ±∞ or NaN.
CDSP_INLINE int exp_special(float x) {
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return ((bits >> 20) & 0x7ff) >= 0x42b;
}

CDSP_DISPATCH_VOID(cdsp_exp, (const float *x, float *y, size_t count), (x, y, count)) {
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        v8 v = ld8(x + i);
        int special = 0;
        for (int l = 0; l < 8; l++) special |= exp_special(v[l]);
        if (special) {
            for (int l = 0; l < 8; l++) y[i + l] = expf(v[l]);
        } else {
            st8(y + i, exp8(v));
        }
    }
    if (i < count) {
        float tail[8] = {0}, out[8];
        for (size_t l = 0; l < count - i; l++) tail[l] = x[i + l];
        v8 v = ld8(tail);
        st8(out, exp8(v));
        for (size_t l = 0; l < count - i; l++) y[i + l] = exp_special(tail[l]) ? expf(tail[l]) : out[l];
    }
}
