#!/usr/bin/env python3
"""Score dspscore's `environment` measures against the scene corpus truth.

    evaluate.py --corpus DIR --records recs.jsonl [--timeline tl.jsonl]
                [--split dev|test] [--markdown OUT.md]

Records are joined to DIR/truth.jsonl by path (audio_filepath relative to
DIR).  Per condition and measure: files with truth, files measured, median
and 90th-percentile absolute error (dB for levels, SNR and C50; relative %
for RT60, bandwidth, F0 and rate; exact-match rate for bandwidth class).
`noise_dbfs` is scored against the median of the noise track's 0.5 s block
levels (the field is a median over time), `noise_dbfs_mean` against its
mean-square level over the file; all levels are in the 16 kHz analysis band
(scenelib.levels.analysis_band).  SNR rows also give WADA-SNR's errors on the same files.  A measure missing
or null in every record is reported as "not measured".  Timeline
environment updates ({"time", "environment": {"noise_dbfs",
"noise_category", ...}}) are scored per update when present.
"""
import argparse
import json
import math
import os
import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wada_snr import wada_snr_file  # noqa: E402

CONDITIONS = ["clean", "noise", "talkers", "dialogue", "music", "noise_only", "noise_step",
              "rooms", "bandwidth", "pitch_rate",
              "loops:noise_only", "loops:voice", "loops:dialogue"]
# measure -> (error kind, unit shown)
MEASURES = {
    "noise_dbfs": "abs", "speech_dbfs": "abs", "snr_db": "abs", "c50_db": "abs", "rt60_s": "rel",
    "bandwidth_hz": "rel", "bandwidth_class": "class", "f0_median_hz": "rel", "f0_spread_hz": "rel",
    "speaking_rate_sps": "rel", "noise_dbfs_mean": "abs",
}
# measure -> the record field it scores, where the two differ
FIELD = {"noise_dbfs_mean": "noise_dbfs"}
CATEGORIES = [(35, "very_quiet"), (45, "quiet"), (55, "moderate"), (65, "loud")]
BLOCK_S = 0.5


def condition_of(t):
    """A file's row: its condition, and for `loops` (generator 1.3.0) the scene over the loop."""
    return f"loops:{t['loop_scene']}" if t["condition"] == "loops" else t["condition"]


def update_block(blocks, time_s):
    """The noise track's 0.5 s block an environment update at `time_s` is scored against: the
    last whole block before it (clamped to the file's blocks)."""
    return blocks[min(max(int(math.floor(time_s / BLOCK_S + 1e-9)) - 1, 0), len(blocks) - 1)]


def noise_category(dbfs):
    """Category of a noise level: thresholds on dBFS + 90."""
    spl = dbfs + 90.0
    return next((name for limit, name in CATEGORIES if spl < limit), "very_loud")


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def relative(corpus, path):
    return os.path.relpath(os.path.realpath(path), os.path.realpath(corpus))


def error(kind, ours, truth):
    """Absolute error (dB/units), relative error (%), or 0/1 mismatch for classes."""
    if kind == "class":
        return 0.0 if ours == truth else 1.0
    if kind == "rel":
        return abs(ours - truth) / abs(truth) * 100.0
    return abs(ours - truth)


def stats(errors):
    """(median, p90) of a list, or (None, None)."""
    if not errors:
        return None, None
    a = np.asarray(errors, dtype=float)
    return float(np.median(a)), float(np.percentile(a, 90))


