"""Music sources: MIDI pieces composed here and rendered with fluidsynth, and hedgewars music.

A MIDI piece id is 'midi:<n>:<soundfont>'; the notes come from an RNG seeded
by the id alone, so a piece is the same in every corpus.
"""
import glob
import os
import struct
import tempfile

import numpy as np

from .common import loop_to, read_mono, run, seed_of, split_of, via_tempfile

SOUNDFONTS = {"timgm6mb": "/usr/share/sounds/sf2/TimGM6mb.sf2",
              "fluidr3": "/usr/share/sounds/sf2/FluidR3_GM.sf2"}
HEDGEWARS_MUSIC = "/usr/share/games/hedgewars/Data/Music"
N_MIDI = 16
PROGRAMS = [0, 4, 11, 19, 24, 40, 42, 48, 56, 65, 73, 88]  # GM: piano, e-piano, vibes, organ, guitar, strings...
SCALE = [0, 2, 4, 5, 7, 9, 11]


def piece_ids(split):
    """Music piece ids available on this machine in a split."""
    ids = [f"midi:{i}:{sf}" for i in range(N_MIDI) for sf in sorted(SOUNDFONTS)
           if os.path.exists(SOUNDFONTS[sf]) and _which("fluidsynth")]
    ids += [f"hedgewars-music:{os.path.basename(p)[:-4]}" for p in sorted(glob.glob(f"{HEDGEWARS_MUSIC}/*.ogg"))]
    return [i for i in ids if split_of(i) == split]


def _which(name):
    return any(os.access(os.path.join(d, name), os.X_OK) for d in os.environ.get("PATH", "").split(":"))


def _vlq(v):
    out = [v & 0x7F]
    v >>= 7
    while v:
        out.insert(0, (v & 0x7F) | 0x80)
        v >>= 7
    return bytes(out)


def compose(piece_id, seconds=40.0):
    """Standard MIDI file bytes: a melody over chords, two GM programs, tempo 80-140 bpm."""
    rng = np.random.default_rng(seed_of("midi", piece_id))
    tpq, bpm = 480, int(rng.integers(80, 141))
    key = int(rng.integers(48, 60))
    mel_prog, chord_prog = (int(p) for p in rng.choice(PROGRAMS, 2, replace=False))
    events = []  # (tick, bytes)
    beats = int(seconds * bpm / 60)
    for bar in range(0, beats, 4):
        root = SCALE[int(rng.choice([0, 3, 4, 5]))]
        for k in (0, 2, 4):
            note = key + root + SCALE[k % 7] - SCALE[0]
            events += [(bar * tpq, bytes([0x91, note, 70])), ((bar + 4) * tpq - 10, bytes([0x81, note, 0]))]
        t = bar * tpq
        while t < (bar + 4) * tpq:
            dur = int(rng.choice([tpq // 2, tpq, tpq * 2]))
            note = key + 12 + SCALE[int(rng.integers(7))] + 12 * int(rng.integers(0, 2))
            events += [(t, bytes([0x90, note, int(rng.integers(70, 110))])), (t + dur - 10, bytes([0x80, note, 0]))]
            t += dur
    head = [(0, b"\xff\x51\x03" + (60_000_000 // bpm).to_bytes(3, "big")),
            (0, bytes([0xC0, mel_prog])), (0, bytes([0xC1, chord_prog]))]
    track, last = b"", 0
    for tick, ev in sorted(head + events, key=lambda e: (e[0], e[1][0] & 0xF0 != 0x80)):
        track += _vlq(tick - last) + ev
        last = tick
    track += b"\x00\xff\x2f\x00"
    return (b"MThd" + struct.pack(">IHHH", 6, 0, 1, tpq) + b"MTrk" + struct.pack(">I", len(track)) + track)


def _render_midi(piece_id, fs):
    sf2 = SOUNDFONTS[piece_id.split(":")[2]]
    with tempfile.NamedTemporaryFile(suffix=".mid") as mid:
        mid.write(compose(piece_id))
        mid.flush()
        return via_tempfile(".wav", lambda p: run(
            ["fluidsynth", "-ni", "-q", "-R", "0", "-C", "0", "-g", "0.5", "-r", str(fs),
             "-F", p, sf2, mid.name]))


def make(piece_id, rng, n, fs):
    """A music track of n samples at fs (a random excerpt, looped if needed)."""
    if piece_id.startswith("midi:"):
        x, rate = _render_midi(piece_id, fs)
    else:
        x, rate = read_mono(f"{HEDGEWARS_MUSIC}/{piece_id.split(':', 1)[1]}.ogg", fs)
    return loop_to(x - np.mean(x), n, rng)
