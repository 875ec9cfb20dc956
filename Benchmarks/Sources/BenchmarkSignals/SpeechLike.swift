// Signals shared by the benchmark executables.
import Foundation

/// Deterministic speech-like audio at `rate` (the Benchmarks package reads no files): a voiced
/// source — 12 harmonics of a pitch gliding 100 → 180 Hz and back every 1.7 s, shaped by two
/// formant-like peaks that move with the syllable — amplitude-modulated at a syllable rate of
/// about 4 Hz (raised-cosine syllables of 180 ms, 70 ms gaps of near silence), plus white noise
/// peaking at −50 dBFS throughout and unvoiced, noise-only bursts between some syllables.
/// Peak −7 dBFS. `dspbench detect` on a WAV of the 16 kHz samples (a numpy port) reports speech
/// for 100 % of the 10 s, music and multiple speakers for 0 %: the benchmarks run the speech path.
public func makeSpeechLike(seconds: Int, rate: Int = 16_000) -> UnsafeMutableBufferPointer<Float> {
    let count = seconds * rate
    let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: count)
    var state: UInt32 = 0x00C0_FFEE
    var phase: Double = 0
    let syllable = 0.25 * Double(rate)  // samples per syllable (4 Hz)
    for i in 0..<count {
        let t = Double(i) / Double(rate)
        state = state &* 1_664_525 &+ 1_013_904_223
        let noise = Float(Int32(bitPattern: state)) * 0x1p-31
        // Pitch glide (triangle, period 1.7 s).
        let glide = abs((t / 1.7).truncatingRemainder(dividingBy: 1) * 2 - 1)
        let f0 = 100 + 80 * glide
        phase += 2 * Double.pi * f0 / Double(rate)
        if phase > 2 * Double.pi { phase -= 2 * Double.pi }
        // Syllable envelope: 180 ms raised cosine, then 70 ms gap.
        let k = Double(i).truncatingRemainder(dividingBy: syllable) / Double(rate)
        let index = Int(Double(i) / syllable)
        let voiced = k < 0.18 && index % 7 != 6  // every 7th syllable is a pause
        let envelope = voiced ? 0.5 - 0.5 * cos(2 * Double.pi * k / 0.18) : 0
        // Formants per syllable: 300…800 Hz and 900…2300 Hz.
        let f1 = 300 + Double((index * 37) % 500), f2 = 900 + Double((index * 173) % 1400)
        var voice: Double = 0
        if envelope > 0 {
            for h in 1...12 {
                let f = f0 * Double(h)
                let d1 = (f - f1) / 150, d2 = (f - f2) / 250
                let g: Double = 1 / (1 + d1 * d1) + 0.5 / (1 + d2 * d2) + 0.05
                voice += g * sin(Double(h) * phase)
            }
        }
        // Unvoiced bursts (fricative-like) in every third gap.
        let fricative: Float = !voiced && index % 3 == 1 && k > 0.19 && k < 0.24 ? 0.02 : 0
        buffer[i] = Float(0.08 * envelope * voice) + (0.003 + fricative) * noise
    }
    return buffer
}
