// Peer resamplers (libsoxr, libsamplerate, speexdsp) behind one Swift handle.
import CBenchReferences
import Foundation

/// A peer configuration to compare with: library, quality argument and labels.
struct PeerResamplerPreset {
    let library: PeerLibrary
    /// soxr recipe, libsamplerate converter type, or speex quality 0...10.
    let quality: Int32
    /// Label in the table (after the library name), e.g. `HQ`, `SINC_BEST_QUALITY`, `q5`.
    let label: String

    var implementation: String { "\(library.displayName) \(label)" }
    var slug: String { "\(library.displayName)-\(label)".lowercased().replacingOccurrences(of: "_", with: "-") }

    /// The presets `--compare` measures: soxr HQ and VHQ; libsamplerate's three sinc converters;
    /// speex qualities 3 (its default for VoIP), 5 and 10.
    static let all: [PeerResamplerPreset] = [
        .init(library: .soxr, quality: Int32(CBS_SOXR_HQ), label: "HQ"),
        .init(library: .soxr, quality: Int32(CBS_SOXR_VHQ), label: "VHQ"),
        .init(library: .samplerate, quality: Int32(CBS_SRC_SINC_BEST_QUALITY), label: "SINC_BEST_QUALITY"),
        .init(library: .samplerate, quality: Int32(CBS_SRC_SINC_MEDIUM_QUALITY), label: "SINC_MEDIUM_QUALITY"),
        .init(library: .samplerate, quality: Int32(CBS_SRC_SINC_FASTEST), label: "SINC_FASTEST"),
        .init(library: .speexdsp, quality: 3, label: "q3"),
        .init(library: .speexdsp, quality: 5, label: "q5"),
        .init(library: .speexdsp, quality: 10, label: "q10"),
    ]
}

/// A peer's streaming resampler (interleaved Float32), owned.
final class PeerResampler {
    private let handle: OpaquePointer
    let channelCount: Int

    /// Creates the resampler; throws the peer's reason on failure.
    init(_ preset: PeerResamplerPreset, inputRate: Int, outputRate: Int, channelCount: Int = 1) throws(PeerError) {
        var reason = [CChar](repeating: 0, count: 512)
        guard let handle = cbs_peer_resampler_create(
            preset.library.cValue, preset.quality, UInt32(inputRate), UInt32(outputRate), UInt32(channelCount),
            &reason, reason.count)
        else { throw PeerError(message: string(fromCBuffer: reason)) }
        self.handle = handle
        self.channelCount = channelCount
    }

    deinit { cbs_peer_resampler_destroy(handle) }

    /// Pushes whole frames of `input`; returns output samples written, or nil on failure.
    @inline(__always)
    func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) -> Int? {
        let written = cbs_peer_resampler_process(
            handle, input.baseAddress, input.count / channelCount, output.baseAddress, output.count / channelCount)
        return written < 0 ? nil : written * channelCount
    }

    func reset() { cbs_peer_resampler_reset(handle) }
}

/// A peer could not be set up.
struct PeerError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// The NUL-terminated text a C function wrote into `buffer`.
func string(fromCBuffer buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
