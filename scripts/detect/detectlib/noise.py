"""Background noises: synthetic, recorded ambiences, sequences of recorded effects, babble.

Every maker returns (unit-free float64 track of n samples, [source ids], kind).
Synthetic noises come from scripts/scene (white, pink, brown, hum50, hum60, fan) and
scripts/eval (rain, traffic); their source id is 'synthetic:<kind>' (generated per file:
no split needed, recorded as 'any').
"""
import numpy as np

import make_corpus  # scripts/eval: rain, traffic
from scenelib import noise as scene_noise
from scenelib.common import loop_to

from . import sources
from .speech import Talker, track

FS = sources.FS
SYNTHETIC = ["white", "pink", "brown", "hum50", "hum60", "fan", "rain", "traffic"]


def synthetic(kind, rng, n):
    if kind in ("rain", "traffic"):
        return make_corpus.noise(kind, n, rng)
    return scene_noise.synthetic(kind, rng, n, FS)


def ambience(entry, rng, n):
    x = np.array(sources.load(entry["path"]))
    x = x - np.mean(x)
    return loop_to(x, n, rng)


def effects(pool, rng, n, rate_per_s=(0.2, 1.2)):
    """Recorded effects placed at random times (Poisson), each at its own level (0 to -20 dB
    re the loudest). Returns (track, ids)."""
    out = np.zeros(n)
    ids = []
    k = max(1, int(rng.poisson(rng.uniform(*rate_per_s) * n / FS)))
    for _ in range(k):
        e = pool[int(rng.integers(len(pool)))]
        x = np.array(sources.load(e["path"]))
        x = x - np.mean(x)
        peak = np.max(np.abs(x))
        if peak <= 0:
            continue
        x = x / peak * 10 ** (-rng.uniform(0, 20) / 20)
        if len(x) > n:
            s = int(rng.integers(0, len(x) - n + 1))
            x = x[s:s + n]
        pos = int(rng.integers(-len(x) // 2, n - len(x) // 2))
        a, b = max(0, pos), min(n, pos + len(x))
        out[a:b] += x[a - pos:b - pos]
        ids.append(e["id"])
    return out, sorted(set(ids))


def babble(voices, rng, n, k=None):
    """k (4-8) babble talkers, continuous speech, each at equal active level."""
    k = k or int(rng.integers(4, 9))
    out = np.zeros(n)
    ids = []
    for i in range(k):
        v = voices[int(rng.integers(len(voices)))]
        t = Talker(v, rng)
        x, spans, _ = track(t, rng, n, int(rng.uniform(0, 0.5) * FS), gap_s=(0.02, 0.25))
        if not spans:
            continue
        act = np.concatenate([x[a:b] for a, b, _ in spans])
        out += x / (np.sqrt(np.mean(act ** 2)) + 1e-12)
        ids.append(t.source_id)
    return out, sorted(set(ids))


def background(rng, n, pools, kinds=None):
    """A background for a file of the split whose pools are given:
    pools = {"ambience": [...], "effect": [...], "babble": [voices]}. kinds restricts the draw.
    Returns (track, ids, kind)."""
    choices = kinds or ["synthetic", "ambience", "effects", "ambience+effects", "babble"]
    choices = [c for c in choices if (c != "babble" or pools["babble"]) and
               (c not in ("ambience", "ambience+effects") or pools["ambience"]) and
               (c not in ("effects", "ambience+effects") or pools["effect"])]
    kind = choices[int(rng.integers(len(choices)))]
    if kind == "synthetic":
        s = SYNTHETIC[int(rng.integers(len(SYNTHETIC)))]
        return synthetic(s, rng, n), [f"synthetic:{s}"], f"synthetic-{s}"
    if kind == "ambience":
        e = pools["ambience"][int(rng.integers(len(pools["ambience"])))]
        return ambience(e, rng, n), [e["id"]], "ambience"
    if kind == "effects":
        x, ids = effects(pools["effect"], rng, n)
        floor = synthetic("pink", rng, n)
        x = x + floor / np.sqrt(np.mean(floor ** 2)) * np.sqrt(np.mean(x ** 2) + 1e-20) * 10 ** (-rng.uniform(20, 40) / 20)
        return x, ids + ["synthetic:pink"], "effects"
    if kind == "ambience+effects":
        e = pools["ambience"][int(rng.integers(len(pools["ambience"])))]
        amb = ambience(e, rng, n)
        x, ids = effects(pools["effect"], rng, n)
        amb *= np.sqrt(np.mean(x ** 2) + 1e-20) / (np.sqrt(np.mean(amb ** 2)) + 1e-20) * 10 ** (-rng.uniform(0, 15) / 20)
        return x + amb, sorted(set(ids + [e["id"]])), "ambience+effects"
    x, ids = babble(pools["babble"], rng, n)
    return x, ids, "babble"
