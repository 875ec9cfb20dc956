// The JSON Lines record, written by hand: the bytes `JSONEncoder` writes with
// `[.sortedKeys, .withoutEscapingSlashes]` for a `FileScore`, without its per-record set-up
// (an encoder, a boxed value tree, a key sort per object). Tests compare the two on records of
// every shape (ScoreFormattingJSONTests).

extension ScoreFormatting {
    /// A record as one JSON object: the same bytes as `JSONEncoder` with
    /// `[.sortedKeys, .withoutEscapingSlashes]` (keys in byte order, `nil` optionals of the
    /// record and of ``FileScore/Provenance`` omitted, the nested objects' `nil` fields written
    /// as `null`, numbers as Swift's shortest round-trip `description` without a trailing
    /// `.0`, strings escaped as `JSONEncoder` escapes them). A record holding NaN or ±∞ in an
    /// analysis number is written as its error record instead
    /// (``FileScore/withholdingNonFiniteResults()``: kind `non_finite_result`, naming the
    /// field; `FileScorer` never hands one over otherwise). Only a hand-built record with a
    /// non-finite `duration` or provenance clip threshold still gives `{}`, as the encoder
    /// (whose default strategy throws on a non-finite number) would.
    static func encodeJSON(_ score: FileScore) -> String {
        var json = JSONRecordWriter()
        json.write(score)
        if !json.failed { return String(decoding: json.bytes, as: UTF8.self) }
        let withheld = score.withholdingNonFiniteResults()
        guard withheld != score else { return "{}" }
        json = JSONRecordWriter()
        json.write(withheld)
        return json.failed ? "{}" : String(decoding: json.bytes, as: UTF8.self)
    }
}

/// Appends the JSON text of a ``FileScore`` to a byte array, keys in sorted order.
struct JSONRecordWriter {
    var bytes: [UInt8] = []
    /// A number field held NaN or ±∞ (JSON has no such numbers).
    var failed = false
    /// Whether the current object has a member yet (a comma goes before the next).
    private var needsComma = false

    init() { bytes.reserveCapacity(1024) }

    mutating func write(_ score: FileScore) {
        open()
        key("audio_filepath"); string(score.audioFilepath)
        if let channels = score.channels { key("channels"); integer(channels) }
        if let detection = score.detection {
            key("detection"); open()
            key("multi_speaker_ratio"); number(detection.multiSpeakerRatio)
            key("music_ratio"); number(detection.musicRatio)
            key("noise_floor_dbfs"); number(detection.noiseFloorDBFS)
            key("speech_ratio"); number(detection.speechRatio)
            key("speech_seconds"); number(detection.speechSeconds)
            key("speech_segments"); integer(detection.speechSegments)
            close()
        }
        key("duration"); number(score.duration)
        if let environment = score.environment {
            key("environment"); open()
            key("category_key"); string(environment.categoryKey)
            key("frequency_complexity"); number(environment.frequencyComplexity)
            key("measurements"); integer(environment.measurements)
            key("noise_category"); string(environment.noiseCategory)
            key("noise_dbfs"); number(environment.noiseDBFS)
            key("recommendation"); string(environment.recommendation)
            key("speech_clarity"); number(environment.speechClarity)
            close()
        }
        if let error = score.error {
            key("error"); open()
            key("kind"); string(error.kind)
            key("message"); string(error.message)
            close()
        }
        if let format = score.format { key("format"); string(format) }
        if let frames = score.frames { key("frames"); integer(frames) }
        if let levels = score.levels {
            key("levels"); open()
            key("clipped_samples"); integer(levels.clippedSamples)
            key("dc_offset"); number(levels.dcOffset)
            key("loudest_frame_rms_dbfs"); number(levels.loudestFrameRMSDBFS)
            key("non_finite_samples"); integer(levels.nonFiniteSamples)
            key("peak_dbfs"); number(levels.peakDBFS)
            key("quietest_frame_rms_dbfs"); number(levels.quietestFrameRMSDBFS)
            key("rms_dbfs"); number(levels.rmsDBFS)
            key("rms_dbfs_aes17"); number(levels.rmsDBFSAES17)
            close()
        }
        if let loudness = score.loudness {
            key("loudness"); open()
            key("channel_layout"); string(loudness.channelLayout)
            key("integrated_lufs"); number(loudness.integratedLUFS)
            key("loudness_range_lu"); number(loudness.loudnessRangeLU)
            key("max_momentary_lufs"); number(loudness.maxMomentaryLUFS)
            key("max_short_term_lufs"); number(loudness.maxShortTermLUFS)
            key("true_peak_dbtp"); number(loudness.truePeakDBTP)
            close()
        }
        let provenance = score.provenance
        key("provenance"); open()
        if let analyses = provenance.analyses { key("analyses"); string(analyses) }
        key("clip_threshold"); float(provenance.clipThreshold)
        key("config_hash"); string(provenance.configurationHash)
        key("frame_length"); integer(provenance.frameLength)
        key("library"); string(provenance.library)
        key("version"); string(provenance.version)
        close()
        if let sampleRate = score.sampleRate { key("sample_rate"); integer(sampleRate) }
        key("status"); string(score.status.rawValue)
        close()
    }

    private mutating func open() {
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    private mutating func close() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// `"name":`, after a comma unless first in its object. Names are ASCII without escapes.
    private mutating func key(_ name: StaticString) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = true
    }

    private mutating func integer(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// `null`, or the number as `JSONEncoder` writes it.
    private mutating func number(_ value: Double?) {
        guard let value else {
            bytes.append(contentsOf: "null".utf8)
            return
        }
        number(value)
    }

    /// Swift's `description` (shortest digits that round-trip) with a trailing `.0` removed,
    /// as `JSONEncoder` does; non-finite values fail the record.
    private mutating func number(_ value: Double) {
        guard value.isFinite else {
            failed = true
            return
        }
        appendTrimmed(value.description)
    }

    private mutating func float(_ value: Float) {
        guard value.isFinite else {
            failed = true
            return
        }
        appendTrimmed(value.description)
    }

    private mutating func appendTrimmed(_ text: String) {
        var utf8 = Substring(text).utf8
        if utf8.count >= 2, utf8.last == UInt8(ascii: "0"), utf8[utf8.index(utf8.endIndex, offsetBy: -2)] == UInt8(ascii: ".") {
            utf8 = utf8.dropLast(2)
        }
        bytes.append(contentsOf: utf8)
    }

    /// A JSON string: `"` and `\` escaped, `\b \f \n \r \t` for those controls, `\u00xx`
    /// (lowercase hex) for the other controls below U+0020; `/`, DEL and non-ASCII as they are.
    private mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var start = 0
            for (i, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i]))
                start = i + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 15)]])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
