#!/usr/bin/env python3
"""Generate the detection training / validation / test material of issue #23.

    make_detect_corpus.py --out DIR [--scale small|full] [--seed 23] [--max-minutes M]
                          [--only CLASS[,CLASS]] [--limit N] [--splits SPLIT[,SPLIT]] [--train-extra]
                          [--train-overlap] [--train-effects] [--train-stationary] [--train-music]

Writes DIR/<split>/<class>/<class>_<index>.flac (16 kHz mono, 16-bit, TPDF-dithered except
digital silence), one sidecar DIR/.done/<name>.json per finished file, and at the end
DIR/labels.jsonl (10 ms label segments: speech, music, multi_speaker, talkers, condition,
split), DIR/manifest.jsonl (one record per file), DIR/sources.jsonl (every source of the
catalogue with its group and split) and DIR/manifest.json (generator version, seed, scale,
package versions, script and audio hashes, counts).

Deterministic: each file has its own numpy Generator seeded from (seed, class, index); the
synthesisers run with fixed settings on one core. Resumable: a file whose sidecar exists is
not made again (--max-minutes stops cleanly between files; run again to go on). One process.
"""
import argparse
import glob
import hashlib
import importlib.metadata
import json
import os
import subprocess
import sys
import time

import numpy as np
import soundfile as sf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from detectlib import GENERATOR_VERSION  # noqa: E402  (also puts scripts/scene, scripts/eval on the path)
from detectlib import conditions, sources, splits  # noqa: E402
from detectlib.labels import HOP, file_labels, segments  # noqa: E402
from make_corpus import quantise  # noqa: E402
from scenelib.common import seed_of  # noqa: E402

FS = sources.FS
SPLITS = ("train", "val", "test")
# files per class, duration range (s), and the split cycle (files of a class take splits in turn)
SCALES = {
    "small": ({"clean": 30, "speech_noise": 30, "speech_music": 20, "music_only": 20, "noise_only": 25,
               "silence": 8, "overlap": 15, "dialogue": 10, "room": 15, "telephone": 12, "distortion": 12,
               "conversation": 2}, (6.0, 12.0), ["train", "val", "test", "train", "val"]),
    "full": ({"clean": 300, "speech_noise": 300, "speech_music": 160, "music_only": 200, "noise_only": 250,
              "silence": 40, "overlap": 120, "dialogue": 100, "room": 120, "telephone": 120, "distortion": 96,
              "conversation": 6}, (8.0, 16.0), ["train"] * 12 + ["val"] * 3 + ["test"] * 5),
}
# Classes whose files all take the train split, made only with --train-extra (generator 1.1.0:
# conditions.babble_only, speech_babble, speech_loud): appended after the classes above with
# their own seeds, so every file of 1.0.0 — all of val and test — is made byte for byte as
# before, with or without them. Per scale: files. The shipped models are fitted without them
# (docs/detection.md, "More training material").
TRAIN_ONLY = {"small": {"babble_only": 5, "speech_babble": 5, "speech_loud": 4},
              "full": {"babble_only": 150, "speech_babble": 100, "speech_loud": 96}}
# Overlapping talkers for the multi-speaker model (generator 1.3.0: conditions.overlap_train), made
# only with --train-overlap and appended after everything else, all train: every file of 1.1.0,
# val and test included, is made byte for byte as before. (1.2.0 was the unmerged `tones` branch,
# docs/detection.md.) Per scale: files.
TRAIN_OVERLAP = {"small": {"overlap_train": 10}, "full": {"overlap_train": 360}}
# Recorded effects for the voice-activity model (generator 1.5.0: conditions.effects_only and
# speech_effects, over the train split's effects and seven packages only they hear), made only with
# --train-effects and appended after everything else, all train: every file of 1.3.0, val and test
# included, is made byte for byte as before. Per scale: files.
TRAIN_EFFECTS = {"small": {"effects_only": 5, "speech_effects": 4},
                 "full": {"effects_only": 150, "speech_effects": 100}}
