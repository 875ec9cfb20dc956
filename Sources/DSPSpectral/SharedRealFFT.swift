import DSPCore

/// A forward real FFT of one size and implementation, planned once and shared by every unit
/// that transforms that size, which runs it on buffers of its own — a thread's
/// ``/DSPCore/ScratchWorkspace`` — instead of holding a ``RealFFT`` and its buffers per stream.
///
/// Only ``forward(input:spectrum:scratch:)`` is offered: FFTW's new-array execute
/// (`fftwf_execute_dft_r2c`, the one FFTW call that may run on one plan from many threads at
/// once, each on its own arrays) or the built-in FFT's transform on the caller's buffers (its
/// plan and twiddles are only read). Both run the plan ``RealFFT`` runs, so a spectrum is bit for
/// bit the one ``RealFFT/executeForward()`` gives for the same input. The transform's own
/// buffers, made with the plan, are never touched after `init`.
package final class SharedRealFFT: @unchecked Sendable {
    // @unchecked: `fft` is used only through the backend's new-array forward transform, which
    // reads the plan and writes nothing but the caller's buffers.
    struct Key: Hashable, Sendable {
        var size: Int
        var implementation: FFTImplementation
    }

    /// Every shared transform in use.
    static let cache = SharedTableCache<Key, SharedRealFFT>()

    private let fft: RealFFT

    /// The transform size `N`, real samples.
    package let size: Int
    /// Bins of a spectrum, `N/2 + 1`.
    package var binCount: Int { size / 2 + 1 }
    /// Floats of scratch ``forward(input:spectrum:scratch:)`` needs (0 for FFTW).
    package let scratchCount: Int

    private init(_ key: Key) throws(ConfigurationError) {
        fft = try RealFFT(size: key.size, bufferSets: 1, implementation: key.implementation)
        size = key.size
        scratchCount = fft.backend.externalScratchCount
    }

    /// The shared transform of `size` real samples with ``FFTImplementation/default`` (or the
    /// task's test override), planning it if no unit holds it now.
    ///
    /// - Throws: ``/DSPCore/ConfigurationError`` for a size ``RealFFT`` refuses.
    package static func shared(size: Int) throws(ConfigurationError) -> SharedRealFFT {
        let key = Key(size: size, implementation: .current)
        return try cache.table(for: key) { () throws(ConfigurationError) in try SharedRealFFT(key) }
    }

    /// The forward transform of `input` (``size`` floats, kept) into `spectrum`, interleaved
    /// (`2·`\``binCount`` floats, `[Re X[0], Im X[0], …]`), unnormalised as ``RealFFT``'s, with
    /// `scratch` (``scratchCount`` floats). The three buffers are 64-byte aligned (a
    /// workspace's are) and disjoint. Does not allocate or lock.
    @inline(__always)
    package func forward(input: UnsafeMutablePointer<Float>, spectrum: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        fft.backend.executeForward(input: input, spectrum: spectrum, scratch: scratch)
    }

    /// Bytes of the plan's buffers and tables, held once per size (FFTW's plans not counted).
    package var allocatedBytes: Int {
        let f = fft.memoryFootprint
        return f.ownedBytes + f.sharedBytes
    }
}
