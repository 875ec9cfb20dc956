// Planning for the built-in real FFT (include/CDSPFFT.h): the factorisation of the complex
// transform into Stockham stages and the twiddle tables. Runs once per size, at construction;
// the transforms are in FFT.c.
#include "CDSPFFT.h"

#include <math.h>

/// `e^{−2πi·e/n}` in double, the angle reduced to the first turn in integers first so that
/// large exponents lose nothing, then rounded once to float.
static void root(size_t e, size_t n, float *re, float *im) {
    e %= n;
    double angle = 2.0 * 3.14159265358979323846 * (double)e / (double)n;
    *re = (float)cos(angle);
    *im = (float)-sin(angle);
}

/// The smallest prime factor of `n` ≥ 2.
static size_t smallest_factor(size_t n) {
    for (size_t f = 2; f * f <= n; f++)
        if (n % f == 0) return f;
    return n;
}

int cdsp_fft_plan_init(cdsp_fft_plan *plan, size_t size) {
    if (size < 2 || size > CDSP_FFT_MAX_SIZE || size % 2 != 0) return -1;
    size_t half = size / 2;
    *plan = (cdsp_fft_plan){0};
    plan->size = size;
    plan->half = half;
    plan->lanes = half % 64 == 0 ? 8 : 1;
    plan->rows = half / plan->lanes;

    // Radix 4 while it divides (a single 2 left over goes last), then 2, 3, 5 and the larger
    // primes in ascending order.
    size_t rest = plan->rows, count = 0;
    size_t radices[CDSP_FFT_MAX_STAGES];
    while (rest % 4 == 0) { radices[count++] = 4; rest /= 4; }
    while (rest > 1) {
        size_t p = smallest_factor(rest);
        if (p > CDSP_FFT_MAX_PRIME || count == CDSP_FFT_MAX_STAGES) return -1;
        radices[count++] = p;
        rest /= p;
    }

    size_t offset = 0, span = 1;
    for (size_t s = 0; s < count; s++) {
        size_t r = radices[s];
        plan->radix[s] = r;
        plan->span[s] = span;
        plan->twiddles[s] = offset;
        if (span > 1) offset += 2 * (r - 1) * span;
        plan->roots[s] = offset;
        if (r > 5) offset += 2 * r;
        span *= r;
    }
    plan->stage_count = count;
    plan->lane_twiddles = offset;
    if (plan->lanes == 8) offset += 16 * plan->rows;
    plan->real_twiddles = offset;
    offset += 2 * (half / 2 + 1);
    plan->table_count = offset;
    plan->scratch_count = 4 * half;
    return 0;
}

void cdsp_fft_plan_tables(const cdsp_fft_plan *plan, float *table) {
    for (size_t s = 0; s < plan->stage_count; s++) {
        size_t r = plan->radix[s], span = plan->span[s];
        if (span > 1) {
            float *w = table + plan->twiddles[s];
            for (size_t k = 0; k < span; k++)
                for (size_t j = 1; j < r; j++)
                    root(k * j, span * r, &w[2 * (r - 1) * k + 2 * (j - 1)], &w[2 * (r - 1) * k + 2 * (j - 1) + 1]);
        }
        if (r > 5) {
            // cos(2πj/r) and sin(2πj/r): W_r^j = cos − i·sin.
            float *c = table + plan->roots[s];
            for (size_t j = 0; j < r; j++) {
                float re, im;
                root(j, r, &re, &im);
                c[j] = re;
                c[r + j] = -im;
            }
        }
    }
    if (plan->lanes == 8) {
        float *w = table + plan->lane_twiddles;
        for (size_t block = 0; block < plan->rows / 8; block++)
            for (size_t n2 = 0; n2 < 8; n2++)
                for (size_t lane = 0; lane < 8; lane++) {
                    float *at = w + 128 * block + 16 * n2 + lane;
                    root(n2 * (8 * block + lane), plan->half, &at[0], &at[8]);
                }
    }
    size_t quarter = plan->half / 2;
    float *w = table + plan->real_twiddles;
    for (size_t k = 0; k <= quarter; k++) root(k, plan->size, &w[k], &w[quarter + 1 + k]);
}
