// swift-tools-version: 6.1
// SpeechDSP — audio DSP and analysis in front of speech recognizers.
import PackageDescription

// MARK: - Public products

let products: [Product] = [
    .library(name: "SpeechDSP", targets: ["SpeechDSP"]),
    .library(name: "DSPCore", targets: ["DSPCore"]),
    .library(name: "DSPSpectral", targets: ["DSPSpectral"]),
    .library(name: "DSPAnalysis", targets: ["DSPAnalysis"]),
    .library(name: "DSPDetection", targets: ["DSPDetection"]),
    .library(name: "DSPIO", targets: ["DSPIO"]),
    .library(name: "DSPScoring", targets: ["DSPScoring"]),
    .library(name: "DSPPipeline", targets: ["DSPPipeline"]),
    // The C ABI (Sources/CSpeechDSP/include/speechdsp.h) as a shared library, libSpeechDSPC.so,
    // for other languages (Python's `speechdsp`, python/). Dynamic, and no other product
    // contains its target, so what a package depending on the Swift products builds and links
    // is unchanged.
    .library(name: "SpeechDSPC", type: .dynamic, targets: ["SpeechDSPC"]),
    .executable(name: "dspscore", targets: ["dspscore"]),
    .executable(name: "dspbench", targets: ["dspbench"]),
    .executable(name: "speechdsp-live", targets: ["speechdsp-live"]),
    // Not API: the benchmark references (C reference kernels, dlopen bindings to the peers),
    // exported only so that the Benchmarks package and rsbench share dspbench's single copy.
    .library(name: "_SpeechDSPBenchReferences", targets: ["CBenchReferences"]),
]

// MARK: - Traits

// FFTW is GPL-2.0-or-later: a binary that links it is GPL-bound. It stays the default FFT (the
// field's reference), and `--disable-default-traits` builds everything without it: RealFFT then
// runs SpeechDSP's own FFT (CDSPKernels FFT.c), which is compiled and tested in every build.
let traits: Set<Trait> = [
    .trait(
        name: "FFTW",
        description: "Link FFTW 3 (libfftw3f, GPL-2.0-or-later) and make it RealFFT's default FFT. "
            + "Without it RealFFT uses SpeechDSP's built-in FFT and no target links FFTW."
    ),
    .default(enabledTraits: ["FFTW"]),
]

// MARK: - System libraries

let systemLibraries: [Target] = [
    .systemLibrary(
        name: "CFFTW",
        pkgConfig: "fftw3f",
        providers: [.apt(["libfftw3-dev"]), .brew(["fftw"])]
    ),
    .systemLibrary(
        name: "CSndFile",
        pkgConfig: "sndfile",
        providers: [.apt(["libsndfile1-dev"]), .brew(["libsndfile"])]
    ),
    // zlib's inflate, for gzipped manifests (`.jsonl.gz`, as Lhotse writes them): a system
    // library every Linux and macOS has, rather than a package that brings SwiftNIO along.
    .systemLibrary(
        name: "CZlib",
        pkgConfig: "zlib",
        providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
    ),
]

// MARK: - Implementation

