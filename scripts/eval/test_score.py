"""Unit tests of score.py on tiny hand-made label/hypothesis pairs.

    python3 -m pytest scripts/eval        or        python3 -m unittest discover scripts/eval
"""
import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import score  # noqa: E402


def seg(path, start, end, speech=False, music=False, multi=False, condition=None, **extra):
    d = {"audio_filepath": path, "start": start, "end": end, "speech": speech, "music": music,
         "multi_speaker": multi}
    if condition is not None:
        d["condition"] = condition
    d.update(extra)
    return d


def vad_seg(path, start, end, speech):
    return {"audio_filepath": path, "start": start, "end": end, "speech": speech}


class Fixture(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = os.path.join(self.tmp.name, "corpus")
        os.makedirs(os.path.join(self.root, "a"))

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, segments):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            for s in segments:
                f.write(json.dumps(s) + "\n")
        return path

    def score(self, labels, hyp, **kw):
        lp = os.path.join(self.root, "labels.jsonl")
        with open(lp, "w") as f:
            for s in labels:
                f.write(json.dumps(s) + "\n")
        return score.score_one(score.read_segments(lp), score.read_segments(self.write("hyp.jsonl", hyp)),
                               self.root, **kw)


class FrameTests(unittest.TestCase):
    def test_centre_sampling(self):
        # [0.014, 0.036) contains the centres 0.015 and 0.025 and 0.035: frames 1, 2, 3
        f = score.to_frames([seg("x", 0.014, 0.036, speech=True)], 6, "speech")
        self.assertEqual(f.tolist(), [False, True, True, True, False, False])
        # a segment ending exactly on a centre excludes that frame; starting on it includes it
        f = score.to_frames([seg("x", 0.015, 0.035, speech=True)], 6, "speech")
        self.assertEqual(f.tolist(), [False, True, True, False, False, False])

    def test_absent_field_is_none(self):
        self.assertIsNone(score.to_frames([vad_seg("x", 0, 1, True)], 100, "music"))

    def test_frame_count(self):
        self.assertEqual(score.n_frames(1.0), 100)
        self.assertEqual(score.n_frames(1.009), 100)
        self.assertEqual(score.n_frames(0.3), 30)

    def test_windows(self):
        import numpy as np
        f = np.zeros(130, dtype=bool)
        f[0:25] = True        # window 0: exactly half -> positive
        f[50:74] = True       # window 1: 24/50 -> negative
        f[100:115] = True     # tail of 30 frames (kept, >= 25): 15/30 -> positive
        self.assertEqual(score.windows(f).tolist(), [True, False, True])
        self.assertEqual(len(score.windows(np.zeros(124, dtype=bool))), 2)  # tail of 24 dropped


