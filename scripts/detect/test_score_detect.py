"""Unit tests of issue #23's scorer, score_detect.py (and the counting it takes from
scripts/eval/score.py), on hand-made labels and timelines. Numpy only, so that they run without the
generator's packages: scripts/test-python.sh runs them (CI) beside scripts/eval/test_score.py.

    python -m pytest scripts/detect/test_score_detect.py
"""
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import score_detect  # noqa: E402  (puts scripts/eval on the path for score)


class ScorerTests(unittest.TestCase):
    def test_rows(self):
        with tempfile.TemporaryDirectory() as tmp:
            lab = [
                {"audio_filepath": "a.flac", "start": 0, "end": 1, "speech": True, "music": False,
                 "multi_speaker": False, "condition": "clean/-25..-15dBFS"},
                {"audio_filepath": "a.flac", "start": 1, "end": 2, "speech": False, "music": False,
                 "multi_speaker": False, "condition": "clean/-25..-15dBFS"},
                {"audio_filepath": "m.flac", "start": 0, "end": 2, "speech": False, "music": True,
                 "multi_speaker": False, "condition": "music_only/recorded"},
            ]
            hyp = [{"audio_filepath": "a.flac", "start": 0, "end": 1.5, "speech": True},
                   {"audio_filepath": "a.flac", "start": 1.5, "end": 2, "speech": False},
                   {"audio_filepath": "m.flac", "start": 0, "end": 0.5, "speech": True},
                   {"audio_filepath": "m.flac", "start": 0.5, "end": 2, "speech": False}]
            for name, rows in (("labels.jsonl", lab), ("hyp.jsonl", hyp)):
                with open(os.path.join(tmp, name), "w") as f:
                    f.writelines(json.dumps(r) + "\n" for r in rows)
            import score
            r = score.score_one(score.read_segments(os.path.join(tmp, "labels.jsonl")),
                                score.read_segments(os.path.join(tmp, "hyp.jsonl")), tmp)
            rows = score_detect.rows(r)
            self.assertAlmostEqual(rows["vad_f1"]["value"], 200 / 300)        # TP 100, FP 50 + 50
            self.assertAlmostEqual(rows["vad_fa_music"]["value"], 0.25)
            self.assertEqual(rows["vad_fa_music"]["status"], "FAIL")
            self.assertAlmostEqual(rows["vad_f1_clean_min"]["value"], 200 / 250)
            self.assertEqual(rows["vad_f1_clean_min"]["detail"], "clean/-25..-15dBFS")
            self.assertIsNone(rows["music_f1"]["value"])                       # a VAD: n/a
            self.assertEqual(rows["music_f1"]["status"], "n/a")
            # A 100 ms collar leaves out a.flac's frames 90-109 (its boundary at 1 s; the
            # hypothesis's at 1.5 s is not a reference boundary) and none of m.flac's.
            c = score.score_one(score.read_segments(os.path.join(tmp, "labels.jsonl")),
                                score.read_segments(os.path.join(tmp, "hyp.jsonl")), tmp, collar=10)
            rows = score_detect.rows(c)
            self.assertAlmostEqual(rows["vad_f1"]["value"], 2 * 90 / (2 * 90 + 40 + 50))  # TP 90, FP 40 + 50
            self.assertAlmostEqual(rows["vad_fa_music"]["value"], 0.25)
            self.assertIn("±100 ms collar", score_detect.markdown({"x": c}, False))
            self.assertNotIn("collar", score_detect.markdown({"x": r}, False))

    def test_by_noise_kind(self):
        """Per background kind: speech-over-noise F1 split at 0 dB, false alarms on the kind alone,
        from each file's counts; files of other classes and files without a kind left out."""
        import score
        with tempfile.TemporaryDirectory() as tmp:
            def file(name, cond, speech_until):
                return [{"audio_filepath": name, "start": 0, "end": speech_until, "speech": speech_until > 0,
                         "music": False, "multi_speaker": False, "condition": cond},
                        {"audio_filepath": name, "start": speech_until, "end": 2, "speech": False,
                         "music": False, "multi_speaker": False, "condition": cond}]
            lab = (file("loud.flac", "speech_noise/-5dB", 1) + file("quiet.flac", "speech_noise/+20dB", 1)
                   + file("alone.flac", "noise_only/synthetic", 0) + file("clean.flac", "clean/-25..-15dBFS", 1)
                   + file("other.flac", "speech_noise/+0dB", 1))
            manifest = [{"audio_filepath": "loud.flac", "noise_kind": "synthetic-hum50"},
                        {"audio_filepath": "quiet.flac", "noise_kind": "synthetic-hum50"},
                        {"audio_filepath": "alone.flac", "noise_kind": "synthetic-hum50"},
                        {"audio_filepath": "clean.flac"},
                        {"audio_filepath": "other.flac", "noise_kind": "babble"}]
            # loud: half its speech found (TP 50, FN 50); quiet: all of it and 0.5 s more (TP 100, FP 50);
            # alone: 0.2 s of its 2 s called speech; other: nothing found.
            hyp = [{"audio_filepath": "loud.flac", "start": 0, "end": 0.5, "speech": True},
                   {"audio_filepath": "quiet.flac", "start": 0, "end": 1.5, "speech": True},
                   {"audio_filepath": "alone.flac", "start": 1.0, "end": 1.2, "speech": True},
                   {"audio_filepath": "clean.flac", "start": 0, "end": 1, "speech": True},
                   {"audio_filepath": "other.flac", "start": 0, "end": 2, "speech": False}]
            for name, rows in (("labels.jsonl", lab), ("hyp.jsonl", hyp), ("manifest.jsonl", manifest)):
                with open(os.path.join(tmp, name), "w") as f:
                    f.writelines(json.dumps(r) + "\n" for r in rows)
            labels = score.read_segments(os.path.join(tmp, "labels.jsonl"))
            r = score.score_one(labels, score.read_segments(os.path.join(tmp, "hyp.jsonl")), tmp)
            md = score_detect.by_noise_kind({"x": r}, score_detect.noise_kinds(tmp), labels)
            rows = {line.split(" | ")[0].strip("| "): line.strip("| ").split(" | ")[1:]
                    for line in md.splitlines() if line.startswith("| ") and not line.startswith("| Background")}
            self.assertEqual(rows["synthetic-hum50"], ["66.7", "80.0", "10.0", "3"])   # 2·50/150, 200/250
            self.assertEqual(rows["babble"], ["0.0", "", "", "1"])
            self.assertNotIn("clean", md)
            self.assertEqual(score_detect.noise_kinds(os.path.join(tmp, "absent")), {})

    def test_collar_mask(self):
        import numpy as np
        import score
        ref = np.array([0, 0, 0, 1, 1, 1, 1, 0, 0, 0], dtype=bool)
        self.assertEqual(score.collar_mask(ref, 1).tolist(),
                         [True, True, False, False, True, True, False, False, True, True])
        self.assertEqual(score.collar_mask(ref, 0).tolist(), [True] * 10)
        self.assertEqual(score.collar_mask(np.ones(5, dtype=bool), 3).tolist(), [True] * 5)


if __name__ == "__main__":
    unittest.main()
