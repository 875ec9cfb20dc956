"""Utterances of the catalogue's voices at 16 kHz, and talker tracks.

TTS engines are run here with per-talker speaking styles (espeak-ng speed and pitch, flite
duration stretch and F0, festival as is); every utterance is then resampled by the talker's
'vocal tract' factor (0.92-1.08: formants and pitch move together), trimmed and peak-normalised.
Recorded utterances (words, phrases) are read from their packages.
"""
import functools
import os
import subprocess
import tempfile

import numpy as np

from scenelib.common import resample, trim_silence

from . import sources
from .labels import HOP, utterance_floor_db

FS = sources.FS


def _run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed: {r.stderr.decode(errors='replace')[-300:]}")
    return r


def _read_tmp(produce):
    fd, path = tempfile.mkstemp(suffix=".wav")
    os.close(fd)
    try:
        produce(path)
        import soundfile as sf
        x, rate = sf.read(path, dtype="float64", always_2d=True)
        return x.mean(axis=1), rate
    finally:
        os.unlink(path)


@functools.lru_cache(maxsize=2048)
def tts(engine, voice, text, speed=0, pitch=0):
    """Raw TTS output (float64, rate), or None when the engine fails (espeak-ng 1.51 crashes on a
    few voice/text pairs, e.g. vi+anikaRobot; the caller draws another utterance). speed/pitch:
    espeak-ng wpm and 0-99; flite: duration stretch x100 and F0 mean (Hz); ignored for festival."""
    try:
        return _tts(engine, voice, text, speed, pitch)
    except RuntimeError:
        return None


def _tts(engine, voice, text, speed, pitch):
    if engine == "espeak-ng":
        return _read_tmp(lambda p: _run(["espeak-ng", "-v", voice, "-s", str(speed), "-p", str(pitch),
                                         "-w", p, text]))
    if engine == "flite":
        return _read_tmp(lambda p: _run(["flite", "-voice", voice, "--setf", f"duration_stretch={speed / 100:.2f}",
                                         "--setf", f"int_f0_target_mean={pitch}", "-t", text, "-o", p]))
    if engine == "festival":
        return _read_tmp(lambda p: _run(["text2wave", "-eval", f"(voice_{voice})", "-o", p], input=text.encode()))
    raise ValueError(engine)


class Talker:
    """One talker of a file: a voice, a language and a speaking style drawn from rng."""

    def __init__(self, voice, rng):
        self.voice = voice
        self.tract = float(rng.uniform(0.92, 1.08))
        eng = voice["engine"]
        if eng == "espeak-ng":
            english = rng.uniform() < 0.5
            pool = sources.ESPEAK_ENGLISH if english else sources.ESPEAK_OTHER
            self.lang_voice = pool[int(rng.integers(len(pool)))]
            self.lang = "en" if english else self.lang_voice
            self.source_id = f"espeak-ng:{self.lang_voice}+{voice['variant']}"
            self.speed, self.pitch = int(rng.integers(110, 231)), int(rng.integers(10, 91))
        elif eng == "flite":
            self.lang, self.source_id = "en", voice["id"]
            base = 100 if voice["voice"] in ("slt",) else 105
            self.speed, self.pitch = int(rng.integers(80, 131)), int(rng.integers(base - 25, base + 60))
        elif eng == "festival":
            self.lang, self.source_id = voice["lang"], voice["id"]
            self.speed = self.pitch = 0
        else:
            self.lang, self.source_id = None, voice["id"]
            self.speed = self.pitch = 0

    def utterance(self, rng):
        """(audio 16 kHz peak 1, item, noise floor dB re the utterance or None)."""
        v = self.voice
        if v["engine"] == "recording":
            path = v["files"][int(rng.integers(len(v["files"])))]
            x, item = np.array(sources.load(path)), path
        else:
            t = sources.texts(self.lang)
            item = t[int(rng.integers(len(t)))]
            name = self.lang_voice + "+" + v["variant"] if v["engine"] == "espeak-ng" else v["voice"]
            out = tts(v["engine"], name, item, self.speed, self.pitch)
            if out is None:
                return None, item, None
            x = resample(out[0], out[1], FS)
        x = x - np.mean(x)
        # vocal-tract factor: play the utterance self.tract times faster (pitch and formants up)
        x = resample(x, int(round(FS * self.tract)), FS)
        x = trim_silence(x, -50.0)
        peak = float(np.max(np.abs(x))) if len(x) else 0.0
        if peak <= 0.0 or len(x) < HOP:
            return None, item, None
        x = x / peak
        floor = utterance_floor_db(x) if v["engine"] == "recording" else None
        return x, item, floor


def track(talker, rng, n, start, gap_s=(0.25, 1.0), stop=None, max_items=None):
    """A talker's stem of n samples: utterances from `start` (samples) separated by pauses drawn
    from gap_s, none cut at the end (or at `stop`). Returns (stem, spans [(a, b, floor)], items)."""
    x = np.zeros(n)
    spans, items = [], []
    pos, tries = int(start), 0
    end = n if stop is None else min(n, stop)
    while (max_items is None or len(spans) < max_items) and tries < 60:
        tries += 1
        u, item, floor = talker.utterance(rng)
        if u is None:
            continue
        if pos + len(u) > end:
            if len(spans) == 0 and tries < 8:
                continue   # try a shorter utterance first
            break
        x[pos:pos + len(u)] = u
        spans.append((pos, pos + len(u), floor))
        items.append(item)
        pos += len(u) + int(rng.uniform(*gap_s) * FS)
    return x, spans, items
