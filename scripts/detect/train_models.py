#!/usr/bin/env python3
"""Fit SpeechDSP's detection models on the detection material's train split, choose every
setting on its val split, and write them as Swift source with their provenance (issue #23).

    swift build -c release --product dspbench
    .venv-detect/bin/python scripts/detect/train_models.py --corpus .build-detect-full \\
        --swift Sources/DSPDetection/Models/DefaultModels.swift

1. `dspbench detect --frames` on every train and val file (16 kHz mono, one row per 16 ms
   frame): the cue lanes the Swift models read (`CueLane`), computed by the shipped Swift code,
   so the models are fitted on exactly what they will see. Test files are never read.
2. Each frame labelled from labels.jsonl at the centre of its hop.
3. The models of scripts/eval/fit_models.py (one hidden layer of tanh units, ensembles averaged
   in the logit domain, Adam on the cross-entropy with fixed seeds), fitted on train only:
   music, then voice activity on the smoothed music probability, then multiple speakers on
   the smoothed speech probability, then voice activity alone (its lane subset). What the
   earlier script chose by inner cross-validation is chosen here on val: the hidden width,
   the loss weight of non-speech frames and the speech segmenter (10 ms frame F1 of the
   segmented decisions on val), the loss weight of multi-speaker frames (0.5 s window F1 on
   val). The choices and their val figures are printed and written into the Swift file's
   header.
4. The val decisions are replayed exactly as the Swift detector makes them (smoothing,
   ActivitySegmenter) only to choose; the reported figures come from `dspscore --timeline`
   (run_detect_eval.sh).

Deterministic: the same corpus, dspbench and script give the same weights.
"""
import argparse
import hashlib
import json
import os
import shlex
import subprocess
import sys
import time
from collections import defaultdict

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import detectlib  # noqa: E402,F401  (puts scripts/scene and scripts/eval on the path)
import fit_models as fm  # noqa: E402
import score  # noqa: E402

# Hidden units per ensemble member, chosen on val (speech model; the others take the same)
# among the widths the speed budget allows. With the band lanes (83-85 inputs, six members),
# 32 units gave val speech F1 87.57 against 87.00 for 16, but the detection stack ran 1.58x
# slower than the models before the band lanes (`dspbench detect`, 126 s of speech, alternated:
# 1700x against 2690x real time), against issue #23's >= 3000x: 32 is left out. 8 units lost
# to 16 on val without the band lanes (85.67 against 86.39), so the default grid is 16 alone.
HIDDEN_GRID = [16]
# The lanes of CueLane in order (columns of `dspbench detect --frames` by name): the 43 cues,
# the two probabilities, the per-band SNRs and envelope of the first 20 bands, then how far into
# the stream the frame lies.
BAND_LANES = [f"band_snr_db_{b}" for b in range(20)] + [f"band_shape_db_{b}" for b in range(20)]
LANE_NAMES = fm.CUES + ["p_music_prev", "p_speech"] + BAND_LANES + ["stream_seconds"]
MUSIC_PROBABILITY, SPEECH_PROBABILITY = 43, 44
STREAM_SECONDS = 85   # CueLane.streamSeconds
# What each model reads (--lanes): `cues`, the lanes the earlier models read; `bands`, those
# and the band lanes 45-84 (`bands-age` below adds lane 85 for voice activity). A model never reads
# a probability computed after it.
TASK_LANES = {
    "cues": {"music": list(range(43)), "speech": list(range(44)), "multi": list(range(45)),
             "standalone": list(fm.STANDALONE_LANES)},
    "bands": {"music": list(range(43)) + list(range(45, 85)), "speech": list(range(44)) + list(range(45, 85)),
              "multi": list(range(85)), "standalone": list(fm.STANDALONE_LANES) + list(range(45, 85))},
}
# `bands-age`: `bands`, with the voice-activity models also reading how far into the stream a
# frame lies (lane 85, up to 2 s): a stream's first second reads its cues from a short history.
TASK_LANES["bands-age"] = dict(TASK_LANES["bands"], speech=TASK_LANES["bands"]["speech"] + [STREAM_SECONDS],
                               standalone=TASK_LANES["bands"]["standalone"] + [STREAM_SECONDS])
