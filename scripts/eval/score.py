#!/usr/bin/env python3
"""Score detector timelines against the evaluation corpus labels (issue #4).

    score.py LABELS HYP [HYP ...] [--root DIR] [--json FILE|-] [--markdown FILE]
             [--check-targets] [--strict] [--require-all] [--detail]

LABELS and every HYP are JSON Lines timelines, one segment per line:

    {"audio_filepath": "...", "start": 0.0, "end": 1.23,
     "speech": true, "music": false, "multi_speaker": false, "condition": "..."}

`condition` is needed in LABELS only. A HYP may omit `music` and/or `multi_speaker` (a VAD-only
peer): a task whose field is absent from every segment of a HYP, or false in every segment, is
reported as n/a for that HYP (not as a detector that never fires).

Paths: a label's `audio_filepath` is relative to the corpus root (default: the directory that
holds LABELS). A HYP path may be absolute, relative to the current directory, or relative to the
corpus root; it is matched to a label by its path relative to the corpus root (realpath on both
sides), falling back to the longest common path suffix. Files in LABELS that a HYP does not cover
are listed and left out of that HYP's scores (`--require-all` makes that an error, exit 2).

Frames: 10 ms frames, frame i covers [i*0.01, (i+1)*0.01) s and takes the value of the segment
that contains its centre (i+0.5)*0.01 s. A file has floor(D/0.01) frames, D = the end of its last
label segment; hypothesis frames past the hypothesis' last segment are false.

speech and music are scored per frame. multi_speaker is scored on 0.5 s windows: consecutive
non-overlapping runs of 50 frames from the start of each file (a last partial window is kept if it
has at least 25 frames); a window is positive, in the reference and in a hypothesis alike, if at
least half of its frames are positive.

Per task, overall, per condition class (the condition's text before the first '/'), per condition
and per file (in the JSON; --worst N lists the N files with the most errors in the markdown):
TP/FP/FN/TN, precision = TP/(TP+FP), recall = TP/(TP+FN), F1 = 2TP/(2TP+FP+FN), and the
false-alarm rate FA = FP/(FP+TN) (the fraction of reference-negative frames or windows the
detector marks positive). A value whose denominator is zero is n/a.

--check-targets prints the issue's targets (groups of classes defined in TARGETS below) as
PASS/FAIL/n/a per HYP; the exit code is 0 unless --strict and some target FAILs (1).
"""
import argparse
import json
import math
import os
import sys

import numpy as np

FRAME = 0.01          # seconds per frame
WINDOW_FRAMES = 50    # multi-speaker window: 0.5 s
MIN_LAST_WINDOW = 25  # keep a trailing partial window of at least 0.25 s
TASKS = ("speech", "music", "multi_speaker")

# Condition classes (prefix of the condition name) that make up the target groups.
SPEECH_ONLY = ("clean_speech", "real_speech", "level_ramp", "dialogue", "overlap", "crosstalk")
SINGLE_TALKER = ("clean_speech", "real_speech", "level_ramp", "dialogue")

# (id, description, task, metric, group-of-classes or None for all, comparison, threshold)
# metric "f1_each" = F1 of every condition of the group must meet the threshold.
TARGETS = [
    ("vad_f1_overall", "VAD F1 >= 92 overall", "speech", "f1", None, ">=", 0.92),
    ("vad_f1_clean_each_level", "VAD F1 >= 96 on clean speech at every level", "speech", "f1_each",
     ("clean_speech",), ">=", 0.96),
    ("vad_fa_music_only", "VAD false alarms <= 10 % on music-only", "speech", "fa", ("music_only",), "<=", 0.10),
    ("vad_fa_noise_only", "VAD false alarms <= 15 % on noise-only", "speech", "fa", ("noise_only",), "<=", 0.15),
    ("vad_fa_silence", "VAD false alarms <= 1 % on silence", "speech", "fa", ("silence",), "<=", 0.01),
    ("music_f1_overall", "music F1 >= 85", "music", "f1", None, ">=", 0.85),
    ("music_fa_speech_only", "music false alarms <= 5 % on speech-only", "music", "fa", SPEECH_ONLY, "<=", 0.05),
    ("multi_f1_overall", "multi-speaker F1 >= 50 on 0.5 s windows", "multi_speaker", "f1", None, ">=", 0.50),
    ("multi_fa_single_talker", "multi-speaker false alarms <= 5 % on single talkers", "multi_speaker", "fa",
     SINGLE_TALKER, "<=", 0.05),
]


