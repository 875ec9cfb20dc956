// Run-time CPU dispatch shared by the kernel files (private to CDSPKernels; not in include/).
//
// x86-64 ELF (Linux): each exported kernel is declared with one of the four macros below,
//
//     CDSP_DISPATCH_V3_VOID(cdsp_widen_pcm16, (const int16_t *in, float *out, size_t count), (in, out, count)) {
//         widen_pcm16(in, out, count);
//     }
//
// (`CDSP_DISPATCH[_V3](ret, name, params, args)` for a kernel that returns a value), which
// make the braces that follow the body of an always-inlined function `name_body` and compile
// it once per level, each copy a static function with its own target attribute:
//   `name_avx512`  target("avx512f")            AVX-512F (implies AVX2 and FMA)
//   `name_v3`      target("avx2,bmi,bmi2,…")    x86-64-v3: AVX2 + FMA + BMI… (`_V3` kernels only)
//   `name_fma`     target("fma")                FMA, which implies AVX: all float vector code needs
//   `name_sse2`    no attribute                 the x86-64 baseline
// The exported `name` — same name and signature as ever — jumps through a function pointer
// that a constructor fills before `main`. The pointer's initial value is a stub that resolves
// and calls, so a kernel called before the constructors have run (another library's
// constructor, say) still works: the pointer is never null. The level comes from
// cdsp_dispatch_level() (Dispatch.c; include/CDSPDispatch.h): the best the CPU supports by
// `__builtin_cpu_supports`, capped by `CDSP_DISPATCH_LEVEL=sse2|fma|v3|avx512`. A kernel
// without a v3 copy (`CDSP_DISPATCH`) runs its fma copy at level v3. The pointer is read and
// written with relaxed atomics: a plain load on x86-64, and no data race under ThreadSanitizer
// should a stub and a constructor ever meet.
//
// The copies are those the former `target_clones("avx512f", ["arch=x86-64-v3",] "fma",
// "default")` made — the same source, target features, CPU ("x86-64") and tuning ("generic"),
// the same per-file contraction settings — chosen in the same order (avx512f, then x86-64-v3,
// then fma, then SSE2). Compared in the release objects, 121 of the 137 copies are the same
// instructions as the clones; the other 16 (kernels whose body moved from the exported
// function into `name_body`, and the FFT's inverse) differ in register allocation and block
// order only: the floating-point operations are fixed by the source (no -ffast-math;
// contraction decided per expression by the front end), so they give the same bits
// (KernelDispatchTests). What changed is the binding: the clones were bound by an IFUNC
// resolver during relocation, which read `cpuid` itself before any constructor or environment
// could intervene (no way to pin a level) and, instrumented under ThreadSanitizer, ran before
// the TSan runtime existed and crashed (so dispatch was off under TSan). A constructor runs
// after both.
//
// "fma" rather than "avx2,fma" (as in target_clones, where a comma inside one string separated
// clones); "x86-64-v3" as its feature list rather than `arch=x86-64-v3`, which would also tune
// for that CPU model (other instruction choices and schedules than the clone had). `_V3` is
// for kernels whose integer/shuffle work gains from AVX2 (a one-instruction lane broadcast,
// for one).
//
// Elsewhere (macOS, arm64, compilers without the `target` attribute), and with
// `-DCDSP_NO_DISPATCH`, each macro is just the exported function's head: one plain compilation
// of each kernel, and cdsp_dispatch_level() returns CDSP_LEVEL_NONE (−1).
#pragma once

#include "CDSPDispatch.h"

#if !defined(CDSP_NO_DISPATCH) && defined(__x86_64__) && defined(__ELF__) && defined(__has_attribute)
#if __has_attribute(target) && __has_attribute(constructor)
#define CDSP_DISPATCH_ON 1
#endif
#endif

#define CDSP_INLINE static inline __attribute__((always_inline))

#if CDSP_DISPATCH_ON

// One copy: `name_suffix`, with `attrs`, calling the always-inlined body.
#define CDSP_COPY_(attrs, suffix, ret, ret_kw, name, params, args) \
    attrs static ret name##suffix params { ret_kw name##_body args; }

