// Small C kernels with run-time CPU dispatch for SpeechDSP's hottest loops, where default
// x86-64 Swift codegen (SSE2, no FMA) cannot reach the hardware's throughput.
//
// Every kernel is plain C: no allocation, no locks, no global state beyond the dispatcher's
// function pointers, set once before `main`. On x86-64 Linux each exported vector kernel is
// compiled for each level — AVX-512F, x86-64-v3 (AVX2 + FMA; some kernels), FMA (AVX) and baseline SSE2 —
// and one level is chosen per process: the best the CPU supports, or lower when
// `CDSP_DISPATCH_LEVEL` pins it (CDSPDispatch.h). Scalar code that no level speeds up (the FFT's
// planning, the noise estimator's sums and histograms) is compiled once.
//
// This umbrella header includes one header per concept; each kernel file (*.c) implements one.
#pragma once
#include "CDSPDispatch.h"      // which compilation of the kernels runs: cdsp_dispatch_level() (Dispatch.c)
#include "CDSPResampling.h"   // DSPCore.Resampler (Resampling.c, ResamplingGroups.c)
#include "CDSPConversion.h"   // DSPIO's 16-bit PCM widening (Conversion.c)
#include "CDSPSpectral.h"     // DSPSpectral.SpectralAnalyzer (Spectral.c, SpectralFrames.c, SpectralBatch.c)
#include "CDSPFFT.h"          // DSPSpectral's built-in real FFT (FFTPlan.c, FFT.c)
#include "CDSPFFTWSplit.h"     // DSPSpectral's FFTW backend: the r2c split step (FFTWSplit.c)
#include "CDSPModels.h"       // DSPDetection's probability models (Models.c)
#include "CDSPExponential.h"  // glibc's expf, eight lanes at a time (Exponential.c)
#include "CDSPDetection.h"    // DSPDetection's cue tracker: the spectral-peak mask and the harmonic sieve's score sums (Detection.c)
#include "CDSPNoiseLevel.h"  // DSPDetection's background-noise estimator: band sums, histogram counts and readings (NoiseLevel.c; scalar, one compilation)
#include "CDSPLoudness.h"     // DSPAnalysis.LoudnessMeter: K-weighting, window sums (LoudnessKWeighting.c, LoudnessWindows.c)
#include "CDSPMetering.h"     // DSPAnalysis level and true-peak metering (MeteringLevels.c, MeteringTruePeak.c)
