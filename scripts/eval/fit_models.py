#!/usr/bin/env python3
"""Fit SpeechDSP's three detection models (music, voice activity, multiple speakers) on the
evaluation corpus and write them as Swift source.

    swift build -c release --product dspbench
    scripts/eval/fit_models.py --corpus corpus \
        --swift Sources/DSPDetection/Models/DefaultModels.swift

1. Runs `dspbench detect --frames` on every corpus file (16 kHz mono, one row per 16 ms
   frame) to get the cue lanes the Swift models read (`CueLane`: columns by name).
2. Labels each frame from corpus/labels.jsonl at the frame's centre.
3. Fits, in order, the music model (lanes 0-42; 27-42 are eight instantaneous lanes 4 and 8
   frames earlier), the voice-activity model (lanes 0-43: lane 43 is the previous frame's
   smoothed music probability) and the multi-speaker model (lanes 0-44: lane 44 is the
   smoothed speech probability), replaying AcousticDetector's smoothing so
   each model sees the inputs it will see in Swift. Each is a network with one hidden layer of
   8 tanh units (ProbabilityModel), trained by Adam on the cross-entropy with a fixed seed;
   each model is the logit average of six such networks (seeds 1-6, Ensemble; three for the
   multi-speaker model), shipped as one network of 48 (24) hidden units.
   The weight of non-speech frames in the voice-activity loss is chosen from
   SPEECH_NEGATIVE_WEIGHTS by an inner 2-fold cross-validation on the training files
   (select_speech_settings: 10 ms frame F1 of the segmented decisions), and the speech
   segmenter with it (SPEECH_SEGMENT_GRID). The weight
   of multi-speaker frames in that model's loss (overlap is ~5 % of the frames) is chosen from
   MULTI_POSITIVE_WEIGHTS by an inner 2-fold cross-validation on the training files alone
   (select_multi_weight), so the held-out files never influence it.
   Frames below the silence floor (-70 dBFS) are left out: the detector forces them to 0.
4. Cross-validation (--folds, default 2): files are split alternately within each condition;
   for each fold the models are fitted on the other files and the held-out files' decisions
   are simulated (smoothing + ActivitySegmenter, as in Swift) and written as a timeline to
   CORPUS/results/cv-fold<k>.jsonl (or --cv-out DIR) with its labels (score them with
   score.py). Then, with --swift, the models are fitted on every file and written there.

Needs numpy only. Deterministic: the same corpus and script give the same weights.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
from collections import defaultdict

import numpy as np

import score

HOP = 256 / 16000
SILENCE_DBFS = -70.0
SMOOTHING = {"music": 0.9, "speech": 0.5, "multi": 0.8}
SEGMENTS = {  # AcousticDetector.Configuration defaults: on, off, min active, hangover, padding
    "speech": (0.5, 0.35, 0.064, 0.2, 0.048, None),
    "music": (0.6, 0.4, 0.5, 0.5, 0.0),
    "multi": (0.5, 0.35, 0.25, 0.25, 0.0),
}
CUES = ["snr_db", "speech_snr_db", "harmonicity", "flatness", "entropy", "centroid_hz", "rolloff_hz", "flux_db",
        "zcr", "modulation_db", "low_energy", "persistence", "pulse", "voiced", "stable_pitch",
        "harmonicity_mean", "second_salience", "zcr_mean", "zcr_std",
        "voicing_alternations", "centroid_deviation",
        "speech_snr_max_db", "speech_bands_active", "modulation_max_db", "flux_peakiness",
        "harmonicity_std", "speech_snr_std_db"]                                 # CueLane 0-26
# CueLane 27-42 (DetectionCues.earlierValues): eight instantaneous lanes 4 and 8 frames earlier.
EARLIER = ["snr_db", "speech_snr_db", "harmonicity", "flatness", "entropy", "centroid_hz", "flux_db", "zcr"]
CUES += [f"{name}_lag{lag}" for lag in (4, 8) for name in EARLIER]
INPUTS = {"music": len(CUES), "speech": len(CUES) + 1, "multi": len(CUES) + 2}
# Voice activity alone (AcousticDetector with music and multi-speaker detection off): the lanes
# that need neither the rhythm, peak-persistence and harmonic-sieve cues nor the music model.
STANDALONE_LANES = [i for i, name in enumerate(CUES) if name not in ("persistence", "pulse", "second_salience")]
# Candidate weights of non-speech frames in the voice-activity loss (speech frames weigh 1):
# false alarms on music and noise cost more to a recognizer than a slightly late onset.
# fit_all picks one by an inner cross-validation on its own training files
# (select_speech_settings); the standalone model uses the same weight.
SPEECH_NEGATIVE_WEIGHTS = [2.0, 3.0, 4.0]
# Candidate speech segmenters (on, off, minimum active s, hangover s, padding s), chosen with the
# weight by the same inner cross-validation (select_speech_settings); SEGMENTS["speech"], the
# a-priori setting, is tried first.
# The sixth value is the end threshold (ActivitySegmenter.Configuration.endThreshold; None = the
# off threshold): a segment ends after the last frame at or above it, so the frames of a decaying
# probability after an utterance (the smoothing lag, the 0.5-1 s cue windows) stay out of it
# while the off threshold and the hangover still bridge pauses.
SPEECH_SEGMENT_GRID = [(on, off, min_active, hangover, padding, end)
                       for on in (0.5, 0.6) for off in (0.35, 0.45) for min_active in (0.032, 0.064)
                       for hangover in (0.2, 0.3) for padding in (0.0, 0.016, 0.048)
                       for end in (None, 0.6, 0.7, 0.8)]
# Candidate loss weights of multi-speaker (positive) frames; fit_all picks one by an inner
# cross-validation on its own training files (select_multi_weight).
MULTI_POSITIVE_WEIGHTS = [1.0, 2.0, 3.0, 4.0]
# The scorer's 0.5 s windows on the 16 ms frame grid (31 frames = 0.496 s).
MULTI_WINDOW_FRAMES = 31
HIDDEN = 8
# Networks per model, averaged in the logit domain (Ensemble): six for music and voice activity
# (three left their held-out voice-activity F1 and music false alarms moving by about a point
# and two points from one set of seeds to another), three for multiple speakers (whose
# inner weight selection would otherwise double the fitting time).
ENSEMBLE = 6
MULTI_ENSEMBLE = 3
# Seed of an ensemble's first network (the others follow); --seed changes it to measure the
# seed-to-seed spread of the held-out figures.
FIRST_SEED = 1


def load_labels(path):
    by_file = defaultdict(list)
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            by_file[r["audio_filepath"]].append(r)
    return by_file


def label_at(segments, times, key):
    out = np.zeros(len(times), dtype=bool)
    for s in segments:
        if s.get(key):
            out |= (times >= s["start"]) & (times < s["end"])
    return out


def read_header(csv_path):
    with open(csv_path) as f:
        return next(csv.reader(f), [])


def read_frames(csv_path):
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    return {k: np.array([float(r[k]) if r[k] != "" else np.nan for r in rows]) for k in (rows[0] if rows else {})}


def sigmoid(z):
    return 1 / (1 + np.exp(-np.clip(z, -30, 30)))


def smooth(p, a):
    out = np.empty_like(p)
    acc = 0.0
    for i, v in enumerate(p):
        acc = a * acc + (1 - a) * v
        out[i] = acc
    return out


class Segmenter:
    """ActivitySegmenter, frame for frame. `end` (endThreshold): an open segment's end is the
    end of the last frame at or above it (or of the frame that opened the segment); None = off,
    the last frame at or above the off threshold."""

    def __init__(self, on, off, min_active, hangover, padding, end=None):
        self.on, self.off, self.min_active, self.hangover, self.padding = on, off, min_active, hangover, padding
        self.end = off if end is None else max(off, end)
        self.active = False
        self.run_start = self.run = self.quiet = self.last_end = self.prev_end = self.start = 0.0
        self.segments = []

    def update(self, p, t, d):
        if not self.active:
            if p >= self.on:
                if self.run == 0:
                    self.run_start = t
                self.run += d
                if self.run >= self.min_active - 1e-9:
                    self.active = True
                    self.start = max(self.prev_end, self.run_start - self.padding, 0)
                    self.last_end = t + d
                    self.quiet = self.run = 0
            else:
                self.run = 0
            return
        if p < self.off:
            self.quiet += d
            if self.quiet >= self.hangover - 1e-9:
                self.active = False
                end = min(self.last_end + self.padding, t + d)
                self.prev_end = end
                self.quiet = 0
                self.segments.append((self.start, end))
        else:
            self.quiet = 0
            if p >= self.end:
                self.last_end = t + d

    def finish(self, t):
        if self.active:
            self.segments.append((self.start, min(self.last_end + self.padding, t)))
        return self.segments


def timeline(rel, duration, lists):
    points = sorted({0.0, duration, *[x for segs in lists.values() for s in segs for x in s]})
    out = []
    for a, b in zip(points, points[1:]):
        if b <= a or b > duration:
            continue
        mid = (a + b) / 2
        flags = {k: any(s <= mid < e for s, e in segs) for k, segs in lists.items()}
        if out and all(out[-1][k] == flags[k] for k in flags):
            out[-1]["end"] = b
        else:
            out.append({"audio_filepath": rel, "start": round(a, 3), "end": round(b, 3), **flags})
    return out


class Network:
    """ProbabilityModel: standardise, tanh hidden layer, logistic output."""

    def __init__(self, inputs, hidden=HIDDEN, seed=1, lanes=None):
        self.inputs, self.hidden = inputs, hidden
        self.seed = seed
        self.lanes = lanes

    def fit(self, x, y, epochs=40, lr=0.01, l2=1e-4, batch=512, negative_weight=1.0, positive_weight=1.0,
            sample_weight=None):
        """Adam on the cross-entropy, each frame's term weighted by its class weight
        (`positive_weight`, `negative_weight`) times `sample_weight` (one per frame, or None)."""
        self.mean = x.mean(0)
        self.scale = x.std(0) + 1e-6
        z = self.standardise(x)
        rng = np.random.default_rng(self.seed)
        self.w1 = rng.normal(0, 0.5, (self.hidden, self.inputs))
        self.b1 = np.zeros(self.hidden)
        self.w2 = rng.normal(0, 0.5, self.hidden)
        self.b2 = np.zeros(1)
        params = [self.w1, self.b1, self.w2, self.b2]
        m = [np.zeros_like(p) for p in params]
        v = [np.zeros_like(p) for p in params]
        t = 0
        for _ in range(epochs):
            order = rng.permutation(len(y))
            for s in range(0, len(y), batch):
                i = order[s:s + batch]
                h = np.tanh(z[i] @ self.w1.T + self.b1)
                p = sigmoid(h @ self.w2 + self.b2[0])
                weight = np.where(y[i] > 0, positive_weight, negative_weight)
                if sample_weight is not None:
                    weight = weight * sample_weight[i]
                dz = weight * (p - y[i]) / len(i)
                dh = np.outer(dz, self.w2) * (1 - h * h)
                grads = [dh.T @ z[i] + l2 * self.w1, dh.sum(0), h.T @ dz + l2 * self.w2, np.array([dz.sum()])]
                t += 1
                for k, (param, g) in enumerate(zip(params, grads)):
                    m[k] = 0.9 * m[k] + 0.1 * g
                    v[k] = 0.999 * v[k] + 0.001 * g * g
                    param -= lr * (m[k] / (1 - 0.9 ** t)) / (np.sqrt(v[k] / (1 - 0.999 ** t)) + 1e-8)
        return self

    def standardise(self, x):
        return (x - self.mean) / self.scale

    def logit(self, x):
        h = np.tanh(self.standardise(x) @ self.w1.T + self.b1)
        return h @ self.w2 + self.b2[0]

    def __call__(self, x):
        return sigmoid(self.logit(x))

    def swift(self, name, comment):
        def floats(a):
            return ", ".join(f"{float(v):.6g}" for v in np.ravel(a))
        lanes_line = ""
        if self.lanes is not None:
            lanes_line = "\n        inputLanes: [" + ", ".join(str(i) for i in self.lanes) + "],"
        return f"""    /// {comment}
    public static let {name} = ProbabilityModel(
        inputCount: {self.inputs},{lanes_line}
        inputMean: [{floats(self.mean)}],
        inputScale: [{floats(self.scale)}],
        hiddenWeights: [{floats(self.w1)}],
        hiddenBias: [{floats(self.b1)}],
        outputWeights: [{floats(self.w2)}],
        outputBias: {float(self.b2[0]):.6g})
