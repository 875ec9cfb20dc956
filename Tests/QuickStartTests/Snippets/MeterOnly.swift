// The README's "convert and meter only" example: DSPCore and DSPAnalysis alone (no FFTW, no
// libsndfile). Compiled and run by QuickStartTests.

// snippet: convert-and-meter
import DSPAnalysis
import DSPCore

/// Float32 from a client → PCM S16LE bytes for a recognizer, with the chunk's level.
func convert(_ chunk: [Float]) throws -> (bytes: [UInt8], rmsDBFS: Double, clipped: Int) {
    let bytes = Int16Conversion.littleEndianBytes(chunk)  // ×32768, round half to even, clamp
    let level = try LevelMeter().measure(chunk)
    return (bytes, level.rmsDBFS, level.clippedCount)
}
// snippet end
