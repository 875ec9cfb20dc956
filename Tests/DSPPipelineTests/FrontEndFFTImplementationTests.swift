#if FFTW
import DSPCore
import DSPDetection
import DSPPipeline
import DSPSpectral
import Testing

/// The same streams through `SpeechFrontEnd` on FFTW (the default) and on the built-in FFT
/// (every `RealFFT` in the chain, through the task-local seam), side by side.
///
/// The two FFTs differ by float rounding (relative RMS ~2·10⁻⁷), so spectral features differ in
/// their last bits and a detector score sitting exactly on a threshold could fall the other way:
/// bit identity of every field is not possible. The bounds held here, with what TestAudio gives
/// (1024-sample pushes):
/// - the 16 kHz Int16 audio is identical (no FFT on that path);
/// - the same segment events (activity, start or end) in the same order, every boundary within
///   one analysis hop (256 samples, 16 ms) — measured: identical on every file;
/// - the same number of environment measurements at the same positions, with the same noise
///   source and category, music and several-speakers flags and recommendation — measured:
///   identical; levels (noise, speech, SNR) within 0.01 dB — measured: identical; fractions,
///   clarity and frequency complexity within 1e-4 — measured: ≤ 5.3·10⁻⁸.
@Suite("SpeechFrontEnd on FFTW and on the built-in FFT")
struct FrontEndFFTImplementationTests {
    static let files = [
        "speech_2ch_en-us_de_44k1.flac", "speech_en-us_48k.flac", "eval_speech_music_16k.flac", "eval_overlap_16k.flac",
        "music_piano_bass_drums_44k1.flac", "eval_noise_babble_16k.flac", "speech_clipped_16k.wav", "noise_pink_48k_s24.flac",
    ]

    static func run(_ signal: TestSignal, implementation: FFTImplementation) throws -> FrontEndRun {
        try FFTImplementation.$taskOverride.withValue(implementation) {
            let frontEnd = try SpeechFrontEnd(configuration: .init(inputRate: signal.sampleRate, channelCount: signal.channelCount))
            return DSPPipelineTests.run(frontEnd, signal.samples, push: 1024 * signal.channelCount)
        }
    }

    @Test("same audio, same segment events within a hop, same environment categories; levels within 0.01 dB, fractions 1e-4", arguments: files)
    func sameEvents(file: String) throws {
        let signal = try TestSignal(file: file)
        let fftw = try Self.run(signal, implementation: .fftw)
        let ours = try Self.run(signal, implementation: .builtIn)
        #expect(fftw.output == ours.output)
        #expect(fftw.dropped == 0 && ours.dropped == 0)

        let a = fftw.eventsByKind[0], b = ours.eventsByKind[0]
        var shift: Int64 = 0
        var mismatched = a.count != b.count
        for (x, y) in zip(a, b) {
            switch (x, y) {
            case (.started(let p, let s), .started(let q, let t)), (.ended(let p, let s), .ended(let q, let t)):
                if p != q { mismatched = true }
                shift = max(shift, abs(s.outputSample - t.outputSample))
            default: mismatched = true
            }
        }
        let ea = fftw.eventsByKind[1], eb = ours.eventsByKind[1]
        var level = 0.0, fraction = 0.0, categories = 0
        for case (.environment(let m, _), .environment(let n, _)) in zip(ea, eb) {
            #expect(m.endSample == n.endSample)
            if m.noiseCategory != n.noiseCategory || m.noiseSource != n.noiseSource || m.recommendation != n.recommendation
                || m.musicDetected != n.musicDetected || m.multipleSpeakersDetected != n.multipleSpeakersDetected
                || m.categoryNoiseLevel != n.categoryNoiseLevel
            {
                categories += 1
            }
            for (u, v) in [(m.noiseDBFS, n.noiseDBFS), (m.speechDBFS, n.speechDBFS), (m.speechToNoiseDB ?? 0, n.speechToNoiseDB ?? 0)]
            where u.isFinite || v.isFinite {
                level = max(level, abs(u - v))
            }
            for (u, v) in [(m.speechFraction, n.speechFraction), (m.musicFraction, n.musicFraction),
                           (m.multiSpeakerFraction, n.multiSpeakerFraction), (m.speechClarity, n.speechClarity),
                           (m.frequencyComplexity, n.frequencyComplexity)] {
                fraction = max(fraction, abs(u - v))
            }
        }
        #expect(!mismatched, "\(file): segment events \(a) vs \(b)")
        #expect(shift <= 256, "\(file): a boundary moved \(shift) samples")
        #expect(ea.count == eb.count)
        #expect(categories == 0, "\(file): \(categories) measurements differ in a category")
        #expect(level <= 0.01, "\(file): levels differ by \(level) dB")
        #expect(fraction <= 1e-4, "\(file): fractions differ by \(fraction)")
    }
}
#endif
