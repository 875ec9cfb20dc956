// pipeline --streams N [--threads T]: N front ends fed round-robin in pushes of --frame frames,
// as a service runs them, beside one stream in a hot loop, in the same run: real-time streams
// per core, memory per stream (resident growth / N and the front end's own accounting) and the
// CPU time of each push (p50, p99, p99.9 after each stream's first second; max over all), and
// the per-thread scratch workspaces (DSPCore ScratchWorkspace) the runs' threads hold.
import DSPCore
import DSPPipeline
import Dispatch
import Foundation

enum PipelineStreams {
    /// One case's figures.
    struct Figures {
        var streams: Int
        var threads: Int
        var cpuSeconds: Double
        var wallSeconds: Double
        var audioSeconds: Double
        var pushNanoseconds: [UInt32]
        var maxNanoseconds: UInt32
        var residentBytesPerStream: Double

        /// Real-time streams one core sustains: audio seconds per CPU second.
        var streamsPerCore: Double { audioSeconds / cpuSeconds }
        /// The longest push after each stream's first second, µs.
        var maxAfterFirstSecond: Double { pushNanoseconds.last.map { Double($0) / 1000 } ?? .nan }
        func percentile(_ p: Double) -> Double {
            guard !pushNanoseconds.isEmpty else { return .nan }
            return Double(pushNanoseconds[Swift.min(pushNanoseconds.count - 1, Int(Double(pushNanoseconds.count) * p))]) / 1000
        }
    }

    /// Resident memory of this process, bytes (`/proc/self/statm`, second field × page size).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Every front end built in this run, kept to the end: freed memory would be reused by the
    /// next case's streams and hide their resident growth.
    nonisolated(unsafe) static var kept: [SpeechFrontEnd] = []

    final class Box<T>: @unchecked Sendable {
        var value: T
        init(_ value: T) { self.value = value }
    }

