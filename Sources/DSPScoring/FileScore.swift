import DSPAnalysis
import DSPCore

/// One file's record: what `dspscore` writes per input file.
///
/// Field names are the JSON keys (snake_case, NeMo/Lhotse style `audio_filepath` and
/// `duration`). A file that could not be scored has `status` `"error"`, an ``error`` and no
/// levels.
///
/// **Every number is a true value or an explicit absence with one meaning.** A level in dB
/// (dBFS, LUFS, dBTP) is `null` exactly when it is −∞ — digital silence, or for
/// `integrated_lufs` no 400 ms block above the −70 LUFS gate — which JSON cannot write; other
/// nullable fields (`music_ratio`, `speech_clarity`, …) state their one reason in their row.
/// An analysis that was asked for but could not be done is left out and named in
/// ``notMeasured`` with the reason (the rate, the length, no finite sample); one not asked for
/// is left out and absent from `provenance.analyses`. An analysis result that is NaN, +∞ or
/// outside its field's range makes the record an error (`non_finite_result`,
/// `out_of_range_result`) naming the field, so no `ok` record carries one.
///
/// Each part's fields are described once, in its `record` table (the JSON key, the stored
/// property, why a value may be missing, the schema terms, the CSV column); the JSON writer,
/// `Codable`, ``jsonSchema``, the CSV columns and ``firstNonFiniteField`` derive from the tables.
/// A new field is its stored property plus one row.
public struct FileScore: Codable, Equatable, Sendable {
    /// `"ok"` or `"error"`.
    public enum Status: String, Codable, CaseIterable, Sendable {
        /// Scored.
        case ok
        /// Could not be scored; see ``FileScore/error``.
        case error
    }

    /// Why a file failed.
    public struct Failure: Codable, Equatable, Sendable {
        /// A stable machine-readable kind, e.g. `"truncated"`, `"not_found"`.
        public var kind: String = ""
        /// A human-readable message naming the file and the reason.
        public var message: String = ""

        static let record = RecordDescription<Self>([
            .identifier(
                "kind", \.kind,
                values: [
                    "not_found", "permission_denied", "is_directory", "empty", "truncated", "corrupt", "unsupported_format",
                    "invalid_parameters", "io_failure", "closed", "unsupported", "too_short", "not_regular_file", "non_finite_result",
                    "out_of_range_result", "segment_out_of_range", "manifest_mismatch", "unsupported_source",
                ], csv: .named("error_kind"),
                "unsupported: no analysis asked for can be done on the file (its rate, or no finite sample); "
                    + "segment_out_of_range: the manifest's segment starts after the file's end or ends more than 25 ms past it; "
                    + "manifest_mismatch: the file has another sample rate than the line's sampling_rate, or lacks a channel the line takes; "
                    + "unsupported_source: the manifest line names audio that is not one file (a Lhotse url, command or memory source, several source files, transforms, a MixedCut); "
                    + "empty: no frames (in the file, or in the segment); "
                    + "too_short: written by earlier builds for files under 64 ms, which are now scored; "
                    + "non_finite_result / out_of_range_result: an analysis result was NaN or infinite / outside its range."),
            .text("message", \.message, csv: .named("error_message")),
        ])
    }

    /// Why an analysis that was asked for is not in the record: one reason per analysis, `nil`
    /// for the analyses that were done (or not asked for).
    public struct NotMeasured: Codable, Equatable, Sendable {
        /// The reasons.
        public enum Reason: String, CaseIterable, Sendable {
            /// The analysis does not take the file's sample rate (loudness below 8 kHz; detection
            /// where the resampler cannot reach 16 kHz).
            case unsupportedSampleRate = "unsupported_sample_rate"
            /// The file is shorter than the analysis needs (loudness: one 400 ms block;
            /// detection: one 64 ms frame at 16 kHz; environment: one measurement).
            case tooShort = "too_short"
            /// Every sample is NaN or infinite, so nothing about the signal can be said.
            case noFiniteSamples = "no_finite_samples"
        }

        /// Why ``FileScore/levels`` is absent.
        public var levels: String?
        /// Why ``FileScore/loudness`` is absent.
        public var loudness: String?
        /// Why ``FileScore/detection`` is absent.
        public var detection: String?
        /// Why ``FileScore/environment`` is absent.
        public var environment: String?

        /// Whether no reason is set.
        public var isEmpty: Bool { levels == nil && loudness == nil && detection == nil && environment == nil }