class ScoreTests(Fixture):
    def test_known_counts(self):
        # 1 s file, speech in [0.2, 0.6); hypothesis speech in [0.3, 0.8)
        labels = [seg("a/x.wav", 0, 0.2, condition="clean_speech/-25dBFS"),
                  seg("a/x.wav", 0.2, 0.6, speech=True, condition="clean_speech/-25dBFS"),
                  seg("a/x.wav", 0.6, 1.0, condition="clean_speech/-25dBFS")]
        hyp = [vad_seg("a/x.wav", 0, 0.3, False), vad_seg("a/x.wav", 0.3, 0.8, True),
               vad_seg("a/x.wav", 0.8, 1.0, False)]
        r = self.score(labels, hyp)
        m = r["tasks"]["speech"]["overall"]
        self.assertEqual((m["tp"], m["fp"], m["fn"], m["tn"]), (30, 20, 10, 40))
        self.assertAlmostEqual(m["precision"], 30 / 50)
        self.assertAlmostEqual(m["recall"], 30 / 40)
        self.assertAlmostEqual(m["f1"], 60 / 90)
        self.assertAlmostEqual(m["fa"], 20 / 60)
        self.assertIsNone(r["tasks"]["music"])       # VAD-only hypothesis
        self.assertIsNone(r["tasks"]["multi_speaker"])

    def test_all_false_task_is_na_and_perfect_is_100(self):
        labels = [seg("a/x.wav", 0, 1, speech=True, music=True, condition="speech_music/0dB")]
        hyp = [seg("a/x.wav", 0, 1, speech=True, music=False, multi=False)]
        r = self.score(labels, hyp)
        self.assertEqual(r["tasks"]["speech"]["overall"]["f1"], 1.0)
        self.assertIsNone(r["tasks"]["music"])

    def test_per_condition_and_false_alarms(self):
        labels = [seg("a/m.wav", 0, 2, music=True, condition="music_only/piano"),
                  seg("a/n.wav", 0, 1, condition="noise_only/pink"),
                  seg("a/s.wav", 0, 1, condition="silence/digital"),
                  seg("a/c.wav", 0, 1, speech=True, condition="clean_speech/-6dBFS")]
        hyp = [seg("a/m.wav", 0, 0.5, speech=True, music=True), seg("a/m.wav", 0.5, 2, music=True),
               seg("a/n.wav", 0, 1, speech=True),
               seg("a/s.wav", 0, 1),
               seg("a/c.wav", 0, 1, speech=True, music=True)]
        r = self.score(labels, hyp)
        sp = r["tasks"]["speech"]
        self.assertAlmostEqual(sp["classes"]["music_only"]["fa"], 0.25)
        self.assertAlmostEqual(sp["classes"]["noise_only"]["fa"], 1.0)
        self.assertEqual(sp["classes"]["silence"]["fa"], 0.0)
        self.assertIsNone(sp["classes"]["silence"]["f1"])   # no reference or hypothesis positives
        self.assertEqual(sp["conditions"]["clean_speech/-6dBFS"]["f1"], 1.0)
        mu = r["tasks"]["music"]
        self.assertEqual(mu["classes"]["clean_speech"]["fa"], 1.0)
        t = {x["id"]: x for x in r["targets"]}
        self.assertEqual(t["vad_fa_music_only"]["status"], "FAIL")      # 25 % > 10 %
        self.assertEqual(t["vad_fa_silence"]["status"], "PASS")
        self.assertEqual(t["vad_f1_clean_each_level"]["status"], "PASS")
        self.assertEqual(t["music_fa_speech_only"]["status"], "FAIL")
        self.assertEqual(t["multi_f1_overall"]["status"], "n/a")         # never true in hyp

    def test_per_file_and_worst(self):
        labels = [seg("a/x.wav", 0, 1, speech=True, condition="clean_speech/-6dBFS"),
                  seg("a/y.wav", 0, 1, speech=True, condition="clean_speech/-6dBFS")]
        hyp = [vad_seg("a/x.wav", 0, 0.7, True), vad_seg("a/x.wav", 0.7, 1, False),
               vad_seg("a/y.wav", 0, 0.9, True), vad_seg("a/y.wav", 0.9, 1, False)]
        r = self.score(labels, hyp)
        files = r["tasks"]["speech"]["files"]
        self.assertEqual((files["a/x.wav"]["fn"], files["a/y.wav"]["fn"]), (30, 10))
        table = score.worst_files(r["tasks"]["speech"], 1)
        self.assertIn("| a/x.wav | 100 | 0 | 30 |", table)
        self.assertNotIn("a/y.wav", table)

    def test_multi_speaker_windows(self):
        # 2 s overlap file: overlap labelled in [0.5, 1.5) -> windows [F, T, T, F]
        labels = [seg("a/o.wav", 0, 0.5, speech=True, condition="overlap/0dB"),
                  seg("a/o.wav", 0.5, 1.5, speech=True, multi=True, condition="overlap/0dB"),
                  seg("a/o.wav", 1.5, 2.0, speech=True, condition="overlap/0dB"),
                  seg("a/c.wav", 0, 1.0, speech=True, condition="clean_speech/-6dBFS")]
        # hyp: multi in [0.6, 1.2) -> window 1 (0.5-1.0): 40/50 T; window 2 (1.0-1.5): 20/50 F
        #      and a false alarm on the single talker over [0, 0.3) -> window 0 of c: 30/50 T
        hyp = [seg("a/o.wav", 0, 0.6, speech=True), seg("a/o.wav", 0.6, 1.2, speech=True, multi=True),
               seg("a/o.wav", 1.2, 2.0, speech=True),
               seg("a/c.wav", 0, 0.3, speech=True, multi=True), seg("a/c.wav", 0.3, 1.0, speech=True)]
        r = self.score(labels, hyp)
        ms = r["tasks"]["multi_speaker"]
        self.assertEqual(ms["unit"], "0.5 s window")
        o = ms["conditions"]["overlap/0dB"]
        self.assertEqual((o["tp"], o["fp"], o["fn"], o["tn"]), (1, 0, 1, 2))
        c = ms["classes"]["clean_speech"]
        self.assertEqual((c["tp"], c["fp"], c["fn"], c["tn"]), (0, 1, 0, 1))
        t = {x["id"]: x for x in r["targets"]}
        self.assertAlmostEqual(t["multi_fa_single_talker"]["value"], 0.5)
        self.assertAlmostEqual(t["multi_f1_overall"]["value"], 2 / 4)
        self.assertEqual(t["multi_f1_overall"]["status"], "PASS")

    def test_path_normalisation(self):
        labels = [seg("a/x.wav", 0, 1, speech=True, condition="clean_speech/-6dBFS")]
        absolute = os.path.join(self.root, "a", "x.wav")
        open(absolute, "wb").close()
        for p in (absolute, os.path.join(self.root, ".", "a", "x.wav"), "corpus/a/x.wav", "a/x.wav",
                  "/elsewhere/corpus/a/x.wav"):
            r = self.score(labels, [vad_seg(p, 0, 1, True)])
            self.assertEqual(r["files_scored"], 1, p)
            self.assertEqual(r["tasks"]["speech"]["overall"]["f1"], 1.0, p)
        r = self.score(labels, [vad_seg("b/x.wav", 0, 1, True)])   # a different directory
        self.assertEqual(r["files_scored"], 0)
        self.assertEqual(r["hypothesis_files_unmatched"], ["b/x.wav"])

    def test_missing_file(self):
        labels = [seg("a/x.wav", 0, 1, speech=True, condition="clean_speech/-6dBFS"),
                  seg("a/y.wav", 0, 1, speech=True, condition="clean_speech/-6dBFS")]
        hyp = [vad_seg("a/x.wav", 0, 1, True)]
        r = self.score(labels, hyp)
        self.assertEqual(r["files_missing"], ["a/y.wav"])
        self.assertEqual(r["tasks"]["speech"]["overall"]["units"], 100)
        with self.assertRaises(score.ScoreError):
            self.score(labels, hyp, require_all=True)

    def test_short_hypothesis_is_padded_false(self):
        labels = [seg("a/x.wav", 0, 1, speech=True, condition="clean_speech/-6dBFS")]
        r = self.score(labels, [vad_seg("a/x.wav", 0, 0.5, True)])
        m = r["tasks"]["speech"]["overall"]
        self.assertEqual((m["tp"], m["fn"]), (50, 50))

    def test_bad_input(self):
        with self.assertRaises(score.ScoreError):
            score.read_segments(self.write("bad.jsonl", [{"audio_filepath": "x", "start": 1, "end": 0}]))
        with self.assertRaises(score.ScoreError):
            score.read_segments(self.write("bad2.jsonl", [{"audio_filepath": "x", "start": "0", "end": 1}]))
        p = os.path.join(self.tmp.name, "bad3.jsonl")
        with open(p, "w") as f:
            f.write("{not json\n")
        with self.assertRaises(score.ScoreError):
            score.read_segments(p)


