// dspscore convert: audio files into a recognizer's input (16 kHz mono PCM S16LE WAV by default,
// or FLAC), the input tree mirrored under --output-dir. Thin: the work is DSPScoring's
// FileConverter.
import ArgumentParser
import CLISupport
import DSPCore
import DSPIO
import DSPScoring
import Foundation
import Logging

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert audio files for a recognizer: 16 kHz mono 16-bit PCM WAV (or FLAC), the input tree mirrored.",
        discussion: """
            Inputs are found as dspscore score finds them: files as given, directories searched \
            recursively by --extensions. DIR/a/b.flac becomes OUTPUT-DIR/a/b.wav; a file named \
            directly becomes OUTPUT-DIR/NAME.wav. Channels are mixed to mono (the mean of the \
            channels) unless --channels says otherwise; the resampler's delay is trimmed, so an \
            output holds exactly round(N × rate / input rate) frames for N input frames. An \
            existing output is left alone (an error for that file) unless --overwrite; an output \
            that is its input is never written. Outputs are written to NAME.partial and renamed \
            when complete. One line per file goes to stdout (ok or error); a file that fails \
            does not stop the others, and the exit code is 1 when any failed.
            """)

    enum Container: String, ExpressibleByArgument, CaseIterable {
        case wav, flac
        var container: FileConverter.Configuration.Container { self == .wav ? .wav : .flac }
    }

    enum Dither: String, ExpressibleByArgument, CaseIterable {
        case none, tpdf
    }

    @Argument(help: "Audio files or directories.")
    var paths: [String] = []

    @Option(name: .customLong("output-dir"), help: "Where to write the outputs (created if missing), mirroring the inputs' tree.")
    var outputDirectory: String

    @Option(help: "Output container: wav (PCM S16LE) or flac (16-bit).")
    var format: Container = .wav

    @Option(help: "Output sample rate, Hz (1000...768000).")
    var rate: Int = 16_000

    @Option(help: "downmix (the mean of the channels, mono), keep (every channel, resampled), or a channel number, 1...64 (mono: that channel alone).")
    var channels: String = "downmix"

    @Option(help: "Dither before rounding to 16 bits: none, or tpdf (triangular, ±1 LSB, the same sequence for every file).")
    var dither: Dither = .none

    @Flag(help: "Replace existing outputs (never the input itself).")
    var overwrite = false

    @Option(help: "Comma-separated extensions to pick from directories.")
    var extensions: String = AudioFileDiscovery.defaultExtensions.sorted().joined(separator: ",")

    @Option(help: "Parallel jobs (default: the cores this process may use).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @OptionGroup var logging: LoggingOptions

    /// The seed of --dither tpdf: one fixed sequence, so a conversion is reproducible.
    static let ditherSeed: UInt64 = 0x5EED_D17E

    /// `--channels` parsed: nil when it is none of the forms it takes.
    var channelHandling: FileConverter.Configuration.Channels? {
        switch channels.lowercased() {
        case "downmix": return .downmix
        case "keep": return .keep
        default:
            guard let number = Int(channels), (1...64).contains(number) else { return nil }
            return .channel(number - 1)
        }
    }

    var converterConfiguration: FileConverter.Configuration {
        FileConverter.Configuration(
            outputRate: rate, container: format.container, channels: channelHandling ?? .downmix,
            dither: dither == .tpdf ? .triangular(seed: Self.ditherSeed) : .none)
    }

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give files or directories to convert") }
        if jobs < 1 { throw ValidationError("--jobs must be at least 1, got \(jobs)") }
        guard channelHandling != nil else {
            throw ValidationError("--channels takes downmix, keep or a channel number 1...64; got '\(channels)'")
        }
        do {
            try converterConfiguration.validate()
        } catch {
            throw ValidationError(error.commandLineDescription(["outputRate": "--rate"]))
        }
    }

    func run() throws {
        let logger = logging.bootstrap(label: "dspscore")
        let wanted = Set(extensions.split(separator: ",").map { $0.lowercased().trimmingCharacters(in: .whitespaces) })
        let outputRoot = Self.absolute(outputDirectory)
        // Files found in a folder under the output directory (an earlier run's outputs) are not
        // inputs; a file named on the command line is (and is refused if it is its own output).
        let named = Set(paths.map { PathKey($0) })
        let found = AudioFileDiscovery.expandKeepingRoots(paths, extensions: wanted).filter {
            named.contains(PathKey($0.path)) || !Self.absolute($0.path).hasPrefix(outputRoot + "/")
        }
        if found.isEmpty { logger.warning("no audio files found") }
        let plan = FileConverter.plan(found, outputDirectory: outputDirectory, container: format.container)
        let start = Date()
        var converted = 0
        var failed = 0
        var audioSeconds = 0.0
        func report(_ result: FileConverter.Result) {
            if result.status == .ok {
                converted += 1
                audioSeconds += result.durationSeconds
                print(Self.line(result))
            } else {
                failed += 1
                print(Self.line(result))
                logger.error("\(result.error?.message ?? result.inputPath)", metadata: ["kind": "\(result.error?.kind ?? "unknown")"])
            }
        }
        try FileConverter.convert(plan, jobs: jobs, configuration: converterConfiguration, overwrite: overwrite) { _, result in
            report(result)
            return true
        }
        let elapsed = Date().timeIntervalSince(start)
        logger.info("\(converted) files converted, \(failed) failed; \(String(format: "%.1f", audioSeconds)) s of audio in \(String(format: "%.1f", elapsed)) s")
        if failed > 0 { throw ExitCode(1) }
    }

    /// One stdout line: `ok     IN -> OUT (6.503 s, 44100 Hz 2 ch -> 16000 Hz 1 ch)` or
    /// `error  IN: KIND: MESSAGE`.
    static func line(_ result: FileConverter.Result) -> String {
        guard result.status == .ok else {
            var message = result.error?.message ?? ""
            if message.hasPrefix(result.inputPath + ": ") { message.removeFirst(result.inputPath.count + 2) }
            return "error  \(result.inputPath): \(result.error?.kind ?? "unknown"): \(message)"
        }
        var line = "ok     \(result.inputPath) -> \(result.outputPath) ("
            + String(format: "%.3f s, ", result.durationSeconds)
            + "\(result.inputSampleRate ?? 0) Hz \(result.inputChannels ?? 0) ch -> "
            + "\(result.outputSampleRate) Hz \(result.outputChannels ?? 0) ch, \(result.outputFrames) frames"
        if result.clippedSamples > 0 { line += ", \(result.clippedSamples) samples clamped" }
        if result.nonFiniteSamples > 0 { line += ", \(result.nonFiniteSamples) NaN/Inf samples as 0" }
        return line + ")"
    }

    /// `path` made absolute against the working directory and standardized (no `.`, `..`).
    static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
        return (full as NSString).standardizingPath
    }
}