LANES = TASK_LANES["bands"]
# Passes over the training frames. The material is ~10x the evaluation corpus the earlier
# script was tuned on (40 passes over 31 minutes); 12 passes over 3.6 h are more steps.
EPOCHS = 12
# Weight 3 never won on val (2026-11-28: 1 or 2 for every width tried); the default grid is 1, 2.
SPEECH_NEGATIVE_WEIGHTS = [1.0, 2.0]
MULTI_POSITIVE_WEIGHTS = [1.0, 2.0, 4.0]
# The multi-speaker loss weight is chosen on val window F1 among the weights whose val false alarms
# on single talkers (windows of the classes below, as score_detect.py's "multi FA single") stay
# within this bound. Issue #23 allows 5 %; a model at 2.4 % on val (weight 8 beside the music GRU,
# 2026-11-28) flagged 5 of the 12 windows of TestAudio's clean talker (DetectionGoldenTests), so
# the choice keeps a fifth of the allowance. The weight shipped before the bound (4) was at 0.3 %.
MULTI_FA_BOUND = 0.01
SINGLE_TALKER = ("clean", "dialogue", "telephone")
# Train files the multi-speaker model is not fitted on: generator 1.1.0's train-only classes,
# made for voice activity (babble alone and under one talker, speech under loud backgrounds).
# Babble is several voices labelled "not several speakers"; 250 such files taught the model to
# ignore overlapping talkers (val window F1 46.6 -> 20.8 with them, 2026-12-02).
TRAIN_EXTRA_CLASSES = ("babble_only", "speech_babble", "speech_loud")   # make_detect_corpus.py's TRAIN_ONLY
# Generator 1.5.0's train-only recorded effects (--train-effects), made for voice activity too.
TRAIN_EFFECTS_CLASSES = ("effects_only", "speech_effects")   # make_detect_corpus.py's TRAIN_EFFECTS
# Generator 1.6.0's train-only speech over synthetic backgrounds (--train-stationary), for voice activity.
TRAIN_STATIONARY_CLASSES = ("speech_stationary",)   # make_detect_corpus.py's TRAIN_STATIONARY
# Generator 1.7.0's train-only recorded music (--train-music), for voice activity and music.
TRAIN_MUSIC_CLASSES = ("music_pieces", "speech_pieces")   # make_detect_corpus.py's TRAIN_MUSIC
MULTI_EXCLUDED = TRAIN_EXTRA_CLASSES + TRAIN_EFFECTS_CLASSES + TRAIN_STATIONARY_CLASSES + TRAIN_MUSIC_CLASSES
# Train classes only the multi-speaker model is fitted on (--multi-only; default none): generator
# 1.3.0's overlap_train (make_detect_corpus.py --train-overlap) is made for it.
MULTI_ONLY = ()
TRAIN_OVERLAP_CLASSES = ("overlap_train",)   # make_detect_corpus.py's TRAIN_OVERLAP
# The classes of --startup's files (train streams cut mid-file) by what they open on, fitted on by
# the voice-activity models only.
STARTUP_CLASSES = {"speech": "startup", "non-speech": "startup_non_speech"}
# Networks in the multi-speaker ensemble unless --multi-members says otherwise (fit_models.py's).
MULTI_MEMBERS = fm.MULTI_ENSEMBLE


def file_sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()


def load(corpus, dspbench, splits, reuse, frames_dir=None, condition=None, prefix=""):
    """The frames of `corpus`'s files of `splits` ({key: columns}, keys `prefix` + path) and its
    labels; `condition` replaces every file's class (a probe corpus fitted on as a class of its
    own). Frame CSVs go to `frames_dir` (default CORPUS/results/frames)."""
    labels = fm.load_labels(os.path.join(corpus, "labels.jsonl"))
    frames_dir = frames_dir or os.path.join(corpus, "results", "frames")
    os.makedirs(frames_dir, exist_ok=True)
    data, columns = {}, None
    rels = sorted(rel for rel, segs in labels.items() if segs[0]["split"] in splits)
    start = time.time()
    for n, rel in enumerate(rels):
        out = os.path.join(frames_dir, rel.replace("/", "__") + ".csv")
        fresh = not (reuse and columns is not None and os.path.exists(out) and fm.read_header(out) == columns)
        if fresh:
            # --no-speech-blend: p_speech is the speech model's own probability, which the fits
            # replay and blend (the blend changes no lane).
            subprocess.run([dspbench, "detect", "--in", os.path.join(corpus, rel), "--frames", out, "--repeats", "1",
                            "--no-speech-blend"], check=True, stdout=subprocess.DEVNULL)
        if columns is None:
            columns = fm.read_header(out)
        c = fm.read_frames(out)
        t = c["time"] + fm.HOP / 2
        segs = labels[rel]
        c["y_speech"] = fm.label_at(segs, t, "speech")
        c["y_music"] = fm.label_at(segs, t, "music")
        c["y_multi"] = fm.label_at(segs, t, "multi_speaker")
        c["audible"] = np.nan_to_num(c["level_dbfs"], nan=-200) >= fm.SILENCE_DBFS
        c["condition"] = condition or segs[0]["condition"].split("/")[0]
        c["split"] = segs[0]["split"]
        c["label_segments"] = segs
        data[prefix + rel] = c
        if (n + 1) % 200 == 0:
            print(f"  frames: {n + 1}/{len(rels)} files ({time.time() - start:.0f} s)", file=sys.stderr)
    return data, labels