"""


class Ensemble(Network):
    """ENSEMBLE networks fitted with seeds 1, 2, ..., their logits averaged. One network with
    the members' hidden units side by side, output weights divided by the member count and the
    mean output bias computes exactly that, so it ships as one ProbabilityModel. Averaging
    damps the seed-to-seed spread of the fitted models (several points of held-out F1 with one
    network of 8 units on this corpus)."""

    def __init__(self, inputs, hidden=HIDDEN, seed=None, lanes=None, members=None):
        super().__init__(inputs, hidden, FIRST_SEED if seed is None else seed, lanes)
        self.members = members or ENSEMBLE

    def fit(self, x, y, **kw):
        nets = [Network(self.inputs, self.hidden, self.seed + k, self.lanes).fit(x, y, **kw) for k in range(self.members)]
        n = len(nets)
        self.mean, self.scale = nets[0].mean, nets[0].scale     # the same data, the same standardisation
        self.w1 = np.vstack([m.w1 for m in nets])
        self.b1 = np.concatenate([m.b1 for m in nets])
        self.w2 = np.concatenate([m.w2 for m in nets]) / n
        self.b2 = np.array([np.mean([m.b2[0] for m in nets])])
        self.hidden = self.w1.shape[0]
        return self


def lanes(c):
    return np.nan_to_num(np.stack([c[k] for k in CUES] + [c["p_music_prev"], c["p_speech"]], axis=1))


def window_counts(decisions, labels, window=MULTI_WINDOW_FRAMES):
    """(tp, fp, fn) over consecutive windows of `window` frames (a last partial window of at
    least half a window kept), a window positive when at least half its frames are."""
    tp = fp = fn = 0
    for s in range(0, len(labels), window):
        d, y = decisions[s:s + window], labels[s:s + window]
        if len(y) < window / 2:
            break
        hyp, ref = d.mean() >= 0.5, y.mean() >= 0.5
        tp += hyp and ref
        fp += hyp and not ref
        fn += ref and not hyp
    return tp, fp, fn


def inner_folds(data, files):
    """`files` split alternately within each condition into two inner folds."""
    by_condition = defaultdict(list)
    for rel in sorted(files):
        by_condition[data[rel]["condition"]].append(rel)
    inner = [[], []]
    for rels in by_condition.values():
        for i, rel in enumerate(rels):
            inner[i % 2].append(rel)
    return inner


def frame_counts(segments, reference, count):
    """(tp, fp, fn) of `segments` against the label segments `reference` on score.py's 10 ms
    frames (a frame takes the value of the segment holding its centre)."""
    ref = score.to_frames(reference, count, "speech")
    hyp = score.to_frames([{"start": a, "end": b, "speech": True} for a, b in segments], count, "speech")
    if hyp is None:
        hyp = np.zeros(count, dtype=bool)
    return (int(np.count_nonzero(ref & hyp)), int(np.count_nonzero(~ref & hyp)), int(np.count_nonzero(ref & ~hyp)))


def segment(c, p, params):
    """Replays ActivitySegmenter(params) over one file's probabilities; returns its segments."""
    seg = Segmenter(*params)
    for t, v in zip(c["time"], p):
        seg.update(v, t, HOP)
    return seg.finish(c["time"][-1] + HOP if len(p) else 0.0)


