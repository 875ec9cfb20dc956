import DSPAnalysis
import DSPCore
import DSPIO
import DSPPipeline
import Foundation
import Testing
import TestSupport

/// The repository's TestAudio folder.
let testAudio = TestAudio.directory

/// Interleaved samples of a TestAudio file, read with DSPIO.
struct TestSignal {
    var sampleRate: Int
    var channelCount: Int
    var samples: [Float]

    init(file name: String) throws {
        let reader = try AudioFileReader(path: testAudio.appendingPathComponent(name).path)
        sampleRate = reader.sampleRate
        channelCount = reader.channelCount
        samples = [Float](repeating: 0, count: reader.frameCount * reader.channelCount)
        var filled = 0
        try samples.withUnsafeMutableBufferPointer { buffer in
            while filled < buffer.count {
                let got = try reader.read(into: UnsafeMutableBufferPointer(rebasing: buffer[filled...]))
                if got == 0 { break }
                filled += got
            }
        }
        samples.removeLast(samples.count - filled)
        reader.close()
    }

    /// A deterministic test signal: a 300 Hz sine at −12 dBFS with noise, plus bursts driven past
    /// full scale and a few NaNs, `channelCount` channels with different noise.
    init(generatedSeconds seconds: Double, sampleRate: Int, channelCount: Int, seed: UInt64) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        let frames = Int(seconds * Double(sampleRate))
        samples = [Float](repeating: 0, count: frames * channelCount)
        var state = seed
        for i in 0..<frames {
            let t = Double(i) / Double(sampleRate)
            let burst = (i / (sampleRate / 4)) % 7 == 3  // a quarter-second burst every 1.75 s
            for c in 0..<channelCount {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let noise = Double(Int64(bitPattern: state >> 1) >> 30) * 0x1p-33
                var x = 0.25 * sin(2 * .pi * (300 + 40 * Double(c)) * t) + 0.02 * noise
                if burst { x *= 5 }
                samples[i * channelCount + c] = Float(x)
            }
            if i % 100_003 == 77 { samples[i * channelCount] = .nan }
        }
    }

    var frameCount: Int { samples.count / channelCount }
}

/// Everything a run of a front end produced.
struct FrontEndRun: Equatable, Sendable {
    var output: [Int16] = []
    var events: [FrontEndEvent] = []
    var dropped = 0
    var summary = FrontEndSummary()
}

/// Pushes `samples` through `frontEnd` in pushes of the sizes `nextPush` gives, then flushes
/// (unless `flushes` is false). `outputRoom` limits the output buffer offered per call (nil:
/// what maxOutputCount asks).
func run(
    _ frontEnd: SpeechFrontEnd, _ samples: [Float], outputRoom: Int? = nil, eventCapacity: Int? = nil,
    flushes: Bool = true, nextPush: () -> Int
) -> FrontEndRun {
    var result = FrontEndRun()
    let outputBuffer = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 1 << 20)
    defer { outputBuffer.deallocate() }
    let events = FrontEndEventBuffer(capacity: eventCapacity ?? 1 << 16)
    samples.withUnsafeBufferPointer { input in
        var offset = 0
        while offset < input.count {
            let n = Swift.min(nextPush(), input.count - offset)
            var pushed = 0
            while pushed < n {
                let chunk = UnsafeBufferPointer(rebasing: input[(offset + pushed)..<(offset + n)])
                let need = frontEnd.maxOutputCount(forInputCount: chunk.count)
                if need > frontEnd.outputCapacity(forInputCount: chunk.count) {
                    Issue.record("maxOutputCount \(need) above outputCapacity \(frontEnd.outputCapacity(forInputCount: chunk.count)) for \(chunk.count) samples")
                }
                precondition(eventCapacity != nil || frontEnd.maxEventCount(forInputCount: chunk.count) <= events.capacity)
                let room = Swift.min(outputRoom ?? need, need)
                let counts = frontEnd.process(chunk, into: UnsafeMutableBufferPointer(rebasing: outputBuffer[..<room]), events: events)
                result.output.append(contentsOf: outputBuffer[..<counts.produced])
                result.events.append(contentsOf: events)
                result.dropped += counts.droppedEvents
                if counts.consumed == 0 && room >= need { fatalError("no progress") }
                pushed += counts.consumed
            }
            offset += n
        }
    }
    guard flushes else { return result }
    let flushed = frontEnd.flush(into: outputBuffer, events: events)
    result.output.append(contentsOf: outputBuffer[..<flushed.produced])
    result.events.append(contentsOf: events)
    result.dropped += flushed.droppedEvents
    result.summary = flushed.summary
    return result
}

/// A run with fixed-size pushes.
func run(_ frontEnd: SpeechFrontEnd, _ samples: [Float], push: Int, flushes: Bool = true) -> FrontEndRun {
    run(frontEnd, samples, flushes: flushes) { push }
}

/// Deterministic pseudo-random push sizes in `range`.
struct PushSizes {
    var state: UInt64
    let range: ClosedRange<Int>
    mutating func next() -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return range.lowerBound + Int((state >> 33) % UInt64(range.count))
    }
}

extension FrontEndEvent {
    /// 0 segments, 1 environment, 2 clipping, 3 levels: events are in stream order within a kind.
    var kind: Int {
        switch self {
        case .started, .ended: 0
        case .environment: 1
        case .clipping: 2
        case .levels: 3
        }
    }
}

extension FrontEndRun {
    /// The events of each kind, in order (the order *between* kinds within one call depends on
    /// the call's size; within a kind it is stream order).
    var eventsByKind: [[FrontEndEvent]] { (0..<4).map { k in events.filter { $0.kind == k } } }

    /// A short description of the first difference from `other`, or nil when equal.
    func difference(from other: FrontEndRun) -> String? {
        if output.count != other.output.count { return "output lengths \(output.count) vs \(other.output.count)" }
        if let i = output.indices.first(where: { output[$0] != other.output[$0] }) {
            return "output[\(i)] \(output[i]) vs \(other.output[i])"
        }
        for (k, (a, b)) in zip(eventsByKind, other.eventsByKind).enumerated() {
            if a.count != b.count { return "kind \(k): \(a.count) vs \(b.count) events" }
            if let i = a.indices.first(where: { a[$0] != b[$0] }) { return "kind \(k) event \(i): \(a[i]) vs \(b[i])" }
        }
        if dropped != other.dropped { return "dropped \(dropped) vs \(other.dropped)" }
        if summary != other.summary { return "summaries \(summary) vs \(other.summary)" }
        return nil
    }
}