class ScoreError(Exception):
    pass


# ------------------------------------------------------------------------------------------------
# Reading
# ------------------------------------------------------------------------------------------------

def read_segments(path):
    """JSON Lines -> {audio_filepath: [segment dicts in file order]} (file order kept)."""
    files = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                seg = json.loads(line)
            except json.JSONDecodeError as e:
                raise ScoreError(f"{path}:{n}: not JSON: {e}") from None
            if not isinstance(seg, dict) or "audio_filepath" not in seg:
                raise ScoreError(f"{path}:{n}: not a segment (no audio_filepath)")
            if seg.get("status") == "error":
                continue  # an error record of dspscore: the file is then missing from the timeline
            for key in ("start", "end"):
                v = seg.get(key)
                if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
                    raise ScoreError(f"{path}:{n}: '{key}' must be a finite number")
            if seg["end"] < seg["start"]:
                raise ScoreError(f"{path}:{n}: end < start")
            files.setdefault(seg["audio_filepath"], []).append(seg)
    return files


def n_frames(duration):
    return int(math.floor(duration / FRAME + 1e-9))


def to_frames(segments, count, key):
    """Frame-centre sampling of one boolean field; None if the field is absent everywhere."""
    out = np.zeros(count, dtype=bool)
    present = False
    for seg in segments:
        if key not in seg:
            continue
        present = True
        if not seg[key]:
            continue
        # frames whose centre (i + 0.5) * FRAME lies in [start, end)
        lo = max(0, int(math.ceil(seg["start"] / FRAME - 0.5 - 1e-9)))
        hi = min(count, int(math.ceil(seg["end"] / FRAME - 0.5 - 1e-9)))
        if hi > lo:
            out[lo:hi] = True
    return out if present else None


def windows(frames):
    """0.5 s window decisions: >= half of the window's frames positive."""
    n = len(frames)
    full = n // WINDOW_FRAMES
    res = []
    if full:
        res.append(frames[: full * WINDOW_FRAMES].reshape(full, WINDOW_FRAMES).mean(axis=1) >= 0.5)
    tail = frames[full * WINDOW_FRAMES:]
    if len(tail) >= MIN_LAST_WINDOW:
        res.append(np.array([tail.mean() >= 0.5]))
    return np.concatenate(res) if res else np.zeros(0, dtype=bool)


# ------------------------------------------------------------------------------------------------
# Path matching
# ------------------------------------------------------------------------------------------------

def _parts(p):
    return [c for c in os.path.normpath(p).replace("\\", "/").split("/") if c not in ("", ".")]


class PathMatcher:
    def __init__(self, root, label_paths):
        self.root = os.path.realpath(root)
        self.labels = {}
        for p in label_paths:
            self.labels[self._key(p, label=True)] = p
        self.by_name = {}
        for k, p in self.labels.items():
            self.by_name.setdefault(k.split("/")[-1], []).append(k)

    def _key(self, p, label=False):
        if os.path.isabs(p):
            full = os.path.realpath(p)
        elif label:
            full = os.path.realpath(os.path.join(self.root, p))
        else:
            cands = [os.path.realpath(p), os.path.realpath(os.path.join(self.root, p))]
            full = next((c for c in cands if c.startswith(self.root + os.sep) and os.path.exists(c)), None)
            if full is None:
                full = next((c for c in cands if c.startswith(self.root + os.sep)), cands[1])
        rel = os.path.relpath(full, self.root)
        return "/".join(_parts(rel))

    def match(self, hyp_path):
        """The label's audio_filepath for a hypothesis path, or None."""
        key = self._key(hyp_path)
        if key in self.labels:
            return self.labels[key]
        hp = _parts(hyp_path)
        best, best_len = None, 0
        for k in self.by_name.get(hp[-1] if hp else "", []):
            kp = k.split("/")
            n = 0
            while n < min(len(kp), len(hp)) and kp[-1 - n] == hp[-1 - n]:
                n += 1
            if n == len(kp) and n > best_len:  # the whole label path is a suffix of the hyp path
                best, best_len = k, n
        return self.labels[best] if best else None


