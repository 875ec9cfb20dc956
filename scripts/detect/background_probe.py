#!/usr/bin/env python3
"""A probe of voice activity over synthetic backgrounds: one split's clean utterances, each mixed
with every synthetic background kind at -5, 0 and +5 dB SNR (issue #23, a diagnostic).

    background_probe.py --corpus .build-detect-full --out DIR [--split val] [--seed 7]

The detection material holds a few files per synthetic background kind and SNR (val: one file of
speech under a 50 Hz hum at -5 dB), too few to tell a weakness from one hard file. This probe takes
the split's clean files of the -35..-6 dBFS level bands and mixes each with every kind of
detectlib.noise.SYNTHETIC (white, pink, brown, hum50, hum60, fan, rain, traffic) at -5, 0 and +5 dB:
the background's power set against the speech's power over the labelled speech (the material's
active level, up to its 250 ms gap rule), the mixture scaled down where it would clip. The labels
are the clean file's. Writes DIR/p/NNNNN.flac (24-bit), DIR/manifest.jsonl (split, condition
speech_noise/<snr>, noise_kind synthetic-<kind>) and DIR/labels.jsonl, a corpus that dspscore,
run_peers_detect.py and `score_detect.py --by-noise-kind` read as they read the material:

    (cd DIR && ls p | sed 's#^#p/#' > files.txt && dspscore score --files-from files.txt \\
        --format jsonl --analyses speech,music,speakers --timeline speechdsp.jsonl > records.jsonl)
    run_peers_detect.py --corpus DIR --split val --out DIR/peers --peers silero,webrtc
    score_detect.py DIR/labels.jsonl SpeechDSP=DIR/speechdsp.jsonl Silero=DIR/peers/silero.jsonl \\
        --root DIR --by-noise-kind

Only val (for choosing) or train; the test split is for the final report and is refused.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
for p in (HERE, os.path.join(HERE, "..", "eval"), os.path.join(HERE, "..", "scene")):
    sys.path.insert(0, p)

import numpy as np  # noqa: E402
import soundfile as sf  # noqa: E402

import probelib  # noqa: E402
from detectlib import conditions, noise  # noqa: E402

BANDS = ("-35..-25dBFS", "-25..-15dBFS", "-15..-6dBFS")
SNRS = (-5, 0, 5)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=".build-detect-full")
    ap.add_argument("--out", required=True)
    ap.add_argument("--split", default="val", choices=("val", "train"))
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    clean, labels = probelib.split_sources(args.corpus, args.split, lambda m: m["class"] == "clean"
                                           and m.get("band") in BANDS, "background_probe")
    rng = np.random.default_rng(args.seed)
    with probelib.ProbeWriter(args.out) as out:
        for m in clean:
            x, fs = sf.read(os.path.join(args.corpus, m["audio_filepath"]), dtype="float64")
            segs = labels[m["audio_filepath"]]
            speech = np.zeros(len(x), dtype=bool)
            for s in segs:
                if s["speech"]:
                    speech[int(s["start"] * fs):int(s["end"] * fs)] = True
            if not speech.any():
                continue
            power = np.mean(x[speech] ** 2)
            for kind in noise.SYNTHETIC:
                for snr in SNRS:
                    bg = noise.synthetic(kind, rng, len(x))
                    y = x + conditions._set_snr(power, bg, snr)   # the material's scaling
                    y *= min(1.0, 0.99 / np.max(np.abs(y)))
                    out.add(y, fs, {"split": args.split, "class": "speech_noise", "condition": f"speech_noise/{snr:+d}dB",
                                    "noise_kind": f"synthetic-{kind}", "snr_db": snr, "clean": m["audio_filepath"]}, segs)
        count = out.count
    print(f"background_probe: {len(clean)} clean files of {args.split}, {count} mixtures in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
