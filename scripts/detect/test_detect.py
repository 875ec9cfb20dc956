"""Unit tests of the detection material (issue #23): the labelling rule, the split rule (and, over a
generated corpus, that no source sits in two splits), determinism, and the fitting scripts. The #23
scorer's tests are in test_score_detect.py.

    .venv-detect/bin/python -m pytest scripts/detect

Over a generated corpus: DETECT_CORPUS=DIR (default .build-detect-small when it exists); without
one those tests are skipped. The determinism test generates a few files twice (about a minute).
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from detectlib import conditions, labels, sources, splits  # noqa: E402
from detectlib.labels import HOP  # noqa: E402

ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CORPUS = os.environ.get("DETECT_CORPUS", os.path.join(ROOT, ".build-detect-small"))
SR = 16000


def tone(frames, db):
    """A 1 kHz sine of `frames` 10 ms frames at RMS `db` dBFS."""
    t = np.arange(frames * HOP) / SR
    return np.sqrt(2) * 10 ** (db / 20) * np.sin(2 * np.pi * 1000 * t)


class LabelRuleTests(unittest.TestCase):
    def test_relative_threshold_and_floor(self):
        # one utterance: 20 frames at -20 dBFS, 10 at -59 (within 40 dB), 10 at -61 (not), 30 silent
        x = np.concatenate([tone(20, -20), tone(10, -59), tone(10, -61), np.zeros(30 * HOP)])
        lab = labels.talker_label(x, [(0, len(x), None)], len(x) // HOP)
        self.assertTrue(lab[:30].all())
        self.assertFalse(lab[30:].any())
        quiet = labels.talker_label(x * 10 ** (-50 / 20), [(0, len(x), None)], len(x) // HOP)
        self.assertTrue(quiet[:20].all())          # -70 dBFS: above the -90 dBFS floor
        self.assertFalse(quiet[20:].any())         # -109 dBFS: below it

    def test_recorded_noise_floor(self):
        # a recorded word: 20 frames at -20 dBFS inside a recording floor at -50 dBFS (30 dB down:
        # within 40 dB of the peak, so only the recording-floor rule keeps it out of the label)
        x = np.concatenate([tone(10, -50), tone(20, -20), tone(10, -50)])
        floor = labels.utterance_floor_db(x)
        self.assertAlmostEqual(floor, -50, delta=0.1)
        lab = labels.talker_label(x, [(0, len(x), floor)], 40)
        self.assertEqual(np.flatnonzero(lab).tolist(), list(range(10, 30)))
        self.assertTrue(labels.talker_label(x, [(0, len(x), None)], 40).all())

    def test_gaps_and_talker_count(self):
        a = np.zeros(100 * HOP)
        a[:20 * HOP] = tone(20, -20)
        a[40 * HOP:60 * HOP] = tone(20, -20)        # gap of 20 frames (< 25): filled
        b = np.zeros(100 * HOP)
        b[50 * HOP:90 * HOP] = tone(40, -30)
        la = labels.talker_label(a, [(0, 20 * HOP, None), (40 * HOP, 60 * HOP, None)], 100)
        lb = labels.talker_label(b, [(50 * HOP, 90 * HOP, None)], 100)
        lab = labels.file_labels([la, lb], None, 100)
        self.assertTrue(lab["speech"][:90].all() and not lab["speech"][90:].any())
        self.assertEqual(np.flatnonzero(lab["talkers"] == 2).tolist(), list(range(50, 60)))
        self.assertTrue((lab["multi_speaker"] == (lab["talkers"] >= 2)).all())
        self.assertFalse(lab["music"].any())

    def test_music_label(self):
        x = np.concatenate([tone(50, -20), np.zeros(40 * HOP), tone(50, -20), np.zeros(60 * HOP)])
        lab = labels.file_labels([], x, len(x) // HOP)
        self.assertTrue(lab["music"][:140].all())   # 400 ms rest < 500 ms: filled
        self.assertFalse(lab["music"][140:].any())
        self.assertFalse(lab["speech"].any())

    def test_room_delay_shifts_the_label(self):
        x = np.zeros(60 * HOP)
        x[10 * HOP:30 * HOP] = tone(20, -20)
        st = conditions.Stem(x, [(10 * HOP, 30 * HOP, None)], "v", delay=5 * HOP)
        self.assertEqual(np.flatnonzero(st.label(60)).tolist(), list(range(15, 35)))

    def test_stem_scale_moves_floors(self):
        st = conditions.Stem(np.ones(HOP), [(0, HOP, -50.0)], "v")
        st.scale(0.1)
        self.assertAlmostEqual(st.spans[0][2], -70.0)

    def test_segments_cover_the_file(self):
        lab = {"speech": np.array([0, 1, 1, 0], bool), "music": np.zeros(4, bool),
               "talkers": np.array([0, 1, 2, 0], np.int16)}
        segs = labels.segments("a.flac", "c/x", lab, 4, "val")
        self.assertEqual([(s["start"], s["end"], s["speech"], s["talkers"], s["multi_speaker"]) for s in segs],
                         [(0.0, 0.01, False, 0, False), (0.01, 0.02, True, 1, False), (0.02, 0.03, True, 2, True),
                          (0.03, 0.04, False, 0, False)])
        self.assertTrue(all(s["split"] == "val" and s["condition"] == "c/x" for s in segs))

    def test_read_frames_round_trip(self):
        lab = {"speech": np.array([0, 1, 1, 0, 0], bool), "music": np.array([1, 1, 0, 0, 0], bool),
               "talkers": np.array([0, 1, 2, 0, 0], np.int16)}
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "labels.jsonl")
            with open(path, "w") as f:
                for s in labels.segments("a.flac", "c/x", lab, 5, "train"):
                    f.write(json.dumps(s) + "\n")
            fr = labels.read_frames(path)["a.flac"]
            self.assertEqual(fr["speech"].tolist(), lab["speech"].tolist())
            self.assertEqual(fr["music"].tolist(), lab["music"].tolist())
            self.assertEqual(fr["talkers"].tolist(), lab["talkers"].tolist())
            self.assertEqual(labels.read_frames(path, split="val"), {})

    def test_codec_alignment(self):
        rng = np.random.default_rng(1)
        x = rng.standard_normal(8000)
        y = np.concatenate([np.zeros(37), x[:-37]])   # delayed by 37 samples
        self.assertTrue(np.allclose(conditions.align(x, y)[:-37], x[:-37]))


class SplitRuleTests(unittest.TestCase):
    def test_groups(self):
        self.assertEqual(splits.group_of("espeak-ng:de+m3"), "espeak-variant:m3")
        self.assertEqual(splits.group_of("espeak-ng:en-us+m3"), "espeak-variant:m3")
        self.assertEqual(splits.group_of("flite:slt"), splits.group_of("festival:cmu_us_slt_arctic_hts"))
        self.assertEqual(splits.group_of("flite:kal16"), splits.group_of("festival:kal_diphone"))
        self.assertEqual(splits.group_of("ktuberling:de"), splits.group_of("klettres:de"))
        self.assertEqual(splits.group_of("klettres:en_GB"), "kde-voice:en")
        self.assertEqual(splits.group_of("room:3"), "room:3")

    def test_unit_is_sha256(self):
        h = int(hashlib.sha256(b"abc").hexdigest()[:8], 16) / 2 ** 32
        self.assertEqual(splits.unit("abc"), h)

    def test_scene_test_sources_stay_test(self):
        # a group with one #19 test member is test, whatever its other members hash to
        scene = sorted(splits.scene_ids())
        if not scene:
            self.skipTest("scripts/scene sources not installed")
        from scenelib.common import split_of
        tests = [s for s in scene if split_of(s) == "test"]
        devs = [s for s in scene if split_of(s) == "dev"]
        rule = splits.SplitRule(scene)
        for s in tests:
            self.assertEqual(rule.split_of(s), "test", s)
        for s in devs:
            g = splits.group_of(s)
            members = [m for m in rule.members[g] if m in splits.scene_ids()]
            expect = "test" if any(split_of(m) == "test" for m in members) else ("val", "train")
            self.assertIn(rule.split_of(s), expect if isinstance(expect, tuple) else (expect,), s)

    def test_slt_is_one_split(self):
        rule = splits.SplitRule(["flite:slt", "festival:cmu_us_slt_arctic_hts"])
        self.assertEqual(rule.split_of("flite:slt"), rule.split_of("festival:cmu_us_slt_arctic_hts"))

    def test_new_sources_follow_the_hash(self):
        rule = splits.SplitRule(["x:a", "x:b", "x:c"])
        for s in ("x:a", "x:b", "x:c", "x:never-seen"):
            u = splits.unit(s)
            if u >= 0.5:
                self.assertEqual(rule.split_of(s), "test")
            else:
                self.assertEqual(rule.split_of(s), "val" if splits.unit("val:" + s) < splits.VAL_FRACTION else "train")

    def test_fractions(self):
        ids = [f"synthetic-source:{i}" for i in range(4000)]
        rule = splits.SplitRule(ids)
        share = {s: sum(rule.split_of(i) == s for i in ids) / len(ids) for s in ("train", "val", "test")}
        self.assertAlmostEqual(share["test"], 0.5, delta=0.03)
        self.assertAlmostEqual(share["val"], 0.125, delta=0.02)


class SpecTests(unittest.TestCase):
    def test_every_split_gets_every_parameter(self):
        # parameters cycle on the ordinal within (class, split): each split sees each noise kind,
        # silence kind, SNR and codec (regression: cycling on the class index gave val no hum)
        import make_detect_corpus as mdc
        specs = mdc.specs("full", 23)
        for cls, period in (("noise_only", 5), ("silence", 4), ("speech_noise", len(conditions.NOISE_SNRS)),
                            ("speech_music", len(conditions.MUSIC_SNRS)), ("telephone", len(conditions.CODECS)),
                            ("distortion", 8)):
            for split in ("train", "val", "test"):
                ks = {s["k"] % period for s in specs if s["class"] == cls and s["split"] == split}
                self.assertEqual(ks, set(range(period)), (cls, split))

    def test_train_only_classes(self):
        # generator 1.1.0's classes (--train-extra) take the train split only and leave every
        # 1.0.0 file as it was: the same paths, seeds and durations, in the same order, ahead of them
        import make_detect_corpus as mdc
        for scale in ("small", "full"):
            plain, specs = mdc.specs(scale, 23), mdc.specs(scale, 23, train_extra=True)
            extra = [s for s in specs if s["class"] in mdc.TRAIN_ONLY[scale]]
            self.assertEqual(len(extra), sum(mdc.TRAIN_ONLY[scale].values()))
            self.assertEqual({s["split"] for s in extra}, {"train"})
            self.assertEqual(specs, plain + extra)
            self.assertFalse(any(s["class"] in mdc.TRAIN_ONLY[scale] for s in plain))
        specs = mdc.specs("full", 23, train_extra=True)
        for cls, period in (("speech_babble", len(conditions.BABBLE_SNRS)),
                            ("speech_loud", 2 * len(conditions.LOUD_SNRS)), ("babble_only", 6)):
            ks = {s["k"] % period for s in specs if s["class"] == cls}
            self.assertEqual(ks, set(range(period)), cls)

    def test_train_overlap_class(self):
        # generator 1.3.0's overlap_train (--train-overlap) takes the train split only and comes
        # after every other file, --train-extra's included: every earlier file is as it was
        import make_detect_corpus as mdc
        for scale in ("small", "full"):
            for extra in (False, True):
                before = mdc.specs(scale, 23, train_extra=extra)
                specs = mdc.specs(scale, 23, train_extra=extra, train_overlap=True)
                added = [s for s in specs if s["class"] in mdc.TRAIN_OVERLAP[scale]]
                self.assertEqual(len(added), sum(mdc.TRAIN_OVERLAP[scale].values()))
                self.assertEqual({s["split"] for s in added}, {"train"})
                self.assertEqual(specs, before + added)
        # two and three talkers both (overlap's rule: three in every third file)
        specs = mdc.specs("full", 23, train_overlap=True)
        self.assertEqual({s["k"] % 3 for s in specs if s["class"] == "overlap_train"}, {0, 1, 2})
        self.assertIs(conditions.BUILDERS["overlap_train"], conditions.overlap_train)


    def test_train_effects_classes(self):
        # generator 1.5.0's effects_only and speech_effects (--train-effects) take the train split only
        # and come after every other file: every earlier file, val and test included, is as it was
        import make_detect_corpus as mdc
        for scale in ("small", "full"):
            before = mdc.specs(scale, 23, train_extra=True, train_overlap=True)
            specs = mdc.specs(scale, 23, train_extra=True, train_overlap=True, train_effects=True)
            added = [s for s in specs if s["class"] in mdc.TRAIN_EFFECTS[scale]]
            self.assertEqual(len(added), sum(mdc.TRAIN_EFFECTS[scale].values()))
            self.assertEqual({s["split"] for s in added}, {"train"})
            self.assertEqual(specs, before + added)
        specs = mdc.specs("full", 23, train_effects=True)
        self.assertEqual({s["k"] % len(conditions.EFFECT_KINDS) for s in specs if s["class"] == "effects_only"},
                         set(range(len(conditions.EFFECT_KINDS))))
        # every SNR with each of the two backgrounds (effects; effects over an ambience)
        self.assertEqual({(s["k"] % len(conditions.EFFECT_SNRS), (s["k"] // len(conditions.EFFECT_SNRS)) % 2)
                          for s in specs if s["class"] == "speech_effects"},
                         {(i, j) for i in range(len(conditions.EFFECT_SNRS)) for j in (0, 1)})
        self.assertIs(conditions.BUILDERS["effects_only"], conditions.effects_only)
        self.assertIs(conditions.BUILDERS["speech_effects"], conditions.speech_effects)

    def test_train_stationary_class(self):
        # generator 1.6.0's speech_stationary (--train-stationary) takes the train split only and
        # comes after every other file: every earlier file, val and test included, is as it was
        import make_detect_corpus as mdc
        for scale in ("small", "full"):
            before = mdc.specs(scale, 23, train_extra=True, train_overlap=True, train_effects=True)
            specs = mdc.specs(scale, 23, train_extra=True, train_overlap=True, train_effects=True,
                              train_stationary=True)
            added = [s for s in specs if s["class"] in mdc.TRAIN_STATIONARY[scale]]
            self.assertEqual(len(added), sum(mdc.TRAIN_STATIONARY[scale].values()))
            self.assertEqual({s["split"] for s in added}, {"train"})
            self.assertEqual(specs, before + added)
        # every synthetic kind at every SNR
        kinds, snrs = len(conditions.noise.SYNTHETIC), len(conditions.STATIONARY_SNRS)
        self.assertEqual({(s["k"] % kinds, (s["k"] // kinds) % snrs)
                          for s in mdc.specs("full", 23, train_stationary=True) if s["class"] == "speech_stationary"},
                         {(i, j) for i in range(kinds) for j in range(snrs)})
        self.assertIs(conditions.BUILDERS["speech_stationary"], conditions.speech_stationary)

    def test_train_music_classes(self):
        # generator 1.7.0's music_pieces and speech_pieces (--train-music) take the train split only
        # and come after every other file: every earlier file, val and test included, is as it was
        import make_detect_corpus as mdc
        for scale in ("small", "full"):
            flags = dict(train_extra=True, train_overlap=True, train_effects=True, train_stationary=True)
            before = mdc.specs(scale, 23, **flags)
            specs = mdc.specs(scale, 23, **flags, train_music=True)
            added = [s for s in specs if s["class"] in mdc.TRAIN_MUSIC[scale]]
            self.assertEqual(len(added), sum(mdc.TRAIN_MUSIC[scale].values()))
            self.assertEqual({s["split"] for s in added}, {"train"})
            self.assertEqual(specs, before + added)
        # every SNR of speech_music's
        self.assertEqual({s["k"] % len(conditions.MUSIC_SNRS) for s in mdc.specs("full", 23, train_music=True)
                          if s["class"] == "speech_pieces"}, set(range(len(conditions.MUSIC_SNRS))))
        self.assertIs(conditions.BUILDERS["music_pieces"], conditions.music_pieces)
        self.assertIs(conditions.BUILDERS["speech_pieces"], conditions.speech_pieces)

    def test_train_only_music_packages(self):
        # the train-only music packages are train whatever their hash, share no source with the
        # catalogue's music, and only the train split's context hears them
        catalogue = {e["id"] for e in sources.music_recordings()}
        self.assertFalse(any(i.startswith(splits.TRAIN_ONLY_PREFIXES) for i in catalogue))
        extra = [e["id"] for e in sources.train_music_recordings()]
        rule = splits.SplitRule(extra)
        self.assertEqual({rule.split_of(i) for i in extra} or {"train"}, {"train"})
        self.assertFalse(set(extra) & {e["id"] for e in sources.train_noises()})

    def test_train_only_effect_packages(self):
        # the train-only effect packages are train whatever their hash, share no source with the
        # catalogue, and only the train split's context hears them
        self.assertEqual(tuple(sorted({p + ":" for p in sources.TRAIN_EFFECT_PREFIXES + sources.TRAIN_MUSIC_PREFIXES})),
                         tuple(sorted(set(splits.TRAIN_ONLY_PREFIXES))))
        self.assertEqual(len(set(splits.TRAIN_ONLY_PREFIXES)), len(splits.TRAIN_ONLY_PREFIXES))
        catalogue = {e["id"] for e in sources.noises()}
        self.assertFalse(any(i.startswith(splits.TRAIN_ONLY_PREFIXES) for i in catalogue))
        extra = [e["id"] for e in sources.train_noises()]
        rule = splits.SplitRule(extra)
        self.assertEqual({rule.split_of(i) for i in extra} or {"train"}, {"train"})
        hashed = {splits.SplitRule([]).base(i) for i in extra}
        self.assertTrue(not extra or "test" in hashed, "some would be test by their hash alone")
        for e in sources.train_noises():
            self.assertIsNone(re.search(sources.VOCAL + "|" + sources.TRAIN_VOCAL, os.path.basename(e["path"]), re.I))


class MusicProbeTests(unittest.TestCase):
    """music_probe.py's renderings: what each variant does to a source, and the same bytes from
    the same seed."""

    def source(self):
        t = np.arange(16000 * 2) / 16000
        return 0.3 * np.sin(2 * np.pi * 440 * t) * (1 + 0.5 * np.sin(2 * np.pi * 2 * t))

    def test_twelve_variants(self):
        import music_probe as mp
        self.assertEqual(len(mp.VARIANTS), 12)
        self.assertEqual(len(set(mp.VARIANTS)), 12)

    def test_levels_clipping_and_added_power(self):
        import music_probe as mp
        x = self.source()
        for level in (-40, -25, -10, -1):
            y = mp._render(x, f"level/{level}", np.random.default_rng(1), 16000)
            self.assertAlmostEqual(20 * np.log10(np.max(np.abs(y))), level, places=9)
            np.testing.assert_allclose(y / np.max(np.abs(y)), x / np.max(np.abs(x)), atol=1e-12)
        y = mp._render(x, "clip/+12", np.random.default_rng(1), 16000)
        self.assertEqual(np.max(np.abs(y)), 1.0)
        self.assertGreater(np.mean(np.abs(y) == 1.0), 0.1)
        for variant, below in (("hum50/-10", 10), ("hum60/-20", 20), ("noise-pink/-10", 10)):
            y = mp._render(x, variant, np.random.default_rng(1), 16000)
            peak = 20 * np.log10(np.max(np.abs(y)))
            self.assertTrue(-30 <= peak <= -6, variant)
            # Undo the peak scaling with the music's own share: least squares of y on x.
            scale = float(np.dot(y, x) / np.dot(x, x))
            added = y / scale - x
            ratio = 10 * np.log10(np.mean(added ** 2) / np.mean(x ** 2))
            self.assertAlmostEqual(ratio, -below, delta=0.5, msg=variant)

    def test_same_seed_same_bytes(self):
        import music_probe as mp
        x = self.source()
        for variant in mp.VARIANTS:
            a = mp._render(x, variant, np.random.default_rng(5), 16000)
            b = mp._render(x, variant, np.random.default_rng(5), 16000)
            self.assertTrue(np.array_equal(a, b), variant)


@unittest.skipUnless(os.path.exists(os.path.join(CORPUS, "manifest.jsonl")), "no generated corpus")
class CorpusTests(unittest.TestCase):
    """Over a generated corpus: sources.jsonl and manifest.jsonl."""

    @classmethod
    def setUpClass(cls):
        with open(os.path.join(CORPUS, "sources.jsonl")) as f:
            cls.sources = [json.loads(line) for line in f]
        with open(os.path.join(CORPUS, "manifest.jsonl")) as f:
            cls.files = [json.loads(line) for line in f]

    def test_every_group_in_one_split(self):
        seen = {}
        for s in self.sources:
            seen.setdefault(s["group"], set()).add(s["split"])
        self.assertEqual({g: v for g, v in seen.items() if len(v) > 1}, {})

    def test_files_use_sources_of_their_split(self):
        split = {s["id"]: s["split"] for s in self.sources}
        bad = []
        for r in self.files:
            for kind, ids in r["sources"].items():
                for sid in ids:
                    if sid.startswith("synthetic:"):
                        continue
                    if split.get(sid) != r["split"]:
                        bad.append((r["audio_filepath"], sid, split.get(sid)))
        self.assertEqual(bad, [])

    def test_babble_voices_never_foreground(self):
        babble = {s["id"] for s in self.sources if s.get("babble")}
        fg = [(r["audio_filepath"], v) for r in self.files for v in r["sources"].get("voices", []) if v in babble]
        self.assertEqual(fg, [])
        voices = {s["id"] for s in self.sources if s["kind"] == "voice"}
        # every voice in a background (babble in noise_only, speech_noise, room, and the train-only
        # babble_only and speech_babble classes) is a babble voice
        bab = [(r["audio_filepath"], v) for r in self.files
               for v in r["sources"].get("noise", []) if v in voices and v not in babble]
        self.assertEqual(bab, [])

    def test_no_reserved_material(self):
        reserved = sources.RESERVED_NAMES
        self.assertGreater(len(reserved), 5)
        text = json.dumps(self.sources) + json.dumps(self.files)
        for r in reserved:
            self.assertNotIn(r, text)

    def test_labels_cover_every_file(self):
        frames = {}
        with open(os.path.join(CORPUS, "labels.jsonl")) as f:
            for line in f:
                s = json.loads(line)
                frames.setdefault(s["audio_filepath"], []).append(s)
        for r in self.files:
            segs = frames[r["audio_filepath"]]
            self.assertEqual(segs[0]["start"], 0.0)
            self.assertAlmostEqual(segs[-1]["end"], r["duration"], places=2)
            for a, b in zip(segs, segs[1:]):
                self.assertAlmostEqual(a["end"], b["start"], places=6)

    def test_sha256(self):
        for r in self.files[:20]:
            with open(os.path.join(CORPUS, r["audio_filepath"]), "rb") as f:
                self.assertEqual(hashlib.sha256(f.read()).hexdigest(), r["sha256"])


class DeterminismTests(unittest.TestCase):
    def test_two_runs_byte_identical(self):
        outs = []
        with tempfile.TemporaryDirectory() as tmp:
            for k in range(2):
                d = os.path.join(tmp, str(k))
                subprocess.run([sys.executable, os.path.join(HERE, "make_detect_corpus.py"), "--out", d,
                                "--scale", "small", "--only", "clean,speech_music,noise_only,overlap,telephone",
                                "--limit", "1"], check=True, capture_output=True)
                with open(os.path.join(d, "manifest.jsonl")) as f:
                    man = f.read()
                with open(os.path.join(d, "labels.jsonl")) as f:
                    lab = f.read()
                outs.append((man, lab, json.load(open(os.path.join(d, "manifest.json")))["audio_sha256"]))
        self.assertEqual(outs[0], outs[1])
        self.assertEqual(len(outs[0][0].splitlines()), 5)


class TrainModelsLanes(unittest.TestCase):
    """train_models.py's lane layout against Sources/DSPDetection/Models/CueLane.swift."""

    def test_lane_names_follow_cuelane(self):
        import re
        import train_models as tm
        swift = open(os.path.join(HERE, "..", "..", "Sources", "DSPDetection", "Models", "CueLane.swift")).read()
        names = re.findall(r'case \.\w+: "(\w+)"', swift)      # lanes 0-44 and 85 in declaration order
        self.assertEqual(tm.LANE_NAMES[:45], names[:45])
        self.assertEqual([tm.LANE_NAMES[tm.STREAM_SECONDS]], names[45:])
        self.assertEqual(tm.STREAM_SECONDS, len(tm.LANE_NAMES) - 1)
        self.assertEqual(len(tm.LANE_NAMES), int(re.search(r"static let count = (\d+)", swift).group(1)))
        self.assertEqual(tm.LANE_NAMES[45], "band_snr_db_0")
        self.assertEqual(tm.LANE_NAMES[65], "band_shape_db_0")

    def test_no_model_reads_a_later_probability(self):
        import train_models as tm
        for layout in tm.TASK_LANES.values():
            for task in ("music", "standalone"):
                self.assertFalse({43, 44} & set(layout[task]), task)
            self.assertNotIn(44, layout["speech"])
            self.assertIn(43, layout["speech"])
        self.assertEqual(tm.describe("multi") if tm.LANES is tm.TASK_LANES["bands"] else "", "``CueLane`` lanes 0–84")

    def test_header_names_the_run_that_made_the_models(self):
        """The generated header's regeneration command holds --train-extra when the material was
        made with it, and every fit option that differs from its default (nothing for a default
        run), so that running the command refits the same models."""
        import argparse
        import train_models as tm
        defaults = tm.parser().parse_args([])
        self.assertEqual(tm.options(defaults), "")
        run = argparse.Namespace(**{**vars(defaults), "class_weights": "babble_only=0.25,speech_loud=0.25",
                                    "exclude": "speech_loud/music", "seed": 3, "multi_members": 6})
        self.assertEqual(tm.options(run), " --seed 3 --multi-members 6 --class-weights babble_only=0.25,speech_loud=0.25"
                                          " --exclude speech_loud/music")
        with tempfile.TemporaryDirectory() as d:
            open(os.path.join(d, "labels.jsonl"), "w").close()
            manifest = {"seed": 23, "generator_version": "1.1.0", "scale": "full", "script_sha256": "0" * 64,
                        "audio_sha256": "1" * 64, "train_extra": True}
            header = tm.provenance(d, manifest, (tm.__file__,), ["a"], ["b"], ["x."], options=tm.options(run))
            self.assertIn("--scale full --seed 23 --train-extra\n", header)
            self.assertIn("DefaultModels.swift \\\n//       --seed 3 --multi-members 6 --class-weights", header)
            manifest["train_extra"] = False
            header = tm.provenance(d, manifest, (tm.__file__,), ["a"], ["b"], ["x."])
            self.assertIn("--scale full --seed 23\n", header)
            self.assertIn("DefaultModels.swift\n//\n", header)
            # A manifest written before the flag was recorded: its classes tell.
            del manifest["train_extra"]
            manifest["classes"] = {"clean": {}, "babble_only": {}}
            self.assertTrue(tm.made_with_train_extra(manifest))
            manifest["classes"] = {"clean": {}}
            self.assertFalse(tm.made_with_train_extra(manifest))
            # --train-overlap likewise, after --train-extra
            manifest.update(train_extra=True, train_overlap=True)
            header = tm.provenance(d, manifest, (tm.__file__,), ["a"], ["b"], ["x."])
            self.assertIn("--scale full --seed 23 --train-extra --train-overlap\n", header)
            del manifest["train_overlap"]
            manifest["classes"] = {"clean": {}, "overlap_train": {}}
            self.assertTrue(tm.made_with_train_overlap(manifest))
            # --train-music, last (generator 1.7.0); its classes stay out of the multi-speaker fit
            manifest.update(train_overlap=True, train_music=True)
            header = tm.provenance(d, manifest, (tm.__file__,), ["a"], ["b"], ["x."])
            self.assertIn("--scale full --seed 23 --train-extra --train-overlap --train-music\n", header)
            del manifest["train_music"]
            manifest["classes"] = {"clean": {}, "music_pieces": {}}
            self.assertTrue(tm.made_with_train_music(manifest))
            self.assertTrue(set(tm.TRAIN_MUSIC_CLASSES) <= set(tm.MULTI_EXCLUDED))
            # the multi-speaker model's own train files, when they differ
            header = tm.provenance(d, manifest, (tm.__file__,), ["a"], ["b"], ["x."], train_multi=["a", "c"])
            self.assertIn("fitted on the train split (1 files; 2 for the multi-speaker model), chosen on val", header)
            header = tm.provenance(d, manifest, (tm.__file__,), ["a"], ["b"], ["x."], train_multi=["a"])
            self.assertIn("fitted on the train split (1 files), chosen on val", header)
        run = argparse.Namespace(**{**vars(defaults), "multi_only": "overlap_train", "multi_weights": "1,2,4,8"})
        self.assertEqual(tm.options(run), " --multi-only overlap_train --multi-weights 1,2,4,8")


