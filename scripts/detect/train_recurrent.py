#!/usr/bin/env python3
"""Fit SpeechDSP's recurrent detection models (one GRU layer per task) on the detection
material's train split, choose every setting on its val split, and write them as Swift source
with their provenance (issue #23).

    scripts/detect/setup.sh --train           # adds PyTorch (CPU) to .venv-detect
    swift build -c release --product dspbench
    .venv-detect/bin/python scripts/detect/train_recurrent.py --corpus .build-detect-full \\
        --swift Sources/DSPDetection/Models/DefaultModels.swift

The inputs, labels, task order and choices are train_models.py's (the feed-forward models'):
the cue and band lanes of `dspbench detect --frames` (the shipped Swift code's), each 16 ms hop
labelled at its centre, music -> voice activity (reading the previous frame's smoothed music
probability) -> multiple speakers (reading the smoothed speech probability) -> voice activity
alone. What differs is the model: each task's hidden layer is a gated recurrent unit
(`ProbabilityModel.recurrence`, PyTorch's nn.GRU equations), so a model sees the whole stream
so far rather than one frame and the cue windows. A GRU steps only on the frames the detector
evaluates it on (audible frames: the silence floor leaves the others at 0 and the state as it
was), so each file's training sequence is its audible frames, from a zero state.

`--music-stride N` steps the music GRU on every Nth audible frame only, its probability held
between steps (`ProbabilityModel.evaluationStride`): it is fitted on those frames, and val
replays the held probabilities, so it costs the detector 1/N of a GRU per frame.

`--recurrent` names the tasks that get a GRU (default music); the others are fitted as
train_models.py fits them (its ensembles, seeds and epochs), on the probabilities of the models
before them in the chain. `--keep FILE` fits the music GRU only and keeps the other models of a
generated DefaultModels.swift as they are (fitted on the music model they were fitted with).

Training: AdamW with a one-cycle learning rate over EPOCHS passes, whole files as sequences (at most
16 s), batches of files of similar length (padding after a file's end, masked from the loss, so
it never reaches a real frame), cross-entropy weighted as in train_models.py, fixed seeds, one
thread order (deterministic on one machine). Chosen on val: the GRU width (with the speech
settings on VAD F1 when voice activity is a GRU; otherwise the music GRU's on music F1), the
non-speech loss weight with the speech segmenter (10 ms frame F1 of the
segmented decisions), the multi-speaker loss weight (0.5 s window F1). The val decisions are
replayed as the Swift detector makes them (smoothing, ActivitySegmenter); the reported figures
come from `dspscore --timeline` (run_detect_eval.sh). Test files are never read.
"""
import argparse
import json
import os
import pickle
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import train_models as tm  # noqa: E402
import fit_models as fm  # noqa: E402  (on the path through train_models' detectlib import)

# GRU widths tried on val (music and voice activity; multi and alone take the chosen one).
HIDDEN_GRID = [24, 32]
EPOCHS = 12
LEARNING_RATE = 3e-3
BATCH_FILES = 16
WEIGHT_DECAY = 1e-4
SPEECH_NEGATIVE_WEIGHTS = [1.0, 2.0]
# Weights up to 16: with the music GRU's probability the multi-speaker ensemble's val F1 still rose
# from 2 to 4 and peaked at 8 (2026-11-28).
MULTI_POSITIVE_WEIGHTS = [1.0, 2.0, 4.0, 8.0, 16.0]
# The tasks, in fitting order.
TASKS = ["music", "speech", "multi", "standalone"]
# The tasks that get a GRU by default: music, the one task where a GRU beat the ensembles on val
# (2026-11-28, docs/detection.md); voice activity and multiple speakers keep the ensembles.
RECURRENT = "music"
# The line of a generated file's header after which the header of the fit whose models
# `--keep` kept follows (so that running --keep on its own output keeps the same header).
KEPT_MARKER = "// The voice-activity, multi-speaker and voice-alone models and the speech segmenter are kept"
# What the command line changes.
SETTINGS = {"epochs": EPOCHS, "dropout": 0.0, "stride": {}}