let implementation: [Target] = [
    // C kernels with run-time CPU dispatch (per-level copies, CDSP_DISPATCH_LEVEL) for the hottest inner loops, and the
    // built-in FFT (its planner takes cos/sin from libm).
    .target(name: "CDSPKernels", linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
    // Foundation-free: sample formats, conversion, dB math, re-framing, resampling, the processor contract.
    .target(
        name: "DSPCore",
        dependencies: ["CDSPKernels", .product(name: "RealModule", package: "swift-numerics")]
    ),
    // Real FFT (FFTW with the FFTW trait, the built-in FFT always), windows.
    .target(
        name: "DSPSpectral",
        dependencies: ["DSPCore", "CDSPKernels", .target(name: "CFFTW", condition: .when(traits: ["FFTW"]))]
    ),
    // The analysis chain: voice activity, music and multiple-speaker detection (spectral, so
    // over RealFFT: FFTW with the FFTW trait), frame grouping and the environment analyzer above them.
    .target(
        name: "DSPDetection",
        dependencies: ["DSPCore", "DSPSpectral", "CDSPKernels", .product(name: "RealModule", package: "swift-numerics")]
    ),
    // Level and loudness meters (no FFTW).
    .target(
        name: "DSPAnalysis",
        dependencies: ["DSPCore", "CDSPKernels", .product(name: "RealModule", package: "swift-numerics")]
    ),
    // Audio files over libsndfile.
    .target(name: "DSPIO", dependencies: ["DSPCore", "CSndFile", "CDSPKernels"]),
    // Whole-file scoring for corpora: reads files and manifests (NeMo, Lhotse; gzipped through
    // zlib), runs the analyzers, renders records.
    .target(name: "DSPScoring", dependencies: ["DSPCore", "DSPAnalysis", "DSPDetection", "DSPIO", "CZlib"]),
    // One object per live stream: downmix, resample to 16 kHz, Int16, levels, clipping, detection,
    // environment, events.
    .target(name: "DSPPipeline", dependencies: ["DSPCore", "DSPSpectral", "DSPAnalysis", "DSPDetection"]),
    // The C ABI's header (the structs and prototypes, read by the Swift implementation too, so
    // the two cannot drift) and its thread-local error message.
    .target(name: "CSpeechDSP"),
    // The C ABI: @_cdecl functions over DSPCore, DSPAnalysis, DSPDetection and DSPPipeline
    // (no DSPIO: the shared library does not link libsndfile).
    .target(name: "SpeechDSPC", dependencies: ["CSpeechDSP", "DSPCore", "DSPAnalysis", "DSPDetection", "DSPPipeline"]),
    // Umbrella module re-exporting the public modules.
    .target(name: "SpeechDSP", dependencies: ["DSPCore", "DSPSpectral", "DSPDetection", "DSPAnalysis", "DSPIO", "DSPScoring", "DSPPipeline"]),
    // Plain C reference kernels and run-time (dlopen) bindings to peer libraries, the one copy
    // dspbench, Benchmarks/ and rsbench share: the library never links a peer, and the tools
    // run where peers are absent.
    .target(name: "CBenchReferences", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
    // What the three executables share and nothing else uses: --version (the library version
    // and the git revision, generated at build time by GitRevisionPlugin), --log-level/--quiet,
    // the JSON log handler for a non-terminal stderr. Library targets never depend on it, so
    // for a package that depends on SpeechDSP's libraries the plugin's command never runs
    // (SwiftPM only compiles the plugin and its one-file generator, as it does every plugin
    // in a package graph).
    .target(
        name: "CLISupport",
        dependencies: [
            "DSPCore",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ],
        plugins: ["GitRevisionPlugin"]
    ),
    // Writes BuildRevision.commit from the package directory's .git (HEAD, refs, packed-refs,
    // worktrees), "unknown" without one; run by GitRevisionPlugin.
    .executableTarget(name: "GitRevisionGenerator", path: "Sources/GitRevisionGenerator"),
    .plugin(name: "GitRevisionPlugin", capability: .buildTool(), dependencies: ["GitRevisionGenerator"]),
    // dspbench's clocks and allocation counter (interposes malloc: dspbench only).
    .target(name: "CBenchSupport"),
    .executableTarget(
        name: "dspbench",
        dependencies: [
            "DSPCore", "DSPSpectral", "DSPDetection", "DSPAnalysis", "DSPIO", "DSPPipeline", "CBenchSupport",
            "CBenchReferences", "CDSPKernels", "CLISupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]
    ),
    // The live-stream example: a file through SpeechFrontEnd as if it were a client's stream.
    .executableTarget(
        name: "speechdsp-live",
        dependencies: [
            "DSPPipeline", "DSPDetection", "DSPAnalysis", "DSPCore", "DSPIO", "CLISupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]
    ),
    .executableTarget(
        name: "dspscore",
        dependencies: [
            "DSPScoring", "DSPDetection", "DSPIO", "DSPCore", "CLISupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]
    ),
]

// MARK: - Tests

// Peer libraries, used by tests only as differential oracles (never by the library).
let peerLibraries: [Target] = [
    .systemLibrary(
        name: "CEBUR128", path: "Tests/PeerLibraries/CEBUR128", pkgConfig: "libebur128",
        providers: [.apt(["libebur128-dev"])]
    ),
]

let tests: [Target] = [
    // What every test target shares: the seeded generator and the TestAudio folder.
    .target(name: "TestSupport", dependencies: ["DSPCore"], path: "Tests/TestSupport"),
    .testTarget(name: "DSPCoreTests", dependencies: ["DSPCore", "TestSupport"], exclude: ["Goldens"]),
    .testTarget(
        name: "DSPSpectralTests", dependencies: ["DSPSpectral", "DSPCore", "CDSPKernels", "DSPIO", "TestSupport"],
        exclude: ["Goldens"]),
    .testTarget(name: "DSPDetectionTests", dependencies: ["DSPDetection", "DSPSpectral", "DSPCore", "CDSPKernels", "DSPIO", "TestSupport"],
        exclude: ["Goldens"]),
    .testTarget(name: "DSPAnalysisTests", dependencies: ["DSPAnalysis", "DSPCore", "CEBUR128", "TestSupport"]),
    .testTarget(name: "DSPIOTests", dependencies: ["DSPIO", "DSPCore", "TestSupport"]),
    .testTarget(name: "DSPScoringTests", dependencies: ["DSPScoring", "DSPIO", "TestSupport"], exclude: ["Goldens", "DetectionClips"]),
    // Live and file analysis agree: SpeechFrontEnd and FileScorer run the same chain.
    .testTarget(name: "OneChainTests", dependencies: ["DSPPipeline", "DSPScoring", "DSPDetection", "DSPAnalysis", "DSPIO", "DSPCore", "TestSupport"]),
    // The executables' shared code (version text, JSON logs) and the built tools themselves.
    .testTarget(name: "CLITests", dependencies: ["CLISupport", "DSPCore", "DSPScoring", "DSPIO", "TestSupport"]),
    .testTarget(name: "DSPPipelineTests", dependencies: ["DSPPipeline", "DSPCore", "DSPAnalysis", "DSPDetection", "DSPSpectral", "DSPIO", "TestSupport"]),
    // The C ABI called as C callers call it: bad arguments, codes and messages, results
    // against the Swift API.
    .testTarget(
        name: "SpeechDSPCTests",
        dependencies: ["SpeechDSPC", "CSpeechDSP", "DSPPipeline", "DSPDetection", "DSPAnalysis", "DSPCore", "DSPIO", "TestSupport"]),
    // The README's and the Getting Started article's snippets, compiled and run; the documents
    // must hold them verbatim (SnippetDriftTests).
    .testTarget(
        name: "QuickStartTests",
        dependencies: ["SpeechDSP", "DSPPipeline", "DSPDetection", "DSPAnalysis", "DSPCore", "DSPIO", "TestSupport"]
    ),
]

let package = Package(
    name: "SpeechDSP",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: products,
    traits: traits,
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.1.1"),
    ],
    targets: systemLibraries + implementation + peerLibraries + tests,
    swiftLanguageModes: [.v6]
)
