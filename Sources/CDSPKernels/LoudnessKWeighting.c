// BS.1770 K-weighting as a block state-space kernel. See include/CDSPLoudness.h for the
// contract.
//
// Why: the serial recursion costs one dependent multiply and add per sample and section (about
// 9 cycles per sample on a current x86-64): latency, not arithmetic, bounds it. The cascade is
// linear, so the high-pass outputs v[0..B) of a block of B samples and the state after it are
// fixed linear combinations of the 4 state values s and the B inputs x:
//   v  = C·s + D·x       (C: B×4, D: B×B lower-triangular Toeplitz of the impulse response)
//   s' = A^B·s + E·x
// With B = 8 that is 34 four-wide multiply-adds per block (20 for v, 12 for s', 2 for the
// energies), all independent except the short chain from s to s' (a broadcast, two
// multiply-adds and an add per 8 samples), so the loop runs near the core's multiply-add
// throughput instead of the recursion's latency. (A six-value direct-form-I state, x[n−1] and
// x[n−2] included, needs 40 multiply-adds per block and measured 15 % slower.)
//
// State: each section in transposed direct form II, `z1, z2` (shelf) and `w1, w2` (high-pass):
//   u = b0·x + z1;  z1' = (b1·x − a1·u) + z2;  z2' = b2·x − a2·u
//   v = u + w1;     w1' = (−2·u − c1·v) + w2;  w2' = u − c2·v
// which the step's final partial block runs serially.
//
// Accuracy: the block map's coefficients are derived in long double (80-bit on x86-64) from
// the same recursion; every output is a sum of at most 12 products of coefficients of order 1–10
// (the high-pass poles sit near z = 1) with well-scaled signals. Step energies agree with a
// long-double recursion to ~1e−13 relative (the serial Double direct-form-I recursion:
// ~3e−13), with the serial Double recursion to ~1e−12 (tested to 1e−10).
//
// Dispatch (Dispatch.h): `CDSP_DISPATCH_V3`, i.e. with an x86-64-v3 copy (AVX2 + FMA): the
// "fma" copy is AVX without AVX2, which has no one-instruction broadcast of a register lane,
// and the block loop broadcasts 14 values per block (measured 6–9 % faster with AVX2). The
// dispatcher prefers avx512f, then x86-64-v3, then fma, then SSE2 (`CDSP_DISPATCH_LEVEL` caps it).
#include "CDSPLoudness.h"

#include "Dispatch.h"   // CDSP_DISPATCH_V3, CDSP_INLINE

enum { B = CDSP_KW_BLOCK };

typedef double v4d __attribute__((vector_size(32)));

