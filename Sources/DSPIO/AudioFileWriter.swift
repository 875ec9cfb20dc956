#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CSndFile
import DSPCore

/// A new audio file, written from interleaved 32-bit float frames.
///
/// A typed handle over a libsndfile `SNDFILE*` opened with `SFM_WRITE`.
/// ``write(_:)-(UnsafeBufferPointer<Float>)`` takes caller-owned samples and never allocates;
/// ``close()`` finishes the header and reports failures that `deinit` would have to swallow.
///
/// ```swift
/// let writer = try AudioFileWriter(path: "out.wav", format: .wavPCM16, sampleRate: 16_000, channelCount: 1)
/// try samples.withUnsafeBufferPointer { try writer.write($0) }
/// try writer.close()
/// ```
///
/// Any container/encoding pair libsndfile can write is accepted (checked with
/// `sf_format_check`); ``AudioFileFormat`` has presets for WAV float and PCM, FLAC and
/// Ogg/Vorbis.
///
/// ## Sample conversion
/// Float encodings store the values unchanged, bit for bit (beyond ±1, infinities and NaN
/// included).
///
/// **16-bit PCM**, in every container, follows SpeechDSP's sample-format policy
/// (`DSPCore.Int16Conversion`): `clamp(x · 32768, −32768, 32767)` rounded to nearest, ties to
/// even; NaN → 0; +1.0 → 32767. The writer converts through a scratch block allocated at open
/// and hands libsndfile shorts (`sf_writef_short`), so WAV, AIFF, W64, FLAC … store identical
/// values and ``clippedSampleCount`` / ``nanSampleCount`` report what was clamped.
///
/// **Other integer encodings** (8, 24, 32 bits) are converted by libsndfile, with clipping
/// switched on (`SFC_SET_CLIPPING`) so that out-of-range values saturate instead of wrapping.
/// With `b` bits, `x` is scaled by 2^(b−1) and then rounded toward −∞ by the WAV, AIFF, W64,
/// RF64, CAF and AU writers (a −½ LSB bias; NaN → −2^(b−1)) and to nearest, ties to even, by
/// FLAC (whose encoder refuses NaN: ``write(_:)-(UnsafeBufferPointer<Float>)`` throws
/// ``AudioFileError/Kind/ioFailure``).
/// Either way `k / 2^(b−1)` for integer `k` in range is stored as exactly `k`. No dither is added.
///
/// **µ-law, A-law and the codecs** (IMA/MS ADPCM, GSM 6.10, Vorbis, Opus, MP3): libsndfile's
/// µ-law and A-law encoders index their tables with the unclipped scaled value, so NaN, ±∞ or a
/// huge sample would read out of bounds (a crash), and a codec given NaN encodes garbage. The
/// writer therefore hands these encoders sanitised blocks (through a Float scratch allocated at
/// open): NaN → 0, everything else clamped to [−1, 1]; ``clippedSampleCount`` and
/// ``nanSampleCount`` count what was changed. In-range values pass unchanged.
///
/// ## AIFF with one byte per sample
/// libsndfile (1.2) counts the pad byte that ends an odd-length AIFF sound chunk as a frame
/// when the encoding has one byte per sample (8-bit PCM, µ-law, A-law): such a file would read
/// back one zero frame longer than written. ``close()`` sets the header's frame count and
/// `SSND` size back to what was written (the pad byte stays, as AIFF requires). A file written
/// to standard output (`"-"`) cannot be rewritten and keeps libsndfile's header.
///
/// An `AudioFileWriter` is not `Sendable`: use it from one task or thread at a time.
public final class AudioFileWriter {
    /// Channel counts accepted; libsndfile's own limit.
    public static let supportedChannelCounts: ClosedRange<Int> = 1...1024
    /// Sample rates (Hz) accepted.
    public static let supportedSampleRates: ClosedRange<Int> = 1...1_000_000

    /// The path the file was created at.
    public let path: String
    /// Frames per second, in Hz.
    public let sampleRate: Int
    /// Interleaved channels per frame.
    public let channelCount: Int
    /// The container and sample encoding being written.
    public let format: AudioFileFormat
    /// Frames written so far.
    public private(set) var framesWritten: Int = 0

    /// Whether ``close()`` has been called.
    public var isClosed: Bool { handle == nil }

    private var handle: OpaquePointer?
    /// Int16 scratch for 16-bit PCM (nil for other encodings).
    private let shortBlock: UnsafeMutableBufferPointer<Int16>?
    /// Float scratch for the encodings that get sanitised samples (nil for the others).
    private let sanitizedBlock: UnsafeMutableBufferPointer<Float>?
    /// Samples clamped by the 16-bit conversion or the sanitised encodings so far (see "Sample
    /// conversion").
    public private(set) var clippedSampleCount = 0
    /// NaN samples written as 0 by the 16-bit conversion or the sanitised encodings so far.
    public private(set) var nanSampleCount = 0

