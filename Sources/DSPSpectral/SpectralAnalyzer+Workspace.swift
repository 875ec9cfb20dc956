// SpectralAnalyzer's per-call buffers: everything a frame's analysis writes and reads within
// one call and never in the next (the four slots' windowed frames, spectra, powers, band
// powers, magnitudes and autocorrelations, the FFT scratch, the batch sums), taken from the
// calling thread's workspace (DSPCore ScratchWorkspace) rather than held per stream.

import DSPCore

extension SpectralAnalyzer {
    /// The sizes of a call's `Scratch`, fixed by the configuration.
    struct ScratchLayout {
        /// `N`.
        let windowLength: Int
        /// `N/2 + 1`.
        let binCount: Int
        /// The autocorrelation transform's size (`N/2` or `N`).
        let lagTransformSize: Int
        /// Lags 0 … max lag + 1.
        let lagCount: Int
        let bandCount: Int
        /// Floats of FFT scratch (the larger of the two transforms'; 0 with FFTW).
        let fftScratchCount: Int
        /// Floats from one slot's windowed frame (spectrum, lag input, lag spectrum) to the
        /// next: rounded up to 16, so every FFT buffer is 64-byte aligned.
        let inputStride: Int
        let spectrumStride: Int
        let lagInputStride: Int
        let lagSpectrumStride: Int
        /// Bytes a call takes from the workspace.
        let byteCount: Int

        init(windowLength n: Int, lagTransformSize m: Int, lagCount: Int, bandCount: Int, fftScratchCount: Int) {
            windowLength = n
            binCount = n / 2 + 1
            lagTransformSize = m
            self.lagCount = lagCount
            self.bandCount = bandCount
            self.fftScratchCount = fftScratchCount
            let rounded = { (floats: Int) in (floats + 15) / 16 * 16 }
            inputStride = rounded(n)
            spectrumStride = rounded(2 * (n / 2 + 1))
            lagInputStride = rounded(m)
            lagSpectrumStride = rounded(2 * (m / 2 + 1))
            let s = SpectralAnalyzer.slots
            func floats(_ count: Int) -> Int { ScratchWorkspace.bytes(Float.self, count) }
            func pointers(_ count: Int) -> Int { ScratchWorkspace.bytes(UnsafeMutablePointer<Float>?.self, count) }
            var total = floats(s * inputStride) + floats(s * spectrumStride)
            total += floats(s * lagInputStride) + floats(s * lagSpectrumStride)
            total += floats(Swift.max(1, fftScratchCount))
            total += floats(s * binCount) + floats(s * binCount) + floats(s * lagCount) + floats(s * bandCount)
            total += floats((bandCount + 7) / 8 * 8) + floats(8) + floats(24)
            total += ScratchWorkspace.bytes(Int.self, s) + ScratchWorkspace.bytes(SpectralFeatures.self, s)
            total += ScratchWorkspace.bytes(SpectralFrame.self, s)
            total += 11 * pointers(s)  // 8 tables of mutable pointers, 3 of read-only ones
            byteCount = total
        }
    }

    /// One call's buffers, taken from the calling thread's workspace in ``init(_:_:)`` and
    /// valid until the scope they came from is left (the end of the call). Nothing in them is
    /// read before this call wrote it.
    ///
    /// Slot 0 is the one-frame path's (`windowed`, `spectrum`, `power`, `bandPowers`,
    /// `autocorrelation`); the pointer tables are the C kernels' `float *[4]` arguments.
    struct Scratch {
        /// Slot 0's windowed frame (the frame transform's input) and interleaved spectrum `Y[k]`,
        /// then `|Y[k]|²` for the autocorrelation.
        let windowed: UnsafeMutableBufferPointer<Float>
        let spectrum: UnsafeMutablePointer<Float>
        /// Slot 0's power spectrum (`binCount`), band powers (`bandCount`) and autocorrelation
        /// (lags 0 … max lag + 1); the other slots follow each contiguously
        /// (`power + f·binCount`, …).
        let power: UnsafeMutableBufferPointer<Float>
        let bandPowers: UnsafeMutableBufferPointer<Float>
        let autocorrelation: UnsafeMutableBufferPointer<Float>
        /// This frame's band levels (dB), `bandCount` rounded up to a multiple of eight.
        let bandLevels: UnsafeMutablePointer<Float>
        /// The FFTs' scratch (built-in FFT).
        let fftScratch: UnsafeMutablePointer<Float>
        /// Up to four complete frames' window dot products `Σ x·w` and hop energies `Σ x²`, taken
        /// together before the frames are analysed (``process(_:_:)``).
        let batchWindowDots: UnsafeMutablePointer<Float>
        let batchHopEnergies: UnsafeMutablePointer<Float>
        /// Slot `f`'s windowed frame and spectrum.
        let windowedSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
        let spectrumSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
        /// `power` + `f·binCount`, writable and read-only.
        let powerSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
        let powerInputSlots: UnsafeMutablePointer<UnsafePointer<Float>?>
        /// `bandPowers` + `f·bandCount`.
        let bandPowerSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
        /// The autocorrelation transform's input and spectrum of slot `f`.
        let lagInputSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
        let lagSpectrumSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
        let lagSpectrumInputSlots: UnsafeMutablePointer<UnsafePointer<Float>?>
        /// `autocorrelation` + `f·lagCount`.
        let autocorrelationSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
        /// Slot `f`'s `|Y[k]|²`, `binCount` contiguous floats (the half-size route reads them
        /// there, not from the spectrum's real parts), writable and read-only views.
        let magnitudeSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
        let magnitudeInputSlots: UnsafeMutablePointer<UnsafePointer<Float>?>
        /// Per-slot scalars: power sums (8), totals, weighted frequencies, roll-off targets, `f1`
        /// (4 each), roll-off bins (4), features (4).
        let slotSums: UnsafeMutablePointer<Float>
        let slotRolloff: UnsafeMutablePointer<Int>
        let slotFeatures: UnsafeMutablePointer<SpectralFeatures>
        /// The frames a batch hands over together (``processBatches(_:_:)``).
        let slotFrames: UnsafeMutablePointer<SpectralFrame>