def load_startup(folders, dspbench, reuse):
    """The frames of train streams cut mid-file (`folders`, each made by `startup_probe.py --split
    train`, its `probe.json` saying what the streams open on), keyed `startup<n>:` + path, with the
    class STARTUP_CLASSES gives them."""
    data = {}
    for n, folder in enumerate(folders):
        opens = json.load(open(os.path.join(folder, "probe.json")))["open_on"]
        data.update(load(folder, dspbench, ("train",), reuse, frames_dir=os.path.join(folder, "frames"),
                         condition=STARTUP_CLASSES[opens], prefix=f"startup{n}:")[0])
    return data


def startup_commands(folders):
    """The commands that cut the streams of `folders` (their `probe.json`), for a header."""
    return [".venv-detect/bin/python " + json.load(open(os.path.join(d, "probe.json")))["command"] for d in folders]


def made_with_train_extra(manifest):
    """Whether the material was made with `make_detect_corpus.py --train-extra`: its manifest says
    so, or (manifests written before generator 1.1.0's scripts recorded it) it holds a train-only
    class."""
    return bool(manifest.get("train_extra", set(TRAIN_EXTRA_CLASSES) & set(manifest.get("classes", {}))))


def made_with_train_overlap(manifest):
    """Whether the material was made with `make_detect_corpus.py --train-overlap`."""
    return bool(manifest.get("train_overlap", set(TRAIN_OVERLAP_CLASSES) & set(manifest.get("classes", {}))))


def made_with_train_effects(manifest):
    """Whether the material was made with `make_detect_corpus.py --train-effects`."""
    return bool(manifest.get("train_effects", set(TRAIN_EFFECTS_CLASSES) & set(manifest.get("classes", {}))))


def made_with_train_stationary(manifest):
    """Whether the material was made with `make_detect_corpus.py --train-stationary`."""
    return bool(manifest.get("train_stationary", set(TRAIN_STATIONARY_CLASSES) & set(manifest.get("classes", {}))))


def made_with_train_music(manifest):
    """Whether the material was made with `make_detect_corpus.py --train-music`."""
    return bool(manifest.get("train_music", set(TRAIN_MUSIC_CLASSES) & set(manifest.get("classes", {}))))


