internal import CDSPKernels
import DSPCore

/// ``FFTBackend`` over SpeechDSP's own real FFT (`CDSPKernels`: `FFTPlan.c` plans, `FFT.c`
/// transforms; the design is in `include/CDSPFFT.h`).
///
/// A real transform of `N` points runs as a complex transform of `N/2` points and an unpacking
/// pass. The complex transform is a mixed-radix Stockham FFT (radix 4, 2, 3, 5 and a generic odd
/// radix up to 61), on eight-float vectors when `N/2` is a multiple of 8 from 64 up — every power
/// of two from 128 — with a last pass of 8 × 8 transposes and 8-point DFTs; other sizes run the
/// same stages on scalars, and an `N/2` with a prime factor above 61 goes through Bluestein's
/// algorithm (a power-of-two convolution), so every even size has an O(N log N) transform. The
/// kernels are compiled for AVX-512F, AVX+FMA and SSE2 and one is chosen per process (the best
/// the CPU has, or `CDSP_DISPATCH_LEVEL`'s); contraction is off, so every copy gives the same bits.
///
/// The plan and twiddle table of a size (`cdsp_fft_plan_init`, `cdsp_fft_plan_tables`: twiddles
/// in double, rounded once) are ``BuiltInFFTTables``, built once per size and shared by every
/// backend of that size; `init` allocates one 64-byte-aligned block of its own for the
/// transform scratch, every buffer set and the inverse output. Transforms (`cdsp_fft_forward`,
/// `cdsp_fft_inverse`) take no lock and allocate nothing; the shared tables are only read.
/// Instances may be created and used on any number of threads at once, each from one thread at
/// a time.
///
/// Sizes: every even size 2 ... 65536, as FFTW.
final class BuiltInFFTBackend: FFTBackend {
    let size: Int
    private let bins: Int
    private let bufferSets: Int
    /// The size's plan and twiddle table, shared.
    private let tables: BuiltInFFTTables
    private let plan: UnsafePointer<cdsp_fft_plan>
    private let table: UnsafePointer<Float>
    /// This instance's buffers, one 64-byte-aligned block of `byteCount` bytes: the scratch,
    /// `bufferSets` inputs, `bufferSets` interleaved spectra, the inverse output.
    private let block: UnsafeMutableRawPointer
    private let byteCount: Int
    private let scratch: UnsafeMutablePointer<Float>
    private let inputs: UnsafeMutablePointer<Float>
    private let spectra: UnsafeMutablePointer<Float>
    /// Floats from one buffer set's input (spectrum) to the next: `size` (`2·bins`) rounded up to
    /// a multiple of 16 (64 bytes).
    private let inputStride: Int
    private let spectrumStride: Int
    let inverseOutput: UnsafeMutablePointer<Float>

    /// What the built-in FFT accepts, as a ``/DSPCore/ConfigurationError`` states it.
    static let sizeConstraint = "even, 2...\(CDSP_FFT_MAX_SIZE)"

    /// The plan for `size`, or `nil` where the built-in FFT does not transform it.
    static func plan(size: Int) -> cdsp_fft_plan? {
        guard size >= 2, size <= Int(CDSP_FFT_MAX_SIZE) else { return nil }
        var plan = cdsp_fft_plan()
        return cdsp_fft_plan_init(&plan, size) == 0 ? plan : nil
    }

    convenience init(size: Int) throws(ConfigurationError) {
        try self.init(size: size, bufferSets: 1)
    }

    /// Plans as ``init(size:)`` with `bufferSets` (≥ 1) forward buffer pairs for
    /// ``executeForward(set:)``.
    init(size: Int, bufferSets: Int) throws(ConfigurationError) {
        let tables = try BuiltInFFTTables.cache.table(for: size) { () throws(ConfigurationError) in
            try BuiltInFFTTables(size: size)
        }
        let sets = Swift.max(1, bufferSets)
        let bins = size / 2 + 1
        let rounded = BuiltInFFTTables.rounded
        let scratchFloats = rounded(tables.plan.pointee.scratch_count)
        let inputStride = rounded(size), spectrumStride = rounded(2 * bins)
        let floats = scratchFloats + sets * (inputStride + spectrumStride) + inputStride
        self.size = size
        self.bins = bins
        self.bufferSets = sets
        self.inputStride = inputStride
        self.spectrumStride = spectrumStride
        self.tables = tables
        plan = UnsafePointer(tables.plan)
        table = UnsafePointer(tables.table)
        byteCount = MemoryFootprint.bytes(Float.self, floats)
        block = .allocate(byteCount: byteCount, alignment: 64)
        let all = block.initializeMemory(as: Float.self, repeating: 0, count: floats)
        scratch = all
        inputs = scratch + scratchFloats
        spectra = inputs + sets * inputStride
        inverseOutput = spectra + sets * spectrumStride
    }

    deinit {
        block.deallocate()
    }

