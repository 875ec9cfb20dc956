"""Public-domain tunes as Standard MIDI Files, for the evaluation corpus (issue #4).

Standard library only. The MIDI writer (Track, smf) is scripts/testaudio/make_midi.py's; this
module adds a small note notation, chord accompaniments, drum grids, and the arrangements:

    notes   "E5/1 D#5/.5 R/2"  name+octave (C4 = 60) or R (rest), '/', length in beats
    chords  "C/4 Am/2 G7/2"    chord symbol, '/', length in beats; styles: block, alberti, arp,
                               bass, strum, pad
    drums   {key: "x..x..."}   one step per character (x = accent, o = soft, . = nothing)

Every tune below is traditional or by a composer who died more than a century ago (Beethoven,
Bach, Pachelbel, Petzold, folk songs, Pierpont's Jingle Bells of 1857); the arrangements are ours.
`PIECES` maps a name to (description, callable returning the MIDI bytes).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testaudio"))
from make_midi import TPQ, Track, smf  # noqa: E402

DRUM_CH = 9
NOTE = {"C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11}
QUALITY = {"": (0, 4, 7), "m": (0, 3, 7), "7": (0, 4, 7, 10), "m7": (0, 3, 7, 10), "maj7": (0, 4, 7, 11)}


def ticks(b):
    return round(b * TPQ)


def key_of(name):
    """'C#4' -> 61."""
    n = NOTE[name[0]]
    i = 1
    while i < len(name) and name[i] in "#b":
        n += 1 if name[i] == "#" else -1
        i += 1
    return n + 12 * (int(name[i:]) + 1)


def parse(notes):
    """'E4/1 R/.5' -> [(key or None, beats)]."""
    out = []
    for tok in notes.split():
        name, dur = tok.split("/")
        out.append((None if name == "R" else key_of(name), float(dur)))
    return out


def chord_keys(symbol, octave=3):
    root = symbol[0]
    i = 1
    if i < len(symbol) and symbol[i] in "#b":
        i += 1
    base = key_of(symbol[:i] + str(octave))
    return [base + k for k in QUALITY[symbol[i:]]]


class Part:
    def __init__(self, name, ch, program, volume=100, pan=64):
        self.t = Track(name)
        self.ch = ch
        if ch != DRUM_CH:
            self.t.program(0, ch, program)
        elif program:                 # a drum kit other than Standard (GM2/GS kit numbers)
            self.t.program(0, ch, program)
        self.t.cc(0, ch, 7, volume)
        self.t.cc(0, ch, 10, pan)

    def melody(self, notes, start=0.0, vel=90, transpose=0, legato=0.92):
        pos = start
        for k, d in parse(notes):
            if k is not None:
                self.t.note(ticks(pos), self.ch, k + transpose, vel, max(1, ticks(d * legato)))
            pos += d
        return pos

    def chords(self, chords, style, start=0.0, vel=60, octave=3):
        pos = start
        for tok in chords.split():
            sym, d = tok.split("/")
            d = float(d)
            if sym == "R":
                pos += d
                continue
            ks = chord_keys(sym, octave)
            if style == "block":      # the chord on every beat
                b = 0.0
                while b < d - 1e-9:
                    for k in ks:
                        self.t.note(ticks(pos + b), self.ch, k + 12, vel, ticks(0.85))
                    b += 1
            elif style == "pad":      # held
                for k in ks:
                    self.t.note(ticks(pos), self.ch, k + 12, vel, ticks(d) - 10)
            elif style in ("alberti", "arp"):  # eighths
                pat = [0, 2, 1, 2] if style == "alberti" else [0, 1, 2, 1 + len(ks) - 1]
                seq = ks + [ks[0] + 12]
                n = int(round(d * 2))
                for j in range(n):
                    k = seq[pat[j % 4] % len(seq)]
                    self.t.note(ticks(pos + j / 2), self.ch, k + (12 if style == "arp" else 0), vel,
                                ticks(0.45))
            elif style == "bass":     # root on the beat, fifth on the off-beat of 2 and 4
                b = 0.0
                while b < d - 1e-9:
                    k = ks[0] - 12 + (7 if int(b) % 2 == 1 else 0)
                    self.t.note(ticks(pos + b), self.ch, k, vel, ticks(0.8))
                    b += 1
            elif style == "strum":    # guitar: bass note then the chord rolled
                b = 0.0
                while b < d - 1e-9:
                    if int(b) % 2 == 0:
                        self.t.note(ticks(pos + b), self.ch, ks[0] - 12 + 12, vel + 6, ticks(0.9))
                    else:
                        for i, k in enumerate(ks):
                            self.t.note(ticks(pos + b) + 18 * i, self.ch, k + 12, vel, ticks(0.8))
                    b += 1
            else:
                raise ValueError(style)
            pos += d
        return pos

    def drums(self, grid, bars, start=0.0, steps_per_beat=4, vel=(100, 60)):
        steps = max(len(g) for g in grid.values())
        for bar in range(bars):
            o = start + bar * steps / steps_per_beat
            for key, g in grid.items():
                for s, c in enumerate(g):
                    if c in "xo":
                        self.t.note(ticks(o + s / steps_per_beat), self.ch, key,
                                    vel[0] if c == "x" else vel[1], ticks(0.2))
        return start + bars * steps / steps_per_beat


def conductor(bpm, num=4):
    t = Track("conductor")
    t.tempo(0, bpm)
    t.time_signature(0, num, 2)
    return t


def song(bpm, parts, end_beats, num=4):
    return smf([conductor(bpm, num)] + [p.t for p in parts], ticks(end_beats + 1))


# --------------------------------------------------------------------------------------------------
# Melodies
# --------------------------------------------------------------------------------------------------

ODE = ("E4/1 E4/1 F4/1 G4/1 G4/1 F4/1 E4/1 D4/1 C4/1 C4/1 D4/1 E4/1 E4/1.5 D4/.5 D4/2 "
       "E4/1 E4/1 F4/1 G4/1 G4/1 F4/1 E4/1 D4/1 C4/1 C4/1 D4/1 E4/1 D4/1.5 C4/.5 C4/2")
ODE_CH = "C/4 G/4 C/4 G/4 C/4 G/4 C/4 G/2 C/2"
MINUET = ("D5/1 G4/.5 A4/.5 B4/.5 C5/.5 D5/1 G4/1 G4/1 E5/1 C5/.5 D5/.5 E5/.5 F#5/.5 G5/1 G4/1 G4/1 "
          "C5/1 D5/.5 C5/.5 B4/.5 A4/.5 B4/1 C5/.5 B4/.5 A4/.5 G4/.5 F#4/1 G4/.5 A4/.5 B4/.5 G4/.5 A4/3 "
          "D5/1 G4/.5 A4/.5 B4/.5 C5/.5 D5/1 G4/1 G4/1 E5/1 C5/.5 D5/.5 E5/.5 F#5/.5 G5/1 G4/1 G4/1 "
          "C5/1 D5/.5 C5/.5 B4/.5 A4/.5 B4/1 C5/.5 B4/.5 A4/.5 G4/.5 A4/1 B4/.5 A4/.5 G4/.5 F#4/.5 G4/3")
GRACE = ("D4/1 G4/2 B4/.5 G4/.5 B4/2 A4/1 G4/2 E4/1 D4/2 D4/1 G4/2 B4/.5 G4/.5 B4/2 A4/1 D5/3 R/2 "
         "B4/1 D5/1.5 B4/.5 D5/.5 B4/.5 G4/2 D4/1 E4/1.5 G4/.5 G4/.5 E4/.5 D4/2 D4/1 G4/2 B4/.5 G4/.5 "
         "B4/2 A4/1 G4/3")
GRACE_CH = "R/1 G/3 G/3 C/3 G/3 G/3 G/3 D/3 D/3 G/3 G/3 C/3 G/3 G/3 D/3 G/3"
GREEN = ("A4/1 C5/2 D5/1 E5/1.5 F5/.5 E5/1 D5/2 B4/1 G4/1.5 A4/.5 B4/1 C5/2 A4/1 A4/1.5 G#4/.5 A4/1 "
         "B4/2 G#4/1 E4/2 A4/1 C5/2 D5/1 E5/1.5 F5/.5 E5/1 D5/2 B4/1 G4/1.5 A4/.5 B4/1 C5/1.5 B4/.5 "
         "A4/1 G#4/1.5 F#4/.5 G#4/1 A4/3")
GREEN_CH = "R/1 Am/3 G/3 Em/3 Am/3 Am/3 E/3 E/3 Am/3 G/3 Em/3 Am/3 E/3 Am/3"
TWINKLE = ("C5/1 C5/1 G5/1 G5/1 A5/1 A5/1 G5/2 F5/1 F5/1 E5/1 E5/1 D5/1 D5/1 C5/2 "
           "G5/1 G5/1 F5/1 F5/1 E5/1 E5/1 D5/2 G5/1 G5/1 F5/1 F5/1 E5/1 E5/1 D5/2 "
           "C5/1 C5/1 G5/1 G5/1 A5/1 A5/1 G5/2 F5/1 F5/1 E5/1 E5/1 D5/1 D5/1 C5/2")
TWINKLE_CH = ("C/2 C/2 F/2 C/2 F/2 C/2 G/2 C/2 C/2 F/2 C/2 G/2 C/2 F/2 C/2 G/2 "
              "C/2 C/2 F/2 C/2 F/2 C/2 G/2 C/2")
FRERE = ("C4/1 D4/1 E4/1 C4/1 C4/1 D4/1 E4/1 C4/1 E4/1 F4/1 G4/2 E4/1 F4/1 G4/2 "
         "G4/.5 A4/.5 G4/.5 F4/.5 E4/1 C4/1 G4/.5 A4/.5 G4/.5 F4/.5 E4/1 C4/1 C4/1 G3/1 C4/2 C4/1 G3/1 C4/2")
SAINTS = ("R/1 C4/1 E4/1 F4/1 G4/4 R/1 C4/1 E4/1 F4/1 G4/4 R/1 C4/1 E4/1 F4/1 G4/2 E4/2 C4/2 E4/2 D4/4 "
          "R/1 E4/1 E4/1 D4/1 C4/3 C4/1 E4/2 G4/2 G4/1 F4/3 R/1 E4/1 F4/1 G4/1 E4/2 C4/2 D4/2 C4/4")
SAINTS_CH = "C/4 C/4 C/4 C/4 C/4 C/4 G/4 G7/4 C/4 C7/4 F/4 F/4 C/4 G7/4 C/4 C/4"
JINGLE = ("E5/1 E5/1 E5/2 E5/1 E5/1 E5/2 E5/1 G5/1 C5/1.5 D5/.5 E5/4 F5/1 F5/1 F5/1.5 F5/.5 F5/1 E5/1 "
          "E5/1 E5/.5 E5/.5 E5/1 D5/1 D5/1 E5/1 D5/2 G5/2 E5/1 E5/1 E5/2 E5/1 E5/1 E5/2 E5/1 G5/1 "
          "C5/1.5 D5/.5 E5/4 F5/1 F5/1 F5/1.5 F5/.5 F5/1 E5/1 E5/1 E5/.5 E5/.5 G5/1 G5/1 F5/1 D5/1 C5/4")
JINGLE_CH = "C/4 C/4 C/4 C/4 F/4 C/4 D7/4 G/4 C/4 C/4 C/4 C/4 F/4 C/4 G7/4 C/4"
SCARB = ("D4/2 D4/1 A4/2 A4/1 E4/1.5 F4/.5 E4/1 D4/3 R/1 A4/1 C5/1 D5/2 C5/1 A4/1 B4/1 G4/1 A4/3 R/3 "
         "D5/2 D5/1 D5/2 C5/1 A4/2 A4/1 G4/1 F4/1 E4/1 C4/3 R/2 D4/1 A4/2 G4/1 F4/2 E4/1 D4/1 C4/1 E4/1 D4/3")
SCARB_CH = "Dm/3 Dm/3 C/3 Dm/3 Dm/3 F/3 C/3 Dm/3 R/3 Dm/3 Dm/3 F/3 C/3 Am/3 C/3 Dm/3"
CANON_BASS = "D3/2 A2/2 B2/2 F#2/2 G2/2 D2/2 G2/2 A2/2"
CANON_CH = "D/2 A/2 Bm/2 F#m/2 G/2 D/2 G/2 A/2"
CANON_MEL = ("F#5/2 E5/2 D5/2 C#5/2 B4/2 A4/2 B4/2 C#5/2 "
             "D5/1 C#5/1 B4/1 A4/1 G4/1 F#4/1 G4/1 E4/1 D4/1 F#4/1 A4/1 G4/1 F#4/1 D4/1 F#4/1 E4/1")
PRELUDE = [[60, 64, 67, 72, 76], [60, 62, 69, 74, 77], [59, 62, 67, 74, 77], [60, 64, 67, 72, 76],
           [60, 64, 69, 76, 81], [60, 62, 66, 69, 74], [59, 62, 67, 74, 79], [59, 60, 64, 67, 72]]

# GM drum keys
KICK, SNARE, CLAP, HAT, HAT_OPEN, RIDE, CRASH, TOM_L, TOM_M, TOM_H = 36, 38, 39, 42, 46, 51, 49, 45, 47, 50
BONGO_H, BONGO_L, CONGA_MUTE, CONGA_H, CONGA_L, COWBELL, MARACAS, CLAVES, SHAKER = 60, 61, 62, 63, 64, 56, 70, 75, 82
ROCK = {KICK: "x.....x.x.......", SNARE: "....x.......x...", HAT: "x.o.x.o.x.o.x.o."}
ROCK_FILL = {KICK: "x.....x.x.......", SNARE: "....x.......xoxo", HAT: "x.o.x.o.x.......",
             TOM_M: "............x...", TOM_L: "..............x."}
SHUFFLE = {KICK: "x.....x.....", SNARE: "...x.....x..", RIDE: "x.ox.ox.ox.o"}   # 12 steps = triplets
LATIN = {CONGA_H: "..x...x...x..x..", CONGA_L: "x.....x.....x...", CONGA_MUTE: "....o.......o...",
         BONGO_H: "x.o.x.o.x.o.x.o.", COWBELL: "x...x...x...x...", SHAKER: "oxoxoxoxoxoxoxox",
         CLAVES: "x..x..x...x.x..."}
DANCE = {KICK: "x...x...x...x...", CLAP: "....x.......x...", HAT_OPEN: "..x...x...x...x.", HAT: "oxo.oxo.oxo.oxo."}
HAT_PEDAL, SIDE_STICK, TAMBOURINE, WOODBLOCK_H = 44, 37, 54, 76
FUNK = {KICK: "x..x..x...x..x..", SNARE: "....x..o.o..x..o", HAT: "xoxoxoxoxoxoxoxo"}
FUNK_FILL = {KICK: "x..x..x.........", SNARE: "....x..o.oxoxxxx", HAT: "xoxoxoxo........", TOM_H: "..........x.....",
             TOM_L: "............x..."}
SWING = {RIDE: "x..x.xx..x.x", HAT_PEDAL: "...x.....x..", KICK: "o.....o.....", SNARE: ".....o.....o"}  # triplets
HIPHOP = {KICK: "x......x..x.....", CLAP: "....x.......x...", HAT: "x.x.x.x.x.xxx.x."}
MARCH = {SNARE: "x.oox.oox.ooxxxx", KICK: "x.......x.......", CRASH: "x...............",
         TOM_L: "........x.......", WOODBLOCK_H: "....x.......x..."}
ONE_DROP = {SIDE_STICK: "........x.......", KICK: "........x.......", HAT: "x.x.x.x.x.x.x.x.",
            TAMBOURINE: "..x...x...x...x."}


def ode_piano():
    rh, lh = Part("rh", 0, 0, 110, 70), Part("lh", 1, 0, 96, 56)
    end = rh.melody(ODE, vel=92, transpose=12)
    lh.chords(ODE_CH, "alberti", vel=56)
    return song(108, [rh, lh], end)


def minuet_violin():
    v = Part("violin", 0, 40, 112)
    end = v.melody(MINUET, vel=92, legato=0.97)
    return song(112, [v], end, num=3)


def grace_flute():
    f = Part("flute", 0, 73, 115)
    end = f.melody(GRACE, vel=96, transpose=12, legato=0.98)
    return song(84, [f], end, num=3)


def green_guitar():
    g = Part("guitar", 0, 24, 120)
    end = g.melody(GREEN, vel=100)
    g.chords(GREEN_CH, "arp", vel=62, octave=2)
    return song(100, [g], end, num=3)


def twinkle_marimba():
    m = Part("marimba", 0, 12, 115)
    end = m.melody(TWINKLE, vel=100)
    m.chords(TWINKLE_CH, "block", vel=58)
    return song(116, [m], end)


def prelude_harpsichord():
    h = Part("harpsichord", 0, 6, 115)
    pos = 0.0
    for bar in PRELUDE:
        for half in range(2):
            o = pos + 2 * half
            h.t.note(ticks(o), 0, bar[0], 80, ticks(2) - 10)
            h.t.note(ticks(o + 0.25), 0, bar[1], 76, ticks(1.75) - 10)
            for i, k in enumerate(bar[2:] * 2):
                h.t.note(ticks(o + 0.5 + 0.25 * i), 0, k, 84, ticks(0.25) - 5)
        pos += 4
    return song(72, [h], pos)


def canon_strings():
    bass, strings, violin = Part("cello", 0, 42, 108, 40), Part("strings", 1, 48, 90), Part("violin", 2, 40, 110, 90)
    end = 0.0
    for rep in range(3):
        bass.melody(CANON_BASS, start=16 * rep, vel=84, legato=0.97)
        end = strings.chords(CANON_CH, "pad", start=16 * rep, vel=62, octave=4)
    violin.melody(CANON_MEL, start=16, vel=90, legato=0.97)
    return song(76, [bass, strings, violin], end)


def frere_woodwinds():
    cl, ob, bn = Part("clarinet", 0, 71, 110, 50), Part("oboe", 1, 68, 104, 78), Part("bassoon", 2, 70, 112, 64)
    cl.melody(FRERE, vel=92, transpose=12)
    ob.melody(FRERE, start=8, vel=88, transpose=12)
    end = bn.melody(FRERE, start=16, vel=96, transpose=-12)
    return song(112, [cl, ob, bn], end)


def saints_brass():
    tp, tb, tu, dr = Part("trumpet", 0, 56, 112, 70), Part("trombone", 1, 57, 92, 50), Part("tuba", 2, 58, 104), Part("drums", DRUM_CH, 0, 96)
    end = tp.melody(SAINTS, vel=100, transpose=12)
    tb.chords(SAINTS_CH, "block", vel=58)
    tu.chords(SAINTS_CH, "bass", vel=90, octave=3)
    dr.drums(SHUFFLE, 16, steps_per_beat=3)
    return song(132, [tp, tb, tu, dr], end)


def jingle_band():
    pn, bs, dr = Part("piano", 0, 0, 104, 50), Part("bass", 1, 33, 112), Part("drums", DRUM_CH, 0, 100)
    end = pn.melody(JINGLE, vel=96)
    pn.chords(JINGLE_CH, "block", vel=56)
    bs.chords(JINGLE_CH, "bass", vel=96, octave=3)
    for bar in range(16):
        dr.drums(ROCK_FILL if bar % 4 == 3 else ROCK, 1, start=4 * bar)
    return song(140, [pn, bs, dr], end)


def scarborough_choir():
    ch, hp = Part("choir", 0, 52, 112, 60), Part("harp", 1, 46, 100, 70)
    end = ch.melody(SCARB, vel=96, transpose=12, legato=0.98)
    hp.chords(SCARB_CH, "arp", vel=70, octave=3)
    return song(92, [ch, hp], end, num=3)


def grace_organ():
    o = Part("organ", 0, 19, 100)
    end = o.melody(GRACE, vel=90, transpose=12, legato=0.98)
    o.chords(GRACE_CH, "pad", vel=64, octave=3)
    return song(80, [o], end, num=3)


def drums_rock():
    d = Part("drums", DRUM_CH, 0, 110)
    end = 0.0
    for bar in range(12):
        end = d.drums(ROCK_FILL if bar % 4 == 3 else ROCK, 1, start=4 * bar)
    d.t.note(ticks(0), DRUM_CH, CRASH, 100, ticks(1))
    return song(110, [d], end)


def drums_shuffle():
    d = Part("drums", DRUM_CH, 0, 110)
    end = d.drums(SHUFFLE, 12, steps_per_beat=3)
    return song(96, [d], end)


def drums_latin():
    d = Part("percussion", DRUM_CH, 0, 110)
    end = d.drums(LATIN, 12)
    return song(104, [d], end)


def drums_dance():
    d = Part("drums", DRUM_CH, 0, 110)
    end = d.drums(DANCE, 12)
    return song(124, [d], end)


def drums_funk():
    d = Part("drums", DRUM_CH, 0, 110)
    end = 0.0
    for bar in range(12):
        end = d.drums(FUNK_FILL if bar % 4 == 3 else FUNK, 1, start=4 * bar, vel=(104, 44))
    return song(98, [d], end)


def drums_jazz_brushes():
    d = Part("drums", DRUM_CH, 40, 112)           # GS Brush kit
    end = d.drums(SWING, 20, steps_per_beat=3, vel=(96, 64))
    return song(152, [d], end)


def drums_hiphop_808():
    d = Part("drums", DRUM_CH, 25, 108)           # GS TR-808 kit
    end = d.drums(HIPHOP, 9)
    return song(86, [d], end)


def drums_march():
    d = Part("drums", DRUM_CH, 48, 110)           # GS Orchestra kit
    end = d.drums(MARCH, 14, vel=(108, 70))
    return song(116, [d], end)


def drums_taiko():
    """Taiko, melodic tom and woodblock as pitched GM instruments (no drum channel)."""
    tk, tm, wb = Part("taiko", 0, 116, 120), Part("melodic tom", 1, 117, 100), Part("woodblock", 2, 115, 90)
    grid = {0: ("x..x..x.x...x.x.", tk, 38), 1: ("..o...o...oo..o.", tk, 45), 2: ("....x.......x.xx", tm, 52),
            3: ("x.x.x.x.x.x.x.x.", wb, 72)}
    for bar in range(12):
        for pattern, part, key in grid.values():
            for s_, c in enumerate(pattern):
                if c in "xo":
                    part.t.note(ticks(4 * bar + s_ / 4), part.ch, key, 110 if c == "x" else 70, ticks(0.3))
    return song(108, [tk, tm, wb], 48)


def drums_reggae():
    d = Part("drums", DRUM_CH, 8, 108)            # GS Room kit
    end = d.drums(ONE_DROP, 12)
    return song(76, [d], end)


PIECES = {
    "solo_piano_ode_to_joy": ("Beethoven, Ode to Joy: piano, melody + Alberti bass", ode_piano),
    "solo_violin_minuet_g": ("Petzold, Minuet in G (BWV Anh. 114): solo violin", minuet_violin),
    "solo_flute_amazing_grace": ("Amazing Grace (trad.): solo flute", grace_flute),
    "solo_guitar_greensleeves": ("Greensleeves (trad.): solo nylon guitar, melody + arpeggios", green_guitar),
    "solo_marimba_twinkle": ("Twinkle, Twinkle (trad.): solo marimba", twinkle_marimba),
    "solo_harpsichord_prelude_c": ("Bach, Prelude in C (BWV 846), bars 1-8: harpsichord", prelude_harpsichord),
    "strings_canon_d": ("Pachelbel, Canon in D: cello, string ensemble, violin", canon_strings),
    "woodwinds_frere_jacques": ("Frere Jacques (trad.) as a round: clarinet, oboe, bassoon", frere_woodwinds),
    "brass_saints": ("When the Saints (trad.): trumpet, trombone, tuba, shuffle drums", saints_brass),
    "band_jingle_bells": ("Pierpont, Jingle Bells: piano, bass, rock drums", jingle_band),
    "choir_harp_scarborough": ("Scarborough Fair (trad.): choir aahs + harp", scarborough_choir),
    "organ_amazing_grace": ("Amazing Grace (trad.): church organ with chords", grace_organ),
    "drums_rock": ("drum kit: rock groove with fills", drums_rock),
    "drums_shuffle": ("drum kit: shuffle on the ride", drums_shuffle),
    "drums_latin": ("hand percussion: congas, bongos, cowbell, shaker, claves", drums_latin),
    "drums_dance": ("drum machine style: four-on-the-floor, claps, open hats", drums_dance),
    "drums_funk": ("drum kit: sixteenth-note funk groove with ghost notes and fills", drums_funk),
    "drums_jazz_brushes": ("brush kit: jazz swing on the ride, hi-hat on 2 and 4", drums_jazz_brushes),
    "drums_hiphop_808": ("TR-808 kit: hip-hop beat", drums_hiphop_808),
    "drums_march": ("orchestra kit: snare march, bass drum, cymbal, woodblock", drums_march),
    "drums_taiko": ("taiko ensemble: taiko, melodic tom, woodblock", drums_taiko),
    "drums_reggae": ("room kit: reggae one-drop with cross-stick and tambourine", drums_reggae),
}
