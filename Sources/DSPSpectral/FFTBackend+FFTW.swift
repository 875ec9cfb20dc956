// Compiled only with the package trait FFTW (the default): without it nothing in the package
// imports CFFTW and no binary links libfftw3f.
#if FFTW
import CFFTW
import DSPCore
import Synchronization

/// Serialises every FFTW call that is not `fftwf_execute*`.
///
/// FFTW's planner keeps global state (wisdom, the planner's tables) and is not thread-safe: only
/// the `fftwf_execute*` family may run concurrently, each on its own plan. Plan creation, plan
/// destruction and `fftwf_alloc_*`/`fftwf_free` all run under this one process-wide lock. It is
/// only taken in ``FFTWBackend``'s `init` and `deinit`, never while transforming.
let fftwPlannerLock = Mutex<Void>(())

/// ``FFTBackend`` over FFTW 3 single precision (`libfftw3f`).
///
/// `init` allocates SIMD-aligned buffers (`fftwf_alloc_real`, `fftwf_alloc_complex`) and builds
/// a forward plan (`fftwf_plan_dft_r2c_1d`, time domain → spectrum) and an inverse plan
/// (`fftwf_plan_dft_c2r_1d`, spectrum → a second time-domain buffer, so an inverse leaves the
/// forward input intact) with `FFTW_ESTIMATE`, which picks an algorithm by heuristics instead of
/// timing trials, so plans — and results — are the same on every run. Both plans are
/// out-of-place on aligned buffers. The split-complex transforms copy into those buffers, call
/// `fftwf_execute` and copy out; ``executeForward()``/``executeInverse()`` work on the buffers
/// in place, with no copies (FFTW's own interleaved layout).
final class FFTWBackend: FFTBackend {
    let size: Int
    private let bins: Int
    /// `size` reals, aligned; input of the forward plan.
    private let timeDomain: UnsafeMutablePointer<Float>
    /// `size` reals, aligned; output of the inverse plan.
    private let inverseTimeDomain: UnsafeMutablePointer<Float>
    /// `size/2 + 1` complex values allocated as `fftwf_complex`, as FFTW sees them.
    private let frequencyDomain: UnsafeMutablePointer<fftwf_complex>
    /// The same memory as `frequencyDomain`, bound as `2·(size/2 + 1)` interleaved floats.
    private let interleaved: UnsafeMutablePointer<Float>
    private let forwardPlan: OpaquePointer
    private let inversePlan: OpaquePointer
    /// Further forward buffer pairs (`size` reals in, `size/2 + 1` complex out, each from
    /// `fftwf_alloc_*`, so aligned as the planning buffers are) for ``executeForward(set:)``;
    /// set 0 is `timeDomain`/`frequencyDomain`.
    private let extraInputs: [UnsafeMutablePointer<Float>]
    private let extraSpectra: [UnsafeMutablePointer<fftwf_complex>]

    private struct Resources {
        var timeDomain: UnsafeMutablePointer<Float>
        var inverseTimeDomain: UnsafeMutablePointer<Float>
        var frequencyDomain: UnsafeMutablePointer<fftwf_complex>
        var forwardPlan: OpaquePointer
        var inversePlan: OpaquePointer
        var extraInputs: [UnsafeMutablePointer<Float>] = []
        var extraSpectra: [UnsafeMutablePointer<fftwf_complex>] = []
    }

    convenience init(size: Int) throws(ConfigurationError) {
        try self.init(size: size, bufferSets: 1)
    }

