import DSPCore

extension ConfigurationError {
    /// The error in a file's terms, for a record's or a conversion's message: a unit refused
    /// the file's rate or channel count (never a caller's setting, which is checked before any
    /// file is opened), so the message names the file's property, not the unit's field —
    /// `3 channels: this takes 1...64`, not `invalid channelCount: …`.
    func fileDescription(channelCount: Int) -> String {
        switch parameter {
        case "inputRate", "sampleRate": "sample rate \(value) Hz: this takes \(expected) Hz"
        case "channelCount": "\(value) channels: this takes \(expected)"
        case "mode.channel": "no channel \(value) in a \(channelCount)-channel file"
        case "outputRate/inputRate": "the ratio of the output rate to the file's rate is beyond the resampler (\(expected))"
        default: description
        }
    }
}
