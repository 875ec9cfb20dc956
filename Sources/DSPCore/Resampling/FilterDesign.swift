// Polyphase filter bank design: an equiripple (Parks–McClellan) prototype — designed at a low
// rate and band-limited-interpolated to L × inputRate when L is large — or, for prototypes too
// long for the Remez exchange, a Kaiser-windowed sinc. Designed in Double, split into L phases
// stored as reversed, zero-padded Float32 rows.

extension Resampler {
    /// How a resampler's prototype filter was designed.
    public enum DesignMethod: Sendable, Hashable, CustomStringConvertible {
        /// Equal rates: a one-tap unit filter, output = input.
        case identity
        /// Parks–McClellan equiripple design of `length` taps at `designRate` Hz; when that is
        /// below L × inputRate, interpolated to it with a Kaiser-windowed sinc spanning
        /// `interpolatorSpan` design-rate samples (0 when designed at the prototype rate).
        case equiripple(designRate: Int, length: Int, interpolatorSpan: Int)
        /// Kaiser-windowed sinc with shape β and cutoff (−6 dB point) in Hz, for prototypes
        /// too long for the Remez exchange (extreme ratios such as 768 kHz → 1 kHz).
        case kaiserWindow(beta: Double, cutoffHz: Double)

        /// A one-line summary, e.g. `equiripple 135 taps at 48000 Hz`.
        public var description: String {
            switch self {
            case .identity:
                "identity"
            case let .equiripple(rate, length, span):
                span == 0
                    ? "equiripple \(length) taps at \(rate) Hz"
                    : "equiripple \(length) taps at \(rate) Hz, interpolated (\(span)-sample Kaiser sinc)"
            case let .kaiserWindow(beta, cutoff):
                "Kaiser-windowed sinc, beta \(beta), cutoff \(cutoff) Hz"
            }
        }
    }
}

/// The parameters of a designed polyphase bank.
struct PolyphaseLayout {
    /// Interpolation factor L: the number of phases (reduced output rate).
    var phaseCount: Int
    /// Decimation factor M: prototype samples advanced per output (reduced input rate).
    var step: Int
    /// Prototype length K, in taps at the rate L × inputRate. Odd, so its delay is whole.
    var prototypeLength: Int
    /// Taps per phase row, a multiple of 8 (the kernel's narrowest step); rows are zero-padded
    /// at the front.
    var tapsPerPhase: Int
    /// The design.
    var method: Resampler.DesignMethod
    /// The equiripple filter at the design rate (empty for Kaiser designs).
    var designTaps: [Double]
    /// Rejection target of the interpolating sinc, in dB (equiripple attenuation + 12).
    var interpolatorAttenuationDB: Double
    /// Whether the bank is evaluated across outputs (`cdsp_polyphase_small`): small ratios,
    /// L ≤ 4 and M ≤ 8 with T ≤ ``maximumAcrossOutputsTaps``. Their rows need not be whole
    /// SIMD vectors, so T is any length (direct designs then fill rows one tap at a time).
    var acrossOutputs: Bool

    /// Longest row the across-outputs kernel takes (its stack scratch is sized for it).
    static let maximumAcrossOutputsTaps = 1024

    /// Whether the bank is evaluated by the staggered-groups kernel (`cdsp_polyphase_groups`,
    /// see ``StaggeredBank``): large L (a multiple of 8) with at most
    /// ``StaggeredBank/maximumWidth`` groups in flight. Its rows are unpadded (T = ⌈K / L⌉).
    var staggered: Bool = false

    /// The band edges and deviations a prototype is designed for.
    struct Bands {
        /// Passband edge of the design, in Hz.
        var passHz: Double
        /// Stopband edge, in Hz.
        var stopHz: Double
        /// Peak passband deviation the equiripple design allows.
        var passDeviation: Double
        /// Stopband attenuation of the equiripple design, in dB.
        var attenuationDB: Double