# Speech over synthetic stationary backgrounds for the voice-activity model (generator 1.6.0:
# conditions.speech_stationary), made only with --train-stationary and appended after everything
# else, all train: every file of 1.5.0, val and test included, is made byte for byte as before.
TRAIN_STATIONARY = {"small": {"speech_stationary": 8}, "full": {"speech_stationary": 240}}
# Recorded music for the voice-activity and music models (generator 1.7.0: conditions.music_pieces
# and speech_pieces, over the train split's pieces and eight packages only they hear), made only
# with --train-music and appended after everything else, all train: every file of 1.6.0, val and
# test included, is made byte for byte as before.
TRAIN_MUSIC = {"small": {"music_pieces": 5, "speech_pieces": 4}, "full": {"music_pieces": 150, "speech_pieces": 100}}
DEBIAN = ["espeak-ng", "espeak-ng-data", "flite", "festival", "festvox-kallpc16k", "festvox-kdlpc16k",
          "festvox-us-slt-hts", "festvox-czech-dita", "festvox-czech-krb", "festvox-czech-machac", "festvox-czech-ph",
          "festvox-ca-ona-hts", "festvox-suopuhe-lj", "festvox-suopuhe-mv", "festvox-italp16k", "festvox-itapc16k",
          "festvox-ru", "ktuberling-data", "klettres-data", "hedgewars-data", "alsa-utils", "warzone2100-data",
          "warzone2100-music", "supertux-data", "sound-theme-freedesktop", "oxygen-sounds", "gnome-audio",
          "extremetuxracer-data", "pingus-data", "tuxpaint-data", "colobot-common-sounds",
          "lincity-ng-data", "scorched3d-data", "megaglest-data", "bzflag-data", "boswars-data", "frozen-bubble-data",
          "hyperrogue-music", "openarena-data", "nexuiz-music", "ufoai-music", "singularity-music", "asc-music",
          "drascula-music", "neverball-data", "chromium-bsu-data", "tecnoballz-data", "lbreakout2-data",
          "pinball-data", "minetest-data", "btanks-data", "enigma-data", "a7xpg-data", "zaz-data", "pangzero",
          "powermanga-data", "lordsawar-data", "fluidsynth", "fluid-soundfont-gm", "timgm6mb-soundfont",
          "musescore-general-soundfont-lossless", "opl3-soundfont", "csound-soundfont", "avldrums.lv2-soundfont",
          "sox", "libsox-fmt-all", "lame", "opus-tools", "libsndfile1"]
PYTHON = ["numpy", "scipy", "soundfile", "pyroomacoustics", "pyworld", "pyannote.audio"]


def specs(scale, seed, train_extra=False, train_overlap=False, train_effects=False, train_stationary=False,
          train_music=False):
    """Every file of a corpus, in output order (with --train-extra, TRAIN_ONLY's after the rest;
    with --train-overlap, TRAIN_OVERLAP's after those; with --train-effects, TRAIN_EFFECTS' after
    those; with --train-stationary, TRAIN_STATIONARY's after those; with --train-music,
    TRAIN_MUSIC's last)."""
    counts, (dmin, dmax), cycle = SCALES[scale]
    sample = sources.pyannote_sample()
    out = []
    train_only = {**TRAIN_ONLY[scale], **TRAIN_OVERLAP[scale], **TRAIN_EFFECTS[scale], **TRAIN_STATIONARY[scale],
                  **TRAIN_MUSIC[scale]}
    for cls, count in (list(counts.items()) + (list(TRAIN_ONLY[scale].items()) if train_extra else [])
                       + (list(TRAIN_OVERLAP[scale].items()) if train_overlap else [])
                       + (list(TRAIN_EFFECTS[scale].items()) if train_effects else [])
                       + (list(TRAIN_STATIONARY[scale].items()) if train_stationary else [])
                       + (list(TRAIN_MUSIC[scale].items()) if train_music else [])):
        ordinal = {}
        for i in range(count):
            split = "train" if cls in train_only else cycle[i % len(cycle)]
            if cls == "conversation":
                if sample is None:
                    continue
                split = rule().split_of(sample["id"])
            rng = np.random.default_rng(seed_of(seed, cls, i, "duration"))
            dur = 15.0 if cls == "conversation" else round(float(rng.uniform(dmin, dmax)), 2)
            k = ordinal[split] = ordinal.get(split, -1) + 1
            out.append({"class": cls, "index": i, "k": k, "split": split, "duration_s": dur,
                        "seed": seed_of(seed, cls, i), "path": f"{split}/{cls}/{cls}_{i:05d}.flac"})
    return out


_RULE = None
_CTX = {}


def rule():
    global _RULE
    if _RULE is None:
        _RULE = splits.SplitRule(sources.all_source_ids() | set(splits.scene_ids()) |
                                 set(conditions.music.tune_ids()))
    return _RULE


