// pipeline --streams N [--threads T] [--batch B,…] [--slowest K]: N front ends fed round-robin in
// pushes of --frame frames, as a service runs them, beside one stream in a hot loop, in the same
// run: real-time streams per core, memory per stream (resident growth / N and the front end's own
// accounting) and the CPU time of each push (p50, p99, p99.9 after each stream's first second;
// max over all), and the per-thread scratch workspaces (DSPCore ScratchWorkspace) the runs'
// threads hold. With several batch sizes (the front end's detectionHopsPerBatch), each
// repetition is a round in which every batch size runs in turn (the order rotated from round to
// round), so that the machine's drift hits them alike. With --slowest, every push after the
// first second is also timed on the wall clock and bracketed by the thread's fault and
// context-switch counts, and the report breaks the push times down by what the push did.
import CBenchSupport
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
        /// Every push after each stream's first second, with its attributions (--slowest).
        var traces: [PushTrace] = []
        /// Steal time the system reported during the run, USER_HZ ticks (--slowest).
        var stealTicks: UInt64 = 0

        /// Real-time streams one core sustains: audio seconds per CPU second.
        var streamsPerCore: Double { audioSeconds / cpuSeconds }
        /// The longest push after each stream's first second, µs.
        var maxAfterFirstSecond: Double { pushNanoseconds.last.map { Double($0) / 1000 } ?? .nan }
        func percentile(_ p: Double) -> Double { Self.percentile(pushNanoseconds, p) }

        /// Nearest-rank percentile of sorted nanoseconds, µs.
        static func percentile(_ sorted: [UInt32], _ p: Double) -> Double {
            guard !sorted.isEmpty else { return .nan }
            return Double(sorted[Swift.min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1000
        }
    }

    /// One push, timed and attributed (--slowest).
    struct PushTrace {
        /// Thread CPU time and wall time of the call, ns.
        var cpu: UInt32 = 0
        var wall: UInt32 = 0
        var stream: UInt32 = 0
        /// The push's index in its stream, and its place in the audio.
        var push: UInt32 = 0
        var position: UInt32 = 0
        /// Deltas of the thread's counters across the call.
        var minorFaults: UInt16 = 0
        var majorFaults: UInt16 = 0
        var voluntarySwitches: UInt16 = 0
        var involuntarySwitches: UInt16 = 0
        /// 16 ms hops the detector analysed in the call (from the 16 kHz samples it produced and
        /// the batch size: the spectral analyzer emits whole batches at fixed stream positions).
        var hops: UInt8 = 0
        /// An environment measurement in the call's events; segment boundaries among them.
        var environment: Bool = false
        var segmentEvents: UInt8 = 0
        /// The CPU before and after.
        var cpuBefore: Int16 = -1
        var cpuAfter: Int16 = -1
        /// When the call started, µs after the run started (wall clock).
        var startMicroseconds: UInt32 = 0
        /// Interrupts and softirqs the CPU handled across the call (--interrupts; the CPU before
        /// the call), which this kernel charges to the running thread's CPU time.
        var interrupts: UInt16 = 0
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

    /// `count` front ends of `configuration`, the resident growth per stream they caused and the
    /// CPU time each took to create.
    struct StreamSet {
        var configuration: SpeechFrontEnd.Configuration
        var frontEnds: [SpeechFrontEnd]
        var residentBytesPerStream: Double
        /// Thread CPU time of the creation loop over `count`, µs: what opening a stream costs a
        /// service (the first stream of a configuration also builds the tables streams share).
        var creationMicrosecondsPerStream: Double

        init(_ configuration: SpeechFrontEnd.Configuration, count: Int) throws {
            self.configuration = configuration
            let before = residentBytes()
            frontEnds = []
            frontEnds.reserveCapacity(count)
            let cpu0 = Clock.threadCPU()
            for _ in 0..<count { frontEnds.append(try SpeechFrontEnd(configuration: configuration)) }
            creationMicrosecondsPerStream = Double(Clock.threadCPU() - cpu0) / 1000 / Double(count)
            residentBytesPerStream = Double(residentBytes() - before) / Double(count)
            kept += frontEnds
        }
    }

    /// Frames the spectral analyzer has emitted once `samples` 16 kHz samples went in: whole
    /// batches of complete 256-sample hops.
    @inline(__always)
    static func hopsDue(_ samples: Int64, batch: Int64) -> Int64 {
        let complete = samples / 256
        return complete - complete % batch
    }

    /// Runs the streams of `set` over `samples` (interleaved), round-robin in pushes of
    /// `framesPerPush` frames, on `threads` threads, `passes` times (each stream reset first).
    static func run(
        _ set: StreamSet, samples: UnsafeBufferPointer<Float>, framesPerPush: Int, threads: Int, passes: Int, traces: Bool,
        interrupts: Bool = false
    ) throws -> Figures {
        let configuration = set.configuration
        let streams = set.frontEnds.count
        let channels = configuration.channelCount
        let batch = Int64(configuration.detectionHopsPerBatch)
        let pushSamples = framesPerPush * channels
        let pushes = samples.count / pushSamples
        let firstSecondPushes = (configuration.inputRate + framesPerPush - 1) / framesPerPush
        let ends = Box(set.frontEnds)
        let perThread = (streams + threads - 1) / threads
        let times = Box((0..<threads).map { _ in [UInt32]() })
        let traced = Box((0..<threads).map { _ in [PushTrace]() })
        let cpu = Box([UInt64](repeating: 0, count: threads))
        let maxima = Box([UInt32](repeating: 0, count: threads))
        let failures = Box([Int](repeating: 0, count: threads))
        let audio = Box(samples)
        let steal0 = traces ? cbs_system_steal_ticks() : 0
        let wall0 = Clock.monotonic()
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            let samples = audio.value
            let range = (t * perThread)..<Swift.min(streams, (t + 1) * perThread)
            guard !range.isEmpty else { return }
            for s in range { ends.value[s].reset() }
            let first = ends.value[range.lowerBound]
            first.reserveWorkspace()  // this thread's workspace, as a service's worker does at start-up
            let output = Scratch<Int16>(count: first.outputCapacity(forInputCount: pushSamples), repeating: 0)
            let events = FrontEndEventBuffer(capacity: first.maxEventCount(forInputCount: pushSamples))
            // Every array written in the loop is initialised here, so no page of it is touched
            // for the first time while a push is timed.
            let recordCount = range.count * Swift.max(0, pushes - firstSecondPushes) * passes
            var recorded = [UInt32](repeating: 0, count: recordCount)
            var trace = [PushTrace](repeating: PushTrace(), count: traces ? recordCount : 0)
            var position16k = [Int64](repeating: 0, count: traces ? streams : 0)
            var kept = 0
            var longest: UInt32 = 0
            var failed = 0
            let cpu0 = Clock.threadCPU()
            for pass in 0..<passes {
                if pass > 0 { for s in range { ends.value[s].reset() } }
                if traces { for s in range { position16k[s] = 0 } }
                for i in 0..<pushes {
                    let record = i >= firstSecondPushes
                    for s in range {
                        // Each stream starts at its own place in the audio.
                        let p = (i + s * 37) % pushes
                        let input = UnsafeBufferPointer(rebasing: samples[(p * pushSamples)..<((p + 1) * pushSamples)])
                        if traces && record {
                            let u0 = cbs_thread_usage_now()
                            let i0 = interrupts ? cbs_cpu_interrupts(u0.cpu) : 0
                            let w0 = Clock.monotonic()
                            let c0 = Clock.threadCPU()
                            let result = ends.value[s].process(input, into: output.buffer, events: events)
                            let c1 = Clock.threadCPU()
                            let w1 = Clock.monotonic()
                            let u1 = cbs_thread_usage_now()
                            let i1 = interrupts ? cbs_cpu_interrupts(u0.cpu) : 0
                            let ns = UInt32(truncatingIfNeeded: Swift.min(c1 &- c0, UInt64(UInt32.max)))
                            longest = Swift.max(longest, ns)
                            recorded[kept] = ns
                            var environment = false
                            var segments = 0
                            for event in events {
                                switch event {
                                case .environment: environment = true
                                case .started, .ended: segments += 1
                                default: break
                                }
                            }
                            let before = position16k[s]
                            position16k[s] += Int64(result.produced)
                            trace[kept] = PushTrace(
                                cpu: ns, wall: UInt32(truncatingIfNeeded: Swift.min(w1 &- w0, UInt64(UInt32.max))),
                                stream: UInt32(s), push: UInt32(i), position: UInt32(p),
                                minorFaults: Self.delta(u0.minor_faults, u1.minor_faults),
                                majorFaults: Self.delta(u0.major_faults, u1.major_faults),
                                voluntarySwitches: Self.delta(u0.voluntary_switches, u1.voluntary_switches),
                                involuntarySwitches: Self.delta(u0.involuntary_switches, u1.involuntary_switches),
                                hops: UInt8(Swift.min(255, hopsDue(position16k[s], batch: batch) - hopsDue(before, batch: batch))),
                                environment: environment, segmentEvents: UInt8(Swift.min(255, segments)),
                                cpuBefore: Int16(u0.cpu), cpuAfter: Int16(u1.cpu),
                                startMicroseconds: UInt32(truncatingIfNeeded: (w0 &- wall0) / 1000),
                                interrupts: Self.delta(i0, i1))
                            kept += 1
                            if result.consumed != pushSamples || result.droppedEvents != 0 { failed += 1 }
                            continue
                        }
                        let c0 = Clock.threadCPU()
                        let result = ends.value[s].process(input, into: output.buffer, events: events)
                        let c1 = Clock.threadCPU()
                        let ns = UInt32(truncatingIfNeeded: Swift.min(c1 &- c0, UInt64(UInt32.max)))
                        longest = Swift.max(longest, ns)
                        if record { recorded[kept] = ns; kept += 1 }
                        if traces { position16k[s] += Int64(result.produced) }
                        if result.consumed != pushSamples || result.droppedEvents != 0 { failed += 1 }
                    }
                }
            }
            cpu.value[t] = Clock.threadCPU() - cpu0
            recorded.removeSubrange(kept...)
            if traces { trace.removeSubrange(kept...) }
            times.value[t] = recorded
            traced.value[t] = trace
            maxima.value[t] = longest
            failures.value[t] = failed
        }
        let wall = Double(Clock.monotonic() - wall0) / 1e9
        if failures.value.reduce(0, +) > 0 { throw PipelineStreamsError.failedPushes(failures.value.reduce(0, +)) }
        var all = times.value.flatMap { $0 }
        all.sort()
        return Figures(
            streams: streams, threads: threads, cpuSeconds: Double(cpu.value.reduce(0, +)) / 1e9, wallSeconds: wall,
            audioSeconds: Double(streams * pushes * passes * framesPerPush) / Double(configuration.inputRate),
            pushNanoseconds: all, maxNanoseconds: maxima.value.max() ?? 0,
            residentBytesPerStream: set.residentBytesPerStream, traces: traced.value.flatMap { $0 },
            stealTicks: traces ? cbs_system_steal_ticks() &- steal0 : 0)
    }

    @inline(__always)
    static func delta(_ a: UInt64, _ b: UInt64) -> UInt16 { UInt16(Swift.min(UInt64(UInt16.max), b &- a)) }

    /// The report: per case, per round and batch size, one stream beside N interleaved; the
    /// memory per stage; with several batch sizes, each against the first, round by round.
    static func report(
        seconds: Double, framesPerPush: Int, streams: Int, threads: Int, rounds: Int, batches: [Int], slowest: Int,
        interrupts: Bool = false, speechBlend: Bool = true
    ) throws -> String {
        var lines: [String] = []
        let cases: [(rate: Int, channels: Int)] = [(48_000, 1), (44_100, 2)]
        for c in cases {
            let audio = BenchAudio(generatedSeconds: seconds, sampleRate: c.rate)
            let samples = UnsafeBufferPointer(c.channels == 2 ? audio.stereo.buffer : audio.mono.buffer)
            let label = "\(ResampleKernels.khz(c.rate)) kHz \(c.channels == 2 ? "stereo" : "mono")"
            let configurations = batches.map {
                var configuration = SpeechFrontEnd.Configuration(inputRate: c.rate, channelCount: c.channels, detectionHopsPerBatch: $0)
                if !speechBlend { configuration.detector.speechBlend = nil }
                return configuration
            }
            let memory = try SpeechFrontEnd.memoryFootprint(for: configurations[0])
            let batchText = batches.count == 1 ? "\(batches[0])" : batches.map(String.init).joined(separator: ", ") + ", alternated"
            lines.append("\(label), every stage on\(speechBlend ? "" : " (the speech blend off)"), \(framesPerPush)-frame pushes, \(Self.format(seconds)) s of audio, \(rounds) round(s), hops per batch \(batchText)")
            lines.append("  memory per stream (the front end's accounting, SpeechFrontEnd.memory):")
            for stage in memory.stages {
                let workspace = stage.footprint.workspaceBytes > 0 ? ", workspace \(Self.kB(stage.footprint.workspaceBytes)) kB" : ""
                lines.append("    \(stage.name.padding(toLength: 12, withPad: " ", startingAt: 0)) owned \(Self.kB(stage.footprint.ownedBytes)) kB, shared \(Self.kB(stage.footprint.sharedBytes)) kB\(workspace)")
            }
            lines.append("    total        owned \(Self.kB(memory.total.ownedBytes)) kB, shared \(Self.kB(memory.total.sharedBytes)) kB (once per configuration), workspace \(Self.kB(memory.total.workspaceBytes)) kB (once per thread)")
            let singles = try configurations.map { try StreamSet($0, count: 1) }
            let manies = try configurations.map { try StreamSet($0, count: streams) }
            for (b, (single, many)) in zip(singles, manies).enumerated() {
                lines.append(String(
                    format: "  creation CPU per stream, batch %d: %.0f µs for the configuration's first (builds the shared tables), %.1f µs for each of the next %d",
                    batches[b], single.creationMicrosecondsPerStream, many.creationMicrosecondsPerStream, streams))
            }
            lines.append("  round batch run                 streams/core  wall ×rt/thread  push p50 µs   p99    p99.9  max>1s    max    RSS/stream kB  p99.9÷p50")
            // figures[round][batch index]
            var results: [[(single: Figures, many: Figures)]] = []
            for round in 0..<rounds {
                var row = [(single: Figures, many: Figures)?](repeating: nil, count: batches.count)
                for k in 0..<batches.count {
                    let b = (k + round) % batches.count  // rotate the order from round to round
                    let single = try run(singles[b], samples: samples, framesPerPush: framesPerPush, threads: 1, passes: 10, traces: false)
                    let many = try run(
                        manies[b], samples: samples, framesPerPush: framesPerPush, threads: threads, passes: 1, traces: slowest > 0,
                        interrupts: interrupts)
                    row[b] = (single, many)
                }
                let done = row.map { $0! }
                results.append(done)
                for (b, pair) in done.enumerated() {
                    for (name, f) in [("1 stream, hot", pair.single), ("\(streams) interleaved, \(threads) thr", pair.many)] {
                        lines.append("  " + [
                            String(format: "%5d", round + 1), String(format: "%5d", batches[b]),
                            name.padding(toLength: 20, withPad: " ", startingAt: 0),
                            String(format: "%12.0f", f.streamsPerCore),
                            String(format: "%16.0f", f.audioSeconds / f.wallSeconds / Double(f.threads)),
                            String(format: "%11.2f", f.percentile(0.5)),
                            String(format: "%7.2f", f.percentile(0.99)),
                            String(format: "%7.2f", f.percentile(0.999)),
                            String(format: "%7.0f", f.maxAfterFirstSecond),
                            String(format: "%7.0f", Double(f.maxNanoseconds) / 1000),
                            f.streams > 1 ? String(format: "%14.1f", f.residentBytesPerStream / 1000) : "             -",
                            String(format: "%10.1f", f.percentile(0.999) / f.percentile(0.5)),
                        ].joined(separator: " "))
                    }
                }
                for (b, pair) in done.enumerated() {
                    var text = String(format: "  round %d, batch %d: interleaved ÷ single %.2f", round + 1, batches[b],
                                      pair.many.streamsPerCore / pair.single.streamsPerCore)
                    if b > 0 {
                        text += String(format: "; against batch %d: interleaved streams/core %.3f, single %.3f",
                                       batches[0], pair.many.streamsPerCore / done[0].many.streamsPerCore,
                                       pair.single.streamsPerCore / done[0].single.streamsPerCore)
                    }
                    lines.append(text)
                }
                if slowest > 0 {
                    for (b, pair) in done.enumerated() {
                        lines.append("  round \(round + 1), batch \(batches[b]), \(streams) interleaved: what the pushes after each stream's first second did")
                        lines += Self.breakdown(pair.many, slowest: slowest, interrupts: interrupts).map { "    " + $0 }
                    }
                }
            }
            lines.append("  p50/p99/p99.9 and max>1s after each stream's first second (CPU time of the thread), max over all pushes")
            if slowest > 0 {
                lines.append("  --slowest: the interleaved runs' streams/core include the tracing's own system calls (two getrusage per push); measure throughput without it")
            }
            lines.append("  thread workspaces held after the runs: \(Self.kB(ScratchWorkspace.allocatedBytes)) kB, over every thread that has run a push in this process (one workspace per thread, not per stream)")
        }
        return lines.joined(separator: "\n")
    }

    /// The push times by what the pushes did (hops analysed, an environment measurement), what
    /// went with the slow ones (faults, context switches, wall time beyond CPU time, a change of
    /// CPU), and the slowest pushes one by one.
    static func breakdown(_ f: Figures, slowest: Int, interrupts: Bool) -> [String] {
        var lines: [String] = []
        let traces = f.traces
        guard !traces.isEmpty else { return ["no pushes traced"] }
        let median = f.percentile(0.5) * 1000
        lines.append("class (hops analysed, environment measurement)  pushes   share    p50 µs    p99 µs  p99.9 µs    max µs")
        var classes: [String: [UInt32]] = [:]
        for t in traces {
            classes["\(t.hops) hops\(t.environment ? ", environment" : "")", default: []].append(t.cpu)
        }
        for key in classes.keys.sorted(by: { a, b in
            let ha = Int(a.prefix { $0.isNumber }) ?? 0, hb = Int(b.prefix { $0.isNumber }) ?? 0
            return ha != hb ? ha < hb : a < b
        }) {
            var values = classes[key]!
            values.sort()
            lines.append(key.padding(toLength: 47, withPad: " ", startingAt: 0) + [
                String(format: "%7d", values.count), String(format: "%6.2f %%", 100 * Double(values.count) / Double(traces.count)),
                String(format: "%9.1f", Figures.percentile(values, 0.5)), String(format: "%9.1f", Figures.percentile(values, 0.99)),
                String(format: "%9.1f", Figures.percentile(values, 0.999)), String(format: "%9.1f", Double(values.last!) / 1000),
            ].joined(separator: " "))
        }
        // Each push's slowdown: its CPU time over its class's median. A slow push's neighbours are
        // the pushes (other streams, other work) this thread made within ±1 ms of wall time; if
        // they were slow too, what slowed it was in the machine at that moment, not in the push.
        var medians: [String: Double] = [:]
        for (key, var values) in classes {
            values.sort()
            medians[key] = Double(values[values.count / 2])
        }
        let slowdowns = traces.map { Double($0.cpu) / medians["\($0.hops) hops\($0.environment ? ", environment" : "")"]! }
        /// The median slowdown of the pushes within ±1 ms of push `j` (itself excluded), and how many.
        func neighbours(_ j: Int) -> (slowdown: Double, count: Int) {
            var around: [Double] = []
            var k = j - 1
            while k >= 0, traces[j].startMicroseconds &- traces[k].startMicroseconds <= 1000 { around.append(slowdowns[k]); k -= 1 }
            k = j + 1
            while k < traces.count, traces[k].startMicroseconds &- traces[j].startMicroseconds <= 1000 { around.append(slowdowns[k]); k += 1 }
            around.sort()
            return (around.isEmpty ? .nan : around[around.count / 2], around.count)
        }
        let order = traces.indices.sorted { traces[$0].cpu > traces[$1].cpu }
        let top = Array(order.prefix(Swift.max(1, traces.count / 10_000)))
        let topNeighbours = top.map { neighbours($0).slowdown }.sorted()
        var rng = SystemRandomNumberGenerator()
        let sample = (0..<Swift.min(2000, traces.count)).map { _ in neighbours(Int.random(in: traces.indices, using: &rng)).slowdown }.sorted()
        lines.append(String(
            format: "the slowest 0.01 %% (%d pushes, %.0f µs and more) against their class's median: ×%.1f–×%.1f; the pushes within ±1 ms of them, median ×%.2f (quartiles ×%.2f–×%.2f); of random pushes ×%.2f (×%.2f–×%.2f)",
            top.count, Double(traces[top.last!].cpu) / 1000,
            slowdowns[top.last!], slowdowns[top.first!],
            topNeighbours[topNeighbours.count / 2], topNeighbours[topNeighbours.count / 4], topNeighbours[3 * topNeighbours.count / 4],
            sample[sample.count / 2], sample[sample.count / 4], sample[3 * sample.count / 4]))
        let faults = traces.reduce(0) { $0 + Int($1.minorFaults) }, major = traces.reduce(0) { $0 + Int($1.majorFaults) }
        let preempted = traces.reduce(0) { $0 + Int($1.involuntarySwitches) }, blocked = traces.reduce(0) { $0 + Int($1.voluntarySwitches) }
        if interrupts {
            let with = traces.filter { $0.interrupts > 0 }.count
            lines.append(String(format: "interrupts (--interrupts): %.2f %% of all pushes saw one on their CPU", 100 * Double(with) / Double(traces.count)))
        }
        lines.append("over all \(traces.count) pushes: \(faults) minor and \(major) major page faults, \(preempted) involuntary and \(blocked) voluntary context switches; system steal during the run \(f.stealTicks) ticks (1/100 s)")
        for threshold in [5 * median, 300_000.0, 1_000_000.0] {
            let slow = traces.filter { Double($0.cpu) > threshold }
            guard !slow.isEmpty else {
                lines.append(String(format: "pushes over %.0f µs CPU: none", threshold / 1000))
                continue
            }
            func count(_ p: (PushTrace) -> Bool) -> Int { slow.filter(p).count }
            lines.append(String(
                format: "pushes over %.0f µs CPU: %d (%.3f %%); with a minor fault %d, a major fault %d, preempted %d, blocked %d, moved CPU %d, wall > CPU + 50 µs %d, an interrupt %d, environment %d, hops 0/1/2/3/4+: %d/%d/%d/%d/%d",
                threshold / 1000, slow.count, 100 * Double(slow.count) / Double(traces.count),
                count { $0.minorFaults > 0 }, count { $0.majorFaults > 0 }, count { $0.involuntarySwitches > 0 },
                count { $0.voluntarySwitches > 0 }, count { $0.cpuBefore != $0.cpuAfter },
                count { Int64($0.wall) > Int64($0.cpu) + 50_000 }, count { $0.interrupts > 0 }, count { $0.environment },
                count { $0.hops == 0 }, count { $0.hops == 1 }, count { $0.hops == 2 }, count { $0.hops == 3 }, count { $0.hops >= 4 }))
        }
        lines.append("the \(slowest) slowest:   cpu µs  wall µs  stream   push  audio push  hops  env  seg  minflt  majflt  nvcsw  nivcsw  cpu   at ms  ±1 ms: pushes  their median ×  irq")
        for j in order.prefix(slowest) {
            let t = traces[j]
            let around = neighbours(j)
            lines.append("                " + [
                String(format: "%9.1f", Double(t.cpu) / 1000), String(format: "%8.1f", Double(t.wall) / 1000),
                String(format: "%7d", t.stream), String(format: "%6d", t.push), String(format: "%11d", t.position),
                String(format: "%5d", t.hops), t.environment ? "  yes" : "   no", String(format: "%4d", t.segmentEvents),
                String(format: "%7d", t.minorFaults), String(format: "%7d", t.majorFaults),
                String(format: "%6d", t.voluntarySwitches), String(format: "%7d", t.involuntarySwitches),
                "\(t.cpuBefore)→\(t.cpuAfter)".padding(toLength: 4, withPad: " ", startingAt: 0),
                String(format: "%7.1f", Double(t.startMicroseconds) / 1000), String(format: "%13d", around.count),
                String(format: "%16.2f", around.slowdown), interrupts ? String(format: "%4d", t.interrupts) : "   -",
            ].joined(separator: " "))
        }
        return lines
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
