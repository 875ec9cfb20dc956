#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import DSPIO

// What the scorer refuses before analysing (empty files, paths that are not regular files) and
// the lengths below which an analysis is not done (detection, loudness).

extension FileScorer {
    /// The analysis rate of the detectors (Hz): audio is resampled to it and cut into
    /// 1024-sample frames.
    public static let detectionSampleRate = 16_000
    /// Samples per detection frame at ``detectionSampleRate`` (64 ms).
    public static let detectionFrameLength = 1024

    /// The fewest sample frames detection needs: one 1024-sample frame at 16 kHz once resampled
    /// (64 ms), `⌈0.064 s × rate⌉` — 1024 frames at 16 kHz, 2823 at 44.1 kHz, 3072 at 48 kHz.
    ///
    /// A shorter file is still scored: duration, levels (over its real samples; the one partial
    /// analysis frame gives the loudest and quietest frame) and clipping are well defined for any
    /// length; `detection` and `environment` are left out with `not_measured` `too_short`.
    public func minimumFrames(sampleRate: Int) -> Int {
        (Self.detectionFrameLength * sampleRate + Self.detectionSampleRate - 1) / Self.detectionSampleRate
    }

    /// The fewest sample frames loudness needs: one 400 ms BS.1770 gating block, `⌈0.4 s × rate⌉`.
    /// A shorter file has no block, so no integrated loudness and no gate to say it is below:
    /// `loudness` is left out with `not_measured` `too_short` rather than written as if silent.
    public func minimumLoudnessFrames(sampleRate: Int) -> Int {
        (2 * sampleRate + 4) / 5
    }

    /// `empty` for 0 frames, else `nil`.
    func emptyFailure(path: String, frames: Int) -> FileScore.Failure? {
        guard frames == 0 else { return nil }
        return .init(kind: "empty", message: "\(path): empty: the file holds no audio (0 frames)")
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

}
