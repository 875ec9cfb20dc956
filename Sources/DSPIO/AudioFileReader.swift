#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CSndFile
internal import CDSPKernels

/// An open audio file, read as interleaved 32-bit float frames.
///
/// A typed handle over a libsndfile `SNDFILE*` in the style of swift-system's
/// `FileDescriptor`: ``read(into:)`` fills a caller-owned buffer and returns a count, 0 at the
/// end of the audio. Reading streams in blocks, so memory use does not depend on the file's
/// length, and the reading calls never allocate (codec libraries may allocate internally, e.g.
/// libvorbis while decoding).
///
/// It reads every format the installed libsndfile reads: WAV (PCM 8/16/24/32, float, double,
/// µ-law, A-law, ADPCM), WAVEX, RF64, W64, AIFF/AIFF-C, CAF, AU, FLAC, Ogg/Vorbis, Ogg/Opus, and
/// MP3 when libsndfile was built with it.
///
/// ```swift
/// let reader = try AudioFileReader(path: "speech.wav")
/// let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096 * reader.channelCount)
/// defer { block.deallocate() }
/// while case let count = try reader.read(into: block), count > 0 {
///     process(UnsafeBufferPointer(rebasing: block[..<count]))
/// }
/// ```
///
/// ## Sample values
/// Integer encodings are normalised by libsndfile (`SFC_SET_NORM_FLOAT`, on) dividing by
/// 2^(bits−1): a 16-bit sample `v` reads as exactly `Float(v) / 32768` and a 24-bit sample as
/// `Float(v) / 8388608`, so the range is −1 ... 1 − 2^(1−bits) and full-scale negative reads as
/// exactly −1. Float files read unchanged, values beyond ±1, infinities and NaN included.
///
/// ## Truncated and damaged files
/// A file that ends before the audio its header declares is *truncated*. How it shows:
/// - **WAV, WAVEX, AIFF, W64, RF64**: libsndfile notices at open, logs it and shrinks the frame
///   count to the whole frames present. DSPIO reads that log (see ``headerLog``) and, under
///   ``DamagePolicy/reject`` (the default), the initializer throws ``AudioFileError/Kind/truncated``.
///   Under ``DamagePolicy/readAvailable`` it opens, ``frameCount`` is the number of whole frames
///   present, reads deliver exactly those, and ``damage`` records the problem. Data sizes that
///   streaming writers leave unpatched (`0xFFFFFFFF`, `0x7FFFFFFF`, `0x7FFFF000`) are not
///   treated as truncation; a WAV whose `data` size is 0 reads as 0 frames (libsndfile's
///   behaviour).
/// - **Ogg**: a missing final page (libsndfile then reports an unknown length) is truncation
///   and a hole in the page sequence is corruption, both found at open.
/// - **A RIFF/FORM file cut inside its header** is truncated: libsndfile either fails to open it
///   or finds 0 frames, and its RIFF/FORM size declares more bytes than the file holds. A
///   metadata chunk cut off *after* complete audio is not reported.
/// - **FLAC** and other decoded formats: damage shows while reading. A decoder error
///   (`sf_error` after `sf_readf_float`) raises ``AudioFileError/Kind/corrupt`` — a FLAC file
///   cut mid-frame is reported this way, because libFLAC reports "lost sync" for a cut and for
///   damaged data alike — and a stream that ends cleanly before ``frameCount`` raises
///   ``AudioFileError/Kind/truncated``. Under ``DamagePolicy/reject`` the frames decoded before
///   the damage are returned first and the error is thrown by the next read (and every read
///   after, until a seek); under ``DamagePolicy/readAvailable`` reading simply ends there.
/// - **AU** and other headers that libsndfile does not cross-check read what is present,
///   undetected.
///
/// The log checks use libsndfile 1.x wording (tested against 1.2.0).
///
/// An `AudioFileReader` is not `Sendable`: use it from one task or thread at a time. Readers on
/// different threads are independent. libsndfile reports a failed `sf_open` through a process
/// global (`sf_error(NULL)`, `sf_strerror(NULL)`); DSPIO opens files and reads that error under
/// one lock, so each failed open is classified by its own error whatever other threads open.
public final class AudioFileReader {
    /// What to do when a file turns out to be truncated or damaged.
    public enum DamagePolicy: Hashable, Sendable {
        /// Throw ``AudioFileError/Kind/truncated`` or ``AudioFileError/Kind/corrupt`` as soon as
        /// the damage is found (the default).
        case reject
        /// Read the audio that is present and record the problem in ``AudioFileReader/damage``.
        case readAvailable
    }

