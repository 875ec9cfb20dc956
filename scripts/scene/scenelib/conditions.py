"""One builder per condition: each turns a file spec into tracks and truth.

A builder gets (spec, rng) and returns a Scene: the separate float64 tracks
(speech, noise, music; None when absent) at spec["fs"], the source ids used
and condition-specific truth.  make_scene_corpus.render() mixes and scores.
"""
from dataclasses import dataclass, field

import numpy as np
import scipy.signal as ss

from . import bandwidth, levels, music, noise, pitchrate, rooms, speech
from .common import resample, scale_to, split_of

SYNTH_NOISES = [f"synthetic:{k}" for k in noise.SYNTHETIC]


@dataclass
class Scene:
    """Tracks of one file before mixing, plus its sources and extra truth."""
    speech: np.ndarray = None
    noise: np.ndarray = None
    music: np.ndarray = None
    sources: dict = field(default_factory=dict)
    truth: dict = field(default_factory=dict)
    mix: np.ndarray = None  # set only when the file is not the plain sum (codecs)


def voices(split, text_only=False):
    """Voices of a split (optionally only those with known text)."""
    return [v for v in speech.catalogue() if split_of(v["id"]) == split and (speech.has_text(v) or not text_only)]


def pick(rng, items, k=1):
    """k distinct items chosen by rng, in chosen order."""
    idx = rng.choice(len(items), size=k, replace=False)
    return [items[int(i)] for i in idx]


def _n(spec):
    return int(round(spec["duration_s"] * spec["fs"]))


def speech_at(x, fs, level_db):
    """Speech track scaled to a P.56 active level."""
    lev, _ = levels.p56_active_level(x, fs)
    return scale_to(x, lev, level_db)


def noise_at(x, level_db):
    """Noise track scaled to a mean-square level."""
    return scale_to(x, levels.dbfs(x), level_db)


def noise_track(spec, rng, exclude_voice_ids=(), babble=True):
    """A background noise for the spec's split: synthetic, recorded or (if babble) babble. Returns (track, id).

    Babble is 4-6 voices of the file's split, none of them in exclude_voice_ids.
    """
    fs, n, split = spec["fs"], _n(spec), spec["split"]
    choices = SYNTH_NOISES + noise.recorded_ids(split) + (["babble"] if babble else [])
    nid = choices[int(rng.integers(len(choices)))]
    if nid != "babble":
        return noise.make(nid, rng, n, fs), nid
    pool = [v for v in voices(split) if v["id"] not in exclude_voice_ids]
    talkers = pick(rng, pool, int(rng.integers(4, 7)))
    track = np.zeros(n)
    for v in talkers:
        x, _, _ = speech.speech_track(v, rng, fs, n, rng.uniform(0, 0.5), gap_s=(0.05, 0.3))
        track += speech_at(x, fs, -30.0) if np.any(x) else 0.0
    return track, "babble:" + ",".join(v["id"] for v in talkers)


def _one_voice(spec, rng, **kw):
    v = pick(rng, voices(spec["split"], **kw))[0]
    x, segs, syl = speech.speech_track(v, rng, spec["fs"], _n(spec), rng.uniform(0.3, 1.0))
    return v, x, segs, syl


def clean(spec, rng):
    """Speech with a very low noise floor (-70..-60 dBFS) or true digital silence between utterances."""
    v, x, _, _ = _one_voice(spec, rng)
    sc = Scene(speech=speech_at(x, spec["fs"], rng.uniform(-35, -15)), sources={"voices": [v["id"]]})
    if spec["index"] % 3 == 0:
        sc.truth["digital_silence"] = True
        return sc
    kind = str(rng.choice(["synthetic:white", "synthetic:pink"]))
    sc.noise = noise_at(noise.make(kind, rng, _n(spec), spec["fs"]), rng.uniform(-70, -60))
    sc.sources["noise"] = kind
    return sc


def _snr_levels(rng):
    """(speech dBFS, noise dBFS): SNR -5..30 dB, noise -70..-20 dBFS, speech within -50..-12 dBFS."""
    snr = rng.uniform(-5, 30)
    lo, hi = max(-70.0, -50.0 - snr), min(-20.0, -12.0 - snr)
    nl = rng.uniform(lo, hi)
    return nl + snr, nl


def noisy(spec, rng):
    """One voice over a stationary noise."""
    v, x, _, _ = _one_voice(spec, rng)
    sl, nl = _snr_levels(rng)
    nz, nid = noise_track(spec, rng, exclude_voice_ids=[v["id"]])
    return Scene(speech=speech_at(x, spec["fs"], sl), noise=noise_at(nz, nl),
                 sources={"voices": [v["id"]], "noise": nid})


def talkers(spec, rng):
    """2-3 voices talking at once (each within +-6 dB) over noise."""
    fs, n = spec["fs"], _n(spec)
    vs = pick(rng, voices(spec["split"]), int(rng.integers(2, 4)))
    mix = np.zeros(n)
    for v in vs:
        x, _, _ = speech.speech_track(v, rng, fs, n, rng.uniform(0.2, 1.5))
        mix += speech_at(x, fs, rng.uniform(-6, 6))
    sl, nl = _snr_levels(rng)
    nz, nid = noise_track(spec, rng, exclude_voice_ids=[v["id"] for v in vs])
    return Scene(speech=speech_at(mix, fs, sl), noise=noise_at(nz, nl),
                 sources={"voices": [v["id"] for v in vs], "noise": nid})