        /// Takes the buffers of `layout` from `scope` (``ScratchLayout/byteCount`` bytes, in the
        /// order that figure adds them up) and fills the pointer tables.
        @inline(__always)
        init(_ scope: WorkspaceScope, _ layout: ScratchLayout) {
            let s = SpectralAnalyzer.slots
            let bins = layout.binCount
            let inputs = scope.take(Float.self, count: s * layout.inputStride)
            let spectra = scope.take(Float.self, count: s * layout.spectrumStride)
            let lagInputs = scope.take(Float.self, count: s * layout.lagInputStride)
            let lagSpectra = scope.take(Float.self, count: s * layout.lagSpectrumStride)
            fftScratch = scope.take(Float.self, count: Swift.max(1, layout.fftScratchCount))
            power = UnsafeMutableBufferPointer(start: scope.take(Float.self, count: s * bins), count: bins)
            let magnitudes = scope.take(Float.self, count: s * bins)
            autocorrelation = UnsafeMutableBufferPointer(
                start: scope.take(Float.self, count: s * layout.lagCount), count: layout.lagCount)
            bandPowers = UnsafeMutableBufferPointer(
                start: scope.take(Float.self, count: s * layout.bandCount), count: layout.bandCount)
            bandLevels = scope.take(Float.self, count: (layout.bandCount + 7) / 8 * 8)
            let sums = scope.take(Float.self, count: 8)
            batchWindowDots = sums
            batchHopEnergies = sums + 4
            slotSums = scope.take(Float.self, count: 24)
            slotRolloff = scope.take(Int.self, count: s)
            slotFeatures = scope.take(SpectralFeatures.self, count: s)
            slotFrames = scope.take(SpectralFrame.self, count: s)
            windowedSlots = scope.take(UnsafeMutablePointer<Float>?.self, count: s)
            spectrumSlots = scope.take(UnsafeMutablePointer<Float>?.self, count: s)
            powerSlots = scope.take(UnsafeMutablePointer<Float>?.self, count: s)
            bandPowerSlots = scope.take(UnsafeMutablePointer<Float>?.self, count: s)
            lagInputSlots = scope.take(UnsafeMutablePointer<Float>?.self, count: s)
            lagSpectrumSlots = scope.take(UnsafeMutablePointer<Float>?.self, count: s)
            autocorrelationSlots = scope.take(UnsafeMutablePointer<Float>?.self, count: s)
            magnitudeSlots = scope.take(UnsafeMutablePointer<Float>?.self, count: s)
            powerInputSlots = scope.take(UnsafePointer<Float>?.self, count: s)
            magnitudeInputSlots = scope.take(UnsafePointer<Float>?.self, count: s)
            lagSpectrumInputSlots = scope.take(UnsafePointer<Float>?.self, count: s)
            for f in 0..<s {
                windowedSlots[f] = inputs + f * layout.inputStride
                spectrumSlots[f] = spectra + f * layout.spectrumStride
                lagInputSlots[f] = lagInputs + f * layout.lagInputStride
                lagSpectrumSlots[f] = lagSpectra + f * layout.lagSpectrumStride
                lagSpectrumInputSlots[f] = UnsafePointer(lagSpectra + f * layout.lagSpectrumStride)
                powerSlots[f] = power.baseAddress! + f * bins
                powerInputSlots[f] = UnsafePointer(power.baseAddress! + f * bins)
                magnitudeSlots[f] = magnitudes + f * bins
                magnitudeInputSlots[f] = UnsafePointer(magnitudes + f * bins)
                bandPowerSlots[f] = bandPowers.baseAddress! + f * layout.bandCount
                autocorrelationSlots[f] = autocorrelation.baseAddress! + f * layout.lagCount
            }
            windowed = UnsafeMutableBufferPointer(start: inputs, count: layout.windowLength)
            spectrum = spectra
        }
    }

    /// Allocates the calling thread's scratch workspace for this analyzer's calls now, if it
    /// does not hold enough yet, so that the first call on this thread allocates nothing (a
    /// thread's workspace is otherwise allocated by its first call: ``/DSPCore/MemoryFootprint/workspaceBytes``).
    /// Call it once on each worker thread at start-up where even that first allocation matters.
    /// Never needed for correctness; safe on any thread.
    public func reserveWorkspace() {
        enterWorkspace().leave()
    }

    /// Opens a scope on the calling thread's workspace for one call's `Scratch` (and whatever
    /// the frame callbacks take above it, which reserve for themselves); leave it at return.
    @inline(__always)
    func enterWorkspace() -> WorkspaceScope {
        workspace.enter(reserving: layout.byteCount)
    }
}