    /// Channel counts a file may declare; others are refused as ``AudioFileError/Kind/corrupt``.
    /// The upper bound is libsndfile's own limit.
    public static let supportedChannelCounts: ClosedRange<Int> = 1...1024
    /// Sample rates (Hz) a file may declare; others are refused as ``AudioFileError/Kind/corrupt``.
    public static let supportedSampleRates: ClosedRange<Int> = 1...1_000_000
    /// Frames per block when a frame count must be found by decoding (see ``frameCount``).
    private static let scanBlockFrames = 4096

    /// The path the file was opened with (escaped as ``PathBytes`` describes).
    public let path: String
    /// Frames per second, in Hz.
    public let sampleRate: Int
    /// Interleaved channels per frame.
    public let channelCount: Int
    /// The container and sample encoding.
    public let format: AudioFileFormat
    /// Frames in the file (a frame is one sample per channel: samples = frames × channels).
    ///
    /// From the header (`SF_INFO.frames`). When a header does not say — a FLAC stream written
    /// without a total, say — the initializer decodes the file once to count them. Under
    /// ``DamagePolicy/readAvailable`` a truncated WAV-family file reports the whole frames present.
    public let frameCount: Int
    /// The policy given at open.
    public let damagePolicy: DamagePolicy
    /// Truncation or corruption found so far, `nil` for an intact file. Set at open under
    /// ``DamagePolicy/readAvailable``, and by a read that hit damage under either policy.
    public private(set) var damage: AudioFileError?
    /// The index of the next frame ``read(into:)`` returns, 0 ... ``frameCount``.
    public private(set) var framePosition: Int = 0

    /// ``frameCount`` ÷ ``sampleRate``, in seconds.
    public var durationSeconds: Double { Double(frameCount) / Double(sampleRate) }

    /// Whether ``close()`` has been called.
    public var isClosed: Bool { handle == nil }

    private var handle: OpaquePointer?
    /// A read failure that later reads repeat, until a seek (``DamagePolicy/reject``).
    private var failure: AudioFileError?
    /// Damage was met under ``DamagePolicy/readAvailable``: reads return 0 until a seek.
    private var stopped = false

