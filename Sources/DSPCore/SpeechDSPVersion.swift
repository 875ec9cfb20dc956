/// The library's version, recorded in every output's provenance.
public enum SpeechDSPVersion {
    /// Semantic version of this build of SpeechDSP.
    public static let current = "0.1.0"
}
