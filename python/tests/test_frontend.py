"""FrontEnd: chunking invariance, exact lengths, the same PCM as resample + to_int16, the same
speech segments as detect (one chain), lifetime and threads."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import speechdsp


def by_kind(events: list[dict]) -> dict[str, list[dict]]:
    """Events per kind, in order: the front end's order within a kind is stream order, while
    how kinds interleave within one call's list depends on the call's size."""
    result: dict[str, list[dict]] = {}
    for event in events:
        result.setdefault(event["kind"], []).append(event)
    return result


def run(frontend: speechdsp.FrontEnd, samples: np.ndarray, sizes) -> tuple[np.ndarray, list[dict]]:
    """Pushes `samples` (flat, interleaved) in chunks of `sizes` (cycled), then flushes."""
    flat = samples.reshape(-1)
    pcm, events, offset, i = [], [], 0, 0
    while offset < flat.size:
        n = sizes[i % len(sizes)]
        out, ev = frontend.process(flat[offset : offset + n])
        pcm.append(out)
        events += ev
        offset += n
        i += 1
    out, ev = frontend.flush()
    return np.concatenate(pcm + [out]), events + ev


@pytest.fixture(scope="module")
def stereo(audio):
    return audio["speech_2ch_en-us_de_44k1.flac"]


def test_chunking_invariance(stereo):
    """One push, 1024-sample pushes and random 1…4096-sample pushes (odd ones split frames)
    give identical PCM and events, and reuse after flush gives the same again."""
    rng = np.random.default_rng(1)
    with speechdsp.FrontEnd(stereo.sample_rate, stereo.channels) as frontend:
        whole = run(frontend, stereo.samples, [stereo.samples.size])
        summary = frontend.summary
        for sizes in ([1024], list(rng.integers(1, 4097, 200))):
            pcm, events = run(frontend, stereo.samples, sizes)
            assert np.array_equal(pcm, whole[0])
            assert by_kind(events) == by_kind(whole[1])
            assert frontend.summary == summary


def test_lengths_summary_and_events(stereo):
    frames = stereo.samples.shape[0]
    with speechdsp.FrontEnd(stereo.sample_rate, 2) as frontend:
        pcm, events = frontend.process_all(stereo.samples)
        summary = frontend.summary
    assert pcm.dtype == np.int16
    assert len(pcm) == (2 * frames * 16000 + stereo.sample_rate) // (2 * stereo.sample_rate)
    assert summary["input_frame_count"] == frames and summary["output_sample_count"] == len(pcm)
    kinds = {e["kind"] for e in events}
    assert {"started", "ended", "environment", "levels"} <= kinds
    levels = [e for e in events if e["kind"] == "levels"]
    assert len(levels) == -(-len(pcm) // 1024)
    environment = next(e for e in events if e["kind"] == "environment")
    assert environment["noise_category"] in ("very_quiet", "quiet", "moderate", "loud", "very_loud")
    assert environment["category_key"].count("_") == 2
    assert -70 < summary["integrated_lufs"] < 0 and 0 < summary["speech_ratio"] <= 1


def test_pcm_is_resample_then_to_int16(audio):
    """Mono input: the front end's PCM is the whole-signal resampler's output converted."""
    a = audio["speech_en-us_48k.flac"]
    with speechdsp.FrontEnd(a.sample_rate) as frontend:
        pcm, _ = frontend.process_all(a.mono)
    assert np.array_equal(pcm, speechdsp.to_int16(speechdsp.resample(a.mono, a.sample_rate, 16000)))


def test_speech_events_are_detect_segments(stereo):
    """One chain: the front end's speech starts and ends are detect()'s speech segments."""
    with speechdsp.FrontEnd(stereo.sample_rate, 2) as frontend:
        _, events = frontend.process_all(stereo.samples)
    starts = [e["output_sample"] for e in events if e["kind"] == "started" and e["activity"] == "speech"]
    ends = [e["output_sample"] for e in events if e["kind"] == "ended" and e["activity"] == "speech"]
    segments = [s for s in speechdsp.detect(stereo.samples, stereo.sample_rate)["segments"] if s["activity"] == "speech"]
    assert starts == [s["start_sample"] for s in segments]
    assert ends == [s["end_sample"] for s in segments]
    assert segments


def test_detect_without_speech_boundaries(stereo):
    """detect(speech_boundaries=False) gives the front end's speech edges with speech_boundaries=False:
    the same segments as the default, their edges moved."""
    with speechdsp.FrontEnd(stereo.sample_rate, 2, speech_boundaries=False) as frontend:
        _, events = frontend.process_all(stereo.samples)
    starts = [e["output_sample"] for e in events if e["kind"] == "started" and e["activity"] == "speech"]
    plain = [s for s in speechdsp.detect(stereo.samples, stereo.sample_rate, speech_boundaries=False)["segments"]
             if s["activity"] == "speech"]
    refined = [s for s in speechdsp.detect(stereo.samples, stereo.sample_rate)["segments"] if s["activity"] == "speech"]
    assert plain and starts == [s["start_sample"] for s in plain]
    assert len(refined) == len(plain) and refined != plain


def test_stages_and_options(stereo):
    with speechdsp.FrontEnd(stereo.sample_rate, 2, stages=["clipping"]) as frontend:
        pcm, events = frontend.process_all(stereo.samples)
        assert pcm.size == 0 and {e["kind"] for e in events} <= {"clipping"}
        assert frontend.summary["speech_ratio"] is None and frontend.summary["integrated_lufs"] is None
    with speechdsp.FrontEnd(stereo.sample_rate, 2, stages=["output"], downmix=1) as frontend:
        pcm, events = frontend.process_all(stereo.samples)
        assert events == []
        assert np.array_equal(pcm, speechdsp.to_int16(speechdsp.resample(stereo.samples[:, 1], stereo.sample_rate, 16000)))
    with speechdsp.FrontEnd(16000, level_events=False, stages=["output", "levels"]) as frontend:
        _, events = frontend.process_all(np.zeros(16000, dtype=np.float32))
        assert events == []


def test_detection_hops_per_batch(stereo):
    """Every batch size gives the same PCM and events; only when the detection's events come (so
    how kinds interleave) moves, so each kind's events are compared in stream order."""

    def in_stream_order(events):
        return sorted(events, key=lambda e: (e["kind"], e.get("activity", ""), e["output_sample"], e["input_frame"]))

    with speechdsp.FrontEnd(stereo.sample_rate, 2) as frontend:
        expected = frontend.process_all(stereo.samples)
    assert any(e["kind"] == "started" for e in expected[1])
    for hops in (1, 2, 3):
        with speechdsp.FrontEnd(stereo.sample_rate, 2, detection_hops_per_batch=hops) as frontend:
            pcm, events = frontend.process_all(stereo.samples)
        assert np.array_equal(pcm, expected[0])
        assert in_stream_order(events) == in_stream_order(expected[1])
    for hops in (0, 5):
        with pytest.raises(ValueError, match="detectionHopsPerBatch"):
            speechdsp.FrontEnd(16000, detection_hops_per_batch=hops)


