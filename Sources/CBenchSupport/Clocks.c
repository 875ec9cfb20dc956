// Clocks and optimizer barriers for dspbench.
#define _GNU_SOURCE
#include "CBenchSupport.h"
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/resource.h>
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

cbs_thread_usage cbs_thread_usage_now(void) {
    cbs_thread_usage u = {0, 0, 0, 0, -1};
    struct rusage r;
    if (getrusage(RUSAGE_THREAD, &r) == 0) {
        u.minor_faults = (uint64_t)r.ru_minflt;
        u.major_faults = (uint64_t)r.ru_majflt;
        u.voluntary_switches = (uint64_t)r.ru_nvcsw;
        u.involuntary_switches = (uint64_t)r.ru_nivcsw;
    }
    u.cpu = sched_getcpu();
    return u;
}

uint64_t cbs_system_steal_ticks(void) {
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return 0;
    unsigned long long user, nice, system, idle, iowait, irq, softirq, steal = 0;
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &system, &idle, &iowait, &irq, &softirq, &steal);
    fclose(f);
    return n == 8 ? (uint64_t)steal : 0;
}

// Sums column `cpu` of a /proc table whose first line names the CPUs and whose other lines are
// "NAME: n0 n1 … [description]".
static uint64_t column_sum(const char *path, int32_t cpu) {
    static __thread char buffer[65536];
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    ssize_t total = 0, n;
    while (total < (ssize_t)sizeof(buffer) - 1 && (n = read(fd, buffer + total, sizeof(buffer) - 1 - (size_t)total)) > 0) total += n;
    close(fd);
    buffer[total] = 0;
    uint64_t sum = 0;
    char *line = strchr(buffer, '\n');
    while (line && *line) {
        line++;
        char *colon = strchr(line, ':');
        char *end = strchr(line, '\n');
        if (!colon || (end && colon > end)) { line = end; continue; }
        char *p = colon + 1;
        for (int32_t c = 0; c <= cpu; c++) {
            char *next;
            unsigned long long v = strtoull(p, &next, 10);
            if (next == p) { v = 0; break; }
            if (c == cpu) sum += v;
            p = next;
        }
        line = end;
    }
    return sum;
}

uint64_t cbs_cpu_interrupts(int32_t cpu) {
    if (cpu < 0) return 0;
    return column_sum("/proc/interrupts", cpu) + column_sum("/proc/softirqs", cpu);
}
