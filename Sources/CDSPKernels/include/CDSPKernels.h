// Small C kernels with run-time CPU dispatch (target_clones) for SpeechDSP's hottest loops,
// where default x86-64 Swift codegen (SSE2, no FMA) cannot reach the hardware's throughput.
#pragma once
#include <stddef.h>
#include <stdint.h>
