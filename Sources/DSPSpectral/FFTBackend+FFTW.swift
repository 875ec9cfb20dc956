// Compiled only with the package trait FFTW (the default): without it nothing in the package
// imports CFFTW and no binary links libfftw3f.
#if FFTW
import CFFTW
internal import CDSPKernels
import DSPCore
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
///
/// The forward transform's split route: where the size is a multiple of 4, `init` also plans
/// FFTW's `size/2`-point complex DFT (`fftwf_plan_dft_1d`, `FFTW_ESTIMATE`, on the same buffers)
/// — the DFT FFTW's r2c plan starts with — and every forward transform runs it followed by
/// `cdsp_fftw_real_split` (FFTWSplit.c: the split step FFTW's plan ends with, its operations in
/// its order, eight pairs at a time, instead of FFTW's SSE2 codelet, which took twice the DFT's
/// time here). `init` runs both routes on four test frames and keeps the split
/// route only if every spectrum is the r2c plan's bit for bit; otherwise forward transforms run
/// the r2c plan itself.
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
    /// The split route's `size/2`-point complex DFT plan, or nil where the r2c plan runs.
    private let splitPlan: OpaquePointer?
    /// `cos(2πk/size)` then `sin(2πk/size)` for `k < size/4`, rounded to float (the split
    /// step's twiddles); nil without the split route.
    private let splitTwiddles: UnsafeMutablePointer<Float>?

    private struct Resources {
        var timeDomain: UnsafeMutablePointer<Float>
        var inverseTimeDomain: UnsafeMutablePointer<Float>
        var frequencyDomain: UnsafeMutablePointer<fftwf_complex>
        var forwardPlan: OpaquePointer
        var inversePlan: OpaquePointer
        var extraInputs: [UnsafeMutablePointer<Float>] = []
        var extraSpectra: [UnsafeMutablePointer<fftwf_complex>] = []
        var splitPlan: OpaquePointer? = nil
        var splitTwiddles: UnsafeMutablePointer<Float>? = nil
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
            Self.planSplit(&resources, size: size)
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
        self.splitPlan = resources.splitPlan
        self.splitTwiddles = resources.splitTwiddles
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
            forwardPlan: forwardPlan, inversePlan: inversePlan, extraInputs: extraInputs, extraSpectra: extraSpectra,
            splitPlan: splitPlan, splitTwiddles: splitTwiddles)
        fftwPlannerLock.withLock { _ in Self.release(resources) }
    }

    /// Destroys the plans and frees every buffer; the caller holds `fftwPlannerLock`.
    private static func release(_ resources: Resources) {
        fftwf_destroy_plan(resources.forwardPlan)
        fftwf_destroy_plan(resources.inversePlan)
        if let splitPlan = resources.splitPlan { fftwf_destroy_plan(splitPlan) }
        resources.splitTwiddles?.deallocate()
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
        transform(timeDomain, frequencyDomain)
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
        transform(timeDomain, frequencyDomain)
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

    /// The forward transform on buffer set `set` (FFTW's new-array execute: the same plans, so
    /// the same operations and bits as ``executeForward()`` on the same input; the buffers are
    /// aligned as the planning ones). The input is kept.
    func executeForward(set: Int) {
        if set == 0 {
            transform(timeDomain, frequencyDomain)
        } else {
            transform(extraInputs[set - 1], extraSpectra[set - 1])
        }
    }

    /// 0: FFTW's plans carry no scratch of the caller's.
    var externalScratchCount: Int { 0 }

    /// The forward transform on the caller's buffers (FFTW's new-array execute, thread-safe on
    /// distinct arrays; 64-byte alignment is at least the planning buffers' SIMD alignment).
    func executeForward(
        input: UnsafeMutablePointer<Float>, spectrum: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>
    ) {
        transform(input, UnsafeMutablePointer<fftwf_complex>(OpaquePointer(spectrum)))
    }

    /// Whether forward transforms take the split route (for tests and diagnostics).
    var usesSplitRoute: Bool { splitPlan != nil }

    /// FFTW's r2c plan on the caller's buffers, whichever route forward transforms take: the
    /// split route's reference (for tests). Buffers as for
    /// ``executeForward(input:spectrum:scratch:)``.
    func executeR2CPlan(input: UnsafeMutablePointer<Float>, spectrum: UnsafeMutablePointer<Float>) {
        fftwf_execute_dft_r2c(forwardPlan, input, UnsafeMutablePointer<fftwf_complex>(OpaquePointer(spectrum)))
    }

    /// The forward transform of `input` (`size` reals, not modified) into `spectrum`
    /// (`size/2 + 1` bins; neither overlapping the other, aligned as the planning buffers): the
    /// split route where planned, else the r2c plan (`fftwf_execute_dft_r2c`).
    @inline(__always)
    private func transform(_ input: UnsafeMutablePointer<Float>, _ spectrum: UnsafeMutablePointer<fftwf_complex>) {
        if let splitPlan, let splitTwiddles {
            Self.split(splitPlan, splitTwiddles, size, input, spectrum)
        } else {
            fftwf_execute_dft_r2c(forwardPlan, input, spectrum)
        }
    }

    /// The split route: the complex DFT of the `size/2` pairs, then the split step in place.
    @inline(__always)
    private static func split(
        _ plan: OpaquePointer, _ twiddles: UnsafeMutablePointer<Float>, _ size: Int,
        _ input: UnsafeMutablePointer<Float>, _ spectrum: UnsafeMutablePointer<fftwf_complex>
    ) {
        let m = size / 2
        fftwf_execute_dft(plan, UnsafeMutablePointer<fftwf_complex>(OpaquePointer(input)), spectrum)
        let interleaved = UnsafeMutableRawPointer(spectrum).assumingMemoryBound(to: Float.self)
        cdsp_fftw_real_split(interleaved, m, twiddles, twiddles + m / 2)
    }

    /// Plans the split route into `resources` where `size` is a multiple of 4 and the route gives
    /// the r2c plan's spectra bit for bit on four test frames (pseudo-random at 1, 10⁻⁴ and 10⁴,
    /// and a sine); otherwise leaves it nil. The caller holds `fftwPlannerLock`.
    private static func planSplit(_ resources: inout Resources, size: Int) {
        guard size >= 8, size % 4 == 0 else { return }
        let m = size / 2, bins = m + 1
        guard let plan = fftwf_plan_dft_1d(
            Int32(m), UnsafeMutablePointer<fftwf_complex>(OpaquePointer(resources.timeDomain)),
            resources.frequencyDomain, FFTW_FORWARD, UInt32(FFTW_ESTIMATE))
        else { return }
        let twiddles = UnsafeMutablePointer<Float>.allocate(capacity: m)
        for k in 0..<(m / 2) {
            let angle = 2 * Double.pi * Double(k) / Double(size)
            twiddles[k] = Float(cos(angle))
            twiddles[m / 2 + k] = Float(sin(angle))
        }
        guard let input = fftwf_alloc_real(size), let expected = fftwf_alloc_complex(bins),
              let actual = fftwf_alloc_complex(bins)
        else {
            fftwf_destroy_plan(plan)
            twiddles.deallocate()
            return
        }
        var same = true
        var state: UInt32 = 0x2545_F491
        for frame in 0..<4 {
            let scale: Float = [1, 1e-4, 1e4, 1][frame]
            for t in 0..<size {
                state = state &* 1_664_525 &+ 1_013_904_223
                let noise = Float(state >> 8) / Float(1 << 24) - 0.5
                input[t] = frame == 3 ? Float(sin(0.37 * Double(t))) : scale * noise
            }
            fftwf_execute_dft_r2c(resources.forwardPlan, input, expected)
            split(plan, twiddles, size, input, actual)
            same = same && memcmp(expected, actual, MemoryLayout<fftwf_complex>.stride * bins) == 0
        }
        fftwf_free(actual)
        fftwf_free(expected)
        fftwf_free(input)
        if same {
            resources.splitPlan = plan
            resources.splitTwiddles = twiddles
        } else {
            fftwf_destroy_plan(plan)
            twiddles.deallocate()
        }
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
    /// of `size/2 + 1` complex values, plus a forward pair per further buffer set, and the split
    /// route's `size/2` twiddles where it runs. FFTW's plans (allocated inside FFTW) are not
    /// counted.
    var allocatedBytes: Int {
        let spectrum = MemoryFootprint.bytes(fftwf_complex.self, bins)
        return 2 * MemoryFootprint.bytes(Float.self, size) + spectrum
            + extraInputs.count * MemoryFootprint.bytes(Float.self, size) + extraSpectra.count * spectrum
            + (splitTwiddles == nil ? 0 : MemoryFootprint.bytes(Float.self, size / 2))
    }
}
#endif