def provenance(corpus, manifest, scripts, train, val, details, setup="scripts/detect/setup.sh", options="",
               train_multi=None, startup=None):
    """The generated DefaultModels.swift's header: how to regenerate it (the material made as the
    manifest says it was, `--train-extra`, `--train-overlap` and `--train-effects` included; the first of `scripts`
    is the training script run, with `options`: ` --flag value` pairs), the material's and the
    scripts' hashes, the train files (`train_multi`: the multi-speaker model's, when they differ)
    and `details` (one comment line each); `startup`, the commands that cut the train streams
    the fit read (`--startup`)."""
    script = hashlib.sha256()
    for path in scripts:
        script.update(open(path, "rb").read())
    name = os.path.basename(scripts[0])
    labels = file_sha(os.path.join(corpus, "labels.jsonl"))
    lines = [f"Generated by scripts/detect/{name}; do not edit. Regenerate with:",
             f"  {setup}",
             f"  .venv-detect/bin/python scripts/detect/make_detect_corpus.py --out .build-detect-full --scale full "
             f"--seed {manifest['seed']}" + (" --train-extra" if made_with_train_extra(manifest) else "")
             + (" --train-overlap" if made_with_train_overlap(manifest) else "")
             + (" --train-effects" if made_with_train_effects(manifest) else "")
             + (" --train-stationary" if made_with_train_stationary(manifest) else "")
             + (" --train-music" if made_with_train_music(manifest) else ""),
             *[f"  {command}" for command in startup or []],
             "  swift build -c release --product dspbench",
             f"  .venv-detect/bin/python scripts/detect/{name} --corpus .build-detect-full \\",
             f"      --swift Sources/DSPDetection/Models/DefaultModels.swift" + (" \\" if options else ""),
             *([f"      {options.strip()}"] if options else []),
             "",
             f"Material: detection generator {manifest['generator_version']}, scale {manifest['scale']}, "
             f"seed {manifest['seed']},",
             f"  generator scripts sha256 {manifest['script_sha256'][:16]}, audio sha256 "
             f"{manifest['audio_sha256'][:16]}, labels sha256 {labels[:16]};",
             f"  fitted on the train split ({len(train)} files"
             + ("" if train_multi is None or len(train_multi) == len(train)
                else f"; {len(train_multi)} for the multi-speaker model")
             + f"), chosen on val ({len(val)} files); test never read.",
             f"Training script sha256 {script.hexdigest()[:16]} ({' + '.join(os.path.basename(p) for p in scripts)}),"]
    lines += details
    return "".join(f"// {line}".rstrip() + "\n" for line in lines)


def models_source(models, speech_segments, summary=""):
    """The `DefaultModels` enum: the music, voice-activity, multi-speaker and voice-alone models
    (anything with `.swift(name, comment)`) and the speech segmenter; `summary` ends the type's
    doc sentence."""
    music, speech, multi, standalone = models
    return ("\n/// The detection models fitted on the detection material's train split (`docs/detection.md`)"
            f"{summary}.\npublic enum DefaultModels {{\n"
            + music.swift("music", f"Music: {describe('music')}.") + "\n"
            + speech.swift("speech", f"Voice activity: {describe('speech')}.") + "\n"
            + multi.swift("multiSpeaker", f"Multiple speakers: {describe('multi')}.") + "\n"
            + standalone.swift("standaloneSpeech", f"Voice activity alone: {describe('standalone')} (no rhythm, "
                               "peak-persistence, sieve or probability lanes).") + "\n"
            + fm.swift_segmenter(speech_segments, "on val") + "}\n")


def matrix(c):
    """A file's frames as CueLane lanes (columns in lane order)."""
    return np.nan_to_num(np.stack([c[k] for k in LANE_NAMES], axis=1))


def gather(data, files, task, label):
    xs, ys = [], []
    for rel in files:
        c = data[rel]
        keep = c["audible"]
        xs.append(matrix(c)[keep][:, LANES[task]])
        ys.append(c[label][keep])
    return np.vstack(xs), np.concatenate(ys).astype(float)


def frame_weights(data, files, weights):
    """One loss weight per audible frame of `files`, in gather's order: `weights[class]` for the
    classes it names, 1 elsewhere; None when it names none."""
    if not weights:
        return None
    return np.concatenate([np.full(int(data[rel]["audible"].sum()), weights.get(data[rel]["condition"], 1.0))
                           for rel in files])


def apply(data, task, net, column):
    smoothing = fm.SMOOTHING["speech" if task == "standalone" else task]
    for c in data.values():
        c[column] = fm.smooth(np.where(c["audible"], net(matrix(c)[:, LANES[task]]), 0.0), smoothing)


def ensemble(task, hidden, members=None):
    lanes = LANES[task]
    plain = lanes == list(range(len(lanes)))      # the first N lanes: no inputLanes needed
    return fm.Ensemble(len(lanes), hidden=hidden, lanes=None if plain else lanes, members=members)


def speech_f1(data, files, column, params):
    tp = fp = fn = 0
    for rel in files:
        c = data[rel]
        counts = fm.frame_counts(fm.segment(c, c[column], params), c["label_segments"],
                                 score.n_frames(max(s["end"] for s in c["label_segments"])))
        tp, fp, fn = tp + counts[0], fp + counts[1], fn + counts[2]
    return 2 * tp / max(1, 2 * tp + fp + fn)