        static let record = RecordDescription<Self>([
            .identifier("levels", \.levels, absent: "when levels were measured or not asked for", values: Reason.allCases.map(\.rawValue),
                        csv: .named("levels_not_measured")),
            .identifier("loudness", \.loudness, absent: "when loudness was measured or not asked for", values: Reason.allCases.map(\.rawValue),
                        csv: .named("loudness_not_measured")),
            .identifier("detection", \.detection, absent: "when detection ran or none was asked for", values: Reason.allCases.map(\.rawValue),
                        csv: .named("detection_not_measured")),
            .identifier("environment", \.environment, absent: "when the environment was measured or not asked for",
                        values: Reason.allCases.map(\.rawValue), csv: .named("environment_not_measured")),
        ])
    }

    /// Whole-file levels over every sample of every channel (see ``/DSPAnalysis/LevelSummary``).
    public struct Levels: Codable, Equatable, Sendable {
        /// `10·log10(mean x²)` over all finite samples, dBFS; `null` for silence.
        public var rmsDBFS: Double?
        /// ``rmsDBFS`` + 3.01 dB (AES17, sine-referenced); `null` for silence.
        public var rmsDBFSAES17: Double?
        /// Sample peak `20·log10(max |x|)`, dBFS; `null` for silence.
        public var peakDBFS: Double?
        /// Mean of all finite samples (full-scale units).
        public var dcOffset: Double = 0
        /// Samples with |x| ≥ the clip threshold (default 1.0).
        public var clippedSamples: Int = 0
        /// NaN/±Inf samples (float files only), excluded from the other measures.
        public var nonFiniteSamples: Int = 0
        /// The loudest 1024-frame block's RMS, dBFS; `null` when none is above silence.
        public var loudestFrameRMSDBFS: Double?
        /// The quietest 1024-frame block's RMS, dBFS (a rough noise floor); `null` for silence.
        public var quietestFrameRMSDBFS: Double?

        static let record = RecordDescription<Self>([
            .number("rms_dbfs", \.rmsDBFS, null: "for digital silence (−∞)", csv: .column,
                    "10*log10(mean x^2) over all samples of all channels, dBFS."),
            .number("rms_dbfs_aes17", \.rmsDBFSAES17, null: "for digital silence (−∞)", csv: .column,
                    "rms_dbfs + 3.01 dB (sine-referenced, AES17)."),
            .number("peak_dbfs", \.peakDBFS, null: "for digital silence (−∞)", csv: .column, "Sample peak 20*log10(max |x|), dBFS."),
            .number("dc_offset", \.dcOffset, csv: .column, "Mean sample value, full-scale units."),
            .integer("clipped_samples", \.clippedSamples, minimum: 0, csv: .column, "Samples with |x| >= clip_threshold."),
            .integer("non_finite_samples", \.nonFiniteSamples, minimum: 0, csv: .column,
                     "NaN or infinite samples (float files), excluded from the levels."),
            .number("loudest_frame_rms_dbfs", \.loudestFrameRMSDBFS, null: "when no block is above digital silence", csv: .column,
                    "Largest RMS over frame_length-frame blocks, dBFS."),
            .number("quietest_frame_rms_dbfs", \.quietestFrameRMSDBFS, null: "for digital silence (−∞)", csv: .column,
                    "Smallest RMS over frame_length-frame blocks, dBFS."),
        ])

    }

    /// Loudness per ITU-R BS.1770-5 / EBU R128 (see ``/DSPAnalysis/LoudnessSummary``).
    public struct Loudness: Codable, Equatable, Sendable {
        /// Integrated (gated) loudness, LUFS; `null` when every block is below the −70 LUFS gate.
        public var integratedLUFS: Double?
        /// Loudness range (EBU Tech 3342), LU.
        public var loudnessRangeLU: Double = 0
        /// Maximum true peak over channels (BS.1770-5 Annex 2, 4× oversampling below 96 kHz),
        /// dBTP; −∞ for digital silence (written `null`); `nil` (left out) when the true_peak
        /// analysis is off — the convention of ``/DSPAnalysis/LoudnessSummary/truePeakDBTP``.
        public var truePeakDBTP: Double?
        /// Maximum momentary (400 ms) loudness, LUFS; `null` for silence.
        public var maxMomentaryLUFS: Double?
        /// Maximum short-term (3 s) loudness, LUFS; `null` for silence.
        public var maxShortTermLUFS: Double?
        /// The channel weighting used: `mono`, `stereo`, `5.0`, `5.1`, or `equal` (other counts).
        public var channelLayout: String = ""

