// Foundation units: conversion, metering, re-framing, downmixing — each beside a plain C
// reference kernel where one applies. Every `process`-style benchmark also records
// mallocs: CI checks that they stay at zero (Thresholds/).
import Benchmark
import BenchmarkBudget
import CBenchReferences
import DSPAnalysis
import DSPCore
import DSPSpectral

/// Deterministic test audio: a sine sweep plus noise at about −12 dBFS, with some clipping.
func makeSignal(count: Int) -> UnsafeMutableBufferPointer<Float> {
    let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: count)
    var state: UInt32 = 0x1234_5678
    var phase: Float = 0
    for i in 0..<count {
        state = state &* 1_664_525 &+ 1_013_904_223
        let noise = Float(Int32(bitPattern: state)) * 0x1p-31
        phase += 0.01 + 0.2 * Float(i % 48_000) / 48_000
        if phase > 6.283_185 { phase -= 6.283_185 }
        buffer[i] = 0.25 * (phase < 3.141_592 ? phase - 1.5 : 4.7 - phase) / 1.6 + 0.05 * noise
    }
    return buffer
}

/// 100 M samples: out of every cache level.
let outOfCacheCount = 100_000_000
let frame = 1024

let benchmarks: @Sendable () -> Void = {
    /// The configuration for per-frame kernels: many frames per iteration so the clock resolves.
    let frameConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .throughput, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: BenchmarkBudget.duration(.seconds(2)),
        maxIterations: BenchmarkBudget.iterations(1000)
    )

    /// For 100 M-sample passes: few iterations.
    let bulkConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal],
        maxDuration: BenchmarkBudget.duration(.seconds(5)),
        maxIterations: BenchmarkBudget.iterations(10)
    )

    let input = makeSignal(count: frame)
    let int16Frame = UnsafeMutableBufferPointer<Int16>.allocate(capacity: frame)
    let floatFrame = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4 * frame)

    // MARK: Conversion, in cache (one 1024-sample frame, 1000 times per iteration)

    Benchmark("Conversion.Float32_to_Int16_1024_(SpeechDSP)", configuration: frameConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(Int16Conversion.convert(UnsafeBufferPointer(input), into: int16Frame))
        }
    }
    Benchmark("Conversion.Float32_to_Int16_1024_(C_reference)", configuration: frameConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(cbs_ref_float_to_int16(input.baseAddress, int16Frame.baseAddress, frame))
        }
    }
    Benchmark("Conversion.Int16_to_Float32_1024_(SpeechDSP)", configuration: frameConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            Int16Conversion.convert(UnsafeBufferPointer(int16Frame), into: floatFrame)
            blackHole(floatFrame[0])
        }
    }
    Benchmark("Conversion.Int16_to_Float32_1024_(C_reference)", configuration: frameConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            cbs_ref_int16_to_float(int16Frame.baseAddress, floatFrame.baseAddress, frame)
            blackHole(floatFrame[0])
        }
    }
    let converter = Int16Converter(dither: .triangular(seed: 1))
    Benchmark("Conversion.Int16Converter_TPDF_dither_1024", configuration: frameConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(converter.process(UnsafeBufferPointer(input), into: int16Frame))
        }
    }

    // MARK: Metering, in cache

    let meter = try! LevelMeter()
    Benchmark("Metering.LevelMeter_1024_(SpeechDSP)", configuration: frameConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(meter.measure(UnsafeBufferPointer(input)))
        }
    }
    Benchmark("Metering.level_1024_(C_reference)", configuration: frameConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(cbs_ref_measure_level(input.baseAddress, frame, 1.0))
        }
    }

    // MARK: Out of cache (100 M samples per iteration)

    Benchmark("Conversion.Float32_to_Int16_100M_(SpeechDSP)", configuration: bulkConfiguration) { benchmark in
        let big = makeSignal(count: outOfCacheCount)
        let out = UnsafeMutableBufferPointer<Int16>.allocate(capacity: outOfCacheCount)
        out.initialize(repeating: 0)
        benchmark.startMeasurement()
        blackHole(Int16Conversion.convert(UnsafeBufferPointer(big), into: out))
        benchmark.stopMeasurement()
        big.deallocate()
        out.deallocate()
    }
    Benchmark("Conversion.Float32_to_Int16_100M_(C_reference)", configuration: bulkConfiguration) { benchmark in
        let big = makeSignal(count: outOfCacheCount)
        let out = UnsafeMutableBufferPointer<Int16>.allocate(capacity: outOfCacheCount)
        out.initialize(repeating: 0)
        benchmark.startMeasurement()
        blackHole(cbs_ref_float_to_int16(big.baseAddress, out.baseAddress, outOfCacheCount))
        benchmark.stopMeasurement()
        big.deallocate()
        out.deallocate()
    }
    Benchmark("Metering.LevelMeter_100M_(SpeechDSP)", configuration: bulkConfiguration) { benchmark in
        let big = makeSignal(count: outOfCacheCount)
        benchmark.startMeasurement()
        blackHole(meter.measure(UnsafeBufferPointer(big)))
        benchmark.stopMeasurement()
        big.deallocate()
    }
    Benchmark("Metering.level_100M_(C_reference)", configuration: bulkConfiguration) { benchmark in
        let big = makeSignal(count: outOfCacheCount)
        benchmark.startMeasurement()
        blackHole(cbs_ref_measure_level(big.baseAddress, outOfCacheCount, 1.0))
        benchmark.stopMeasurement()
        big.deallocate()
    }

    // MARK: Streaming units (process per 1024-sample push)

    let reframer = try! Reframer(configuration: .init(frameLength: 1024, hopLength: 256))
    Benchmark("Streaming.Reframer_1024_hop_256_(closure)", configuration: frameConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            reframer.process(UnsafeBufferPointer(input)) { frame, _ in blackHole(frame[0]) }
        }
    }
    Benchmark("Streaming.Reframer_1024_hop_256_(into_buffer)", configuration: frameConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(reframer.process(UnsafeBufferPointer(input), into: floatFrame))
        }
    }
    let stereo = makeSignal(count: 2 * frame)
    let downmixer = try! Downmixer(channelCount: 2)
    Benchmark("Streaming.Downmixer_stereo_1024_frames", configuration: frameConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(downmixer.process(UnsafeBufferPointer(stereo), into: floatFrame))
        }
    }
    let analyzer = try! LevelAnalyzer(configuration: .init(sampleRate: 48_000))
    let levels = UnsafeMutableBufferPointer<TimedFrameLevel>.allocate(capacity: 4)
    Benchmark("Metering.LevelAnalyzer_1024_push", configuration: frameConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(analyzer.process(UnsafeBufferPointer(input), into: levels))
        }
    }
    // MARK: Spectral

    // The default implementation (FFTW with the package's default traits, which this package
    // uses), and the built-in FFT beside it on the same input.
    let fft = try! RealFFT(size: 1024)
    let real = UnsafeMutableBufferPointer<Float>.allocate(capacity: fft.binCount)
    let imaginary = UnsafeMutableBufferPointer<Float>.allocate(capacity: fft.binCount)
    Benchmark("Spectral.RealFFT_forward_1024", configuration: frameConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            fft.forward(UnsafeBufferPointer(input), real: real, imaginary: imaginary)
            blackHole(real[1])
        }
    }
    let builtInFFT = try! RealFFT(size: 1024, implementation: .builtIn)
    Benchmark("Spectral.RealFFT_forward_1024_(built-in)", configuration: frameConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            builtInFFT.forward(UnsafeBufferPointer(input), real: real, imaginary: imaginary)
            blackHole(real[1])
        }
    }
    let builtInInverse = UnsafeMutableBufferPointer<Float>.allocate(capacity: 1024)
    Benchmark("Spectral.RealFFT_inverse_1024_(built-in)", configuration: frameConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            builtInFFT.inverse(real: UnsafeBufferPointer(real), imaginary: UnsafeBufferPointer(imaginary), into: builtInInverse)
            blackHole(builtInInverse[1])
        }
    }
    let window = try! Window(.hann, length: 1024)
    Benchmark("Spectral.Window_hann_apply_1024", configuration: frameConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            window.apply(UnsafeBufferPointer(input), into: floatFrame)
            blackHole(floatFrame[0])
        }
    }

    var ballistics = try! LevelBallistics(configuration: .init(frameDurationSeconds: 1024.0 / 48_000))
    let level = meter.measure(UnsafeBufferPointer(input))
    Benchmark("Metering.LevelBallistics_update", configuration: frameConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(ballistics.update(with: level))
        }
    }
}
