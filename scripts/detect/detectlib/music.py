"""Music: MIDI arrangements rendered by FluidSynth with the split's SoundFont instruments, and
excerpts of recorded music.

An arrangement is made per file from its RNG: a melody (one of scripts/eval/tunes.py's
public-domain tunes, each a source 'tune:<NAME>' with a split, or a random melody unique to
the file), a style (solo, duo, ensemble, band, drums only, choir) and instruments drawn from
the file's split ('sf:<font>:<bank>:<program>' sources: a SoundFont instrument belongs to one
split). Parts are rendered per SoundFont, dry, one core, samples loaded on demand (deterministic), and
summed.
"""
import os
import subprocess
import tempfile

import numpy as np

import tunes  # scripts/eval
from make_midi import TPQ  # scripts/testaudio (via tunes)
from scenelib.common import loop_to

from . import sources

FS = sources.FS
TUNES = {  # name -> (melody, chords or None, beats per bar)
    "ODE": (tunes.ODE, tunes.ODE_CH, 4), "MINUET": (tunes.MINUET, None, 3), "GRACE": (tunes.GRACE, tunes.GRACE_CH, 3),
    "GREEN": (tunes.GREEN, tunes.GREEN_CH, 3), "TWINKLE": (tunes.TWINKLE, tunes.TWINKLE_CH, 4),
    "FRERE": (tunes.FRERE, None, 4), "SAINTS": (tunes.SAINTS, tunes.SAINTS_CH, 4),
    "JINGLE": (tunes.JINGLE, tunes.JINGLE_CH, 4), "SCARB": (tunes.SCARB, tunes.SCARB_CH, 3),
    "CANON": (tunes.CANON_MEL, tunes.CANON_CH, 4),
}
GRIDS = {"rock": tunes.ROCK, "rock_fill": tunes.ROCK_FILL, "shuffle": tunes.SHUFFLE, "latin": tunes.LATIN,
         "dance": tunes.DANCE, "funk": tunes.FUNK, "funk_fill": tunes.FUNK_FILL, "swing": tunes.SWING,
         "hiphop": tunes.HIPHOP, "march": tunes.MARCH, "one_drop": tunes.ONE_DROP}
STYLES = ["solo", "duo", "ensemble", "band", "drums", "choir"]
CHORD_STYLES = ["block", "alberti", "arp", "pad", "strum"]
SCALES = {"major": [0, 2, 4, 5, 7, 9, 11], "minor": [0, 2, 3, 5, 7, 8, 10], "dorian": [0, 2, 3, 5, 7, 9, 10],
          "pentatonic": [0, 2, 4, 7, 9]}
NAMES = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]


def tune_ids():
    return [f"tune:{k}" for k in sorted(TUNES)]