def context(split):
    if split not in _CTX:
        _CTX[split] = conditions.SplitContext(split, rule())
    return _CTX[split]


def _post(mix, post, speech_power):
    for proc, arg in post:
        if proc == "codec":
            mix = conditions.codec(mix, arg)
        elif proc == "clip":
            mix = np.clip(mix, -arg, arg)
        elif proc == "dc":
            mix = mix + arg
            peak = np.max(np.abs(mix))
            mix = mix * (0.99 / peak) if peak > 0.99 else mix
        elif proc == "hum":
            f0, below = arg
            t = np.arange(len(mix)) / FS
            hum = sum(np.sin(2 * np.pi * f0 * k * t + 0.7 * k) / k ** 1.2 for k in range(1, 8))
            ref = speech_power if speech_power > 0 else float(np.mean(mix ** 2))
            mix = mix + hum / np.sqrt(np.mean(hum ** 2)) * np.sqrt(ref) * 10 ** (-below / 20)
    return mix


def render(spec, out_dir):
    """Build, mix, label and write one file; returns its manifest record and label segments."""
    rng = np.random.default_rng(spec["seed"])
    ctx = context(spec["split"])
    sc, condition = conditions.BUILDERS[spec["class"]](spec, ctx, rng)
    n = int(round(spec["duration_s"] * FS / HOP)) * HOP
    if sc.labels_override is not None:
        n = len(sc.labels_override["signal"])
    speech_sig = np.zeros(n)
    for k, st in enumerate(sc.talkers):
        speech_sig += (sc.wet[k] if sc.wet else st.x)[:n]
    if sc.labels_override is not None:
        speech_sig = sc.labels_override["signal"]
    mix = speech_sig.copy()
    if sc.music is not None:
        mix += sc.music[:n]
    floor_re_peak = sc.meta.pop("floor_re_peak_db", None)
    if sc.background is not None and floor_re_peak is None:
        mix += sc.background[:n]
    peak = float(np.max(np.abs(mix))) if n else 0.0
    g = 1.0 if sc.peak_dbfs is None or peak == 0.0 else 10 ** (sc.peak_dbfs / 20) / peak
    for st in sc.talkers:
        st.scale(g)
    music_stem = sc.music[:n] * g if sc.music is not None else None
    mix = mix * g
    if floor_re_peak is not None:   # clean: a floor under the final peak, at most -70 dBFS RMS
        rms = min(10 ** ((sc.peak_dbfs + floor_re_peak) / 20), 10 ** (-70 / 20))
        mix = mix + sc.background[:n] * rms
    frames = n // HOP
    if sc.labels_override is not None:
        count = sc.labels_override["count"][:frames]
        from detectlib.labels import merge_gaps, SPEECH_GAP
        lab = {"speech": merge_gaps(count > 0, SPEECH_GAP), "music": np.zeros(frames, dtype=bool),
               "talkers": count, "multi_speaker": count >= 2}
    else:
        lab = file_labels([st.label(frames) for st in sc.talkers], music_stem, frames)
    speech_power = 0.0
    if sc.talkers:
        act = np.concatenate([st.x.reshape(-1, HOP)[:frames][lab["speech"]].ravel() for st in sc.talkers]) \
            if lab["speech"].any() else np.zeros(1)
        speech_power = float(np.mean(act ** 2))
    mix = _post(mix, sc.post, speech_power)
    pcm = quantise(np.clip(mix, -1.0, 32767 / 32768), rng, digital=sc.digital_silence)
    path = os.path.join(out_dir, spec["path"])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    sf.write(path, pcm, FS, subtype="PCM_16", format="FLAC")
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    final = pcm.astype(np.float64) / 32768
    fpeak = float(np.max(np.abs(final)))
    record = {
        "audio_filepath": spec["path"], "split": spec["split"], "condition": condition, "class": spec["class"],
        "duration": round(n / FS, 2), "seed": spec["seed"], "sha256": digest,
        "peak_dbfs": round(20 * np.log10(fpeak), 2) if fpeak > 0 else None,
        "sources": {k: list(v) for k, v in sorted(sc.sources.items())},
        "speech_s": round(float(lab["speech"].sum()) * 0.01, 2), "music_s": round(float(lab["music"].sum()) * 0.01, 2),
        "multi_s": round(float(lab["multi_speaker"].sum()) * 0.01, 2),
        "max_talkers": int(lab["talkers"].max()) if frames else 0,
        "items": [list(map(str, st.items)) for st in sc.talkers],
        **{k: (round(v, 3) if isinstance(v, float) else v) for k, v in sorted(sc.meta.items())},
    }
    return record, segments(spec["path"], condition, lab, frames, spec["split"])