class MultiSpeakerChoice(unittest.TestCase):
    """The multi-speaker loss weight's val choice (train_models.multi_scores, choose_multi): window
    F1 over every file, false alarms on the single-talker classes, the best F1 within the bound."""

    def test_scores_count_windows_of_the_segmented_decisions(self):
        import train_models as tm
        import fit_models as fm
        n = 10 * fm.MULTI_WINDOW_FRAMES                  # ten 0.5 s windows of 16 ms hops
        t = np.arange(n) * fm.HOP
        p = np.zeros(n)
        p[:86] = 1                                       # 1.376 s called multi: windows 0-2 (0-1.488 s)
        data = {"val/clean/a.flac": {"time": t, "p": p, "y_multi": np.zeros(n, bool)},
                "val/overlap/b.flac": {"time": t, "p": np.ones(n), "y_multi": np.ones(n, bool)},
                "val/music_only/c.flac": {"time": t, "p": np.ones(n), "y_multi": np.zeros(n, bool)}}
        f1, fa = tm.multi_scores(data, ["val/clean/a.flac", "val/overlap/b.flac"], "p")
        self.assertAlmostEqual(fa, 3 / 10)               # 3 of the clean file's 10 windows
        self.assertAlmostEqual(f1, 2 * 10 / (2 * 10 + 3))
        # A false alarm outside the single-talker classes costs F1, not the bound's rate.
        f1, fa = tm.multi_scores(data, sorted(data), "p")
        self.assertAlmostEqual(fa, 3 / 10)
        self.assertAlmostEqual(f1, 2 * 10 / (2 * 10 + 13))

    def test_best_f1_within_the_bound(self):
        import train_models as tm
        bound = tm.MULTI_FA_BOUND
        tried = [(0.38, bound / 4, 2.0, "w2"), (0.41, bound / 2, 4.0, "w4"), (0.47, 2 * bound, 8.0, "w8")]
        self.assertEqual(tm.choose_multi(tried)[3], "w4")
        self.assertEqual(tm.choose_multi([(0.3, 3 * bound, 1.0, "a"), (0.5, 2 * bound, 2.0, "b")])[3], "b")
        self.assertEqual(tm.choose_multi([(0.4, 0.0, 1.0, "a"), (0.4, 0.0, 2.0, "b")])[3], "a")  # ties: first


