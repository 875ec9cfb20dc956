// Run-time CPU dispatch shared by the kernel files (private to CDSPKernels; not in include/).
//
// x86-64 ELF (Linux): `target_clones` compiles each exported kernel several times and the
// loader's IFUNC resolver binds the best clone for the CPU once per process. "fma" rather than
// "avx2,fma": in clang (and GCC) a comma inside one string separates clones, so "avx2,fma" would
// make an AVX2 clone *without* FMA plus an FMA clone. The FMA feature implies AVX, which is all
// float vector code needs; AVX-512F implies AVX2 and FMA. `CDSP_DISPATCH_V3` adds an
// `arch=x86-64-v3` clone (AVX2 + FMA + BMI…) where clang supports `arch=` in target_clones
// (clang ≥ 21), for kernels whose integer/shuffle work gains from AVX2.
// Under Thread Sanitizer (`swift test --sanitize=thread`) there is no dispatch: the IFUNC
// resolver runs during relocation, before the TSan runtime is initialised, and its instrumented
// entry crashes the process; the default clone's code is used instead.
#pragma once

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CDSP_NO_DISPATCH 1
#endif
#endif
#if !defined(CDSP_NO_DISPATCH) && defined(__x86_64__) && defined(__ELF__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define CDSP_DISPATCH __attribute__((target_clones("avx512f", "fma", "default")))
#if defined(__clang__) && __clang_major__ >= 21
#define CDSP_DISPATCH_V3 __attribute__((target_clones("avx512f", "arch=x86-64-v3", "fma", "default")))
#else
#define CDSP_DISPATCH_V3 CDSP_DISPATCH
#endif
#endif
#endif
#ifndef CDSP_DISPATCH
#define CDSP_DISPATCH
#endif
#ifndef CDSP_DISPATCH_V3
#define CDSP_DISPATCH_V3
#endif

// Vector helpers are always inlined into the dispatched kernels, so wide vectors are never
// passed between differently-targeted functions (an ABI change clang would reject).
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#endif

#define CDSP_INLINE static inline __attribute__((always_inline))
