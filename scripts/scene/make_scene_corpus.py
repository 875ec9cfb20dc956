#!/usr/bin/env python3
"""Generate the labelled acoustic-scene corpus: audio files, DIR/truth.jsonl and DIR/manifest.json.

    make_scene_corpus.py --out DIR [--scale small|full] [--seed N] [--jobs J]

Deterministic: the same seed with the same installed sources gives the same
files (each file has its own numpy Generator seeded from the corpus seed,
its condition and its index).  See README.md for every truth field.
"""
import argparse
import hashlib
import importlib.metadata
import json
import multiprocessing
import os
import subprocess
import sys
import time

import numpy as np
import scipy.io.wavfile
import soundfile as sf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scenelib import GENERATOR_VERSION, levels  # noqa: E402
from scenelib.common import seed_of  # noqa: E402
from scenelib.conditions import BUILDERS  # noqa: E402

# Files per condition and nominal duration (s) per scale.
SCALES = {
    "small": ({"clean": 12, "noise": 24, "talkers": 8, "dialogue": 8, "music": 8, "noise_only": 8,
               "noise_step": 4, "rooms": 12, "bandwidth": 14, "pitch_rate": 10, "loops": 6}, 8.0),
    "full": ({"clean": 60, "noise": 160, "talkers": 50, "dialogue": 50, "music": 50, "noise_only": 50,
              "noise_step": 24, "rooms": 80, "bandwidth": 78, "pitch_rate": 60, "loops": 48}, 10.0),
}
RATES = [16000, 44100, 48000]
FORMATS = [("wav", "PCM_16"), ("flac", "PCM_16"), ("wav", "FLOAT")]
DEBIAN_SOURCES = ["espeak-ng", "espeak-ng-data", "flite", "festival", "festvox-kallpc16k", "festvox-kdlpc16k",
                  "festvox-us-slt-hts", "ktuberling-data", "hedgewars-data", "alsa-utils", "fluidsynth",
                  "timgm6mb-soundfont", "fluid-soundfont-gm", "sox", "libsox-fmt-all", "lame", "opus-tools"]
PYTHON_SOURCES = ["numpy", "scipy", "soundfile", "pyroomacoustics", "pyworld"]