class Model(torch.nn.Module):
    def __init__(self, inputs, hidden, mean, scale):
        super().__init__()
        self.register_buffer("mean", torch.tensor(mean, dtype=torch.float32))
        self.register_buffer("scale", torch.tensor(scale, dtype=torch.float32))
        self.drop = torch.nn.Dropout(SETTINGS["dropout"])
        self.gru = torch.nn.GRU(inputs, hidden, batch_first=True)
        self.out = torch.nn.Linear(hidden, 1)

    def forward(self, x):
        h, _ = self.gru(self.drop((x - self.mean) / self.scale))
        return self.out(self.drop(h)).squeeze(-1)


def sequences(data, files, task, label, class_weights=None):
    """Each file's audible frames of the task's lanes (every stride-th, the first included, for a
    task with a stride), their labels, and the file's loss weight (`class_weights[its class]`, 1
    for a class it does not name)."""
    out = []
    for rel in files:
        c = data[rel]
        keep = c["audible"]
        stride = SETTINGS["stride"].get(task, 1)
        x = tm.matrix(c)[keep][:, tm.LANES[task]].astype(np.float32)[::stride]
        if len(x):
            out.append((x, c[label][keep].astype(np.float32)[::stride], (class_weights or {}).get(c["condition"], 1.0)))
    return out


def batch_tensors(seqs, mean, batch_files, negative_weight, positive_weight):
    """Files of similar length batched: inputs padded after each file's end with the mean
    (standardised to 0), labels, loss weights (0 on padding)."""
    order = np.argsort([len(s[0]) for s in seqs], kind="stable")
    out = []
    for s in range(0, len(order), batch_files):
        b = order[s:s + batch_files]
        n = max(len(seqs[i][0]) for i in b)
        x = np.zeros((len(b), n, len(mean)), dtype=np.float32)
        y = np.zeros((len(b), n), dtype=np.float32)
        w = np.zeros((len(b), n), dtype=np.float32)
        for k, i in enumerate(b):
            xi, yi, scale = seqs[i]
            x[k, :len(xi)] = xi
            x[k, len(xi):] = mean
            y[k, :len(yi)] = yi
            w[k, :len(yi)] = scale * np.where(yi > 0, positive_weight, negative_weight)
        out.append((torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(w)))
    return out


def fit(seqs, hidden, seed, negative_weight=1.0, positive_weight=1.0, log="", val=None):
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    allx = np.vstack([s[0] for s in seqs]).astype(np.float64)
    mean = allx.mean(0)
    scale = allx.std(0) + 1e-6
    model = Model(allx.shape[1], hidden, mean.astype(np.float32), scale.astype(np.float32))
    opt = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=WEIGHT_DECAY)
    tensors = batch_tensors(seqs, mean.astype(np.float32), BATCH_FILES, negative_weight, positive_weight)
    held = batch_tensors(val, mean.astype(np.float32), 64, negative_weight, positive_weight) if val else None
    epochs = SETTINGS["epochs"]
    steps = epochs * len(tensors)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=LEARNING_RATE, total_steps=steps, pct_start=0.1)
    bce = torch.nn.BCEWithLogitsLoss(reduction="none")
    start = time.time()
    for epoch in range(epochs):
        total = 0.0
        for j in rng.permutation(len(tensors)):
            x, y, w = tensors[j]
            opt.zero_grad()
            loss = (bce(model(x), y) * w).sum() / w.sum()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            total += float(loss.detach())
        line = f"    {log} epoch {epoch + 1}: loss {total / len(tensors):.4f}"
        if held:
            with torch.no_grad():
                num = sum(float((bce(model(x), y) * w).sum()) for x, y, w in held)
            line += f", val loss {num / sum(float(w.sum()) for _, _, w in held):.4f}"
        print(line + f" ({time.time() - start:.0f} s)", file=sys.stderr)
    model.eval()
    return model


def apply(data, task, model, column):
    smoothing = fm.SMOOTHING["speech" if task == "standalone" else task]
    for c in data.values():
        keep = c["audible"]
        p = np.zeros(len(keep))
        stride = SETTINGS["stride"].get(task, 1)
        x = tm.matrix(c)[keep][:, tm.LANES[task]].astype(np.float32)
        if len(x):
            with torch.no_grad():
                stepped = torch.sigmoid(model(torch.from_numpy(x[::stride])[None])).numpy()[0]
            # Held between steps: the audible frame i reads step i // stride.
            p[keep] = np.repeat(stepped, stride)[:len(x)]
        c[column] = fm.smooth(p, smoothing)


