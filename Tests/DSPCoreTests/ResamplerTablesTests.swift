@testable import DSPCore
import Testing
import TestSupport

// The resampler's coefficient tables are shared per design (ResamplerTables, through
// SharedTableCache), and so is the design they are built from (ResamplerPlan); only histories,
// carries and scratch are per stream. Sharing and the history block size must not change a
// single output bit.

@Suite("Resampler: shared tables, per-stream histories")
struct ResamplerTablesTests {
    /// Rate pairs covering every route: half-band (48, 96 → 16), polyphase first stage with the
    /// staggered kernel (44.1 → 16), staggered single stage (22.05 → 16), small ratios (8, 32
    /// → 16), upsampling (16 → 44.1).
    static let pairs = [(48_000, 16_000), (44_100, 16_000), (22_050, 16_000), (96_000, 16_000), (8_000, 16_000), (32_000, 16_000), (16_000, 44_100)]

    @Test("same design, one copy of the tables; the footprint counts them as shared", arguments: pairs)
    func sharesTables(_ pair: (Int, Int)) throws {
        let a = try Resampler(inputRate: pair.0, outputRate: pair.1, channelCount: 1)
        let b = try Resampler(inputRate: pair.0, outputRate: pair.1, channelCount: 2, trimsLeadingDelay: true)
        let other = try Resampler(inputRate: pair.0, outputRate: pair.1, quality: .high)
        #expect(a.tables === b.tables && a.tables !== other.tables)
        #expect(a.firstStage?.tables === b.firstStage?.tables)
        let shared = a.tables.allocatedBytes + (a.firstStage?.tables.allocatedBytes ?? 0)
        #expect(a.memoryFootprint.sharedBytes == shared && shared >= 4 * a.layout.coefficientCount)
        // Owned: the histories, carry and scratch only; the tables are not in it.
        let histories = 4 * (a.historyCapacity + 1 + 1 + 2 * (a.halfBandCapacity + 16))
        #expect(a.memoryFootprint.ownedBytes - (a.firstStage?.memoryFootprint.ownedBytes ?? 0) == histories)
    }

    @Test("a standalone 44.1 → 24 kHz resampler is not the 44.1 → 16 kHz first stage")
    func firstStageHasItsOwnKey() throws {
        let cascade = try Resampler(inputRate: 44_100, outputRate: 16_000)
        let direct = try Resampler(inputRate: 44_100, outputRate: 24_000)
        #expect(cascade.firstStage != nil && cascade.firstStage!.tables !== direct.tables)
    }

    @Test("history blocks of 64, 2048 and 4096 frames: identical bits, any chunking", arguments: pairs)
    func historyBlockDoesNotChangeOutput(_ pair: (Int, Int)) throws {
        let input = testSignal(count: 3 * pair.0 / 2, seed: 11)
        let configuration = Resampler.Configuration(inputRate: pair.0, outputRate: pair.1, trimsLeadingDelay: true)
        let reference = ResamplerTestSignals.run(try Resampler(configuration: configuration), input)
        for block in [64, 2048] {
            for chunks in [ResamplerTestSignals.chunks(total: input.count, size: 1024), ResamplerTestSignals.chunks(total: input.count, in: 1...4096, seed: 3)] {
                let unit = try Resampler(configuration: configuration, historyBlockFrames: block)
                let output = ResamplerTestSignals.run(unit, input, chunks: chunks)
                #expect(output.count == reference.count && zip(output, reference).allSatisfy { sameBits($0, $1) }, "block \(block)")
            }
        }
    }

    @Test("same rates and quality, one design: a shared plan gives the bits of a fresh design", arguments: pairs)
    func sharesPlan(_ pair: (Int, Int)) throws {
        let configuration = Resampler.Configuration(inputRate: pair.0, outputRate: pair.1, trimsLeadingDelay: true)
        let held = try Resampler(configuration: configuration)
        let shared = try Resampler(inputRate: pair.0, outputRate: pair.1, channelCount: 2)
        let other = try Resampler(inputRate: pair.0, outputRate: pair.1, quality: .high)
        #expect(held.plan != nil && held.plan === shared.plan && held.plan !== other.plan)
        #expect(held.firstStage?.plan == nil)
        // A resampler built from a design made now, bypassing the cache, gives the same bits.
        let designed = try Resampler.validatedLayout(configuration)
        let fresh = Resampler(configuration: configuration, layout: designed.layout, first: designed.first)
        let input = testSignal(count: pair.0 / 2, seed: 5)
        let expected = ResamplerTestSignals.run(fresh, input)
        let output = ResamplerTestSignals.run(try Resampler(configuration: configuration), input)
        #expect(output.count == expected.count && zip(output, expected).allSatisfy { sameBits($0, $1) })
    }

    @Test("a plan is freed with the last resampler holding it")
    func planFreedWithLastHolder() throws {
        // Rates no other test uses: tests run in parallel, and another test's resampler of the
        // same rates and quality would hold the same plan.
        var a: Resampler? = try Resampler(inputRate: 13_000, outputRate: 44_100, quality: .lowLatency)
        var b: Resampler? = try Resampler(inputRate: 13_000, outputRate: 44_100, channelCount: 3, quality: .lowLatency)
        weak let plan = a?.plan
        a = nil
        #expect(plan != nil)
        b = nil
        #expect(plan == nil && a == nil && b == nil)
    }

    @Test("tables are freed with the last resampler holding them")
    func freedWithLastHolder() throws {
        var a: Resampler? = try Resampler(inputRate: 12_000, outputRate: 44_100, quality: .lowLatency)
        var b: Resampler? = try Resampler(inputRate: 12_000, outputRate: 44_100, quality: .lowLatency)
        weak let tables = a?.tables
        a = nil
        #expect(tables != nil)
        b = nil
        #expect(tables == nil && a == nil && b == nil)
    }
}