def test_detection_settings(stereo):
    """The detection settings reach the detector: each changes the speech events, voice activity
    alone is detect()'s with both detections off, and a bad segmenter setting is refused."""

    def speech(events):
        return [(e["kind"], e["output_sample"]) for e in events if e.get("activity") == "speech"]

    with speechdsp.FrontEnd(stereo.sample_rate, 2) as frontend:
        _, default = frontend.process_all(stereo.samples)
    with speechdsp.FrontEnd(stereo.sample_rate, 2, speech_blend=False) as frontend:
        _, plain = frontend.process_all(stereo.samples)
    assert speech(plain) and speech(plain) != speech(default)
    with speechdsp.FrontEnd(stereo.sample_rate, 2, speech_boundaries=False) as frontend:
        _, unrefined = frontend.process_all(stereo.samples)
    assert speech(unrefined) and speech(unrefined) != speech(default)
    assert len(speech(unrefined)) == len(speech(default))  # the same segments, their edges moved
    with speechdsp.FrontEnd(stereo.sample_rate, 2, speech_segments={"padding_seconds": 0.2}, speech_boundaries=False) as frontend:
        _, padded = frontend.process_all(stereo.samples)
    starts = lambda events: [s for s in speech(events) if s[0] == "started"]
    # The padding back-dates each start (0.048 s by default): the first one comes 0.152 s earlier.
    assert starts(padded) and starts(unrefined) and starts(padded)[0][1] == starts(unrefined)[0][1] - round(0.152 * 16000)
    with speechdsp.FrontEnd(stereo.sample_rate, 2, music=False, multi_speaker=False) as frontend:
        _, alone = frontend.process_all(stereo.samples)
    assert not [e for e in alone if e.get("activity") in ("music", "multi_speaker")]
    segments = [s for s in speechdsp.detect(stereo.samples, stereo.sample_rate, music=False, multi_speaker=False)["segments"]
                if s["activity"] == "speech"]
    assert [s[1] for s in starts(alone)] == [s["start_sample"] for s in segments]
    with speechdsp.FrontEnd(stereo.sample_rate, 2, speech_blend_warm_up_seconds=0.5) as frontend:
        _, warmed = frontend.process_all(stereo.samples)
    assert speech(warmed) and speech(warmed) != speech(default)
    with pytest.raises(ValueError, match="speechBlendWarmUpSeconds"):
        speechdsp.FrontEnd(16000, speech_blend_warm_up_seconds=-1)
    with pytest.raises(ValueError, match="speechSegments"):
        speechdsp.FrontEnd(16000, speech_segments={"on": 0.3, "off": 0.4})
    with pytest.raises(ValueError, match="unknown speech_segments keys"):
        speechdsp.FrontEnd(16000, speech_segments={"threshold": 0.3})
    with speechdsp.FrontEnd(16000, speech_segments={"end": None, "on": 0.5}):
        pass


