import DSPCore
import DSPDetection
import DSPIO
import DSPPipeline
import DSPScoring
import Testing
import TestSupport

/// One analysis chain: the same audio pushed through `SpeechFrontEnd` in random chunks and
/// scored as a file by `FileScorer` gives the same segment boundaries (same sample positions)
/// and the same environment measurements (same values, every field), event for event.
@Suite("Live streams and files agree")
struct LiveAndFileAgreeTests {
    /// The whole file, interleaved.
    static func read(_ path: String) throws -> (samples: [Float], rate: Int, channels: Int) {
        let reader = try AudioFileReader(path: path)
        defer { reader.close() }
        var samples = [Float](repeating: 0, count: reader.frameCount * reader.channelCount)
        var filled = 0
        try samples.withUnsafeMutableBufferPointer { all in
            while filled < all.count {
                let got = try reader.read(into: UnsafeMutableBufferPointer(rebasing: all[filled...]))
                if got == 0 { break }
                filled += got
            }
        }
        return (Array(samples[..<filled]), reader.sampleRate, reader.channelCount)
    }

    /// The front end's segment and environment events as the chain's events (positions at
    /// 16 kHz), pushing chunks of 1…`maxChunk` samples drawn from `seed`; and its summary.
    static func live(
        _ audio: (samples: [Float], rate: Int, channels: Int), seed: UInt64, maxChunk: Int,
        detector: AcousticDetector.Configuration = .init()
    ) throws -> (events: [AnalysisEvent], summary: FrontEndSummary) {
        let frontEnd = try SpeechFrontEnd(configuration: .init(inputRate: audio.rate, channelCount: audio.channels, detector: detector))
        let output = UnsafeMutableBufferPointer<Int16>.allocate(
            capacity: Swift.max(frontEnd.outputCapacity(forInputCount: maxChunk), frontEnd.maxFlushOutputCount))
        defer { output.deallocate() }
        let buffer = FrontEndEventBuffer(capacity: Swift.max(frontEnd.maxEventCount(forInputCount: maxChunk), frontEnd.maxFlushEventCount))
        var events: [AnalysisEvent] = []
        func collect() {
            for event in buffer {
                switch event {
                case .started(let a, let t): events.append(.started(a, at: t.outputSample))
                case .ended(let a, let t): events.append(.ended(a, at: t.outputSample))
                case .environment(let m, let t):
                    #expect(t.outputSample == m.endSample)
                    events.append(.environment(m))
                default: break
                }
            }
            #expect(buffer.droppedCount == 0)
        }
        var generator = SplitMix64(seed: seed)
        try audio.samples.withUnsafeBufferPointer { all in
            var offset = 0
            while offset < all.count {
                let n = Swift.min(all.count - offset, Int.random(in: 1...maxChunk, using: &generator))
                let result = frontEnd.process(UnsafeBufferPointer(rebasing: all[offset..<offset + n]), into: output, events: buffer)
                try #require(result.consumed == n)
                offset += n
                collect()
            }
        }
        let flushed = frontEnd.flush(into: output, events: buffer)
        collect()
        return (events, flushed.summary)
    }

