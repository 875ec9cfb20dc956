import DSPAnalysis
import DSPCore

/// One file's record: what `dspscore` writes per input file.
///
/// Field names are the JSON keys (snake_case, NeMo/Lhotse style `audio_filepath` and
/// `duration`). Levels in dBFS use `null` in JSON where the value is −∞ (digital silence) —
/// JSON has no infinity. A file that could not be scored has `status` `"error"`, an ``error``
/// and no levels.
public struct FileScore: Codable, Equatable, Sendable {
    /// `"ok"` or `"error"`.
    public enum Status: String, Codable, Sendable {
        /// Scored.
        case ok
        /// Could not be scored; see ``FileScore/error``.
        case error
    }

    /// Why a file failed.
    public struct Failure: Codable, Equatable, Sendable {
        /// A stable machine-readable kind, e.g. `"truncated"`, `"not_found"`.
        public var kind: String
        /// A human-readable message naming the file and the reason.
        public var message: String
    }

    /// Whole-file levels over every sample of every channel (see ``LevelSummary``).
    public struct Levels: Codable, Equatable, Sendable {
        /// `10·log10(mean x²)` over all finite samples, dBFS; `null` for silence.
        public var rmsDBFS: Double?
        /// ``rmsDBFS`` + 3.01 dB (AES17, sine-referenced); `null` for silence.
        public var rmsDBFSAES17: Double?
        /// Sample peak `20·log10(max |x|)`, dBFS; `null` for silence.
        public var peakDBFS: Double?
        /// Mean of all finite samples (full-scale units).
        public var dcOffset: Double
        /// Samples with |x| ≥ the clip threshold (default 1.0).
        public var clippedSamples: Int
        /// NaN/±Inf samples (float files only), excluded from the other measures.
        public var nonFiniteSamples: Int
        /// The loudest 1024-frame block's RMS, dBFS; `null` when none is above silence.
        public var loudestFrameRMSDBFS: Double?
        /// The quietest 1024-frame block's RMS, dBFS (a rough noise floor); `null` for silence.
        public var quietestFrameRMSDBFS: Double?

        enum CodingKeys: String, CodingKey {
            case rmsDBFS = "rms_dbfs"
            case rmsDBFSAES17 = "rms_dbfs_aes17"
            case peakDBFS = "peak_dbfs"
            case dcOffset = "dc_offset"
            case clippedSamples = "clipped_samples"
            case nonFiniteSamples = "non_finite_samples"
            case loudestFrameRMSDBFS = "loudest_frame_rms_dbfs"
            case quietestFrameRMSDBFS = "quietest_frame_rms_dbfs"
        }

