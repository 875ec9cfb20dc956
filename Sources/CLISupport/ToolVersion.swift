import DSPCore

/// What `--version` prints: the library version and the git revision the tool was built from.
package enum ToolVersion {
    /// `dspscore (SpeechDSP 0.1.0, git fb18868c3e12)`; `git unknown` for a build without a .git
    /// (a source tarball). The revision is ``BuildRevision/commit``, generated at build time by
    /// GitRevisionPlugin.
    package static func text(tool: String) -> String { text(tool: tool, revision: BuildRevision.commit) }

    /// The version text for `revision` (a hash is shortened to its first 12 digits).
    package static func text(tool: String, revision: String) -> String {
        let shown = revision == "unknown" ? revision : String(revision.prefix(12))
        return "\(tool) (SpeechDSP \(SpeechDSPVersion.current), git \(shown))"
    }
}
