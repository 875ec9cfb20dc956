"""Unit tests of startup_probe.py: its counting (speech recall by time from a stream's start) on
hand-made labels and timelines, and where it cuts a stream. Numpy only: scripts/test-python.sh runs them (CI).

    python -m pytest scripts/detect/test_startup_probe.py
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import startup_probe as sp  # noqa: E402


class CountTests(unittest.TestCase):
    # One probe file cut 2.0 s into its source: speech for its first 1.5 s, then none.
    man = [{"audio_filepath": "p/00000.flac", "source": "val/clean/a.flac", "offset": 2.0}]
    labels = {"p/00000.flac": [{"start": 0.0, "end": 1.5, "speech": True}, {"start": 1.5, "end": 3.0, "speech": False}]}

    def test_recall_per_window(self):
        # Called speech from 0.25 s to 2.5 s: nothing of the first two windows, half of the third.
        hyp = {"p/00000.flac": [{"start": 0.25, "end": 2.5, "speech": True}]}
        t = sp.counts(self.man, self.labels, [("s", hyp, False)])
        self.assertEqual(t[(0.0, 0.1)]["s"], [0, 10, 0, 0])
        self.assertEqual(t[(0.2, 0.3)]["s"], [5, 10, 0, 0])
        self.assertEqual(t[(1.0, 1.5)]["s"], [50, 50, 0, 0])
        # 1.5-2.0 s: no speech in the labels, all 50 frames called.
        self.assertEqual(t[(1.5, 2.0)]["s"], [0, 0, 50, 50])
        # 2.0-3.0 s: 50 of 100 non-speech frames called.
        self.assertEqual(t[(2.0, 3.0)]["s"], [0, 0, 50, 100])

    def test_uncut_timeline_is_read_at_the_offset(self):
        # The source's timeline, 2.0 s later: speech called from 2.0 to 2.1 s of the source is the
        # probe's first window.
        hyp = {"val/clean/a.flac": [{"start": 2.0, "end": 2.1, "speech": True}]}
        t = sp.counts(self.man, self.labels, [("u", hyp, True)])
        self.assertEqual(t[(0.0, 0.1)]["u"], [10, 10, 0, 0])
        self.assertEqual(t[(0.1, 0.2)]["u"], [0, 10, 0, 0])

    def test_pooled_recall(self):
        # Called speech from 0.25 s on: 0.1-0.5 s holds 40 speech frames, 25 of them called; 0.5-1.0 s
        # all 50 of 50. Pooled over frames, not averaged over windows.
        hyp = {"p/00000.flac": [{"start": 0.25, "end": 2.5, "speech": True}]}
        t = sp.counts(self.man, self.labels, [("s", hyp, False)])
        self.assertAlmostEqual(sp.pooled(t, "s", 0.1, 0.5), 100 * 25 / 40)
        self.assertAlmostEqual(sp.pooled(t, "s", 0.5, 1.0), 100.0)
        # The labels' speech ends at 1.5 s: 1.0-1.5 s is one window of 50 frames, all called.
        self.assertAlmostEqual(sp.pooled(t, "s", 1.0, 1.5), 100.0)

    def test_missing_timeline(self):
        with self.assertRaises(KeyError):
            sp.counts(self.man, self.labels, [("s", {}, False)])


class OpeningTests(unittest.TestCase):
    segs = [{"start": 0.0, "end": 0.8, "speech": False}, {"start": 0.8, "end": 1.6, "speech": True},
            {"start": 1.6, "end": 2.0, "speech": False}, {"start": 2.0, "end": 4.0, "speech": True},
            {"start": 4.0, "end": 6.0, "speech": False}]

    def test_speech_opening_is_the_first_long_utterance(self):
        # 0.8-1.6 s is too short (0.8 s); 2.0-4.0 s is the first of 1.5 s or more.
        self.assertEqual(sp.opening(self.segs, "speech"), 2.0)
        self.assertIsNone(sp.opening([{"start": 0.2, "end": 3.0, "speech": True}], "speech"))  # before 0.5 s

    def test_non_speech_opening(self):
        # The lead-in (0-0.8 s) holds 0.3 s from 0.5 s on; 1.6-2.0 s too little; 4.0-6.0 s is it.
        self.assertEqual(sp.opening(self.segs, "non-speech"), 4.0)
        # Music alone from the file's start: 0.5 s in.
        self.assertEqual(sp.opening([{"start": 0.0, "end": 10.0, "speech": False}], "non-speech"), 0.5)
        self.assertIsNone(sp.opening([{"start": 0.0, "end": 1.9, "speech": False}], "non-speech"))

    def test_a_further_opening(self):
        # --after 3.5: music from 4.0 s on; speech: 2.0-4.0 s starts before 4.0 s, none after.
        self.assertEqual(sp.opening([{"start": 0.0, "end": 10.0, "speech": False}], "non-speech", 3.5), 4.0)
        self.assertIsNone(sp.opening(self.segs, "speech", 3.5))
        self.assertIsNone(sp.opening(self.segs, "non-speech", 4.6))  # 5.1-6.0 s is under 1.5 s

    def test_lead(self):
        self.assertEqual(sp.lead_of("a.flac", 0.2, None), 0.2)
        a, b = sp.lead_of("a.flac", 0.2, (0.05, 0.5)), sp.lead_of("b.flac", 0.2, (0.05, 0.5))
        self.assertTrue(0.05 <= a < 0.5 and 0.05 <= b < 0.5)
        self.assertNotEqual(a, b)
        self.assertEqual(a, sp.lead_of("a.flac", 0.2, (0.05, 0.5)))


if __name__ == "__main__":
    unittest.main()