    /// Opens the audio file at `path` for reading.
    ///
    /// Calls `stat` (to report missing files, directories and empty files precisely), then
    /// `sf_open(path, SFM_READ, …)`, sets `SFC_SET_NORM_FLOAT`, checks the header's channel count
    /// and sample rate against ``supportedChannelCounts`` and ``supportedSampleRates``, and
    /// inspects libsndfile's parse log (`SFC_GET_LOG_INFO`) for truncation.
    ///
    /// - Parameters:
    ///   - path: A file path, its bytes escaped as ``PathBytes`` describes (a name that is valid
    ///     UTF-8 is itself). `"-"` means a file named `-`, not standard input.
    ///   - damagePolicy: What to do with a truncated or damaged file; ``DamagePolicy/reject`` by
    ///     default.
    /// - Throws: ``AudioFileError`` with kind `notFound`, `permissionDenied`, `isDirectory`,
    ///   `empty`, `truncated` (including a file cut inside its header), `corrupt` (a recognised
    ///   but unparseable file, or header values out of range), `unsupportedFormat` (not audio
    ///   libsndfile knows), or `ioFailure`.
    public init(path: String, damagePolicy: DamagePolicy = .reject) throws(AudioFileError) {
        try AudioFileError.checkReadablePath(path)
        var info = SF_INFO()
        let handle: OpaquePointer
        switch SndFileOpen.open(path, mode: Int32(SFM_READ), info: &info) {
        case .success(let opened): handle = opened
        case .failure(let failure):
            throw AudioFileError.classifyReadOpenFailure(path: path, code: failure.code, message: failure.message)
        }
        func fail(_ kind: AudioFileError.Kind, _ message: String) -> AudioFileError {
            sf_close(handle)
            return AudioFileError(kind: kind, path: path, message: message)
        }
        sf_command(handle, Int32(SFC_SET_NORM_FLOAT), nil, Int32(SF_TRUE))

        let channels = Int(info.channels)
        let rate = Int(info.samplerate)
        guard Self.supportedChannelCounts.contains(channels) else {
            throw fail(.corrupt, "header declares \(channels) channels (expected \(Self.supportedChannelCounts))")
        }
        guard Self.supportedSampleRates.contains(rate) else {
            throw fail(.corrupt, "header declares a sample rate of \(rate) Hz (expected \(Self.supportedSampleRates))")
        }
        guard info.frames >= 0 else {
            throw fail(.corrupt, "header declares \(info.frames) frames")
        }
        let format = AudioFileFormat(libsndfileFormat: info.format)
        var damage: AudioFileError?
        var finding = Self.inspectHeaderLog(of: handle, container: format.container)
        if finding == nil && format.container == .ogg && info.frames == sf_count_t.max {
            // libsndfile takes an Ogg stream's length from its last page; without one the
            // stream was cut off.
            finding = HeaderFinding(kind: .truncated, evidence: "the Ogg stream has no final page (unknown length)")
        }
        if finding == nil && info.frames == 0 && FileSniff(path: path).headerIsCut {
            // Cut inside the header, before libsndfile could learn the data size.
            finding = HeaderFinding(kind: .truncated, evidence: "the RIFF/FORM size declares more bytes than the file holds")
        }
        if let finding {
            let error = AudioFileError(kind: finding.kind, path: path, message: "libsndfile: \(finding.evidence)")
            if damagePolicy == .reject {
                sf_close(handle)
                throw error
            }
            damage = error
        }
        var frameCount = Int(info.frames)
        if info.frames == sf_count_t.max {
            switch Self.countFrames(handle, channels: channels) {
            case .success(let counted):
                frameCount = counted
            case .failure(let decodingError):
                guard damagePolicy == .readAvailable else {
                    throw fail(.corrupt, decodingError.message)
                }
                frameCount = decodingError.framesDecoded
                damage = damage ?? AudioFileError(kind: .corrupt, path: path, message: decodingError.message)
            }
            guard sf_seek(handle, 0, SEEK_SET) == 0 else {
                throw fail(.ioFailure, String(cString: sf_strerror(handle)))
            }
        }

        self.path = path
        self.handle = handle
        self.sampleRate = rate
        self.channelCount = channels
        self.format = format
        self.frameCount = frameCount
        self.damagePolicy = damagePolicy
        self.damage = damage
    }

    deinit {
        if let handle { sf_close(handle) }
    }

    /// Closes the file (`sf_close`). Later reads and seeks throw ``AudioFileError/Kind/closed``;
    /// closing again does nothing. `deinit` closes a file that is still open.
    public func close() {
        if let handle {
            sf_close(handle)
            self.handle = nil
        }
    }

    /// Reads interleaved frames into `buffer`, returning the number of **samples** written
    /// (a multiple of ``channelCount``); 0 at the end of the audio.
    ///
    /// Fills as many whole frames as fit (`buffer.count / channelCount`), calling
    /// `sf_readf_float` once (for 16-bit PCM `sf_readf_short`, widened in place to the same
    /// values) and then `sf_error` to tell the end of the audio from a decoding failure. Does
    /// not allocate.
    ///
    /// - Throws: ``AudioFileError`` — `truncated` or `corrupt` when the audio ends early or fails
    ///   to decode (see the type's discussion for when), `invalidParameters` for a non-empty
    ///   buffer smaller than one frame, `closed` after ``close()``.
    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws(AudioFileError) -> Int {
        try readFrames(into: buffer) * channelCount
    }