    /// Whether `other` reads the same plan and table (one copy per size).
    func sharesTables(with other: BuiltInFFTBackend) -> Bool { tables === other.tables }

    func forward(
        _ input: UnsafeBufferPointer<Float>,
        real: UnsafeMutableBufferPointer<Float>,
        imaginary: UnsafeMutableBufferPointer<Float>
    ) {
        cdsp_fft_forward(plan, table, input.baseAddress!, spectra, scratch)
        for bin in 0..<bins {
            real[bin] = spectra[2 * bin]
            imaginary[bin] = spectra[2 * bin + 1]
        }
    }

    func inverse(
        real: UnsafeBufferPointer<Float>,
        imaginary: UnsafeBufferPointer<Float>,
        into output: UnsafeMutableBufferPointer<Float>
    ) {
        for bin in 0..<bins {
            spectra[2 * bin] = real[bin]
            spectra[2 * bin + 1] = imaginary[bin]
        }
        cdsp_fft_inverse(plan, table, spectra, output.baseAddress!, scratch)
    }

    var forwardInput: UnsafeMutablePointer<Float> { inputs }
    var interleavedSpectrum: UnsafeMutablePointer<Float> { spectra }

    func executeForward() {
        cdsp_fft_forward(plan, table, inputs, spectra, scratch)
    }

    /// Buffer set `set`'s forward input (`set` 0 is ``forwardInput``).
    func forwardInput(set: Int) -> UnsafeMutablePointer<Float> {
        inputs + set * inputStride
    }

    /// Buffer set `set`'s interleaved spectrum (`set` 0 is ``interleavedSpectrum``).
    func interleavedSpectrum(set: Int) -> UnsafeMutablePointer<Float> {
        spectra + set * spectrumStride
    }

    /// The same transform as ``executeForward()`` on buffer set `set`: the same code and tables,
    /// so the same bits for the same input. The input is kept.
    func executeForward(set: Int) {
        cdsp_fft_forward(plan, table, inputs + set * inputStride, spectra + set * spectrumStride, scratch)
    }

    /// The plan's scratch, floats, rounded up to a multiple of 16.
    var externalScratchCount: Int { BuiltInFFTTables.rounded(plan.pointee.scratch_count) }

    /// The same transform as ``executeForward()`` on the caller's buffers (the shared tables are
    /// only read).
    func executeForward(
        input: UnsafeMutablePointer<Float>, spectrum: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>
    ) {
        cdsp_fft_forward(plan, table, input, spectrum, scratch)
    }

    /// Reads the spectrum (left unmodified) and writes ``inverseOutput``.
    func executeInverse() {
        cdsp_fft_inverse(plan, table, spectra, inverseOutput, scratch)
    }

    /// Bytes of the plan and the block (tables, scratch, buffer sets, inverse output).
    var allocatedBytes: Int { byteCount }

    /// Bytes of the shared plan and twiddle table.
    var sharedBytes: Int { tables.byteCount }
}

/// The built-in FFT's plan and twiddle table for one size: plain data, never written after
/// `init`, built once per size (``cache``) and read by every ``BuiltInFFTBackend`` of that size
/// on any number of threads.
final class BuiltInFFTTables: @unchecked Sendable {
    /// The tables of every size in use.
    static let cache = SharedTableCache<Int, BuiltInFFTTables>()

    let plan: UnsafeMutablePointer<cdsp_fft_plan>
    /// The twiddle table, 64-byte aligned.
    let table: UnsafeMutablePointer<Float>
    /// Bytes of the plan and the table.
    let byteCount: Int

    /// Floats rounded up to a multiple of 16 (64 bytes).
    static func rounded(_ floats: Int) -> Int { (floats + 15) / 16 * 16 }

    /// Plans `size` and fills its table; throws where the built-in FFT does not transform it.
    init(size: Int) throws(ConfigurationError) {
        guard let made = BuiltInFFTBackend.plan(size: size) else {
            throw ConfigurationError(parameter: "size", value: size, expected: BuiltInFFTBackend.sizeConstraint)
        }
        let floats = Swift.max(16, Self.rounded(made.table_count))
        plan = .allocate(capacity: 1)
        plan.initialize(to: made)
        table = UnsafeMutableRawPointer.allocate(byteCount: MemoryFootprint.bytes(Float.self, floats), alignment: 64)
            .initializeMemory(as: Float.self, repeating: 0, count: floats)
        byteCount = MemoryFootprint.bytes(cdsp_fft_plan.self, 1) + MemoryFootprint.bytes(Float.self, floats)
        // Only Bluestein's set-up allocates (a temporary double buffer, freed before returning).
        guard cdsp_fft_plan_tables(plan, table) == 0 else {
            UnsafeMutableRawPointer(table).deallocate()
            plan.deallocate()
            throw ConfigurationError(parameter: "size", value: size, expected: "a size whose tables could be allocated")
        }
    }

    deinit {
        UnsafeMutableRawPointer(table).deallocate()
        plan.deallocate()
    }
}
