// Small C kernels with run-time CPU dispatch (target_clones) for SpeechDSP's hottest loops,
// where default x86-64 Swift codegen (SSE2, no FMA) cannot reach the hardware's throughput.
//
// Every kernel is plain C: no allocation, no locks, no global state (the dispatcher's CPU
// probe runs once, in the loader's IFUNC resolver, before any call). On x86-64 each exported
// kernel is compiled three times — AVX-512F, AVX2+FMA and baseline SSE2 — and the loader
// binds the best one for the CPU, once per process.
//
// This umbrella header includes one header per concept; each kernel file (*.c) implements one.
#pragma once
#include "CDSPResampling.h"   // DSPCore.Resampler (Resampling.c, ResamplingGroups.c)
#include "CDSPConversion.h"   // DSPIO's 16-bit PCM widening (Conversion.c)
#include "CDSPSpectral.h"     // DSPSpectral.SpectralAnalyzer (Spectral.c, SpectralFrames.c, SpectralBatch.c)
#include "CDSPFFT.h"          // DSPSpectral's built-in real FFT (FFTPlan.c, FFT.c)
#include "CDSPModels.h"       // DSPDetection's probability models (Models.c)
#include "CDSPLoudness.h"     // DSPAnalysis.LoudnessMeter: K-weighting, window sums (LoudnessKWeighting.c, LoudnessWindows.c)
#include "CDSPMetering.h"     // DSPAnalysis level and true-peak metering (MeteringLevels.c, MeteringTruePeak.c)
