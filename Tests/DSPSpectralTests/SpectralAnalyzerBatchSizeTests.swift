import DSPCore
@testable import DSPSpectral
import Testing
import TestSupport

/// `SpectralAnalyzer.Configuration.framesPerBatch` (1…4): the batch size changes when frames are
/// emitted, never a frame; the size queries stay exact for every batch size.
@Suite("SpectralAnalyzer: batch sizes 1…4")
struct SpectralAnalyzerBatchSizeTests {
    static func analyzer(_ batch: Int, _ base: SpectralAnalyzer.Configuration = .init()) throws -> SpectralAnalyzer {
        var c = base
        c.framesPerBatch = batch
        return try SpectralAnalyzer(configuration: c)
    }

    /// Every frame of `signal` (features, spectra, band powers, windowed samples, by bit pattern)
    /// pushed in pieces of the sizes `sizes` gives, then flushed; with the samples pushed when
    /// each frame was emitted.
    static func frames(_ analyzer: SpectralAnalyzer, _ signal: [Float], sizes: [Int]) -> (frames: [[UInt64]], emittedAt: [Int]) {
        var out: [[UInt64]] = [], at: [Int] = []
        var offset = 0
        signal.withUnsafeBufferPointer { all in
            for size in sizes {
                analyzer.process(UnsafeBufferPointer(rebasing: all[offset..<(offset + size)])) {
                    out.append(SpectralAnalyzerBatchTests.record($0))
                    at.append(offset + size)
                }
                offset += size
            }
        }
        analyzer.flush { out.append(SpectralAnalyzerBatchTests.record($0)); at.append(signal.count) }
        return (out, at)
    }

    @Test("frames are bit-identical for batches of 1, 2, 3 and 4, in random pushes and single samples",
          arguments: 0..<SpectralAnalyzerBatchTests.configurations.count)
    func sameFrames(_ configuration: Int) throws {
        let config = SpectralAnalyzerBatchTests.configurations[configuration]
        // Real speech, then a stream with NaN, ±Inf, near-overflow values, subnormals and silence.
        let signal = Array(try SpectralAnalyzerBatchTests.mono16k("speech_en-us_16k.wav").prefix(30_000))
            + TestSignals.hostileStream() + [0.25, -0.5, 0.125]
        let reference = Self.frames(try Self.analyzer(4, config), signal, sizes: Chunking.whole.sizes(total: signal.count)).frames
        #expect(reference.count == (signal.count + config.hopLength - 1) / config.hopLength)
        for batch in 1...4 {
            let analyzer = try Self.analyzer(batch, config)
            for (name, sizes) in [
                ("one buffer", Chunking.whole.sizes(total: signal.count)),
                ("random 1…4096 (seed 1)", Chunking.random.sizes(total: signal.count, seed: 1)),
                ("random 1…700 (seed 2)", Self.sizes(total: signal.count, upTo: 700, seed: 2)),
                ("1024", Chunking.blocks1024.sizes(total: signal.count)),
                ("341 and 342 (48 kHz pushes at 16 kHz)", Self.alternating(total: signal.count)),
            ] {
                let got = Self.frames(analyzer, signal, sizes: sizes).frames
                #expect(got.count == reference.count, "batch \(batch), \(name)")
                let differing = zip(got, reference).enumerated().first { $0.element.0 != $0.element.1 }
                #expect(differing == nil, "batch \(batch), \(name): frame \(differing?.offset ?? -1) differs")
            }
            let short = Array(signal.prefix(6000))
            let singles = Self.frames(try Self.analyzer(batch, config), short, sizes: Chunking.single.sizes(total: short.count)).frames
            let shortReference = Self.frames(try Self.analyzer(4, config), short, sizes: [short.count]).frames
            #expect(singles == shortReference, "batch \(batch), single samples")
        }
    }

    @Test("the streaming contract and the output bounds hold for every batch size", arguments: 1...4)
    func contract(batch: Int) throws {
        var signal = testSignal(count: 16_000 + 77, seed: 31)
        signal[5000] = .nan
        let failures = try checkStreamingUnit(
            { try Self.analyzer(batch) }, input: signal, expectedCount: (signal.count + 255) / 256,
            same: SpectralAnalyzerContractTests.same)
        #expect(failures.isEmpty, "\(failures)")
        let bounds = try checkOutputBounds(
            { try Self.analyzer(batch) }, input: testSignal(count: 9_000, seed: 33), rooms: [0, batch - 1, batch, batch + 1, 5],
            same: SpectralAnalyzerContractTests.same)
        #expect(bounds.isEmpty, "\(bounds)")
    }

