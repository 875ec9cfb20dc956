// The background-noise estimator's per-hop band sums and its histograms' counting and readings. See
// include/CDSPNoiseLevel.h for the contract. Contraction off for the whole file: every
// expression is the IEEE single-precision operations of the Swift it replaced, in its order
// (`Swift.min(a, b)` is `b < a ? b : a`, `Swift.max(a, b)` is `b >= a ? b : a`).
#include "CDSPNoiseLevel.h"
#include "Dispatch.h"

#include <float.h>
#include <math.h>

#pragma clang fp contract(off)

static inline float min_f(float a, float b) { return b < a ? b : a; }
static inline float max_f(float a, float b) { return b >= a ? b : a; }

/// The running total of the bins below bin `i`: 0 below the occupied bins, the total above.
static inline float below(const float *cumulative, int32_t low, int32_t high, int32_t i) {
    int32_t j = i < low ? low : i;
    return cumulative[j > high + 1 ? high + 1 : j];
}

/// The running totals over the occupied bins: `cumulative[i + 1]` is the weight of bins
/// `low ... i`, `cumulative[low]` 0.
static void accumulate(const float *histogram, int32_t low, int32_t high, float *cumulative) {
    float running = 0;
    cumulative[low] = 0;
    for (int32_t i = low; i <= high; i++) {
        running += histogram[i];
        cumulative[i + 1] = running;
    }
}

/// The quantile over a built cumulative row: the first bin whose running total reaches
/// `target` (target 0: the first occupied bin), interpolated within it. The search starts at
/// bin `*hint` (within `low ... high`; a reading's successive quantiles lie a few bins apart) and
/// steps down or up from there; the running totals never decrease, so it finds the bin a
/// binary search of the whole span finds. Leaves the bin found in `*hint`.
static float quantile(const float *histogram, int32_t low, int32_t high, float target, const float *cumulative,
                      int32_t *hint, const cdsp_noise_median_params *p) {
    int32_t bins = p->bins;
    if (!(below(cumulative, low, high, bins) >= target)) return p->floor_db + (float)bins;
    int32_t i = *hint;
    if (cumulative[i + 1] >= target) {
        while (i > low && cumulative[i] >= target) i -= 1;
    } else {
        do { i += 1; } while (!(cumulative[i + 1] >= target));  // ends by bin high: its total reaches target
    }
    *hint = i;
    while (histogram[i] <= 0 && i + 1 < bins) i += 1;
    float count = histogram[i];
    float fraction = (target - below(cumulative, low, high, i)) / max_f(count, FLT_MIN);
    return p->floor_db + (float)i + max_f(0, min_f(1, fraction));
}

/// The weight at or above `level`, the bin holding it counted in proportion.
static float weight_at_or_above(const float *histogram, int32_t low, int32_t high, float level, const float *cumulative,
                                const cdsp_noise_median_params *p) {
    float position = max_f(0, level - p->floor_db);
    int32_t bins = p->bins;
    if (!(position < (float)bins)) return 0;  // also keeps the conversion below in range
    int32_t first = (int32_t)position;  // its floor: position ≥ 0
    return histogram[first] * (1 - (position - (float)first))
        + (below(cumulative, low, high, bins) - below(cumulative, low, high, first + 1));
}

float cdsp_noise_quantile(const float *histogram, int32_t low, int32_t high, float target, float *cumulative,
                          const cdsp_noise_median_params *params) {
    accumulate(histogram, low, high, cumulative);
    int32_t hint = low + (high - low) / 2;
    return quantile(histogram, low, high, target, cumulative, &hint, params);
}

cdsp_noise_reading cdsp_noise_median(const float *histogram, int32_t low, int32_t high, float total,
                                     float chi_square_spread, int32_t steady_only, float *cumulative,
                                     const cdsp_noise_median_params *p) {
    cdsp_noise_reading r = {p->floor_db, 0, 0, 0, 0};
    if (low > high) return r;
    accumulate(histogram, low, high, cumulative);
    int32_t hint = low + (high - low) / 2;
    float level = quantile(histogram, low, high, total * 0.1f, cumulative, &hint, p);
    float share = 0.2f;
    float steady = sqrtf(chi_square_spread);
    int fluctuating = 0;
    for (int32_t round = 0; round < p->rounds; round++) {
        float margin = p->margin_db;
        if (round >= p->steady_rounds && !steady_only && share >= p->fluctuation_share) {
            float lower = quantile(histogram, low, high, total * share * 0.1587f, cumulative, &hint, p);
            float spread = min_f(p->maximum_fluctuation_db, level - lower);
            if (round == p->steady_rounds) {
                fluctuating = lower > p->floor_db + 1 && spread >= steady + p->fluctuation_threshold_db;
            }
            if (fluctuating) margin = min_f(p->maximum_margin_db, max_f(margin, 2 * spread));
        }
        if (round >= p->steady_rounds && (steady_only || !fluctuating)) break;
        float above = weight_at_or_above(histogram, low, high, level + margin, cumulative, p);
        share = max_f(0.05f, 1 - above / total);
        level = quantile(histogram, low, high, total * share * 0.5f, cumulative, &hint, p);
    }
    r.level = level;
    r.share = share;
    if (!fluctuating) return r;
    r.fluctuating = 1;
    float lower = quantile(histogram, low, high, total * share * 0.1587f, cumulative, &hint, p);
    if (!(lower > p->floor_db + 1)) return r;
    float spread = min_f(p->maximum_fluctuation_db, level - lower);
    r.excess = max_f(0, spread * spread - chi_square_spread);
    r.has_excess = 1;
    return r;
}