    /// Creates (or replaces) the file at `path`.
    ///
    /// Checks the parameters, asks `sf_format_check` whether libsndfile can write the format,
    /// then calls `sf_open(path, SFM_WRITE, …)` and sets `SFC_SET_NORM_FLOAT` and
    /// `SFC_SET_CLIPPING`.
    ///
    /// - Parameters:
    ///   - path: Where to create the file, escaped as ``PathBytes`` describes; an existing file
    ///     is overwritten.
    ///   - format: The container and encoding, e.g. ``AudioFileFormat/wavFloat32``.
    ///   - sampleRate: Hz, in ``supportedSampleRates``.
    ///   - channelCount: Interleaved channels, in ``supportedChannelCounts``.
    /// - Throws: ``AudioFileError`` — `invalidParameters` (rate or channel count out of range),
    ///   `unsupportedFormat` (libsndfile cannot write this format with these parameters),
    ///   `notFound` (no such directory), `permissionDenied`, `isDirectory`, `ioFailure`.
    public init(path: String, format: AudioFileFormat, sampleRate: Int, channelCount: Int) throws(AudioFileError) {
        guard Self.supportedSampleRates.contains(sampleRate) else {
            throw AudioFileError(
                kind: .invalidParameters, path: path,
                message: "sample rate \(sampleRate) Hz (expected \(Self.supportedSampleRates))")
        }
        guard Self.supportedChannelCounts.contains(channelCount) else {
            throw AudioFileError(
                kind: .invalidParameters, path: path,
                message: "channel count \(channelCount) (expected \(Self.supportedChannelCounts))")
        }
        if path.utf8.contains(0) {
            throw AudioFileError(kind: .notFound, path: path, message: "the path holds a NUL byte, which no file name can")
        }
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        info.format = format.libsndfileFormat
        guard sf_format_check(&info) != 0 else {
            throw AudioFileError(
                kind: .unsupportedFormat, path: path,
                message: "libsndfile cannot write \(format) at \(sampleRate) Hz with \(channelCount) channels")
        }
        let handle: OpaquePointer
        switch SndFileOpen.open(path, mode: Int32(SFM_WRITE), info: &info) {
        case .success(let opened): handle = opened
        case .failure(let failure):
            throw AudioFileError.classifyWriteOpenFailure(path: path, message: failure.message)
        }
        sf_command(handle, Int32(SFC_SET_NORM_FLOAT), nil, Int32(SF_TRUE))
        sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))

        self.path = path
        self.handle = handle
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.format = format
        shortBlock = format.encoding == .pcm16 ? .allocate(capacity: 4096 * channelCount) : nil
        sanitizedBlock = Self.needsSanitizedSamples(format.encoding) ? .allocate(capacity: 4096 * channelCount) : nil
    }

    /// Whether libsndfile's encoder for `encoding` must only see finite samples in [−1, 1]
    /// (see "Sample conversion"): everything but the float and 8–32-bit PCM encodings.
    static func needsSanitizedSamples(_ encoding: AudioFileFormat.Encoding) -> Bool {
        switch encoding {
        case .float32, .float64, .pcmS8, .pcmU8, .pcm16, .pcm24, .pcm32: false
        default: true
        }
    }

    /// Closes a file that is still open, ignoring errors; call ``close()`` to see them.
    deinit {
        if let handle { sf_close(handle) }
        shortBlock?.deallocate()
        sanitizedBlock?.deallocate()
    }

    /// Appends interleaved samples (`sf_writef_float`). Does not allocate.
    ///
    /// - Parameter samples: Whole frames: `samples.count` must be a multiple of
    ///   ``channelCount``. Empty is fine.
    /// - Throws: ``AudioFileError`` — `invalidParameters` for a partial frame, `ioFailure` when
    ///   libsndfile writes fewer frames than given (disk full, or an encoder refusing the data,
    ///   e.g. FLAC given NaN), `closed` after ``close()``.
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioFileError) {
        let (handle, frames) = try openHandle(frames: samples.count)
        guard frames > 0, let base = samples.baseAddress else { return }
        let written: Int
        if let shortBlock {
            written = writeShorts(handle, samples, frames: frames, block: shortBlock)
        } else if let sanitizedBlock {
            written = writeSanitized(handle, samples, frames: frames, block: sanitizedBlock)
        } else {
            written = max(0, Int(sf_writef_float(handle, base, sf_count_t(frames))))
        }
        framesWritten += written
        guard written == frames else {
            let code = sf_error(handle)
            let detail = code != 0 ? String(cString: sf_strerror(handle)) : "the encoder refused the data"
            throw AudioFileError(
                kind: .ioFailure, path: path,
                message: "libsndfile wrote \(written) of \(frames) frames: \(detail)")
        }
    }

    /// Appends interleaved 16-bit samples. Does not allocate.
    ///
    /// For 16-bit PCM (``AudioFileFormat/Encoding/pcm16``, in any container) the values are
    /// stored as they are (`sf_writef_short`), so a caller that converted with its own policy
    /// (``/DSPCore/Int16Converter`` with dither, say) keeps it. Any other encoding is given
    /// `k / 32768` through ``write(_:)-(UnsafeBufferPointer<Float>)`` (exact in Float), so it
    /// stores what the Float path stores for that value — libsndfile's own short-to-float path
    /// would store `k` unscaled in a float file.
    ///
    /// - Parameter samples: Whole frames: `samples.count` must be a multiple of
    ///   ``channelCount``. Empty is fine.
    /// - Throws: ``AudioFileError`` — as ``write(_:)-(UnsafeBufferPointer<Float>)``.
    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(AudioFileError) {
        let (handle, frames) = try openHandle(frames: samples.count)
        guard frames > 0, let base = samples.baseAddress else { return }
        guard shortBlock != nil else {
            // Through Float, 256 frames at a time (k / 32768 is exact).
            let blockFrames = 256
            var start = 0
            var failure: AudioFileError? = nil
            withUnsafeTemporaryAllocation(of: Float.self, capacity: blockFrames * channelCount) { block in
                while start < frames, failure == nil {
                    let n = min(blockFrames, frames - start)
                    for i in 0..<(n * channelCount) { block[i] = Float(base[start * channelCount + i]) * (1.0 / 32768.0) }
                    do throws(AudioFileError) {
                        try write(UnsafeBufferPointer(rebasing: block[..<(n * channelCount)]))
                    } catch {
                        failure = error
                    }
                    start += n
                }
            }
            if let failure { throw failure }
            return
        }
        let written = max(0, Int(sf_writef_short(handle, base, sf_count_t(frames))))
        framesWritten += written
        guard written == frames else {
            let code = sf_error(handle)
            let detail = code != 0 ? String(cString: sf_strerror(handle)) : "the encoder refused the data"
            throw AudioFileError(
                kind: .ioFailure, path: path,
                message: "libsndfile wrote \(written) of \(frames) frames: \(detail)")
        }
    }

    /// Converts to Int16 block by block (`Int16Conversion`) and writes with `sf_writef_short`;
    /// returns frames written.
    /// The open handle and the whole frames `sampleCount` samples make; throws `closed` after
    /// ``close()`` and `invalidParameters` for a partial frame (what every `write` checks first).
    private func openHandle(frames sampleCount: Int) throws(AudioFileError) -> (OpaquePointer, Int) {
        guard let handle else {
            throw AudioFileError(kind: .closed, path: path, message: "the file was closed")
        }
        let frames = sampleCount / channelCount
        guard frames * channelCount == sampleCount else {
            throw AudioFileError(
                kind: .invalidParameters, path: path,
                message: "\(sampleCount) samples is not a whole number of \(channelCount)-channel frames")
        }
        return (handle, frames)
    }

    private func writeShorts(
        _ handle: OpaquePointer, _ samples: UnsafeBufferPointer<Float>, frames: Int,
        block: UnsafeMutableBufferPointer<Int16>
    ) -> Int {
        writeInBlocks(frames: frames, blockFrames: block.count / channelCount) { start, n in
            let slice = UnsafeBufferPointer(rebasing: samples[start * channelCount..<(start + n) * channelCount])
            let report = Int16Conversion.convert(slice, into: block)
            clippedSampleCount += report.clippedCount
            nanSampleCount += report.nanCount
            return Int(sf_writef_short(handle, block.baseAddress, sf_count_t(n)))
        }
    }

    /// Copies block by block with NaN → 0 and clamping to [−1, 1], and writes with
    /// `sf_writef_float`; returns frames written.
    private func writeSanitized(
        _ handle: OpaquePointer, _ samples: UnsafeBufferPointer<Float>, frames: Int,
        block: UnsafeMutableBufferPointer<Float>
    ) -> Int {
        writeInBlocks(frames: frames, blockFrames: block.count / channelCount) { start, n in
            let offset = start * channelCount
            for i in 0..<(n * channelCount) {
                let x = samples[offset + i]
                if x.isNaN {
                    block[i] = 0
                    nanSampleCount += 1
                } else if x > 1 || x < -1 {
                    block[i] = x > 1 ? 1 : -1
                    clippedSampleCount += 1
                } else {
                    block[i] = x
                }
            }
            return Int(sf_writef_float(handle, block.baseAddress, sf_count_t(n)))
        }
    }

    /// Writes `frames` frames in blocks of at most `blockFrames`: `writeBlock(start, n)` prepares
    /// and writes frames `start ..< start + n` and returns how many libsndfile took; stops at
    /// the first short write. Returns the frames written.
    private func writeInBlocks(frames: Int, blockFrames: Int, _ writeBlock: (_ start: Int, _ n: Int) -> Int) -> Int {
        var done = 0
        while done < frames {
            let n = min(blockFrames, frames - done)
            let written = max(0, writeBlock(done, n))
            done += written
            if written < n { break }
        }
        return done
    }

    /// Finishes the header and closes the file (`sf_close`; then, for an AIFF with one byte
    /// per sample and an odd sample count, the header repair described above). Closing again
    /// does nothing.
    ///
    /// - Throws: ``AudioFileError/Kind/ioFailure`` when libsndfile cannot flush or finish the
    ///   file, or the AIFF header cannot be rewritten; the handle is closed either way.
    public func close() throws(AudioFileError) {
        guard let handle else { return }
        self.handle = nil
        let code = sf_close(handle)
        guard code == 0 else {
            throw AudioFileError(kind: .ioFailure, path: path, message: String(cString: sf_error_number(code)))
        }
        if Self.needsAIFFPadRepair(format: format, sampleCount: framesWritten * channelCount), path != "-" {
            try repairAIFFPadFrame()
        }
    }

    /// Whether libsndfile will have counted an AIFF's pad byte as a frame: AIFF (and AIFC)
    /// with one byte per sample (8-bit PCM, µ-law, A-law) and an odd number of samples. The
    /// sound data then ends on an odd byte, and libsndfile's writer (1.2) includes the chunk's
    /// pad byte in the `SSND` size and in `COMM`'s frame count, so the file reads back one
    /// (zero) frame longer than written.
    static func needsAIFFPadRepair(format: AudioFileFormat, sampleCount: Int) -> Bool {
        guard format.container == .aiff, sampleCount % 2 == 1 else { return false }
        switch format.encoding {
        case .pcmS8, .pcmU8, .ulaw, .alaw: return true
        default: return false
        }
    }

    /// Gives the `COMM` frame count and the `SSND` size back the frame that libsndfile counted
    /// for the pad byte (see ``needsAIFFPadRepair(format:sampleCount:)``); the pad byte stays,
    /// so the `FORM` size is unchanged. Only a header that says exactly ``framesWritten`` + 1
    /// frames is changed, so a libsndfile that gets this right is left alone.
    private func repairAIFFPadFrame() throws(AudioFileError) {
        guard let file = PathBytes.withCString(path, { fopen($0, "r+b") }) else {
            throw AudioFileError(kind: .ioFailure, path: path, message: "cannot reopen the file to finish its AIFF header")
        }
        defer { fclose(file) }
        func readUInt32(at offset: Int) -> UInt32? {
            var bytes: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
            guard fseeko(file, off_t(offset), SEEK_SET) == 0,
                  withUnsafeMutableBytes(of: &bytes, { fread($0.baseAddress, 1, 4, file) }) == 4 else { return nil }
            return UInt32(bytes.0) << 24 | UInt32(bytes.1) << 16 | UInt32(bytes.2) << 8 | UInt32(bytes.3)
        }
        func writeUInt32(_ value: UInt32, at offset: Int) -> Bool {
            var bytes = (UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF))
            return fseeko(file, off_t(offset), SEEK_SET) == 0
                && withUnsafeBytes(of: &bytes, { fwrite($0.baseAddress, 1, 4, file) }) == 4
        }
        // Chunks after the 12-byte FORM header: 4-byte id, 4-byte big-endian size, data, pad.
        var commFrames: Int? = nil
        var ssndSize: Int? = nil
        var offset = 12
        while commFrames == nil || ssndSize == nil, let id = readUInt32(at: offset), let size = readUInt32(at: offset + 4) {
            if id == 0x434F_4D4D { commFrames = offset + 10 }  // "COMM": channels (2 bytes), then frames
            if id == 0x5353_4E44 { ssndSize = offset + 4 }  // "SSND"
            offset += 8 + Int(size) + Int(size & 1)
        }
        let expected = UInt32(truncatingIfNeeded: framesWritten)
        guard let commFrames, let ssndSize, let frames = readUInt32(at: commFrames), frames == expected &+ 1,
              let size = readUInt32(at: ssndSize), size % 2 == 0 else { return }
        guard writeUInt32(expected, at: commFrames), writeUInt32(size - 1, at: ssndSize), fflush(file) == 0 else {
            throw AudioFileError(kind: .ioFailure, path: path, message: "cannot finish the AIFF header")
        }
    }
}
