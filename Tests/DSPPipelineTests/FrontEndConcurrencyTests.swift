// Many streams on several threads give exactly what each gives alone. CI runs this suite under
// Thread Sanitizer: `swift test --sanitize=thread --scratch-path .build-tsan --filter FrontEndConcurrency`.
import DSPCore
import DSPPipeline
import Foundation
import Synchronization
import Testing

/// One stream's input and configuration.
private struct StreamCase: Sendable {
    let configuration: SpeechFrontEnd.Configuration
    let samples: [Float]
    let pushSeed: UInt64

    init(index: Int) {
        let (rate, channels) = [(48_000, 2), (44_100, 1), (16_000, 1), (48_000, 1)][index % 4]
        let signal = TestSignal(generatedSeconds: 0.75, sampleRate: rate, channelCount: channels, seed: UInt64(1000 + index))
        configuration = .init(inputRate: rate, channelCount: channels)
        samples = signal.samples
        pushSeed = UInt64(index + 1)
    }
}

/// A stream being pushed a random-sized piece at a time.
private final class StreamProgress {
    let frontEnd: SpeechFrontEnd
    let samples: [Float]
    var sizes: PushSizes
    var offset = 0
    var result = FrontEndRun()
    let output = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 1 << 16)
    let events = FrontEndEventBuffer(capacity: 1024)

    init(frontEnd: SpeechFrontEnd, stream: StreamCase) {
        self.frontEnd = frontEnd
        samples = stream.samples
        sizes = PushSizes(state: stream.pushSeed, range: 1...4096)
    }

    deinit { output.deallocate() }

    /// Pushes the next piece, or flushes; returns false when the stream is finished.
    func step() -> Bool {
        if offset < samples.count {
            let n = Swift.min(sizes.next(), samples.count - offset)
            samples.withUnsafeBufferPointer { input in
                let counts = frontEnd.process(UnsafeBufferPointer(rebasing: input[offset..<offset + n]), into: output, events: events)
                precondition(counts.consumed == n)
                result.output.append(contentsOf: output[..<counts.produced])
                result.events.append(contentsOf: events)
                result.dropped += counts.droppedEvents
            }
            offset += n
            return true
        }
        let flushed = frontEnd.flush(into: output, events: events)
        result.output.append(contentsOf: output[..<flushed.produced])
        result.events.append(contentsOf: events)
        result.dropped += flushed.droppedEvents
        result.summary = flushed.summary
        return false
    }
}

@Suite("FrontEndConcurrency: many streams on several threads")
struct FrontEndConcurrencyTests {
    static let threads = 4
    static let streamsPerThread = 8

    /// Each stream alone, on the test's thread, in the same push sizes.
    private static func alone(_ stream: StreamCase) throws -> FrontEndRun {
        let progress = StreamProgress(frontEnd: try SpeechFrontEnd(configuration: stream.configuration), stream: stream)
        while progress.step() {}
        return progress.result
    }

    @Test("8 streams × 4 threads, created here, interleaved there: outputs identical to single-threaded runs")
    func streamsAcrossThreads() throws {
        let streams = (0..<(Self.threads * Self.streamsPerThread)).map(StreamCase.init(index:))
        let expected = try streams.map(Self.alone)
        // Created on this thread, processed on others.
        let frontEnds = try streams.map { try SpeechFrontEnd(configuration: $0.configuration) }
        let results = Mutex<[Int: FrontEndRun]>([:])
        let done = DispatchGroup()
        for t in 0..<Self.threads {
            done.enter()
            let thread = Thread {
                let mine = (0..<Self.streamsPerThread).map { t * Self.streamsPerThread + $0 }
                let progress = mine.map { StreamProgress(frontEnd: frontEnds[$0], stream: streams[$0]) }
                // Round-robin: every stream advances a piece at a time, interleaved.
                var active = Array(progress.indices)
                while !active.isEmpty { active.removeAll { !progress[$0].step() } }
                results.withLock { for (i, p) in zip(mine, progress) { $0[i] = p.result } }
                done.leave()
            }
            thread.start()
        }
        done.wait()
        let collected = results.withLock { $0 }
        #expect(collected.count == streams.count)
        for i in streams.indices {
            let result = try #require(collected[i])
            #expect(result.difference(from: expected[i]) == nil, "stream \(i)")
            #expect(!result.output.isEmpty)
        }
    }

