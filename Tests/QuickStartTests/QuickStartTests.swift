import DSPCore
import DSPIO
import DSPPipeline
import Foundation
import Testing
import TestSupport

/// The documents' snippets (`Snippets/`), run: each does what its text says.
@Suite("Quick start: the documented recipes run")
struct QuickStartTests {
    /// A TestAudio file, whole.
    static func read(_ name: String) throws -> AudioFileContents {
        try AudioFileReader.readAll(path: TestAudio.path(name))
    }

    /// 48 kHz speech made stereo (the service recipe's input format).
    static func stereo48k() throws -> [Float] {
        let mono = try read("speech_en-us_48k.flac")
        #expect(mono.sampleRate == 48_000 && mono.channelCount == 1)
        return mono.samples.flatMap { [$0, $0 * 0.5] }
    }

    @Test("service: a session with bufferSizes takes every push whole and drops nothing; its output is the front end's")
    func service() throws {
        let stereo = try Self.stereo48k()
        let session = try RecognizerSession(maxPush: 4096)
        var pcm: [Int16] = []
        var events: [FrontEndEvent] = []
        try stereo.withUnsafeBufferPointer { input in
            var offset = 0
            var sizes = SplitMix64(seed: 3)
            while offset < input.count {
                let n = Swift.min(Int(sizes.next() % 4096) + 1, input.count - offset)
                let before = session.frontEnd.snapshot().inputFrameCount
                session.receive(UnsafeBufferPointer(rebasing: input[offset..<(offset + n)]), send: { pcm += $0 }, handle: { events.append($0) })
                // All of the push was taken (frames are counted once complete).
                let after = session.frontEnd.snapshot().inputFrameCount
                try #require(after == Int64((offset + n) / 2) || after == Int64((offset + n + 1) / 2), "push at \(offset) not taken whole (\(before) → \(after))")
                offset += n
            }
        }
        let summary = session.finish(send: { pcm += $0 }, handle: { events.append($0) })
        #expect(session.events.totalDroppedCount == 0)
        #expect(summary.inputFrameCount == Int64(stereo.count / 2))
        let reference = try SpeechFrontEnd(configuration: .init(inputRate: 48_000, channelCount: 2)).processAll(stereo)
        #expect(pcm == reference.pcm)
        #expect(events.filter { if case .started = $0 { true } else { false } }.count
            == reference.events.filter { if case .started = $0 { true } else { false } }.count)
        #expect(events.contains { if case .started(.speech, _) = $0 { true } else { false } })
    }

    @Test("stream: the async recipe sends the front end's PCM and returns the summary")
    func stream() async throws {
        let stereo = try Self.stereo48k()
        let chunks = AsyncThrowingStream<[Float], any Error> { continuation in
            var offset = 0
            while offset < stereo.count {
                let n = Swift.min(9_600, stereo.count - offset)  // 100 ms pushes
                continuation.yield(Array(stereo[offset..<(offset + n)]))
                offset += n
            }
            continuation.finish()
        }
        let sent = LockedList<[Int16]>()
        let summary = try await serve(chunks) { sent.append($0) }
        #expect(summary?.inputFrameCount == Int64(stereo.count / 2))
        let reference = try SpeechFrontEnd(configuration: .init(inputRate: 48_000, channelCount: 2)).processAll(stereo)
        #expect(Array(sent.all.joined()) == reference.pcm)
    }

    @Test("file: reads a whole file and reports loudness and speech segments")
    func file() throws {
        let text = try describe(path: TestAudio.path("speech_2ch_en-us_de_44k1.flac"))
        #expect(text.contains(" LUFS, ") && !text.contains(", 0 speech segments"), "\(text)")
    }

    @Test("resample: round(N × 16000 / 48000) samples for a whole array; the stream equals the one-call resample")
    func resample() throws {
        let x48 = try Self.read("speech_en-us_48k.flac").samples
        let x44 = try Self.read("speech_2ch_en-us_de_44k1.flac")
        let mono44 = try Downmixer(channelCount: 2).processAll(x44.samples)
        let chunks = stride(from: 0, to: mono44.count, by: 3_000).map { Array(mono44[$0..<Swift.min($0 + 3_000, mono44.count)]) }
        let (whole, stream) = try resampleExamples(x48, chunks44k: chunks)
        #expect(whole.count == (x48.count + 1) / 3)
        #expect(stream.map(\.bitPattern) == (try Resampler.resample(mono44, from: 44_100, to: 16_000)).map(\.bitPattern))
    }

    @Test("loudness: a whole signal's integrated loudness, then live values")
    func loudness() throws {
        // BS.1770: a 1 kHz sine at 0 dBFS in one channel reads −3.01 LUFS; at −20 dBFS in both, −20.
        let frames = 5 * 48_000
        let stereo = (0..<frames).flatMap { i -> [Float] in
            let x = Float(0.1 * sin(2 * Double.pi * 1_000 * Double(i) / 48_000))
            return [x, x]
        }
        let (integrated, momentary) = try loudnessExamples(stereo)
        #expect(abs(integrated - -20) < 0.05, "\(integrated)")
        #expect(momentary.isFinite)
    }

    @Test("segments: speech segments of a speech file, in order, inside the file")
    func segments() throws {
        let file = try Self.read("speech_2ch_en-us_de_44k1.flac")
        let segments = try speechSegments(file.samples)
        #expect(!segments.isEmpty)
        #expect(segments.allSatisfy { $0.start < $0.end && $0.end <= file.durationSeconds + 1e-9 })
        #expect(zip(segments, segments.dropFirst()).allSatisfy { $0.end <= $1.start })
    }

    @Test("convert and meter: two bytes per sample, the level of a full-scale sine")
    func convertAndMeter() throws {
        let sine = (0..<16_000).map { Float(sin(2 * Double.pi * 1_000 * Double($0) / 16_000)) }
        let (bytes, rms, clipped) = try convert(sine)
        #expect(bytes.count == 2 * sine.count)
        #expect(abs(rms - -3.01) < 0.01)
        #expect(clipped == sine.filter { abs($0) >= 1 }.count)
    }

    @Test("pipeline overview: runs on a push of 2048 samples")
    func overview() throws {
        let stereo = Array(try Self.stereo48k().prefix(2048))
        var produced = 0
        try stereo.withUnsafeBufferPointer { input in
            try pipelineOverview(input) { produced += $0.count }
        }
        #expect(produced > 0 && produced <= 2048 / 2 / 3 + 2)
    }

    @Test("docs/front-end.md's calls: one 2048-frame push and the flush give round(N × 16000 / 48000) samples")
    func frontEndCallsBlock() throws {
        let stereo = Array(try Self.stereo48k().prefix(4096))
        var produced = 0
        let end = try stereo.withUnsafeBufferPointer { chunk in
            try frontEndCalls(chunk, recognizer: SnippetRecognizer { produced += $0.count }) { _ in }
        }
        #expect(produced == (2048 * 16_000 + 24_000) / 48_000)
        #expect(end.droppedEvents == 0)
    }

    @Test("docs/front-end.md's detection settings: the front end holds them (no blend, the hangover as set)")
    func frontEndDetectorBlock() throws {
        let frontEnd = try frontEndForCalls()
        #expect(frontEnd.configuration.detector.speechBlend == nil)
        #expect(frontEnd.configuration.detector.detectsMusic && frontEnd.configuration.detector.detectsMultipleSpeakers)
        #expect(frontEnd.configuration.detector.speechSegments.hangoverSeconds == 0.4)
        #expect(frontEnd.configuration.inputRate == 8_000 && frontEnd.stages == .all)
    }
}