    /// Reads interleaved frames into `buffer`, returning the number of **frames** written;
    /// 0 at the end of the audio.
    ///
    /// The same as ``read(into:)`` but counting frames.
    public func readFrames(into buffer: UnsafeMutableBufferPointer<Float>) throws(AudioFileError) -> Int {
        guard let handle else { throw closedError() }
        if let failure { throw failure }
        if stopped { return 0 }
        let capacity = buffer.count / channelCount
        guard capacity > 0, let base = buffer.baseAddress else {
            if buffer.isEmpty { return 0 }
            throw AudioFileError(
                kind: .invalidParameters, path: path,
                message: "a buffer of \(buffer.count) samples holds less than one frame of \(channelCount) channels")
        }
        let got = format.encoding == .pcm16
            ? Self.readPCM16(handle, into: base, frames: capacity, channels: channelCount)
            : max(0, Int(sf_readf_float(handle, base, sf_count_t(capacity))))
        let code = sf_error(handle)
        framePosition += got
        if code == 0 && (got == capacity || framePosition >= frameCount) {
            return got
        }
        // A decoder error, or the audio ended before the frame count the header declared.
        let error =
            code != 0
            ? AudioFileError(
                kind: .corrupt, path: path,
                message: String(cString: sf_strerror(handle)) + " (at frame \(framePosition) of \(frameCount))")
            : AudioFileError(
                kind: .truncated, path: path,
                message: "the audio ends at frame \(framePosition) but the header declares \(frameCount)")
        damage = error
        switch damagePolicy {
        case .reject:
            failure = error
            if got > 0 { return got }
            throw error
        case .readAvailable:
            stopped = true
            return got
        }
    }

    /// 16-bit PCM, read as integers (`sf_readf_short`) into the back half of the caller's float
    /// buffer and widened in place, front to back: `Float(v) * 2⁻¹⁵`, exactly what
    /// `sf_readf_float` with `SFC_SET_NORM_FLOAT` returns (a scale by a power of two is exact),
    /// but libsndfile converts through a bounce buffer one sample at a time and this is one
    /// vector pass (the C kernel `cdsp_widen_pcm16`, dispatched to AVX-512F, AVX2 or SSE2 at run
    /// time) over one direct read. In place is safe: float `i` occupies bytes `4i ..< 4i + 4`,
    /// short `i` sits at `2n + 2i` (n = frames × channels), and each vector of shorts is loaded
    /// before the floats over it are stored; later loads lie above every earlier store.
    /// Returns the frames read.
    private static func readPCM16(_ handle: OpaquePointer, into base: UnsafeMutablePointer<Float>, frames: Int, channels: Int) -> Int {
        let n = frames * channels
        let raw = UnsafeMutableRawPointer(base)
        let shorts = (raw + 2 * n).assumingMemoryBound(to: Int16.self)
        let got = max(0, Int(sf_readf_short(handle, shorts, sf_count_t(frames))))
        // The shorts sit at byte 2n ≥ 2·(got·channels) of the buffer: at or after the point
        // the kernel's in-place contract requires.
        cdsp_widen_pcm16(shorts, base, got * channels)
        return got
    }

    /// Moves the read position to `frame`, so that the next read starts there (`sf_seek` with
    /// `SEEK_SET`). Clears a read failure, so a damaged file can be re-read up to the damage.
    ///
    /// - Parameter frame: 0 ... ``frameCount``; ``frameCount`` is the end.
    /// - Throws: ``AudioFileError`` — `invalidParameters` for a frame outside the file,
    ///   `corrupt` when libsndfile cannot reach it (damaged compressed data), `closed`.
    public func seek(toFrame frame: Int) throws(AudioFileError) {
        guard let handle else { throw closedError() }
        guard frame >= 0 && frame <= frameCount else {
            throw AudioFileError(
                kind: .invalidParameters, path: path, message: "frame \(frame) is outside 0...\(frameCount)")
        }
        guard sf_seek(handle, sf_count_t(frame), SEEK_SET) >= 0 else {
            throw AudioFileError(kind: .corrupt, path: path, message: String(cString: sf_strerror(handle)))
        }
        framePosition = frame
        failure = nil
        stopped = false
    }

