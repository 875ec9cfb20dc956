"""Unit tests of fit_models.py's pieces that the held-out figures depend on: the ensemble
folded into one network, the 0.5 s window counting of the multi-speaker weight selection, the
10 ms frame counting and segmenter replay of the speech-settings selection, and the percussion
pieces of the corpus. Needs numpy only.

    python3 -m pytest scripts/eval        or        python3 -m unittest discover scripts/eval
"""
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit_models as fm  # noqa: E402
import tunes  # noqa: E402


class EnsembleTests(unittest.TestCase):
    def test_one_network_computes_the_members_mean_logit(self):
        rng = np.random.default_rng(7)
        x = rng.normal(size=(600, 5))
        y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(float)
        ens = fm.Ensemble(5, hidden=4, members=3).fit(x, y, epochs=10, batch=32)
        members = [fm.Network(5, 4, seed=1 + k).fit(x, y, epochs=10, batch=32) for k in range(3)]
        self.assertEqual(ens.w1.shape, (12, 5))
        expected = np.mean([m.logit(x) for m in members], axis=0)
        np.testing.assert_allclose(ens.logit(x), expected, rtol=1e-9, atol=1e-9)
        self.assertGreater(((ens(x) > 0.5) == (y > 0)).mean(), 0.9)   # it learned something

    def test_swift_source_has_the_folded_shape(self):
        x = np.random.default_rng(1).normal(size=(200, 3))
        ens = fm.Ensemble(3, hidden=2, members=2).fit(x, (x[:, 0] > 0).astype(float), epochs=1)
        src = ens.swift("m", "test")
        weights = src.split("hiddenWeights: [")[1].split("]")[0].split(", ")
        self.assertEqual(len(weights), 4 * 3)
        self.assertEqual(len(src.split("outputWeights: [")[1].split("]")[0].split(", ")), 4)


class WindowCountTests(unittest.TestCase):
    def test_half_of_a_window_decides(self):
        w = 4
        ref = np.array([1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1], dtype=bool)  # windows: +, -, +, (2 frames: +)
        hyp = np.array([1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1], dtype=bool)  # windows: -, +, -, +
        self.assertEqual(fm.window_counts(hyp, ref, window=w), (1, 1, 2))

    def test_short_tail_is_dropped(self):
        ref = np.ones(5, dtype=bool)
        self.assertEqual(fm.window_counts(ref, ref, window=4), (1, 0, 0))


class SpeechSettingsTests(unittest.TestCase):
    def test_frame_counts_match_the_scorer(self):
        # Labels: speech 0.10-0.50 s; hypothesis 0.05-0.30 and 0.40-0.60 s, on 10 ms frames.
        ref = [{"start": 0.0, "end": 0.10, "speech": False}, {"start": 0.10, "end": 0.50, "speech": True},
               {"start": 0.50, "end": 0.70, "speech": False}]
        count = 70
        tp, fp, fn = fm.frame_counts([(0.05, 0.30), (0.40, 0.60)], ref, count)
        self.assertEqual((tp, fp, fn), (20 + 10, 5 + 10, 10))
        self.assertEqual(fm.frame_counts([], ref, count), (0, 0, 40))

    def test_grid_holds_the_a_priori_segmenter_and_valid_settings(self):
        self.assertIn(fm.SEGMENTS["speech"], fm.SPEECH_SEGMENT_GRID)
        for on, off, min_active, hangover, padding, end in fm.SPEECH_SEGMENT_GRID:
            self.assertTrue(0 <= off <= on <= 1 and min_active >= 0 and hangover >= 0 and padding >= 0)
            self.assertTrue(end is None or off <= end <= 1)

    def test_segment_replays_the_segmenter(self):
        c = {"time": np.arange(20) * fm.HOP}
        p = np.array([0] * 5 + [1] * 6 + [0] * 9, dtype=float)     # active frames 5-10
        # on 0.5, off 0.35, 2 frames to open, 3 frames of hangover, 16 ms padding
        segs = fm.segment(c, p, (0.5, 0.35, 2 * fm.HOP, 3 * fm.HOP, fm.HOP))
        self.assertEqual(len(segs), 1)
        self.assertAlmostEqual(segs[0][0], 4 * fm.HOP)
        self.assertAlmostEqual(segs[0][1], 12 * fm.HOP)

    def test_end_threshold_back_dates_the_end(self):
        c = {"time": np.arange(20) * fm.HOP}
        # opens on frames 3-4 (>= 0.5), stays above the off threshold 0.35 up to frame 10, at or
        # above 0.7 last at frame 6; closes after 3 frames of hangover (frames 11-13).
        p = np.array([0, 0, 0, 0.6, 0.8, 0.9, 0.7, 0.6, 0.5, 0.4, 0.4, 0.1, 0.1, 0.1, 0, 0, 0, 0, 0, 0])
        params = (0.5, 0.35, 2 * fm.HOP, 3 * fm.HOP, 0.0)
        self.assertEqual(len(fm.segment(c, p, params)), 1)
        self.assertAlmostEqual(fm.segment(c, p, params)[0][1], 11 * fm.HOP)             # off threshold
        self.assertAlmostEqual(fm.segment(c, p, params + (None,))[0][1], 11 * fm.HOP)
        self.assertAlmostEqual(fm.segment(c, p, params + (0.7,))[0][1], 7 * fm.HOP)     # end threshold
        self.assertAlmostEqual(fm.segment(c, p, params + (0.7,))[0][0], 3 * fm.HOP)
        # never reached after opening: the segment ends with the frame that opened it
        self.assertAlmostEqual(fm.segment(c, p, params + (0.95,))[0][1], 5 * fm.HOP)
        # below the off threshold counts as the off threshold
        self.assertAlmostEqual(fm.segment(c, p, params + (0.2,))[0][1], 11 * fm.HOP)


class PercussionTests(unittest.TestCase):
    def test_drum_pieces_are_valid_midi(self):
        drums = [name for name in tunes.PIECES if name.startswith("drums_")]
        self.assertGreaterEqual(len(drums), 10)
        for name in drums:
            data = tunes.PIECES[name][1]()
            self.assertEqual(data[:4], b"MThd", name)
            self.assertGreater(len(data), 200, name)


if __name__ == "__main__":
    unittest.main()