def select_speech_settings(data, files, gather):
    """The voice-activity loss weight of non-speech frames and the speech segmenter, chosen
    together from SPEECH_NEGATIVE_WEIGHTS x SPEECH_SEGMENT_GRID by an inner 2-fold
    cross-validation over `files` alone, as the pair with the best 10 ms frame F1 of the
    segmented decisions on the inner held-out files (ties: the first in that order, which puts
    the smaller weight and the a-priori segmenter first). The inner folds read the music
    probability of the model fitted on all of `files`; files outside `files` are never looked at."""
    grid = [SEGMENTS["speech"]] + [g for g in SPEECH_SEGMENT_GRID if g != SEGMENTS["speech"]]
    if len(SPEECH_NEGATIVE_WEIGHTS) == 1 and len(grid) == 1:
        return SPEECH_NEGATIVE_WEIGHTS[0], grid[0]
    inner = inner_folds(data, files)
    best = None
    for weight in SPEECH_NEGATIVE_WEIGHTS:
        probs = {}
        for k in range(2):
            net = Ensemble(INPUTS["speech"]).fit(*gather("speech", "y_speech", files=inner[1 - k]), negative_weight=weight)
            for rel in inner[k]:
                c = data[rel]
                probs[rel] = smooth(np.where(c["audible"], net(lanes(c)[:, :INPUTS["speech"]]), 0.0), SMOOTHING["speech"])
        for params in grid:
            tp = fp = fn = 0
            for rel, p in probs.items():
                c = data[rel]
                counts = frame_counts(segment(c, p, params), c["label_segments"],
                                      score.n_frames(max(s["end"] for s in c["label_segments"])))
                tp, fp, fn = tp + counts[0], fp + counts[1], fn + counts[2]
            f1 = 2 * tp / max(1, 2 * tp + fp + fn)
            if best is None or f1 > best[0] + 1e-9:
                best = (f1, weight, params)
        print(f"  speech negative weight {weight:g}: best inner F1 so far {100 * best[0]:.2f} "
              f"(weight {best[1]:g}, segmenter {best[2]})", file=sys.stderr)
    return best[1], best[2]


