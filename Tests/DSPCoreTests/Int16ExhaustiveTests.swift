import Dispatch
import DSPCore
import Foundation
import Testing

/// The plain scalar reference for the exhaustive check: the policy written out in Double,
/// independent of the Float32 bias trick the kernel uses.
private func reference(_ x: Float) -> Int16 {
    if x.isNaN { return 0 }
    let y = Double(x) * 32768
    if y >= 32767 { return 32767 }
    if y <= -32768 { return -32768 }
    return Int16(y.rounded(.toNearestOrEven))
}

/// All 2³² Float32 bit patterns through the vector kernel and the scalar `int16(_:)`, against
/// the Double reference. Takes about a minute in a release build, so it runs only when asked:
/// `scripts/check-int16-exhaustive.sh` (which sets SPEECHDSP_EXHAUSTIVE=1).
@Test(
    "all 2³² Float32 bit patterns convert like the scalar reference",
    .enabled(if: ProcessInfo.processInfo.environment["SPEECHDSP_EXHAUSTIVE"] == "1"))
func int16ConversionExhaustive() {
    let blockBits = 20
    let blocks = 1 << (32 - blockBits)
    // Each iteration writes only its own slot.
    nonisolated(unsafe) let mismatches = UnsafeMutableBufferPointer<Int>.allocate(capacity: blocks)
    mismatches.initialize(repeating: 0)
    defer { mismatches.deallocate() }
    DispatchQueue.concurrentPerform(iterations: blocks) { block in
        let n = 1 << blockBits
        var input = [Float](repeating: 0, count: n)
        var output = [Int16](repeating: 0, count: n)
        for i in 0..<n { input[i] = Float(bitPattern: UInt32(block << blockBits | i)) }
        _ = input.withUnsafeBufferPointer { s in output.withUnsafeMutableBufferPointer { Int16Conversion.convert(s, into: $0) } }
        var bad = 0
        for i in 0..<n {
            let expected = reference(input[i])
            if output[i] != expected || Int16Conversion.int16(input[i]) != expected { bad += 1 }
        }
        mismatches[block] = bad
    }
    #expect(mismatches.reduce(0, +) == 0)
}
