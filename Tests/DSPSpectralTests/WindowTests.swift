import DSPCore
import DSPSpectral
import Testing

@Suite("Window")
struct WindowTests {
    private func expectClose(_ actual: [Float], _ expected: [Double], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(actual.count == expected.count, sourceLocation: sourceLocation)
        for (a, e) in zip(actual, expected) {
            #expect(abs(Double(a) - e) < 1e-7, "\(actual) vs \(expected)", sourceLocation: sourceLocation)
        }
    }

    @Test("Reference values (NumPy symmetric, SciPy periodic)")
    func referenceValues() throws {
        expectClose(try Window(.hann, length: 4).coefficients, [0, 0.5, 1, 0.5])
        expectClose(try Window(.hann, length: 5, symmetry: .symmetric).coefficients, [0, 0.5, 1, 0.5, 0])
        expectClose(try Window(.hamming, length: 5, symmetry: .symmetric).coefficients, [0.08, 0.54, 1, 0.54, 0.08])
        expectClose(try Window(.hamming, length: 4).coefficients, [0.08, 0.54, 1, 0.54])
        expectClose(try Window(.blackman, length: 5, symmetry: .symmetric).coefficients, [0, 0.34, 1, 0.34, 0])
        expectClose(try Window(.blackman, length: 4).coefficients, [0, 0.34, 1, 0.34])
        expectClose(try Window(.rectangular, length: 3).coefficients, [1, 1, 1])
        for shape in [Window.Shape.hann, .hamming, .blackman, .rectangular] {
            expectClose(try Window(shape, length: 1).coefficients, [1])
            expectClose(try Window(shape, length: 1, symmetry: .symmetric).coefficients, [1])
        }
    }

    @Test("Symmetric windows are symmetric; periodic ones are the symmetric N+1 window minus its last point",
          arguments: [Window.Shape.hann, .hamming, .blackman], [2, 7, 512])
    func symmetry(shape: Window.Shape, length: Int) throws {
        let symmetric = try Window(shape, length: length, symmetry: .symmetric).coefficients
        #expect(symmetric == Array(symmetric.reversed()))
        let periodic = try Window(shape, length: length).coefficients
        let longer = try Window(shape, length: length + 1, symmetry: .symmetric).coefficients
        expectClose(periodic, longer.dropLast().map(Double.init))
    }

    @Test("Periodic Hann at 50 % overlap sums to 1")
    func hannOverlapAdd() throws {
        let window = try Window(.hann, length: 512)
        for n in 0..<256 {
            #expect(abs(window.coefficients[n] + window.coefficients[n + 256] - 1) < 1e-6)
        }
        #expect(abs(window.sum - 256) < 1e-3)
        #expect(abs(window.sumOfSquares - 192) < 1e-3)  // 3N/8
    }

    @Test("apply multiplies, also in place")
    func apply() throws {
        let window = try Window(.hann, length: 4)
        let input: [Float] = [2, 2, 2, 2]
        var output = [Float](repeating: 0, count: 4)
        input.withUnsafeBufferPointer { source in output.withUnsafeMutableBufferPointer { window.apply(source, into: $0) } }
        #expect(output == [0, 1, 2, 1])
        var buffer: [Float] = [4, 4, 4, 4]
        buffer.withUnsafeMutableBufferPointer { window.apply(inPlace: $0) }
        #expect(buffer == [0, 2, 4, 2])
    }

    @Test("Invalid lengths throw ConfigurationError", arguments: [0, -1, (1 << 20) + 1])
    func invalidLengths(length: Int) {
        #expect(throws: ConfigurationError.self) { _ = try Window(.hann, length: length) }
    }
}