# ------------------------------------------------------------------------------------------------
# Counting
# ------------------------------------------------------------------------------------------------

def counts(ref, hyp):
    tp = int(np.count_nonzero(ref & hyp))
    fp = int(np.count_nonzero(~ref & hyp))
    fn = int(np.count_nonzero(ref & ~hyp))
    tn = int(np.count_nonzero(~ref & ~hyp))
    return [tp, fp, fn, tn]


def metrics(c):
    tp, fp, fn, tn = c
    def div(a, b):
        return a / b if b else None
    return {
        "tp": tp, "fp": fp, "fn": fn, "tn": tn, "units": tp + fp + fn + tn,
        "precision": div(tp, tp + fp), "recall": div(tp, tp + fn),
        "f1": div(2 * tp, 2 * tp + fp + fn), "fa": div(fp, fp + tn),
    }


def add(a, b):
    return [x + y for x, y in zip(a, b)]


def collar_mask(ref, collar):
    """Frames to count: all but those within `collar` frames of a change of `ref` (the frames
    on both sides of each boundary, `collar` each way). `collar` 0 counts every frame."""
    keep = np.ones(len(ref), dtype=bool)
    if collar <= 0 or len(ref) < 2:
        return keep
    for i in np.flatnonzero(ref[1:] != ref[:-1]) + 1:
        keep[max(0, i - collar):i + collar] = False
    return keep


def score_one(labels, hyp, root, require_all=False, collar=0):
    """Scores one hypothesis. Returns a JSON-able dict. With `collar` > 0, the speech and music
    frames within `collar` frames (10 ms each) of a change of their reference label are not
    counted (a forgiveness collar around boundaries; the multi-speaker windows always count)."""
    matcher = PathMatcher(root, labels.keys())
    hyp_by_label = {}
    unmatched = []
    for hp, segs in hyp.items():
        lp = matcher.match(hp)
        if lp is None:
            unmatched.append(hp)
        else:
            hyp_by_label.setdefault(lp, []).extend(segs)
    missing = [lp for lp in labels if lp not in hyp_by_label]
    if require_all and missing:
        raise ScoreError(f"{len(missing)} labelled files have no hypothesis, e.g. {missing[0]}")

    present = {t: False for t in TASKS}
    ever_true = {t: False for t in TASKS}
    for segs in hyp_by_label.values():
        for s in segs:
            for t in TASKS:
                if t in s:
                    present[t] = True
                    ever_true[t] = ever_true[t] or bool(s[t])
    active = {t: present[t] and ever_true[t] for t in TASKS}

    acc = {t: {"all": [0, 0, 0, 0], "class": {}, "condition": {}, "file": {}} for t in TASKS}
    scored_seconds = 0.0
    for lp, lsegs in labels.items():
        if lp not in hyp_by_label:
            continue
        cond = lsegs[0].get("condition")
        if cond is None:
            raise ScoreError(f"label segments of {lp} have no condition")
        cls = cond.split("/")[0]
        count = n_frames(max(s["end"] for s in lsegs))
        scored_seconds += count * FRAME
        hsegs = sorted(hyp_by_label[lp], key=lambda s: s["start"])
        for t in TASKS:
            if not active[t]:
                continue
            ref = to_frames(lsegs, count, t)
            if ref is None:
                raise ScoreError(f"labels of {lp} lack '{t}'")
            h = to_frames(hsegs, count, t)
            if h is None:
                h = np.zeros(count, dtype=bool)
            if t == "multi_speaker":
                ref, h = windows(ref), windows(h)
            elif collar > 0:
                keep = collar_mask(ref, collar)
                ref, h = ref[keep], h[keep]
            c = counts(ref, h)
            a = acc[t]
            a["all"] = add(a["all"], c)
            a["class"][cls] = add(a["class"].get(cls, [0, 0, 0, 0]), c)
            a["condition"][cond] = add(a["condition"].get(cond, [0, 0, 0, 0]), c)
            a["file"][lp] = c

    result = {
        "collar_frames": collar,
        "files_scored": len(labels) - len(missing),
        "files_missing": missing,
        "hypothesis_files_unmatched": unmatched,
        "seconds_scored": round(scored_seconds, 2),
        "tasks": {},
    }
    for t in TASKS:
        if not active[t]:
            result["tasks"][t] = None
            continue
        a = acc[t]
        result["tasks"][t] = {
            "unit": "0.5 s window" if t == "multi_speaker" else "10 ms frame",
            "overall": metrics(a["all"]),
            "classes": {k: metrics(v) for k, v in sorted(a["class"].items())},
            "conditions": {k: metrics(v) for k, v in sorted(a["condition"].items())},
            "files": {k: metrics(v) for k, v in a["file"].items()},
        }
    result["targets"] = check_targets(result)
    return result