        /// The preset's bands for a resampler between `inputRate` and `outputRate`: relative to
        /// the low Nyquist frequency (see ``Resampler/Quality``).
        static func standard(inputRate: Int, outputRate: Int, quality: Resampler.Quality) -> Bands {
            let lowNyquistHz = Double(Swift.min(inputRate, outputRate)) / 2
            return Bands(
                passHz: Resampler.Quality.designPassbandEdgeRatio * lowNyquistHz,
                stopHz: Resampler.Quality.stopbandEdgeRatio * lowNyquistHz,
                passDeviation: Resampler.Quality.designPassbandDeviation,
                attenuationDB: quality.equirippleAttenuationDB)
        }
    }

    /// Prototype delay (K − 1) / 2, in prototype samples.
    var prototypeDelay: Int { (prototypeLength - 1) / 2 }

    /// Coefficient count of the bank.
    var coefficientCount: Int { phaseCount * tapsPerPhase }

    /// Longest equiripple design attempted; longer ones use the Kaiser window.
    static let maximumEquirippleLength = 640

    /// Chooses and designs the prototype for `L`/`M` (reduced) at `inputRate` and `quality`.
    ///
    /// Identity ratios (L = M = 1) get a one-tap unit filter.
    /// `bands` overrides the preset's band edges (a first stage to an intermediate rate uses
    /// its own, see ``Resampler/validatedLayout(_:)``).
    init(phaseCount l: Int, step m: Int, inputRate: Int, outputRate: Int, quality: Resampler.Quality, bands: Bands? = nil) {
        phaseCount = l
        step = m
        designTaps = []
        let customBands = bands
        let bands = bands ?? .standard(inputRate: inputRate, outputRate: outputRate, quality: quality)
        interpolatorAttenuationDB = bands.attenuationDB + 12
        let width = Resampler.simdWidth
        acrossOutputs = false
        if l == m {
            prototypeLength = 1
            tapsPerPhase = Resampler.simdWidth
            method = .identity
            return
        }
        let small = l <= 4 && m <= 8
        if let design = Self.equiripple(l: l, m: m, inputRate: inputRate, bands: bands, anyRowLength: small) {
            designTaps = design.taps
            method = .equiripple(designRate: design.rate, length: design.taps.count, interpolatorSpan: design.span)
            prototypeLength = design.prototypeLength
            let rows = (design.prototypeLength + l - 1) / l
            acrossOutputs = small && rows <= Self.maximumAcrossOutputsTaps
            staggered = !small && StaggeredBank.width(phaseCount: l, step: m, taps: rows) != nil
            tapsPerPhase = acrossOutputs || staggered ? rows : (rows + width - 1) / width * width
            return
        }
        // Kaiser fallback: the length for a transition 2 × (stop edge − cutoff) wide, rounded up
        // to whole SIMD rows per phase and grown to fill them (a longer window at the same β
        // only narrows the transition), kept odd.
        let prototypeRateHz = Double(l) * Double(inputRate)
        let a = quality.kaiserAttenuationDB - quality.equirippleAttenuationDB + bands.attenuationDB
        let lowNyquistHz = Double(Swift.min(inputRate, outputRate)) / 2
        var cutoffHz = quality.kaiserCutoffRatio * lowNyquistHz
        if customBands != nil {
            // The preset's cutoff, at the same place between custom band edges.
            let standard = Bands.standard(inputRate: inputRate, outputRate: outputRate, quality: quality)
            let position = (cutoffHz - standard.passHz) / (standard.stopHz - standard.passHz)
            cutoffHz = bands.passHz + position * (bands.stopHz - bands.passHz)
        }
        let transitionHz = 2 * (bands.stopHz - cutoffHz)
        let transitionRadians = 2 * Double.pi * transitionHz / prototypeRateHz
        let beta = KaiserWindow.beta(attenuationDB: a)
        let minimumLength = Swift.max(KaiserWindow.length(attenuationDB: a, transitionWidthRadians: transitionRadians), m + 1)
        var taps = (minimumLength + l - 1) / l
        taps = (taps + width - 1) / width * width
        tapsPerPhase = taps
        acrossOutputs = l <= 4 && m <= 8 && taps <= Self.maximumAcrossOutputsTaps
        var k = taps * l
        if k % 2 == 0 { k -= 1 }
        prototypeLength = k
        method = .kaiserWindow(beta: beta, cutoffHz: cutoffHz)
    }

