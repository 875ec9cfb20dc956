// Planning for the built-in real FFT (include/CDSPFFT.h): the factorisation of the complex
// transform into Stockham stages, Bluestein's set-up where a prime factor is too large, and the
// twiddle tables. Runs once per size, at construction; the transforms are in FFT.c.
#include "CDSPFFT.h"

#include <math.h>
#include <stdlib.h>

/// `e^{−2πi·e/n}` in double, the exponent reduced modulo `n` in integers first (so large
/// exponents lose nothing) and the quarter turns exact, then rounded once to float.
static void root(size_t e, size_t n, float *re, float *im) {
    e %= n;
    if ((4 * e) % n == 0) {
        static const float quarter[4][2] = {{1, 0}, {0, -1}, {-1, 0}, {0, 1}};
        *re = quarter[4 * e / n][0];
        *im = quarter[4 * e / n][1];
        return;
    }
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

/// The largest prime factor of `n` ≥ 1 (1 for 1).
static size_t largest_factor(size_t n) {
    size_t largest = 1;
    while (n > 1) {
        size_t p = smallest_factor(n);
        largest = p;
        n /= p;
    }
    return largest;
}

/// Plans the complex transform of `points` (no prime factor above CDSP_FFT_MAX_RADIX), placing
/// its tables from `*offset` on and advancing it. Radix 4 while it divides (a single 2 left over
/// comes next), then 2, 3, 5 and the larger primes in ascending order.
static void complex_init(cdsp_fft_complex *c, size_t points, size_t *offset) {
    *c = (cdsp_fft_complex){0};
    c->points = points;
    c->lanes = points % 8 == 0 && points >= 64 ? 8 : 1;
    c->rows = points / c->lanes;
    size_t rest = c->rows, count = 0, span = 1;
    while (rest > 1) {
        size_t r = rest % 4 == 0 ? 4 : smallest_factor(rest);
        c->radix[count] = r;
        c->span[count] = span;
        c->twiddles[count] = *offset;
        if (span > 1) *offset += 2 * (r - 1) * span;
        c->roots[count] = *offset;
        if (r > 5) *offset += 2 * r;
        span *= r;
        rest /= r;
        count++;
    }
    c->stage_count = count;
    c->lane_twiddles = *offset;
    if (c->lanes == 8) *offset += 16 * c->rows;
}

static void complex_tables(const cdsp_fft_complex *c, float *table) {
    for (size_t s = 0; s < c->stage_count; s++) {
        size_t r = c->radix[s], span = c->span[s];
        if (span > 1) {
            float *w = table + c->twiddles[s];
            for (size_t k = 0; k < span; k++)
                for (size_t j = 1; j < r; j++) {
                    float *at = w + 2 * (r - 1) * k + 2 * (j - 1);
                    root(k * j, span * r, &at[0], &at[1]);
                }
        }
        if (r > 5) {
            // cos(2πj/r) and sin(2πj/r): W_r^j = cos − i·sin.
            float *roots = table + c->roots[s];
            for (size_t j = 0; j < r; j++) {
                float re, im;
                root(j, r, &re, &im);
                roots[j] = re;
                roots[r + j] = -im;
            }
        }
    }
    if (c->lanes == 8) {
        float *w = table + c->lane_twiddles;
        size_t p = c->rows;
        for (size_t n2 = 0; n2 < 8; n2++)
            for (size_t k1 = 0; k1 < p; k1++) root(n2 * k1, c->points, &w[n2 * p + k1], &w[8 * p + n2 * p + k1]);
    }
}

int cdsp_fft_plan_init(cdsp_fft_plan *plan, size_t size) {
    if (size < 2 || size > CDSP_FFT_MAX_SIZE || size % 2 != 0) return -1;
    size_t half = size / 2, offset = 0;
    *plan = (cdsp_fft_plan){0};
    plan->size = size;
    plan->half = half;
    size_t buffer = half;
    if (largest_factor(half) <= CDSP_FFT_MAX_RADIX) {
        complex_init(&plan->transform, half, &offset);
    } else {
        size_t l = 1;
        while (l < 2 * half - 1) l *= 2;
        complex_init(&plan->transform, l, &offset);
        plan->bluestein = l;
        plan->chirp = offset;
        offset += 2 * half;
        plan->chirp_spectrum = offset;
        offset += 2 * l;
        buffer = l;
    }
    plan->real_twiddles = offset;
    offset += 2 * (half / 2 + 1);
    plan->table_count = offset;
    plan->scratch_count = 4 * buffer;
    return 0;
}

/// The DFT of `n` (a power of two) complex doubles, in place, interleaved: iterative radix-2
/// with bit reversal, its twiddles from `cos`/`sin` of exact angles (`w` holds n/2 of them).
static void double_fft(double *x, double *w, size_t n) {
    for (size_t k = 0; k < n / 2; k++) {
        double angle = 2.0 * 3.14159265358979323846 * (double)k / (double)n;
        w[2 * k] = cos(angle);
        w[2 * k + 1] = -sin(angle);
    }
    for (size_t i = 1, j = 0; i < n; i++) {
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j |= bit;
        if (i < j) {
            double tr = x[2 * i], ti = x[2 * i + 1];
            x[2 * i] = x[2 * j];
            x[2 * i + 1] = x[2 * j + 1];
            x[2 * j] = tr;
            x[2 * j + 1] = ti;
        }
    }
    for (size_t len = 2; len <= n; len *= 2)
        for (size_t start = 0; start < n; start += len)
            for (size_t k = 0; k < len / 2; k++) {
                double wr = w[2 * k * (n / len)], wi = w[2 * k * (n / len) + 1];
                double *a = x + 2 * (start + k), *b = x + 2 * (start + k + len / 2);
                double br = b[0] * wr - b[1] * wi, bi = b[0] * wi + b[1] * wr;
                b[0] = a[0] - br;
                b[1] = a[1] - bi;
                a[0] += br;
                a[1] += bi;
            }
}

int cdsp_fft_plan_tables(const cdsp_fft_plan *plan, float *table) {
    complex_tables(&plan->transform, table);
    size_t m = plan->half;
    if (plan->bluestein) {
        size_t l = plan->bluestein;
        float *chirp = table + plan->chirp;
        for (size_t t = 0; t < m; t++) root((t * t) % (2 * m), 2 * m, &chirp[t], &chirp[m + t]);
        // b_j = conj w_{|j|} for |j| < M, circularly; its DFT over L in double, divided by L.
        double *x = calloc(3 * l, sizeof(double));
        if (!x) return -1;
        for (size_t j = 0; j < m; j++) {
            size_t e = (j * j) % (2 * m);
            double angle = 3.14159265358979323846 * (double)e / (double)m;
            double re = cos(angle), im = sin(angle);   // conj e^{−iπj²/M}
            x[2 * j] = re;
            x[2 * j + 1] = im;
            if (j > 0) {
                x[2 * (l - j)] = re;
                x[2 * (l - j) + 1] = im;
            }
        }
        double_fft(x, x + 2 * l, l);
        float *spectrum = table + plan->chirp_spectrum;
        for (size_t k = 0; k < l; k++) {
            spectrum[k] = (float)(x[2 * k] / (double)l);
            spectrum[l + k] = (float)(x[2 * k + 1] / (double)l);
        }
        free(x);
    }
    size_t quarter = m / 2;
    float *w = table + plan->real_twiddles;
    for (size_t k = 0; k <= quarter; k++) root(k, plan->size, &w[k], &w[quarter + 1 + k]);
    return 0;
}
