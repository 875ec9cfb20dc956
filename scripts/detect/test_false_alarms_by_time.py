"""Unit tests of false_alarms_by_time.py: the frames called speech per class and window from a
file's start, on hand-made labels and timelines. Numpy only: scripts/test-python.sh runs them (CI).

    python -m pytest scripts/detect/test_false_alarms_by_time.py
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import false_alarms_by_time as fa  # noqa: E402


class ByTimeTests(unittest.TestCase):
    labels = {
        "m.flac": [{"condition": "music_only/recorded", "start": 0.0, "end": 3.0, "speech": False}],
        "n.flac": [{"condition": "noise_only/babble", "start": 0.0, "end": 2.5, "speech": False}],
        "c.flac": [{"condition": "clean/-25..-15dBFS", "start": 0.0, "end": 2.0, "speech": True}],
    }

    def test_windows_and_classes(self):
        # Music: speech called 0.5-1.2 s (50 frames of the first second, 20 of the second);
        # noise: 2.2-2.4 s (20 of its 50 frames after 2 s); the clean file is not counted.
        timeline = {
            "m.flac": [{"start": 0.5, "end": 1.2, "speech": True}, {"start": 1.2, "end": 3.0, "speech": False}],
            "n.flac": [{"start": 2.2, "end": 2.4, "speech": True}],
            "c.flac": [{"start": 0.0, "end": 2.0, "speech": True}],
        }
        t = fa.by_time(self.labels, timeline)
        self.assertEqual(t[("music_only", "0-1 s")], [50, 100])
        self.assertEqual(t[("music_only", "1-2 s")], [20, 100])
        self.assertEqual(t[("music_only", "2 s+")], [0, 100])
        self.assertEqual(t[("noise_only", "0-1 s")], [0, 100])
        self.assertEqual(t[("noise_only", "2 s+")], [20, 50])
        self.assertNotIn(("clean", "0-1 s"), t)

    def test_no_timeline_rows_for_a_file(self):
        t = fa.by_time(self.labels, {})
        self.assertEqual(t[("noise_only", "1-2 s")], [0, 100])


if __name__ == "__main__":
    unittest.main()