    /// The equiripple plan: taps at the design rate, that rate, the interpolator span and the
    /// resulting prototype length — or nil when the design would be too long or fails.
    ///
    /// Band edges (fractions of the low Nyquist F_n): passband 0.89 (the specified 0.875 plus
    /// room to put the −3 dB point above 0.925 in the roughly linear transition), stopband
    /// 1.0625. The
    /// design rate is L × inputRate itself when L ≤ 4 (then the prototype *is* the design, with
    /// its length chosen to fill whole SIMD rows); otherwise R × inputRate for the smallest R ≥ 1
    /// within 5 % of the lowest estimated taps per phase, (N_R + S_R) / R, among designs of at
    /// most 400 taps — N_R is the Remez length and S_R the span of the interpolating sinc,
    /// which must pass the stopband edge s and reject from R × inputRate − s (where the
    /// design's passband image starts).
    private static func equiripple(
        l: Int, m: Int, inputRate: Int, bands: Bands, anyRowLength: Bool
    ) -> (taps: [Double], rate: Int, span: Int, prototypeLength: Int)? {
        let passHz = bands.passHz
        let stopHz = bands.stopHz
        let passDeviation = bands.passDeviation
        let stopDeviation = Elementary.power(10, -bands.attenuationDB / 20)
        let stopWeight = passDeviation / stopDeviation
        // Kaiser's estimate of the equiripple length (Oppenheim & Schafer eq. 7.117 form):
        // N ≈ (−20 log10 √(δp δs) − 13) / (14.6 Δf) + 1.
        let figure = -10 * Elementary.log10(passDeviation * stopDeviation) - 13
        func estimate(rateHz: Double) -> Int {
            Int((figure / (14.6 * (stopHz - passHz) / rateHz)).rounded(.up)) + 1
        }
        let interpolatorAttenuation = bands.attenuationDB + 12  // as in init
        func span(rateHz: Double) -> Int {
            let transition = (rateHz - 2 * stopHz) / rateHz
            let n = (interpolatorAttenuation - 7.95) / (2.285 * 2 * Double.pi * transition)
            let s = Int(n.rounded(.up))
            return s + s % 2
        }
        let width = Resampler.simdWidth
        let direct = l <= 4
        var ratio = l
        if !direct {
            // Cost per output ≈ (N_R + S_R) / R taps; Remez time grows with N_R, so take the
            // smallest R within 5 % of the cheapest R whose design stays ≤ 400 taps.
            var costs: [(r: Int, cost: Double)] = []
            for r in 1...8 where Double(r) * Double(inputRate) > 3 * stopHz {
                let rate = Double(r) * Double(inputRate)
                let n = estimate(rateHz: rate)
                if n <= 400 { costs.append((r, Double(n + span(rateHz: rate)) / Double(r))) }
            }
            guard let cheapest = costs.map(\.cost).min() else { return nil }
            ratio = costs.first { $0.cost <= 1.05 * cheapest }!.r
        }
        let rateHz = Double(ratio) * Double(inputRate)
        let first = estimate(rateHz: rateHz)
        guard first <= maximumEquirippleLength else { return nil }
        let fp = passHz / rateHz
        let fs = stopHz / rateHz
        // Candidate lengths: direct designs fill whole rows (N = T·L − 1, T a multiple of 8,
        // or with `anyRowLength` any T that keeps N odd); interpolated ones are any odd length.
        let unit = direct ? (anyRowLength ? (l % 2 == 0 ? l : 2 * l) : width * l) : 2
        func length(_ index: Int) -> Int { direct ? index * unit - 1 : 2 * index + 1 }
        let index = direct ? (first + 1 + unit - 1) / unit : (first - 1 + 1) / 2
        func design(_ i: Int) -> [Double]? {
            let n = length(i)
            guard n >= 3, n <= maximumEquirippleLength else { return nil }
            guard let result = Remez.lowPass(
                length: n, passbandEdge: fp, stopbandEdge: fs, stopWeight: stopWeight, abandonAbove: passDeviation),
                  result.passbandDeviation <= passDeviation else { return nil }
            return result.taps
        }
        // Shortest passing length: make sure the estimate passes (growing it if not), then
        // bisect down to 85 % of it. Failing trials stop early (abandonAbove).
        var best: [Double]? = nil
        var high = index
        for _ in 0..<8 {
            if let taps = design(high) {
                best = taps
                break
            }
            high += 1
        }
        guard best != nil else { return nil }
        var low = Swift.max(direct ? 0 : 1, Int(Double(high) * 0.85) - 1)
        if low >= high { low = high - 1 }
        while high - low > 1 {
            let middle = (low + high) / 2
            if let taps = design(middle) {
                best = taps
                high = middle
            } else {
                low = middle
            }
        }
        guard let taps = best else { return nil }
        if direct {
            guard taps.count >= m + 1 else { return nil }
            return (taps, l * inputRate, 0, taps.count)
        }
        let s = span(rateHz: rateHz)
        let center = (taps.count - 1) / 2
        // D = ⌈(c + S/2) · L / R⌉ prototype samples each side of the centre.
        var delay = ((center + s / 2) * l + ratio - 1) / ratio
        // When that overshoots a whole number of SIMD rows (T·L − 1 taps) by less than an
        // eighth of a design sample each side, drop the overshoot: those taps are the tails of
        // the interpolating sinc at its window's edge (sinc zero crossing × window ≪ 10⁻⁶ of the
        // peak), and it saves a whole row block (22.05 → 16 kHz `.default`: T = 80 → 72).
        let rows = (2 * delay + 1 + l - 1) / l
        let fewerRows = (rows + width - 1) / width * width - width
        if fewerRows > 0 {
            let fitted = (fewerRows * l - 2) / 2
            if fitted < delay, (delay - fitted) * 8 * ratio <= l { delay = fitted }
        }
        let k = 2 * delay + 1
        guard k >= m + 1 else { return nil }
        return (taps, ratio * inputRate, s, k)
    }

