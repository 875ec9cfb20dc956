import CSndFile

/// The layout of an audio file: a container (major format) and a sample encoding.
///
/// Both halves wrap libsndfile's `SF_FORMAT_*` constants. Like swift-system's `Errno`, they
/// are open sets of static members over a raw value, so a file in a format this list does not
/// name still reports faithfully (as its raw value) instead of failing to open.
///
/// ```swift
/// let reader = try AudioFileReader(path: "take.flac")
/// if reader.format.encoding == .pcm16 { ... }
/// print(reader.format)   // "FLAC/PCM_16"
/// ```
public struct AudioFileFormat: Hashable, Sendable, CustomStringConvertible {
    /// The container, e.g. ``Container/wav``.
    public var container: Container
    /// The sample encoding inside the container, e.g. ``Encoding/pcm16``.
    public var encoding: Encoding

    /// Creates a format from its two halves. Whether libsndfile can write the combination is
    /// checked by ``AudioFileWriter/init(path:format:sampleRate:channelCount:)``.
    public init(container: Container, encoding: Encoding) {
        self.container = container
        self.encoding = encoding
    }

    /// Splits a libsndfile `SF_INFO.format` word into its container (`SF_FORMAT_TYPEMASK`) and
    /// encoding (`SF_FORMAT_SUBMASK`); endianness bits are dropped.
    init(libsndfileFormat format: Int32) {
        self.container = Container(rawValue: format & Int32(SF_FORMAT_TYPEMASK))
        self.encoding = Encoding(rawValue: format & Int32(SF_FORMAT_SUBMASK))
    }

    /// The libsndfile format word (`container | encoding`, file-default endianness).
    var libsndfileFormat: Int32 { container.rawValue | encoding.rawValue }

    /// `"CONTAINER/ENCODING"`, e.g. `"WAV/FLOAT"`, using libsndfile's short names.
    public var description: String { "\(container)/\(encoding)" }

    // MARK: Presets

    /// WAV, 32-bit IEEE float. Lossless for any `Float`, including values beyond ±1.
    public static let wavFloat32 = AudioFileFormat(container: .wav, encoding: .float32)
    /// WAV, signed 16-bit PCM.
    public static let wavPCM16 = AudioFileFormat(container: .wav, encoding: .pcm16)
    /// WAV, signed 24-bit PCM.
    public static let wavPCM24 = AudioFileFormat(container: .wav, encoding: .pcm24)
    /// FLAC, 16-bit.
    public static let flacPCM16 = AudioFileFormat(container: .flac, encoding: .pcm16)
    /// FLAC, 24-bit.
    public static let flacPCM24 = AudioFileFormat(container: .flac, encoding: .pcm24)
    /// Ogg container with Vorbis (lossy) encoding.
    public static let oggVorbis = AudioFileFormat(container: .ogg, encoding: .vorbis)
}

extension AudioFileFormat {
    /// A container (libsndfile "major format", `SF_FORMAT_TYPEMASK` bits).
    public struct Container: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The libsndfile `SF_FORMAT_*` major-format value, e.g. `0x010000` for WAV.
        public var rawValue: Int32

        /// Wraps a libsndfile major-format value.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        private init(_ value: Int) { self.rawValue = Int32(value) }

        /// Microsoft WAV (RIFF), `SF_FORMAT_WAV`.
        public static let wav = Container(SF_FORMAT_WAV)
        /// WAV with `WAVE_FORMAT_EXTENSIBLE`, `SF_FORMAT_WAVEX`.
        public static let wavex = Container(SF_FORMAT_WAVEX)
        /// RF64, the 64-bit WAV of EBU Tech 3306, `SF_FORMAT_RF64`.
        public static let rf64 = Container(SF_FORMAT_RF64)
        /// Sony/Sonic Foundry Wave64, `SF_FORMAT_W64`.
        public static let w64 = Container(SF_FORMAT_W64)
        /// Apple/SGI AIFF and AIFF-C, `SF_FORMAT_AIFF`.
        public static let aiff = Container(SF_FORMAT_AIFF)
        /// Apple Core Audio Format, `SF_FORMAT_CAF`.
        public static let caf = Container(SF_FORMAT_CAF)
        /// Sun/NeXT AU, `SF_FORMAT_AU`.
        public static let au = Container(SF_FORMAT_AU)
        /// Headerless samples, `SF_FORMAT_RAW` (libsndfile can read these only when told the layout).
        public static let raw = Container(SF_FORMAT_RAW)
        /// NIST SPHERE, `SF_FORMAT_NIST`.
        public static let nist = Container(SF_FORMAT_NIST)
        /// FLAC, `SF_FORMAT_FLAC`.
        public static let flac = Container(SF_FORMAT_FLAC)
        /// Xiph Ogg (carrying Vorbis or Opus), `SF_FORMAT_OGG`.
        public static let ogg = Container(SF_FORMAT_OGG)
        /// MPEG-1/2 audio stream, `SF_FORMAT_MPEG` (when libsndfile is built with it).
        public static let mpeg = Container(SF_FORMAT_MPEG)