def multi_scores(data, files, column):
    """(window F1 over the files, window false-alarm rate on their single-talker files): 0.5 s
    windows of the segmented decisions, as score_detect.py counts them."""
    tp = fp = fn = 0
    single_fp = single_windows = 0
    for rel in files:
        c = data[rel]
        p = c[column]
        decided = np.zeros(len(p), dtype=bool)
        for a, b in fm.segment(c, p, fm.SEGMENTS["multi"]):
            decided |= (c["time"] + fm.HOP / 2 >= a) & (c["time"] + fm.HOP / 2 < b)
        counts = fm.window_counts(decided, c["y_multi"])
        tp, fp, fn = tp + counts[0], fp + counts[1], fn + counts[2]
        if rel.split("/")[1] in SINGLE_TALKER:
            windows = sum(1 for s in range(0, len(decided), fm.MULTI_WINDOW_FRAMES)
                          if len(decided) - s >= fm.MULTI_WINDOW_FRAMES / 2)
            single_fp += counts[1]
            single_windows += windows - counts[0] - counts[2]
    return 2 * tp / max(1, 2 * tp + fp + fn), single_fp / max(1, single_windows)


def choose_multi(tried):
    """The (F1, FA, weight, model) of `tried` with the best val F1 among those with FA within
    MULTI_FA_BOUND; the lowest FA when none is."""
    within = [t for t in tried if t[1] <= MULTI_FA_BOUND]
    if not within:
        return min(tried, key=lambda t: t[1])
    best = within[0]
    for t in within[1:]:
        if t[0] > best[0] + 1e-9:
            best = t
    return best


def music_f1(data, files):
    tp = fp = fn = 0
    for rel in files:
        c = data[rel]
        decided = np.zeros(len(c["time"]), dtype=bool)
        for a, b in fm.segment(c, c["p_music"], fm.SEGMENTS["music"]):
            decided |= (c["time"] + fm.HOP / 2 >= a) & (c["time"] + fm.HOP / 2 < b)
        y = c["y_music"]
        tp += int(np.count_nonzero(decided & y))
        fp += int(np.count_nonzero(decided & ~y))
        fn += int(np.count_nonzero(~decided & y))
    return 2 * tp / max(1, 2 * tp + fp + fn)


def describe(task):
    """The lanes a model reads, as ranges of ``CueLane`` raw values."""
    lanes, runs = LANES[task], []
    for i in lanes:
        if runs and runs[-1][1] == i - 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return "``CueLane`` lanes " + ", ".join(f"{a}–{b}" if b > a else f"{a}" for a, b in runs)


# The options that change the fit (the paths, --reuse and --dspbench do not).
FIT_OPTIONS = ("seed", "lanes", "hidden", "speech_weights", "multi_members", "multi_exclude", "multi_only",
               "multi_weights", "class_weights", "exclude", "music_exclude", "multi_hidden", "members", "startup",
               "startup_music")


def options(args):
    """The options of this run that change the fit, as they would be typed (` --flag value` each;
    those at their parser default left out): the header's regeneration command."""
    defaults = parser()
    return "".join(f" --{k.replace('_', '-')} {shlex.quote(str(getattr(args, k)))}"
                   for k in FIT_OPTIONS if str(getattr(args, k)) != str(defaults.get_default(k)))