        static let record = RecordDescription<Self>([
            .number("integrated_lufs", \.integratedLUFS, null: "when all blocks are below the -70 LUFS gate", csv: .column,
                    "Integrated (gated) loudness, LUFS; null when all blocks are below the -70 LUFS gate."),
            .number("loudness_range_lu", \.loudnessRangeLU, minimum: 0, csv: .column, "Loudness range (EBU Tech 3342), LU."),
            .level("true_peak_dbtp", \.truePeakDBTP, absent: "when the true_peak analysis is off", null: "for digital silence (−∞)", csv: .column,
                   "Maximum true peak over channels (4x oversampled below 96 kHz), dBTP; null for digital silence (-inf); absent when the true_peak analysis is off."),
            .number("max_momentary_lufs", \.maxMomentaryLUFS, null: "for digital silence (−∞)",
                    "Maximum momentary (400 ms) loudness, LUFS."),
            .number("max_short_term_lufs", \.maxShortTermLUFS, null: "for digital silence (−∞)",
                    "Maximum short-term (3 s) loudness, LUFS."),
            .identifier("channel_layout", \.channelLayout, values: ["mono", "stereo", "5.0", "5.1", "equal"],
                        "BS.1770 channel weighting used."),
        ])

    }

    /// Where the record came from.
    public struct Provenance: Codable, Equatable, Sendable {
        /// `"SpeechDSP"`.
        public var library: String
        /// ``/DSPCore/SpeechDSPVersion/current`` for records this build writes.
        public var version: String
        /// Sample frames per analysis frame.
        public var frameLength: Int
        /// |x| at or above which a sample counts as clipped.
        public var clipThreshold: Float
        /// The analyses run, comma-separated (`levels,loudness,speech,music,speakers`); absent
        /// in records written before the field existed.
        public var analyses: String? = nil
        /// The scoring options that change results, comma-separated (`no_looped_backgrounds`:
        /// ``FileScorer/Configuration/loopedBackgrounds`` off; `no_speech_blend`:
        /// ``FileScorer/Configuration/speechBlend`` off; `no_pure_tone_gate`:
        /// ``FileScorer/Configuration/pureToneGate`` off; `speech_segments:on=…:off=…:…`:
        /// ``FileScorer/Configuration/speechSegments`` other than the default, every setting
        /// given); absent when none was set.
        /// (Records written before 2026-12-04 may say `looped_backgrounds`, and before 2026-12-07
        /// `speech_blend`: each was then an option, and is now the default.)
        public var options: String? = nil

        /// A fingerprint of everything above (library, version, frame length, clip threshold,
        /// analyses, options): 16 lowercase hex digits, the 64-bit FNV-1a hash of
        /// ``configurationDescription``'s UTF-8. Records with equal hashes were scored the same way,
        /// so shards and reruns can be checked at a glance (`dspscore merge` requires one).
        /// Written as `config_hash`; computed from the fields, never read back.
        public var configurationHash: String {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in configurationDescription.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
            let hex = String(hash, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }

        /// The canonical text the hash is taken of, e.g.
        /// `library=SpeechDSP;version=0.1.0;frame_length=1024;clip_threshold=1.0;analyses=levels,loudness`
        /// (the clip threshold as Swift prints a `Float`: the shortest text that reads back exactly).
        /// `;options=…` follows only when ``options`` is set, so records scored without one keep the
        /// hash they had before the field existed.
        public var configurationDescription: String {
            "library=\(library);version=\(version);frame_length=\(frameLength);clip_threshold=\(clipThreshold);analyses=\(analyses ?? "")"
                + (options.map { ";options=\($0)" } ?? "")
        }

        /// Creates a provenance; the hash follows from the fields.
        public init(
            library: String = "SpeechDSP", version: String = SpeechDSPVersion.current, frameLength: Int,
            clipThreshold: Float, analyses: String? = nil, options: String? = nil
        ) {
            self.library = library
            self.version = version
            self.frameLength = frameLength
            self.clipThreshold = clipThreshold
            self.analyses = analyses
            self.options = options
        }

        /// A blank provenance the decoder fills in.
        init() { self.init(frameLength: 0, clipThreshold: 0) }

        static let record = RecordDescription<Self>([
            .text("library", \.library, constant: "SpeechDSP"),
            .text("version", \.version),
            .integer("frame_length", \.frameLength, minimum: 1),
            .float("clip_threshold", \.clipThreshold, exclusiveMinimum: 0),
            .text("analyses", \.analyses, absent: "in records written before the field existed",
                  "The analyses run, comma-separated (levels, loudness, speech, music, speakers, environment)."),
            .text("options", \.options, absent: "when no option that changes results was set",
                  "Scoring options that change results, comma-separated: no_looped_backgrounds (the noise estimate does not read a looped background by its period, the default since 2026-12-04; older records may say looped_backgrounds, then an option), no_speech_blend (voice activity is the speech model's alone, without the fitted detection network blended in, the default since 2026-12-07: --no-speech-blend; older records may say speech_blend, then an option), no_pure_tone_gate (steady pure tones are not kept out of voice activity, the default since 2026-12-06: --no-pure-tone-gate), no_speech_boundaries (speech segments' edges are the segmenter's, not read from the hops' power, the default since 2026-12-08: --no-speech-boundaries), speech_segments:on=…:off=…:min_seconds=…:hangover_seconds=…:padding_seconds=…:end=… (a voice-activity segmenter other than the default, every setting given; end=none without an end threshold: --speech-segments)."),
            .computed("config_hash", pattern: "^[0-9a-f]{16}$",
                      "64-bit FNV-1a of library, version, frame_length, clip_threshold, analyses and options: equal hashes, same configuration.",
                      \.configurationHash),
        ])

    }