class Fitted:
    """One task's fitted model: a GRU (``Model``) or train_models.py's feed-forward ensemble."""

    def __init__(self, task, model):
        self.task, self.model = task, model
        self.recurrent = isinstance(model, Model)

    def apply(self, data, column):
        if self.recurrent:
            apply(data, self.task, self.model, column)
        else:
            tm.apply(data, self.task, self.model, column)

    def swift(self, name, comment):
        if self.recurrent:
            return swift(self.model, self.task, name, comment)
        return self.model.swift(name, comment)


def floats(a):
    return ", ".join(f"{float(v):.7g}" for v in np.ravel(a))


def swift(model, task, name, comment):
    lanes = tm.LANES[task]
    plain = lanes == list(range(len(lanes)))
    lanes_line = "" if plain else "\n        inputLanes: [" + ", ".join(str(i) for i in lanes) + "],"
    g = model.gru
    stride = SETTINGS["stride"].get(task, 1)
    stride_line = f",\n        evaluationStride: {stride}" if stride > 1 else ""
    return f"""    /// {comment}
    public static let {name} = ProbabilityModel(
        inputCount: {len(lanes)},{lanes_line}
        inputMean: [{floats(model.mean)}],
        inputScale: [{floats(model.scale)}],
        hiddenWeights: [{floats(g.weight_ih_l0.detach())}],
        hiddenBias: [{floats(g.bias_ih_l0.detach())}],
        outputWeights: [{floats(model.out.weight.detach())}],
        outputBias: {float(model.out.bias.detach()[0]):.7g},
        recurrence: GatedRecurrence(
            weights: [{floats(g.weight_hh_l0.detach())}],
            bias: [{floats(g.bias_hh_l0.detach())}]){stride_line})
"""


