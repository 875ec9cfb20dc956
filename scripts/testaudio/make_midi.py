#!/usr/bin/env python3
"""Write the Standard MIDI Files that make-test-audio.sh renders with fluidsynth.

Standard library only; the output bytes depend on nothing but this file.

    python3 make_midi.py OUTDIR   ->  OUTDIR/song.mid  OUTDIR/drums.mid  OUTDIR/solo.mid

song.mid   120 bpm, 4/4, C major, I-vi-IV-V-I (C Am F G C): piano melody and
           chords (ch 1, GM 1 Acoustic Grand), finger bass (ch 2, GM 34),
           drums (ch 10).  4 bars + 2 beats, end of track at 9.5 s.
drums.mid  the same groove alone: 2 bars (fill in bar 2) + crash, 4.5 s.
solo.mid   violin (ch 1, GM 41) alone, 90 bpm, 8 beats, end at 6.0 s.
"""
import os
import struct
import sys

TPQ = 480  # ticks per quarter note


def vlq(n):
    """MIDI variable-length quantity."""
    out = [n & 0x7F]
    n >>= 7
    while n:
        out.append(0x80 | (n & 0x7F))
        n >>= 7
    return bytes(reversed(out))


class Track:
    def __init__(self, name):
        self.events = []  # (tick, order, bytes); order: meta/setup 0, note-off 1, note-on 2
        self.meta(0, 0x03, name.encode("ascii"))

    def meta(self, tick, kind, data):
        self.events.append((tick, 0, bytes([0xFF, kind]) + vlq(len(data)) + data))

    def tempo(self, tick, bpm):
        self.meta(tick, 0x51, struct.pack(">I", round(60_000_000 / bpm))[1:])

    def time_signature(self, tick, num, den_pow2):
        self.meta(tick, 0x58, bytes([num, den_pow2, 24, 8]))

    def program(self, tick, ch, prog):
        self.events.append((tick, 0, bytes([0xC0 | ch, prog])))

    def cc(self, tick, ch, ctl, val):
        self.events.append((tick, 0, bytes([0xB0 | ch, ctl, val])))

    def note(self, tick, ch, key, vel, length):
        self.events.append((tick, 2, bytes([0x90 | ch, key, vel])))
        self.events.append((tick + length, 1, bytes([0x80 | ch, key, 0])))

    def encode(self, end_tick):
        evs = sorted(self.events, key=lambda e: (e[0], e[1]))
        out, last = bytearray(), 0
        for tick, _, data in evs:
            out += vlq(tick - last) + data
            last = tick
        out += vlq(max(0, end_tick - last)) + b"\xFF\x2F\x00"
        return b"MTrk" + struct.pack(">I", len(out)) + bytes(out)


def smf(tracks, end_tick):
    head = b"MThd" + struct.pack(">IHHH", 6, 1, len(tracks), TPQ)
    return head + b"".join(t.encode(end_tick) for t in tracks)


def beats(b):
    return round(b * TPQ)


BAR = beats(4)
PIANO, BASS, DRUMS = 0, 1, 9
KICK, SNARE, HAT, CRASH, TOM_LO, TOM_MID = 36, 38, 42, 49, 45, 47


def conductor(bpm):
    t = Track("conductor")
    t.tempo(0, bpm)
    t.time_signature(0, 4, 2)
    return t


def drum_bar(t, bar, fill=False, crash=False):
    o = bar * BAR
    if crash:
        t.note(o, DRUMS, CRASH, 100, beats(1))
    for e in range(8):  # closed hi-hat eighths, accented on the beat
        if fill and e >= 6:
            continue
        t.note(o + beats(e / 2), DRUMS, HAT, 72 if e % 2 == 0 else 48, beats(0.25))
    for b in (0, 2):
        t.note(o + beats(b), DRUMS, KICK, 100, beats(0.25))
    t.note(o + beats(2.5), DRUMS, KICK, 80, beats(0.25))
    for b in (1, 3):
        t.note(o + beats(b), DRUMS, SNARE, 92, beats(0.25))
    if fill:  # beat 4: snare, snare, toms
        t.note(o + beats(3.5), DRUMS, SNARE, 84, beats(0.25))
        t.note(o + beats(3.75), DRUMS, TOM_MID, 88, beats(0.25))