    /// The path as given — on the command line, in a list, or in a manifest line (exactly as
    /// the line wrote it, a relative path still relative; the scorer opens it relative to the
    /// manifest's folder) — with directories expanded to the files found in them. A file name that is
    /// not UTF-8 is written losslessly in DSPIO's `PathBytes` escaping: each byte that is not
    /// part of valid UTF-8 is the scalar U+10FF00 + byte (U+10FF80 … U+10FFFF), and so are the
    /// bytes of those scalars themselves; any other valid UTF-8 name is itself.
    public var audioFilepath: String = ""
    /// Duration in seconds (frames ÷ sample rate); 0 for a failed file.
    public var duration: Double = 0
    /// Sample rate in Hz (`null` when the file could not be opened).
    public var sampleRate: Int?
    /// Channel count (`null` when the file could not be opened).
    public var channels: Int?
    /// Sample frames read (per channel).
    public var frames: Int?
    /// Container/encoding, e.g. `"WAV/PCM 16"`.
    public var format: String?
    /// Levels; absent for failed files.
    public var levels: Levels?
    /// Loudness; absent for failed files, when not asked for, and when ``notMeasured`` says why
    /// (rates below 8 kHz, files shorter than 400 ms, no finite sample).
    public var loudness: Loudness?
    /// Speech, music and multi-speaker detection; absent for failed files, when no detection
    /// was asked for, and when ``notMeasured`` says why (a rate the resampler cannot bring to
    /// 16 kHz, a file shorter than 64 ms, no finite sample).
    public var detection: Detection?
    /// The acoustic environment; absent where ``detection`` is, when not asked for, and when
    /// ``notMeasured`` says why.
    public var environment: Environment?
    /// The analyses asked for that are not in the record, each with its reason; `nil` when every
    /// analysis asked for was done.
    public var notMeasured: NotMeasured?
    /// `ok` or `error`.
    public var status: Status = .ok
    /// The failure, for `status == .error`.
    public var error: Failure?
    /// Library version and configuration.
    public var provenance: Provenance = .init()
    /// The part of the file scored, when the input named one (see ``Segment``).
    public var segment: Segment?
    /// The manifest line the file came from, every field as the line wrote it (see
    /// ``ManifestLine``); `nil` for a file not read from a manifest.
    public var manifest: ManifestLine?
    /// The detection segments, when the scorer was asked to keep them (not part of the
    /// JSON record; `dspscore --timeline` and `--rttm` write them).
    public var segments: DetectionSegments? = nil

