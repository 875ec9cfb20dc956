import DSPCore
import RealModule

extension SpectralAnalyzer {
    /// The fixed tables of a configuration: the Hann window and its sums, the half-size route's
    /// twiddles, the pitch search's window autocorrelation and octave costs, and the mel bands'
    /// first bins. Built once per configuration (``cache``) and read, never written, by every
    /// analyzer with that configuration, on any number of threads.
    final class Tables: @unchecked Sendable {
        /// The tables of every configuration in use.
        static let cache = SharedTableCache<Configuration, Tables>()

        let window: UnsafeMutableBufferPointer<Float>
        let windowSum: Float
        let powerScale: Float
        /// `sin(πj/(N/2))` and `cos(πj/(N/2))` for `j < N/4` (empty when `N` is not a multiple
        /// of 4).
        let halfSine: UnsafeMutableBufferPointer<Float>
        let halfCosine: UnsafeMutableBufferPointer<Float>
        let lagRange: ClosedRange<Int>
        let windowAutocorrelation: UnsafeMutableBufferPointer<Float>
        let octaveCost: UnsafeMutableBufferPointer<Float>
        let bandBins: UnsafeMutableBufferPointer<Int>
        let bandEdgesHz: [Float]

        /// Builds the tables of a validated configuration.
        init(_ c: Configuration) {
            let n = c.windowLength
            let quarter = n % 4 == 0 ? n / 4 : 0
            halfSine = .allocate(capacity: quarter)
            halfCosine = .allocate(capacity: quarter)
            for j in 0..<quarter {
                halfSine[j] = Float(Double.sin(Double.pi * Double(j) / Double(n / 2)))
                halfCosine[j] = Float(Double.cos(Double.pi * Double(j) / Double(n / 2)))
            }
            window = .allocate(capacity: n)
            var sum = 0.0, sumSquares = 0.0
            for i in 0..<n {
                let w = Window.coefficient(.hann, index: i, length: n, symmetry: .periodic)
                window[i] = Float(w)
                sum += w
                sumSquares += w * w
            }
            windowSum = Float(sum)
            powerScale = Float(1 / (Double(n) * sumSquares))
            let pitch = SpectralAnalyzer.pitchTables(window: window, configuration: c)
            lagRange = pitch.lagRange
            windowAutocorrelation = pitch.windowAutocorrelation
            octaveCost = pitch.octaveCost
            let bands = SpectralAnalyzer.melBands(configuration: c, binHz: c.sampleRate / Double(n), binCount: n / 2 + 1)
            bandBins = bands.firstBins
            bandEdgesHz = bands.edgesHz
        }

        deinit {
            window.deallocate(); halfSine.deallocate(); halfCosine.deallocate()
            windowAutocorrelation.deallocate(); octaveCost.deallocate(); bandBins.deallocate()
        }

        /// Bytes of the tables.
        var allocatedBytes: Int {
            MemoryFootprint.bytes(window) + MemoryFootprint.bytes(halfSine) + MemoryFootprint.bytes(halfCosine)
                + MemoryFootprint.bytes(windowAutocorrelation) + MemoryFootprint.bytes(octaveCost)
                + MemoryFootprint.bytes(bandBins)
        }
    }
}
