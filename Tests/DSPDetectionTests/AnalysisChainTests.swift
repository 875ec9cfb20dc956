import DSPCore
import DSPDetection
import DSPIO
import Testing
import TestSupport

/// The analysis chain as a streaming unit, and what it reports on labelled audio.
@Suite("AnalysisChain")
struct AnalysisChainTests {
    /// A TestAudio file conditioned to 16 kHz mono, as every caller of the chain conditions it.
    static func mono16k(_ name: String) throws -> [Float] {
        let reader = try AudioFileReader(path: TestAudio.path(name))
        defer { reader.close() }
        var samples = [Float](repeating: 0, count: reader.frameCount * reader.channelCount)
        let got = try samples.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
        let conditioner = try StreamConditioner(configuration: .init(inputRate: reader.sampleRate, channelCount: reader.channelCount))
        return conditioner.processAll(Array(samples[..<got]))
    }

    @Test("the streaming contract: chunking, flush and reset change nothing",
          arguments: ["eval_speech_music_16k.flac", "eval_overlap_16k.flac"])
    func contract(file: String) throws {
        let signal = try Self.mono16k(file)
        let failures = try checkStreamingUnit({ try AnalysisChain() }, input: signal, singleSamples: false, same: ==)
        #expect(failures.isEmpty, "\(failures)")
        // Single samples on a shorter piece (a push per sample is slow in a debug build).
        let short = Array(signal[..<24_000])
        let reference = runStream(try AnalysisChain(), short, chunking: .whole)
        #expect(runStream(try AnalysisChain(), short, chunking: .single) == reference)
    }

    @Test("an event buffer too small for the push takes only what fits, and loses nothing")
    func smallEventBuffer() throws {
        let signal = try Self.mono16k("eval_speech_music_16k.flac")
        let reference = runStream(try AnalysisChain(), signal, chunking: .whole)
        for room in [4, 5, 9] {
            #expect(runStream(try AnalysisChain(), signal, chunking: .random, outputRoom: room) == reference, "room \(room)")
        }
    }

    @Test("events pair up: every start has its end, in order, inside the stream")
    func segmentsPairUp() throws {
        let signal = try Self.mono16k("eval_speech_music_16k.flac")
        let chain = try AnalysisChain()
        let events = chain.processAll(signal)
        var open: [Activity: Int64] = [:]
        var measurements: [Int64] = []
        for event in events {
            switch event {
            case .started(let a, let t):
                #expect(open[a] == nil)
                open[a] = t
            case .ended(let a, let t):
                let start = try #require(open[a])
                #expect(t > start && t <= Int64(signal.count))
                open[a] = nil
            case .environment(let m):
                measurements.append(m.endSample)
            }
        }
        #expect(open.isEmpty)
        #expect(measurements == measurements.sorted() && measurements.last == Int64(signal.count))
        #expect(events.contains(.started(.speech, at: events.compactMap { if case .started(.speech, let t) = $0 { t } else { nil } }.first ?? -1)))
        let summary = chain.finalize()
        #expect(summary.detection.sampleCount == Int64(signal.count))  // the flushed stream's totals
    }
}
