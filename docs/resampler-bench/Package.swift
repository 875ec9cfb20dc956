// swift-tools-version: 6.1
// Side-by-side resampler timing (docs/resampling.md, Performance): SpeechDSP vs libsoxr HQ,
// alternating in one process, best thread-CPU time of N runs. Not part of the library. libsoxr
// comes through the main package's CBenchReferences (dlopen), the copy dspbench and the
// Benchmarks package use too.
import PackageDescription
let package = Package(
    name: "rsbench",
    dependencies: [.package(name: "SpeechDSP", path: "../..")],
    targets: [
        .executableTarget(
            name: "rsbench",
            dependencies: [
                .product(name: "DSPCore", package: "SpeechDSP"),
                .product(name: "_SpeechDSPBenchReferences", package: "SpeechDSP"),
            ]
        ),
    ]
)