        /// libsndfile's short name (`"WAV"`, `"FLAC"`, …), or the raw value in hex.
        public var description: String {
            switch self {
            case .wav: "WAV"
            case .wavex: "WAVEX"
            case .rf64: "RF64"
            case .w64: "W64"
            case .aiff: "AIFF"
            case .caf: "CAF"
            case .au: "AU"
            case .raw: "RAW"
            case .nist: "NIST"
            case .flac: "FLAC"
            case .ogg: "OGG"
            case .mpeg: "MPEG"
            default: "0x" + String(UInt32(bitPattern: rawValue), radix: 16, uppercase: true)
            }
        }
    }

    /// A sample encoding (libsndfile "subtype", `SF_FORMAT_SUBMASK` bits).
    public struct Encoding: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The libsndfile `SF_FORMAT_*` subtype value, e.g. `0x0002` for 16-bit PCM.
        public var rawValue: Int32

        /// Wraps a libsndfile subtype value.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        private init(_ value: Int) { self.rawValue = Int32(value) }

        /// Signed 8-bit PCM, `SF_FORMAT_PCM_S8`.
        public static let pcmS8 = Encoding(SF_FORMAT_PCM_S8)
        /// Unsigned 8-bit PCM (WAV's 8-bit), `SF_FORMAT_PCM_U8`.
        public static let pcmU8 = Encoding(SF_FORMAT_PCM_U8)
        /// Signed 16-bit PCM, `SF_FORMAT_PCM_16`.
        public static let pcm16 = Encoding(SF_FORMAT_PCM_16)
        /// Signed 24-bit PCM, `SF_FORMAT_PCM_24`.
        public static let pcm24 = Encoding(SF_FORMAT_PCM_24)
        /// Signed 32-bit PCM, `SF_FORMAT_PCM_32`.
        public static let pcm32 = Encoding(SF_FORMAT_PCM_32)
        /// 32-bit IEEE float, `SF_FORMAT_FLOAT`.
        public static let float32 = Encoding(SF_FORMAT_FLOAT)
        /// 64-bit IEEE float, `SF_FORMAT_DOUBLE`.
        public static let float64 = Encoding(SF_FORMAT_DOUBLE)
        /// G.711 µ-law, `SF_FORMAT_ULAW`.
        public static let ulaw = Encoding(SF_FORMAT_ULAW)
        /// G.711 A-law, `SF_FORMAT_ALAW`.
        public static let alaw = Encoding(SF_FORMAT_ALAW)
        /// IMA ADPCM, `SF_FORMAT_IMA_ADPCM`.
        public static let imaADPCM = Encoding(SF_FORMAT_IMA_ADPCM)
        /// Microsoft ADPCM, `SF_FORMAT_MS_ADPCM`.
        public static let msADPCM = Encoding(SF_FORMAT_MS_ADPCM)
        /// GSM 6.10, `SF_FORMAT_GSM610`.
        public static let gsm610 = Encoding(SF_FORMAT_GSM610)
        /// Xiph Vorbis, `SF_FORMAT_VORBIS`.
        public static let vorbis = Encoding(SF_FORMAT_VORBIS)
        /// Xiph Opus, `SF_FORMAT_OPUS`.
        public static let opus = Encoding(SF_FORMAT_OPUS)
        /// MPEG-1 Audio Layer III, `SF_FORMAT_MPEG_LAYER_III`.
        public static let mpegLayerIII = Encoding(SF_FORMAT_MPEG_LAYER_III)

        /// Whether the encoding stores integer samples (PCM 8…32 bit, µ-law, A-law), so every
        /// sample a reader returns — the integer divided by 2^(bits−1) — is finite. `false` for
        /// the float encodings and for everything else (the lossy codecs decode to floats).
        public var hasIntegerSamples: Bool {
            switch self {
            case .pcmS8, .pcmU8, .pcm16, .pcm24, .pcm32, .ulaw, .alaw: true
            default: false
            }
        }

        /// libsndfile's short name (`"PCM_16"`, `"FLOAT"`, `"VORBIS"`, …), or the raw value in hex.
        public var description: String {
            switch self {
            case .pcmS8: "PCM_S8"
            case .pcmU8: "PCM_U8"
            case .pcm16: "PCM_16"
            case .pcm24: "PCM_24"
            case .pcm32: "PCM_32"
            case .float32: "FLOAT"
            case .float64: "DOUBLE"
            case .ulaw: "ULAW"
            case .alaw: "ALAW"
            case .imaADPCM: "IMA_ADPCM"
            case .msADPCM: "MS_ADPCM"
            case .gsm610: "GSM610"
            case .vorbis: "VORBIS"
            case .opus: "OPUS"
            case .mpegLayerIII: "MPEG_LAYER_III"
            default: "0x" + String(UInt32(bitPattern: rawValue), radix: 16, uppercase: true)
            }
        }
    }
}