    /// Runs `streams` front ends of `configuration` over `samples` (interleaved), round-robin in
    /// pushes of `framesPerPush` frames, on `threads` threads, `passes` times.
    static func run(
        configuration: SpeechFrontEnd.Configuration, samples: UnsafeBufferPointer<Float>, framesPerPush: Int,
        streams: Int, threads: Int, passes: Int
    ) throws -> Figures {
        let channels = configuration.channelCount
        let pushSamples = framesPerPush * channels
        let pushes = samples.count / pushSamples
        let firstSecondPushes = (configuration.inputRate + framesPerPush - 1) / framesPerPush
        let before = residentBytes()
        var frontEnds: [SpeechFrontEnd] = []
        frontEnds.reserveCapacity(streams)
        for _ in 0..<streams { frontEnds.append(try SpeechFrontEnd(configuration: configuration)) }
        let ends = Box(frontEnds)
        let perThread = (streams + threads - 1) / threads
        let times = Box((0..<threads).map { t in
            [UInt32](repeating: 0, count: Swift.max(0, Swift.min(perThread, streams - t * perThread)) * pushes * passes)
        })
        let cpu = Box([UInt64](repeating: 0, count: threads))
        let maxima = Box([UInt32](repeating: 0, count: threads))
        let failures = Box([Int](repeating: 0, count: threads))
        let audio = Box(samples)
        let wall0 = Clock.monotonic()
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            let samples = audio.value
            let range = (t * perThread)..<Swift.min(streams, (t + 1) * perThread)
            guard !range.isEmpty else { return }
            let first = ends.value[range.lowerBound]
            first.reserveWorkspace()  // this thread's workspace, as a service's worker does at start-up
            let output = Scratch<Int16>(count: first.outputCapacity(forInputCount: pushSamples), repeating: 0)
            let events = FrontEndEventBuffer(capacity: first.maxEventCount(forInputCount: pushSamples))
            var recorded = [UInt32](repeating: 0, count: range.count * pushes * passes)
            var kept = 0
            var longest: UInt32 = 0
            var failed = 0
            let cpu0 = Clock.threadCPU()
            for pass in 0..<passes {
                if pass > 0 { for s in range { ends.value[s].reset() } }
                for i in 0..<pushes {
                    for s in range {
                        // Each stream starts at its own place in the audio.
                        let p = (i + s * 37) % pushes
                        let input = UnsafeBufferPointer(rebasing: samples[(p * pushSamples)..<((p + 1) * pushSamples)])
                        let c0 = Clock.threadCPU()
                        let result = ends.value[s].process(input, into: output.buffer, events: events)
                        let c1 = Clock.threadCPU()
                        let ns = UInt32(truncatingIfNeeded: Swift.min(c1 &- c0, UInt64(UInt32.max)))
                        longest = Swift.max(longest, ns)
                        if i >= firstSecondPushes { recorded[kept] = ns; kept += 1 }
                        if result.consumed != pushSamples || result.droppedEvents != 0 { failed += 1 }
                    }
                }
            }
            cpu.value[t] = Clock.threadCPU() - cpu0
            recorded.removeSubrange(kept...)
            times.value[t] = recorded
            maxima.value[t] = longest
            failures.value[t] = failed
        }
        let wall = Double(Clock.monotonic() - wall0) / 1e9
        let after = residentBytes()
        if failures.value.reduce(0, +) > 0 { throw PipelineStreamsError.failedPushes(failures.value.reduce(0, +)) }
        var all = times.value.flatMap { $0 }
        all.sort()
        kept += ends.value
        return Figures(
            streams: streams, threads: threads, cpuSeconds: Double(cpu.value.reduce(0, +)) / 1e9, wallSeconds: wall,
            audioSeconds: Double(streams * pushes * passes * framesPerPush) / Double(configuration.inputRate),
            pushNanoseconds: all, maxNanoseconds: maxima.value.max() ?? 0,
            residentBytesPerStream: Double(after - before) / Double(streams))
    }

    /// The report: per case, one stream beside N interleaved, and the memory per stage.
    static func report(
        seconds: Double, framesPerPush: Int, streams: Int, threads: Int, passes: Int
    ) throws -> String {
        var lines: [String] = []
        let cases: [(rate: Int, channels: Int)] = [(48_000, 1), (44_100, 2)]
        for c in cases {
            let audio = BenchAudio(generatedSeconds: seconds, sampleRate: c.rate)
            let samples = UnsafeBufferPointer(c.channels == 2 ? audio.stereo.buffer : audio.mono.buffer)
            let configuration = SpeechFrontEnd.Configuration(inputRate: c.rate, channelCount: c.channels)
            let label = "\(ResampleKernels.khz(c.rate)) kHz \(c.channels == 2 ? "stereo" : "mono")"
            let memory = try SpeechFrontEnd.memoryFootprint(for: configuration)
            lines.append("\(label), every stage on, \(framesPerPush)-frame pushes, \(Self.format(seconds)) s of audio × \(passes) passes")
            lines.append("  memory per stream (the front end's accounting, SpeechFrontEnd.memory):")
            for stage in memory.stages {
                let workspace = stage.footprint.workspaceBytes > 0 ? ", workspace \(Self.kB(stage.footprint.workspaceBytes)) kB" : ""
                lines.append("    \(stage.name.padding(toLength: 12, withPad: " ", startingAt: 0)) owned \(Self.kB(stage.footprint.ownedBytes)) kB, shared \(Self.kB(stage.footprint.sharedBytes)) kB\(workspace)")
            }
            lines.append("    total        owned \(Self.kB(memory.total.ownedBytes)) kB, shared \(Self.kB(memory.total.sharedBytes)) kB (once per configuration), workspace \(Self.kB(memory.total.workspaceBytes)) kB (once per thread)")
            let single = try run(configuration: configuration, samples: samples, framesPerPush: framesPerPush, streams: 1, threads: 1, passes: passes * 10)
            let many = try run(configuration: configuration, samples: samples, framesPerPush: framesPerPush, streams: streams, threads: threads, passes: passes)
            lines.append("  run                 streams/core  wall ×rt/thread  push p50 µs   p99    p99.9  max>1s    max    RSS/stream kB")
            for (name, f) in [("1 stream, hot", single), ("\(streams) interleaved, \(threads) thr", many)] {
                lines.append("  " + [
                    name.padding(toLength: 20, withPad: " ", startingAt: 0),
                    String(format: "%12.0f", f.streamsPerCore),
                    String(format: "%16.0f", f.audioSeconds / f.wallSeconds / Double(f.threads)),
                    String(format: "%11.2f", f.percentile(0.5)),
                    String(format: "%7.2f", f.percentile(0.99)),
                    String(format: "%7.2f", f.percentile(0.999)),
                    String(format: "%7.0f", f.maxAfterFirstSecond),
                    String(format: "%7.0f", Double(f.maxNanoseconds) / 1000),
                    f.streams > 1 ? String(format: "%10.1f", f.residentBytesPerStream / 1000) : "         -",
                ].joined(separator: " "))
            }
            lines.append(String(format: "  interleaved ÷ single: %.2f; p50/p99/p99.9 and max>1s after each stream's first second, max over all pushes",
                                many.streamsPerCore / single.streamsPerCore))
            lines.append("  thread workspaces held after the runs: \(Self.kB(ScratchWorkspace.allocatedBytes)) kB, over every thread that has run a push in this process (one workspace per thread, not per stream)")
        }
        return lines.joined(separator: "\n")
    }

    static func kB(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1000) }
    static func format(_ x: Double) -> String { x == x.rounded() ? String(Int(x)) : String(x) }
}

enum PipelineStreamsError: Error, CustomStringConvertible {
    case failedPushes(Int)
    var description: String {
        switch self { case .failedPushes(let n): "\(n) pushes did not take all input or dropped events" }
    }
}
