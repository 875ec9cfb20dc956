#!/usr/bin/env python3
"""The target table of issue #23 for any systems given as timelines, on one split.

    score_detect.py LABELS HYP [HYP ...] [--root CORPUS] [--markdown FILE] [--json FILE] [--detail]
                    [--collar MS] [--by-noise-kind]

LABELS is a labels.jsonl of the detection material (make_detect_corpus.py, or the split's
copy that run_peers_detect.py writes); a HYP is a timeline in the format of
`dspscore --timeline` (NAME=FILE names a system). Frames, windows, path matching and the
per-condition counts are scripts/eval/score.py's (imported): 10 ms frames for speech and music,
0.5 s windows (positive when at least half of the frames are) for multi_speaker. --collar MS
leaves out the speech and music frames within MS ms of each change of the reference label: a
diagnostic of how much of a score is the placement of boundaries (the targets count every frame,
and the table's heading says when a collar was applied). --by-noise-kind adds voice activity per
background kind (the corpus manifest's `noise_kind`): F1 of speech over it at -5 and 0 dB, at +5 dB
and above, and false alarms on it alone (another diagnostic: a kind's files are few).

Rows (percent), each against the issue's target:

  VAD F1 overall                      all files
  VAD F1 clean, min over -45..-6 dBFS  the lowest F1 of the clean/<band> conditions whose band lies
                                      within -45..-6 dBFS peak (every band is in --detail)
  VAD FA music only / noise only / babble / silence
                                      false alarms on the classes music_only, noise_only (babble
                                      included), the condition noise_only/babble alone, silence
  VAD F1 speech+music 0 dB / speech+noise -5 dB
                                      the conditions speech_music/+0dB and speech_noise/-5dB
  music F1 / music FA speech only     all files / the classes clean, overlap, dialogue, conversation
  multi F1 / multi FA single talkers  0.5 s windows: all files / the classes clean, dialogue, telephone
                                      (one talker at a time, no babble)
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "eval"))
import score  # noqa: E402

TARGET_BANDS = ("-45..-35dBFS", "-35..-25dBFS", "-25..-15dBFS", "-15..-6dBFS")
SPEECH_ONLY = ("clean", "overlap", "dialogue", "conversation")
SINGLE_TALKER = ("clean", "dialogue", "telephone")

# (id, column, task, kind, scope, comparison, threshold); kind: f1/fa over classes (None = all),
# f1_cond / fa_cond over one condition, f1_min over conditions
ROWS = [
    ("vad_f1", "VAD F1", "speech", "f1", None, ">=", 0.95),
    ("vad_f1_clean_min", "VAD F1 clean (min −45…−6 dBFS)", "speech", "f1_min",
     tuple(f"clean/{b}" for b in TARGET_BANDS), ">=", 0.96),
    ("vad_fa_music", "VAD FA music", "speech", "fa", ("music_only",), "<=", 0.03),
    ("vad_fa_noise", "VAD FA noise", "speech", "fa", ("noise_only",), "<=", 0.08),
    ("vad_fa_babble", "VAD FA babble", "speech", "fa_cond", "noise_only/babble", None, None),
    ("vad_fa_silence", "VAD FA silence", "speech", "fa", ("silence",), "<=", 0.005),
    ("vad_f1_music0", "VAD F1 music 0 dB", "speech", "f1_cond", "speech_music/+0dB", ">=", 0.85),
    ("vad_f1_noise-5", "VAD F1 noise −5 dB", "speech", "f1_cond", "speech_noise/-5dB", ">=", 0.85),
    ("music_f1", "music F1", "music", "f1", None, ">=", 0.92),
    ("music_fa_speech", "music FA speech", "music", "fa", SPEECH_ONLY, "<=", 0.02),
    ("multi_f1", "multi F1", "multi_speaker", "f1", None, ">=", 0.65),
    ("multi_fa_single", "multi FA single", "multi_speaker", "fa", SINGLE_TALKER, "<=", 0.05),
]


def _sum(metrics_list):
    c = [0, 0, 0, 0]
    for m in metrics_list:
        c = score.add(c, [m["tp"], m["fp"], m["fn"], m["tn"]])
    return score.metrics(c)


def rows(result):
    """{row id: {"value", "status", "detail", "units"}} for one system's score_one() result."""
    out = {}
    for rid, _, task, kind, scope, cmp, thr in ROWS:
        tr = result["tasks"].get(task)
        value, detail, units = None, None, 0
        if tr is not None:
            if kind in ("f1", "fa"):
                ms = [tr["overall"]] if scope is None else [m for c, m in tr["classes"].items() if c in scope]
                if ms:
                    m = _sum(ms)
                    value, units = m[kind], m["units"]
            elif kind in ("f1_cond", "fa_cond"):
                m = tr["conditions"].get(scope)
                if m:
                    value, units = m[kind[:2]], m["units"]
            elif kind == "f1_min":
                vals = {c: tr["conditions"][c]["f1"] for c in scope
                        if c in tr["conditions"] and tr["conditions"][c]["f1"] is not None}
                if vals:
                    worst = min(vals, key=vals.get)
                    value, detail = vals[worst], worst
                    units = sum(tr["conditions"][c]["units"] for c in vals)
        status = "n/a"
        if value is not None and thr is not None:
            status = "PASS" if (value >= thr if cmp == ">=" else value <= thr) else "FAIL"
        out[rid] = {"value": value, "status": status, "detail": detail, "units": units}
    return out