def _turns(spec, rng):
    """Two voices of the split taking turns (gaps 0.1-0.6 s, no overlap): (track, voices)."""
    fs, n = spec["fs"], _n(spec)
    vs = pick(rng, voices(spec["split"]), 2)
    gains = [10 ** (rng.uniform(-4, 4) / 20), 1.0]
    track, pos, turn = np.zeros(n), int(rng.uniform(0.3, 0.8) * fs), 0
    while True:
        x, _, _ = speech.utterance(vs[turn], rng, fs)
        if pos + len(x) > n:
            break
        track[pos:pos + len(x)] = gains[turn] * x
        pos += len(x) + int(rng.uniform(0.1, 0.6) * fs)
        turn = 1 - turn
    return track, vs


def dialogue(spec, rng):
    """Two voices taking turns (gaps 0.1-0.6 s, no overlap) over noise."""
    fs = spec["fs"]
    track, vs = _turns(spec, rng)
    sl, nl = _snr_levels(rng)
    nz, nid = noise_track(spec, rng, exclude_voice_ids=[v["id"] for v in vs])
    return Scene(speech=speech_at(track, fs, sl), noise=noise_at(nz, nl),
                 sources={"voices": [v["id"] for v in vs], "noise": nid})


def music_noise(spec, rng):
    """Music (-35..-15 dBFS) over noise 5-30 dB below it; no speech."""
    fs, n = spec["fs"], _n(spec)
    pid = pick(rng, music.piece_ids(spec["split"]))[0]
    ml = rng.uniform(-35, -15)
    nz, nid = noise_track(spec, rng, babble=False)
    return Scene(music=noise_at(music.make(pid, rng, n, fs), ml),
                 noise=noise_at(nz, ml - rng.uniform(5, 30)), sources={"music": pid, "noise": nid})


def noise_only(spec, rng):
    """Noise alone (no babble), -70..-20 dBFS."""
    nz, nid = noise_track(spec, rng, babble=False)
    return Scene(noise=noise_at(nz, rng.uniform(-70, -20)), sources={"noise": nid})


def step(spec, rng):
    """Quiet room then loud room: the noise level rises by 20-30 dB at 40-60 % of the file."""
    fs = spec["fs"]
    v, x, _, _ = _one_voice(spec, rng)
    nz, nid = noise_track(spec, rng, exclude_voice_ids=[v["id"]])
    nz = noise_at(nz, 0.0)
    t_step = round(float(rng.uniform(0.4, 0.6) * spec["duration_s"]), 3)
    quiet = rng.uniform(-70, -55)
    loud = quiet + rng.uniform(20, 30)
    k = int(t_step * fs)
    nz[:k] *= 10 ** (quiet / 20)
    nz[k:] *= 10 ** (loud / 20)
    sc = Scene(speech=speech_at(x, fs, loud + rng.uniform(5, 20)), noise=nz,
               sources={"voices": [v["id"]], "noise": nid})
    sc.truth.update(noise_step_time_s=t_step, noise_dbfs_before=levels.dbfs(nz[:k]),
                    noise_dbfs_after=levels.dbfs(nz[k:]))
    return sc


def room(spec, rng):
    """One voice in a simulated room (RIR at the file rate) plus white/pink noise 30-45 dB below."""
    fs, n = spec["fs"], _n(spec)
    v, x, _, _ = _one_voice(spec, rng)
    rid = pick(rng, [f"room:{i}" for i in range(rooms.N_ROOMS) if split_of(f"room:{i}") == spec["split"]])[0]
    h = rooms.rir(rid, fs)
    wet = ss.fftconvolve(x, h)[:n]
    wet = speech_at(wet, fs, rng.uniform(-32, -18))
    sl, _ = levels.p56_active_level(wet, fs)
    kind = str(rng.choice(["synthetic:white", "synthetic:pink"]))
    nz = noise_at(noise.make(kind, rng, n, fs), sl - rng.uniform(30, 45))
    rt60, method = rooms.rt60_s(h, fs)
    sc = Scene(speech=wet, noise=nz, sources={"voices": [v["id"]], "noise": kind, "room": rid})
    sc.truth.update(c50_db=rooms.c50_db(h, fs), rt60_s=rt60, rt60_method=method, room=rooms.room_spec(rid))
    return sc


