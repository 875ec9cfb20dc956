import DSPCore
import TestSupport

/// How a test pushes a stream.
enum Chunking: CustomStringConvertible, CaseIterable {
    case whole, blocks1024, random, single

    var description: String {
        switch self {
        case .whole: "one buffer"
        case .blocks1024: "1024-sample pushes"
        case .random: "random 1...4096 pushes"
        case .single: "1-sample pushes"
        }
    }

    /// Chunk sizes that add up to `total`.
    func sizes(total: Int, seed: UInt64 = 42) -> [Int] {
        var sizes: [Int] = []
        var rng = SplitMix64(seed: seed)
        var left = total
        while left > 0 {
            let n: Int
            switch self {
            case .whole: n = left
            case .blocks1024: n = Swift.min(1024, left)
            case .random: n = Swift.min(Int.random(in: 1...4096, using: &rng), left)
            case .single: n = 1
            }
            sizes.append(n)
            left -= n
        }
        return sizes
    }
}

/// Pushes `input` through `processor` in the given chunks, with output buffers sized by
/// `maxOutputCount`, then flushes. Returns everything produced.
func runStream<P: StreamingProcessor>(
    _ processor: P, _ input: [P.InputSample], chunking: Chunking, outputRoom: Int? = nil
) -> [P.OutputSample] where P.OutputSample: Numeric {
    var output: [P.OutputSample] = []
    var offset = 0
    for size in chunking.sizes(total: input.count) {
        var chunkOffset = 0
        while chunkOffset < size {
            let slice = Array(input[(offset + chunkOffset)..<(offset + size)])
            let room = outputRoom ?? processor.maxOutputCount(forInputCount: slice.count)
            var buffer = [P.OutputSample](repeating: 0, count: room)
            let counts = slice.withUnsafeBufferPointer { source in
                buffer.withUnsafeMutableBufferPointer { processor.process(source, into: $0) }
            }
            precondition(counts.consumed > 0 || room == 0 || outputRoom != nil, "no progress")
            output += buffer[..<counts.produced]
            chunkOffset += counts.consumed
            if counts.consumed == 0 && counts.produced == 0 { break }
        }
        offset += size
    }
    var tail = [P.OutputSample](repeating: 0, count: processor.maxFlushOutputCount)
    let n = tail.withUnsafeMutableBufferPointer { processor.flush(into: $0) }
    output += tail[..<n]
    return output
}

/// A test signal: a few sines plus deterministic noise.
func testSignal(count: Int, seed: UInt64 = 7) -> [Float] {
    var rng = SplitMix64(seed: seed)
    return (0..<count).map { i in
        let t = Float(i)
        return 0.4 * sinf(0.0123 * t) + 0.2 * sinf(0.3 * t) + Float.random(in: -0.1...0.1, using: &rng)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
