// Construction-time planning: which stages run (half-band, polyphase first stage or none) and
// the designed bank layout of the polyphase stage, for a validated configuration; the plan is
// shared by every resampler with the same rates and quality (ResamplerPlan).

/// The designed plan of a resampler — ``Resampler/validatedLayout(_:)``'s result — shared by
/// every ``Resampler`` built with the same input rate, output rate and quality (the only
/// settings the design reads), for as long as one of them holds it.
///
/// The design (Remez exchanges, the half-band's and a first stage's) costs 1–30 ms in a release
/// build (docs/resampling.md's table, "init"), far more than the rest of a resampler's `init`;
/// the tables built from it were already shared (``ResamplerTables``), the design was not, so a
/// second stream at a rate in use designed the same filters again. A shared plan is the design
/// that would have been computed, so outputs do not change by a bit. Kept whole (the design
/// taps too, ≤ 640 Doubles): ``ResamplerTables`` may need them if its tables were freed while
/// the plan was still held. A design is made under the cache's lock, so two threads building
/// resamplers of two new designs at once design them one after the other.
final class ResamplerPlan: Sendable {
    /// What the design is a function of.
    struct Key: Hashable, Sendable {
        var inputRate: Int
        var outputRate: Int
        var quality: Resampler.Quality
    }

    /// The plans in use.
    static let cache = SharedTableCache<Key, ResamplerPlan>()

    /// The (last) polyphase stage's layout, its design taps included.
    let layout: PolyphaseLayout
    /// What runs before it.
    let first: Resampler.FirstStage

    private init(layout: PolyphaseLayout, first: Resampler.FirstStage) {
        self.layout = layout
        self.first = first
    }

    /// The plan for `configuration` (validated first, every setting): the one a resampler with
    /// its rates and quality holds, else a new design (``Resampler/validatedLayout(_:)``).
    /// - Throws: ``ConfigurationError`` as ``Resampler/validatedLayout(_:)`` does.
    static func shared(for configuration: Resampler.Configuration) throws(ConfigurationError) -> ResamplerPlan {
        try configuration.validate()
        let key = Key(inputRate: configuration.inputRate, outputRate: configuration.outputRate, quality: configuration.quality)
        return try cache.table(for: key) { () throws(ConfigurationError) in
            let designed = try Resampler.validatedLayout(configuration)
            return ResamplerPlan(layout: designed.layout, first: designed.first)
        }
    }
}

extension Resampler {
    /// SIMD width the phase rows are padded to, in floats.
    static let simdWidth = 8