def select_multi_weight(data, files, gather):
    """The multi-speaker loss weight of positive frames, chosen by an inner 2-fold
    cross-validation over `files` alone (files split alternately within each condition), as the
    weight in MULTI_POSITIVE_WEIGHTS with the best window F1 (ties: the smaller weight).
    Overlapping talkers are ~5 % of the frames, so unweighted cross-entropy under-calls them;
    the weight is selected without looking at any file outside `files`."""
    if len(MULTI_POSITIVE_WEIGHTS) == 1:
        return MULTI_POSITIVE_WEIGHTS[0]
    inner = inner_folds(data, files)
    best = None
    for weight in MULTI_POSITIVE_WEIGHTS:
        tp = fp = fn = 0
        for k in range(2):
            net = Ensemble(INPUTS["multi"], members=MULTI_ENSEMBLE).fit(
                *gather("multi", "y_multi", files=inner[1 - k]), positive_weight=weight)
            for rel in inner[k]:
                c = data[rel]
                p = smooth(np.where(c["audible"], net(lanes(c)[:, :INPUTS["multi"]]), 0.0), SMOOTHING["multi"])
                seg = Segmenter(*SEGMENTS["multi"])
                for t, v in zip(c["time"], p):
                    seg.update(v, t, HOP)
                decided = np.zeros(len(p), dtype=bool)
                for a, b in seg.finish(c["time"][-1] + HOP if len(p) else 0.0):
                    decided |= (c["time"] + HOP / 2 >= a) & (c["time"] + HOP / 2 < b)
                counts = window_counts(decided, c["y_multi"])
                tp, fp, fn = tp + counts[0], fp + counts[1], fn + counts[2]
        f1 = 2 * tp / max(1, 2 * tp + fp + fn)
        print(f"  multi-speaker positive weight {weight:g}: inner F1 {100 * f1:.1f}", file=sys.stderr)
        if best is None or f1 > best[0] + 1e-9:
            best = (f1, weight)
    return best[1]


