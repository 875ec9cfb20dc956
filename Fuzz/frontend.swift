// Fuzz target `frontend`: bytes → a SpeechFrontEnd configuration (rate, channels, stages,
// downmix, quality, dither, clip threshold), chunk sizes and samples (NaN, ±Inf, −0,
// denormals, ±1e38, raw bit patterns) → process/flush into buffers sized by the API
// (maxOutputCount, maxEventCount, maxFlushOutputCount, maxFlushEventCount). Checks: every
// process call consumes its whole chunk, no event is dropped, the output has exactly
// round(N × 16000 / rate) samples for N input frames, and nothing crashes, hangs or leaks.
// Run: scripts/fuzz.sh frontend SECONDS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import DSPCore
import DSPPipeline

/// Reads the fuzzer's bytes front to back; zeros once they run out.
private struct ByteReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var isAtEnd: Bool { index >= bytes.count }
    mutating func byte() -> UInt8 {
        defer { index += 1 }
        return index < bytes.count ? bytes[index] : 0
    }
    mutating func uint16() -> Int { Int(byte()) | Int(byte()) << 8 }
}

/// Front ends by configuration, reused stream after stream (flush resets one for the next
/// stream, so a reused front end must behave as a new one): building one designs filters and
/// FFT plans, which would otherwise dominate each run.
private enum FrontEnds {
    nonisolated(unsafe) static var cache: [(SpeechFrontEnd.Configuration, SpeechFrontEnd)] = []

    static func frontEnd(for configuration: SpeechFrontEnd.Configuration) -> SpeechFrontEnd? {
        if let hit = cache.first(where: { $0.0 == configuration }) { return hit.1 }
        guard let made = try? SpeechFrontEnd(configuration: configuration) else { return nil }
        // Only a front end that resamples has a design to keep (else the holder would design one).
        if configuration.inputRate != SpeechFrontEnd.outputRate, made.latencySeconds > 0 { Designs.hold(configuration) }
        if cache.count >= 64 { cache.removeFirst() }
        cache.append((configuration, made))
        return made
    }
}

/// A resampler per (input rate, quality) of the front ends built, the last 512, kept for the
/// process so that the filter design they share (DSPCore's ResamplerPlan and ResamplerTables,
/// held while any resampler holds them) outlives the front ends: a new front end at a rate met
/// before, whose front ends `FrontEnds` has dropped, takes the design instead of running its
/// Remez exchanges again (the design was 81 % of this target's time before designs were
/// shared: docs/reliability.md, "Fuzzing"). Every front end is still built by its own `init`,
/// which designs its resampler or finds the design held; only what stays cached differs.
private enum Designs {
    nonisolated(unsafe) static var held: [Int: Resampler] = [:]
    nonisolated(unsafe) static var order: [Int] = []

    static func hold(_ configuration: SpeechFrontEnd.Configuration) {
        let quality = Resampler.Quality.allCases.firstIndex(of: configuration.resamplerQuality)!
        let key = configuration.inputRate * Resampler.Quality.allCases.count + quality
        guard held[key] == nil,
              let made = try? Resampler(inputRate: configuration.inputRate, outputRate: SpeechFrontEnd.outputRate, quality: configuration.resamplerQuality)
        else { return }
        if order.count == 512 { held[order.removeFirst()] = nil }
        held[key] = made
        order.append(key)
    }
}

private let rates = [8_000, 11_025, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000, 88_200, 96_000, 192_000, 384_000]
private let specials: [Float] = [
    .nan, -.nan, .infinity, -.infinity, 0, -0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
    .leastNormalMagnitude, 1e38, -1e38, .greatestFiniteMagnitude, 1, -1, 32767.0 / 32768.0, 0.5,
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrontEnd(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var input = ByteReader(bytes: UnsafeBufferPointer(start: data, count: size))
    let head = input.byte()
    let rate = head & 0x80 != 0 ? 8_000 + input.uint16() * 6 : rates[Int(head) % rates.count]  // 8 000 … 401 210 Hz
    let channels = 1 + Int(input.byte() % 6)
    let stageBits = input.byte()
    let options = input.byte()
    var configuration = SpeechFrontEnd.Configuration(inputRate: rate, channelCount: channels)
    configuration.stages = SpeechFrontEnd.Stages(rawValue: Int(stageBits & 0x3F))
    configuration.downmix = options & 1 == 0 ? .average : .channel(Int(options >> 1) % (channels + 1))
    configuration.resamplerQuality = Resampler.Quality.allCases[Int(options >> 4) % Resampler.Quality.allCases.count]
    configuration.dither = options & 0x40 != 0 ? .triangular(seed: UInt64(options)) : .none
    configuration.emitsLevelEvents = options & 0x80 == 0
    configuration.clipWindowMilliseconds = 1 + Int(input.byte()) * 4
    guard let frontEnd = FrontEnds.frontEnd(for: configuration) else { return 0 }

    // The stream: up to 0.5 s of audio, its samples drawn from the specials and the bytes.
    let frames = min(input.uint16(), rate / 2)
    let samples = frames * channels
    let signal = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(1, samples))
    defer { signal.deallocate() }
    let pattern = max(1, size - input.index)
    for i in 0..<samples {
        let b = Int(input.bytes.isEmpty ? 0 : input.bytes[(input.index + i % pattern) % input.bytes.count])
        switch b & 0xC0 {
        case 0x00: signal[i] = specials[b % specials.count]
        case 0x40: signal[i] = Float(b - 0x60) / 32  // ±1
        default: signal[i] = sinf(Float(i) * Float(b) / 97) * Float(b) / 200  // tones, some above full scale
        }
    }

    var consumed = 0
    var produced = 0
    var chunkSeed = UInt32(truncatingIfNeeded: size) &* 2_654_435_761 | 1
    while consumed < samples {
        chunkSeed ^= chunkSeed << 13
        chunkSeed ^= chunkSeed >> 17
        chunkSeed ^= chunkSeed << 5
        let count = min(samples - consumed, Int(chunkSeed % 5000))  // 0 … 4999, partial frames included
        let chunk = UnsafeBufferPointer(rebasing: signal[consumed..<consumed + count])
        let output = UnsafeMutableBufferPointer<Int16>.allocate(capacity: frontEnd.maxOutputCount(forInputCount: count))
        let events = FrontEndEventBuffer(capacity: frontEnd.maxEventCount(forInputCount: count))
        let result = frontEnd.process(chunk, into: output, events: events)
        output.deallocate()
        precondition(result.consumed == count, "consumed \(result.consumed) of \(count)")
        precondition(result.droppedEvents == 0, "dropped \(result.droppedEvents) events")
        consumed += count
        produced += result.produced
    }
    let output = UnsafeMutableBufferPointer<Int16>.allocate(capacity: max(1, frontEnd.maxFlushOutputCount))
    defer { output.deallocate() }
    let events = FrontEndEventBuffer(capacity: frontEnd.maxFlushEventCount)
    let flushed = frontEnd.flush(into: output, events: events)
    precondition(flushed.droppedEvents == 0, "flush dropped \(flushed.droppedEvents) events")
    produced += flushed.produced
    if configuration.stages.contains(.output) {
        let inputFrames = (samples + channels - 1) / channels  // flush pads a partial frame
        let expected = (2 * inputFrames * SpeechFrontEnd.outputRate + rate) / (2 * rate)
        precondition(produced == expected, "\(produced) samples for \(inputFrames) frames at \(rate) Hz, expected \(expected)")
    }
    return 0
}