def kept_parts(path):
    """A generated DefaultModels.swift split for `--keep`: the header lines of the fit that made its
    voice-activity, multi-speaker and voice-alone models (the lines after KEPT_MARKER's paragraph
    when the file was itself written with --keep, else its whole header), and its source from the
    voice-activity model to the end."""
    lines = open(path).read().split("\n")
    end = next(i for i, line in enumerate(lines) if not line.startswith("//"))
    header = lines[:end]
    if any(line.startswith(KEPT_MARKER) for line in header):
        start = next(i for i, line in enumerate(header) if line.startswith(KEPT_MARKER))
        header = header[start + 2:]
    body = next(i for i, line in enumerate(lines) if line.startswith("    /// Voice activity: "))
    return header, "\n".join(lines[body:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=".build-detect-full")
    ap.add_argument("--dspbench", default=".build/release/dspbench")
    ap.add_argument("--reuse", action="store_true", help="reuse frame CSVs with this dspbench's columns")
    ap.add_argument("--swift", help="write the fitted models here (DefaultModels.swift)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hidden", default=",".join(map(str, HIDDEN_GRID)))
    ap.add_argument("--speech-weights", default=",".join(map(str, SPEECH_NEGATIVE_WEIGHTS)))
    ap.add_argument("--multi-weights", default=",".join(map(str, MULTI_POSITIVE_WEIGHTS)))
    ap.add_argument("--epochs", type=int, default=None, help=f"passes over the train split (default {EPOCHS})")
    ap.add_argument("--cache", help="keep the loaded frames here (a pickle) and read them from it when present")
    ap.add_argument("--recurrent", default=RECURRENT,
                    help=f"tasks whose model is a GRU, among {', '.join(TASKS)} (default {RECURRENT}); the others are "
                         "train_models.py's ensembles")
    ap.add_argument("--threads", type=int, default=2,
                    help="PyTorch's threads: the weights depend on it at float rounding (about 3e-6), so the "
                         "generated header records it")
    ap.add_argument("--music-stride", type=int, default=1,
                    help="the music GRU steps on every Nth audible frame and its probability is held between steps")
    ap.add_argument("--multi-members", type=int, default=None,
                    help="networks in the multi-speaker ensemble when it is not a GRU (default fit_models.MULTI_ENSEMBLE)")
    ap.add_argument("--multi-exclude", default=",".join(tm.MULTI_EXCLUDED),
                    help="train classes the multi-speaker model is not fitted on (train_models.py's default)")
    ap.add_argument("--multi-only", default=",".join(tm.MULTI_ONLY),
                    help="train classes only the multi-speaker model is fitted on, e.g. overlap_train")
    ap.add_argument("--class-weights", default="",
                    help="loss weight per train class for the music and voice-activity models, e.g. babble_only=0.25")
    ap.add_argument("--exclude", default="",
                    help="train conditions (prefixes) no model is fitted on, as train_models.py's --exclude")
    ap.add_argument("--startup", metavar="DIR,...",
                    help="train streams cut mid-file (startup_probe.py --split train), as train_models.py's --startup; "
                         "with --keep, the music GRU is fitted on them")
    ap.add_argument("--keep", metavar="SWIFT",
                    help="fit the music GRU only (--hidden chosen on val music F1) and keep the voice-activity, "
                         "multi-speaker and voice-alone models and the speech segmenter of this generated "
                         "DefaultModels.swift, with its header")
    args = ap.parse_args()
    SETTINGS["epochs"] = args.epochs or EPOCHS
    SETTINGS["stride"] = {"music": args.music_stride}
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    hidden_grid = [int(v) for v in args.hidden.split(",")]
    speech_weights = [float(v) for v in args.speech_weights.split(",")]
    multi_weights = [float(v) for v in args.multi_weights.split(",")]
    manifest = json.load(open(os.path.join(args.corpus, "manifest.json")))
    if not manifest.get("complete"):
        sys.exit(f"train_recurrent: {args.corpus} is incomplete: run make_detect_corpus.py first")

    if args.cache and os.path.exists(args.cache):
        with open(args.cache, "rb") as f:
            data = pickle.load(f)
    else:
        data, _ = tm.load(args.corpus, args.dspbench, ("train", "val"), args.reuse)
        # Train streams cut mid-file, as train_models.py --startup reads them.
        data.update(tm.load_startup(startup_dirs(args), args.dspbench, args.reuse))
        if args.cache:
            with open(args.cache, "wb") as f:
                pickle.dump(data, f)
    # The train sets as train_models.py makes them: the multi-speaker model's own classes
    # (--multi-only) only in its fit, the classes --multi-exclude names not in it, and
    # --class-weights on the music and voice-activity losses.
    # (Written out here rather than moved into a function of train_models.py: that file's bytes
    # are part of the script hash the shipped DefaultModels.swift header records.)
    multi_only = {p for p in args.multi_only.split(",") if p}
    multi_excluded = {p for p in args.multi_exclude.split(",") if p} | set(tm.STARTUP_CLASSES.values())
    class_weights = {k: float(v) for k, v in (p.split("=") for p in args.class_weights.split(",") if p)}
    excluded = tuple(p for p in args.exclude.split(",") if p)
    fitted = sorted(r for r, c in data.items() if c["split"] == "train"
                    and not any(c["label_segments"][0]["condition"].startswith(p) for p in excluded))
    train = [r for r in fitted if data[r]["condition"] not in multi_only]
    train_multi = [r for r in fitted if data[r]["condition"] not in multi_excluded]
    val = sorted(r for r, c in data.items() if c["split"] == "val")
    print(f"train {len(train)} files ({len(train_multi)} for the multi-speaker model), val {len(val)} files",
          file=sys.stderr)
    for c in data.values():
        c["p_music_prev"] = np.zeros(len(c["time"]))
        c["p_speech"] = np.zeros(len(c["time"]))
    report = []

    def say(line):
        print(line, file=sys.stderr)
        report.append(line)

    recurrent = set(args.recurrent.split(",")) if args.recurrent else set()
    if args.keep:
        if recurrent != {"music"}:
            sys.exit("train_recurrent: --keep fits the music GRU only: use --recurrent music")
        kept_header, kept_source = kept_parts(args.keep)
    if not recurrent <= set(TASKS):
        sys.exit(f"train_recurrent: --recurrent takes tasks among {', '.join(TASKS)}")
    if not 1 <= args.music_stride <= 16 or (args.music_stride > 1 and "music" not in recurrent):
        sys.exit("train_recurrent: --music-stride takes 1 to 16 (ProbabilityModel.maximumEvaluationStride), "
                 "and more than 1 only with a music GRU (--recurrent music)")
    fm.FIRST_SEED = args.seed

    def fit_task(task, label, hidden, seed, **weights):
        """A GRU of `hidden` units for a task in --recurrent, else train_models.py's ensemble."""
        files = train_multi if task == "multi" else train
        scales = None if task == "multi" else class_weights
        if task in recurrent:
            return Fitted(task, fit(sequences(data, files, task, label, scales), hidden, seed,
                                    log=f"{task} GRU {hidden} {weights}", **weights))
        members = (args.multi_members or fm.MULTI_ENSEMBLE) if task == "multi" else None
        net = tm.ensemble(task, tm.HIDDEN_GRID[0], members=members)
        return Fitted(task, net.fit(*tm.gather(data, files, task, label), epochs=tm.EPOCHS,
                                    sample_weight=tm.frame_weights(data, files, scales), **weights))

    best = None
    grid = [fm.SEGMENTS["speech"]] + [g for g in fm.SPEECH_SEGMENT_GRID if g != fm.SEGMENTS["speech"]]
    if "speech" in recurrent:
        # One width for the recurrent tasks, chosen with the speech settings on VAD F1.
        widths = [(hidden, None) for hidden in hidden_grid]
    else:
        # The voice-activity model is an ensemble: the width is the music GRU's alone, chosen on
        # music F1; then the speech settings on VAD F1 with that music model.
        best_music = None
        for hidden in hidden_grid if "music" in recurrent else hidden_grid[:1]:
            music = fit_task("music", "y_music", hidden, args.seed)
            music.apply(data, "p_music")
            mf1 = tm.music_f1(data, val)
            say(f"music {'GRU ' + str(hidden) if 'music' in recurrent else 'ensemble'}: val music F1 {100 * mf1:.2f}")
            if best_music is None or mf1 > best_music[0] + 1e-9:
                best_music = (mf1, hidden, music)
        widths = [(best_music[1], best_music[2])]
        if args.keep:
            say(f"chosen on val: music GRU width {best_music[1]}, val (replayed) music F1 {100 * best_music[0]:.2f}; "
                f"the other models kept from {os.path.basename(args.keep)}")
            if args.swift:
                write_kept(args, manifest, train, val, report, best_music[2], kept_header, kept_source)
            return
    for hidden, chosen_music in widths:
        music = chosen_music or fit_task("music", "y_music", hidden, args.seed)
        music.apply(data, "p_music")
        mf1 = tm.music_f1(data, val)
        for c in data.values():
            c["p_music_prev"] = np.r_[0.0, c["p_music"][:-1]]
        for weight in speech_weights:
            speech = fit_task("speech", "y_speech", hidden, args.seed + 1, negative_weight=weight)
            speech.apply(data, "p_speech")
            for params in grid:
                f1 = tm.speech_f1(data, val, "p_speech", params)
                if best is None or f1 > best[0] + 1e-9:
                    best = (f1, hidden, weight, params, music, speech, mf1)
            say(f"hidden {hidden}, speech negative weight {weight:g}: val music F1 {100 * mf1:.2f}; best val "
                f"speech F1 so far {100 * best[0]:.2f} (hidden {best[1]}, weight {best[2]:g}, segmenter {best[3]})")
    f1, hidden, weight, speech_segments, music, speech, mf1 = best
    music.apply(data, "p_music")
    for c in data.values():
        c["p_music_prev"] = np.r_[0.0, c["p_music"][:-1]]
    speech.apply(data, "p_speech")

    tried = []
    for mweight in multi_weights:
        multi = fit_task("multi", "y_multi", hidden, args.seed + 2, positive_weight=mweight)
        multi.apply(data, "p_multi")
        g, fa = tm.multi_scores(data, val, "p_multi")
        say(f"multi-speaker positive weight {mweight:g}: val window F1 {100 * g:.2f}, FA single talkers {100 * fa:.2f}")
        tried.append((g, fa, mweight, multi))
    # The best val F1 within train_models.MULTI_FA_BOUND of false alarms on single talkers.
    multi_f, _, mweight, multi = tm.choose_multi(tried)

    standalone = fit_task("standalone", "y_speech", hidden, args.seed + 3, negative_weight=weight)
    standalone.apply(data, "p_speech_alone")
    alone_f1 = tm.speech_f1(data, val, "p_speech_alone", speech_segments)
    kinds = ", ".join(f"{t} {'GRU' if t in recurrent else 'feed-forward'}" for t in TASKS)
    chosen = (f"chosen on val ({kinds}): GRU width {hidden}, speech negative weight {weight:g}, segmenter "
              f"{speech_segments}, multi positive weight {mweight:g}; val (replayed) speech F1 {100 * f1:.2f}, alone "
              f"{100 * alone_f1:.2f}, music F1 {100 * mf1:.2f}, multi window F1 {100 * multi_f:.2f}")
    say(chosen)

    if args.swift:
        with open(args.swift, "w") as f:
            f.write(tm.provenance(
                args.corpus, manifest, (os.path.abspath(__file__), tm.__file__, fm.__file__), train, val,
                [f"seed {args.seed}, torch {torch.__version__}, {SETTINGS['epochs']} epochs, GRU widths from "
                 f"{hidden_grid},", f"non-speech weights from {speech_weights}, multi weights from {multi_weights}."]
                + report, setup="scripts/detect/setup.sh --train",
                options=f" --recurrent {args.recurrent} --hidden {args.hidden} --speech-weights {args.speech_weights} "
                        f"--multi-weights {args.multi_weights} --epochs {SETTINGS['epochs']} --seed {args.seed}"
                        + (f" --multi-members {args.multi_members}" if args.multi_members else "")
                        + (f" --multi-exclude {args.multi_exclude}" if args.multi_exclude != ",".join(tm.MULTI_EXCLUDED) else "")
                        + (f" --multi-only {args.multi_only}" if args.multi_only else "")
                        + (f" --class-weights {args.class_weights}" if args.class_weights else "")
                        + (f" --exclude {args.exclude}" if args.exclude else "")
                        + (f" --music-stride {args.music_stride}" if args.music_stride > 1 else "")
                        + f" --threads {args.threads}"
                        + (f" --startup {args.startup}" if args.startup else ""),
                train_multi=train_multi, startup=tm.startup_commands(startup_dirs(args))))
            f.write(tm.models_source((music, speech, multi, standalone), speech_segments, summary=f": {kinds}"))
        print(f"wrote {args.swift}", file=sys.stderr)


def startup_dirs(args):
    """--startup's folders."""
    return [d for d in (args.startup or "").split(",") if d]


def write_kept(args, manifest, train, val, report, music, kept_header, kept_source):
    """DefaultModels.swift with the fitted music GRU and the kept file's other models, its
    header this run's provenance followed by the kept fit's."""
    header = tm.provenance(
        args.corpus, manifest, (os.path.abspath(__file__), tm.__file__, fm.__file__), train, val,
        [f"seed {args.seed}, torch {torch.__version__}, {SETTINGS['epochs']} epochs, GRU widths from {args.hidden}, "
         f"music GRU stepped on {'every audible frame' if args.music_stride == 1 else f'one audible frame in {args.music_stride}'},",
         f"train classes left out of the music fit (--multi-only): {args.multi_only or 'none'}, "
         + (f"train conditions left out of every fit (--exclude): {args.exclude}, " if args.exclude else "")
         + f"class loss weights: {args.class_weights or 'none'}."] + report,
        setup="scripts/detect/setup.sh --train",
        options=f" --recurrent music --hidden {args.hidden} --epochs {SETTINGS['epochs']} --seed {args.seed}"
                + (f" --music-stride {args.music_stride}" if args.music_stride > 1 else "")
                + f" --threads {args.threads}"
                + (f" --multi-only {args.multi_only}" if args.multi_only else "")
                + (f" --class-weights {args.class_weights}" if args.class_weights else "")
                + (f" --exclude {args.exclude}" if args.exclude else "")
                + (f" --startup {args.startup}" if args.startup else "")
                + " --keep Sources/DSPDetection/Models/DefaultModels.swift",
        startup=tm.startup_commands(startup_dirs(args)))
    lines = header.rstrip("\n").split("\n")
    lines += ["//", KEPT_MARKER, "// from the fit that made them (run its command first, then the one above); its header was:"]
    lines += kept_header
    source = ("\n".join(lines) + "\n"
              + "\n/// The detection models fitted on the detection material's train split (`docs/detection.md`): "
              "music GRU, the others feed-forward.\npublic enum DefaultModels {\n"
              + music.swift("music", f"Music: {tm.describe('music')}.") + "\n"
              + kept_source)
    with open(args.swift, "w") as f:
        f.write(source)
    print(f"wrote {args.swift}", file=sys.stderr)


if __name__ == "__main__":
    main()