    @Test("one stream handed from thread to thread between calls gives the single-threaded result")
    func handOff() async throws {
        let stream = StreamCase(index: 0)
        let expected = try Self.alone(stream)
        // Only the (Sendable) front end travels; each call runs in its own detached task, on
        // whichever pool thread picks it up, with buffers of its own.
        let frontEnd = try SpeechFrontEnd(configuration: stream.configuration)
        let samples = stream.samples
        var sizes = PushSizes(state: stream.pushSeed, range: 1...4096)
        var result = FrontEndRun()
        var offset = 0
        while offset < samples.count {
            let range = offset..<Swift.min(samples.count, offset + sizes.next())
            let piece = await Task.detached { () -> FrontEndRun in
                let output = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 1 << 16)
                defer { output.deallocate() }
                let events = FrontEndEventBuffer(capacity: 1024)
                var piece = FrontEndRun()
                samples.withUnsafeBufferPointer { input in
                    let counts = frontEnd.process(UnsafeBufferPointer(rebasing: input[range]), into: output, events: events)
                    piece.output = Array(output[..<counts.produced])
                    piece.events = Array(events)
                    piece.dropped = counts.droppedEvents
                }
                return piece
            }.value
            result.output += piece.output
            result.events += piece.events
            result.dropped += piece.dropped
            offset = range.upperBound
        }
        let tail = await Task.detached { () -> FrontEndRun in
            let output = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 1 << 16)
            defer { output.deallocate() }
            let events = FrontEndEventBuffer(capacity: 1024)
            let flushed = frontEnd.flush(into: output, events: events)
            return FrontEndRun(output: Array(output[..<flushed.produced]), events: Array(events), dropped: flushed.droppedEvents, summary: flushed.summary)
        }.value
        result.output += tail.output
        result.events += tail.events
        result.dropped += tail.dropped
        result.summary = tail.summary
        #expect(result.difference(from: expected) == nil)
    }

    @Test("a monitoring thread reads snapshots while the stream runs: consistent, monotonic, never blocking it")
    func snapshotsWhileRunning() async throws {
        let stream = StreamCase(index: 0)  // 48 kHz stereo
        let frontEnd = try SpeechFrontEnd(configuration: stream.configuration)
        let expected = try Self.alone(stream)
        let done = Atomic<Bool>(false)
        let monitor = Task.detached { () -> (reads: Int, problems: [String]) in
            var reads = 0
            var problems: [String] = []
            var last = FrontEndSnapshot()
            while !done.load(ordering: .acquiring) || reads == 0 {
                let s = frontEnd.snapshot()
                reads += 1
                // One snapshot is one call's state: the counts agree with each other.
                let due = (2 * s.inputFrameCount * 16_000 + 48_000) / (2 * 48_000)
                if s.outputSampleCount > due || s.outputSampleCount < due - 64 {
                    problems.append("torn: \(s.inputFrameCount) frames in, \(s.outputSampleCount) samples out")
                }
                if s.inputFrameCount < last.inputFrameCount || s.outputSampleCount < last.outputSampleCount {
                    problems.append("went back: \(last.inputFrameCount) -> \(s.inputFrameCount)")
                }
                if let m = s.environment, m.endSample > s.outputSampleCount {
                    problems.append("measurement at \(m.endSample) after \(s.outputSampleCount) samples")
                }
                last = s
            }
            return (reads, problems)
        }
        let progress = StreamProgress(frontEnd: frontEnd, stream: stream)
        while progress.offset < progress.samples.count { _ = progress.step() }
        let beforeFlush = frontEnd.snapshot()
        done.store(true, ordering: .releasing)
        let (reads, problems) = await monitor.value
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        #expect(reads > 0)
        // The last snapshot before the flush is the stream's state then.
        #expect(beforeFlush.inputFrameCount == Int64(stream.samples.count / 2))
        #expect(beforeFlush.integratedLUFS.isFinite && beforeFlush.momentaryLUFS.isFinite)
        while progress.step() {}
        #expect(progress.result.difference(from: expected) == nil)
        frontEnd.reset()
        #expect(frontEnd.snapshot() == FrontEndSnapshot() || frontEnd.snapshot().momentaryLUFS.isNaN)
    }
}