// x86-64-v3 as its feature list: exactly the features, CPU ("x86-64") and tuning ("generic")
// the former `arch=x86-64-v3` clone had. (`target("arch=x86-64-v3")` would also tune for that
// CPU model: other instruction choices and schedules.)
#define CDSP_V3_COPY_(ret, ret_kw, name, params, args)                                                     \
    CDSP_COPY_(__attribute__((target("avx2,bmi,bmi2,cx16,f16c,fma,lzcnt,movbe,sahf,xsave"))), _v3, ret, \
               ret_kw, name, params, args)
#define CDSP_V3_FN_(name) name##_v3
#define CDSP_NO_V3_COPY_(ret, ret_kw, name, params, args)
#define CDSP_FMA_FN_(name) name##_fma

// The body's prototype; the copies; the level's copy; the pointer (initially the resolving
// stub) and its constructor; the exported function; and the body's head, whose braces follow
// the macro.
#define CDSP_KERNEL_(v3_copy, v3_fn, ret, ret_kw, name, params, args)                                    \
    CDSP_INLINE ret name##_body params;                                                                 \
    typedef ret name##_fn params;                                                                       \
    CDSP_COPY_(__attribute__((target("avx512f"))), _avx512, ret, ret_kw, name, params, args)            \
    v3_copy(ret, ret_kw, name, params, args)                                                            \
    CDSP_COPY_(__attribute__((target("fma"))), _fma, ret, ret_kw, name, params, args)                   \
    CDSP_COPY_(, _sse2, ret, ret_kw, name, params, args)                                                \
    static name##_fn *name##_select(void) {                                                             \
        switch (cdsp_dispatch_level()) {                                                                \
        case CDSP_LEVEL_AVX512: return name##_avx512;                                                   \
        case CDSP_LEVEL_V3: return v3_fn(name);                                                         \
        case CDSP_LEVEL_FMA: return name##_fma;                                                         \
        default: return name##_sse2;                                                                    \
        }                                                                                               \
    }                                                                                                   \
    static ret name##_resolve params;                                                                   \
    static name##_fn *name##_entry = name##_resolve;                                                    \
    static ret name##_resolve params {                                                                  \
        name##_fn *chosen = name##_select();                                                            \
        __atomic_store_n(&name##_entry, chosen, __ATOMIC_RELAXED);                                      \
        ret_kw chosen args;                                                                             \
    }                                                                                                   \
    __attribute__((constructor)) static void name##_init(void) {                                        \
        __atomic_store_n(&name##_entry, name##_select(), __ATOMIC_RELAXED);                             \
    }                                                                                                   \
    ret name params { ret_kw __atomic_load_n(&name##_entry, __ATOMIC_RELAXED) args; }                   \
    CDSP_INLINE ret name##_body params

#define CDSP_DISPATCH(ret, name, params, args) CDSP_KERNEL_(CDSP_NO_V3_COPY_, CDSP_FMA_FN_, ret, return, name, params, args)
#define CDSP_DISPATCH_VOID(name, params, args) CDSP_KERNEL_(CDSP_NO_V3_COPY_, CDSP_FMA_FN_, void, , name, params, args)
#define CDSP_DISPATCH_V3(ret, name, params, args) CDSP_KERNEL_(CDSP_V3_COPY_, CDSP_V3_FN_, ret, return, name, params, args)
#define CDSP_DISPATCH_V3_VOID(name, params, args) CDSP_KERNEL_(CDSP_V3_COPY_, CDSP_V3_FN_, void, , name, params, args)

#else

#define CDSP_DISPATCH(ret, name, params, args) ret name params
#define CDSP_DISPATCH_VOID(name, params, args) void name params
#define CDSP_DISPATCH_V3(ret, name, params, args) ret name params
#define CDSP_DISPATCH_V3_VOID(name, params, args) void name params

#endif

// Vector helpers are always inlined into the dispatched copies, so wide vectors are never
// passed between differently-targeted functions (an ABI change clang would reject).
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#endif
