// Clocks and optimizer barriers for dspbench.
#define _GNU_SOURCE
#include "CBenchSupport.h"
#include <time.h>

static uint64_t nanoseconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

uint64_t cbs_monotonic_ns(void) { return nanoseconds(CLOCK_MONOTONIC); }

uint64_t cbs_thread_cpu_ns(void) { return nanoseconds(CLOCK_THREAD_CPUTIME_ID); }

// A volatile store in another translation unit: the caller cannot prove the value unused.
static volatile double double_sink;
static const void *volatile pointer_sink;

void cbs_black_hole_f64(double value) { double_sink = value; }

void cbs_black_hole_ptr(const void *pointer) { pointer_sink = pointer; }