def band(spec, rng):
    """Speech or music with a fullband noise floor (35 dB down), then band-limited or coded."""
    fs, n = spec["fs"], _n(spec)
    # Counted in pairs (index // 2): indices alternate dev/test, so a choice by the index alone
    # would give each split its own half of the processes (generator 1.1.0 gave dev no music,
    # no 8 or 16 kHz cut-off and no GSM, MP3 7/15 kHz or Opus wideband; test had only those).
    # Music on every fourth pair, shifted by one in each round of the twelve processes so that
    # music meets every process, not the same three.
    pair = spec["index"] // 2
    if (pair + pair // 12) % 4 == 3:
        pid = pick(rng, music.piece_ids(spec["split"]))[0]
        src, sources, kind = noise_at(music.make(pid, rng, n, fs), -22.0), {"music": pid}, "music"
        lev = -22.0
    else:
        v, x, _, _ = _one_voice(spec, rng)
        src, sources, kind = speech_at(x, fs, -24.0), {"voices": [v["id"]]}, "speech"
        lev = -24.0
    floor = noise_at(noise.make("synthetic:white", rng, n, fs), lev - 35.0)
    process = (bandwidth.LOWPASS_HZ + bandwidth.CODECS)[pair % (len(bandwidth.LOWPASS_HZ) + len(bandwidth.CODECS))]
    sources["noise"] = "synthetic:white"
    if isinstance(process, str):
        # A codec is not linear: no separate speech/noise tracks, so no level truth.
        mix, nominal = bandwidth.codec(src + floor, fs, process)
        sc = Scene(sources=sources, mix=mix)
        sc.truth["noise_dbfs_before_codec"] = levels.dbfs(floor)
        proc_name = process
    else:
        # Resampling is linear: filter the tracks separately so their levels stay exact.
        (src, nominal), (floor, _) = bandwidth.lowpass(src, fs, process), bandwidth.lowpass(floor, fs, process)
        sc = Scene(speech=src if kind == "speech" else None, music=src if kind == "music" else None,
                   noise=floor, sources=sources)
        mix = src + floor
        proc_name = f"lowpass-{process}"
    sc.truth.update(bandwidth_hz=nominal, bandwidth_class=levels.bandwidth_class(nominal),
                    bandwidth_measured_hz=levels.measured_bandwidth(mix, fs), bandwidth_process=proc_name)
    return sc


def pitch_rate(spec, rng):
    """A TTS voice resynthesised (WORLD) at a set median F0, log-F0 spread factor and speaking rate."""
    fs, work_fs = spec["fs"], 16000
    v = pick(rng, voices(spec["split"], text_only=True))[0]
    dry, segs, syl = speech.speech_track(v, rng, work_fs, int(spec["duration_s"] * work_fs),
                                         rng.uniform(0.3, 0.6), gap_s=(0.3, 0.7))
    rate = rng.uniform(2.5, 6.5)
    f0_target, k = rng.uniform(80, 280), rng.uniform(0.5, 1.5)
    f0, sp, ap = pitchrate.analyse(dry, work_fs)
    factor = syl / levels.speech_seconds(dry, work_fs) / rate
    f0, sp, ap = pitchrate.stretch(f0, sp, ap, factor)
    f0 = pitchrate.set_f0(f0, f0_target, k)
    # The file is as long as the stretched speech plus 0.4 s, so no syllable is cut.
    y = resample(pitchrate.resynthesise(f0, sp, ap, work_fs), work_fs, fs)
    n = len(y) + int(0.4 * fs)
    y = np.pad(y, (0, n - len(y)))
    seconds = levels.speech_seconds(y, fs)
    nz = noise_at(noise.make("synthetic:pink", rng, n, fs), -70.0)
    sc = Scene(speech=speech_at(y, fs, rng.uniform(-30, -20)), noise=nz,
               sources={"voices": [v["id"]], "noise": "synthetic:pink"})
    sc.truth.update(pitchrate.f0_truth(f0), syllables=syl, speech_seconds=seconds,
                    speaking_rate_sps=syl / seconds, f0_spread_factor=k, texts=[s[2] for s in segs])
    return sc


LOOP_SCENES = ("noise_only", "voice", "dialogue")


def loops(spec, rng):
    """A short recorded effect looped (noise.loop_entries) alone, under one voice or under dialogue.

    The scene goes by pair of indices (LOOP_SCENES[index // 2 % 3], truth `loop_scene`), so dev
    and test hold each; levels as in noise_only (-70..-20 dBFS) and noise/dialogue (SNR -5..30 dB).
    """
    fs, n = spec["fs"], _n(spec)
    lid, path = pick(rng, noise.loop_entries()[spec["split"]])[0]
    nz = noise.looped(path, rng, n, fs)
    scene = LOOP_SCENES[spec["index"] // 2 % 3]
    if scene == "noise_only":
        sc = Scene(noise=noise_at(nz, rng.uniform(-70, -20)), sources={"noise": lid})
    else:
        if scene == "voice":
            v, x, _, _ = _one_voice(spec, rng)
            track, vs = x, [v]
        else:
            track, vs = _turns(spec, rng)
        sl, nl = _snr_levels(rng)
        sc = Scene(speech=speech_at(track, fs, sl), noise=noise_at(nz, nl),
                   sources={"voices": [v["id"] for v in vs], "noise": lid})
    sc.truth["loop_scene"] = scene
    return sc


BUILDERS = {"clean": clean, "noise": noisy, "talkers": talkers, "dialogue": dialogue, "music": music_noise,
            "noise_only": noise_only, "noise_step": step, "rooms": room, "bandwidth": band, "pitch_rate": pitch_rate,
            "loops": loops}