    /// libsndfile's parse log for this file (`SFC_GET_LOG_INFO`): the header fields it read and
    /// anything it found odd. For diagnostics; the wording is libsndfile's and may change
    /// between its versions. Empty after ``close()``.
    public var headerLog: String {
        guard let handle else { return "" }
        return Self.headerLog(of: handle)
    }

    private static func headerLog(of handle: OpaquePointer) -> String {
        let capacity = 16_384
        return String(unsafeUninitializedCapacity: capacity) { bytes in
            bytes.initialize(repeating: 0)
            sf_command(handle, Int32(SFC_GET_LOG_INFO), bytes.baseAddress, Int32(capacity - 1))
            return bytes.firstIndex(of: 0) ?? capacity - 1
        }
    }

    /// ``inspect(headerLog:container:)`` on the handle's parse log, reading the log into a
    /// stack buffer and building the `String` only when it holds one of the phrases the
    /// container's check looks for (never, for an intact file): every check needs its phrase
    /// on the line it matches, so a log without any gives `nil` either way. The log's length is
    /// found with `strlen` (libsndfile writes it with `snprintf`, always terminated).
    private static func inspectHeaderLog(of handle: OpaquePointer, container: AudioFileFormat.Container) -> HeaderFinding? {
        switch container {
        case .wav, .wavex, .aiff, .w64, .rf64, .ogg: break
        default: return nil  // not checked by `inspect`
        }
        let capacity = 16_384
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer -> HeaderFinding? in
            let base = buffer.baseAddress!
            base[0] = 0
            base[capacity - 1] = 0
            sf_command(handle, Int32(SFC_GET_LOG_INFO), base, Int32(capacity - 1))
            let length = strlen(base)
            func has(_ phrase: StaticString) -> Bool {  // memchr for the first byte, memcmp the rest
                let n = phrase.utf8CodeUnitCount
                guard n > 0, length >= n else { return false }
                let last = length - n
                var i = 0
                while i <= last {
                    guard let hit = memchr(base + i, Int32(phrase.utf8Start[0]), last - i + 1) else { return false }
                    let at = UnsafeRawPointer(hit) - UnsafeRawPointer(base)
                    if memcmp(base + at, phrase.utf8Start, n) == 0 { return true }
                    i = at + 1
                }
                return false
            }
            let suspicious: Bool
            switch container {
            case .rf64: suspicious = has("does not match value from 'ds64' chunk of")
            case .ogg: suspicious = has("File ended unexpectedly") || has("reports a hole") || has("Corrupted bitstream")
            default: suspicious = has("(should be")
            }
            guard suspicious else { return nil }
            let log = UnsafeRawBufferPointer(start: base, count: length)
            return inspect(headerLog: String(decoding: log, as: UTF8.self), container: container)
        }
    }

    private func closedError() -> AudioFileError {
        AudioFileError(kind: .closed, path: path, message: "the file was closed")
    }

    private struct ScanFailure: Error {
        var message: String
        var framesDecoded: Int
    }

    /// Decodes the whole stream once to count its frames (`sf_readf_float` in blocks), for
    /// headers that do not declare a length.
    private static func countFrames(_ handle: OpaquePointer, channels: Int) -> Result<Int, ScanFailure> {
        let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: scanBlockFrames * channels)
        defer { block.deallocate() }
        var total = 0
        while true {
            let got = Int(sf_readf_float(handle, block.baseAddress, sf_count_t(scanBlockFrames)))
            if sf_error(handle) != 0 {
                let message = String(cString: sf_strerror(handle)) + " (at frame \(total + max(0, got)))"
                return .failure(ScanFailure(message: message, framesDecoded: total + max(0, got)))
            }
            guard got > 0 else { return .success(total) }
            total += got
        }
    }
}
