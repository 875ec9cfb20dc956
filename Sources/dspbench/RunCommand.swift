// dspbench run [SUITE…]: measure the kernels of the chosen suites (and their peers).
import ArgumentParser
import CLISupport
import DSPIO
import Foundation
import Logging

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Measure kernels: × real time, ns per frame (p50, p99), samples/s, allocations per frame.",
        discussion: """
            Suites: \(Suite.helpList) (all when none is named). Each kernel runs warm-up passes, \
            then --repetitions timed passes over the audio, pushed --frame frames (per channel) at a time. \
            With --compare the same work also runs through peers found on this machine \
            (libsoxr, libsamplerate, speexdsp, libebur128, loaded with dlopen) and plain C \
            loops, with the ratio SpeechDSP ÷ peer. detection and environment run on the audio \
            resampled to 16 kHz (once, not timed) and also report times per analysis frame (a \
            16 ms hop); they have no peer here (scripts/detect/run_peers_detect.py measures \
            WebRTC VAD and Silero VAD).
            """)

    @Argument(help: ArgumentHelp("Suites to run: \(Suite.helpList).", valueName: "suite"))
    var suites: [Suite] = []

    @Option(help: "Seconds of generated audio (default 60); with --input, the most of the file to use.")
    var seconds: Double?

    @Option(help: "Sample rate of the generated audio, in Hz (default 48000).")
    var rate: Int?

    @Option(help: "Read the audio from this file (any format libsndfile reads) instead of generating it.")
    var input: String?

    @Option(help: "Timed passes per kernel.")
    var repetitions: Int = 5

    @Option(help: "Untimed warm-up passes per kernel.")
    var warmup: Int = 1

    @Option(help: "Samples (per channel) per push.")
    var frame: Int = 1024

    @Option(help: "pipeline only: interleave N front ends round-robin (48 kHz mono and 44.1 kHz stereo), beside one hot stream.")
    var streams: Int?

    @Option(help: "pipeline --streams only: threads sharing the N streams (default 1).")
    var threads: Int = 1

    @Option(help: ArgumentHelp(
        "pipeline --streams only: the front end's detectionHopsPerBatch (1...4; default 4). Several, comma-separated (e.g. 4,1), run in turn in every round (--repetitions rounds).",
        valueName: "B[,B…]"))
    var batch: String = "4"

    @Option(help: "pipeline --streams only: also time every push on the wall clock with the thread's page faults and context switches, break the push times down by what the pushes did, and list the K slowest.")
    var slowest: Int = 0

    @Flag(help: "pipeline --streams --slowest only: also count the interrupts and softirqs the thread's CPU handled across every push (/proc/interrupts and /proc/softirqs, read before and after each push: slow).")
    var interrupts = false

    @Flag(help: "Also run the peers found on this machine and plain C loops, with ratios.")
    var compare = false

    @Flag(inversion: .prefixedNo, help: "pipeline only (one stream per case): whether the front end reads looped backgrounds by their period (SpeechFrontEnd.Configuration.loopedBackgrounds, on by default); --no-looped-backgrounds measures what it costs.")
    var loopedBackgrounds = true

    @Flag(inversion: .prefixedNo, help: "pipeline only (with or without --streams): whether the front end blends the fitted network into voice activity (SpeechFrontEnd.Configuration.detector.speechBlend, on by default); --no-speech-blend measures the front end with the speech model alone.")
    var speechBlend = true

    @Flag(help: "Write one JSON document to stdout instead of the table.")
    var json = false

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard repetitions >= 1 else { throw ValidationError("--repetitions must be at least 1") }
        guard warmup >= 0 else { throw ValidationError("--warmup must be 0 or more") }
        guard (1...65_536).contains(frame) else { throw ValidationError("--frame must be in 1...65536") }
        if let seconds { guard seconds > 0, seconds <= 3600 else { throw ValidationError("--seconds must be in (0, 3600]") } }
        if let streams {
            guard streams >= 1, streams <= 100_000 else { throw ValidationError("--streams must be in 1...100000") }
            guard suites == [.pipeline] else { throw ValidationError("--streams runs the pipeline suite alone: dspbench run pipeline --streams N") }
        }
        guard (1...256).contains(threads) else { throw ValidationError("--threads must be in 1...256") }
        guard let batches = batchSizes, !batches.isEmpty, batches.allSatisfy((1...4).contains), Set(batches).count == batches.count else {
            throw ValidationError("--batch must be distinct values in 1...4, comma-separated")
        }
        guard slowest >= 0 else { throw ValidationError("--slowest must be 0 or more") }
        if streams == nil, batch != "4" || slowest > 0 { throw ValidationError("--batch and --slowest need --streams") }
        if interrupts, slowest == 0 { throw ValidationError("--interrupts needs --slowest") }
        if let rate { guard (8_000...768_000).contains(rate) else { throw ValidationError("--rate must be in 8000...768000 Hz") } }
    }

    func run() throws {
        let logger = logging.bootstrap(label: "dspbench")
        if let streams {
            if buildConfiguration == "debug" { logger.warning("debug build: the figures say nothing about release performance") }
            print(try PipelineStreams.report(
                seconds: seconds ?? 10, framesPerPush: frame, streams: streams, threads: threads, rounds: repetitions,
                batches: batchSizes ?? [4], slowest: slowest, interrupts: interrupts, speechBlend: speechBlend))
            return
        }
        let chosen = suites.isEmpty ? Suite.allCases : Suite.allCases.filter(suites.contains)

        let audio: BenchAudio
        if let input {
            if rate != nil { logger.warning("--rate is ignored with --input: the file's rate is used") }
            do {
                audio = try BenchAudio(path: input, seconds: seconds)
            } catch {
                logger.error("cannot read \(input): \(error)")
                throw ExitCode(2)
            }
        } else {
            audio = BenchAudio(generatedSeconds: seconds ?? 60, sampleRate: rate ?? 48_000)
        }
        logger.info("input: \(audio.source)")

        let notes = Notes()
        var peers = PeerLibraries.none
        if compare {
            peers = PeerLibraries.load(for: chosen)
            for status in peers.orderedStatuses where !status.available {
                notes.add("\(status.name) (\(status.soname)) omitted: \(status.reason ?? "not found")")
            }
        }
        if !AllocationCounter.isSupported { notes.add("allocations are not counted on this platform") }
        if buildConfiguration == "debug" { notes.add("debug build: the figures say nothing about release performance") }

        let overhead = Clock.monotonicReadOverhead()
        let settings = MeasurementSettings(repetitions: repetitions, warmupPasses: warmup, clockOverheadNanoseconds: overhead)
        var context = SuiteContext(audio: audio, frameLength: frame, compare: compare, peers: peers, notes: notes)
        context.loopedBackgrounds = loopedBackgrounds
        context.speechBlend = speechBlend

        var results: [KernelResult] = []
        for suite in chosen {
            let kernels = suite.makeKernels(context)
            // Kernels doing the same work (or set against each other) are measured together,
            // passes interleaved.
            var groups: [[Kernel]] = []
            for kernel in kernels {
                if let last = groups.last?.last, last.measuredWith == kernel.measuredWith {
                    groups[groups.count - 1].append(kernel)
                } else {
                    groups.append([kernel])
                }
            }
            for group in groups {
                let members = group.allSatisfy({ $0.group == group[0].group })
                    ? group.map(\.implementation) : group.map { "\($0.group) \($0.implementation)" }
                logger.info("\(suite.rawValue)/\(group[0].measuredWith): \(members.joined(separator: ", "))")
                let measurements = measure(group: group, settings: settings)
                for (kernel, measurement) in zip(group, measurements) {
                    let result = KernelResult(kernel: kernel, measurement: measurement)
                    if let failure = result.failure {
                        logger.error("\(kernel.id): \(failure)")
                    } else {
                        logger.info("\(kernel.id): \(RunReport.speed(result.xRealtime))× real time")
                    }
                    results.append(result)
                }
            }
        }

        var report = RunReport(
            library: .current, buildConfiguration: buildConfiguration, date: isoDateNow,
            commandLine: commandLineText, machine: .current(),
            settings: RunSettings(
                suites: chosen, input: audio.source, inputPath: audio.inputPath, sampleRate: audio.sampleRate,
                durationSeconds: audio.durationSeconds, frameLength: frame, repetitions: repetitions,
                warmupPasses: warmup, compare: compare, clockOverheadNs: Double(overhead),
                allocationCounting: AllocationCounter.isSupported),
            peers: peers.orderedStatuses, kernels: results, notes: notes.lines)
        report.computeRatios()
        print(json ? try report.renderJSON() : report.renderTable())
        if results.contains(where: { $0.failure != nil }) { throw ExitCode(1) }
    }
}

extension RunCommand {
    /// `--batch` as numbers; nil when a value is not an integer.
    var batchSizes: [Int]? {
        let values = batch.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        return values.contains(nil) ? nil : values.map { $0! }
    }
}

extension Suite: ExpressibleByArgument {}
