// Damage that libsndfile notices while parsing a header but does not report as an error: it
// logs the problem (`SFC_GET_LOG_INFO`) and carries on with the audio that is present. These
// checks read that log. The patterns are libsndfile 1.x's wording and are pinned by tests.

extension AudioFileReader {
    /// What a header log says about the file's integrity.
    struct HeaderFinding: Equatable {
        /// `.truncated` or `.corrupt`.
        var kind: AudioFileError.Kind
        /// The log line that shows it, trimmed.
        var evidence: String
    }

    /// Inspects libsndfile's parse log for a file of `container`.
    ///
    /// - WAV, WAVEX: `data : <declared> (should be <present>)` with declared > present, unless
    ///   declared is a streaming placeholder (`0xFFFFFFFF`, `0x7FFFFFFF`, `0x7FFFF000`).
    /// - AIFF: `SSND : <declared> (should be <present>)` with declared > present.
    /// - W64: `riff : <declared> (should be <present>)` with declared > present (libsndfile does
    ///   not annotate the W64 `data` line).
    /// - RF64: `Calculated frame count <present> does not match value from 'ds64' chunk of
    ///   <declared>` with declared > present.
    /// - Ogg: `File ended unexpectedly` is truncation; `reports a hole` or `Corrupted bitstream`
    ///   is corruption.
    ///
    ///
    /// Other containers are not checked here: decoders (FLAC) report damage while reading, an
    /// Ogg stream without a final page shows as an unknown length, and a header cut before the
    /// `data` chunk's size shows as 0 frames with a RIFF/FORM size beyond the file (`FileSniff`).
    static func inspect(headerLog log: String, container: AudioFileFormat.Container) -> HeaderFinding? {
        for rawLine in log.split(separator: "\n") {
            let line = rawLine.trimmingSpaces()
            switch container {
            case .wav, .wavex:
                if let sizes = declaredAndPresent(line, chunk: "data"), sizes.declared > sizes.present,
                    !StreamingPlaceholder.contains(sizes.declared)
                {
                    return HeaderFinding(kind: .truncated, evidence: line)
                }
            case .aiff:
                if let sizes = declaredAndPresent(line, chunk: "SSND"), sizes.declared > sizes.present {
                    return HeaderFinding(kind: .truncated, evidence: line)
                }
            case .w64:
                if let sizes = declaredAndPresent(line, chunk: "riff"), sizes.declared > sizes.present {
                    return HeaderFinding(kind: .truncated, evidence: line)
                }
            case .rf64:
                if line.contains("does not match value from 'ds64' chunk of"),
                    let present = number(after: "frame count ", in: line),
                    let declared = number(after: "chunk of ", in: line), declared > present
                {
                    return HeaderFinding(kind: .truncated, evidence: line)
                }
            case .ogg:
                if line.contains("File ended unexpectedly") {
                    return HeaderFinding(kind: .truncated, evidence: line)
                }
                if line.contains("reports a hole") || line.contains("Corrupted bitstream") {
                    return HeaderFinding(kind: .corrupt, evidence: line)
                }
            default:
                continue
            }
        }
        return nil
    }

    /// Parses `<chunk> : <declared> (should be <present>)`.
    private static func declaredAndPresent(_ line: String, chunk: String) -> (declared: UInt64, present: UInt64)? {
        guard line.hasPrefix(chunk + " "), line.contains("(should be"),
            let declared = number(after: ": ", in: line),
            let present = number(after: "(should be ", in: line)
        else { return nil }
        return (declared, present)
    }

    /// The decimal number right after the first occurrence of `marker` in `line`.
    private static func number(after marker: String, in line: String) -> UInt64? {
        guard let range = line.firstRange(of: marker) else { return nil }
        let digits = line[range.upperBound...].prefix(while: \.isASCIIDigit)
        return UInt64(digits)
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
