// Which compilation of the C kernels this process runs (Dispatch.c; the mechanism is described
// in Dispatch.h).
//
// On x86-64 Linux every dispatched kernel is compiled four times — AVX-512F, x86-64-v3
// (AVX2 + FMA), FMA (AVX) and baseline SSE2 — and one level is chosen per process, before
// `main`: the best the CPU supports, or, when the environment variable
// `CDSP_DISPATCH_LEVEL` is `sse2`, `fma`, `v3` or `avx512`, the best the CPU supports at or
// below that level (a level above the CPU's is never chosen). Any other value is ignored: the
// best level runs (a typo never slows a production run; the kernel tests fail on it). The
// variable is read once, at start-up; changing it later has no effect.
//
//     CDSP_DISPATCH_LEVEL=sse2 swift test --filter Kernel    # every kernel on its SSE2 copy
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/// Dispatch levels, in increasing order. `CDSP_LEVEL_NONE`: this build has no run-time
/// dispatch (not x86-64 ELF, or built with `-DCDSP_NO_DISPATCH`): each kernel is compiled once,
/// for the build's target.
enum {
    CDSP_LEVEL_NONE = -1,
    CDSP_LEVEL_SSE2 = 0,
    CDSP_LEVEL_FMA = 1,
    CDSP_LEVEL_V3 = 2,
    CDSP_LEVEL_AVX512 = 3,
};

/// The level every dispatched kernel runs at in this process: the best the CPU supports,
/// capped by `CDSP_DISPATCH_LEVEL`; `CDSP_LEVEL_NONE` without dispatch. Fixed at start-up.
int cdsp_dispatch_level(void);

/// The best level this CPU supports (`__builtin_cpu_supports`: "avx512f", "x86-64-v3",
/// "fma"), whatever `CDSP_DISPATCH_LEVEL` says; `CDSP_LEVEL_NONE` without dispatch.
int cdsp_dispatch_supported_level(void);

/// A level's name as `CDSP_DISPATCH_LEVEL` spells it: "sse2", "fma", "v3", "avx512"; "none"
/// for `CDSP_LEVEL_NONE` and any other number. A static string.
const char *cdsp_dispatch_level_name(int level);

#ifdef __cplusplus
}
#endif
