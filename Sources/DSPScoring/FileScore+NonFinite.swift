// A record whose analysis produced NaN or ±∞ in a number field: JSON cannot hold it, so the
// record becomes an error record that says which field, instead of vanishing.

extension FileScore {
    /// The JSON key path of the first analysis number that is NaN or ±∞ (e.g.
    /// `"loudness.loudness_range_lu"`), or `nil` when every one is finite. `duration` and the
    /// provenance are not analysis results and are not looked at.
    public var firstNonFiniteField: String? {
        func bad(_ value: Double?) -> Bool { value.map { !$0.isFinite } ?? false }
        if let l = levels {
            let fields: [(String, Double?)] = [
                ("dc_offset", l.dcOffset), ("loudest_frame_rms_dbfs", l.loudestFrameRMSDBFS), ("peak_dbfs", l.peakDBFS),
                ("quietest_frame_rms_dbfs", l.quietestFrameRMSDBFS), ("rms_dbfs", l.rmsDBFS), ("rms_dbfs_aes17", l.rmsDBFSAES17),
            ]
            if let (name, _) = fields.first(where: { bad($0.1) }) { return "levels." + name }
        }
        if let l = loudness {
            let fields: [(String, Double?)] = [
                ("integrated_lufs", l.integratedLUFS), ("loudness_range_lu", l.loudnessRangeLU),
                ("max_momentary_lufs", l.maxMomentaryLUFS), ("max_short_term_lufs", l.maxShortTermLUFS),
                ("true_peak_dbtp", l.truePeakDBTP),
            ]
            if let (name, _) = fields.first(where: { bad($0.1) }) { return "loudness." + name }
        }
        if let d = detection {
            let fields: [(String, Double?)] = [
                ("multi_speaker_ratio", d.multiSpeakerRatio), ("music_ratio", d.musicRatio), ("noise_floor_dbfs", d.noiseFloorDBFS),
                ("speech_ratio", d.speechRatio), ("speech_seconds", d.speechSeconds),
            ]
            if let (name, _) = fields.first(where: { bad($0.1) }) { return "detection." + name }
        }
        if let e = environment {
            let fields: [(String, Double?)] = [
                ("frequency_complexity", e.frequencyComplexity), ("noise_dbfs", e.noiseDBFS), ("speech_clarity", e.speechClarity),
            ]
            if let (name, _) = fields.first(where: { bad($0.1) }) { return "environment." + name }
        }
        return nil
    }

    /// This record as an error record (kind `"non_finite_result"`) when an analysis number is
    /// NaN or ±∞ (``firstNonFiniteField``): the file's identity, rate, channels, frames,
    /// duration, format and provenance stay, the analysis results are withheld, and the message
    /// names the field. Unchanged otherwise. `FileScorer` applies it to every record it makes,
    /// so such a file counts as failed; ``ScoreFormatting/jsonLine(_:)`` applies it too.
    public func withholdingNonFiniteResults() -> FileScore {
        guard let field = firstNonFiniteField else { return self }
        var record = self
        record.levels = nil
        record.loudness = nil
        record.detection = nil
        record.environment = nil
        record.segments = nil
        record.status = .error
        record.error = Failure(
            kind: "non_finite_result",
            message: "\(audioFilepath): \(field) came out as NaN or infinity, which JSON cannot hold; the file's analysis results are withheld")
        return record
    }
}
