// Allocation counting for dspbench.
//
// On Linux with glibc the executable defines the malloc family. The dynamic linker binds every
// call in the process — libc's own internal calls, the Swift runtime, Foundation, FFTW, the
// peers — to these definitions (glibc documents replacing malloc this way: "Replacing malloc"
// in its manual). Each one forwards to glibc's exported __libc_* entry point, so the allocator
// is unchanged; when the calling thread has counting switched on, it also counts the call.
// The state is thread-local (initial-exec TLS of the executable: reading it never allocates),
// so other threads' allocations are never attributed to the kernel under test.
//
// This is the same technique package-benchmark uses to count mallocs (it interposes jemalloc);
// Benchmarks/ remains the authoritative proof of zero allocation in CI.
#define _GNU_SOURCE
#include "CBenchSupport.h"
#include <errno.h>
#include <stdlib.h>

// Under AddressSanitizer or ThreadSanitizer the sanitizer owns the malloc family: memory from
// __libc_malloc freed through the sanitizer's free (or the reverse) crashes the process, so a
// sanitized build does not interpose and reports counting as unsupported.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define CBS_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CBS_SANITIZED 1
#endif

#if defined(__linux__) && defined(__GLIBC__) && !defined(CBS_SANITIZED)

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

static __thread int counting;
static __thread uint64_t allocation_count;
static __thread uint64_t requested_bytes;
static __thread uint64_t free_count;

#define COUNT(bytes)                      \
    do {                                  \
        if (counting) {                   \
            allocation_count += 1;        \
            requested_bytes += (bytes);   \
        }                                 \
    } while (0)

#define EXPORT __attribute__((visibility("default"), used))

EXPORT void *malloc(size_t size) {
    COUNT(size);
    return __libc_malloc(size);
}

EXPORT void *calloc(size_t count, size_t size) {
    COUNT(count * size);
    return __libc_calloc(count, size);
}

EXPORT void *realloc(void *pointer, size_t size) {
    COUNT(size);
    return __libc_realloc(pointer, size);
}

EXPORT void *reallocarray(void *pointer, size_t count, size_t size) {
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    COUNT(bytes);
    return __libc_realloc(pointer, bytes);
}

EXPORT void free(void *pointer) {
    if (counting && pointer) free_count += 1;
    __libc_free(pointer);
}

EXPORT void *memalign(size_t alignment, size_t size) {
    COUNT(size);
    return __libc_memalign(alignment, size);
}

EXPORT void *aligned_alloc(size_t alignment, size_t size) {
    COUNT(size);
    return __libc_memalign(alignment, size);
}

EXPORT int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment % sizeof(void *) != 0) return EINVAL;
    COUNT(size);
    void *pointer = __libc_memalign(alignment, size);
    if (!pointer) return ENOMEM;
    *result = pointer;
    return 0;
}

EXPORT void *valloc(size_t size) {
    COUNT(size);
    return __libc_valloc(size);
}

EXPORT void *pvalloc(size_t size) {
    COUNT(size);
    return __libc_pvalloc(size);
}

int cbs_allocation_counting_supported(void) { return 1; }

void cbs_allocation_counting_begin(void) {
    allocation_count = 0;
    requested_bytes = 0;
    free_count = 0;
    counting = 1;
}

cbs_allocation_counts cbs_allocation_counting_end(void) {
    counting = 0;
    cbs_allocation_counts counts = { allocation_count, requested_bytes, free_count };
    return counts;
}

#else

int cbs_allocation_counting_supported(void) { return 0; }

void cbs_allocation_counting_begin(void) {}

cbs_allocation_counts cbs_allocation_counting_end(void) {
    cbs_allocation_counts counts = { 0, 0, 0 };
    return counts;
}

#endif
