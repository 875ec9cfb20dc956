// A record whose analysis produced a number that cannot be true — NaN or ±∞ (+∞ or NaN where
// only −∞ is written, as null, for a level), or a value outside the field's range — becomes an
// error record that says which field, instead of carrying the value or vanishing.

extension FileScore {
    /// The JSON key path of the first analysis number that is NaN or ±∞ (e.g.
    /// `"loudness.loudness_range_lu"`), or `nil` when every one is finite: the analysis parts in
    /// table order, each one's numbers in key order. −∞ in a level field is a value (written
    /// `null`: digital silence) and `nil` is absence, so neither is reported. `duration` and the
    /// provenance are not analysis results and are not looked at.
    public var firstNonFiniteField: String? {
        firstAnalysisField { $0.firstNonFiniteKey(at: $1, optional: $2) }
    }

    /// The JSON key path of the first finite analysis number outside its field's range (a ratio
    /// above 1, a negative loudness range, …: the `minimum` and `maximum` of the schema), or `nil`.
    public var firstOutOfRangeField: String? {
        firstAnalysisField { $0.firstOutOfRangeKey(at: $1, optional: $2) }
    }

    private func firstAnalysisField(_ find: (any RecordPart.Type, UnsafeRawPointer, Bool) -> String?) -> String? {
        withUnsafeBytes(of: self) { raw in
            guard let base = raw.baseAddress else { return nil }
            for field in Self.record.fields where field.info.isAnalysisResult {
                guard let child = field.info.child else { continue }
                if let key = find(child, base + field.offset, field.isOptional) { return field.info.name + "." + key }
            }
            return nil
        }
    }

    /// This record as an error record when an analysis number cannot be true: kind
    /// `"non_finite_result"` when one is NaN or ±∞ (``firstNonFiniteField``; JSON cannot hold
    /// it), `"out_of_range_result"` when one is outside its field's range
    /// (``firstOutOfRangeField``). The file's identity, rate, channels, frames, duration,
    /// format and provenance stay, the analysis results are withheld, and the message names the
    /// field. Unchanged otherwise. `FileScorer` applies it to every record it makes, so such a
    /// file counts as failed; ``ScoreFormatting/jsonLine(_:)`` applies it when a number is not
    /// finite (JSON cannot hold it).
    public func withholdingNonFiniteResults() -> FileScore {
        let kind: String
        let field: String
        let reason: String
        if let nonFinite = firstNonFiniteField {
            (kind, field, reason) = ("non_finite_result", nonFinite, "came out as NaN or infinity, which JSON cannot hold")
        } else if let outOfRange = firstOutOfRangeField {
            (kind, field, reason) = ("out_of_range_result", outOfRange, "came out outside its range")
        } else {
            return self
        }
        var record = self
        for field in Self.record.fields where field.info.isAnalysisResult { field.clear?(&record) }
        record.segments = nil
        record.notMeasured = nil
        record.status = .error
        record.error = Failure(
            kind: kind, message: "\(audioFilepath): \(field) \(reason); the file's analysis results are withheld")
        return record
    }
}

extension FileScore {
    /// For a record read back: the JSON key path of the first number that breaks the schema —
    /// a top-level number (`duration`, `sample_rate`, …) or an analysis number outside its range,
    /// or an analysis number that is NaN or +∞ — or `nil`. `dspscore merge` and `--resume` refuse
    /// such a line rather than pass it on.
    public var firstSchemaViolation: String? {
        if let field = firstNonFiniteField ?? firstOutOfRangeField { return field }
        return withUnsafeBytes(of: self) { raw in raw.baseAddress.flatMap { Self.firstOutOfRangeKey(at: $0, optional: false) } }
    }
}
