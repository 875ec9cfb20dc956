import DSPAnalysis
import DSPCore
import DSPDetection
import Foundation
import Testing
@testable import DSPPipeline

/// The front end's output must equal the chain of its units run by hand.
private func referenceOutput(_ signal: TestSignal) throws -> [Int16] {
    var mono = signal.samples
    if signal.channelCount > 1 {
        mono = try Downmixer(channelCount: signal.channelCount).processAll(signal.samples)
    }
    if signal.sampleRate != 16_000 {
        mono = try Resampler(inputRate: signal.sampleRate, outputRate: 16_000, trimsLeadingDelay: true).processAll(mono)
    }
    var out = [Int16](repeating: 0, count: mono.count)
    mono.withUnsafeBufferPointer { m in out.withUnsafeMutableBufferPointer { _ = Int16Conversion.convert(m, into: $0) } }
    return out
}

private func levels(_ events: [FrontEndEvent]) -> [FrameLevelReport] {
    events.compactMap { if case .levels(let r) = $0 { r } else { nil } }
}

private func clips(_ events: [FrontEndEvent]) -> [ClippingReport] {
    events.compactMap { if case .clipping(let r) = $0 { r } else { nil } }
}

@Suite("SpeechFrontEnd: chain, chunking invariance, events, time")
struct SpeechFrontEndTests {
    @Test("configuration: bad values are refused")
    func configuration() {
        #expect(throws: ConfigurationError.self) { try SpeechFrontEnd(configuration: .init(inputRate: 7_999)) }
        #expect(throws: ConfigurationError.self) { try SpeechFrontEnd(configuration: .init(inputRate: 48_000, channelCount: 0)) }
        #expect(throws: ConfigurationError.self) {
            try SpeechFrontEnd(configuration: .init(inputRate: 48_000, channelCount: 2, downmix: .channel(2)))
        }
        #expect(throws: ConfigurationError.self) { try SpeechFrontEnd(configuration: .init(inputRate: 48_000, clipThreshold: 0)) }
        #expect(throws: ConfigurationError.self) {
            try SpeechFrontEnd(configuration: .init(inputRate: 48_000, stages: [.output, .environment]))
        }
    }

    @Test("output equals Downmixer → Resampler (trimmed) → Int16 and has exactly round(N·16000/rate) samples",
          arguments: ["speech_2ch_en-us_de_44k1.flac", "speech_en-us_48k.flac", "speech_clipped_16k.wav"])
    func chainAndLength(file: String) throws {
        let signal = try TestSignal(file: file)
        let frontEnd = try SpeechFrontEnd(configuration: .init(inputRate: signal.sampleRate, channelCount: signal.channelCount))
        let result = run(frontEnd, signal.samples, push: 1024)
        let expectedCount = (2 * signal.frameCount * 16_000 + signal.sampleRate) / (2 * signal.sampleRate)
        #expect(result.output.count == expectedCount)
        let reference = try referenceOutput(signal)
        #expect(result.output.count == reference.count)
        #expect(result.output.indices.first { result.output[$0] != reference[$0] } == nil)
        #expect(result.summary.outputSampleCount == Int64(expectedCount))
        #expect(result.summary.inputFrameCount == Int64(signal.frameCount))
        #expect(result.dropped == 0)
        // One level event per 1024-sample frame of the output (the last one partial).
        let frames = levels(result.events)
        #expect(frames.count == (expectedCount + 1023) / 1024)
        for (k, frame) in frames.enumerated() {
            #expect(frame.start.outputSample == Int64(k * 1024))
            #expect(frame.start.inputFrame == Int64(k * 1024) * Int64(signal.sampleRate) / 16_000)
            #expect(frame.start.seconds == Double(k * 1024) / 16_000)
        }
        #expect(frames.last?.sampleCount == expectedCount - 1024 * (frames.count - 1))
        // Levels match the meter on the reference output's frames.
        if let first = frames.dropFirst(3).first {
            let start = Int(first.start.outputSample)
            let slice = reference[start..<start + 1024].map { Float($0) / 32768 }
            let level = slice.withUnsafeBufferPointer { try! LevelMeter().measure($0) }
            #expect(abs(level.rmsDBFS - first.rmsDBFS) < 0.01)  // the meter sees Float, the reference Int16
        }
    }

    @Test("output and events are identical for one push, 1024-sample pushes, random 1…4096 pushes and a tight output buffer",
          arguments: [(48_000, 2), (44_100, 1), (16_000, 3)])
    func chunkingInvariance(rate: Int, channels: Int) throws {
        let signal = TestSignal(generatedSeconds: 2.3, sampleRate: rate, channelCount: channels, seed: 7)
        let configuration = SpeechFrontEnd.Configuration(inputRate: rate, channelCount: channels)
        let frontEnd = try SpeechFrontEnd(configuration: configuration)
        let whole = run(frontEnd, signal.samples) { signal.samples.count }
        #expect(!clips(whole.events).isEmpty)
        #expect(!levels(whole.events).isEmpty)
        let fixed = run(frontEnd, signal.samples, push: 1024 * channels)
        #expect(fixed.difference(from: whole) == nil)
        var sizes = PushSizes(state: UInt64(rate), range: 1...4096)
        let random = run(frontEnd, signal.samples) { sizes.next() }
        #expect(random.difference(from: whole) == nil)
        let singles = run(frontEnd, Array(signal.samples.prefix(3001 * channels)), push: 1)
        let singlesWhole = run(frontEnd, Array(signal.samples.prefix(3001 * channels)), push: 3001 * channels)
        #expect(singles.difference(from: singlesWhole) == nil)
        // An output buffer of 100 samples: calls consume part of their input, nothing is lost.
        var sizes2 = PushSizes(state: 99, range: 1...4096)
        let tight = run(frontEnd, signal.samples, outputRoom: 100) { sizes2.next() }
        #expect(tight.difference(from: whole) == nil)
        // A fresh instance and reset give the same.
        let fresh = run(try SpeechFrontEnd(configuration: configuration), signal.samples, push: 1024)
        #expect(fresh.difference(from: whole) == nil)
    }

    @Test("clipping is counted on the input in 100 ms windows, exact in input frames")
    func clippingEvents() throws {
        for channels in [1, 2] {
            var samples = [Float](repeating: 0.1, count: 48_000 * channels)
            samples[9_610 * channels] = 1.5           // window 2 (frames 9600…14399)
            samples[20_000 * channels + channels - 1] = .nan  // window 4, last channel
            for i in 0..<3 { samples[(48_000 - 10 + i) * channels] = -1 }  // window 9, at −full scale
            let frontEnd = try SpeechFrontEnd(configuration: .init(inputRate: 48_000, channelCount: channels))
            var sizes = PushSizes(state: 3, range: 1...5000)
            let events = clips(run(frontEnd, samples) { sizes.next() }.events)
            #expect(events.count == 3)
            #expect(events.map(\.start.inputFrame) == [9_600, 19_200, 43_200])
            #expect(events.map(\.start.outputSample) == [3_200, 6_400, 14_400])
            #expect(events.map(\.start.seconds) == [0.2, 0.4, 0.9])
            #expect(events.map(\.clippedSampleCount) == [1, 0, 3])
            #expect(events.map(\.nonFiniteSampleCount) == [0, 1, 0])
            #expect(events.allSatisfy { $0.frameCount == 4_800 })
        }
        // A partial last window is reported at flush with its true length.
        var samples = [Float](repeating: 0, count: 5_000)
        samples[4_999] = 2
        let frontEnd = try SpeechFrontEnd(configuration: .init(inputRate: 48_000, stages: [.clipping]))
        let result = run(frontEnd, samples, push: 333)
        #expect(result.output.isEmpty)
        #expect(clips(result.events) == [ClippingReport(
            start: StreamTime(inputFrame: 4_800, outputSample: 1_600, seconds: 0.1), frameCount: 200,
            clippedSampleCount: 1, nonFiniteSampleCount: 0)])
        #expect(result.summary.clippedSampleCount == 1)
    }

    @Test("stages switch off: no output, no level events, no loudness")
    func stagesOff() throws {
        let signal = TestSignal(generatedSeconds: 1, sampleRate: 48_000, channelCount: 2, seed: 1)
        let analysisOnly = try SpeechFrontEnd(configuration: .init(inputRate: 48_000, channelCount: 2, stages: [.levels]))
        #expect(analysisOnly.maxOutputCount(forInputCount: 4096) == 0)
        #expect(analysisOnly.maxFlushOutputCount == 0)
        let a = run(analysisOnly, signal.samples, push: 2048)
        #expect(a.output.isEmpty)
        #expect(levels(a.events).count == 16)  // 16 000 samples → 15 whole frames + 1 partial
        #expect(levels(a.events).allSatisfy { $0.momentaryLUFS.isNaN })
        #expect(clips(a.events).isEmpty)
        #expect(a.summary.loudness == nil)
        let outputOnly = try SpeechFrontEnd(configuration: .init(inputRate: 48_000, channelCount: 2, stages: [.output]))
        let o = run(outputOnly, signal.samples, push: 2048)
        #expect(o.events.isEmpty)
        #expect(o.output.count == 16_000)
        let everything = try SpeechFrontEnd(configuration: .init(inputRate: 48_000, channelCount: 2))
        let e = run(everything, signal.samples, push: 2048)
        #expect(e.output.count == o.output.count && e.output.indices.allSatisfy { e.output[$0] == o.output[$0] })
        #expect(levels(e.events).map(\.rmsDBFS) == levels(a.events).map(\.rmsDBFS))
        #expect(levels(e.events).dropFirst(8).allSatisfy { $0.momentaryLUFS.isFinite })
        let integrated = e.summary.loudness?.integratedLUFS ?? -.infinity
        #expect(integrated.isFinite)
    }

    @Test("a full event buffer drops and counts, never silently; maxEventCount sizes it")
    func eventOverflow() throws {
        let signal = TestSignal(generatedSeconds: 2, sampleRate: 48_000, channelCount: 1, seed: 5)
        let frontEnd = try SpeechFrontEnd(configuration: .init(inputRate: 48_000))
        let full = run(frontEnd, signal.samples, push: 8192)
        #expect(full.dropped == 0)
        let small = run(frontEnd, signal.samples, eventCapacity: 1) { 8192 }
        #expect(small.dropped > 0)
        #expect(small.events.count + small.dropped == full.events.count)
        let buffer = FrontEndEventBuffer(capacity: 2)
        buffer.append(.started(.speech, at: StreamTime(inputFrame: 0, outputSample: 0, seconds: 0)))
        buffer.append(.started(.speech, at: StreamTime(inputFrame: 0, outputSample: 0, seconds: 0)))
        buffer.append(.started(.speech, at: StreamTime(inputFrame: 0, outputSample: 0, seconds: 0)))
        #expect(buffer.count == 2 && buffer.droppedCount == 1 && buffer.totalDroppedCount == 1)
        buffer.removeAll()
        #expect(buffer.isEmpty && buffer.droppedCount == 0 && buffer.totalDroppedCount == 1)
    }

    @Test("edge inputs: empty stream, a partial interleaved frame, all NaN")
    func edges() throws {
        let frontEnd = try SpeechFrontEnd(configuration: .init(inputRate: 44_100, channelCount: 2))
        let empty = run(frontEnd, [], push: 1)
        #expect(empty.output.isEmpty && empty.events.isEmpty)
        // One sample of a stereo frame: padded with a zero right channel at flush.
        let half = run(frontEnd, [0.5], push: 1)
        #expect(half.output.count == 0)  // round(1 × 16000 / 44100) = 0
        #expect(half.summary.inputFrameCount == 1)
        let nan = run(frontEnd, [Float](repeating: .nan, count: 44_100 * 2), push: 1000)
        #expect(nan.output.count == 16_000)
        #expect(nan.output.allSatisfy { $0 == 0 })  // NaN through the FIR is NaN, and NaN → 0
        #expect(nan.summary.nonFiniteSampleCount == 88_200)
        #expect(clips(nan.events).reduce(0) { $0 + $1.nonFiniteSampleCount } == 88_200)
    }

    @Test("the front end is Sendable: created on one thread, used on another")
    func sendable() async throws {
        func requireSendable<T: Sendable>(_: T) {}
        let frontEnd = try SpeechFrontEnd(configuration: .init(inputRate: 48_000))
        requireSendable(frontEnd)
        let signal = TestSignal(generatedSeconds: 0.5, sampleRate: 48_000, channelCount: 1, seed: 2)
        let samples = signal.samples
        let there = await Task.detached { run(frontEnd, samples, push: 1024) }.value
        let here = run(frontEnd, samples, push: 1024)
        #expect(there.difference(from: here) == nil)
    }

    @Test("timeline: exact positions and seconds after 10 hours at 48 and 44.1 kHz")
    func timelineTenHours() throws {
        let tenHours: Int64 = 36_000
        for rate in [48_000, 44_100, 16_000] as [Int64] {
            let timeline = try #require(try? StreamTimeline(inputRate: Int(rate), outputRate: 16_000))
            let end = timeline.time(outputSample: tenHours * 16_000)
            #expect(end.inputFrame == tenHours * rate)
            #expect(end.seconds == 36_000)
            let input = timeline.time(inputFrame: tenHours * rate)
            #expect(input.outputSample == tenHours * 16_000)
            #expect(input.seconds == 36_000)
        }
        // 44.1 kHz: the frame at 10 h + 64 ms starts at input frame ⌊(576 001 024 × 44100) / 16000⌋.
        let t = try #require(try? StreamTimeline(inputRate: 44_100, outputRate: 16_000)).time(outputSample: 576_001_024)
        #expect(t.inputFrame == 1_587_602_822)
        #expect(t.seconds == 36_000.064)
    }
}
