// swift-tools-version: 6.1
// Side-by-side resampler timing (docs/resampling.md, Performance): SpeechDSP vs libsoxr HQ,
// alternating in one process, best thread-CPU time of N runs. Not part of the library.
import PackageDescription
let package = Package(
    name: "rsbench",
    dependencies: [.package(name: "SpeechDSP", path: "../..")],
    targets: [
        .target(name: "CPeer", path: "Sources/CPeer",
                linkerSettings: [.linkedLibrary("soxr"), .linkedLibrary("samplerate"), .linkedLibrary("speexdsp")]),
        .executableTarget(name: "rsbench", dependencies: [.product(name: "DSPCore", package: "SpeechDSP"), "CPeer"]),
    ]
)