def test_clipping_events():
    x = np.zeros(16000, dtype=np.float32)
    x[100:110] = 1.0
    x[5000] = np.nan
    with speechdsp.FrontEnd(16000) as frontend:
        pcm, events = frontend.process_all(x)
        clipping = [e for e in events if e["kind"] == "clipping"]
        assert sum(e["clipped_samples"] for e in clipping) == 10
        assert sum(e["non_finite_samples"] for e in clipping) == 1
        assert pcm[5000] == 0 and frontend.summary["clipped_samples"] == 10


def test_reset_and_lifetime():
    x = np.random.default_rng(2).uniform(-0.3, 0.3, 20000).astype(np.float32)
    frontend = speechdsp.FrontEnd(16000)
    first = frontend.process_all(x)
    frontend.process(x[:5000])
    frontend.reset()
    again = frontend.process_all(x)
    assert np.array_equal(first[0], again[0]) and first[1] == again[1]
    assert frontend.latency_seconds == 0  # 16 kHz in: no resampler
    frontend.close()
    frontend.close()  # idempotent
    with pytest.raises(ValueError, match="closed"):
        frontend.process(x)


def test_threads_one_front_end_each(stereo):
    """Streams on several threads at once give what they give alone."""
    expected = run(speechdsp.FrontEnd(stereo.sample_rate, 2), stereo.samples, [4410])
    results = [None] * 4

    def work(i):
        with speechdsp.FrontEnd(stereo.sample_rate, 2) as frontend:
            results[i] = run(frontend, stereo.samples, [1000 + 777 * i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for pcm, events in results:
        assert np.array_equal(pcm, expected[0]) and by_kind(events) == by_kind(expected[1])


def test_shared_front_end_is_serialised():
    """Two threads pushing into one front end: the lock orders the calls, nothing overlaps."""
    x = np.random.default_rng(5).uniform(-0.3, 0.3, 160_000).astype(np.float32)
    frontend = speechdsp.FrontEnd(48000)
    errors = []

    def push():
        try:
            for chunk in np.array_split(x, 50):
                frontend.process(chunk)
        except Exception as error:  # noqa: BLE001
            errors.append(error)

    threads = [threading.Thread(target=push) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    frontend.flush()
    assert errors == [] and frontend.summary["input_frame_count"] == 2 * x.size


def test_bad_configurations():
    with pytest.raises(ValueError, match="inputRate"):
        speechdsp.FrontEnd(1000)
    with pytest.raises(ValueError, match="channel"):
        speechdsp.FrontEnd(16000, 0)
    with pytest.raises(ValueError, match="environment"):
        speechdsp.FrontEnd(16000, stages=["output", "environment"])
    with pytest.raises(ValueError, match="unknown stages"):
        speechdsp.FrontEnd(16000, stages=["vad"])
    with pytest.raises(ValueError, match="clip_threshold"):
        speechdsp.FrontEnd(16000, clip_threshold=0)
    with pytest.raises(ValueError, match="downmix"):
        speechdsp.FrontEnd(16000, 2, downmix="left")
    with pytest.raises(ValueError):
        speechdsp.FrontEnd(16000, 2, downmix=2)
    with speechdsp.FrontEnd(16000, 2) as frontend:
        with pytest.raises(ValueError, match="3 channels"):
            frontend.process(np.zeros((10, 3), dtype=np.float32))
