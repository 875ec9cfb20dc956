// A whole audio file in one call, for offline work: the block reads of `read(into:)` into an
// array that grows with the file.

/// A whole audio file in memory (``AudioFileReader/readAll(path:damagePolicy:)``).
public struct AudioFileContents: Equatable, Sendable {
    /// The samples, interleaved (frame after frame, one sample per channel in each), as
    /// ``AudioFileReader/read(into:)`` delivers them: Float32, integer encodings normalised to
    /// −1…1.
    public var samples: [Float]
    /// Frames per second, Hz.
    public var sampleRate: Int
    /// Interleaved channels per frame.
    public var channelCount: Int
    /// The container and sample encoding the file had.
    public var format: AudioFileFormat
    /// Truncation or corruption met while reading under ``AudioFileReader/DamagePolicy/readAvailable``
    /// (the samples are then the audio before it); nil for an intact file.
    public var damage: AudioFileError?

    /// Creates contents from their parts.
    public init(samples: [Float], sampleRate: Int, channelCount: Int, format: AudioFileFormat, damage: AudioFileError? = nil) {
        self.samples = samples
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.format = format
        self.damage = damage
    }

    /// Frames read: `samples.count / channelCount`.
    public var frameCount: Int { samples.count / channelCount }
    /// `frameCount / sampleRate`, seconds.
    public var durationSeconds: Double { Double(frameCount) / Double(sampleRate) }
}

extension AudioFileReader {
    /// Frames per block read by ``readAll()``.
    static let readAllBlockFrames = 65_536

    /// Reads the whole audio file at `path` into memory: its samples (interleaved), rate,
    /// channel count and format. Opens, reads every frame and closes.
    ///
    /// Allocates (memory grows with the file: 4 bytes per sample); not for real-time use. For
    /// long files, read blocks with ``read(into:)`` instead.
    /// - Throws: ``AudioFileError`` as ``init(path:damagePolicy:)`` and ``read(into:)`` do.
    public static func readAll(path: String, damagePolicy: DamagePolicy = .reject) throws(AudioFileError) -> AudioFileContents {
        let reader = try AudioFileReader(path: path, damagePolicy: damagePolicy)
        defer { reader.close() }
        let samples = try reader.readAll()
        return AudioFileContents(
            samples: samples, sampleRate: reader.sampleRate, channelCount: reader.channelCount, format: reader.format,
            damage: reader.damage)
    }

    /// Reads every frame from ``framePosition`` to the end of the audio, interleaved, in blocks
    /// of 65 536 frames with ``read(into:)``.
    ///
    /// Allocates; not for real-time use.
    /// - Throws: ``AudioFileError`` as ``read(into:)`` does (under ``DamagePolicy/reject`` a
    ///   damaged file throws, and the frames before the damage are not returned).
    public func readAll() throws(AudioFileError) -> [Float] {
        let block = Self.readAllBlockFrames * channelCount
        var samples: [Float] = []
        // The header's count, plus a block for the end test; a damaged header cannot make it
        // reserve more than 2²⁶ samples (256 MiB) up front: beyond that the array grows as read.
        let declared = Swift.max(0, frameCount - framePosition)
        samples.reserveCapacity(Swift.min(declared, 1 << 26 / channelCount) * channelCount + block)
        var filled = 0
        while true {
            if samples.count - filled < block {
                samples.append(contentsOf: repeatElement(0, count: block - (samples.count - filled)))
            }
            let got = try samples.withUnsafeMutableBufferPointer { (buffer) throws(AudioFileError) -> Int in
                try read(into: UnsafeMutableBufferPointer(rebasing: buffer[filled..<(filled + block)]))
            }
            if got == 0 { break }
            filled += got
        }
        samples.removeLast(samples.count - filled)
        return samples
    }
}
