@testable import DSPCore
import Testing

@Suite("FixedDivisor")
struct FixedDivisorTests {
    @Test("quotient and remainder equal / and % for non-negative dividends: shifted for powers of two, by the reciprocal below 2³², divided above")
    func matchesDivision() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var checked = 0
        for d in Array(1...300) + [441, 1023, 1024, 1025, 1 << 20, (1 << 31) - 1, (1 << 32) - 1, (1 << 32) + 1] {
            let divisor = FixedDivisor(d)
            #expect((divisor.shift >= 0) == (d & (d - 1) == 0))
            #expect((divisor.reciprocal != 0) == (divisor.shift < 0 && d < 1 << 32))
            // Both sides of the reciprocal's 2³² limit, and the largest multiples below it.
            let top = (1 << 32) - 1
            var xs = [0, 1, d - 1, d, d + 1, 3 * d - 1, 3 * d, top, top - 1, top + 1, top / d * d, top / d * d - 1,
                      Int.max / 2, Int.max]
            for _ in 0..<100 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                xs.append(Int(state >> UInt64(1 + Int(state % 40))))
            }
            for x in xs {
                #expect(divisor.quotient(x) == x / d && divisor.remainder(x) == x % d, "d \(d) x \(x)")
                checked += 1
            }
        }
        #expect(checked > 30_000)
    }
}