def specs(scale, seed):
    """The file specs of a corpus, in output order (split alternates dev/test within a condition)."""
    counts, duration = SCALES[scale]
    out = []
    for cond, count in counts.items():
        for i in range(count):
            split = "dev" if i % 2 == 0 else "test"
            fs = 44100 + 3900 * (i // 2 % 2) if cond == "bandwidth" else RATES[(i // 2) % 3]
            ext, subtype = FORMATS[i // 2 % 3] if cond != "bandwidth" else ("wav", "PCM_16")
            out.append({"condition": cond, "index": i, "split": split, "fs": fs, "ext": ext,
                        "subtype": subtype, "duration_s": duration + (i % 5),
                        "seed": seed_of(seed, cond, i),
                        "path": f"{cond}/{cond}_{i:04d}_{split}.{ext}"})
    return out


def _db(x):
    return None if x is None else round(float(x), 3)


def write_audio(path, x, fs, ext, subtype):
    """Write a file; float WAV goes through scipy because libsndfile adds a timestamped PEAK chunk."""
    if subtype == "FLOAT":
        scipy.io.wavfile.write(path, fs, x.astype(np.float32))
    else:
        sf.write(path, x, fs, subtype=subtype, format=ext.upper())


def render(job):
    """Build, mix, write one file; return its truth record."""
    spec, out_dir = job
    rng = np.random.default_rng(spec["seed"])
    scene = BUILDERS[spec["condition"]](spec, rng)
    fs = spec["fs"]
    tracks = [t for t in (scene.speech, scene.noise, scene.music) if t is not None]
    mix = scene.mix if scene.mix is not None else np.sum(tracks, axis=0)
    peak = float(np.max(np.abs(mix)))
    gain = 0.9 / peak if peak > 0.9 else 1.0  # keep clear of clipping; truth uses the scaled tracks
    mix = mix * gain
    scaled = lambda t: None if t is None else t * gain
    speech, noise, music = scaled(scene.speech), scaled(scene.noise), scaled(scene.music)
    path = os.path.join(out_dir, spec["path"])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_audio(path, mix, fs, spec["ext"], spec["subtype"])
    # Levels in the 16 kHz analysis band (levels.analysis_band); the full-band ones beside them.
    af = levels.ANALYSIS_FS
    speech_b = levels.analysis_band(speech, fs) if speech is not None else None
    noise_b = levels.analysis_band(noise, fs) if noise is not None else None
    speech_db, activity = levels.p56_active_level(speech_b, af) if speech is not None else (None, None)
    noise_db = levels.dbfs(noise_b) if noise is not None else None
    truth = {
        "path": spec["path"], "split": spec["split"], "condition": spec["condition"], "fs": fs,
        "duration_s": round(len(mix) / fs, 4), "format": f"{spec['ext']}/{spec['subtype']}",
        "seed": spec["seed"], "gain_db": _db(20 * np.log10(gain)),
        "noise_dbfs": _db(noise_db), "speech_dbfs": _db(speech_db),
        "speech_activity": _db(activity),
        "snr_db": _db(speech_db - noise_db) if speech_db is not None and noise_db is not None else None,
        "music_dbfs": _db(levels.dbfs(music)) if music is not None else None,
        "noise_dbfs_blocks": [_db(b) for b in levels.block_dbfs(noise_b, af)] if noise is not None else None,
        "noise_dbfs_fullband": _db(levels.dbfs(noise)) if noise is not None else None,
        "speech_dbfs_fullband": _db(levels.p56_active_level(speech, fs)[0]) if speech is not None else None,
        "sources": scene.sources,
    }
    for key, value in scene.truth.items():
        if key in ("noise_dbfs_before", "noise_dbfs_after", "noise_dbfs_before_codec"):
            value = _db(value + 20 * np.log10(gain))
        truth[key] = round(value, 4) if isinstance(value, float) else value
    if "noise_step_time_s" in scene.truth:  # the two rooms, in the analysis band too
        k = int(scene.truth["noise_step_time_s"] * af)
        truth["noise_dbfs_before"], truth["noise_dbfs_after"] = _db(levels.dbfs(noise_b[:k])), _db(levels.dbfs(noise_b[k:]))
    return truth


def _versions():
    deb = {}
    for pkg in DEBIAN_SOURCES:
        r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg], capture_output=True, text=True)
        deb[pkg] = r.stdout if r.returncode == 0 else None
    py = {p: importlib.metadata.version(p) for p in PYTHON_SOURCES}
    return deb, py


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--scale", choices=sorted(SCALES), default="small")
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    todo = specs(args.scale, args.seed)
    t0 = time.time()
    with multiprocessing.Pool(args.jobs) as pool:
        records = pool.map(render, [(s, args.out) for s in todo], chunksize=1)
    with open(os.path.join(args.out, "truth.jsonl"), "w") as f:
        for r in records:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    deb, py = _versions()
    digest = hashlib.sha256()
    for r in records:
        with open(os.path.join(args.out, r["path"]), "rb") as fh:
            digest.update(r["path"].encode() + hashlib.sha256(fh.read()).digest())
    manifest = {"generator_version": GENERATOR_VERSION, "seed": args.seed, "scale": args.scale,
                "files": len(records), "audio_sha256": digest.hexdigest(),
                "python": sys.version.split()[0], "python_packages": py, "debian_packages": deb}
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    hours = sum(r["duration_s"] for r in records) / 3600
    print(f"{len(records)} files, {hours:.2f} h of audio in {time.time() - t0:.1f} s -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
