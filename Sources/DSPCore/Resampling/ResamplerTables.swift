// The immutable filter tables of a Resampler stage — the polyphase bank, its staggered-groups
// copy and the half-band taps — built once per design and shared by every resampler with it.

/// The coefficient tables of one resampler stage, read (never written) by every
/// ``Resampler`` built with the same rates and quality, on any number of threads.
///
/// A stage's tables depend only on its rates, its quality and whether it is a polyphase first
/// stage (which has its own band edges), never on the channel count, trimming or history size,
/// so a thousand 44.1 kHz streams hold one copy of the 44.1 → 24 kHz bank and its staggered
/// layout (24 kB) instead of a thousand. Built under ``cache``'s lock in `init`, freed with the
/// last resampler that holds them.
final class ResamplerTables: @unchecked Sendable {
    // @unchecked: the pointers below are written only in `init`, then read by any thread.
    /// What the tables are a function of.
    struct Key: Hashable, Sendable {
        /// The stage's input and output rates, Hz (a first stage: the resampler's input rate
        /// and the intermediate rate).
        var inputRate: Int
        var outputRate: Int
        var quality: Resampler.Quality
        /// Whether this is a polyphase first stage (designed with its own band edges).
        var isFirstStage: Bool
    }

    /// The tables of every design in use.
    static let cache = SharedTableCache<Key, ResamplerTables>()

    /// Phase rows, L × T floats, 64-byte aligned (``PolyphaseLayout/fill(_:inputRate:rowStep:)``).
    let bank: UnsafeMutablePointer<Float>
    /// The bank rearranged for the staggered-groups kernel, when the stage uses it.
    let staggered: StaggeredBank?
    /// The half-band's 2K taps over the odd input frames (oldest first), Float32; one unused
    /// float without a half-band.
    let halfBandCoefficients: UnsafeMutablePointer<Float>
    /// Bytes allocated in `init`.
    let allocatedBytes: Int

    /// Builds the tables of a designed `layout` at `stageRate` whose rows are stored with
    /// `rowStep` (the resampler's slot step), and of `halfBandTaps` (empty without a half-band).
    init(layout: PolyphaseLayout, stageRate: Int, rowStep: Int, halfBandTaps: [Double]) {
        // 64-byte aligned: with T a multiple of 16 every row starts on a cache line, so the
        // kernel's 16-float coefficient loads never split one (measurable at L > 1, where
        // rows are read from L2).
        bank = UnsafeMutableRawPointer.allocate(byteCount: layout.coefficientCount * MemoryLayout<Float>.stride, alignment: 64)
            .bindMemory(to: Float.self, capacity: layout.coefficientCount)
        layout.fill(bank, inputRate: stageRate, rowStep: rowStep)
        if layout.staggered, let width = StaggeredBank.width(phaseCount: layout.phaseCount, step: layout.step, taps: layout.tapsPerPhase) {
            staggered = StaggeredBank(bank: bank, phaseCount: layout.phaseCount, step: layout.step, taps: layout.tapsPerPhase, width: width)
        } else {
            staggered = nil
        }
        let halfBandCount = Swift.max(1, halfBandTaps.count)
        halfBandCoefficients = .allocate(capacity: halfBandCount)
        halfBandCoefficients.initialize(repeating: 0, count: halfBandCount)
        for (i, value) in halfBandTaps.enumerated() { halfBandCoefficients[i] = Float(value) }
        allocatedBytes = MemoryFootprint.bytes(Float.self, layout.coefficientCount + halfBandCount) + (staggered?.allocatedBytes ?? 0)
    }

    deinit {
        UnsafeMutableRawPointer(bank).deallocate()
        halfBandCoefficients.deallocate()
        staggered?.deallocate()
    }
}