        /// Encodes every field, writing `null` (not omitting the key) for −∞ levels.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(rmsDBFS, forKey: .rmsDBFS)
            try container.encode(rmsDBFSAES17, forKey: .rmsDBFSAES17)
            try container.encode(peakDBFS, forKey: .peakDBFS)
            try container.encode(dcOffset, forKey: .dcOffset)
            try container.encode(clippedSamples, forKey: .clippedSamples)
            try container.encode(nonFiniteSamples, forKey: .nonFiniteSamples)
            try container.encode(loudestFrameRMSDBFS, forKey: .loudestFrameRMSDBFS)
            try container.encode(quietestFrameRMSDBFS, forKey: .quietestFrameRMSDBFS)
        }
    }

    /// Loudness per ITU-R BS.1770-4 / EBU R128 (see ``LoudnessSummary``).
    public struct Loudness: Codable, Equatable, Sendable {
        /// Integrated (gated) loudness, LUFS; `null` when every block is below the −70 LUFS gate.
        public var integratedLUFS: Double?
        /// Loudness range (EBU Tech 3342), LU.
        public var loudnessRangeLU: Double
        /// Maximum true peak over channels (BS.1770-4 Annex 2, 4× oversampling below 96 kHz), dBTP; `null` for silence.
        public var truePeakDBTP: Double?
        /// Maximum momentary (400 ms) loudness, LUFS; `null` for silence.
        public var maxMomentaryLUFS: Double?
        /// Maximum short-term (3 s) loudness, LUFS; `null` for silence.
        public var maxShortTermLUFS: Double?
        /// The channel weighting used: `mono`, `stereo`, `5.0`, `5.1`, or `equal` (other counts).
        public var channelLayout: String

        enum CodingKeys: String, CodingKey {
            case integratedLUFS = "integrated_lufs"
            case loudnessRangeLU = "loudness_range_lu"
            case truePeakDBTP = "true_peak_dbtp"
            case maxMomentaryLUFS = "max_momentary_lufs"
            case maxShortTermLUFS = "max_short_term_lufs"
            case channelLayout = "channel_layout"
        }

        /// Encodes every field, writing `null` (not omitting the key) for −∞.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(integratedLUFS, forKey: .integratedLUFS)
            try container.encode(loudnessRangeLU, forKey: .loudnessRangeLU)
            try container.encode(truePeakDBTP, forKey: .truePeakDBTP)
            try container.encode(maxMomentaryLUFS, forKey: .maxMomentaryLUFS)
            try container.encode(maxShortTermLUFS, forKey: .maxShortTermLUFS)
            try container.encode(channelLayout, forKey: .channelLayout)
        }
    }

    /// Where the record came from.
    public struct Provenance: Codable, Equatable, Sendable {
        /// `"SpeechDSP"`.
        public var library: String
        /// ``SpeechDSPVersion/current`` for records this build writes.
        public var version: String
        /// Sample frames per analysis frame.
        public var frameLength: Int
        /// |x| at or above which a sample counts as clipped.
        public var clipThreshold: Float
        /// The analyses run, comma-separated (`levels,loudness,speech,music,speakers`); absent
        /// in records written before the field existed.
        public var analyses: String? = nil

        /// A fingerprint of everything above (library, version, frame length, clip threshold,
        /// analyses): 16 lowercase hex digits, the 64-bit FNV-1a hash of
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
        public var configurationDescription: String {
            "library=\(library);version=\(version);frame_length=\(frameLength);clip_threshold=\(clipThreshold);analyses=\(analyses ?? "")"
        }

        enum CodingKeys: String, CodingKey {
            case library, version, analyses
            case frameLength = "frame_length"
            case clipThreshold = "clip_threshold"
            case configurationHash = "config_hash"
        }

        /// Creates a provenance; the hash follows from the fields.
        public init(
            library: String = "SpeechDSP", version: String = SpeechDSPVersion.current, frameLength: Int,
            clipThreshold: Float, analyses: String? = nil
        ) {
            self.library = library
            self.version = version
            self.frameLength = frameLength
            self.clipThreshold = clipThreshold
            self.analyses = analyses
        }

        /// Reads the fields (a `config_hash` present is ignored: it is recomputed).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            library = try container.decode(String.self, forKey: .library)
            version = try container.decode(String.self, forKey: .version)
            frameLength = try container.decode(Int.self, forKey: .frameLength)
            clipThreshold = try container.decode(Float.self, forKey: .clipThreshold)
            analyses = try container.decodeIfPresent(String.self, forKey: .analyses)
        }

        /// Writes the fields and `config_hash`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(library, forKey: .library)
            try container.encode(version, forKey: .version)
            try container.encode(frameLength, forKey: .frameLength)
            try container.encode(clipThreshold, forKey: .clipThreshold)
            try container.encodeIfPresent(analyses, forKey: .analyses)
            try container.encode(configurationHash, forKey: .configurationHash)
        }
    }

    /// The path as given (directories expanded to the files found in them).
    public var audioFilepath: String
    /// Duration in seconds (frames ÷ sample rate); 0 for a failed file.
    public var duration: Double
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
    /// Loudness; absent for failed files and for rates the loudness meter does not take
    /// (below 8 kHz).
    public var loudness: Loudness?
    /// Speech, music and multi-speaker detection; absent for failed files, when no detection
    /// was asked for, and for sample rates the resampler cannot bring to 16 kHz.
    public var detection: Detection?
    /// The acoustic environment; absent where ``detection`` is, and when not asked for.
    public var environment: Environment?
    /// `ok` or `error`.
    public var status: Status
    /// The failure, for `status == .error`.
    public var error: Failure?
    /// Library version and configuration.
    public var provenance: Provenance
    /// The detection segments, when the scorer was asked to keep them (not part of the
    /// JSON record; `dspscore --timeline` and `--rttm` write them).
    public var segments: DetectionSegments? = nil

    enum CodingKeys: String, CodingKey {
        case audioFilepath = "audio_filepath"
        case duration
        case sampleRate = "sample_rate"
        case channels, frames, format, levels, loudness, detection, environment, status, error, provenance
    }
}

extension FileScore.Levels {
    /// Levels from a stream summary; −∞ becomes `nil`.
    public init(_ summary: LevelSummary) {
        func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }
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
    /// Loudness from a meter summary; −∞ becomes `nil`.
    public init(_ summary: LoudnessSummary, channelLayout: String) {
        func finite(_ value: Double?) -> Double? { value.flatMap { $0.isFinite ? $0 : nil } }
        integratedLUFS = finite(summary.integratedLUFS)
        loudnessRangeLU = summary.loudnessRangeLU
        truePeakDBTP = finite(summary.truePeakDBTP)
        maxMomentaryLUFS = finite(summary.maxMomentaryLUFS)
        maxShortTermLUFS = finite(summary.maxShortTermLUFS)
        self.channelLayout = channelLayout
    }
}