def group_counts(task_result, classes):
    c = [0, 0, 0, 0]
    found = False
    for cls, m in task_result["classes"].items():
        if cls in classes:
            found = True
            c = add(c, [m["tp"], m["fp"], m["fn"], m["tn"]])
    return metrics(c) if found else None


def check_targets(result):
    out = []
    for tid, desc, task, metric, group, cmp, thr in TARGETS:
        tr = result["tasks"].get(task)
        value, status, detail = None, "n/a", None
        if tr is not None:
            if metric == "f1_each":
                vals = {k: m["f1"] for k, m in tr["conditions"].items() if k.split("/")[0] in group}
                vals = {k: v for k, v in vals.items() if v is not None}
                if vals:
                    worst = min(vals, key=vals.get)
                    value, detail = vals[worst], f"lowest: {worst}"
            else:
                m = tr["overall"] if group is None else group_counts(tr, group)
                if m is not None:
                    value = m[metric]
        if value is not None:
            ok = value >= thr if cmp == ">=" else value <= thr
            status = "PASS" if ok else "FAIL"
        out.append({"id": tid, "target": desc, "value": value, "threshold": thr, "comparison": cmp,
                    "status": status, "detail": detail})
    return out


# ------------------------------------------------------------------------------------------------
# Output
# ------------------------------------------------------------------------------------------------

def pct(v):
    return "n/a" if v is None else f"{100 * v:.1f}"


