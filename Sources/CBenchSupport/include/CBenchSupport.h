// Measurement support for dspbench: clocks, optimizer barriers and an allocation counter (which
// interposes the malloc family, so only dspbench links it: package-benchmark has its own).
// The C reference kernels and peer bindings are in CBenchReferences. Nothing here is linked
// by the library.
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: - Clocks

/// CLOCK_MONOTONIC, in nanoseconds.
uint64_t cbs_monotonic_ns(void);
/// CLOCK_THREAD_CPUTIME_ID: CPU time consumed by the calling thread, in nanoseconds.
uint64_t cbs_thread_cpu_ns(void);

/// What the kernel counted for the calling thread (getrusage(RUSAGE_THREAD)), and the CPU it is
/// on (sched_getcpu): for attributing a slow push (pipeline --streams --slowest).
typedef struct {
    /// Page faults served without I/O (first touch of a page, copy-on-write, a reclaimed page
    /// still in memory).
    uint64_t minor_faults;
    /// Page faults that needed I/O.
    uint64_t major_faults;
    /// Context switches because the thread blocked.
    uint64_t voluntary_switches;
    /// Context switches because the scheduler preempted the thread.
    uint64_t involuntary_switches;
    /// The CPU the thread runs on, -1 if unknown.
    int32_t cpu;
} cbs_thread_usage;

/// The calling thread's fault and context-switch counts and its CPU now.
cbs_thread_usage cbs_thread_usage_now(void);

/// Interrupts handled so far on `cpu`: the sum of its column in /proc/interrupts (every IRQ
/// line, the local timer, IPIs) and in /proc/softirqs; 0 when unreadable. Reads two files: tens
/// of microseconds, for diagnostics only.
uint64_t cbs_cpu_interrupts(int32_t cpu);

/// The system's steal time so far (the `steal` column of /proc/stat's first line), in
/// USER_HZ ticks; 0 when unreadable.
uint64_t cbs_system_steal_ticks(void);

/// Keeps a value alive for the optimizer (an opaque call into another translation unit).
void cbs_black_hole_f64(double value);
/// Keeps a pointer's pointee alive for the optimizer.
void cbs_black_hole_ptr(const void *pointer);

// MARK: - Allocation counter

/// Counts of heap allocation calls made by one thread between begin and end.
typedef struct {
    /// Calls that allocate: malloc, calloc, realloc, reallocarray, memalign, posix_memalign,
    /// aligned_alloc, valloc, pvalloc (a realloc counts as one allocation).
    uint64_t allocations;
    /// Bytes requested by those calls (not the allocator's rounded sizes).
    uint64_t requested_bytes;
    /// free() calls with a non-NULL pointer.
    uint64_t frees;
} cbs_allocation_counts;

/// 1 when this build counts allocations (Linux with glibc: the executable interposes the malloc
/// family and forwards to glibc's __libc_* entry points), 0 otherwise.
int cbs_allocation_counting_supported(void);
/// Zeroes the calling thread's counts and starts counting on the calling thread only.
void cbs_allocation_counting_begin(void);
/// Stops counting on the calling thread and returns what was counted since begin.
cbs_allocation_counts cbs_allocation_counting_end(void);

#ifdef __cplusplus
}
#endif