class RecurrentModels(unittest.TestCase):
    """train_recurrent.py's models against the formula ProbabilityModel documents for a GRU (the
    Swift side is held to the same formula by GatedRecurrenceTests), and the layout it writes."""

    def setUp(self):
        try:
            import torch  # noqa: F401
        except ImportError:
            self.skipTest("PyTorch is not installed (scripts/detect/setup.sh --train)")

    def model(self, inputs=7, hidden=5):
        import torch
        import train_recurrent as tr
        torch.manual_seed(3)
        rng = np.random.default_rng(3)
        m = tr.Model(inputs, hidden, rng.normal(0, 1, inputs).astype(np.float32),
                     rng.uniform(0.5, 2, inputs).astype(np.float32))
        with torch.no_grad():
            for p in m.parameters():
                p.copy_(torch.from_numpy(rng.normal(0, 0.7, tuple(p.shape)).astype(np.float32)))
        return m.eval(), rng

    def test_pytorch_gru_is_the_documented_formula(self):
        import torch
        m, rng = self.model()
        x = rng.normal(0, 2, (60, 7)).astype(np.float32)
        with torch.no_grad():
            expected = torch.sigmoid(m(torch.from_numpy(x)[None]))[0].numpy().astype(np.float64)
        g = m.gru
        wi, bi = g.weight_ih_l0.detach().numpy().astype(float), g.bias_ih_l0.detach().numpy().astype(float)
        wh, bh = g.weight_hh_l0.detach().numpy().astype(float), g.bias_hh_l0.detach().numpy().astype(float)
        wo, bo = m.out.weight.detach().numpy().astype(float)[0], float(m.out.bias.detach()[0])
        sig = lambda v: 1 / (1 + np.exp(-v))
        h = np.zeros(5)
        for t, row in enumerate(x.astype(float)):
            z = (row - m.mean.numpy()) / m.scale.numpy()
            a, r_ = wi @ z + bi, wh @ h + bh
            r, u = sig(a[:5] + r_[:5]), sig(a[5:10] + r_[5:10])
            n = np.tanh(a[10:] + r * r_[10:])
            h = (1 - u) * n + u * h
            self.assertAlmostEqual(sig(bo + wo @ h), expected[t], delta=1e-5)

    def test_class_weights_scale_a_files_loss(self):
        """--class-weights reaches the GRU's loss as train_models.py's frame weights do: every
        frame of a file of a named class times its weight, padding 0."""
        import train_models as tm
        import train_recurrent as tr
        lanes = len(tm.LANES["music"])
        data = {}
        for rel, cls, n in (("train/a.flac", "babble_only", 3), ("train/b.flac", "music", 5)):
            audible = np.ones(n, dtype=bool)
            data[rel] = {"audible": audible, "condition": cls, "y": np.array([1, 0, 1, 0, 1][:n], dtype=bool)}
        original = tm.matrix
        tm.matrix = lambda c: np.zeros((len(c["audible"]), 100))
        try:
            seqs = tr.sequences(data, sorted(data), "music", "y", {"babble_only": 0.25})
            unweighted = tr.sequences(data, sorted(data), "music", "y")
        finally:
            tm.matrix = original
        self.assertEqual([s[2] for s in seqs], [0.25, 1.0])
        self.assertEqual([s[2] for s in unweighted], [1.0, 1.0])
        (x, y, w), = tr.batch_tensors(seqs, np.zeros(lanes, dtype=np.float32), 4, negative_weight=2.0,
                                      positive_weight=1.0)
        w = w.numpy()
        # Shortest first: a (3 frames, weight 0.25) then b (5 frames).
        np.testing.assert_allclose(w[0], [0.25, 0.5, 0.25, 0, 0])
        np.testing.assert_allclose(w[1], [1, 2, 1, 2, 1])

    def test_keep_carries_the_kept_fit_over(self):
        """--keep: the kept file's models from the voice-activity model on, verbatim, and the header
        of the fit that made them, also when the kept file was itself written with --keep."""
        import tempfile
        import train_recurrent as tr
        body = ("    /// Voice activity: lanes.\n    public static let speech = 1\n\n"
                "    /// Multiple speakers: lanes.\n    public static let multiSpeaker = 2\n}\n")
        first = "// Generated by scripts/detect/train_models.py; do not edit.\n// chosen on val: hidden 16\n"
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "DefaultModels.swift")
            with open(path, "w") as f:
                f.write(first + "\npublic enum DefaultModels {\n    /// Music: lanes.\n    public static let music = 0\n\n"
                        + body)
            header, source = tr.kept_parts(path)
            self.assertEqual(header, first.rstrip("\n").split("\n"))
            self.assertEqual(source, body)
            # A file written with --keep: its own provenance, the marker, then the kept fit's header.
            with open(path, "w") as f:
                f.write("// Generated by scripts/detect/train_recurrent.py; do not edit.\n//\n" + tr.KEPT_MARKER
                        + "\n// from the fit that made them; its header was:\n" + first
                        + "\npublic enum DefaultModels {\n    /// Music: GRU.\n    public static let music = 9\n\n" + body)
            self.assertEqual(tr.kept_parts(path), (first.rstrip("\n").split("\n"), body))

    def test_swift_source_layout(self):
        import re
        import train_models as tm
        import train_recurrent as tr
        task = "music"
        lanes = tm.LANES[task]
        m, _ = self.model(inputs=len(lanes), hidden=3)
        src = tr.swift(m, task, "music", "Music.")

        def values(key):
            return [float(v) for v in re.search(key + r": \[([^\]]*)\]", src).group(1).split(", ")]
        self.assertEqual(len(values("hiddenWeights")), 9 * len(lanes))
        self.assertEqual(len(values("hiddenBias")), 9)
        self.assertEqual(len(values("outputWeights")), 3)
        self.assertEqual(len(values("weights")), 27)
        recurrent_bias = re.search(r"weights: \[[^\]]*\],\s*bias: \[([^\]]*)\]", src).group(1)
        self.assertEqual(len(recurrent_bias.split(", ")), 9)
        self.assertEqual(values("hiddenWeights")[:3],
                         [float(f"{v:.7g}") for v in m.gru.weight_ih_l0.detach().numpy()[0, :3]])
        self.assertIn("recurrence: GatedRecurrence(", src)

    def test_network_class_weights_name_a_class_or_a_condition(self):
        """train_network.py --class-weights: a full condition's weight wins over its class's."""
        import train_network as tn
        solo = {"condition": "music_only", "label_segments": [{"condition": "music_only/midi-solo"}]}
        band = {"condition": "music_only", "label_segments": [{"condition": "music_only/midi-band"}]}
        clean = {"condition": "clean", "label_segments": [{"condition": "clean/-25..-15dBFS"}]}
        w = {"music_only/midi-solo": 4.0, "music_only": 2.0}
        self.assertEqual([tn.file_weight(c, w) for c in (solo, band, clean)], [4.0, 2.0, 1.0])
        self.assertEqual(tn.file_weight(solo, {}), 1.0)

    def test_network_average_and_teachers(self):
        """train_network.py --average: the mean of the members' probabilities, as logits, per head
        and frame; load_teacher rebuilds a checkpoint's network with its width and hidden size."""
        import torch
        import train_network as tn
        torch.manual_seed(5)
        members = [tn.Net(4, 3, 6, decibels=False).eval(), tn.Net(5, 2, 6, decibels=False).eval()]
        x = torch.randn(2, 9, 6)
        with torch.no_grad():
            expected = (torch.sigmoid(members[0](x)) + torch.sigmoid(members[1](x))) / 2
            got = torch.sigmoid(tn.Average(members)(x))
        self.assertEqual(tuple(got.shape), (2, 9, 3))
        self.assertTrue(torch.allclose(got, expected, atol=1e-6))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "net.pt")
            torch.save({"net": members[1].state_dict(), "step": 0}, path)
            teacher = tn.load_teacher(path, 6)
            self.assertEqual((teacher.conv1.out_channels, teacher.gru.hidden_size), (5, 2))
            with torch.no_grad():
                self.assertTrue(torch.equal(teacher(x), members[1](x)))


if __name__ == "__main__":
    unittest.main()
