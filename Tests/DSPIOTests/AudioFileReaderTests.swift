import DSPIO
import Foundation
import Testing
import TestSupport

@Suite("Reading")
struct AudioFileReaderTests {
    @Test("Block reading equals whole-file reading, for any block size", arguments: [AudioFileFormat.wavPCM16, .flacPCM16, .wavFloat32])
    func blockInvariance(format: AudioFileFormat) throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let samples = testSignal(count: 2 * 30_011)
        let path = try writeAudio(directory.path("blocks"), samples, format: format, channelCount: 2)
        let whole = try readAll(path, blockFrames: 30_011)
        #expect(whole.count == samples.count)
        for blockFrames in [1, 2, 1023, 4096, 100_000] {
            #expect(try readAll(path, blockFrames: blockFrames) == whole, "block of \(blockFrames) frames")
        }
        // Random block sizes, and buffers that are not a whole number of frames.
        let reader = try AudioFileReader(path: path)
        var generator = SplitMix64(seed: 0x5EED_B10C)  // seeded: the same sizes in every run
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 9000)
        defer { buffer.deallocate() }
        var result: [Float] = []
        while true {
            let capacity = Int.random(in: 2...9000, using: &generator)
            let count = try reader.read(into: UnsafeMutableBufferPointer(rebasing: buffer[..<capacity]))
            #expect(count % 2 == 0 && count <= capacity)
            if count == 0 { break }
            result += buffer[..<count]
        }
        #expect(result == whole)
        #expect(reader.framePosition == reader.frameCount)
    }

    @Test("readFrames counts frames, read counts samples, both return 0 at the end")
    func counts() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let path = try writeAudio(directory.path("c.wav"), testSignal(count: 3 * 1000), format: .wavFloat32, channelCount: 3)
        let reader = try AudioFileReader(path: path)
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 3 * 600)
        defer { buffer.deallocate() }
        #expect(try reader.readFrames(into: buffer) == 600)
        #expect(try reader.read(into: buffer) == 3 * 400)
        #expect(try reader.read(into: buffer) == 0)
        #expect(try reader.readFrames(into: buffer) == 0)
        #expect(try reader.read(into: UnsafeMutableBufferPointer(rebasing: buffer[..<0])) == 0)
        // Less than one frame is refused rather than mistaken for the end.
        expectError(.invalidParameters) { _ = try reader.read(into: UnsafeMutableBufferPointer(rebasing: buffer[..<2])) }
    }

    @Test("seek(toFrame:) repositions reading; out-of-range frames are refused", arguments: [AudioFileFormat.wavPCM16, .flacPCM24])
    func seeking(format: AudioFileFormat) throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let samples = testSignal(count: 2 * 20_000)
        let path = try writeAudio(directory.path("seek"), samples, format: format, channelCount: 2)
        let whole = try readAll(path)
        let reader = try AudioFileReader(path: path)
        for frame in [12_345, 0, 19_999, 20_000, 7] {
            try reader.seek(toFrame: frame)
            #expect(reader.framePosition == frame)
            #expect(try readAll(reader, blockFrames: 1000) == Array(whole[(2 * frame)...]))
        }
        expectError(.invalidParameters) { try reader.seek(toFrame: 20_001) }
        expectError(.invalidParameters) { try reader.seek(toFrame: -1) }
    }

    @Test("close() ends the handle: reads and seeks throw .closed, closing twice is harmless")
    func closing() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let path = try writeAudio(directory.path("x.wav"), [0.5, 0.25], format: .wavPCM16)
        let reader = try AudioFileReader(path: path)
        reader.close()
        reader.close()
        #expect(reader.isClosed)
        #expect(reader.headerLog.isEmpty)
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 16)
        defer { buffer.deallocate() }
        expectError(.closed) { _ = try reader.read(into: buffer) }
        expectError(.closed) { try reader.seek(toFrame: 0) }

        let writer = try AudioFileWriter(path: directory.path("y.wav"), format: .wavFloat32, sampleRate: 8000, channelCount: 1)
        try writer.close()
        try writer.close()
        expectError(.closed) { try [Float(0)].withUnsafeBufferPointer { try writer.write($0) } }
    }

    @Test("An empty but valid file has zero frames")
    func zeroFrames() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let path = try writeAudio(directory.path("none.wav"), [], format: .wavPCM16, sampleRate: 16_000, channelCount: 2)
        let reader = try AudioFileReader(path: path)
        #expect(reader.frameCount == 0)
        #expect(reader.durationSeconds == 0)
        #expect(try readAll(reader).isEmpty)
    }

    @Test("A FLAC stream without a total sample count is counted by decoding")
    func unknownLengthFLAC() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let samples = testSignal(count: 25_000)
        let path = try writeAudio(directory.path("known.flac"), samples, format: .flacPCM16)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // STREAMINFO's 36-bit total-samples field: low nibble of byte 21, bytes 22...25.
        bytes[21] &= 0xF0
        for index in 22...25 { bytes[index] = 0 }
        let unknown = try directory.write("unknown.flac", bytes: bytes)
        let reader = try AudioFileReader(path: unknown)
        #expect(reader.frameCount == 25_000)
        #expect(reader.damage == nil)
        #expect(try readAll(reader) == readAll(path))
    }

    @Test("Streaming a 10-minute FLAC through a fixed block keeps memory flat")
    func constantMemory() throws {
        let directory = try TemporaryDirectory(prefix: "DSPIOTests")
        let sampleRate = 16_000
        let frames = 10 * 60 * sampleRate
        let path = directory.path("long.flac")
        do {
            let writer = try AudioFileWriter(path: path, format: .flacPCM16, sampleRate: sampleRate, channelCount: 1)
            let block = testSignal(count: 16_000).map { $0 * 0.1 }
            try block.withUnsafeBufferPointer { buffer in
                for _ in 0..<(frames / block.count) { try writer.write(buffer) }
            }
            try writer.close()
        }
        // The decoded audio is 38 MB of Float; the reader must not hold on to it. The measure is
        // the process's resident set, which tests running in parallel share: one read has grown
        // by 19 MB of other tests' memory (CI, 2026-12-02). A reader that kept its audio grows by
        // at least 38 MB on every read, so the test reads the file up to three times and passes
        // when one read stays under the bound. Under AddressSanitizer (CI's sanitizer run) the
        // quarantine holds freed blocks and the shadow grows with what the parallel tests do: reads
        // grew by 30, 23 and 19 MB there (CI, 2026-12-06), so the bound is 32 MiB, still under the
        // 38.4 MB a reader that kept its audio would add.
        let addressSanitizer = dlsym(nil, "__asan_init") != nil  // dlsym(nil, …): RTLD_DEFAULT on glibc
        let bound = addressSanitizer ? 32 << 20 : 16 << 20
        var growths: [Int] = []
        for _ in 0..<3 {
            let growth = try residentGrowthWhileReading(path: path, frames: frames)
            growths.append(growth)
            if growth < bound { break }
        }
        #expect(growths.contains { $0 < bound }, "resident memory grew by \(growths) bytes (bound \(bound))")
    }

    /// Reads the whole file at `path` through a 4096-frame block; returns how far the resident
    /// set grew above its size before the first read.
    private func residentGrowthWhileReading(path: String, frames: Int) throws -> Int {
        let reader = try AudioFileReader(path: path)
        #expect(reader.frameCount == frames)
        #expect(reader.durationSeconds == 600)
        let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096)
        defer { block.deallocate() }
        let before = heapInUse()
        var peak = before
        var total = 0
        var blocks = 0
        while true {
            let count = try reader.read(into: block)
            if count == 0 { break }
            total += count
            blocks += 1
            if blocks % 64 == 0 { peak = max(peak, heapInUse()) }
        }
        #expect(total == frames)
        return peak - before
    }
}

/// The process's resident set size in bytes (`/proc/self/statm`), or 0 where unavailable.
private func heapInUse() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