def fit_all(data, files):
    """Fits music, speech, multi on `files`; fills every file's p_* columns with the fitted
    models' smoothed outputs (as the Swift detector computes them)."""
    def gather(task, label, files=files):
        xs, ys = [], []
        for rel in files:
            c = data[rel]
            keep = c["audible"]
            xs.append(lanes(c)[keep, :INPUTS[task]])
            ys.append(c[label][keep])
        return np.vstack(xs), np.concatenate(ys).astype(float)

    def apply(task, net, column):
        for c in data.values():
            raw = np.where(c["audible"], net(lanes(c)[:, :INPUTS[task]]), 0.0)
            c[column] = smooth(raw, SMOOTHING[task])

    for c in data.values():
        c["p_music_prev"] = np.zeros(len(c["time"]))
        c["p_speech"] = np.zeros(len(c["time"]))
    music = Ensemble(INPUTS["music"]).fit(*gather("music", "y_music"))
    apply("music", music, "p_music")
    for c in data.values():
        c["p_music_prev"] = np.r_[0.0, c["p_music"][:-1]]
    speech_weight, speech_segments = select_speech_settings(data, files, gather)
    speech = Ensemble(INPUTS["speech"]).fit(*gather("speech", "y_speech"), negative_weight=speech_weight)
    apply("speech", speech, "p_speech")
    weight = select_multi_weight(data, files, gather)
    multi = Ensemble(INPUTS["multi"], members=MULTI_ENSEMBLE).fit(*gather("multi", "y_multi"), positive_weight=weight)
    apply("multi", multi, "p_multi")
    # The standalone voice-activity model, on its lane subset.
    xs, ys = [], []
    for rel in files:
        c = data[rel]
        keep = c["audible"]
        xs.append(lanes(c)[keep][:, STANDALONE_LANES])
        ys.append(c["y_speech"][keep])
    standalone = Ensemble(len(STANDALONE_LANES), lanes=STANDALONE_LANES).fit(
        np.vstack(xs), np.concatenate(ys).astype(float), negative_weight=speech_weight)
    for c in data.values():
        raw = np.where(c["audible"], standalone(lanes(c)[:, STANDALONE_LANES]), 0.0)
        c["p_speech_alone"] = smooth(raw, SMOOTHING["speech"])
    return music, speech, multi, standalone, speech_segments


