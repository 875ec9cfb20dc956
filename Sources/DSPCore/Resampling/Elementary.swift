// The few elementary functions the filter designer needs (swift-numerics, no Foundation).

import RealModule

/// Double-precision elementary functions, used only at construction.
enum Elementary {
    /// sin(x), x in radians.
    static func sine(_ x: Double) -> Double { Double.sin(x) }
    /// x^y for x > 0.
    static func power(_ x: Double, _ y: Double) -> Double { Double.pow(x, y) }
}

extension Elementary {
    /// cos(x), x in radians.
    static func cosine(_ x: Double) -> Double { Double.cos(x) }
    /// log₁₀(x).
    static func log10(_ x: Double) -> Double { Double.log10(x) }
}