    /// Greatest common divisor of two positive integers (Euclid).
    static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
        var x = a
        var y = b
        while y != 0 { (x, y) = (y, x % y) }
        return x
    }

    /// x⁻¹ mod n for gcd(x, n) = 1 (extended Euclid); 0 when n = 1.
    static func modularInverse(_ x: Int, modulo n: Int) -> Int {
        guard n > 1 else { return 0 }
        var (r0, r1) = (n, x % n)
        var (t0, t1) = (0, 1)
        while r1 != 0 {
            let q = r0 / r1
            (r0, r1) = (r1, r0 - q * r1)
            (t0, t1) = (t1, t0 - q * t1)
        }
        return (t0 % n + n) % n
    }

    /// What runs before the (last) polyphase stage.
    enum FirstStage {
        /// Nothing: one polyphase stage from the input rate.
        case none
        /// A half-band decimator to `inputRate / 2`.
        case halfBand(HalfBandDesign)
        /// A polyphase resampler to `rate` with its own (wide-transition) design.
        case polyphase(rate: Int, layout: PolyphaseLayout)
    }

    /// Peak passband deviation of a polyphase first stage's design: 0.0005 (±0.004 dB), so that
    /// with the last stage's ±0.043 dB the cascade stays inside the 0.1 dB specification.
    static let firstStagePassbandDeviation = 0.0005

    /// The most groups in flight a polyphase first stage may need (its kernel then keeps
    /// 4 × 3 accumulators in registers); beyond that the half-band route is cheaper.
    static let firstStageMaximumWidth = 3

    /// Validates `configuration` and returns the designed bank layout of the (last) polyphase
    /// stage and what runs before it.
    ///
    /// For downsampling by 2.5 or more, in order of preference:
    /// 1. from an even rate whose half is a small ratio away from the output rate (48, 96 →
    ///    16 kHz: 24 → 16, 48 → 16): a half-band decimator to `inputRate / 2`;
    /// 2. to an even output rate, when `inputRate → 3/2 × outputRate` decimates by less than
    ///    2.5, has L a multiple of 8 and its wide-transition design needs at most
    ///    ``firstStageMaximumWidth`` groups in flight (44.1 → 16 kHz: 44.1 → 24), that polyphase first stage (staggered
    ///    kernel), then `3/2 × outputRate → outputRate` (L/M = 2/3, across outputs). Its bands:
    ///    passband to the preset's design edge (0.89 × the output's Nyquist), stopband from
    ///    `3/2 × outputRate − 1.0625 × the output's Nyquist` — everything that would fold below
    ///    the final stopband edge at the intermediate rate — at the preset's attenuation;
    /// 3. from an even rate: the half-band, then the polyphase stage from `inputRate / 2` (88.2 →
    ///    16 kHz: 44.1 → 16).
    /// Otherwise the polyphase stage alone, from `inputRate`.
    static func validatedLayout(
        _ configuration: Configuration
    ) throws(ConfigurationError) -> (layout: PolyphaseLayout, first: FirstStage) {
        try configuration.validate()
        let inputRate = configuration.inputRate
        let outputRate = configuration.outputRate
        let quality = configuration.quality
        let divisor = greatestCommonDivisor(inputRate, outputRate)
        let l = outputRate / divisor
        let m = inputRate / divisor
        let downsamplesEnough = 2 * inputRate >= 5 * outputRate
        // The half-band route, designed only when it is taken (designs cost milliseconds).
        func halfBandRoute() -> (PolyphaseLayout, HalfBandDesign)? {
            guard inputRate % 2 == 0, downsamplesEnough else { return nil }
            let stageRate = inputRate / 2
            let stageDivisor = greatestCommonDivisor(stageRate, outputRate)
            let edgeHz = Quality.stopbandEdgeRatio * Double(outputRate) / 2
            guard outputRate / stageDivisor <= maximumPhaseCount,
                  let halfBand = HalfBandDesign.design(inputRate: inputRate, edgeHz: edgeHz, attenuationDB: quality.equirippleAttenuationDB)
            else { return nil }
            let layout = PolyphaseLayout(
                phaseCount: outputRate / stageDivisor, step: stageRate / stageDivisor,
                inputRate: stageRate, outputRate: outputRate, quality: quality)
            return layout.coefficientCount <= maximumCoefficientCount ? (layout, halfBand) : nil
        }
        if inputRate % 2 == 0, downsamplesEnough {
            // Route 1: the half-band's output rate is a small ratio away from the output.
            let stageDivisor = greatestCommonDivisor(inputRate / 2, outputRate)
            if outputRate / stageDivisor <= 4, inputRate / 2 / stageDivisor <= 8, let (layout, halfBand) = halfBandRoute() {
                return (layout, .halfBand(halfBand))
            }
        }
        // A first stage that itself decimates by 2.5 or more (88.2 → 24 kHz) costs more than
        // the half-band route: its work per output grows with the ratio.
        if downsamplesEnough, outputRate % 2 == 0, 2 * inputRate < 5 * (3 * outputRate / 2) {
            let rate = 3 * outputRate / 2
            let firstDivisor = greatestCommonDivisor(inputRate, rate)
            let firstL = rate / firstDivisor
            let firstM = inputRate / firstDivisor
            let nyquist = Double(outputRate) / 2
            if firstL % 8 == 0, firstL <= maximumPhaseCount {
                let bands = PolyphaseLayout.Bands(
                    passHz: Quality.designPassbandEdgeRatio * nyquist,
                    stopHz: Double(rate) - Quality.stopbandEdgeRatio * nyquist,
                    passDeviation: firstStagePassbandDeviation,
                    attenuationDB: quality.equirippleAttenuationDB)
                let first = PolyphaseLayout(
                    phaseCount: firstL, step: firstM, inputRate: inputRate, outputRate: rate, quality: quality, bands: bands)
                let second = PolyphaseLayout(phaseCount: 2, step: 3, inputRate: rate, outputRate: outputRate, quality: quality)
                if first.staggered, second.acrossOutputs,
                   let width = StaggeredBank.width(phaseCount: firstL, step: firstM, taps: first.tapsPerPhase),
                   width <= firstStageMaximumWidth {
                    return (second, .polyphase(rate: rate, layout: first))
                }
            }
        }
        if let (layout, halfBand) = halfBandRoute() { return (layout, .halfBand(halfBand)) }
        let layout = PolyphaseLayout(phaseCount: l, step: m, inputRate: inputRate, outputRate: outputRate, quality: quality)
        guard layout.coefficientCount <= maximumCoefficientCount else {
            throw ConfigurationError(
                parameter: "outputRate/inputRate",
                value: "\(outputRate)/\(inputRate) (reduced \(l)/\(m), \(layout.coefficientCount) coefficients)",
                expected: "a ratio whose filter bank has at most \(maximumCoefficientCount) coefficients"
            )
        }
        return (layout, .none)
    }
}