/// `sum += q[i]` for i = 0 … 14 (15 bins) or 0 … 15 (16 bins): the default layout's bands (32
/// of 15–16 bins), straight-line; the order of the additions is the loop's.
#define ADD4(i) sum += q[i]; sum += q[(i) + 1]; sum += q[(i) + 2]; sum += q[(i) + 3];

int32_t cdsp_noise_band_sums(const float *power, intptr_t count, const intptr_t *starts, size_t bands, float *sums) {
    for (size_t b = 0; b < bands; b++) {
        intptr_t start = starts[b], end = starts[b + 1] < count ? starts[b + 1] : count;
        const float *q = power + start;
        float sum = 0;
        if (end - start == 15 || end - start == 16) {
            ADD4(0) ADD4(4) ADD4(8) sum += q[12]; sum += q[13]; sum += q[14];
            if (end - start == 16) sum += q[15];
        } else {
            for (intptr_t k = start; k < end; k++) sum += power[k];
        }
        sums[b] = sum;
    }
    // Finite: an exponent field below all ones (a loop over the bits, so it runs a vector at a time).
    uint32_t bad = 0;
    for (size_t b = 0; b < bands; b++) {
        uint32_t bits;
        __builtin_memcpy(&bits, sums + b, 4);
        bad |= (bits & 0x7fffffffu) >= 0x7f800000u;
    }
    return bad ? 0 : 1;
}

/// The most bands a count handles in one pass (more are counted in passes of this many).
#define COUNT_CHUNK 64

void cdsp_noise_count(float *histograms, int32_t *occupied, const float *levels, size_t bands, size_t ring_hops,
                      size_t first, size_t hops, float weight, float growth, const cdsp_noise_median_params *p) {
    const int32_t top = p->bins - 1;
    const float floor_db = p->floor_db;
    for (size_t start = 0; start < bands; start += COUNT_CHUNK) {
        size_t n = bands - start < COUNT_CHUNK ? bands - start : COUNT_CHUNK;
        int32_t bin[COUNT_CHUNK], low[COUNT_CHUNK], high[COUNT_CHUNK];
        for (size_t b = 0; b < n; b++) {
            low[b] = occupied[2 * (start + b)];
            high[b] = occupied[2 * (start + b) + 1];
        }
        size_t h = first;
        float w = weight;
        for (size_t k = 0; k < hops; k++) {
            const float *row = levels + h * bands + start;
            // Levels are clamped to floor_db … floor_db + bins: the offset is ≥ 0 and
            // truncating it gives its floor, the bin. (A loop of its own, so it runs a vector
            // of bands at a time.)
            for (size_t b = 0; b < n; b++) {
                int32_t i = (int32_t)(row[b] - floor_db);
                i = i > top ? top : i;
                bin[b] = i;
                low[b] = i < low[b] ? i : low[b];
                high[b] = i > high[b] ? i : high[b];
            }
            float *counts = histograms + start * (size_t)p->bins;
            for (size_t b = 0; b < n; b++) {
                counts[bin[b]] += w;
                counts += p->bins;
            }
            w *= growth;
            h = h + 1 == ring_hops ? 0 : h + 1;
        }
        for (size_t b = 0; b < n; b++) {
            occupied[2 * (start + b)] = low[b];
            occupied[2 * (start + b) + 1] = high[b];
        }
    }
}

// The dispatched kernels here (Dispatch.h): integer products, so every level gives the same
// sum; AVX2 takes 16 bytes a step where the baseline takes 8.
CDSP_DISPATCH_V3(uint32_t, cdsp_loop_dot, (const uint8_t *a, const uint8_t *b, int32_t n), (a, b, n)) {
    uint32_t sum = 0;
    for (int32_t i = 0; i < n; i++) sum += (uint32_t)a[i] * (uint32_t)b[i];
    return sum;
}

// The masked sums of LoopedBackground's correlations under a foreground: the pairs whose two
// hops are both clear (mask bytes 1; 0 leaves the pair out). Integer arithmetic, so every level
// gives the same sums.
CDSP_DISPATCH_V3_VOID(cdsp_loop_masked_sums, (const uint8_t *a, const uint8_t *b, const uint8_t *mask_a,
                                              const uint8_t *mask_b, int32_t n, uint32_t *sums),
                      (a, b, mask_a, mask_b, n, sums)) {
    uint32_t pairs = 0, sum_a = 0, sum_b = 0, squares_a = 0, squares_b = 0, products = 0;
    for (int32_t i = 0; i < n; i++) {
        uint32_t w = (uint32_t)(mask_a[i] & mask_b[i]);
        uint32_t x = (uint32_t)a[i] * w, y = (uint32_t)b[i] * w;
        pairs += w;
        sum_a += x;
        sum_b += y;
        squares_a += x * x;
        squares_b += y * y;
        products += x * y;
    }
    sums[0] = pairs;
    sums[1] = sum_a;
    sums[2] = sum_b;
    sums[3] = squares_a;
    sums[4] = squares_b;
    sums[5] = products;
}
