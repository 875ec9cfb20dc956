import DSPCore

/// How a test pushes a stream.
public enum Chunking: CustomStringConvertible, CaseIterable, Sendable {
    case whole, blocks1024, random, single

    public var description: String {
        switch self {
        case .whole: "one buffer"
        case .blocks1024: "1024-sample pushes"
        case .random: "random 1...4096 pushes"
        case .single: "1-sample pushes"
        }
    }

    /// Chunk sizes that add up to `total`.
    public func sizes(total: Int, seed: UInt64 = 42) -> [Int] {
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

/// Pushes `input` through `processor` in the given chunks, with output buffers of
/// `maxOutputCount` (or `outputRoom`) elements, then flushes. Returns everything produced.
public func runStream<P: StreamingProcessor>(
    _ processor: P, _ input: [P.InputSample], chunking: Chunking, outputRoom: Int? = nil, seed: UInt64 = 42
) -> [P.OutputSample] {
    var output: [P.OutputSample] = []
    var offset = 0
    for size in chunking.sizes(total: input.count, seed: seed) {
        var chunkOffset = 0
        while chunkOffset < size {
            let slice = Array(input[(offset + chunkOffset)..<(offset + size)])
            let room = outputRoom ?? processor.maxOutputCount(forInputCount: slice.count)
            var counts = ProcessResult(consumed: 0, produced: 0)
            let produced = [P.OutputSample](unsafeUninitializedCapacity: room) { buffer, count in
                counts = slice.withUnsafeBufferPointer { processor.process($0, into: buffer) }
                count = counts.produced
            }
            precondition(counts.consumed > 0 || room == 0 || outputRoom != nil, "no progress")
            output += produced
            chunkOffset += counts.consumed
            if counts.consumed == 0 && counts.produced == 0 { break }
        }
        offset += size
    }
    output += [P.OutputSample](unsafeUninitializedCapacity: processor.maxFlushOutputCount) { buffer, count in
        count = processor.flush(into: buffer)
    }
    return output
}

/// The properties every streaming unit must have, checked on one input: the same output for
/// one buffer, 1024-sample pushes, random 1…4096 pushes (two seeds) and single samples; a
/// `maxOutputCount` that is exact or an upper bound (`exactCounts`); the same output again from
/// the same object after a flush (flush resets), and after `reset()` in mid-stream; and, when
/// given, the expected output length. Returns the failures, empty when all hold.
///
/// `same` compares two outputs (bit patterns for floats, so NaN compares equal to itself).
public func checkStreamingUnit<P: StreamingProcessor>(
    _ make: () throws -> P, input: [P.InputSample], expectedCount: Int? = nil, singleSamples: Bool = true,
    same: (P.OutputSample, P.OutputSample) -> Bool
) rethrows -> [String] {
    var failures: [String] = []
    func compare(_ got: [P.OutputSample], _ reference: [P.OutputSample], _ what: String) {
        if got.count != reference.count {
            failures.append("\(what): \(got.count) outputs, expected \(reference.count)")
        } else if let i = got.indices.first(where: { !same(got[$0], reference[$0]) }) {
            failures.append("\(what): output \(i) differs (\(got[i]) vs \(reference[i]))")
        }
    }
    let unit = try make()
    let reference = runStream(unit, input, chunking: .whole)
    if let expectedCount, reference.count != expectedCount {
        failures.append("one buffer: \(reference.count) outputs, expected \(expectedCount)")
    }
    compare(runStream(unit, input, chunking: .whole), reference, "the same object after a flush")
    compare(runStream(try make(), input, chunking: .blocks1024), reference, "1024-sample pushes")
    compare(runStream(try make(), input, chunking: .random, seed: 1), reference, "random pushes (seed 1)")
    compare(runStream(try make(), input, chunking: .random, seed: 2), reference, "random pushes (seed 2)")
    if singleSamples {
        compare(runStream(try make(), input, chunking: .single), reference, "1-sample pushes")
    }
    // Reset in mid-stream: half a stream, reset, then the whole stream.
    let resetting = try make()
    let half = Array(input[..<(input.count / 2)])
    if !half.isEmpty {
        _ = half.withUnsafeBufferPointer { source in
            [P.OutputSample](unsafeUninitializedCapacity: resetting.maxOutputCount(forInputCount: half.count)) { buffer, count in
                count = resetting.process(source, into: buffer).produced
            }
        }
    }
    resetting.reset()
    compare(runStream(resetting, input, chunking: .random, seed: 3), reference, "after reset() in mid-stream")
    return failures
}

/// Compares floats by bit pattern (NaN equals the same NaN, −0 differs from +0).
public func sameBits(_ a: Float, _ b: Float) -> Bool { a.bitPattern == b.bitPattern }

/// A test signal: a few sines plus deterministic noise.
public func testSignal(count: Int, seed: UInt64 = 7) -> [Float] {
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

/// Pushes `input` through a fresh unit with output buffers of exactly `room` elements (for
/// each room in `rooms`), each followed by a guard band that must come back untouched, then
/// flushes into a buffer of exactly ``StreamingProcessor/maxFlushOutputCount``. Returns the
/// failures: a write past the room, a push that made no progress while the room could hold
/// its output, or outputs that differ from a run with ample room (nothing may be lost).
public func checkOutputBounds<P: StreamingProcessor>(
    _ make: () throws -> P, input: [P.InputSample], rooms: [Int], same: (P.OutputSample, P.OutputSample) -> Bool
) rethrows -> [String] {
    var failures: [String] = []
    let reference = runStream(try make(), input, chunking: .random, seed: 9)
    let stride = MemoryLayout<P.OutputSample>.stride
    let guardBytes = 64 * stride
    for room in rooms {
        let unit = try make()
        var output: [P.OutputSample] = []
        let raw = UnsafeMutableRawPointer.allocate(
            byteCount: Swift.max(room, unit.maxFlushOutputCount) * stride + guardBytes,
            alignment: MemoryLayout<P.OutputSample>.alignment)
        defer { raw.deallocate() }
        func call(_ capacity: Int, _ body: (UnsafeMutableBufferPointer<P.OutputSample>) -> Int) -> Bool {
            raw.initializeMemory(as: UInt8.self, repeating: 0xA5, count: capacity * stride + guardBytes)
            let typed = raw.bindMemory(to: P.OutputSample.self, capacity: capacity)
            let n = body(UnsafeMutableBufferPointer(start: typed, count: capacity))
            let tail = UnsafeRawBufferPointer(start: raw + capacity * stride, count: guardBytes)
            output += UnsafeBufferPointer(start: typed, count: n)
            return tail.allSatisfy { $0 == 0xA5 }
        }
        var offset = 0
        var stalled = false
        while offset < input.count, !stalled {
            var consumed = 0
            let intact = call(room) { buffer in
                let r = input.withUnsafeBufferPointer { unit.process(UnsafeBufferPointer(rebasing: $0[offset...]), into: buffer) }
                consumed = r.consumed
                return r.produced
            }
            if !intact {
                failures.append("room \(room): process wrote past the buffer")
                return failures
            }
            if consumed == 0 {
                stalled = true
                if unit.maxOutputCount(forInputCount: 1) <= room {
                    failures.append("\(P.self) room \(room): no progress although one sample's output fits")
                }
            }
            offset += consumed
        }
        if stalled { continue }  // too small a room for this unit: covered by its precondition
        if !call(unit.maxFlushOutputCount, { unit.flush(into: $0) }) {
            failures.append("room \(room): flush wrote past maxFlushOutputCount")
        }
        if output.count != reference.count || zip(output, reference).contains(where: { !same($0, $1) }) {
            failures.append("room \(room): \(output.count) outputs differ from the \(reference.count) with ample room")
        }
    }
    return failures
}
