import DSPCore
@testable import DSPSpectral
import Testing
import TestSupport

/// SpectralAnalyzer's per-call buffers come from the calling thread's workspace: many streams on
/// one thread share it, a callback that runs another stream's analyzer does not disturb the frame
/// it was lent, and results are the same with either FFT.
@Suite("SpectralAnalyzer: per-call buffers in the thread's workspace")
struct SpectralAnalyzerWorkspaceTests {
    /// A frame's features, power spectrum, band powers and windowed samples, as bit patterns.
    static func record(_ frame: SpectralFrame) -> [UInt32] {
        let f = frame.features
        return [f.hopPower, f.framePower, f.centroidHz, f.rolloffHz, f.flatness, f.entropy, f.fluxDB,
                f.zeroCrossingRate, f.harmonicity, f.pitchHz].map(\.bitPattern)
            + frame.powerSpectrum.map(\.bitPattern) + frame.bandPowers.map(\.bitPattern)
            + frame.windowedSamples.map(\.bitPattern)
    }

    /// Every frame of `signal` through a fresh analyzer in `push`-sample pushes, then the flush.
    static func frames(_ signal: [Float], push: Int) throws -> [[UInt32]] {
        let analyzer = try SpectralAnalyzer()
        var out: [[UInt32]] = []
        signal.withUnsafeBufferPointer { p in
            var i = 0
            while i < p.count {
                let n = Swift.min(push, p.count - i)
                analyzer.process(UnsafeBufferPointer(rebasing: p[i..<(i + n)])) { out.append(record($0)) }
                i += n
            }
        }
        analyzer.flush { out.append(record($0)) }
        return out
    }

    @Test("a callback that runs another stream's analyzer on the same thread leaves the lent frame intact",
          arguments: FFTImplementation.available)
    func reentrantCallback(_ implementation: FFTImplementation) throws {
        try FFTImplementation.$taskOverride.withValue(implementation) {
            var x = testSignal(count: 12_000, seed: 41)
            x[7000] = .nan  // a non-finite window: the one-frame path inside a batch
            let y = testSignal(count: 12_000, seed: 42)
            let expectedX = try Self.frames(x, push: 1024), expectedY = try Self.frames(y, push: 333)
            let outer = try SpectralAnalyzer(), inner = try SpectralAnalyzer()
            var gotX: [[UInt32]] = [], gotY: [[UInt32]] = []
            var innerOffset = 0
            y.withUnsafeBufferPointer { py in
                // Feeds the inner stream a piece from inside each of the outer's callbacks, then
                // records the outer frame: it must be what it was before the inner call.
                func feedInner() {
                    let n = Swift.min(333, py.count - innerOffset)
                    guard n > 0 else { return }
                    inner.process(UnsafeBufferPointer(rebasing: py[innerOffset..<(innerOffset + n)])) { gotY.append(Self.record($0)) }
                    innerOffset += n
                }
                x.withUnsafeBufferPointer { px in
                    var i = 0
                    while i < px.count {
                        let n = Swift.min(1024, px.count - i)
                        outer.process(UnsafeBufferPointer(rebasing: px[i..<(i + n)])) { frame in
                            let before = Self.record(frame)
                            feedInner()
                            #expect(Self.record(frame) == before)
                            gotX.append(before)
                        }
                        i += n
                    }
                }
                outer.flush { frame in
                    let before = Self.record(frame)
                    feedInner()
                    gotX.append(Self.record(frame))
                    #expect(gotX.last! == before)
                }
                while innerOffset < py.count { feedInner() }
                inner.flush { gotY.append(Self.record($0)) }
            }
            #expect(gotX == expectedX)
            #expect(gotY == expectedY)
        }
    }

    @Test("200 streams interleaved on one thread give each stream's own frames; the thread's workspace does not grow after the first push")
    func manyStreams() throws {
        let signals = (0..<200).map { testSignal(count: 3_000, seed: UInt64(100 + $0)) }
        let expected = try signals.prefix(5).map { try Self.frames($0, push: 500) }
        let analyzers = try (0..<200).map { _ in try SpectralAnalyzer() }
        var got = [[[UInt32]]](repeating: [], count: 200)
        let workspace = ScratchWorkspace()
        var bytesAfterFirst = -1
        var grew = false
        for start in stride(from: 0, to: 3_000, by: 500) {
            for s in 0..<200 {
                signals[s].withUnsafeBufferPointer { p in
                    analyzers[s].process(UnsafeBufferPointer(rebasing: p[start..<(start + 500)])) { got[s].append(Self.record($0)) }
                }
                if bytesAfterFirst < 0 { bytesAfterFirst = workspace.currentThreadBytes } else if workspace.currentThreadBytes != bytesAfterFirst { grew = true }
            }
        }
        for s in 0..<200 { analyzers[s].flush { got[s].append(Self.record($0)) } }
        #expect(Array(got.prefix(5)) == expected)
        #expect(!grew)
        #expect(bytesAfterFirst >= analyzers[0].memoryFootprint.workspaceBytes)
    }

    @Test("memory: the ring and the flux history owned; the plans and tables shared; the per-call buffers in the workspace")
    func memory() throws {
        let a = try SpectralAnalyzer(), b = try SpectralAnalyzer()
        let m = a.memoryFootprint
        // Ring (1024 + 15·256 floats) and 32 band levels: about 19.6 kB.
        #expect(m.ownedBytes < 20 * 1024, "\(m)")
        // Four slots of FFT buffers, spectra, powers, magnitudes, autocorrelations: 60–100 kB.
        #expect(m.workspaceBytes > 60_000 && m.workspaceBytes < 100_000, "\(m)")
        #expect(a.fft === b.fft && a.autocorrelationFFT === b.autocorrelationFFT)
        #expect(m.sharedBytes == b.memoryFootprint.sharedBytes)
    }
}