def _random_tune(rng, bars=16):
    """A random melody and chord line in tunes.py notation (4/4)."""
    scale = SCALES[list(SCALES)[int(rng.integers(len(SCALES)))]]
    root = 60 + int(rng.integers(-3, 5))
    notes, chords = [], []
    deg = int(rng.integers(0, len(scale)))
    for _ in range(bars):
        beat = 0.0
        while beat < 4 - 1e-9:
            d = float(rng.choice([0.5, 1.0, 1.0, 2.0, 0.25 * 2]))
            d = min(d, 4 - beat)
            deg = int(np.clip(deg + rng.integers(-2, 3), -3, 2 * len(scale)))
            key = root + 12 * (deg // len(scale)) + scale[deg % len(scale)]
            notes.append("R/%g" % d if rng.uniform() < 0.08 else f"{NAMES[key % 12]}{key // 12 - 1}/{d:g}")
            beat += d
        c = root + scale[int(rng.choice([0, 3, 4, 5]) % len(scale))]
        chords.append(f"{NAMES[c % 12]}{'m' if rng.uniform() < 0.3 else ''}/4")
    return " ".join(notes), " ".join(chords), 4


def _beats(notes):
    return sum(d for _, d in tunes.parse(notes))


def arrangement(rng, split, split_of, seconds):
    """A file's arrangement: {"sources", "parts": [(instrument, role, args)], "bpm", "style", "beats"}."""
    insts = [i for i in sources.instruments() if split_of(i["id"]) == split]
    mel = [i for i in insts if not i["drums"]]
    kits = [i for i in insts if i["drums"]]
    style = STYLES[int(rng.integers(len(STYLES)))]
    if not mel:
        style = "drums"
    if style == "drums" and not kits:
        style = "solo"
    if not mel and not kits:
        return None
    tune_pool = [t for t in tune_ids() if split_of(t) == split]
    if tune_pool and rng.uniform() < 0.5:
        tid = tune_pool[int(rng.integers(len(tune_pool)))]
        melody, chords, num = TUNES[tid.split(":", 1)[1]]
    else:
        tid = None
        melody, chords, num = _random_tune(rng)
    if chords is None:
        chords = " ".join(["C/%d" % num] * int(_beats(melody) // num + 1))
    bpm = int(rng.integers(70, 151))
    transpose = int(rng.integers(-5, 7))
    reps = int(np.ceil(seconds * bpm / 60.0 / max(_beats(melody), 1))) + 1

    def pick(pool, fam=None):
        p = [i for i in pool if fam is None or i["family"] in fam or i["program"] in fam] or pool
        return p[int(rng.integers(len(p)))]

    parts = []
    if style == "drums":
        parts.append((pick(kits), "drums", str(rng.choice(sorted(GRIDS)))))
    else:
        lead = pick(mel, VOICE_FAMILIES if style == "choir" else None)
        parts.append((lead, "melody", None))
        if style in ("duo", "ensemble", "band", "choir"):
            parts.append((pick(mel, ("piano", "guitar", "organ", "strings", "ensemble", "pad", "chromatic")
                                if style != "choir" else VOICE_FAMILIES), "chords",
                          "pad" if style == "choir" else str(rng.choice(CHORD_STYLES))))
        if style in ("ensemble", "band"):
            parts.append((pick(mel, ("bass",)), "chords", "bass"))
        if style == "ensemble":
            parts.append((pick(mel, ("strings", "reed", "pipe", "brass")), "counter", None))
        if style == "band" and kits:
            parts.append((pick(kits), "drums", str(rng.choice(sorted(GRIDS)))))
    srcs = ([tid] if tid else []) + sorted({p[0]["id"] for p in parts})
    return {"style": style, "bpm": bpm, "num": num, "melody": melody, "chords": chords, "transpose": transpose,
            "reps": reps, "parts": parts, "sources": srcs, "tune": tid}


VOICE_FAMILIES = sources.VOICE_PROGRAMS


def _midi(arr, parts):
    """MIDI bytes of the given parts of an arrangement (channels 0-8, drums on 9)."""
    beats_one = _beats(arr["melody"])
    objs = []
    for ch, (inst, role, arg) in enumerate(parts):
        if inst["drums"] and not inst.get("melodic_channel"):
            p = tunes.Part(role, tunes.DRUM_CH, inst["program"], 110)
        else:
            p = tunes.Part(role, ch, inst["program"], 105)
        for r in range(arr["reps"]):
            off = r * beats_one
            if role == "melody":
                p.melody(arr["melody"], start=off, vel=96, transpose=arr["transpose"] + 12 * (inst["family"] == "bass"))
            elif role == "counter":
                p.melody(arr["melody"], start=off + arr["num"], vel=80, transpose=arr["transpose"] - 12)
            elif role == "chords":
                p.chords(_transpose_chords(arr["chords"], arr["transpose"]), arg, start=off, vel=64,
                         octave=2 if arg == "bass" else 3)
            elif role == "drums":
                grid = GRIDS[arg]
                steps = max(len(g) for g in grid.values())
                spb = 3 if steps == 12 else 4
                bars = int(np.ceil(beats_one / (steps / spb)))
                p.drums(grid, bars, start=off, steps_per_beat=spb)
        objs.append(p)
    return tunes.song(arr["bpm"], objs, arr["reps"] * beats_one, num=arr["num"])


def _transpose_chords(chords, semis):
    out = []
    for tok in chords.split():
        sym, d = tok.split("/")
        if sym == "R":
            out.append(tok)
            continue
        i = 2 if len(sym) > 1 and sym[1] in "#b" else 1
        root = (tunes.NOTE[sym[0]] + (1 if sym[1:i] == "#" else -1 if sym[1:i] == "b" else 0) + semis) % 12
        out.append(f"{NAMES[root]}{sym[i:]}/{d}")
    return " ".join(out)


def render(arr, n):
    """The arrangement rendered at 16 kHz, n samples (looped/cut), float64."""
    by_font = {}
    for part in arr["parts"]:
        by_font.setdefault(part[0]["path"], []).append(part)
    total = None
    for path, parts in sorted(by_font.items()):
        midi = _midi(arr, parts)
        with tempfile.TemporaryDirectory() as d:
            mid, raw = os.path.join(d, "p.mid"), os.path.join(d, "p.f32")
            with open(mid, "wb") as f:
                f.write(midi)
            subprocess.run(["fluidsynth", "-ni", "-q", "-R", "0", "-C", "0", "-o", "synth.cpu-cores=1",
                            "-o", "synth.dynamic-sample-loading=1", "-g", "0.5", "-r", str(FS), "-O", "float",
                            "-E", "little", "-T", "raw", "-F", raw, path, mid], check=True, capture_output=True)
            x = np.fromfile(raw, dtype="<f4").astype(np.float64).reshape(-1, 2).mean(axis=1)
        total = x if total is None else _add(total, x)
    if total is None or not np.any(total):
        return np.zeros(n)
    nz = np.flatnonzero(np.abs(total) > 1e-5)
    total = total[nz[0]:]
    return total[:n] if len(total) >= n else np.pad(total, (0, n - len(total)))


def _add(a, b):
    if len(a) < len(b):
        a, b = b, a
    a = a.copy()
    a[:len(b)] += b
    return a


def recorded(entry, rng, n):
    """An excerpt of n samples of a recorded piece (random start after its first 2 s, looped
    with crossfades if the piece is shorter)."""
    secs = entry["seconds"]
    need = n / FS
    if secs > need + 4.0:
        start = float(rng.uniform(2.0, secs - need - 1.0))
        x = sources.load(entry["path"], start, need + 0.05)
        x = x[:n] if len(x) >= n else np.pad(x, (0, n - len(x)))
    else:
        x = loop_to(np.array(sources.load(entry["path"])), n, rng)
    return x - np.mean(x)
