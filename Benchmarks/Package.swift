// swift-tools-version: 6.1
// Benchmarks for SpeechDSP: a package of its own so library users never resolve
// package-benchmark. Run from this folder: `swift package benchmark`.
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
        // Plain C reference kernels built by the same toolchain, for side-by-side ratios.
        .target(name: "CReferenceKernels", path: "Sources/CReferenceKernels"),
        // libsoxr, libsamplerate, speexdsp: the resampling peers (Debian -dev packages).
        .target(
            name: "CPeerResamplers", path: "Sources/CPeerResamplers",
            linkerSettings: [.linkedLibrary("soxr"), .linkedLibrary("samplerate"), .linkedLibrary("speexdsp")]
        ),
        // libebur128, the loudness peer (Debian libebur128-dev).
        .systemLibrary(
            name: "CLibEBUR128", path: "Sources/CLibEBUR128", pkgConfig: "libebur128",
            providers: [.apt(["libebur128-dev"])]
        ),
        .executableTarget(
            name: "CoreBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "DSPCore", package: "SpeechDSP"),
                .product(name: "DSPAnalysis", package: "SpeechDSP"),
                .product(name: "DSPSpectral", package: "SpeechDSP"),
                "CReferenceKernels",
            ],
            path: "Benchmarks/CoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "ResamplerBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "DSPCore", package: "SpeechDSP"),
                "CPeerResamplers",
            ],
            path: "Benchmarks/ResamplerBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "LoudnessBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "DSPAnalysis", package: "SpeechDSP"),
                "CLibEBUR128",
            ],
            path: "Benchmarks/LoudnessBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "PipelineBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
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
                .product(name: "DSPSpectral", package: "SpeechDSP"),
                .product(name: "DSPDetection", package: "SpeechDSP"),
                "BenchmarkSignals",
            ],
            path: "Benchmarks/DetectionBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
    ]
)