CDSP_INLINE v4d ld4(const double *p) {
    v4d v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

CDSP_INLINE v4d splat(double a) { return (v4d){a, a, a, a}; }

/// The running values of one channel, held in registers across blocks.
typedef struct {
    double z1, z2, w1, w2;
    v4d lo, hi;  // energy lanes 0–3, 4–7
} kw_run_state;

/// One block of B samples: the outputs' squares into the lanes, the state advanced.
/// Sources: 0 z1, 1 z2, 2 w1, 3 w2, 4 + i x[i]. The same source order and grouping for every
/// block, so results depend only on the data. The next state first: it is the loop-carried
/// chain (inputs' part in two partial sums, then the state's part, then one add).
CDSP_INLINE void kw_block(const cdsp_kweighting *k, const float *xf, kw_run_state *r) {
    const double x6 = xf[6], x7 = xf[7];
    const v4d s0 = splat(r->z1), s1 = splat(r->z2), s2 = splat(r->w1), s3 = splat(r->w2);
    const v4d b0 = splat(xf[0]), b1 = splat(xf[1]), b2 = splat(xf[2]), b3 = splat(xf[3]);
    const v4d b4 = splat(xf[4]), b5 = splat(xf[5]), b6 = splat(x6), b7 = splat(x7);
#define O(j, h) ld4(&k->output[j][4 * (h)])
#define N(j) ld4(k->next[j])
    v4d pa = N(4) * b0;
    pa = N(6) * b2 + pa;
    pa = N(8) * b4 + pa;
    pa = N(10) * b6 + pa;
    v4d pb = N(5) * b1;
    pb = N(7) * b3 + pb;
    pb = N(9) * b5 + pb;
    pb = N(11) * b7 + pb;
    pa = N(0) * s0 + pa;
    pb = N(1) * s1 + pb;
    pa = N(2) * s2 + pa;
    pb = N(3) * s3 + pb;
    const v4d next = pa + pb;
    // Outputs 0–3 (inputs 4–7 do not reach them), then 4–7.
    v4d la = O(4, 0) * b0;
    la = O(6, 0) * b2 + la;
    la = O(0, 0) * s0 + la;
    la = O(2, 0) * s2 + la;
    v4d lb = O(5, 0) * b1;
    lb = O(7, 0) * b3 + lb;
    lb = O(1, 0) * s1 + lb;
    lb = O(3, 0) * s3 + lb;
    const v4d lo = la + lb;
    v4d ha = O(4, 1) * b0;
    ha = O(6, 1) * b2 + ha;
    ha = O(8, 1) * b4 + ha;
    ha = O(10, 1) * b6 + ha;
    ha = O(0, 1) * s0 + ha;
    ha = O(2, 1) * s2 + ha;
    v4d hb = O(5, 1) * b1;
    hb = O(7, 1) * b3 + hb;
    hb = O(9, 1) * b5 + hb;
    hb = O(11, 1) * b7 + hb;
    hb = O(1, 1) * s1 + hb;
    hb = O(3, 1) * s3 + hb;
    const v4d hi = ha + hb;
#undef O
#undef N
    r->lo = lo * lo + r->lo;
    r->hi = hi * hi + r->hi;
    r->z1 = next[0];
    r->z2 = next[1];
    r->w1 = next[2];
    r->w2 = next[3];
}

CDSP_INLINE void kw_load(const cdsp_kweighting_channel *c, kw_run_state *r) {
    r->z1 = c->state[0];
    r->z2 = c->state[1];
    r->w1 = c->state[2];
    r->w2 = c->state[3];
    r->lo = ld4(c->lanes);
    r->hi = ld4(c->lanes + 4);
}

CDSP_INLINE void kw_store(const kw_run_state *r, cdsp_kweighting_channel *c) {
    c->state[0] = r->z1;
    c->state[1] = r->z2;
    c->state[2] = r->w1;
    c->state[3] = r->w2;
    __builtin_memcpy(c->lanes, &r->lo, sizeof r->lo);
    __builtin_memcpy(c->lanes + 4, &r->hi, sizeof r->hi);
}

CDSP_DISPATCH_V3_VOID(
    cdsp_kweighting_run,
    (const cdsp_kweighting *k, cdsp_kweighting_channel *channel, size_t filled, const float *x, size_t count),
    (k, channel, filled, x, count)) {
    if (count == 0) return;
    size_t phase = filled % B;
    if (phase > 0) {
        size_t n = B - phase < count ? B - phase : count;
        for (size_t i = 0; i < n; i++) channel->pending[phase + i] = x[i];
        x += n;
        count -= n;
        if (phase + n < B) return;
    }
    kw_run_state r;
    kw_load(channel, &r);
    if (phase > 0) kw_block(k, channel->pending, &r);
    while (count >= B) {
        kw_block(k, x, &r);
        x += B;
        count -= B;
    }
    for (size_t i = 0; i < count; i++) channel->pending[i] = x[i];
    kw_store(&r, channel);
}

CDSP_DISPATCH_V3(
    double,
    cdsp_kweighting_close_step,
    (const cdsp_kweighting *k, cdsp_kweighting_channel *channel, size_t length),
    (k, channel, length)) {
    double *l = channel->lanes;
    double sum = ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
    const double b0 = k->serial[0], b1 = k->serial[1], b2 = k->serial[2], a1 = k->serial[3], a2 = k->serial[4];
    const double c1 = k->serial[5], c2 = k->serial[6];
    double *s = channel->state;
    double z1 = s[0], z2 = s[1], w1 = s[2], w2 = s[3];
    for (size_t i = 0; i < length % B; i++) {
        const double x0 = channel->pending[i];
        const double u0 = b0 * x0 + z1;
        z1 = (b1 * x0 - a1 * u0) + z2;
        z2 = b2 * x0 - a2 * u0;
        const double v0 = u0 + w1;
        w1 = (-2 * u0 - c1 * v0) + w2;
        w2 = u0 - c2 * v0;
        sum += v0 * v0;
    }
    s[0] = z1;
    s[1] = z2;
    s[2] = w1;
    s[3] = w2;
    for (int i = 0; i < 4; i++) {
        if (__builtin_fabs(s[i]) < 1e-30) s[i] = 0;
    }
    for (int i = 0; i < B; i++) l[i] = 0;
    return sum;
}

void cdsp_kweighting_design(
    double b0, double b1, double b2, double a1, double a2, double c1, double c2, cdsp_kweighting *k
) {
    k->serial[0] = b0;
    k->serial[1] = b1;
    k->serial[2] = b2;
    k->serial[3] = a1;
    k->serial[4] = a2;
    k->serial[5] = c1;
    k->serial[6] = c2;
    for (int j = 0; j < CDSP_KW_SOURCES; j++) {
        // The response to source j alone: a unit state value or a unit input sample.
        long double z1 = j == 0, z2 = j == 1, w1 = j == 2, w2 = j == 3;
        long double u[B], v[B];
        for (int i = 0; i < B; i++) {
            const long double x0 = j == 4 + i ? 1 : 0;
            u[i] = (long double)b0 * x0 + z1;
            z1 = (long double)b1 * x0 - (long double)a1 * u[i] + z2;
            z2 = (long double)b2 * x0 - (long double)a2 * u[i];
            v[i] = u[i] + w1;
            w1 = -2 * u[i] - (long double)c1 * v[i] + w2;
            w2 = u[i] - (long double)c2 * v[i];
        }
        for (int i = 0; i < B; i++) k->output[j][i] = (double)v[i];
        k->next[j][0] = (double)z1;
        k->next[j][1] = (double)z2;
        k->next[j][2] = (double)w1;
        k->next[j][3] = (double)w2;
    }
}
