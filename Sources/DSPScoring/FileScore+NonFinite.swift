// A record whose analysis produced NaN or ±∞ in a number field: JSON cannot hold it, so the
// record becomes an error record that says which field, instead of vanishing.

extension FileScore {
    /// The JSON key path of the first analysis number that is NaN or ±∞ (e.g.
    /// `"loudness.loudness_range_lu"`), or `nil` when every one is finite: the analysis parts in
    /// table order, each one's numbers in key order. `duration` and the provenance are not
    /// analysis results and are not looked at.
    public var firstNonFiniteField: String? {
        withUnsafeBytes(of: self) { raw in
            guard let base = raw.baseAddress else { return nil }
            for field in Self.record.fields where field.info.isAnalysisResult {
                guard let child = field.info.child else { continue }
                if let key = child.firstNonFiniteKey(at: base + field.offset, optional: field.isOptional) {
                    return field.info.name + "." + key
                }
            }
            return nil
        }
    }

    /// This record as an error record (kind `"non_finite_result"`) when an analysis number is
    /// NaN or ±∞ (``firstNonFiniteField``): the file's identity, rate, channels, frames,
    /// duration, format and provenance stay, the analysis results are withheld, and the message
    /// names the field. Unchanged otherwise. `FileScorer` applies it to every record it makes,
    /// so such a file counts as failed; ``ScoreFormatting/jsonLine(_:)`` applies it too.
    public func withholdingNonFiniteResults() -> FileScore {
        guard let field = firstNonFiniteField else { return self }
        var record = self
        for field in Self.record.fields where field.info.isAnalysisResult { field.clear?(&record) }
        record.segments = nil
        record.status = .error
        record.error = Failure(
            kind: "non_finite_result",
            message: "\(audioFilepath): \(field) came out as NaN or infinity, which JSON cannot hold; the file's analysis results are withheld")
        return record
    }
}
