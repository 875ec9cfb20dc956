@testable import DSPCore
import Testing

@Suite("FixedDivisor")
struct FixedDivisorTests {
    @Test("quotient and remainder equal / and % for non-negative dividends, shifted for powers of two, divided otherwise")
    func matchesDivision() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var checked = 0
        for d in Array(1...300) + [441, 1024, 1 << 20, (1 << 31) - 1] {
            let divisor = FixedDivisor(d)
            #expect((divisor.shift >= 0) == (d & (d - 1) == 0))
            var xs = [0, 1, d - 1, d, d + 1, 3 * d - 1, 3 * d, Int.max / 2, Int.max]
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
