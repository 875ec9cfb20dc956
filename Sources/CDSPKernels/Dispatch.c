// The dispatch level (include/CDSPDispatch.h); how the kernels use it is in Dispatch.h.
#include "Dispatch.h"

#include <stdlib.h>
#include <string.h>

const char *cdsp_dispatch_level_name(int level) {
    switch (level) {
    case CDSP_LEVEL_SSE2: return "sse2";
    case CDSP_LEVEL_FMA: return "fma";
    case CDSP_LEVEL_V3: return "v3";
    case CDSP_LEVEL_AVX512: return "avx512";
    default: return "none";
    }
}

#if CDSP_DISPATCH_ON

/// Whether the CPU (and the OS, for the AVX register state) supports a level; the same tests,
/// in the same order of preference, as the former target_clones resolver.
static int supports(int level) {
    switch (level) {
    case CDSP_LEVEL_AVX512: return __builtin_cpu_supports("avx512f") != 0;
#if defined(__clang__) && __clang_major__ >= 18
    case CDSP_LEVEL_V3: return __builtin_cpu_supports("x86-64-v3") != 0;
#else
    case CDSP_LEVEL_V3:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi")
            && __builtin_cpu_supports("bmi2");
#endif
    case CDSP_LEVEL_FMA: return __builtin_cpu_supports("fma") != 0;
    default: return 1;
    }
}

int cdsp_dispatch_supported_level(void) {
    __builtin_cpu_init();
    int level = CDSP_LEVEL_AVX512;
    while (level > CDSP_LEVEL_SSE2 && !supports(level)) level--;
    return level;
}

/// The cap `CDSP_DISPATCH_LEVEL` asks for; the highest level when it is unset, empty or not a
/// level's name.
static int requested_level(void) {
    const char *value = getenv("CDSP_DISPATCH_LEVEL");
    if (value) {
        for (int level = CDSP_LEVEL_SSE2; level <= CDSP_LEVEL_AVX512; level++) {
            if (strcmp(value, cdsp_dispatch_level_name(level)) == 0) return level;
        }
    }
    return CDSP_LEVEL_AVX512;
}

/// Computed by the first call (a kernel's constructor, before `main`); a later first call from
/// two threads at once computes the same value twice.
static int chosen_level = CDSP_LEVEL_NONE;

int cdsp_dispatch_level(void) {
    int level = __atomic_load_n(&chosen_level, __ATOMIC_RELAXED);
    if (level != CDSP_LEVEL_NONE) return level;
    level = requested_level();
    __builtin_cpu_init();
    while (level > CDSP_LEVEL_SSE2 && !supports(level)) level--;
    __atomic_store_n(&chosen_level, level, __ATOMIC_RELAXED);
    return level;
}

#else

int cdsp_dispatch_level(void) { return CDSP_LEVEL_NONE; }

int cdsp_dispatch_supported_level(void) { return CDSP_LEVEL_NONE; }

#endif