def table(results):
    cols = [(c, rid) for rid, c, *_ in ROWS]
    lines = ["| System | " + " | ".join(c for c, _ in cols) + " |", "|---|" + "---:|" * len(cols)]
    tgt = []
    for rid, _, _, _, _, cmp, thr in ROWS:
        tgt.append("" if thr is None else f"{'≥' if cmp == '>=' else '≤'} {100 * thr:g}")
    lines.append("| Target (issue #23) | " + " | ".join(tgt) + " |")
    for name, r in results.items():
        rr = rows(r)
        cells = []
        for _, rid in cols:
            x = rr[rid]
            cells.append(score.pct(x["value"]) + {"PASS": " ✓", "FAIL": " ✗"}.get(x["status"], ""))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def units_line(results):
    """How much material each row rests on (frames; windows for multi)."""
    r = next(iter(results.values()))
    rr = rows(r)
    return "Units per column (10 ms frames; 0.5 s windows for multi): " + ", ".join(
        f"{c} {rr[rid]['units']}" for rid, c, *_ in ROWS)


def markdown(results, detail):
    collar = max((r.get("collar_frames", 0) for r in results.values()), default=0)
    heading = "## Issue #23 targets (percent; ✓/✗ = target met/missed)"
    if collar:
        heading += (f" — with a ±{collar * 10} ms collar around every speech and music boundary: "
                    "a diagnostic, not the issue's measure")
    out = [heading, "", table(results), "", units_line(results), ""]
    if detail:
        for t in score.TASKS:
            tab = score.comparison_table(results, t)
            if tab:
                out += [f"## {t} per condition (F1 where the condition has {t}, else FA)", "", tab, ""]
    return "\n".join(out)


# The speech-over-background conditions --by-noise-kind splits, by SNR: loud backgrounds, the rest.
LOUD_NOISE = ("speech_noise/-5dB", "speech_noise/+0dB")


def noise_kinds(root):
    """{audio_filepath: noise_kind} of the corpus manifest's files that name one (none without a manifest)."""
    path = os.path.join(root, "manifest.jsonl")
    if not os.path.exists(path):
        return {}
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r.get("noise_kind"):
                out[r["audio_filepath"]] = r["noise_kind"]
    return out


def by_noise_kind(results, kinds, labels):
    """Markdown: per background kind and system, VAD F1 over it at -5/0 dB and at +5 dB and above
    (speech_noise), and false alarms on it alone (noise_only), from the per-file counts."""
    groups = {}  # (kind, column) -> files
    for rel, segs in labels.items():
        kind, cond = kinds.get(rel), segs[0].get("condition", "")
        if kind is None:
            continue
        if cond.startswith("speech_noise/"):
            col = "loud" if cond in LOUD_NOISE else "quiet"
        elif cond.startswith("noise_only/"):
            col = "alone"
        else:
            continue
        groups.setdefault((kind, col), []).append(rel)
    names = list(results)
    cols = [("loud", "F1 at −5/0 dB", "f1"), ("quiet", "F1 at +5…+30 dB", "f1"), ("alone", "FA alone", "fa")]
    head = "| Background | " + " | ".join(f"{n}: {c}" for _, c, _ in cols for n in names) + " | files |"
    lines = ["## Voice activity per background kind (percent)", "", head,
             "|---|" + "---:|" * (len(cols) * len(names) + 1)]
    for kind in sorted({k for k, _ in groups}):
        cells, nfiles = [], 0
        for col, _, metric in cols:
            files = groups.get((kind, col), [])
            nfiles += sum(1 for f in files if any(f in results[n]["tasks"]["speech"]["files"] for n in names))
            for n in names:
                per_file = results[n]["tasks"]["speech"]["files"]
                ms = [per_file[f] for f in files if f in per_file]
                cells.append(score.pct(_sum(ms)[metric]) if ms else "")
        if nfiles:
            lines.append(f"| {kind} | " + " | ".join(cells) + f" | {nfiles} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("labels")
    ap.add_argument("hyps", nargs="+", metavar="HYP")
    ap.add_argument("--root", help="corpus root (default: the directory of LABELS)")
    ap.add_argument("--markdown", metavar="FILE")
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--detail", action="store_true", help="per-condition tables")
    ap.add_argument("--collar", type=int, default=0, metavar="MS",
                    help="leave out the speech and music frames within MS ms of a change of the reference "
                         "label (a multiple of 10; default 0: every frame counts, as the targets are stated)")
    ap.add_argument("--by-noise-kind", action="store_true",
                    help="voice activity per background kind of the corpus manifest (a diagnostic)")
    args = ap.parse_args(argv)
    if args.collar < 0 or args.collar % 10:
        ap.error("--collar: a non-negative multiple of 10 ms")
    try:
        labels = score.read_segments(args.labels)
        root = args.root or os.path.dirname(os.path.abspath(args.labels))
        results = {}
        for h in args.hyps:
            name, path = (h.split("=", 1) if "=" in h and not os.path.exists(h) else
                          (os.path.splitext(os.path.basename(h))[0], h))
            results[name] = score.score_one(labels, score.read_segments(path), root, collar=args.collar // 10)
    except (score.ScoreError, OSError) as e:
        print(f"score_detect.py: {e}", file=sys.stderr)
        return 2
    for name, r in results.items():
        if r["files_missing"]:
            print(f"score_detect.py: {name}: {len(r['files_missing'])} labelled files without hypothesis, "
                  f"e.g. {r['files_missing'][0]}", file=sys.stderr)
    md = markdown(results, args.detail)
    if args.by_noise_kind:
        if any(r["tasks"].get("speech") is None for r in results.values()):
            print("score_detect.py: --by-noise-kind needs voice activity in every timeline", file=sys.stderr)
            return 2
        md += "\n" + by_noise_kind(results, noise_kinds(root), labels)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(md + "\n")
    else:
        print(md)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({name: {"rows": rows(r), "score": r} for name, r in results.items()}, f, indent=1, sort_keys=True)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