def headline_table(results):
    cols = [("VAD F1", "vad_f1_overall"), ("VAD F1 clean (min level)", "vad_f1_clean_each_level"),
            ("VAD FA music", "vad_fa_music_only"), ("VAD FA noise", "vad_fa_noise_only"),
            ("VAD FA silence", "vad_fa_silence"), ("music F1", "music_f1_overall"),
            ("music FA speech", "music_fa_speech_only"), ("multi F1", "multi_f1_overall"),
            ("multi FA single", "multi_fa_single_talker")]
    lines = ["| System | " + " | ".join(c for c, _ in cols) + " |",
             "|---|" + "---:|" * len(cols)]
    for name, r in results.items():
        t = {x["id"]: x for x in r["targets"]}
        cells = []
        for _, tid in cols:
            x = t[tid]
            mark = {"PASS": " ✓", "FAIL": " ✗"}.get(x["status"], "")
            cells.append(pct(x["value"]) + mark)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def task_table(tr, detail):
    lines = ["| Scope | Units | Ref + | Hyp + | Precision | Recall | F1 | FA |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    def row(name, m):
        lines.append(f"| {name} | {m['units']} | {m['tp'] + m['fn']} | {m['tp'] + m['fp']} | "
                     f"{pct(m['precision'])} | {pct(m['recall'])} | {pct(m['f1'])} | {pct(m['fa'])} |")
    row("**overall**", tr["overall"])
    for k, m in tr["classes"].items():
        row(f"{k}", m)
    if detail:
        for k, m in tr["conditions"].items():
            if "/" in k:
                row(f"&nbsp;&nbsp;{k}", m)
    return "\n".join(lines)


def comparison_table(results, task):
    """Rows: conditions; columns: systems; a cell is F1 where the condition has reference
    positives, else the false-alarm rate."""
    names = [n for n, r in results.items() if r["tasks"][task] is not None]
    if not names:
        return None
    conds = sorted({c for n in names for c in results[n]["tasks"][task]["conditions"]})
    lines = ["| Condition | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for c in conds:
        cells = []
        for n in names:
            m = results[n]["tasks"][task]["conditions"].get(c)
            if m is None:
                cells.append("-")
            elif m["tp"] + m["fn"] > 0:
                cells.append(f"F1 {pct(m['f1'])}")
            else:
                cells.append(f"FA {pct(m['fa'])}")
        lines.append(f"| {c} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def worst_files(tr, n):
    """The n files with the most errors (FP + FN), most first; ties by path."""
    rows = sorted(tr["files"].items(), key=lambda kv: (-(kv[1]["fp"] + kv[1]["fn"]), kv[0]))[:n]
    lines = ["| File | Units | FP | FN | F1 | FA |", "|---|---:|---:|---:|---:|---:|"]
    for k, m in rows:
        if m["fp"] + m["fn"] == 0:
            break
        lines.append(f"| {k} | {m['units']} | {m['fp']} | {m['fn']} | {pct(m['f1'])} | {pct(m['fa'])} |")
    return "\n".join(lines)


def markdown(results, detail, worst=0):
    out = ["## Headline (percent; ✓/✗ = issue #4 target met/missed)", "", headline_table(results), ""]
    for t in TASKS:
        table = comparison_table(results, t)
        if table:
            out += [f"## {t} per condition (F1 where the condition has {t}, else false-alarm rate FA)", "",
                    table, ""]
    for name, r in results.items():
        out += [f"## {name}", "",
                f"{r['files_scored']} files, {r['seconds_scored']:.0f} s scored; "
                f"{len(r['files_missing'])} labelled files without hypothesis; "
                f"{len(r['hypothesis_files_unmatched'])} hypothesis files unmatched.", ""]
        for t in TASKS:
            tr = r["tasks"][t]
            if tr is None:
                out += [f"### {t}: n/a (not produced by this system)", ""]
                continue
            out += [f"### {t} (per {tr['unit']})", "", task_table(tr, detail), ""]
            if worst:
                out += [f"Worst {worst} files for {t}:", "", worst_files(tr, worst), ""]
        out += ["### Targets", ""]
        for x in r["targets"]:
            extra = f" ({x['detail']})" if x["detail"] else ""
            out.append(f"- {x['status']}: {x['target']}: {pct(x['value'])}{extra}")
        out.append("")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("labels")
    ap.add_argument("hyps", nargs="+", metavar="HYP", help="timeline(s); NAME=FILE names a system")
    ap.add_argument("--root", help="corpus root (default: directory of LABELS)")
    ap.add_argument("--json", metavar="FILE", help="write the JSON result ('-' = stdout)")
    ap.add_argument("--markdown", metavar="FILE", help="write the markdown report to FILE instead of stdout")
    ap.add_argument("--detail", action="store_true", help="per-condition rows in the markdown tables")
    ap.add_argument("--check-targets", action="store_true", help="print the issue's targets PASS/FAIL")
    ap.add_argument("--strict", action="store_true", help="with --check-targets: exit 1 if a target FAILs")
    ap.add_argument("--require-all", action="store_true", help="every labelled file must be in each HYP")
    ap.add_argument("--worst", type=int, default=0, metavar="N",
                    help="list the N files with the most errors per task and system (JSON always has every file)")
    args = ap.parse_args(argv)

    try:
        labels = read_segments(args.labels)
        root = args.root or os.path.dirname(os.path.abspath(args.labels))
        results = {}
        for h in args.hyps:
            name, path = (h.split("=", 1) if "=" in h and not os.path.exists(h) else
                          (os.path.splitext(os.path.basename(h))[0], h))
            results[name] = score_one(labels, read_segments(path), root, args.require_all)
    except (ScoreError, OSError) as e:
        print(f"score.py: {e}", file=sys.stderr)
        return 2

    md = markdown(results, args.detail, args.worst)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(md + "\n")
    elif args.json != "-":
        print(md)
    if args.json:
        text = json.dumps({"frame_seconds": FRAME, "window_seconds": WINDOW_FRAMES * FRAME,
                           "systems": results}, indent=1, sort_keys=True)
        if args.json == "-":
            print(text)
        else:
            with open(args.json, "w", encoding="utf-8") as f:
                f.write(text + "\n")
    failed = False
    if args.check_targets:
        stream = sys.stderr if args.json == "-" else sys.stdout
        for name, r in results.items():
            print(f"Targets for {name}:", file=stream)
            for x in r["targets"]:
                extra = f" ({x['detail']})" if x["detail"] else ""
                print(f"  {x['status']:4}  {x['target']}: {pct(x['value'])}{extra}", file=stream)
                failed = failed or x["status"] == "FAIL"
    return 1 if (args.strict and failed) else 0


if __name__ == "__main__":
    sys.exit(main())