def _sidecar(out_dir, spec):
    return os.path.join(out_dir, ".done", spec["path"].replace("/", "__") + ".json")


def _versions():
    deb = {}
    for pkg in DEBIAN:
        r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg], capture_output=True, text=True)
        deb[pkg] = r.stdout if r.returncode == 0 else None
    py = {}
    for p in PYTHON:
        try:
            py[p] = importlib.metadata.version(p)
        except importlib.metadata.PackageNotFoundError:
            py[p] = None
    return deb, py


def script_hash():
    """SHA-256 over the generator's code: this script, detectlib, and the scene/eval modules it imports."""
    h = hashlib.sha256()
    files = sorted(glob.glob(os.path.join(HERE, "detectlib", "*.py"))) + [os.path.abspath(__file__)]
    scripts = os.path.dirname(HERE)
    files += sorted(glob.glob(os.path.join(scripts, "scene", "scenelib", "*.py")))
    files += [os.path.join(scripts, "eval", f) for f in ("make_corpus.py", "tunes.py")]
    files += [os.path.join(scripts, "testaudio", "make_midi.py")]
    for f in files:
        with open(f, "rb") as fh:
            h.update(os.path.relpath(f, scripts).encode() + b"\0" + hashlib.sha256(fh.read()).digest())
    return h.hexdigest()


def source_table():
    """Every catalogue source with its group, split and kind (for sources.jsonl and the tests)."""
    r = rule()
    rows = []
    for v in sources.voices():
        for sid in v.get("ids", [v["id"]]):
            rows.append({"id": sid, "kind": "voice", "family": v["family"]})
    rows += [{"id": e["id"], "kind": "noise-" + e["kind"], "package": e["package"], "seconds": e["seconds"]}
             for e in sources.noises() + sources.train_noises()]
    rows += [{"id": e["id"], "kind": "music-recording", "package": e["package"], "seconds": e["seconds"]}
             for e in sources.music_recordings() + sources.train_music_recordings()]
    rows += [{"id": e["id"], "kind": "instrument-drums" if e["drums"] else "instrument", "family": e["family"],
              "name": e["name"]} for e in sources.instruments()]
    rows += [{"id": t, "kind": "tune"} for t in conditions.music.tune_ids()]
    rows += [{"id": rid, "kind": "room"} for rid in conditions.rooms.room_ids()]
    s = sources.pyannote_sample()
    if s:
        rows.append({"id": s["id"], "kind": "conversation", "package": "pyannote.audio (PyPI)"})
    for row in rows:
        row["group"] = splits.group_of(row["id"])
        row["split"] = r.split_of(row["id"])
        if row["kind"] == "voice":
            row["babble"] = splits.is_babble_voice(row["id"])
    return sorted(rows, key=lambda x: x["id"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--scale", choices=sorted(SCALES), default="small")
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--max-minutes", type=float, default=None, help="stop (cleanly, between files) after M minutes")
    ap.add_argument("--only", help="comma-separated classes to make (tests)")
    ap.add_argument("--limit", type=int, help="at most N files per class (tests)")
    ap.add_argument("--splits", help="comma-separated splits to make (e.g. train,val for fitting and trials; "
                    "the files made are those of the whole run, the same bytes)")
    ap.add_argument("--train-extra", action="store_true",
                    help="also make the train-only classes babble_only, speech_babble, speech_loud (TRAIN_ONLY)")
    ap.add_argument("--train-overlap", action="store_true",
                    help="also make the train-only class overlap_train (TRAIN_OVERLAP), after every other file")
    ap.add_argument("--train-effects", action="store_true",
                    help="also make the train-only classes effects_only, speech_effects (TRAIN_EFFECTS)")
    ap.add_argument("--train-stationary", action="store_true",
                    help="also make the train-only class speech_stationary (TRAIN_STATIONARY)")
    ap.add_argument("--train-music", action="store_true",
                    help="also make the train-only classes music_pieces, speech_pieces (TRAIN_MUSIC), last")
    args = ap.parse_args()
    os.makedirs(os.path.join(args.out, ".done"), exist_ok=True)
    todo = specs(args.scale, args.seed, args.train_extra, args.train_overlap, args.train_effects,
                 args.train_stationary, args.train_music)
    if args.only:
        todo = [s for s in todo if s["class"] in args.only.split(",")]
    if args.limit is not None:
        todo = [s for s in todo if s["index"] < args.limit]
    if args.splits:
        todo = [s for s in todo if s["split"] in args.splits.split(",")]
    t0 = time.time()
    made = skipped = 0
    for k, spec in enumerate(todo):
        side = _sidecar(args.out, spec)
        if os.path.exists(side) and os.path.exists(os.path.join(args.out, spec["path"])):
            skipped += 1
            continue
        if args.max_minutes is not None and time.time() - t0 > 60 * args.max_minutes:
            print(f"make_detect_corpus: stopping after {args.max_minutes} min; run again to resume", file=sys.stderr)
            break
        t1 = time.time()
        record, segs = render(spec, args.out)
        record["render_seconds"] = round(time.time() - t1, 2)
        tmp = side + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"record": record, "segments": segs}, f, sort_keys=True)
        os.replace(tmp, side)
        made += 1
        if made % 20 == 0:
            print(f"make_detect_corpus: {k + 1}/{len(todo)} files, {time.time() - t0:.0f} s", file=sys.stderr)
    done = [s for s in todo if os.path.exists(_sidecar(args.out, s))]
    complete = len(done) == len(todo)
    finish(args, todo, done, complete, time.time() - t0, made, skipped)


