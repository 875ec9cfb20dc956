// SpectralAnalyzer's mel band layout (edges and first bins, fixed at construction) and the
// band levels in dB that the flux compares frame to frame.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension SpectralAnalyzer {
    /// The mel-spaced band layout: `bandCount + 1` edges in Hz, evenly spaced on the mel scale
    /// `m = 2595·log10(1 + f/700)` from `bandRangeHz.lowerBound` to `bandRangeHz.upperBound`
    /// (clipped to 0.98 × Nyquist), and each band's first bin (`bandCount + 1` values, the last
    /// one past the end), every band holding at least one bin. `firstBins` is allocated here;
    /// the analyzer's ``Tables`` own it.
    static func melBands(
        configuration c: Configuration, binHz: Double, binCount bins: Int
    ) -> (edgesHz: [Float], firstBins: UnsafeMutableBufferPointer<Int>) {
        let nyquist = c.sampleRate / 2
        let bandTop = min(c.bandRangeHz.upperBound, nyquist * 0.98)
        func mel(_ f: Double) -> Double { 2595 * log10(1 + f / 700) }
        func hertz(_ m: Double) -> Double { 700 * (pow(10, m / 2595) - 1) }
        let melLow = mel(c.bandRangeHz.lowerBound), melHigh = mel(bandTop)
        var edges: [Float] = []
        let bandBins = UnsafeMutableBufferPointer<Int>.allocate(capacity: c.bandCount + 1)
        var previousBin = -1
        for b in 0...c.bandCount {
            let f = hertz(melLow + (melHigh - melLow) * Double(b) / Double(c.bandCount))
            edges.append(Float(f))
            // Each band holds at least one bin.
            let bin = max(previousBin + 1, Int((f / binHz).rounded()))
            bandBins[b] = min(bin, bins)
            previousBin = bin
        }
        return (edges, bandBins)
    }

    /// `out[i] = FastLog.decibels(x[i] + offset)` for `i < count`: eight values per step with
    /// ``FastLog``'s SIMD8 `decibels` (bit-identical to the scalar function), the tail one at a
    /// time.
    @inline(__always)
    static func decibels(_ x: UnsafePointer<Float>, plus offset: Float, count: Int, into out: UnsafeMutablePointer<Float>) {
        var i = 0
        while i + 8 <= count {
            let v = UnsafeRawPointer(x + i).loadUnaligned(as: SIMD8<Float>.self) + offset
            UnsafeMutableRawPointer(out + i).storeBytes(of: FastLog.decibels(v), as: SIMD8<Float>.self)
            i += 8
        }
        while i < count {
            out[i] = FastLog.decibels(x[i] + offset)
            i += 1
        }
    }
}
