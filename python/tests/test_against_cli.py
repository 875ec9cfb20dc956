"""levels, loudness and detect on every TestAudio file against dspscore's records for the same
files. dspscore reads the file with its own reader and scores it block by block through
FileScorer — a different wiring of the same analyzers — so the values must agree.

Tolerances: levels and loudness are the same computation on the same samples (soundfile and
dspscore both decode with libsndfile, to code / 2^(bits−1)), so they agree to the record's
printed precision: 1e-9 dB. The Vorbis file is decoded by two libsndfile builds (soundfile's
bundled one and the system's), so it gets 0.01 dB. Detection values are rounded to 1e-6 in the
record; segments are compared with the timeline's (printed to the millisecond) within 0.5 ms.
"""

from __future__ import annotations

import math

import pytest

import speechdsp
from conftest import audio_files

FILES = [p.name for p in audio_files()]


def same(a, b, tolerance):
    """Equal within `tolerance`, with the record's null meaning −∞."""
    a = -math.inf if a is None else a
    b = -math.inf if b is None else b
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= tolerance


@pytest.mark.parametrize("name", FILES)
def test_levels(name, audio, records):
    a, record = audio[name], records[name]["levels"]
    got = speechdsp.levels(a.samples, a.sample_rate, pcm_bits=a.pcm_bits)
    tolerance = 0.01 if a.lossy else 1e-9
    for field in ("rms_dbfs", "rms_dbfs_aes17", "peak_dbfs", "loudest_frame_rms_dbfs", "quietest_frame_rms_dbfs"):
        assert same(got[field], record[field], tolerance), (field, got[field], record[field])
    assert same(got["dc_offset"], record["dc_offset"], 1e-6 if a.lossy else 1e-12)
    assert got["clipped_samples"] == record["clipped_samples"]
    assert got["non_finite_samples"] == record["non_finite_samples"]
    assert got["duration_seconds"] == pytest.approx(records[name]["duration"], abs=1e-9)


@pytest.mark.parametrize("name", FILES)
def test_loudness(name, audio, records):
    a, record = audio[name], records[name].get("loudness")
    if record is None:
        pytest.skip(f"dspscore did not measure loudness: {records[name].get('not_measured')}")
    got = speechdsp.loudness(a.samples, a.sample_rate)
    tolerance = 0.01 if a.lossy else 1e-9
    for field in ("integrated_lufs", "loudness_range_lu", "true_peak_dbtp", "max_momentary_lufs", "max_short_term_lufs"):
        assert same(got[field], record[field], tolerance), (field, got[field], record[field])


@pytest.mark.parametrize("name", FILES)
def test_detection(name, audio, records):
    a, record = audio[name], records[name].get("detection")
    if record is None:
        pytest.skip(f"dspscore did not run detection: {records[name].get('not_measured')}")
    got = speechdsp.detect(a.samples, a.sample_rate)
    tolerance = 0.02 if a.lossy else 1.5e-6  # the record rounds to 1e-6
    for field in ("speech_ratio", "music_ratio", "multi_speaker_ratio", "speech_seconds"):
        assert same(got[field], record[field], tolerance), (field, got[field], record[field])
    # The noise floor is a 0.5 dB histogram bin: two decoders of a lossy file may differ by one.
    assert same(got["noise_floor_dbfs"], record["noise_floor_dbfs"], 0.5 if a.lossy else 1.5e-6)
    if a.lossy:
        return
    assert got["speech_segments"] == record["speech_segments"]
    speech = speechdsp.speech_segments(a.samples, a.sample_rate)
    assert len(speech) == len(records[name]["speech"])
    for (start, end), (t0, t1) in zip(speech, records[name]["speech"]):
        assert abs(start - t0) <= 5e-4 and abs(end - t1) <= 5e-4


def test_every_file_was_scored(records):
    assert sorted(records) == sorted(FILES)
    assert all(r["status"] == "ok" for r in records.values())