    /// Plans as ``init(size:)`` and allocates `bufferSets − 1` further forward buffer pairs
    /// (`bufferSets` ≥ 1) for ``executeForward(set:)``.
    init(size: Int, bufferSets: Int) throws(ConfigurationError) {
        let bins = size / 2 + 1
        let resources: Resources? = fftwPlannerLock.withLock { _ in
            guard let timeDomain = fftwf_alloc_real(size) else { return nil }
            guard let inverseTimeDomain = fftwf_alloc_real(size) else {
                fftwf_free(timeDomain)
                return nil
            }
            guard let frequencyDomain = fftwf_alloc_complex(bins) else {
                fftwf_free(inverseTimeDomain)
                fftwf_free(timeDomain)
                return nil
            }
            let flags = UInt32(FFTW_ESTIMATE)
            let forwardPlan = fftwf_plan_dft_r2c_1d(Int32(size), timeDomain, frequencyDomain, flags)
            let inversePlan = fftwf_plan_dft_c2r_1d(Int32(size), frequencyDomain, inverseTimeDomain, flags)
            guard let forwardPlan, let inversePlan else {
                if let forwardPlan { fftwf_destroy_plan(forwardPlan) }
                if let inversePlan { fftwf_destroy_plan(inversePlan) }
                fftwf_free(frequencyDomain)
                fftwf_free(inverseTimeDomain)
                fftwf_free(timeDomain)
                return nil
            }
            var resources = Resources(
                timeDomain: timeDomain, inverseTimeDomain: inverseTimeDomain, frequencyDomain: frequencyDomain,
                forwardPlan: forwardPlan, inversePlan: inversePlan)
            for _ in 1..<max(1, bufferSets) {
                guard let input = fftwf_alloc_real(size), let spectrum = fftwf_alloc_complex(bins) else {
                    Self.release(resources)
                    return nil
                }
                resources.extraInputs.append(input)
                resources.extraSpectra.append(spectrum)
            }
            return resources
        }
        guard let resources else {
            throw ConfigurationError(parameter: "size", value: size, expected: "a size FFTW can plan")
        }
        self.size = size
        self.bins = bins
        self.timeDomain = resources.timeDomain
        self.inverseTimeDomain = resources.inverseTimeDomain
        self.frequencyDomain = resources.frequencyDomain
        self.interleaved = UnsafeMutableRawPointer(resources.frequencyDomain)
            .bindMemory(to: Float.self, capacity: 2 * bins)
        self.forwardPlan = resources.forwardPlan
        self.inversePlan = resources.inversePlan
        self.extraInputs = resources.extraInputs
        self.extraSpectra = resources.extraSpectra
        timeDomain.initialize(repeating: 0, count: size)
        inverseTimeDomain.initialize(repeating: 0, count: size)
        interleaved.initialize(repeating: 0, count: 2 * bins)
        for (input, spectrum) in zip(extraInputs, extraSpectra) {
            input.initialize(repeating: 0, count: size)
            UnsafeMutableRawPointer(spectrum).bindMemory(to: Float.self, capacity: 2 * bins)
                .initialize(repeating: 0, count: 2 * bins)
        }
    }

    deinit {
        let resources = Resources(
            timeDomain: timeDomain, inverseTimeDomain: inverseTimeDomain, frequencyDomain: frequencyDomain,
            forwardPlan: forwardPlan, inversePlan: inversePlan, extraInputs: extraInputs, extraSpectra: extraSpectra)
        fftwPlannerLock.withLock { _ in Self.release(resources) }
    }

    /// Destroys the plans and frees every buffer; the caller holds `fftwPlannerLock`.
    private static func release(_ resources: Resources) {
        fftwf_destroy_plan(resources.forwardPlan)
        fftwf_destroy_plan(resources.inversePlan)
        for input in resources.extraInputs { fftwf_free(input) }
        for spectrum in resources.extraSpectra { fftwf_free(spectrum) }
        fftwf_free(resources.frequencyDomain)
        fftwf_free(resources.inverseTimeDomain)
        fftwf_free(resources.timeDomain)
    }

