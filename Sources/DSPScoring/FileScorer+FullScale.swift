import DSPAnalysis
import DSPIO

// Where clipping is counted: at the encoding's own full-scale codes.

extension FileScorer {
    /// The full scale of samples read from a file of `encoding` (``/DSPIO/AudioFileReader``
    /// delivers `code / 2^(bits−1)`): the rails of 8-, 16-, 24- and 32-bit PCM (+32767/32768 and −1
    /// for 16 bits, so both rails are counted as clipped at the default threshold), ±1 for float
    /// and for the companded and lossy encodings (µ-law, A-law, ADPCM, Vorbis, Opus, MP3), whose
    /// decoded values have no rail the reader can see.
    static func fullScale(of encoding: AudioFileFormat.Encoding) -> SampleFullScale {
        switch encoding {
        case .pcmS8, .pcmU8: .integer(bits: 8)
        case .pcm16: .integer(bits: 16)
        case .pcm24: .integer(bits: 24)
        case .pcm32: .integer(bits: 32)
        default: .float
        }
    }
}