def simulate(data, files, speech_column="p_speech", speech_segments=None):
    lines = []
    for rel in files:
        c = data[rel]
        duration = c["time"][-1] + HOP if len(c["time"]) else 0.0
        segs = {}
        for key, column, task in (("speech", speech_column, "speech"), ("music", "p_music", "music"),
                                  ("multi_speaker", "p_multi", "multi")):
            seg = Segmenter(*(speech_segments if task == "speech" and speech_segments else SEGMENTS[task]))
            for t, p in zip(c["time"], c[column]):
                seg.update(p, t, HOP)
            segs[key] = seg.finish(duration)
        lines += timeline(rel, duration, segs)
    return lines


def swift_segmenter(params, chosen_by):
    """`DefaultModels.speechSegments` as Swift source: the segmenter `params` (on, off, minimum
    active s, hangover s, padding s, end threshold or None), chosen by `chosen_by`."""
    on, off, min_active, hangover, padding, end = params
    end_arg = "" if end is None else f",\n        endThreshold: {end:g}"
    return (f"    /// The speech segmenter chosen with the voice-activity model ({chosen_by}).\n"
            "    public static let speechSegments = ActivitySegmenter.Configuration(\n"
            f"        onThreshold: {on:g}, offThreshold: {off:g}, minimumActiveSeconds: {min_active:g}, "
            f"hangoverSeconds: {hangover:g}, paddingSeconds: {padding:g}{end_arg})\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="corpus")
    ap.add_argument("--dspbench", default=".build/release/dspbench")
    ap.add_argument("--reuse", action="store_true", help="reuse existing frame CSVs")
    ap.add_argument("--folds", type=int, default=2, help="outer cross-validation folds (0: only the --swift fit)")
    ap.add_argument("--swift", help="write the fitted models here (DefaultModels.swift)")
    ap.add_argument("--cv-out", help="write the cross-validation timelines here (default CORPUS/results)")
    ap.add_argument("--seed", type=int, default=1, help="seed of each ensemble's first network (default 1)")
    args = ap.parse_args()
    global FIRST_SEED
    FIRST_SEED = args.seed

    labels = load_labels(os.path.join(args.corpus, "labels.jsonl"))
    results = os.path.join(args.corpus, "results")
    frames_dir = os.path.join(results, "frames")
    os.makedirs(frames_dir, exist_ok=True)
    data, condition = {}, {}
    # --reuse keeps a frame CSV only when its columns are the ones this dspbench writes (the
    # first file is always regenerated to learn them); a CSV from an older dspbench is redone.
    columns, stale = None, 0
    for rel in sorted(labels):
        out = os.path.join(frames_dir, rel.replace("/", "__") + ".csv")
        reuse = args.reuse and columns is not None and os.path.exists(out) and read_header(out) == columns
        if args.reuse and columns is not None and os.path.exists(out) and not reuse:
            stale += 1
        if not reuse:
            subprocess.run([args.dspbench, "detect", "--in", os.path.join(args.corpus, rel), "--frames", out,
                            "--repeats", "1", "--no-speech-blend"], check=True, stdout=subprocess.DEVNULL)
        if columns is None:
            columns = read_header(out)
        c = read_frames(out)
        t = c["time"] + HOP / 2
        segs = labels[rel]
        condition[rel] = segs[0].get("condition", "?").split("/")[0]
        c["y_speech"] = label_at(segs, t, "speech")
        c["y_music"] = label_at(segs, t, "music")
        c["y_multi"] = label_at(segs, t, "multi_speaker")
        c["audible"] = np.nan_to_num(c["level_dbfs"], nan=-200) >= SILENCE_DBFS
        c["condition"] = condition[rel]
        c["label_segments"] = segs
        data[rel] = c

    if stale:
        print(f"--reuse: {stale} frame CSVs had other columns (an older dspbench) and were regenerated",
              file=sys.stderr)
    by_condition = defaultdict(list)
    for rel in sorted(data):
        by_condition[condition[rel]].append(rel)
    folds = [[] for _ in range(args.folds)]
    for rels in by_condition.values():
        for i, rel in enumerate(rels):
            if args.folds > 0:
                folds[i % args.folds].append(rel)
    for k, held_out in enumerate(folds):
        training = [rel for rel in data if rel not in set(held_out)]
        *_, speech_segments = fit_all(data, training)
        print(f"fold {k}: speech segmenter {speech_segments}", file=sys.stderr)
        cv_out = args.cv_out or results
        os.makedirs(cv_out, exist_ok=True)
        path = os.path.join(cv_out, f"cv-fold{k}.jsonl")
        with open(path, "w") as f:
            for line in simulate(data, held_out, speech_segments=speech_segments):
                f.write(json.dumps(line) + "\n")
        with open(os.path.join(cv_out, f"cv-fold{k}-standalone.jsonl"), "w") as f:
            for line in simulate(data, held_out, speech_column="p_speech_alone", speech_segments=speech_segments):
                f.write(json.dumps(line) + "\n")
        with open(os.path.join(cv_out, f"cv-fold{k}-labels.jsonl"), "w") as f:
            for rel in held_out:
                for s in labels[rel]:
                    f.write(json.dumps(s) + "\n")
        print(f"fold {k}: fitted on {len(training)} files, held-out timeline {path}", file=sys.stderr)

    if args.swift:
        music, speech, multi, standalone, speech_segments = fit_all(data, sorted(data))
        with open(args.swift, "w") as f:
            f.write("// Generated by scripts/eval/fit_models.py from the evaluation corpus\n"
                    "// (scripts/eval/make_corpus.py); do not edit. Regenerate with:\n"
                    "//   swift build -c release --product dspbench\n"
                    "//   scripts/eval/fit_models.py --corpus corpus --swift Sources/DSPDetection/Models/DefaultModels.swift\n\n"
                    "/// The detection models fitted on the development corpus (`docs/detection.md`).\n"
                    "public enum DefaultModels {\n")
            f.write(music.swift("music", f"Music: lanes 0–{INPUTS['music'] - 1} of ``CueLane``.") + "\n")
            f.write(speech.swift("speech", f"Voice activity: lanes 0–{INPUTS['speech'] - 1} of ``CueLane``.") + "\n")
            f.write(multi.swift("multiSpeaker", f"Multiple speakers: lanes 0–{INPUTS['multi'] - 1} of ``CueLane``.") + "\n")
            f.write(standalone.swift("standaloneSpeech", "Voice activity alone: the lanes listed (no rhythm, peak-persistence, sieve or music lanes).") + "\n")
            f.write(swift_segmenter(speech_segments, "inner cross-validation"))
            f.write("}\n")
        print(f"wrote {args.swift}", file=sys.stderr)


if __name__ == "__main__":
    main()