    func forward(
        _ input: UnsafeBufferPointer<Float>,
        real: UnsafeMutableBufferPointer<Float>,
        imaginary: UnsafeMutableBufferPointer<Float>
    ) {
        timeDomain.update(from: input.baseAddress!, count: size)
        fftwf_execute(forwardPlan)
        for bin in 0..<bins {
            real[bin] = interleaved[2 * bin]
            imaginary[bin] = interleaved[2 * bin + 1]
        }
    }

    func inverse(
        real: UnsafeBufferPointer<Float>,
        imaginary: UnsafeBufferPointer<Float>,
        into output: UnsafeMutableBufferPointer<Float>
    ) {
        for bin in 0..<bins {
            interleaved[2 * bin] = real[bin]
            interleaved[2 * bin + 1] = imaginary[bin]
        }
        // FFTW reads the DC and Nyquist bins as real; zero their imaginary parts explicitly so
        // the result does not depend on what the caller left there.
        interleaved[1] = 0
        interleaved[2 * (bins - 1) + 1] = 0
        fftwf_execute(inversePlan)
        output.baseAddress!.update(from: inverseTimeDomain, count: size)
    }

    var forwardInput: UnsafeMutablePointer<Float> { timeDomain }
    var interleavedSpectrum: UnsafeMutablePointer<Float> { interleaved }
    var inverseOutput: UnsafeMutablePointer<Float> { inverseTimeDomain }

    func executeForward() {
        fftwf_execute(forwardPlan)
    }

    /// Buffer set `set`'s forward input (`set` 0 is ``forwardInput``).
    func forwardInput(set: Int) -> UnsafeMutablePointer<Float> {
        set == 0 ? timeDomain : extraInputs[set - 1]
    }

    /// Buffer set `set`'s interleaved spectrum (`set` 0 is ``interleavedSpectrum``).
    func interleavedSpectrum(set: Int) -> UnsafeMutablePointer<Float> {
        set == 0
            ? interleaved
            : UnsafeMutableRawPointer(extraSpectra[set - 1]).assumingMemoryBound(to: Float.self)
    }

    /// The forward plan on buffer set `set` (`fftwf_execute_dft_r2c`, FFTW's new-array execute:
    /// the same plan, so the same operations and bits as ``executeForward()`` on the same input;
    /// the buffers are aligned as the planning ones). The input is kept.
    func executeForward(set: Int) {
        if set == 0 {
            fftwf_execute(forwardPlan)
        } else {
            fftwf_execute_dft_r2c(forwardPlan, extraInputs[set - 1], extraSpectra[set - 1])
        }
    }

    /// 0: FFTW's plans carry no scratch of the caller's.
    var externalScratchCount: Int { 0 }

    /// The forward plan on the caller's buffers (`fftwf_execute_dft_r2c`, FFTW's new-array
    /// execute, thread-safe on distinct arrays; 64-byte alignment is at least the planning
    /// buffers' SIMD alignment).
    func executeForward(
        input: UnsafeMutablePointer<Float>, spectrum: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>
    ) {
        fftwf_execute_dft_r2c(forwardPlan, input, UnsafeMutablePointer<fftwf_complex>(OpaquePointer(spectrum)))
    }

    func executeInverse() {
        // As in `inverse`: DC and Nyquist have no imaginary part.
        interleaved[1] = 0
        interleaved[2 * (bins - 1) + 1] = 0
        fftwf_execute(inversePlan)
    }
}

extension FFTWBackend {
    /// Bytes of the buffers allocated with `fftwf_alloc_*`: two of `size` reals and a spectrum
    /// of `size/2 + 1` complex values, plus a forward pair per further buffer set. FFTW's
    /// plans (allocated inside FFTW) are not counted.
    var allocatedBytes: Int {
        let spectrum = MemoryFootprint.bytes(fftwf_complex.self, bins)
        return 2 * MemoryFootprint.bytes(Float.self, size) + spectrum
            + extraInputs.count * MemoryFootprint.bytes(Float.self, size) + extraSpectra.count * spectrum
    }
}
#endif
