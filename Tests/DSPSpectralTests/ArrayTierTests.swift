import DSPCore
import DSPSpectral
import Testing
import TestSupport

/// SpectralAnalyzer's allocating tier — an array or a span in, an array of features out —
/// against its buffer tier on the same input, bit for bit.
@Suite("DSPSpectral: the array tier equals the hot tier")
struct ArrayTierTests {
    @Test("SpectralAnalyzer: features per hop from arrays and spans")
    func spectralAnalyzer() throws {
        var signal = testSignal(count: 16_000 + 77, seed: 33)
        signal[5000] = .nan
        let failures = try checkArrayTier({ try SpectralAnalyzer() }, input: signal, same: SpectralAnalyzerContractTests.same)
        #expect(failures.isEmpty, "\(failures)")
        #expect(try SpectralAnalyzer().processAll(signal).count == (signal.count + 255) / 256)
    }
}
