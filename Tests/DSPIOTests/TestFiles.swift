import DSPIO
import Foundation
import Testing

/// Builds canonical WAV files byte by byte, independently of libsndfile, so that headers can lie.
enum WAVBuilder {
    /// A RIFF/WAVE file: `fmt ` (PCM = 1 or IEEE float = 3) then `data` with `payload`.
    /// `riffSize` and `dataSize` default to the true sizes.
    static func file(
        channels: Int, sampleRate: Int, bitsPerSample: Int, formatTag: UInt16 = 1,
        payload: [UInt8], dataSize: UInt32? = nil, riffSize: UInt32? = nil
    ) -> [UInt8] {
        let blockAlign = UInt16(truncatingIfNeeded: channels * bitsPerSample / 8)
        var bytes: [UInt8] = []
        bytes += Array("RIFF".utf8)
        bytes += le32(riffSize ?? UInt32(36 + payload.count))
        bytes += Array("WAVE".utf8)
        bytes += Array("fmt ".utf8)
        bytes += le32(16)
        bytes += le16(formatTag)
        bytes += le16(UInt16(truncatingIfNeeded: channels))
        bytes += le32(UInt32(truncatingIfNeeded: sampleRate))
        bytes += le32(UInt32(truncatingIfNeeded: sampleRate * Int(blockAlign)))
        bytes += le16(blockAlign)
        bytes += le16(UInt16(bitsPerSample))
        bytes += Array("data".utf8)
        bytes += le32(dataSize ?? UInt32(payload.count))
        bytes += payload
        return bytes
    }

    /// Little-endian 16-bit PCM payload.
    static func pcm16(_ samples: [Int16]) -> [UInt8] {
        samples.flatMap { le16(UInt16(bitPattern: $0)) }
    }

    /// Little-endian 24-bit PCM payload.
    static func pcm24(_ samples: [Int32]) -> [UInt8] {
        samples.flatMap { value -> [UInt8] in
            let bits = UInt32(bitPattern: value)
            return [UInt8(bits & 0xFF), UInt8((bits >> 8) & 0xFF), UInt8((bits >> 16) & 0xFF)]
        }
    }

    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
}

/// Writes `samples` (interleaved) with ``AudioFileWriter`` and returns the path.
@discardableResult
func writeAudio(
    _ path: String, _ samples: [Float], format: AudioFileFormat, sampleRate: Int = 16_000, channelCount: Int = 1
) throws -> String {
    let writer = try AudioFileWriter(path: path, format: format, sampleRate: sampleRate, channelCount: channelCount)
    try samples.withUnsafeBufferPointer { try writer.write($0) }
    try writer.close()
    return path
}

/// Reads every sample with a fixed block of `blockFrames` frames.
func readAll(
    _ path: String, blockFrames: Int = 4096, damagePolicy: AudioFileReader.DamagePolicy = .reject
) throws -> [Float] {
    let reader = try AudioFileReader(path: path, damagePolicy: damagePolicy)
    return try readAll(reader, blockFrames: blockFrames)
}

/// Reads the rest of `reader` with a fixed block of `blockFrames` frames.
func readAll(_ reader: AudioFileReader, blockFrames: Int = 4096) throws -> [Float] {
    var result: [Float] = []
    let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: blockFrames * reader.channelCount)
    defer { block.deallocate() }
    while true {
        let count = try reader.read(into: block)
        if count == 0 { break }
        result += block[..<count]
    }
    return result
}

/// Checks that `body` throws an ``AudioFileError`` of `kind`, and returns the error.
@discardableResult
func expectError(
    _ kind: AudioFileError.Kind, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> AudioFileError? {
    do {
        try body()
        Issue.record("expected an AudioFileError of kind \(kind), but nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as AudioFileError {
        #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected an AudioFileError of kind \(kind), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A deterministic test signal in −1 ... 1: a sum of two sines and a little pseudo-noise.
func testSignal(count: Int, seed: UInt64 = 1) -> [Float] {
    var state = seed
    return (0..<count).map { index in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let noise = Double(Int64(bitPattern: state) >> 11) / Double(1 << 52)
        let t = Double(index)
        return Float(0.5 * sin(0.0625 * t) + 0.3 * sin(0.0123 * t) + 0.05 * noise)
    }
}

/// Command-line tools some tests use as independent encoders and decoders.
enum Tool: String {
    case sox, flac, oggenc

    /// The tool's path, found on `PATH`.
    var path: String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return directories.map { "\($0)/\(rawValue)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    var isAvailable: Bool { path != nil }

    /// Runs the tool and fails the test on a nonzero exit status.
    func run(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(path, sourceLocation: sourceLocation))
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(rawValue) \(arguments.joined(separator: " "))", sourceLocation: sourceLocation)
    }
}

/// Raw little-endian 32-bit floats from a file (sox `-t f32` output).
func readRawFloats(_ path: String) throws -> [Float] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    return data.withUnsafeBytes { raw in
        (0..<(raw.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
    }
}