    /// Writes the bank into `bank` (``coefficientCount`` floats).
    ///
    /// Row `p × rowStep mod L` holds phase p (`rowStep` = (M mod L)⁻¹ mod L, so the phases
    /// consecutive outputs use, p, p + M mod L, …, sit in consecutive rows and are read
    /// sequentially): tap i of the row multiplies input frame q − (T − 1 − i), where q
    /// is the newest frame the output uses, so a dot product reads history and row forwards.
    /// Row entry i = L · h[p + (T − 1 − i) L], zero where that index passes K − 1, with the
    /// prototype h scaled so Σ h = L (unity gain at DC averaged over the phases). Computed in
    /// Double, rounded once to Float32.
    func fill(_ bank: UnsafeMutablePointer<Float>, inputRate: Int, rowStep: Int) {
        bank.initialize(repeating: 0, count: coefficientCount)
        let k = prototypeLength
        if k == 1 {
            bank[tapsPerPhase - 1] = 1
            return
        }
        let prototype: [Double]
        switch method {
        case .identity:
            return
        case let .equiripple(rate, _, span):
            prototype = span == 0 ? designTaps : interpolated(designRate: rate, span: span, inputRate: inputRate)
        case let .kaiserWindow(beta, cutoffHz):
            prototype = kaiserPrototype(beta: beta, cutoffHz: cutoffHz, inputRate: inputRate)
        }
        let l = phaseCount
        var sum = 0.0
        for value in prototype { sum += value }
        let scale = Double(l) / sum
        let t = tapsPerPhase
        for p in 0..<l {
            let row = bank + (l == 1 ? 0 : p * rowStep % l) * t
            var j = 0
            while p + j * l < k {
                row[t - 1 - j] = Float(prototype[p + j * l] * scale)
                j += 1
            }
        }
    }

