// swift-tools-version: 6.1
// Benchmarks for SpeechDSP: a package of its own so library users never resolve
// package-benchmark. Run from this folder: `swift package benchmark`. The C reference kernels
// and the peer bindings (dlopen: libsoxr, libsamplerate, speexdsp, libebur128) are the main
// package's CBenchReferences, the copy dspbench and rsbench use too (product
// _SpeechDSPBenchReferences; SwiftPM refuses a target path outside this package's root).
import PackageDescription

let package = Package(
    name: "SpeechDSPBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "SpeechDSP", path: "../"),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // Deterministic test signals the benchmark executables share (no files are read).
        .target(name: "BenchmarkSignals", path: "Sources/BenchmarkSignals"),
        // The run budget: as configured, or a few short iterations for CI's malloc counts.
        .target(name: "BenchmarkBudget", path: "Sources/BenchmarkBudget"),
        .executableTarget(
            name: "CoreBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                "BenchmarkBudget",
                .product(name: "DSPCore", package: "SpeechDSP"),
                .product(name: "DSPAnalysis", package: "SpeechDSP"),
                .product(name: "DSPSpectral", package: "SpeechDSP"),
                .product(name: "_SpeechDSPBenchReferences", package: "SpeechDSP"),
            ],
            path: "Benchmarks/CoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "ResamplerBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                "BenchmarkBudget",
                .product(name: "DSPCore", package: "SpeechDSP"),
                .product(name: "_SpeechDSPBenchReferences", package: "SpeechDSP"),
            ],
            path: "Benchmarks/ResamplerBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "LoudnessBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                "BenchmarkBudget",
                .product(name: "DSPAnalysis", package: "SpeechDSP"),
                .product(name: "_SpeechDSPBenchReferences", package: "SpeechDSP"),
            ],
            path: "Benchmarks/LoudnessBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "PipelineBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                "BenchmarkBudget",
                .product(name: "DSPCore", package: "SpeechDSP"),
                .product(name: "DSPPipeline", package: "SpeechDSP"),
                "BenchmarkSignals",
            ],
            path: "Benchmarks/PipelineBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "DetectionBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                "BenchmarkBudget",
                .product(name: "DSPSpectral", package: "SpeechDSP"),
                .product(name: "DSPDetection", package: "SpeechDSP"),
                "BenchmarkSignals",
            ],
            path: "Benchmarks/DetectionBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
    ]
)
