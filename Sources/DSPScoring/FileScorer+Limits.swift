#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import DSPIO

// What the scorer refuses before analysing: files too short to analyse, and paths that are not
// regular files. Error paths only.

extension FileScorer {
    /// The analysis rate of the detectors (Hz): audio is resampled to it and cut into
    /// 1024-sample frames.
    public static let detectionSampleRate = 16_000
    /// Samples per detection frame at ``detectionSampleRate`` (64 ms).
    public static let detectionFrameLength = 1024

    /// The fewest sample frames a file must hold to be scored: one analysis frame at the file's
    /// rate (``Configuration/frameLength``, 1024 by default) and at least one 1024-sample frame
    /// at 16 kHz once resampled (64 ms), whichever is longer — `max(frameLength, ⌈0.064 s × rate⌉)`.
    ///
    /// 1024 frames at 8 and 16 kHz, 2823 at 44.1 kHz, 3072 at 48 kHz. A shorter file has no
    /// complete frame for the per-frame measures (loudest/quietest frame, the detectors), so
    /// its record is an error of kind `too_short` rather than a row of partial values; a file
    /// with no frames at all is `empty`. Files between this minimum and 0.4 s are scored, with
    /// `loudness.integrated_lufs` `null` (BS.1770 gates on 400 ms blocks).
    public func minimumFrames(sampleRate: Int) -> Int {
        let detectionFrames =
            (Self.detectionFrameLength * sampleRate + Self.detectionSampleRate - 1) / Self.detectionSampleRate
        return max(configuration.frameLength, detectionFrames)
    }

    /// `empty` for 0 frames, `too_short` below ``minimumFrames(sampleRate:)``, else `nil`.
    func tooShortFailure(path: String, frames: Int, sampleRate: Int) -> FileScore.Failure? {
        if frames == 0 {
            return .init(kind: "empty", message: "\(path): empty: the file holds no audio (0 frames)")
        }
        let minimum = minimumFrames(sampleRate: sampleRate)
        guard frames < minimum else { return nil }
        let milliseconds = Double(frames) * 1000 / Double(sampleRate)
        return .init(
            kind: "too_short",
            message: "\(path): too short to analyse: \(frames) frames (\(formatted(milliseconds)) ms) at \(sampleRate) Hz; "
                + "the minimum is \(minimum) frames (one \(configuration.frameLength)-frame analysis frame, and 64 ms)")
    }

    /// `not_regular_file` for a path that exists but is not a regular file (after following
    /// symbolic links): a FIFO would block `open` until a writer appears, and devices or sockets
    /// are not audio files. Missing paths and directories are left to `AudioFileReader`.
    static func nonRegularFileFailure(path: String) -> FileScore.Failure? {
        var status = stat()
        guard PathBytes.stat(path, &status) == 0 else { return nil }
        let type = status.st_mode & S_IFMT
        guard type != S_IFREG && type != S_IFDIR else { return nil }
        let name =
            switch type {
            case S_IFIFO: "a FIFO (named pipe)"
            case S_IFCHR: "a character device"
            case S_IFBLK: "a block device"
            case S_IFSOCK: "a socket"
            default: "not a regular file"
            }
        return .init(kind: "not_regular_file", message: "\(path): not a regular file: the path names \(name)")
    }

    private func formatted(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : "\(rounded)"
    }
}
