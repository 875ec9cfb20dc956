// Dispatched kernels for LoudnessMeter's window sums. See include/CDSPLoudness.h for the
// contracts: additions only, in the Swift loops' order, so every clone gives the same bits.
#include "CDSPLoudness.h"

#include "Dispatch.h"   // CDSP_DISPATCH, CDSP_INLINE

/// Four doubles: lanes 0–3 of one window's four running sums (one ymm register on the AVX
/// clones, two xmm registers on SSE2).
typedef double cdsp_v4d __attribute__((vector_size(32)));

CDSP_INLINE cdsp_v4d ld4d(const double *p) {
    cdsp_v4d v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

CDSP_INLINE void window_sums4_body(const double *const windows[4], size_t count, double out[4]) {
    const double *w0 = windows[0], *w1 = windows[1], *w2 = windows[2], *w3 = windows[3];
    cdsp_v4d a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
    for (size_t j = 0; j + 4 <= count; j += 4) {
        a0 = a0 + ld4d(w0 + j);
        a1 = a1 + ld4d(w1 + j);
        a2 = a2 + ld4d(w2 + j);
        a3 = a3 + ld4d(w3 + j);
    }
    out[0] = (a0[0] + a0[1]) + (a0[2] + a0[3]);
    out[1] = (a1[0] + a1[1]) + (a1[2] + a1[3]);
    out[2] = (a2[0] + a2[1]) + (a2[2] + a2[3]);
    out[3] = (a3[0] + a3[1]) + (a3[2] + a3[3]);
}

CDSP_DISPATCH_VOID(
    cdsp_loudness_window_sums4,
    (const double *const windows[4], size_t count, double out[4]),
    (windows, count, out)) {
    window_sums4_body(windows, count, out);
}
