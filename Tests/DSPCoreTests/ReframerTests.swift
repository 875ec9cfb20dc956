import Testing
import TestSupport
import DSPCore

/// Collects frames (with metadata) through the closure API.
private func frames(_ reframer: Reframer, _ input: [Float], chunking: Chunking) -> [([Float], FrameInfo)] {
    var result: [([Float], FrameInfo)] = []
    var offset = 0
    for size in chunking.sizes(total: input.count) {
        input[offset..<offset + size].withUnsafeBufferPointer { chunk in
            reframer.process(chunk) { frame, info in result.append((Array(frame), info)) }
        }
        offset += size
    }
    reframer.flush { frame, info in result.append((Array(frame), info)) }
    return result
}

@Suite("Reframer")
struct ReframerTests {
    static let geometries: [(frame: Int, hop: Int)] = [(1024, 1024), (1024, 256), (1024, 1000), (400, 160), (1, 1), (7, 3)]

    @Test("frames are identical whatever the chunking", arguments: geometries.indices, Chunking.allCases)
    func chunkingInvariance(geometry: Int, chunking: Chunking) throws {
        let (frame, hop) = Self.geometries[geometry]
        let input = testSignal(count: chunking == .single ? 3001 : 10_007)
        let reference = frames(try Reframer(configuration: .init(frameLength: frame, hopLength: hop)), input, chunking: .whole)
        let result = frames(try Reframer(configuration: .init(frameLength: frame, hopLength: hop)), input, chunking: chunking)
        #expect(result.count == reference.count)
        #expect(result.map(\.0) == reference.map(\.0))
        #expect(result.map(\.1) == reference.map(\.1))
    }

    @Test("frames hold the right samples and every sample is covered", arguments: geometries.indices, [0, 1, 2, 1023, 1024, 1025, 5000])
    func contentAndCoverage(geometry: Int, total: Int) throws {
        let (frame, hop) = Self.geometries[geometry]
        let input = (0..<total).map { Float($0 + 1) }  // nonzero, so padding is visible
        let result = frames(try Reframer(configuration: .init(frameLength: frame, hopLength: hop)), input, chunking: .random)
        var covered = [Bool](repeating: false, count: total)
        for (index, (samples, info)) in result.enumerated() {
            #expect(info.index == Int64(index))
            #expect(info.startSample == Int64(index * hop))
            #expect(info.validCount == min(frame, total - index * hop))
            for j in 0..<frame {
                let position = index * hop + j
                #expect(samples[j] == (j < info.validCount ? input[position] : 0))
                if j < info.validCount { covered[position] = true }
            }
        }
        #expect(covered.allSatisfy { $0 })
        // Only the final frames may be partial, and the last frame must contain new samples.
        if let last = result.last {
            #expect(last.1.validCount > 0)
            if result.count >= 2 {
                let previousEnd = Int(result[result.count - 2].1.startSample) + frame
                #expect(previousEnd < total)
            }
        } else {
            #expect(total == 0)
        }
    }

    @Test("process(into:) with small output buffers gives the same frames", arguments: [1, 2, 5])
    func bufferAPI(roomFrames: Int) throws {
        let input = testSignal(count: 9000)
        let reframer = try Reframer(configuration: .init(frameLength: 512, hopLength: 128))
        let viaClosure = frames(try Reframer(configuration: .init(frameLength: 512, hopLength: 128)), input, chunking: .whole)
        let viaBuffer = runStream(reframer, input, chunking: .random, outputRoom: roomFrames * 512)
        #expect(viaBuffer == viaClosure.flatMap(\.0))
        #expect(reframer.maxFlushOutputCount == 4 * 512)
    }

