"""Unit tests of crossval_models.py's folds and tables (numpy only; scripts/test-python.sh runs
them in CI):

    cd scripts/detect && python3 -m pytest -q test_crossval_models.py
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crossval_models as cv  # noqa: E402


class BackgroundKey(unittest.TestCase):
    groups = {"pkg:a.ogg": "pkg:album", "synthetic:pink": "synthetic:pink", "espeak-ng:en+m1": "espeak-ng:en"}

    def test_music_before_noise(self):
        entry = {"sources": {"noise": ["synthetic:pink"], "music": ["pkg:a.ogg", "sf:x"], "voices": ["v"]}}
        self.assertEqual(cv.background_key(entry, self.groups), "pkg:album")

    def test_noise_by_its_group(self):
        entry = {"sources": {"noise": ["espeak-ng:en+m1", "synthetic:pink"], "voices": ["v"]}}
        self.assertEqual(cv.background_key(entry, self.groups), "espeak-ng:en")

    def test_unknown_source_is_its_own_group(self):
        self.assertEqual(cv.background_key({"sources": {"music": ["tune:X"]}}, self.groups), "tune:X")

    def test_voice_only_has_none(self):
        self.assertIsNone(cv.background_key({"sources": {"voices": ["v"]}}, self.groups))
        self.assertIsNone(cv.background_key({}, self.groups))


class Folds(unittest.TestCase):
    def test_deterministic_and_in_range(self):
        keys = [f"pkg:{i}" for i in range(400)]
        a = [cv.fold_of(k, 3, "s") for k in keys]
        self.assertEqual(a, [cv.fold_of(k, 3, "s") for k in keys])
        self.assertEqual(set(a), {0, 1, 2})
        for f in range(3):                       # a hash, not one fold for everything
            self.assertGreater(a.count(f), 100)

    def test_salt_deals_again(self):
        keys = [f"pkg:{i}" for i in range(200)]
        self.assertNotEqual([cv.fold_of(k, 2, "a") for k in keys], [cv.fold_of(k, 2, "b") for k in keys])


class Table(unittest.TestCase):
    def test_false_alarms_over_every_frame_without_speech(self):
        out = cv.table({"music_only/recorded": [0, 30, 0, 1000]})
        self.assertEqual(out["music_only/recorded"], {"frames": 1000, "fa": 0.03})

    def test_f1_where_there_is_speech(self):
        out = cv.table({"clean/x": [80, 10, 20, 500]})
        self.assertEqual(out["clean/x"]["frames"], 100)
        self.assertAlmostEqual(out["clean/x"]["f1"], 160 / 190)


class Compare(unittest.TestCase):
    base = {"held_out": {"music_only/recorded": {"frames": 100, "fa": 0.085}, "noise_only": {"frames": 100, "fa": 0.078},
                         "clean": {"frames": 100, "f1": 0.928}, "only_in_base": {"frames": 1, "fa": 0.0}}}

    def test_rises_over_the_bound_are_listed(self):
        new = {"held_out": {"music_only/recorded": {"frames": 100, "fa": 0.098},
                            "noise_only": {"frames": 100, "fa": 0.086}, "clean": {"frames": 100, "f1": 0.90},
                            "only_in_new": {"frames": 1, "fa": 0.5}}}
        lines, over = cv.compare(self.base, new, 1.0)
        self.assertEqual(over, ["music_only/recorded"])          # +1.3 over; +0.8 within; F1 never
        self.assertEqual(len(lines), 3)                           # conditions in both runs only
        self.assertIn("OVER", next(line for line in lines if "recorded" in line))

    def test_a_wider_bound_passes(self):
        new = {"held_out": {"music_only/recorded": {"frames": 100, "fa": 0.098}}}
        self.assertEqual(cv.compare(self.base, new, 1.5)[1], [])

    def test_rows_with_few_frames_are_shown_not_counted(self):
        new = {"held_out": {"music_only/recorded": {"frames": 100, "fa": 0.098},
                            "noise_only": {"frames": 40, "fa": 0.20}}}
        lines, over = cv.compare(self.base, new, 1.0, min_frames=50)
        self.assertEqual(over, ["music_only/recorded"])          # noise_only: 40 frames held out
        self.assertIn("few frames", next(line for line in lines if "noise_only" in line))
        self.assertEqual(cv.compare(self.base, new, 1.0, min_frames=101)[1], [])


if __name__ == "__main__":
    unittest.main()
