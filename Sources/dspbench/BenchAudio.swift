// The audio the kernels run over: generated, or read from a file with DSPIO.
import DSPCore
import DSPIO
import Foundation

/// Mono, stereo and Int16 views of the benchmark audio, all in memory before any timing.
///
/// Generated audio is a deterministic test signal: a sine sweeping 100 Hz → 7 kHz every second
/// (peak −12 dBFS) plus white noise peaking at −32 dBFS (the right channel is a scaled copy with its own
/// noise). A file is read whole, then downmixed for the mono view; the stereo view is its first
/// two channels (a mono file is duplicated).
final class BenchAudio {
    /// Rate of the mono and stereo views, in Hz.
    let sampleRate: Int
    let mono: Scratch<Float>
    /// Interleaved L, R.
    let stereo: Scratch<Float>
    /// The mono view converted to Int16 (for Int16 → Float32).
    let int16: Scratch<Int16>
    /// Where the audio came from, for the report.
    let source: String
    /// The file path, if any.
    let inputPath: String?
    private var monoAtRate: [Int: Scratch<Float>] = [:]
    private var monoResampled: [Int: Scratch<Float>] = [:]

    /// Seconds of audio in the mono view.
    var durationSeconds: Double { Double(mono.buffer.count) / Double(sampleRate) }

    /// Generates `seconds` of audio at `sampleRate`.
    init(generatedSeconds seconds: Double, sampleRate: Int) {
        self.sampleRate = sampleRate
        let count = Int((seconds * Double(sampleRate)).rounded())
        mono = Self.generate(count: count, sampleRate: sampleRate, seed: 0x1234_5678)
        stereo = Scratch(count: 2 * count, repeating: 0)
        let right = Self.generate(count: count, sampleRate: sampleRate, seed: 0x9E37_79B9)
        for i in 0..<count {
            stereo.buffer[2 * i] = mono.buffer[i]
            stereo.buffer[2 * i + 1] = 0.8 * right.buffer[i]
        }
        int16 = Self.toInt16(mono)
        source = "generated sweep + noise, \(Self.format(seconds)) s at \(sampleRate) Hz"
        inputPath = nil
        monoAtRate[sampleRate] = mono
    }

    /// Reads `path` (at most `seconds` of it, when given).
    init(path: String, seconds: Double?) throws(AudioFileError) {
        let reader = try AudioFileReader(path: path)
        let channels = reader.channelCount
        var frames = reader.frameCount
        if let seconds { frames = Swift.min(frames, Int((seconds * Double(reader.sampleRate)).rounded())) }
        let interleaved = Scratch<Float>(count: frames * channels, repeating: 0)
        var filled = 0
        while filled < frames * channels {
            let room = UnsafeMutableBufferPointer(rebasing: interleaved.buffer[filled..<(frames * channels)])
            let got = try reader.read(into: room)
            if got == 0 { break }
            filled += got
        }
        frames = filled / channels
        reader.close()
        sampleRate = reader.sampleRate
        mono = Scratch(count: frames, repeating: 0)
        stereo = Scratch(count: 2 * frames, repeating: 0)
        // The library's mix (channel mean, non-finite samples as 0), as the analyses see it.
        if let downmixer = try? Downmixer(channelCount: channels) {
            _ = downmixer.process(UnsafeBufferPointer(rebasing: interleaved.buffer[..<(frames * channels)]), into: mono.buffer)
        }
        for i in 0..<frames {
            stereo.buffer[2 * i] = interleaved.buffer[i * channels]
            stereo.buffer[2 * i + 1] = interleaved.buffer[i * channels + Swift.min(1, channels - 1)]
        }
        int16 = Self.toInt16(mono)
        source = "\(path): \(Self.format(Double(frames) / Double(sampleRate))) s at \(sampleRate) Hz, \(channels) ch"
        inputPath = path
        monoAtRate[sampleRate] = mono
    }

    /// Mono audio at `rate`: generated audio is generated at that rate for the same duration; a
    /// file's samples are reused as they are and taken to be at `rate` (resampling cost does not
    /// depend on the content).
    func mono(atRate rate: Int) -> Scratch<Float> {
        if let cached = monoAtRate[rate] { return cached }
        let made: Scratch<Float>
        if inputPath == nil {
            let count = Int((durationSeconds * Double(rate)).rounded())
            made = Self.generate(count: count, sampleRate: rate, seed: 0x1234_5678)
        } else {
            made = mono
        }
        monoAtRate[rate] = made
        return made
    }

    /// The mono view resampled to `rate` by ``Resampler`` (default quality, leading delay
    /// trimmed: `round(N × rate / sampleRate)` samples), once; the view itself at its own rate.
    /// The same audio at the analysis rate, unlike ``mono(atRate:)``.
    func mono(resampledTo rate: Int) throws(ConfigurationError) -> Scratch<Float> {
        if rate == sampleRate { return mono }
        if let cached = monoResampled[rate] { return cached }
        let samples = try Resampler.resample(Array(mono.buffer), from: sampleRate, to: rate)
        let made = Scratch<Float>(count: samples.count, repeating: 0)
        _ = made.buffer.update(fromContentsOf: samples)
        monoResampled[rate] = made
        return made
    }

    private static func generate(count: Int, sampleRate: Int, seed: UInt32) -> Scratch<Float> {
        let samples = Scratch<Float>(count: count, repeating: 0)
        var state = seed
        var phase = 0.0
        let rate = Double(sampleRate)
        let top = Swift.min(7000, 0.45 * rate)
        for i in 0..<count {
            state = state &* 1_664_525 &+ 1_013_904_223
            let noise = Double(Int32(bitPattern: state)) * 0x1p-31
            let position = Double(i % sampleRate) / rate
            let frequency = 100 * Foundation.pow(top / 100, position)
            phase += 2 * Double.pi * frequency / rate
            if phase > 2 * Double.pi { phase -= 2 * Double.pi }
            samples.buffer[i] = Float(0.25 * Foundation.sin(phase) + 0.025 * noise)
        }
        return samples
    }

    private static func toInt16(_ samples: Scratch<Float>) -> Scratch<Int16> {
        let result = Scratch<Int16>(count: samples.buffer.count, repeating: 0)
        _ = Int16Conversion.convert(UnsafeBufferPointer(samples.buffer), into: result.buffer)
        return result
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.2f", seconds)
    }
}
