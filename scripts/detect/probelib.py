"""What the detection probes share (background_probe.py, music_probe.py): one split's source files
of the material and a writer of a probe corpus that dspscore, run_peers_detect.py and
score_detect.py read as they read the material (DIR/p/NNNNN.flac, DIR/manifest.jsonl,
DIR/labels.jsonl). Kept out of detectlib, whose code is the generator's (its script hash)."""
import json
import os
import sys

import numpy as np


def split_sources(corpus, split, keep, name):
    """The manifest rows of `split` for which `keep(row)` holds, and the material's labels
    ({audio_filepath: segments}); exits with a message naming `name` if there are none."""
    import score  # noqa: E402  (scripts/eval, on the caller's path)
    with open(os.path.join(corpus, "manifest.jsonl"), encoding="utf-8") as f:
        manifest = [json.loads(line) for line in f]
    labels = score.read_segments(os.path.join(corpus, "labels.jsonl"))
    rows = [m for m in manifest if m["split"] == split and keep(m)]
    if not rows:
        sys.exit(f"{name}: no source files of {split} in {corpus}")
    return rows, labels


class ProbeWriter:
    """Writes a probe corpus's files one at a time: the audio as 24-bit FLAC under DIR/p, its
    manifest record and its labels (the source's segments, with the probe file's path, condition
    and split)."""

    def __init__(self, out):
        os.makedirs(os.path.join(out, "p"), exist_ok=True)
        self.out = out
        self.count = 0
        self._manifest = open(os.path.join(out, "manifest.jsonl"), "w", encoding="utf-8")
        self._labels = open(os.path.join(out, "labels.jsonl"), "w", encoding="utf-8")

    def add(self, y, fs, record, segments):
        """Writes `y` (float, at `fs`) as the next file; `record` is its manifest record without
        the path (its `condition` and `split` go onto every label segment too)."""
        import soundfile as sf  # noqa: E402
        rel = f"p/{self.count:05d}.flac"
        self.count += 1
        sf.write(os.path.join(self.out, rel), np.asarray(y).astype(np.float32), fs, subtype="PCM_24")
        self._manifest.write(json.dumps({"audio_filepath": rel, **record}) + "\n")
        for s in segments:
            self._labels.write(json.dumps(dict(s, audio_filepath=rel, condition=record["condition"],
                                               split=record["split"])) + "\n")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._manifest.close()
        self._labels.close()
        return False