    /// The Kaiser-windowed sinc h[k] = 2 f_c sinc(2 f_c (k − D)) w[k], f_c in cycles per
    /// prototype sample.
    private func kaiserPrototype(beta: Double, cutoffHz: Double, inputRate: Int) -> [Double] {
        let k = prototypeLength
        let fc = cutoffHz / (Double(phaseCount) * Double(inputRate))
        let center = Double(k - 1) / 2
        let inverseI0 = 1 / KaiserWindow.besselI0(beta)
        var prototype = [Double](repeating: 0, count: k)
        for index in 0..<k {
            let x = 2 * fc * (Double(index) - center)
            let sinc = x == 0 ? 1 : Elementary.sine(Double.pi * x) / (Double.pi * x)
            prototype[index] = 2 * fc * sinc * KaiserWindow.value(at: index, length: k, beta: beta, inverseI0Beta: inverseI0)
        }
        return prototype
    }

    /// The design-rate taps g[j] (rate R × inputRate) evaluated at the prototype rate
    /// L × inputRate by band-limited interpolation: h[k] = Σⱼ g[j] ψ(u_k − j), where
    /// u_k = c + (k − D) R / L is prototype sample k in design samples (c the design's centre)
    /// and ψ(t) = sinc(t) · Kaiser(t, span S) is a half-band (cutoff R·inputRate/2) interpolator
    /// with ≥ A + 12 dB rejection from R·inputRate − s. The fractional part of u_k takes only L
    /// values, so ψ is tabulated per fraction: L × (S + 1) evaluations.
    private func interpolated(designRate: Int, span s: Int, inputRate: Int) -> [Double] {
        let l = phaseCount
        let r = designRate / inputRate
        let design = designTaps
        let n = design.count
        let center = (n - 1) / 2
        let delay = prototypeDelay
        let halfSpan = s / 2
        let beta = KaiserWindow.beta(attenuationDB: interpolatorAttenuationDB)
        let inverseI0 = 1 / KaiserWindow.besselI0(beta)
        // table[φ][i + S/2] = ψ(i + φ/L), i in −S/2...S/2.
        let columns = s + 1
        var table = [Double](repeating: 0, count: l * columns)
        for phi in 0..<l {
            for i in -halfSpan...halfSpan {
                let t = Double(i) + Double(phi) / Double(l)
                let ratio = 2 * t / Double(s)
                guard ratio * ratio < 1 else { continue }
                let sinc = t == 0 ? 1 : Elementary.sine(Double.pi * t) / (Double.pi * t)
                let window = KaiserWindow.besselI0(beta * (1 - ratio * ratio).squareRoot()) * inverseI0
                table[phi * columns + i + halfSpan] = sinc * window
            }
        }
        var prototype = [Double](repeating: 0, count: prototypeLength)
        for k in 0..<prototypeLength {
            let q = (k - delay) * r
            // Floor division: u = c + ⌊q / L⌋ + (q mod L) / L.
            var whole = q / l
            var phi = q - whole * l
            if phi < 0 {
                phi += l
                whole -= 1
            }
            let base = center + whole
            var value = 0.0
            for i in -halfSpan...halfSpan {
                let j = base - i
                guard j >= 0, j < n else { continue }
                value += design[j] * table[phi * columns + i + halfSpan]
            }
            prototype[k] = value
        }
        return prototype
    }
}
