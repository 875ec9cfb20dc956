import DSPCore
import DSPIO
import DSPSpectral
import Foundation
import Testing
import TestSupport

/// SpectralAnalyzer's four-frames-at-once path (large pushes) against its one-frame path (one
/// sample per push, so no push ever completes more than one frame): every feature, power
/// spectrum, band power and windowed sample of every frame bit for bit, on real clips and on a
/// stream with NaN, ±Inf, near-overflow values, subnormals and digital silence, for the default
/// geometry, a short window, a window that is not a multiple of four (the mirrored
/// autocorrelation) and hop = window.
@Suite struct SpectralAnalyzerBatchTests {
    /// One frame's outputs as bit patterns (features, then the three views).
    static func record(_ frame: SpectralFrame) -> [UInt64] {
        let f = frame.features
        var out: [UInt64] = [UInt64(bitPattern: f.index), f.time.bitPattern, UInt64(f.validCount), f.isFinite ? 1 : 0]
        for v in [f.hopPower, f.framePower, f.centroidHz, f.rolloffHz, f.flatness, f.entropy, f.fluxDB, f.zeroCrossingRate,
                  f.harmonicity, f.pitchHz, frame.binWidthHz] {
            out.append(UInt64(v.bitPattern))
        }
        for view in [frame.powerSpectrum, frame.bandPowers, frame.windowedSamples] {
            out.append(UInt64(view.count))
            for v in view { out.append(UInt64(v.bitPattern)) }
        }
        return out
    }

    /// Every frame of `signal` pushed in pieces of `chunk` samples, then flushed.
    static func frames(_ analyzer: SpectralAnalyzer, _ signal: [Float], chunk: Int) -> [[UInt64]] {
        var out: [[UInt64]] = []
        signal.withUnsafeBufferPointer { all in
            var offset = 0
            while offset < all.count {
                let end = min(all.count, offset + chunk)
                analyzer.process(UnsafeBufferPointer(rebasing: all[offset..<end])) { out.append(record($0)) }
                offset = end
            }
        }
        analyzer.flush { out.append(record($0)) }
        return out
    }

    static let configurations: [SpectralAnalyzer.Configuration] = [
        .init(),
        .init(windowLength: 512, hopLength: 128, pitchRangeHz: 70...400),
        .init(windowLength: 1030, hopLength: 257),
        .init(sampleRate: 8000, windowLength: 256, hopLength: 256, pitchRangeHz: 70...400, analysisBandHz: 100...3800, bandRangeHz: 80...3900),
    ]

    /// Real clips, all 16 kHz (speech, music, overlapping talkers, babble).
    static let clips = ["speech_en-us_16k.wav", "eval_music_guitar_16k.flac", "eval_overlap_16k.flac", "eval_noise_babble_16k.flac"]

    /// A 16 kHz TestAudio file as mono (channel mean).
    static func mono16k(_ name: String) throws -> [Float] {
        let reader = try AudioFileReader(path: TestAudio.path(name))
        defer { reader.close() }
        try #require(reader.sampleRate == 16_000, "\(name): not 16 kHz")
        let channels = reader.channelCount
        var interleaved = [Float](repeating: 0, count: reader.frameCount * channels)
        var filled = 0
        while filled < interleaved.count {
            let got = try interleaved.withUnsafeMutableBufferPointer {
                try reader.read(into: UnsafeMutableBufferPointer(rebasing: $0[filled...]))
            }
            if got == 0 { break }
            filled += got
        }
        return (0..<filled / channels).map { i in
            var sum: Float = 0
            for c in 0..<channels { sum += interleaved[i * channels + c] }
            return sum / Float(channels)
        }
    }

    @Test("four-frame path equals the one-frame path bit for bit", arguments: 0..<4)
    func batchedEqualsOneByOne(_ configuration: Int) throws {
        var streams: [(String, [Float])] = try Self.clips.map {
            ($0, Array(try Self.mono16k($0).prefix(80_000)))
        }
        streams.append(("hostile stream", TestSignals.hostileStream()))
        let config = Self.configurations[configuration]
        let batched = try SpectralAnalyzer(configuration: config)
        let single = try SpectralAnalyzer(configuration: config)
        var total = 0
        for (name, signal) in streams {
            let reference = Self.frames(single, signal, chunk: 1)
            for chunk in [signal.count, 65_536, 4099] {
                let ours = Self.frames(batched, signal, chunk: chunk)
                total += ours.count
                #expect(ours.count == reference.count, "\(name) chunk \(chunk)")
                let differing = zip(ours, reference).enumerated().first { $0.element.0 != $0.element.1 }
                #expect(differing == nil, "\(name) chunk \(chunk): frame \(differing?.offset ?? -1) differs")
            }
        }
        #expect(total > 1000)
    }
}
