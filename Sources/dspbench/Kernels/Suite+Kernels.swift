// Dispatch from a suite to the file that builds its kernels.

extension Suite {
    /// The kernels of this suite: SpeechDSP's, then the peers' when `context.compare` is set.
    func makeKernels(_ context: SuiteContext) -> [Kernel] {
        switch self {
        case .conversion: ConversionKernels.make(context)
        case .metering: MeteringKernels.make(context)
        case .reframing: ReframingKernels.make(context)
        case .fft: FFTKernels.make(context)
        case .resample: ResampleKernels.make(context)
        case .loudness: LoudnessKernels.make(context)
        case .detection: DetectionKernels.make(context)
        case .environment: EnvironmentKernels.make(context)
        case .pipeline: PipelineKernels.make(context)
        }
    }
}
