import DSPCore
// The K-weighting that LoudnessMeter runs: the block state-space C kernel
// (`cdsp_kweighting_*` in CDSPKernels/LoudnessKWeighting.c) for a set of channels.

internal import CDSPKernels

/// K-weighting and step energies for `channelCount` channels, with the block state-space
/// kernel of CDSPKernels (`cdsp_kweighting_run`, `cdsp_kweighting_close_step`).
///
/// Blocks of 8 samples are computed as one linear map of (state, block): `v = C·s + D·x`, next
/// state `A⁸·s + E·x`, independent multiply-adds instead of a serial per-sample recursion (which
/// the tests keep as the reference, `SerialKWeighting.swift`). Blocks are aligned to the start
/// of each loudness step and an incomplete block is carried, so every sample's arithmetic
/// depends only on its position in the step: results do not depend on how the input was
/// chunked. Agrees with the serial Double recursion to ~1e−12 relative in the step energies
/// (tested).
final class KWeightingBank {
    /// Channels filtered.
    let channelCount: Int
    private let coefficients: UnsafeMutablePointer<cdsp_kweighting>
    private let channels: UnsafeMutablePointer<cdsp_kweighting_channel>

    init(_ filter: KWeightingFilter, channelCount: Int) {
        self.channelCount = channelCount
        coefficients = .allocate(capacity: 1)
        coefficients.initialize(to: cdsp_kweighting())
        let s = filter.shelf, h = filter.highPass
        cdsp_kweighting_design(s.b0, s.b1, s.b2, s.a1, s.a2, h.a1, h.a2, coefficients)
        channels = .allocate(capacity: Swift.max(channelCount, 1))
        channels.initialize(repeating: cdsp_kweighting_channel(), count: Swift.max(channelCount, 1))
    }

    deinit {
        coefficients.deallocate()
        channels.deallocate()
    }

    /// Filters the next `count` samples of channel `index`; `filled` samples of the current
    /// step were consumed before them. `filled + count` must not exceed the step length.
    @inline(__always)
    func run(_ index: Int, _ x: UnsafePointer<Float>, count: Int, filled: Int) {
        cdsp_kweighting_run(coefficients, channels + index, filled, x, count)
    }

    /// Ends a step of `length` samples of channel `index` and returns its `Σ v²` (the
    /// high-pass output before its gain), clearing it for the next step.
    @inline(__always)
    func closeStep(_ index: Int, length: Int) -> Double {
        cdsp_kweighting_close_step(coefficients, channels + index, length)
    }

    /// Forgets every channel's state.
    func reset() {
        channels.update(repeating: cdsp_kweighting_channel(), count: Swift.max(channelCount, 1))
    }
}

extension KWeightingBank {
    /// Bytes allocated: the designed coefficients and the per-channel states.
    var allocatedBytes: Int {
        MemoryFootprint.bytes(cdsp_kweighting.self, 1) + MemoryFootprint.bytes(cdsp_kweighting_channel.self, Swift.max(channelCount, 1))
    }
}