def parser():
    """The command line."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=".build-detect-full")
    ap.add_argument("--dspbench", default=".build/release/dspbench")
    ap.add_argument("--reuse", action="store_true", help="reuse frame CSVs with this dspbench's columns")
    ap.add_argument("--swift", help="write the fitted models here (DefaultModels.swift)")
    ap.add_argument("--seed", type=int, default=1, help="seed of each ensemble's first network (default 1)")
    ap.add_argument("--lanes", choices=sorted(TASK_LANES), default="bands", help="what the models read (default bands)")
    ap.add_argument("--hidden", default=",".join(map(str, HIDDEN_GRID)), help="hidden widths to choose from")
    ap.add_argument("--speech-weights", default=",".join(map(str, SPEECH_NEGATIVE_WEIGHTS)),
                    help="non-speech loss weights to choose from")
    ap.add_argument("--members", type=int, default=fm.ENSEMBLE,
                    help=f"networks in the music, voice-activity and voice-activity-alone ensembles (default {fm.ENSEMBLE})")
    ap.add_argument("--multi-members", type=int, default=MULTI_MEMBERS,
                    help=f"networks in the multi-speaker ensemble (default {MULTI_MEMBERS})")
    ap.add_argument("--multi-exclude", default=",".join(MULTI_EXCLUDED),
                    help="train classes the multi-speaker model is not fitted on ('' for none)")
    ap.add_argument("--multi-only", default=",".join(MULTI_ONLY),
                    help="train classes only the multi-speaker model is fitted on, e.g. overlap_train (default none)")
    ap.add_argument("--multi-hidden", type=int, default=0,
                    help="hidden width of the multi-speaker networks (default 0: the width val chose for the others)")
    ap.add_argument("--multi-weights", default=",".join(f"{w:g}" for w in MULTI_POSITIVE_WEIGHTS),
                    help="multi-speaker positive loss weights to choose from")
    ap.add_argument("--class-weights", default="",
                    help="loss weight per train class for the music and voice-activity models, e.g. babble_only=0.5")
    ap.add_argument("--music-exclude", default="",
                    help="train classes the music model is not fitted on, e.g. effects_only (default none)")
    ap.add_argument("--startup", metavar="DIR,...",
                    help="train streams cut mid-file (startup_probe.py --split train --out DIR), "
                         "fitted on by the voice-activity models as class `startup` (streams that open on speech) or `startup_non_speech`")
    ap.add_argument("--startup-music", action="store_true",
                    help="fit the music model on --startup's streams too (they are left out of it by default)")
    ap.add_argument("--exclude", default="",
                    help="train conditions (prefixes of labels.jsonl's condition, e.g. speech_loud/music) no model is fitted on")
    return ap


def main():
    args = parser().parse_args()
    hidden_grid = [int(v) for v in args.hidden.split(",")]
    speech_weights = [float(v) for v in args.speech_weights.split(",")]
    fm.FIRST_SEED = args.seed
    if args.multi_members < 1 or args.members < 1:
        sys.exit("train_models: --members and --multi-members must be at least 1")
    fm.ENSEMBLE = args.members
    fm.MULTI_ENSEMBLE = args.multi_members
    global LANES
    LANES = TASK_LANES[args.lanes]
    manifest = json.load(open(os.path.join(args.corpus, "manifest.json")))
    if not manifest.get("complete"):
        sys.exit(f"train_models: {args.corpus} is incomplete: run make_detect_corpus.py first")

    data, labels = load(args.corpus, args.dspbench, ("train", "val"), args.reuse)
    # Train streams cut mid-file: for the voice-activity fits only (and the music fit with
    # --startup-music).
    startup_dirs = [d for d in (args.startup or "").split(",") if d]
    data.update(load_startup(startup_dirs, args.dspbench, args.reuse))
    excluded = tuple(p for p in args.exclude.split(",") if p)
    multi_only = {p for p in args.multi_only.split(",") if p}
    fitted = sorted(r for r, c in data.items() if c["split"] == "train"
                    and not any(c["label_segments"][0]["condition"].startswith(p) for p in excluded))
    train = [r for r in fitted if data[r]["condition"] not in multi_only]
    class_weights = {k: float(v) for k, v in (p.split("=") for p in args.class_weights.split(",") if p)}
    startup_only = set(STARTUP_CLASSES.values()) if startup_dirs else set()
    multi_excluded = {p for p in args.multi_exclude.split(",") if p} | startup_only
    sample_weight = frame_weights(data, train, class_weights)   # the voice-activity fits
    music_excluded = {p for p in args.music_exclude.split(",") if p} | (set() if args.startup_music else startup_only)
    train_music = [r for r in train if data[r]["condition"] not in music_excluded]
    music_weight = frame_weights(data, train_music, class_weights)
    train_multi = [r for r in fitted if data[r]["condition"] not in multi_excluded]
    val = sorted(r for r, c in data.items() if c["split"] == "val")
    print(f"train {len(train)} files ({len(train_multi)} for the multi-speaker model), val {len(val)} files",
          file=sys.stderr)
    kw = {"epochs": EPOCHS}
    for c in data.values():
        c["p_music_prev"] = np.zeros(len(c["time"]))
        c["p_speech"] = np.zeros(len(c["time"]))
    report = []

    # Hidden width and the voice-activity settings, chosen together on val with the music
    # model of that width.
    best = None
    for hidden in hidden_grid:
        fm.HIDDEN = hidden
        music = ensemble("music", hidden).fit(*gather(data, train_music, "music", "y_music"), sample_weight=music_weight,
                                              **kw)
        apply(data, "music", music, "p_music")
        mf1 = music_f1(data, val)
        for c in data.values():
            c["p_music_prev"] = np.r_[0.0, c["p_music"][:-1]]
        for weight in speech_weights:
            speech = ensemble("speech", hidden).fit(
                *gather(data, train, "speech", "y_speech"), negative_weight=weight, sample_weight=sample_weight, **kw)
            apply(data, "speech", speech, "p_speech")
            grid = [fm.SEGMENTS["speech"]] + [g for g in fm.SPEECH_SEGMENT_GRID if g != fm.SEGMENTS["speech"]]
            for params in grid:
                f1 = speech_f1(data, val, "p_speech", params)
                if best is None or f1 > best[0] + 1e-9:
                    best = (f1, hidden, weight, params, music, speech, mf1)
            line = (f"hidden {hidden}, speech negative weight {weight:g}: music F1 {100 * mf1:.2f}; "
                    f"best val speech F1 so far {100 * best[0]:.2f} (hidden {best[1]}, weight {best[2]:g}, "
                    f"segmenter {best[3]})")
            print(line, file=sys.stderr)
            report.append(line)
    f1, hidden, weight, speech_segments, music, speech, mf1 = best
    fm.HIDDEN = hidden
    apply(data, "music", music, "p_music")
    for c in data.values():
        c["p_music_prev"] = np.r_[0.0, c["p_music"][:-1]]
    apply(data, "speech", speech, "p_speech")

    tried = []
    multi_hidden = args.multi_hidden or hidden
    for mweight in (float(v) for v in args.multi_weights.split(",")):
        multi = ensemble("multi", multi_hidden, members=fm.MULTI_ENSEMBLE).fit(
            *gather(data, train_multi, "multi", "y_multi"), positive_weight=mweight, **kw)
        apply(data, "multi", multi, "p_multi")
        g, fa = multi_scores(data, val, "p_multi")
        line = f"multi-speaker positive weight {mweight:g}: val window F1 {100 * g:.2f}, FA single talkers {100 * fa:.2f}"
        print(line, file=sys.stderr)
        report.append(line)
        tried.append((g, fa, mweight, multi))
    multi_f, _, mweight, multi = choose_multi(tried)

    standalone = ensemble("standalone", hidden).fit(
        *gather(data, train, "standalone", "y_speech"), negative_weight=weight, sample_weight=sample_weight, **kw)
    apply(data, "standalone", standalone, "p_speech_alone")
    alone_f1 = speech_f1(data, val, "p_speech_alone", speech_segments)
    chosen = (f"chosen on val: hidden {hidden} x {fm.ENSEMBLE} (multi {multi_hidden} x {fm.MULTI_ENSEMBLE}), speech negative "
              f"weight {weight:g}, segmenter {speech_segments}, multi positive weight {mweight:g}; val "
              f"(replayed) speech F1 {100 * f1:.2f}, alone {100 * alone_f1:.2f}, music F1 {100 * mf1:.2f}, "
              f"multi window F1 {100 * multi_f:.2f}")
    print(chosen, file=sys.stderr)

    if args.swift:
        with open(args.swift, "w") as f:
            f.write(provenance(args.corpus, manifest, (os.path.abspath(__file__), fm.__file__), train, val, options=options(args),
                               train_multi=train_multi,
                               startup=startup_commands(startup_dirs), details=[
                f"first seed {args.seed}, {EPOCHS} epochs, lanes: {args.lanes},",
                f"hidden widths from {hidden_grid}, non-speech weights from {speech_weights},",
                f"multi-speaker model without the train classes {sorted(multi_excluded)}"
                + (f", and the only one fitted on {sorted(multi_only)}" if multi_only else "") + ",",
                f"train conditions excluded: {list(excluded)}, class loss weights: {class_weights}"
                + (f", music model without the train classes {sorted(music_excluded)}" if music_excluded else "")
                + ".", chosen]))
            f.write(models_source((music, speech, multi, standalone), speech_segments))
        print(f"wrote {args.swift}", file=sys.stderr)


if __name__ == "__main__":
    main()
