import DSPCore
import DSPPipeline
import Testing

/// What one stream costs: issue 22's budget of at most 128 kB owned per stream (shared tables
/// counted once, per-call scratch in the thread's workspace), with every stage on, for the two
/// layouts a service meets most.
@Suite("SpeechFrontEnd: memory per stream")
struct FrontEndMemoryTests {
    @Test("every stage on, 48 kHz mono and 44.1 kHz stereo: owned ≤ 128 kB per stream", arguments: [(48_000, 1), (44_100, 2)])
    func ownedBudget(rate: Int, channels: Int) throws {
        let memory = try SpeechFrontEnd.memoryFootprint(for: .init(inputRate: rate, channelCount: channels, stages: .all))
        #expect(memory.total.ownedBytes <= 128_000, "\(memory.stages.map { "\($0.name): \($0.footprint)" })")
        // Scratch is per thread, not per stream: the conditioner's downmixed block and the
        // detector's per-call buffers are workspace bytes.
        let conditioner = try #require(memory.stages.first { $0.name == "conditioner" })
        #expect(conditioner.footprint.workspaceBytes >= 1024 * MemoryLayout<Float>.stride)
        #expect(memory.total.workspaceBytes > memory.total.ownedBytes / 2)
    }

    /// Looped backgrounds (issue 19, on by default) add their hop levels and clear marks, two
    /// bytes per 16 ms hop for 6 s and 32 more, to each stream, and a 256-entry table shared by
    /// all; the budget holds with them.
    @Test("looped backgrounds read (the default): 814 bytes more than without, still ≤ 128 kB", arguments: [(48_000, 1), (44_100, 2)])
    func loopedBackgroundsBudget(rate: Int, channels: Int) throws {
        let off = try SpeechFrontEnd.memoryFootprint(
            for: .init(inputRate: rate, channelCount: channels, stages: .all, loopedBackgrounds: false))
        let on = try SpeechFrontEnd.memoryFootprint(for: .init(inputRate: rate, channelCount: channels, stages: .all))
        #expect(on.total.ownedBytes - off.total.ownedBytes == 814)
        #expect(on.total.ownedBytes <= 128_000)
        #expect(on.total.sharedBytes - off.total.sharedBytes == 2048)
        #expect(on.total.workspaceBytes == off.total.workspaceBytes)
    }
}