    @Test("maxOutputCount is exact (whole batches), outputCapacity bounds it in every state and is reached where it can be",
          arguments: 1...4)
    func counts(batch: Int) throws {
        let analyzer = try Self.analyzer(batch)
        let hop = analyzer.hopLength
        #expect(analyzer.outputCapacity(forInputCount: 0) == batch)
        // Random pushes: the count asked beforehand is what the push writes.
        var rng = SplitMix64(seed: UInt64(batch))
        let signal = testSignal(count: 12_000, seed: 32)
        var pushed = 0
        while pushed < signal.count {
            let n = Swift.min(signal.count - pushed, Int.random(in: 1...700, using: &rng))
            let expected = analyzer.maxOutputCount(forInputCount: n)
            #expect(expected % batch == 0 && expected <= analyzer.outputCapacity(forInputCount: n))
            let out = UnsafeMutableBufferPointer<SpectralFeatures>.allocate(capacity: Swift.max(1, expected))
            defer { out.deallocate() }
            let result = signal.withUnsafeBufferPointer { analyzer.process(UnsafeBufferPointer(rebasing: $0[pushed..<pushed + n]), into: out) }
            #expect(result.consumed == n && result.produced == expected)
            pushed += n
        }
        // Every state of a batch cycle (the count depends on the stream position modulo
        // batch × hop): the largest count over the states is the tight bound
        // B·⌊(⌊n/hop⌋ + [n mod hop > 0] + B − 1)/B⌋, never above outputCapacity = ⌊n/hop⌋ + B,
        // which it equals whenever that is a multiple of B and the push is not whole hops.
        let probe = try Self.analyzer(batch)
        let sizes = [1, 255, 256, 257, 341, 342, 700, 767, 768, 1024, 1365, 4096]
        var largest = [Int](repeating: 0, count: sizes.count)
        [Float](repeating: 0.01, count: batch * hop).withUnsafeBufferPointer { ones in
            for phase in 0..<(batch * hop) {
                for (i, n) in sizes.enumerated() {
                    let count = probe.maxOutputCount(forInputCount: n)
                    #expect(count <= probe.outputCapacity(forInputCount: n), "phase \(phase), \(n) samples")
                    largest[i] = Swift.max(largest[i], count)
                }
                probe.process(UnsafeBufferPointer(rebasing: ones[phase..<(phase + 1)])) { _ in }
            }
        }
        for (i, n) in sizes.enumerated() {
            let hops = n / hop + (n % hop > 0 ? 1 : 0)
            #expect(largest[i] == batch * ((hops + batch - 1) / batch), "\(n) samples")
            if n % hop > 0, (n / hop + batch) % batch == 0 {
                #expect(largest[i] == probe.outputCapacity(forInputCount: n), "\(n) samples")
            }
        }
    }

    @Test("outputDelay and maxFlushOutputCount are exact: reached, never exceeded", arguments: 1...4)
    func delayAndFlush(batch: Int) throws {
        let analyzer = try Self.analyzer(batch)
        let hop = analyzer.hopLength
        #expect(analyzer.outputDelay == batch * hop && analyzer.maxFlushOutputCount == batch)
        // Single samples: a frame is emitted at most outputDelay samples after its hop starts, and
        // the first frame of each batch exactly then.
        let signal = testSignal(count: 5_000, seed: 12)
        let run = Self.frames(analyzer, signal, sizes: Chunking.single.sizes(total: signal.count))
        // The frames emitted before the flush: whole batches of complete hops.
        let batched = signal.count / hop / batch * batch
        let waits = (0..<batched).map { k in run.emittedAt[k] - k * hop }
        #expect(waits.max() == analyzer.outputDelay)
        #expect(waits.enumerated().allSatisfy { $0.element == (batch - $0.offset % batch) * hop }, "\(waits.prefix(8))")
        // The flush emits at most maxFlushOutputCount frames, and exactly that many after the
        // stream stops one sample short of completing a batch.
        for length in [0, 1, hop, batch * hop - 1, batch * hop, 3 * batch * hop - 1, 3 * batch * hop + 5] {
            let fresh = try Self.analyzer(batch)
            var flushed = 0
            testSignal(count: length, seed: 3).withUnsafeBufferPointer { x in fresh.process(x) { _ in } }
            fresh.flush { _ in flushed += 1 }
            #expect(flushed <= batch, "\(length) samples")
            if length % (batch * hop) == batch * hop - 1 { #expect(flushed == batch, "\(length) samples") }
        }
    }

    @Test("the batch size is validated (1…4) and analyzers that differ only in it share their tables")
    func configuration() throws {
        for bad in [0, 5, -1] {
            #expect(throws: ConfigurationError.self) { try Self.analyzer(bad) }
        }
        #expect(throws: ConfigurationError(parameter: "framesPerBatch", value: "5", expected: "1...4")) { try Self.analyzer(5) }
        let four = try Self.analyzer(4), one = try Self.analyzer(1), default_ = try SpectralAnalyzer()
        #expect(four.tables === one.tables && default_.tables === one.tables)
        #expect(default_.framesPerBatch == 4 && SpectralAnalyzer.Configuration().framesPerBatch == 4)
        #expect(one.memoryFootprint == four.memoryFootprint)
    }

    /// Sizes in 1…`upTo`, deterministic, adding up to `total`.
    static func sizes(total: Int, upTo: Int, seed: UInt64) -> [Int] {
        var rng = SplitMix64(seed: seed)
        var left = total, out: [Int] = []
        while left > 0 {
            let n = Swift.min(left, Int.random(in: 1...upTo, using: &rng))
            out.append(n)
            left -= n
        }
        return out
    }

    /// 341, 341, 342, … (1024-frame pushes at 48 kHz, at 16 kHz), adding up to `total`.
    static func alternating(total: Int) -> [Int] {
        var left = total, k = 0, out: [Int] = []
        while left > 0 {
            let n = Swift.min(left, k % 3 == 2 ? 342 : 341)
            out.append(n)
            left -= n
            k += 1
        }
        return out
    }
}
