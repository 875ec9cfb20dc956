import DSPIO

// Which frames and channels of an opened file an input asks for (NeMo offset/duration, Lhotse
// cut start/duration/channel), or why they cannot be read.

extension FileScorer {
    /// How far a segment may run past the file's end and still be scored, up to the end, with
    /// `segment.missing_frames` saying how far: 25 ms, Lhotse's default duration-mismatch
    /// tolerance, which covers durations written to two decimals. Beyond it the record is a
    /// `segment_out_of_range` error.
    public static let segmentEndTolerance = 0.025

    /// The frames to read: `start ..< end` at the file's rate, the file channels to keep (`nil`:
    /// all), and the record's ``FileScore/Segment``.
    struct Span {
        var start: Int
        var end: Int
        var channels: [Int]?
        var segment: FileScore.Segment?
    }

    /// An input the file does not fit, with the segment asked for when there is one.
    struct SpanFailure: Error {
        var failure: FileScore.Failure
        var segment: FileScore.Segment?
    }

    /// The span `input` asks for in the file `reader` has open: the whole file without a segment.
    /// `manifest_mismatch` when the line declares another sample rate or a channel the file does
    /// not have; `segment_out_of_range` when the segment starts past the end or ends more than
    /// ``segmentEndTolerance`` past it; `empty` for a segment of no frames.
    static func span(of input: ScoringInput, reader: AudioFileReader) -> Result<Span, SpanFailure> {
        let path = input.path
        let rate = reader.sampleRate
        if let declared = input.declaredSampleRate, declared != rate {
            return .failure(SpanFailure(failure: .init(
                kind: "manifest_mismatch",
                message: "\(path): the manifest line declares sampling_rate \(declared) Hz but the file is at \(rate) Hz")))
        }
        guard let segment = input.segment else { return .success(Span(start: 0, end: reader.frameCount)) }
        let fileChannels = segment.fileChannels.map { $0.map(String.init).joined(separator: ",") }
        if let channels = segment.fileChannels, let bad = channels.first(where: { $0 >= reader.channelCount }) {
            return .failure(SpanFailure(failure: .init(
                kind: "manifest_mismatch",
                message: "\(path): the manifest line takes file channel \(bad) but the file has \(reader.channelCount) channel\(reader.channelCount == 1 ? "" : "s")")))
        }
        // round() is half away from zero: Lhotse's compute_num_samples for non-negative times.
        let start = Int((segment.offset * Double(rate)).rounded())
        let asked = segment.duration.map { Int(($0 * Double(rate)).rounded()) }
        let end = asked.map { start + $0 } ?? Swift.max(start, reader.frameCount)
        let missing = Swift.max(0, end - reader.frameCount)
        var record = FileScore.Segment(
            startFrame: start, endFrame: end, missingFrames: missing, offset: Double(start) / Double(rate), fileChannels: fileChannels)
        let tolerance = Int((segmentEndTolerance * Double(rate)).rounded())
        if start > reader.frameCount || missing > tolerance {
            return .failure(SpanFailure(
                failure: .init(
                    kind: "segment_out_of_range",
                    message: "\(path): the segment is frames \(start)..<\(end) (offset \(segment.offset) s, duration "
                        + "\(segment.duration.map { "\($0) s" } ?? "to the end")) but the file ends at frame \(reader.frameCount) "
                        + "(\(Double(reader.frameCount) / Double(rate)) s at \(rate) Hz)"),
                segment: record))
        }
        record.endFrame = end - missing
        guard record.endFrame > start else {
            return .failure(SpanFailure(
                failure: .init(kind: "empty", message: "\(path): empty: the segment holds no audio (0 frames from frame \(start))"),
                segment: record))
        }
        return .success(Span(start: start, end: record.endFrame, channels: segment.fileChannels, segment: record))
    }
}