    static let record = RecordDescription<Self>([
        .text(
            "audio_filepath", \.audioFilepath, csv: .column,
            "The path as given or found: a manifest line's audio_filepath (NeMo) or source (Lhotse) exactly as written, relative paths kept relative (they are opened relative to the manifest's folder). A name that is not UTF-8 is escaped losslessly: each byte that is not part of valid UTF-8 is the character U+10FF00 + byte (U+10FF80-U+10FFFF), and so are the bytes of those characters themselves; any other valid UTF-8 name is itself."),
        .number("duration", \.duration, minimum: 0, csv: .column, "Seconds: frames / sample_rate; 0 for a failed file."),
        .integer("sample_rate", \.sampleRate, absent: "when the file could not be opened", minimum: 1, csv: .column, "Hz."),
        .integer("channels", \.channels, absent: "when the file could not be opened", minimum: 1, csv: .column),
        .integer("frames", \.frames, absent: "when the file could not be opened", minimum: 0, csv: .column,
                 "Sample frames (per channel) read."),
        .text("format", \.format, absent: "when the file could not be opened", csv: .column, "Container/encoding, e.g. WAV/PCM_16."),
        .object("segment", \.segment, absent: "when the whole file was scored",
                "The frames and channels scored when the manifest line named a segment (NeMo offset/duration, a Lhotse cut's start/duration/channel); frames, duration and channels are then the segment's."),
        .status("status", \.status, csv: .column),
        .object("error", \.error, absent: "when status is ok"),
        .object("levels", \.levels, absent: "for failed files, when not asked for, and when not_measured.levels says why", analysis: true,
                "Levels over every finite sample of every channel. Absent for failed files, when not asked for, and when not_measured.levels says why."),
        .object("loudness", \.loudness, absent: "for failed files, when not asked for, and when not_measured.loudness says why", analysis: true,
                "ITU-R BS.1770-5 / EBU R128. Absent for failed files, when not asked for, and when not_measured.loudness says why (rate below 8 kHz, shorter than 400 ms)."),
        .object("detection", \.detection, absent: "for failed files, when no detection was asked for, and when not_measured.detection says why",
                analysis: true,
                "Voice activity, music and multiple speakers (AcousticDetector on the file mixed to mono at 16 kHz). Absent for failed files, when --analyses has none of speech, music, speakers, and when not_measured.detection says why."),
        .object("environment", \.environment, absent: "where detection is, when not asked for, and when not_measured.environment says why", analysis: true,
                "The acoustic environment: EnvironmentAnalyzer fed by the detectors on 1024-sample frames at 16 kHz, measured twice a second, summarised over the file. Absent where detection is, when --analyses lacks environment, and when not_measured.environment says why."),
        .object("not_measured", \.notMeasured, absent: "when every analysis asked for was done",
                "Analyses asked for (provenance.analyses) that are not in the record, each with its reason: unsupported_sample_rate, too_short, no_finite_samples."),
        .object("provenance", \.provenance),
        .json("manifest", \.manifest, absent: "when the file was not read from a manifest",
              "The manifest line the file came from, verbatim: every field, nested ones included, as the line wrote it (the same key order and number spelling). In CSV, the JSON text."),
    ])

}

extension FileScore.Levels {
    /// Levels from a stream summary; −∞ becomes `nil` (written `null`). NaN and +∞ are kept, so
    /// ``FileScore/withholdingNonFiniteResults()`` turns the record into an error naming them.
    public init(_ summary: LevelSummary) {
        func finite(_ value: Double) -> Double? { value == -.infinity ? nil : value }
        rmsDBFS = finite(summary.overall.rmsDBFS)
        rmsDBFSAES17 = finite(summary.overall.rmsDBFSSineReferenced)
        peakDBFS = finite(summary.overall.peakDBFS)
        dcOffset = summary.overall.dcOffset
        clippedSamples = summary.overall.clippedCount
        nonFiniteSamples = summary.overall.nonFiniteCount
        loudestFrameRMSDBFS = finite(summary.loudestFrameRMSDBFS)
        quietestFrameRMSDBFS = finite(summary.quietestFrameRMSDBFS)
    }
}

extension FileScore.Loudness {
    /// Loudness from a meter summary; −∞ becomes `nil` (written `null`), except in
    /// ``truePeakDBTP``, which keeps −∞ (also written `null`) and is `nil` only when not
    /// measured. NaN and +∞ are kept, so ``FileScore/withholdingNonFiniteResults()`` turns the
    /// record into an error naming them.
    public init(_ summary: LoudnessSummary, channelLayout: String) {
        func finite(_ value: Double) -> Double? { value == -.infinity ? nil : value }
        integratedLUFS = finite(summary.integratedLUFS)
        loudnessRangeLU = summary.loudnessRangeLU
        truePeakDBTP = summary.truePeakDBTP
        maxMomentaryLUFS = finite(summary.maxMomentaryLUFS)
        maxShortTermLUFS = finite(summary.maxShortTermLUFS)
        self.channelLayout = channelLayout
    }
}

extension FileScore: RecordPart {}
extension FileScore.Failure: RecordPart {}
extension FileScore.Levels: RecordPart {}
extension FileScore.NotMeasured: RecordPart {}
extension FileScore.Loudness: RecordPart {}
extension FileScore.Provenance: RecordPart {}
