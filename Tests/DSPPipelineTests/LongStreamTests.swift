import DSPCore
import DSPDetection
import DSPPipeline
import Foundation
import Testing
import TestSupport

/// One `SpeechFrontEnd` through a long, varied stream in random pushes: the output length is
/// sample-exact, every event's time is exact on its grid, segments pair up and measurements
/// come on their half-second grid, and memory stays flat. CI runs 10 minutes of audio (the
/// default); the 10-hour run is
/// `SPEECHDSP_SOAK_SECONDS=36000 swift test -c release --filter LongStream` (docs/reliability.md).
@Suite("LongStream: one front end, a long varied stream")
struct LongStreamTests {
    static var seconds: Int { Int(ProcessInfo.processInfo.environment["SPEECHDSP_SOAK_SECONDS"] ?? "") ?? 600 }

    /// Resident memory, bytes (Linux `/proc/self/statm`).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = Int(text.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    @Test("10 minutes (or SPEECHDSP_SOAK_SECONDS) at 44.1 kHz stereo in random pushes, in a process of its own")
    func longStream() async {
        // A child process (an exit test), so that its resident memory is the stream's alone
        // and not that of the tests running beside it; it exits 1 after printing what failed.
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let problems = try LongStreamTests.runLongStream()
            if !problems.isEmpty {
                FileHandle.standardError.write(Data(problems.prefix(10).joined(separator: "\n").utf8))
                exit(1)
            }
        }
        if let result, result.exitStatus != .exitCode(0) {
            Issue.record("the long stream failed: \(String(decoding: result.standardErrorContent.suffix(4000), as: UTF8.self))")
        }
    }

    /// The long stream; returns what went wrong.
    static func runLongStream() throws -> [String] {
        let rate = 44_100, channels = 2
        // Material: TestAudio clips (speech, music, noise) at varied gains, with silences and a
        // few hostile samples, cycled — deterministic, varied, cheap to generate on the fly.
        let clips = try ["speech_2ch_en-us_de_44k1.flac", "music_piano_bass_drums_44k1.flac", "music_violin_44k1.flac"]
            .map { try TestSignal(file: $0) }
            .map { $0.channelCount == 2 ? $0.samples : $0.samples.flatMap { [$0, $0] } }
        let totalFrames = Int64(Self.seconds) * Int64(rate)
        let frontEnd = try SpeechFrontEnd(configuration: .init(inputRate: rate, channelCount: channels))
        let maxPush = 4096 * channels
        let output = UnsafeMutableBufferPointer<Int16>.allocate(
            capacity: Swift.max(frontEnd.outputCapacity(forInputCount: maxPush), frontEnd.maxFlushOutputCount))
        defer { output.deallocate() }
        let events = FrontEndEventBuffer(capacity: Swift.max(frontEnd.maxEventCount(forInputCount: maxPush), frontEnd.maxFlushEventCount))
        var rng = SplitMix64(seed: 2026)
        var piece = [Float](repeating: 0, count: maxPush)
        var framesIn: Int64 = 0, samplesOut: Int64 = 0
        var open: [Activity: Int64] = [:]
        var lastMeasurement: Int64 = 0
        var measurements = 0
        var problems: [String] = []
        var clip = 0, clipOffset = 0, gain: Float = 1, silence = 0
        var residentAtTenth = 0
        func check() {
            for event in events {
                let t = event.time
                switch event {
                case .clipping(let c):
                    if c.start.outputSample != c.start.inputFrame * 16_000 / Int64(rate) { problems.append("clip time \(c.start)") }
                default:
                    if t.inputFrame != t.outputSample * Int64(rate) / 16_000 || t.seconds != Double(t.outputSample) / 16_000 {
                        problems.append("time \(t)")
                    }
                }
                switch event {
                case .started(let a, let t):
                    if open[a] != nil { problems.append("\(a) started twice") }
                    open[a] = t.outputSample
                case .ended(let a, let t):
                    if let s = open[a], s < t.outputSample {} else { problems.append("\(a) ended without a start") }
                    open[a] = nil
                case .environment(let m, _):
                    if m.endSample <= lastMeasurement || m.endSample > samplesOut + 16_000 { problems.append("measurement at \(m.endSample)") }
                    lastMeasurement = m.endSample
                    measurements += 1
                default: break
                }
            }
            if events.droppedCount > 0 { problems.append("dropped \(events.droppedCount) events") }
        }
        while framesIn < totalFrames {
            let frames = Int(Swift.min(Int64(Int.random(in: 1...4096, using: &rng)), totalFrames - framesIn))
            for i in 0..<frames {
                if silence > 0 {
                    piece[2 * i] = 0; piece[2 * i + 1] = 0
                    silence -= 1
                    continue
                }
                let source = clips[clip]
                piece[2 * i] = source[clipOffset] * gain
                piece[2 * i + 1] = source[clipOffset + 1] * gain
                clipOffset += 2
                if clipOffset >= source.count {
                    clip = (clip + 1) % clips.count
                    clipOffset = 0
                    gain = Float.random(in: 0.003...1.4, using: &rng)   // −50 dBFS … past full scale
                    silence = Int.random(in: 0...rate, using: &rng)
                }
            }
            if framesIn % 997_919 < Int64(frames) { piece[0] = .nan; piece[1] = 1e38 }
            let result = piece.withUnsafeBufferPointer { frontEnd.process(UnsafeBufferPointer(rebasing: $0[..<(frames * 2)]), into: output, events: events) }
            if result.consumed != frames * 2 { problems.append("consumed \(result.consumed) of \(frames * 2)") }
            framesIn += Int64(frames)
            samplesOut += Int64(result.produced)
            check()
            if residentAtTenth == 0, framesIn >= totalFrames / 10 { residentAtTenth = Self.residentBytes() }
            if problems.count > 20 { break }
        }
        let flushed = frontEnd.flush(into: output, events: events)
        samplesOut += Int64(flushed.produced)
        check()
        if samplesOut != (2 * totalFrames * 16_000 + Int64(rate)) / (2 * Int64(rate)) { problems.append("\(samplesOut) samples out") }
        if flushed.summary.inputFrameCount != totalFrames || flushed.summary.outputSampleCount != samplesOut {
            problems.append("summary \(flushed.summary.inputFrameCount) frames, \(flushed.summary.outputSampleCount) samples")
        }
        if !open.isEmpty { problems.append("open at the end: \(open)") }
        if abs(measurements - Self.seconds * 2) > 1 { problems.append("\(measurements) measurements") }
        // Memory flat: what the stream holds was allocated at construction. (Not under
        // AddressSanitizer, whose shadow memory and quarantine make resident memory grow with
        // what the rest of the process does: its own checks cover the stream there.)
        let growth = Self.residentBytes() - residentAtTenth
        let addressSanitizer = dlsym(nil, "__asan_init") != nil  // dlsym(nil, …): RTLD_DEFAULT on glibc
        if growth >= 8 << 20, !addressSanitizer {
            problems.append("resident memory grew by \(growth) bytes after the first tenth")
        }
        return problems
    }

    @Test("reset() in mid-stream: the next stream is the same as on a fresh front end")
    func resetMidStream() throws {
        let signal = TestSignal(generatedSeconds: 3, sampleRate: 48_000, channelCount: 2, seed: 8)
        let fresh = run(try SpeechFrontEnd(configuration: .init(inputRate: 48_000, channelCount: 2)), signal.samples, push: 1000)
        let frontEnd = try SpeechFrontEnd(configuration: .init(inputRate: 48_000, channelCount: 2))
        let half = Array(signal.samples[..<(signal.samples.count / 2 + 1)])  // ends inside a frame
        _ = run(frontEnd, half, push: 777, flushes: false)
        frontEnd.reset()
        #expect(frontEnd.snapshot() == FrontEndSnapshot() || frontEnd.snapshot().inputFrameCount == 0)
        let again = run(frontEnd, signal.samples, push: 1000)
        #expect(again.difference(from: fresh) == nil)
    }
}