def song():
    chords = {  # close voicings around middle C
        "C": [60, 64, 67], "Am": [57, 60, 64], "F": [57, 60, 65], "G": [55, 59, 62]}
    roots = {"C": 36, "Am": 33, "F": 41, "G": 43}
    progression = ["C", "Am", "F", "G"]
    melody = [
        [(76, 1), (74, 0.5), (76, 0.5), (79, 1), (76, 1)],
        [(81, 1), (79, 0.5), (76, 0.5), (72, 2)],
        [(77, 1), (81, 1), (84, 1), (81, 1)],
        [(79, 1), (77, 0.5), (76, 0.5), (74, 2)],
    ]
    piano, bass, drums = Track("piano"), Track("bass"), Track("drums")
    piano.program(0, PIANO, 0)
    piano.cc(0, PIANO, 7, 110)
    piano.cc(0, PIANO, 10, 52)
    bass.program(0, BASS, 33)
    bass.cc(0, BASS, 7, 112)
    bass.cc(0, BASS, 10, 64)
    drums.cc(0, DRUMS, 7, 100)
    drums.cc(0, DRUMS, 10, 72)
    for bar, name in enumerate(progression):
        o = bar * BAR
        pos = 0.0
        for key, dur in melody[bar]:
            piano.note(o + beats(pos), PIANO, key, 92, beats(dur) - 20)
            pos += dur
        for half in (0, 2):
            for key in chords[name]:
                piano.note(o + beats(half), PIANO, key, 56, beats(2) - 30)
        r = roots[name]
        pos = 0.0
        for key, dur in [(r, 1), (r, 0.5), (r + 7, 0.5), (r + 12, 1), (r + 7, 1)]:
            bass.note(o + beats(pos), BASS, key, 96, beats(dur * 0.9))
            pos += dur
        drum_bar(drums, bar, fill=(bar == 3), crash=(bar == 0))
    o = 4 * BAR  # final C, two beats
    piano.note(o, PIANO, 72, 92, beats(2))
    for key in [48] + chords["C"]:
        piano.note(o, PIANO, key, 60, beats(2))
    bass.note(o, BASS, 36, 100, beats(2))
    drums.note(o, DRUMS, CRASH, 100, beats(1))
    drums.note(o, DRUMS, KICK, 100, beats(0.25))
    return smf([conductor(120), piano, bass, drums], o + beats(3))


def drums_only():
    t = Track("drums")
    t.cc(0, DRUMS, 7, 100)
    drum_bar(t, 0, crash=True)
    drum_bar(t, 1, fill=True)
    o = 2 * BAR
    t.note(o, DRUMS, CRASH, 100, beats(1))
    t.note(o, DRUMS, KICK, 100, beats(0.25))
    return smf([conductor(120), t], o + beats(1))


def solo():
    t = Track("violin")
    t.program(0, PIANO, 40)
    t.cc(0, PIANO, 7, 110)
    t.cc(0, PIANO, 10, 64)
    pos = 0.0
    for key, dur, vel in [(67, 1, 80), (69, 0.5, 84), (71, 0.5, 88), (74, 1.5, 96),
                          (72, 0.5, 88), (71, 1, 86), (69, 1, 82), (67, 2, 78)]:
        t.note(beats(pos), PIANO, key, vel, beats(dur) - 10)
        pos += dur
    return smf([conductor(90), t], beats(pos + 1))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_midi.py OUTDIR")
    out = sys.argv[1]
    for name, data in (("song.mid", song()), ("drums.mid", drums_only()), ("solo.mid", solo())):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
