// The umbrella module: `import SpeechDSP` brings in every public module.
@_exported import DSPAnalysis
@_exported import DSPCore
@_exported import DSPDetection
@_exported import DSPIO
@_exported import DSPPipeline
@_exported import DSPScoring
@_exported import DSPSpectral