    @Test("process → reset → process gives identical output")
    func resetEquivalence() throws {
        let reframer = try Reframer(configuration: .init(frameLength: 1024, hopLength: 512))
        let input = testSignal(count: 7777)
        _ = frames(reframer, Array(input.prefix(3000)), chunking: .random)  // a first stream, then reset
        reframer.reset()
        let a = frames(reframer, input, chunking: .random)
        let b = frames(try Reframer(configuration: .init(frameLength: 1024, hopLength: 512)), input, chunking: .whole)
        #expect(a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1))
        // Partial push then reset: nothing of the first stream leaks.
        input.prefix(700).withUnsafeBufferPointer { reframer.process($0) { _, _ in } }
        reframer.reset()
        #expect(frames(reframer, input, chunking: .blocks1024).map(\.0) == b.map(\.0))
    }

    @Test("empty pushes do nothing")
    func emptyPushes() throws {
        let reframer = try Reframer()
        var called = false
        [Float]().withUnsafeBufferPointer { reframer.process($0) { _, _ in called = true } }
        reframer.flush { _, _ in called = true }
        #expect(!called)
        #expect(reframer.maxOutputCount(forInputCount: 0) == 0)
        #expect(reframer.maxOutputCount(forInputCount: 1024) == 1024)
    }

    @Test("bad geometry is refused with the value quoted")
    func configurationErrors() {
        #expect(throws: ConfigurationError(parameter: "frameLength", value: "0", expected: "1...1048576")) {
            try Reframer(configuration: .init(frameLength: 0))
        }
        #expect(throws: ConfigurationError(parameter: "hopLength", value: "2000", expected: "1...1024")) {
            try Reframer(configuration: .init(frameLength: 1024, hopLength: 2000))
        }
        #expect(throws: ConfigurationError.self) { try Reframer(configuration: .init(frameLength: 1024, hopLength: 0)) }
    }
}

@Suite("Downmixer")
struct DownmixerTests {
    @Test("stereo average and channel pick", arguments: Chunking.allCases)
    func stereo(chunking: Chunking) throws {
        let left = testSignal(count: 4001, seed: 1)
        let right = testSignal(count: 4001, seed: 2)
        let interleaved = zip(left, right).flatMap { [$0, $1] }
        let average = runStream(try Downmixer(channelCount: 2), interleaved, chunking: chunking)
        #expect(average == zip(left, right).map { ($0 + $1) * 0.5 })
        let pickRight = runStream(try Downmixer(channelCount: 2, mode: .channel(1)), interleaved, chunking: chunking)
        #expect(pickRight == right)
    }

    @Test("five channels: mean of all, with odd chunks", arguments: [Chunking.random, .single, .whole])
    func multichannel(chunking: Chunking) throws {
        let channels = 5
        let input = testSignal(count: 5 * 999)
        let out = runStream(try Downmixer(channelCount: channels), input, chunking: chunking)
        #expect(out.count == 999)
        for i in 0..<999 {
            var sum: Float = 0
            for c in 0..<channels { sum += input[i * channels + c] }
            #expect(out[i] == sum * (1 / Float(channels)))
        }
    }

    @Test("a stream ending inside a frame is padded, counted, not dropped")
    func partialFrameAtEnd() throws {
        let downmixer = try Downmixer(channelCount: 2)
        let out = runStream(downmixer, [0.5, 0.25, 0.75], chunking: .whole)
        #expect(out == [0.375, 0.375])
        #expect(downmixer.paddedSampleCount == 1)
        downmixer.reset()
        #expect(downmixer.paddedSampleCount == 0)
    }

    @Test("mono passes through; errors quote values")
    func monoAndErrors() throws {
        let input = testSignal(count: 100)
        #expect(runStream(try Downmixer(channelCount: 1), input, chunking: .random) == input)
        #expect(throws: ConfigurationError(parameter: "channelCount", value: "0", expected: "1...64")) { try Downmixer(channelCount: 0) }
        #expect(throws: ConfigurationError(parameter: "mode.channel", value: "2", expected: "0...1")) {
            try Downmixer(channelCount: 2, mode: .channel(2))
        }
    }
}