def finish(args, todo, done, complete, elapsed, made, skipped):
    records, segs = [], []
    for spec in done:
        with open(_sidecar(args.out, spec)) as f:
            d = json.load(f)
        records.append(d["record"])
        segs += d["segments"]
    with open(os.path.join(args.out, "labels.jsonl"), "w") as f:
        for s in segs:
            f.write(json.dumps(s, sort_keys=True) + "\n")
    with open(os.path.join(args.out, "manifest.jsonl"), "w") as f:
        for r in records:
            r = {k: v for k, v in r.items() if k != "render_seconds"}
            f.write(json.dumps(r, sort_keys=True) + "\n")
    table = source_table()
    with open(os.path.join(args.out, "sources.jsonl"), "w") as f:
        for row in table:
            f.write(json.dumps(row, sort_keys=True) + "\n")
    digest = hashlib.sha256()
    for r in records:
        digest.update(r["audio_filepath"].encode() + bytes.fromhex(r["sha256"]))
    deb, py = _versions()
    per_split = {s: {"files": 0, "hours": 0.0} for s in SPLITS}
    per_class = {}
    for r in records:
        per_split[r["split"]]["files"] += 1
        per_split[r["split"]]["hours"] += r["duration"] / 3600
        c = per_class.setdefault(r["class"], {s: 0 for s in SPLITS})
        c[r["split"]] += 1
    for v in per_split.values():
        v["hours"] = round(v["hours"], 3)
    src_counts = {}
    for row in table:
        c = src_counts.setdefault(row["kind"], {s: 0 for s in SPLITS})
        c[row["split"]] += 1
    groups = {}
    for row in table:
        groups.setdefault(row["kind"], {}).setdefault(row["split"], set()).add(row["group"])
    group_counts = {k: {s: len(v.get(s, ())) for s in SPLITS} for k, v in groups.items()}
    manifest = {"generator_version": GENERATOR_VERSION, "seed": args.seed, "scale": args.scale,
                "train_extra": args.train_extra, "train_overlap": args.train_overlap,
                "train_effects": args.train_effects, "train_stationary": args.train_stationary,
                "train_music": args.train_music,
                "complete": complete, "files": len(records), "files_planned": len(todo),
                "hours": round(sum(r["duration"] for r in records) / 3600, 3), "splits": per_split,
                "classes": per_class, "source_counts": src_counts, "group_counts": group_counts,
                "audio_sha256": digest.hexdigest(), "script_sha256": script_hash(),
                "python": sys.version.split()[0], "python_packages": py, "debian_packages": deb,
                "split_rule": "see scripts/detect/detectlib/splits.py"}
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"make_detect_corpus: {len(records)}/{len(todo)} files ({made} made, {skipped} already there), "
          f"{manifest['hours']:.2f} h of audio, {elapsed:.0f} s -> {args.out}"
          f"{'' if complete else ' (incomplete: run again to resume)'}", file=sys.stderr)


if __name__ == "__main__":
    main()
