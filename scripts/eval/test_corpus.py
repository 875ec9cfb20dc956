"""Unit tests of the corpus labelling rule (make_corpus.py) and the peers' segment helpers
(run_peers.py), on hand-made signals and probabilities. Needs numpy and soundfile only.

    python3 -m pytest scripts/eval        or        python3 -m unittest discover scripts/eval
"""
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_corpus as mc  # noqa: E402
import run_peers as rp  # noqa: E402

HOP = mc.HOP


def tone(frames, db):
    """A 1 kHz sine of `frames` 10 ms frames at RMS `db` dBFS (whole cycles per frame)."""
    t = np.arange(frames * HOP) / mc.SR
    return np.sqrt(2) * 10 ** (db / 20) * np.sin(2 * np.pi * 1000 * t)


class LabelRuleTests(unittest.TestCase):
    def test_merge_gaps(self):
        lab = np.zeros(100, dtype=bool)
        lab[0:10] = lab[34:40] = lab[65:70] = True  # gaps of 24 and 25 frames
        out = mc.merge_gaps(lab, 25)
        self.assertTrue(out[10:34].all())           # 24 < 25: filled
        self.assertFalse(out[40:65].any())          # 25: kept
        self.assertFalse(out[70:].any())            # no speech after: not a gap
        self.assertEqual(mc.merge_gaps(np.zeros(5, dtype=bool), 25).tolist(), [False] * 5)

    def test_speech_label_relative_threshold_and_floor(self):
        # one utterance: 20 frames at -20 dBFS, 10 at -59 (within 40 dB), 10 at -61 (not), 30 silent
        x = np.concatenate([tone(20, -20), tone(10, -59), tone(10, -61), np.zeros(30 * HOP)])
        lab = mc.speech_label(x, [(0, len(x))], len(x) // HOP)
        self.assertTrue(lab[:30].all())
        self.assertFalse(lab[30:].any())
        # the same shape 50 dB lower: the floor (-90 dBFS) cuts what the relative rule keeps
        quiet = mc.speech_label(x * 10 ** (-50 / 20), [(0, len(x))], len(x) // HOP)
        self.assertTrue(quiet[:20].all())
        self.assertFalse(quiet[20:].any())

    def test_speech_label_is_per_utterance(self):
        # two utterances 30 dB apart: each is measured against its own loudest frame
        a, b = tone(20, -10), tone(20, -40)
        gap = np.zeros(40 * HOP)
        x = np.concatenate([a, gap, b])
        spans = [(0, len(a)), (len(a) + len(gap), len(x))]
        lab = mc.speech_label(x, spans, len(x) // HOP)
        self.assertTrue(lab[:20].all() and lab[60:].all())
        self.assertFalse(lab[20:60].any())

    def test_music_label(self):
        x = np.concatenate([tone(50, -20), np.zeros(40 * HOP), tone(50, -20), np.zeros(60 * HOP)])
        lab = mc.music_label(x, len(x) // HOP)
        self.assertTrue(lab[:140].all())           # 400 ms rest < 500 ms: filled
        self.assertFalse(lab[140:].any())
        self.assertFalse(mc.music_label(np.zeros(10 * HOP), 10).any())

    def test_segments_cover_the_file(self):
        lab = {"speech": np.array([0, 1, 1, 0], bool), "music": np.zeros(4, bool),
               "multi_speaker": np.array([0, 0, 1, 0], bool)}
        segs = mc.segments("a.wav", "c/x", lab, 0.04)
        self.assertEqual([(s["start"], s["end"], s["speech"], s["multi_speaker"]) for s in segs],
                         [(0.0, 0.01, False, False), (0.01, 0.02, True, False), (0.02, 0.03, True, True),
                          (0.03, 0.04, False, False)])
        self.assertTrue(all(s["condition"] == "c/x" for s in segs))

    def test_finish_multi_speaker_needs_two_talkers(self):
        n = 100 * HOP
        a, b = mc.Talker(n), mc.Talker(n)
        a.place(tone(60, -20), 0)
        b.place(tone(60, -30), 40 * HOP)
        mix, lab = mc.finish("t", [a, b], peak_db=-6)
        self.assertAlmostEqual(20 * np.log10(np.max(np.abs(mix))), -6, places=6)
        self.assertTrue(lab["speech"].all())
        self.assertEqual(np.flatnonzero(lab["multi_speaker"]).tolist(), list(range(40, 60)))
        self.assertFalse(lab["music"].any())

    def test_quantise_dither(self):
        rng = np.random.default_rng(0)
        self.assertFalse(mc.quantise(np.zeros(1000), rng, digital=True).any())
        d = mc.quantise(np.zeros(100000), rng)
        self.assertLessEqual(np.abs(d).max(), 1)               # TPDF of 1 LSB peak: -1, 0, +1
        self.assertAlmostEqual(float(np.mean(d.astype(float) ** 2)), 0.25, delta=0.01)


class PeerHelperTests(unittest.TestCase):
    def test_to_segments(self):
        segs = rp.to_segments("f", [True, True, False], 0.03, 0.085)
        self.assertEqual([(s["start"], s["end"], s["speech"]) for s in segs],
                         [(0.0, 0.06, True), (0.06, 0.085, False)])

    def test_intervals_to_segments(self):
        segs = rp.intervals_to_segments("f", [(0.5, 1.0), (1.5, 2.0)], 2.0)
        self.assertEqual([(s["start"], s["end"], s["speech"]) for s in segs],
                         [(0.0, 0.5, False), (0.5, 1.0, True), (1.0, 1.5, False), (1.5, 2.0, True)])
        self.assertEqual(len(rp.intervals_to_segments("f", [], 1.0)), 1)

    def test_silero_timestamps_rule(self):
        # chunks of 512 samples; speech in chunks 10-29, a 2-chunk dip (64 ms < 100 ms) inside
        p = [0.0] * 60
        for i in range(10, 30):
            p[i] = 0.9
        p[18] = p[19] = 0.1
        out = rp.silero_timestamps(p, 60 * 512)
        pad = 480  # 30 ms
        self.assertEqual(out, [(10 * 512 - pad, 30 * 512 + pad)])
        # a dip of 5 chunks (160 ms >= 100 ms) splits; between 0.35 and 0.5 keeps speech going
        q = [0.0] * 60
        for i in list(range(10, 20)) + list(range(25, 40)):
            q[i] = 0.9
        for i in range(40, 45):
            q[i] = 0.4
        out = rp.silero_timestamps(q, 60 * 512)
        self.assertEqual(out, [(10 * 512 - pad, 20 * 512 + pad), (25 * 512 - pad, 45 * 512 + pad)])
        # shorter than 250 ms: dropped
        r = [0.0] * 40
        for i in range(10, 16):  # 192 ms
            r[i] = 0.9
        self.assertEqual(rp.silero_timestamps(r, 40 * 512), [])


if __name__ == "__main__":
    unittest.main()
