import DSPCore

/// What one ``SpeechFrontEnd`` holds, per stage, from its units' own accounting
/// (``/DSPCore/MemoryFootprint``): bytes owned by the stream, and bytes of immutable tables shared
/// by every stream of the same configuration (counted once).
///
/// The figures are the payload the units ask of the allocator in `init`; `malloc`'s headers and
/// rounding, the class instances and FFTW's plans come on top (`dspbench run pipeline --streams`
/// prints this figure beside the resident memory per stream of N streams). Each footprint's
/// ``/DSPCore/MemoryFootprint/workspaceBytes`` is the scratch a call takes from the calling
/// thread's workspace: paid once per thread that processes streams, not per stream (`total`'s
/// is what one thread holds for a front end of this configuration).
public struct FrontEndMemory: Equatable, Sendable {
    /// One stage's memory.
    public struct Stage: Equatable, Sendable {
        /// The stage: `conditioner` (downmix + resampler), `output` (Int16 conversion),
        /// `levels` (re-framer), `loudness`, `clipping`, `detection` (detector: spectral
        /// analysis, cues, models), `environment`, `buffers` (the front end's own block
        /// buffers).
        public var name: String
        /// Its bytes.
        public var footprint: MemoryFootprint
    }

    /// The stages that run, in the order above.
    public var stages: [Stage]

    /// The sum over the stages.
    public var total: MemoryFootprint { stages.reduce(MemoryFootprint()) { $0 + $1.footprint } }
}

extension SpeechFrontEnd {
    /// The memory a front end with `configuration` holds, per stage (builds one to ask it).
    public static func memoryFootprint(for configuration: Configuration) throws(ConfigurationError) -> FrontEndMemory {
        try SpeechFrontEnd(configuration: configuration).memory
    }
}