def truth_value(t, measure):
    """The truth a record's field is compared with. `noise_dbfs` is a median over time (of the
    environment measurements), so its truth is the median (the lower middle one, as the record's)
    of the noise track's 0.5 s block levels; `noise_dbfs_mean` compares the same field with the
    mean-square level over the whole file. Both in the 16 kHz analysis band."""
    if measure == "noise_dbfs":
        blocks = [b for b in (t.get("noise_dbfs_blocks") or []) if b is not None]
        if blocks and t.get("noise_dbfs") is not None:
            return sorted(blocks)[(len(blocks) - 1) // 2]
        return None
    if measure == "noise_dbfs_mean":
        return t.get("noise_dbfs")
    return t.get(measure)


def file_rows(truth, records, corpus, with_wada):
    """Rows [condition, measure, n_truth, n_measured, median, p90, wada_median, wada_p90, mean error,
    worst] — worst: (signed error, file name) of the largest error for dB and % measures, else
    None. The p90 of 20–80 files does not show one file far out; the worst does."""
    rows = []
    for cond in CONDITIONS:
        files = [t for t in truth if condition_of(t) == cond]
        for measure, kind in MEASURES.items():
            with_truth = [t for t in files if truth_value(t, measure) is not None]
            if not with_truth:
                continue
            field = FIELD.get(measure, measure)
            errs, wada = [], []
            worst = None
            for t in with_truth:
                env = (records.get(t["path"]) or {}).get("environment") or {}
                if env.get(field) is not None:
                    errs.append(error(kind, env[field], truth_value(t, measure)))
                    if kind != "class" and (worst is None or errs[-1] > abs(worst[0])):
                        signed = env[field] - truth_value(t, measure)
                        if kind == "rel":
                            signed = signed / abs(truth_value(t, measure)) * 100.0
                        worst = (signed, os.path.basename(t["path"]))
                if measure == "snr_db" and with_wada:
                    w = wada_snr_file(os.path.join(corpus, t["path"]))
                    if w is not None:
                        wada.append(abs(w - t[measure]))
            mean_err = float(np.mean(errs)) if errs else None
            rows.append([cond, measure, len(with_truth), len(errs), *stats(errs), *stats(wada), mean_err, worst])
    return rows


def timeline_rows(truth, updates):
    """Rows [condition, n_updates, noise median, noise p90, category accuracy] from timeline updates."""
    by_path = {t["path"]: t for t in truth}
    per = defaultdict(lambda: ([], []))
    for path, time_s, env in updates:
        t = by_path.get(path)
        blocks = (t or {}).get("noise_dbfs_blocks")
        if not blocks or env.get("noise_dbfs") is None:
            continue
        block = update_block(blocks, time_s)
        if block is None:
            continue
        errs, hits = per[condition_of(t)]
        errs.append(abs(env["noise_dbfs"] - block))
        if env.get("noise_category") is not None:
            hits.append(env["noise_category"] == noise_category(block))
    rows = []
    for cond in CONDITIONS:
        if cond in per:
            errs, hits = per[cond]
            rows.append([cond, len(errs), *stats(errs), (100.0 * np.mean(hits)) if hits else None])
    return rows


def step_rows(truth, updates, within_db=3.0):
    """noise_step files: seconds from the step until the first update reading the loud room's
    level within `within_db` (its category from then on), per file; None when never."""
    by_path = {t["path"]: t for t in truth if t["condition"] == "noise_step" and t.get("noise_dbfs_after") is not None}
    per_file = defaultdict(list)
    for path, time_s, env in updates:
        if path in by_path:
            per_file[path].append((time_s, env))
    delays = []
    for path, t in sorted(by_path.items()):
        step, after = t["noise_step_time_s"], t["noise_dbfs_after"]
        hit = next((u - step for u, env in sorted(per_file.get(path, []), key=lambda x: x[0])
                    if u >= step and env.get("noise_dbfs") is not None and abs(env["noise_dbfs"] - after) <= within_db), None)
        delays.append(hit)
    return delays


def fmt(v, unit=""):
    return "—" if v is None else f"{v:.2f}{unit}"


def render(rows, trows, split, timeline_given, delays=()):
    """Markdown text of both tables."""
    out = [f"### Files ({split} split)", "",
           "| condition | measure | files | measured | median abs err | p90 abs err | WADA-SNR median | WADA-SNR p90 | worst file |",
           "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for cond, measure, n, m, med, p90, wmed, wp90, mean_err, worst in rows:
        kind = MEASURES[measure]
        unit = {"abs": " dB" if measure != "rt60_s" else "", "rel": " %", "class": ""}[kind]
        if kind == "class":
            med_s = "not measured" if m == 0 else f"{100.0 * (1.0 - mean_err):.0f} % exact"
            p90_s = ""
        else:
            med_s = "not measured" if m == 0 else fmt(med, unit)
            p90_s = "" if m == 0 else fmt(p90, unit)
        wm = fmt(wmed, " dB") if measure == "snr_db" else ""
        wp = fmt(wp90, " dB") if measure == "snr_db" else ""
        worst_s = "" if worst is None else f"{worst[0]:+.2f}{unit} {worst[1]}"
        out.append(f"| {cond} | {measure} | {n} | {m} | {med_s} | {p90_s} | {wm} | {wp} | {worst_s} |")
    out += ["", f"### Timeline environment updates ({split} split)", ""]
    if not timeline_given or not trows:
        out.append("No environment updates in the timeline (not measured).")
    else:
        out += ["| condition | updates | noise median abs err | noise p90 abs err | category accuracy |",
                "|---|---:|---:|---:|---:|"]
        for cond, n, med, p90, acc in trows:
            out.append(f"| {cond} | {n} | {fmt(med, ' dB')} | {fmt(p90, ' dB')} | {fmt(acc, ' %')} |")
    if delays:
        found = sorted(d for d in delays if d is not None)
        out += ["", f"### A quiet room, then a loud one ({split} split)", "",
                "Seconds from the step until an update reads the loud room's level within 3 dB.", "",
                "| files | followed | median | max |", "|---:|---:|---:|---:|",
                f"| {len(delays)} | {len(found)} | {fmt(float(np.median(found)) if found else None, ' s')} | "
                f"{fmt(found[-1] if found else None, ' s')} |"]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--records", required=True)
    ap.add_argument("--timeline")
    ap.add_argument("--split", choices=["dev", "test"], default="dev")
    ap.add_argument("--markdown", help="also write the tables to this Markdown file")
    ap.add_argument("--no-wada", action="store_true", help="skip the WADA-SNR peer")
    args = ap.parse_args()
    truth = [t for t in read_jsonl(os.path.join(args.corpus, "truth.jsonl")) if t["split"] == args.split]
    records = {}
    for r in read_jsonl(args.records):
        if "audio_filepath" in r and r.get("status", "ok") == "ok":
            records[relative(args.corpus, r["audio_filepath"])] = r
    missing = [t["path"] for t in truth if t["path"] not in records]
    if missing:
        print(f"warning: {len(missing)} corpus files have no ok record (e.g. {missing[0]})", file=sys.stderr)
    updates = []
    if args.timeline:
        for line in read_jsonl(args.timeline):
            if isinstance(line.get("environment"), dict) and "time" in line:
                updates.append((relative(args.corpus, line["audio_filepath"]), float(line["time"]),
                                line["environment"]))
    text = render(file_rows(truth, records, args.corpus, not args.no_wada),
                  timeline_rows(truth, updates), args.split, bool(updates), step_rows(truth, updates))
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