    @Test("segments and environment measurements are identical, live and from the file",
          arguments: ["speech_2ch_en-us_de_44k1.flac", "speech_en-us_48k.flac", "eval_speech_music_16k.flac",
                      "eval_overlap_16k.flac", "music_piano_bass_drums_44k1.flac", "speech_es_48k.w64"])
    func agree(file: String) throws {
        let path = TestAudio.path(file)
        var file: [AnalysisEvent] = []
        let scorer = try FileScorer(configuration: .init(recordsSegments: true))
        let record = scorer.score(path: path) { file.append($0) }
        try #require(record.status == .ok)
        let audio = try Self.read(path)
        for (seed, maxChunk) in [(1, 4096), (2, 97), (3, 1024)] as [(UInt64, Int)] {
            let (live, summary) = try Self.live(audio, seed: seed, maxChunk: maxChunk)
            #expect(live.count == file.count, "\(file.count) events from the file, \(live.count) live")
            if let i = zip(live, file).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
                Issue.record("event \(i) differs: live \(live[i]), file \(file[i])")
            }
            // The totals agree too: the record's detection block from the live summary.
            let detection = try #require(summary.detection)
            #expect(FileScore.Detection(detection, music: true, multipleSpeakers: true) == record.detection)
            // And the voice's pitch and rate (rounded as the record rounds them).
            let prosody = try #require(summary.prosody)
            func rounded(_ x: Double?) -> Double? { x.map { ($0 * 1e6).rounded() / 1e6 } }
            #expect(rounded(prosody.f0MedianHz) == record.environment?.f0MedianHz)
            #expect(rounded(prosody.f0SpreadHz) == record.environment?.f0SpreadHz)
            #expect(rounded(prosody.speakingRate) == record.environment?.speakingRateSPS)
        }
        // The record's segments are the events' boundaries in seconds.
        let speech = file.compactMap { if case .started(.speech, let t) = $0 { Double(t) / 16_000 } else { nil } }
        #expect(record.segments?.speech.map(\.start) == speech)
        let music = file.compactMap { if case .ended(.music, let t) = $0 { Double(t) / 16_000 } else { nil } }
        #expect(record.segments?.music.map(\.end) == music)
        // The file has something to compare: measurements twice a second, and speech or music.
        let measurements = file.filter { if case .environment = $0 { true } else { false } }.count
        #expect(Double(measurements) >= 2 * record.duration - 1)
        #expect(file.contains { if case .started = $0 { true } else { false } })
    }

    @Test("with the speech blend and the pure-tone gate off on both sides, live and file still agree (and differ from the defaults)",
          arguments: ["speech_en-us_48k.flac", "eval_speech_music_16k.flac", "speech_2ch_en-us_de_44k1.flac"])
    func agreeWithoutBlend(file: String) throws {
        let path = TestAudio.path(file)
        var withBlend: [AnalysisEvent] = []
        _ = try FileScorer(configuration: .init(recordsSegments: true)).score(path: path) { withBlend.append($0) }
        var fromFile: [AnalysisEvent] = []
        let record = try FileScorer(configuration: .init(recordsSegments: true, speechBlend: false, pureToneGate: false))
            .score(path: path) { fromFile.append($0) }
        try #require(record.status == .ok)
        // The settings matter on this file: a front end that ignored them would fail below.
        #expect(fromFile != withBlend)
        var detector = AcousticDetector.Configuration()
        detector.speechBlend = nil
        detector.gatesPureTones = false
        let (live, _) = try Self.live(try Self.read(path), seed: 4, maxChunk: 2048, detector: detector)
        #expect(live.count == fromFile.count, "\(fromFile.count) events from the file, \(live.count) live")
        if let i = zip(live, fromFile).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            Issue.record("event \(i) differs: live \(live[i]), file \(fromFile[i])")
        }
    }

    @Test("with another voice-activity segmenter on both sides, live and file still agree (and differ from the defaults)")
    func agreeWithAnotherSegmenter() throws {
        let path = TestAudio.path("speech_en-us_48k.flac")
        var segments = DefaultModels.speechSegments
        segments.hangoverSeconds = 0.5
        segments.onThreshold = 0.6
        var withDefaults: [AnalysisEvent] = []
        _ = try FileScorer(configuration: .init(recordsSegments: true)).score(path: path) { withDefaults.append($0) }
        var fromFile: [AnalysisEvent] = []
        _ = try FileScorer(configuration: .init(recordsSegments: true, speechSegments: segments)).score(path: path) { fromFile.append($0) }
        #expect(fromFile != withDefaults)
        var detector = AcousticDetector.Configuration()
        detector.speechSegments = segments
        let (live, _) = try Self.live(try Self.read(path), seed: 5, maxChunk: 1500, detector: detector)
        #expect(live == fromFile)
    }
}
