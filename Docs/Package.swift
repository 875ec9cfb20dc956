// swift-tools-version: 6.1
// SpeechDSP's documentation build: a package of its own so that library users never resolve
// swift-docc-plugin. Run scripts/build-docs.sh from the repository root.
import PackageDescription

let package = Package(
    name: "SpeechDSPDocs",
    dependencies: [
        .package(name: "SpeechDSP", path: "../"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: []
)