class CliTests(Fixture):
    def test_cli_json_markdown_strict(self):
        lp = os.path.join(self.root, "labels.jsonl")
        with open(lp, "w") as f:
            f.write(json.dumps(seg("a/s.wav", 0, 1, condition="silence/digital")) + "\n")
        hp = self.write("peer.jsonl", [vad_seg("a/s.wav", 0, 1, True)])
        jp = os.path.join(self.tmp.name, "out.json")
        buf = io.StringIO()
        with redirect_stdout(buf):
            rc = score.main([lp, hp, "--json", jp, "--check-targets"])
        self.assertEqual(rc, 0)
        out = buf.getvalue()
        self.assertIn("| peer |", out)
        self.assertIn("FAIL  VAD false alarms <= 1 % on silence: 100.0", out)
        with open(jp) as f:
            j = json.load(f)
        self.assertEqual(j["systems"]["peer"]["tasks"]["speech"]["classes"]["silence"]["fa"], 1.0)
        with redirect_stdout(io.StringIO()):
            self.assertEqual(score.main([lp, hp, "--check-targets", "--strict"]), 1)
            self.assertEqual(score.main([lp, "named=" + hp, "--json", jp]), 0)
        with open(jp) as f:
            self.assertIn("named", json.load(f)["systems"])


if __name__ == "__main__":
    unittest.main()
