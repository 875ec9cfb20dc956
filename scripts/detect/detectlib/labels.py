"""Frame labels at 10 ms: speech, music and the number of simultaneous talkers.

The rule of scripts/eval (docs/evaluation.md, make_corpus.speech_label / music_label), on the
stems as scaled in the final mixture, before codecs, clipping, DC and hum:

  talker  per utterance: the 10 ms frames whose RMS is within 40 dB of the utterance's loudest
          frame and at or above -90 dBFS (and, for recorded utterances, at least 6 dB above the
          recording's own noise floor: see utterance_floor_db); gaps < 250 ms filled, per talker.
  speech  the union over the talkers, gaps < 250 ms filled again. Babble is noise: its talkers
          are not labelled.
  talkers the number of talkers whose (gap-filled) label is true in the frame.
  music   frames of the music stem within 50 dB of its loudest frame and >= -90 dBFS, gaps
          < 500 ms filled.
  multi_speaker  talkers >= 2.

A frame i covers samples [160 i, 160 (i + 1)) at 16 kHz.
"""
import numpy as np

from make_corpus import FLOOR_DB, MUSIC_GAP, SPEECH_GAP, SPEECH_REL_DB, frame_db, merge_gaps, music_label

HOP = 160
FLOOR_MARGIN_DB = 6.0


def utterance_floor_db(x):
    """The noise floor of a recorded utterance: the 5th percentile of its frame levels (dBFS)."""
    db = frame_db(np.asarray(x, dtype=np.float64))
    return float(np.percentile(db, 5)) if len(db) else -np.inf


def talker_label(stem, spans, n):
    """One talker's label: spans are (start sample, end sample, floor dB or None) of its
    utterances as placed in the stem (already scaled). Floors are relative to the utterance
    as placed (callers add the gain)."""
    db = frame_db(stem)
    lab = np.zeros(n, dtype=bool)
    for a, b, floor in spans:
        fa, fb = a // HOP, min(n, -(-b // HOP))
        if fb <= fa:
            continue
        e = db[fa:fb]
        thr = max(e.max() - SPEECH_REL_DB, FLOOR_DB)
        if floor is not None:
            thr = max(thr, floor + FLOOR_MARGIN_DB)
        lab[fa:fb] |= e >= thr
    return merge_gaps(lab, SPEECH_GAP)


def file_labels(talker_labels, music_stem, n):
    """{'speech', 'music', 'talkers', 'multi_speaker'} arrays of n frames."""
    count = np.zeros(n, dtype=np.int16)
    for lab in talker_labels:
        count += lab[:n]
    speech = merge_gaps(count > 0, SPEECH_GAP) if talker_labels else np.zeros(n, dtype=bool)
    music = music_label(music_stem, n) if music_stem is not None else np.zeros(n, dtype=bool)
    return {"speech": speech, "music": music[:n], "talkers": count, "multi_speaker": count >= 2}


def segments(path, condition, lab, n, split):
    """Label segments covering the file, one per run of equal (speech, music, talkers), in the
    timeline format of dspscore --timeline (+ talkers, condition, split)."""
    keys = np.stack([lab["speech"].astype(np.int16), lab["music"].astype(np.int16), lab["talkers"]], axis=1)
    out, start = [], 0
    for i in range(1, n + 1):
        if i == n or not np.array_equal(keys[i], keys[start]):
            sp, mu, tk = (int(v) for v in keys[start])
            out.append({"audio_filepath": path, "start": round(start * 0.01, 2), "end": round(i * 0.01, 2),
                        "speech": bool(sp), "music": bool(mu), "multi_speaker": tk >= 2, "talkers": tk,
                        "condition": condition, "split": split})
            start = i
    return out


__all__ = ["HOP", "MUSIC_GAP", "SPEECH_GAP", "talker_label", "file_labels", "segments", "utterance_floor_db",
           "merge_gaps", "music_label"]


def read_frames(labels_path, split=None):
    """labels.jsonl -> {audio_filepath: {"speech", "music", "talkers", "condition", "split"}} with
    per-10-ms-frame arrays (bool, bool, int16), for training code. `split` keeps one split."""
    import json
    segs = {}
    with open(labels_path, encoding="utf-8") as f:
        for line in f:
            s = json.loads(line)
            if split is None or s["split"] == split:
                segs.setdefault(s["audio_filepath"], []).append(s)
    out = {}
    for path, ss in segs.items():
        n = int(round(ss[-1]["end"] * 100))
        speech, music = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
        talkers = np.zeros(n, dtype=np.int16)
        for s in ss:
            a, b = int(round(s["start"] * 100)), int(round(s["end"] * 100))
            speech[a:b], music[a:b], talkers[a:b] = s["speech"], s["music"], s["talkers"]
        out[path] = {"speech": speech, "music": music, "talkers": talkers,
                     "condition": ss[0]["condition"], "split": ss[0]["split"]}
    return out
