extension FileScore {
    /// The JSON Schema (draft 2020-12) of one record, as `dspscore schema` prints it.
    public static let jsonSchema = #"""
    {
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "$id": "https://speechdsp.example/schemas/dspscore-record.json",
      "title": "dspscore record",
      "description": "One audio file scored by SpeechDSP's dspscore. Levels are in dB relative to digital full scale; null stands for -infinity (digital silence).",
      "type": "object",
      "required": ["audio_filepath", "duration", "status", "provenance"],
      "properties": {
        "audio_filepath": {"type": "string", "description": "The path as given or found."},
        "duration": {"type": "number", "minimum": 0, "description": "Seconds: frames / sample_rate; 0 for a failed file."},
        "sample_rate": {"type": "integer", "minimum": 1, "description": "Hz."},
        "channels": {"type": "integer", "minimum": 1},
        "frames": {"type": "integer", "minimum": 0, "description": "Sample frames (per channel) read."},
        "format": {"type": "string", "description": "Container/encoding, e.g. WAV/PCM_16."},
        "status": {"enum": ["ok", "error"]},
        "error": {
          "type": "object", "required": ["kind", "message"],
          "properties": {
            "kind": {"enum": ["not_found", "permission_denied", "is_directory", "empty", "truncated", "corrupt",
                              "unsupported_format", "invalid_parameters", "io_failure", "closed", "unsupported",
                              "too_short", "not_regular_file", "non_finite_result"]},
            "message": {"type": "string"}
          }
        },
        "levels": {
          "type": "object",
          "required": ["rms_dbfs", "rms_dbfs_aes17", "peak_dbfs", "dc_offset", "clipped_samples", "non_finite_samples",
                       "loudest_frame_rms_dbfs", "quietest_frame_rms_dbfs"],
          "properties": {
            "rms_dbfs": {"type": ["number", "null"], "description": "10*log10(mean x^2) over all samples of all channels, dBFS."},
            "rms_dbfs_aes17": {"type": ["number", "null"], "description": "rms_dbfs + 3.01 dB (sine-referenced, AES17)."},
            "peak_dbfs": {"type": ["number", "null"], "description": "Sample peak 20*log10(max |x|), dBFS."},
            "dc_offset": {"type": "number", "description": "Mean sample value, full-scale units."},
            "clipped_samples": {"type": "integer", "minimum": 0, "description": "Samples with |x| >= clip_threshold."},
            "non_finite_samples": {"type": "integer", "minimum": 0, "description": "NaN or infinite samples (float files), excluded from the levels."},
            "loudest_frame_rms_dbfs": {"type": ["number", "null"], "description": "Largest RMS over frame_length-frame blocks, dBFS."},
            "quietest_frame_rms_dbfs": {"type": ["number", "null"], "description": "Smallest RMS over frame_length-frame blocks, dBFS."}
          }
        },
        "loudness": {
          "type": "object", "description": "ITU-R BS.1770-4 / EBU R128. Absent for failed files and rates below 8 kHz.",
          "required": ["integrated_lufs", "loudness_range_lu", "true_peak_dbtp", "max_momentary_lufs", "max_short_term_lufs", "channel_layout"],
          "properties": {
            "integrated_lufs": {"type": ["number", "null"], "description": "Integrated (gated) loudness, LUFS; null when all blocks are below the -70 LUFS gate."},
            "loudness_range_lu": {"type": "number", "minimum": 0, "description": "Loudness range (EBU Tech 3342), LU."},
            "true_peak_dbtp": {"type": ["number", "null"], "description": "Maximum true peak over channels (4x oversampled below 96 kHz), dBTP; null when the true_peak analysis is off."},
            "max_momentary_lufs": {"type": ["number", "null"], "description": "Maximum momentary (400 ms) loudness, LUFS."},
            "max_short_term_lufs": {"type": ["number", "null"], "description": "Maximum short-term (3 s) loudness, LUFS."},
            "channel_layout": {"enum": ["mono", "stereo", "5.0", "5.1", "equal"], "description": "BS.1770 channel weighting used."}
          }
        },
        "detection": {
          "type": "object", "description": "Voice activity, music and multiple speakers (AcousticDetector on the file mixed to mono at 16 kHz). Absent for failed files and when --analyses has none of speech, music, speakers.",
          "required": ["speech_ratio", "music_ratio", "multi_speaker_ratio", "speech_seconds", "speech_segments", "noise_floor_dbfs"],
          "properties": {
            "speech_ratio": {"type": "number", "minimum": 0, "maximum": 1, "description": "Fraction of the duration inside speech segments."},
            "music_ratio": {"type": ["number", "null"], "minimum": 0, "maximum": 1, "description": "Fraction inside music segments; null when music detection was off."},
            "multi_speaker_ratio": {"type": ["number", "null"], "minimum": 0, "maximum": 1, "description": "Fraction inside segments where two or more people talk at once; null when that detection was off."},
            "speech_seconds": {"type": "number", "minimum": 0, "description": "Total speech, seconds."},
            "speech_segments": {"type": "integer", "minimum": 0, "description": "Number of speech segments."},
            "noise_floor_dbfs": {"type": ["number", "null"], "description": "Median tracked background-noise level over frames with sound, dBFS; null for digital silence."}
          }
        },
        "environment": {
          "type": "object", "description": "The acoustic environment: EnvironmentAnalyzer fed by the detectors on 1024-sample frames at 16 kHz, measured twice a second, summarised over the file. Absent where detection is, and when --analyses lacks environment.",
          "required": ["noise_dbfs", "noise_category", "category_key", "speech_clarity", "frequency_complexity", "recommendation", "measurements"],
          "properties": {
            "noise_dbfs": {"type": ["number", "null"], "description": "Median background-noise level of the measurements, dBFS (the noise, not the speech)."},
            "noise_category": {"enum": ["very_quiet", "quiet", "moderate", "loud", "very_loud"], "description": "Category the file spent most time in (thresholds 35/45/55/65 dB on dBFS + 90)."},
            "category_key": {"type": "string", "description": "Most frequent measurement key: noise level rounded down to 5 dB, music, several speakers, e.g. 45_false_true."},
            "speech_clarity": {"type": ["number", "null"], "minimum": 0, "maximum": 1, "description": "Mean clarity (logistic map of the speech-to-noise ratio) over measurements with speech."},
            "frequency_complexity": {"type": "number", "minimum": 0, "maximum": 1, "description": "Mean normalised spectral entropy."},
            "recommendation": {"enum": ["fast", "accurate"], "description": "Recognizer recommended (with hysteresis) for most of the file."},
            "measurements": {"type": "integer", "minimum": 0}
          }
        },
        "provenance": {
          "type": "object", "required": ["library", "version", "frame_length", "clip_threshold"],
          "properties": {
            "library": {"const": "SpeechDSP"},
            "version": {"type": "string"},
            "frame_length": {"type": "integer", "minimum": 1},
            "clip_threshold": {"type": "number", "exclusiveMinimum": 0},
            "analyses": {"type": "string", "description": "The analyses run, comma-separated (levels, loudness, speech, music, speakers, environment)."},
            "config_hash": {"type": "string", "pattern": "^[0-9a-f]{16}$", "description": "64-bit FNV-1a of library, version, frame_length, clip_threshold and analyses: equal hashes, same configuration."}
          }
        }
      }
    }
    """#
}
