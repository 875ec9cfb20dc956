import DSPCore
@testable import DSPSpectral
import Testing
import TestSupport

/// SpectralAnalyzer's buffer tier under the shared streaming-unit harness.
@Suite("SpectralAnalyzer keeps the streaming contract")
struct SpectralAnalyzerContractTests {
    /// Every field, floats by bit pattern (NaN pitch equals NaN pitch).
    static func same(_ a: SpectralFeatures, _ b: SpectralFeatures) -> Bool {
        let fa = [a.hopPower, a.framePower, a.centroidHz, a.rolloffHz, a.flatness, a.entropy, a.fluxDB,
                  a.zeroCrossingRate, a.harmonicity, a.pitchHz]
        let fb = [b.hopPower, b.framePower, b.centroidHz, b.rolloffHz, b.flatness, b.entropy, b.fluxDB,
                  b.zeroCrossingRate, b.harmonicity, b.pitchHz]
        return a.index == b.index && a.time == b.time && a.validCount == b.validCount && a.isFinite == b.isFinite
            && fa.map(\.bitPattern) == fb.map(\.bitPattern)
    }

    @Test("one frame per hop (the last partial), in batches of four, whatever the chunking")
    func contract() throws {
        var signal = testSignal(count: 16_000 + 77, seed: 31)
        signal[5000] = .nan  // a non-finite window takes the one-frame path inside a batch
        let failures = try checkStreamingUnit(
            { try SpectralAnalyzer() }, input: signal, expectedCount: (signal.count + 255) / 256, same: Self.same)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("maxOutputCount is exact: frames come in whole batches of four")
    func batches() throws {
        let analyzer = try SpectralAnalyzer()
        var pushed = 0
        var rng = SplitMix64(seed: 5)
        let signal = testSignal(count: 12_000, seed: 32)
        while pushed < signal.count {
            let n = Swift.min(signal.count - pushed, Int.random(in: 1...700, using: &rng))
            let expected = analyzer.maxOutputCount(forInputCount: n)
            #expect(expected % 4 == 0)
            let out = UnsafeMutableBufferPointer<SpectralFeatures>.allocate(capacity: Swift.max(1, expected))
            defer { out.deallocate() }
            let result = signal.withUnsafeBufferPointer { analyzer.process(UnsafeBufferPointer(rebasing: $0[pushed..<pushed + n]), into: out) }
            #expect(result.consumed == n && result.produced == expected)
            pushed += n
        }
    }
}

@Suite("SpectralAnalyzer: capacities")
struct SpectralAnalyzerCapacityTests {
    @Test("process writes only inside the output; a short flush buffer stops the process")
    func capacities() async throws {
        let failures = try checkOutputBounds(
            { try SpectralAnalyzer() }, input: testSignal(count: 9_000, seed: 33), rooms: [0, 3, 4, 5],
            same: SpectralAnalyzerContractTests.same)
        #expect(failures.isEmpty, "\(failures)")
        await #expect(processExitsWith: .failure) {
            let analyzer = try SpectralAnalyzer()
            [Float](repeating: 0.1, count: 1500).withUnsafeBufferPointer { analyzer.process($0) { _ in } }
            _ = analyzer.flush(into: UnsafeMutableBufferPointer.allocate(capacity: 1))
        }
    }

    @Test("one copy of the window, pitch and band tables per configuration, shared by every analyzer")
    func sharedTables() throws {
        let a = try SpectralAnalyzer(), b = try SpectralAnalyzer()
        let other = try SpectralAnalyzer(configuration: .init(bandCount: 24))
        #expect(a.tables === b.tables)
        #expect(a.tables !== other.tables)
        #expect(a.memoryFootprint.sharedBytes >= a.tables.allocatedBytes && a.tables.allocatedBytes > 4 * 1024)
        // Shared tables, independent streams: each analyzer's frames are its own input's.
        let x = testSignal(count: 4_096, seed: 5), y = testSignal(count: 4_096, seed: 6)
        var fx: [Float] = [], fy: [Float] = []
        x.withUnsafeBufferPointer { p in a.process(p) { fx.append($0.features.centroidHz) } }
        y.withUnsafeBufferPointer { p in b.process(p) { fy.append($0.features.centroidHz) } }
        let solo = try SpectralAnalyzer()
        var fs: [Float] = []
        y.withUnsafeBufferPointer { p in solo.process(p) { fs.append($0.features.centroidHz) } }
        #expect(fy == fs && fx != fy && !fx.isEmpty)
    }
}
