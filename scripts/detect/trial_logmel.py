#!/usr/bin/env python3
"""A trial, on val only: a small learned model over log-mel bands (causal convolutions + one GRU
layer, three heads: speech, music, several talkers) against the shipped detector's models, on
the detection material's train and val splits (issue #23). Not shipped; it tells whether the
issue's suggested model class moves val beyond what the cue-lane models reach.

    scripts/detect/setup.sh --train
    swift build -c release --product dspbench
    .venv-detect/bin/python scripts/detect/trial_logmel.py --corpus .build-detect-full --work .build-detect-full/trial

Inputs: 40 log-mel bands (HTK mel, 60-7600 Hz, power of a 512-point Hann-windowed FFT, dB) on
the detector's 16 ms hops of the file conditioned to 16 kHz mono (scipy's polyphase resampler
here, not the front end's: a trial), aligned to `dspbench detect --frames`'s rows, whose
silence gate (`audible`, -70 dBFS), labels at hop centres and probabilities of the shipped models
are train_models.py's. The network steps on every hop; its probabilities are zeroed on silent
hops as the detector's are.

Training: random 8.2 s crops (512 hops) of train files, batches of 32, AdamW with a one-cycle
learning rate, STEPS steps, fixed seeds; a checkpoint every 100 steps (--work), from which an
interrupted run resumes. Val: whole files; speech probabilities smoothed and segmented as the
detector does (fit_models.smooth, Segmenter), the best on val of the detector's default
segmenter and fit_models' SPEECH_SEGMENT_GRID (which holds the shipped one), for both systems alike; 10 ms frame F1 by score.py's rule; music
F1 at 0.5 on the smoothed probability; timelines written for score_detect.py. Test is never read.
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import soundfile
import torch
from scipy import signal

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import train_models as tm  # noqa: E402
import fit_models as fm  # noqa: E402
import score  # noqa: E402

RATE = 16000
HOP = 256
WINDOW = 512
BANDS = 40
CROP = 512
BATCH = 32


def mel_matrix(bands=BANDS, low=60.0, high=7600.0, n_fft=WINDOW, rate=RATE):
    def mel(f):
        return 2595 * np.log10(1 + f / 700)

    def hz(m):
        return 700 * (10 ** (m / 2595) - 1)

    edges = hz(np.linspace(mel(low), mel(high), bands + 2))
    freqs = np.arange(n_fft // 2 + 1) * rate / n_fft
    m = np.zeros((bands, len(freqs)), dtype=np.float32)
    for b in range(bands):
        lo, mid, hi = edges[b], edges[b + 1], edges[b + 2]
        up = (freqs - lo) / (mid - lo)
        down = (hi - freqs) / (hi - mid)
        m[b] = np.clip(np.minimum(up, down), 0, None)
    return m


MEL = mel_matrix()
HANN = np.hanning(WINDOW + 1)[:-1].astype(np.float32)


def mono16k(path):
    x, rate = soundfile.read(path, dtype="float32", always_2d=True)
    x = x.mean(axis=1)
    if rate != RATE:
        g = np.gcd(rate, RATE)
        x = signal.resample_poly(x, RATE // g, rate // g).astype(np.float32)
    return x


def frames(x, count, offset):
    """count windows of WINDOW samples; window i starts at i*HOP + offset (zeros outside the file)."""
    pad = WINDOW + abs(offset) + HOP
    y = np.concatenate([np.zeros(pad, np.float32), x, np.zeros(pad + count * HOP, np.float32)])
    starts = pad + np.arange(count) * HOP + offset
    return y[starts[:, None] + np.arange(WINDOW)[None, :]]


def logmel(x, count, offset):
    """count hops' log-mel bands (dB)."""
    power = np.abs(np.fft.rfft(frames(x, count, offset) * HANN, axis=1)) ** 2 / WINDOW
    return (10 * np.log10(power @ MEL.T + 1e-10)).astype(np.float32)


def features(corpus, rel, c, offset):
    x = mono16k(os.path.join(corpus, rel))
    return logmel(x, len(c["time"]), offset)


class Net(torch.nn.Module):
    def __init__(self, channels=64, hidden=48):
        super().__init__()
        self.conv1 = torch.nn.Conv1d(BANDS, channels, 5)
        self.conv2 = torch.nn.Conv1d(channels, channels, 3)
        self.gru = torch.nn.GRU(channels, hidden, batch_first=True)
        self.out = torch.nn.Linear(hidden, 3)

    def forward(self, x):  # x: (batch, time, bands), dB
        z = ((x + 60) / 30).transpose(1, 2)
        z = torch.relu(self.conv1(torch.nn.functional.pad(z, (4, 0))))
        z = torch.relu(self.conv2(torch.nn.functional.pad(z, (2, 0))))
        h, _ = self.gru(z.transpose(1, 2))
        return self.out(h)


def parameter_count(net):
    return sum(p.numel() for p in net.parameters())


def best_offset(corpus, data, files):
    """The window offset whose frame levels best follow the CSV's level_dbfs (alignment check)."""
    scores = {}
    for offset in (-1024, -768, -512, -256, 0):
        r = []
        for rel in files[:20]:
            c = data[rel]
            x = mono16k(os.path.join(corpus, rel))
            e = 10 * np.log10(np.mean(frames(x, len(c["time"]), offset) ** 2, axis=1) + 1e-12)
            ok = np.isfinite(c["level_dbfs"])
            if ok.sum() > 10:
                r.append(np.corrcoef(e[ok], c["level_dbfs"][ok])[0, 1])
        scores[offset] = float(np.mean(r))
    print(f"alignment (correlation with level_dbfs by window offset): {scores}", file=sys.stderr)
    return max(scores, key=scores.get)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--dspbench", default=".build/release/dspbench")
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--channels", type=int, default=64)
    ap.add_argument("--hidden", type=int, default=48)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    os.makedirs(args.work, exist_ok=True)
    data, _ = tm.load(args.corpus, args.dspbench, ("train", "val"), reuse=True)
    train = sorted(r for r, c in data.items() if c["split"] == "train")
    val = sorted(r for r, c in data.items() if c["split"] == "val")
    cache = os.path.join(args.work, "features.npz")
    if os.path.exists(cache):
        feats = dict(np.load(cache))
        offset = int(feats.pop("__offset"))
    else:
        offset = best_offset(args.corpus, data, train)
        start = time.time()
        feats = {rel: features(args.corpus, rel, data[rel], offset) for rel in train + val}
        print(f"log-mel of {len(feats)} files: {time.time() - start:.0f} s", file=sys.stderr)
        np.savez(cache, __offset=np.array(offset), **feats)
    print(f"window offset {offset} samples", file=sys.stderr)

    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    net = Net(args.channels, args.hidden)
    print(f"parameters: {parameter_count(net)}", file=sys.stderr)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=args.steps)
    ckpt = os.path.join(args.work, f"net-c{args.channels}-h{args.hidden}-s{args.seed}.pt")
    step = 0
    if os.path.exists(ckpt):
        state = torch.load(ckpt)
        net.load_state_dict(state["net"]); opt.load_state_dict(state["opt"]); sched.load_state_dict(state["sched"])
        step = state["step"]
        rng = np.random.default_rng(args.seed + step)
    weights = np.array([len(data[r]["time"]) for r in train], dtype=float)
    weights /= weights.sum()
    start = time.time()
    while step < args.steps:
        xs, ys, ms = [], [], []
        for rel in rng.choice(train, size=BATCH, p=weights):
            c, f = data[rel], feats[rel]
            n = len(f)
            a = int(rng.integers(0, max(1, n - CROP)))
            b = min(n, a + CROP)
            x = np.full((CROP, BANDS), -100.0, np.float32)
            y = np.zeros((CROP, 3), np.float32)
            m = np.zeros((CROP, 3), np.float32)
            x[: b - a] = f[a:b]
            y[: b - a] = np.stack([c["y_speech"][a:b], c["y_music"][a:b], c["y_multi"][a:b]], axis=1)
            aud = c["audible"][a:b].astype(np.float32)
            m[: b - a] = aud[:, None]
            xs.append(x); ys.append(y); ms.append(m)
        x, y, m = (torch.from_numpy(np.stack(v)) for v in (xs, ys, ms))
        logits = net(x)
        loss = (torch.nn.functional.binary_cross_entropy_with_logits(logits, y, reduction="none") * m).sum() / m.sum().clamp(min=1)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        opt.step(); sched.step()
        step += 1
        if step % 100 == 0 or step == args.steps:
            torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "step": step}, ckpt)
            print(f"step {step}: loss {loss.item():.4f} ({time.time() - start:.0f} s)", file=sys.stderr)

    # Val: whole files.
    net.eval()
    results = {}
    with torch.no_grad():
        for rel in val:
            c = data[rel]
            p = torch.sigmoid(net(torch.from_numpy(feats[rel])[None]))[0].numpy()
            p = np.where(c["audible"][:, None], p, 0.0)
            c["q_speech"] = fm.smooth(p[:, 0], fm.SMOOTHING["speech"])
            c["q_music"] = fm.smooth(p[:, 1], fm.SMOOTHING["music"])
            c["q_multi"] = fm.smooth(p[:, 2], fm.SMOOTHING["multi"])
    grid = [fm.SEGMENTS["speech"]] + fm.SPEECH_SEGMENT_GRID
    for name, column in (("shipped", "p_speech"), ("logmel", "q_speech")):
        best = max(grid, key=lambda g: tm.speech_f1(data, val, column, g))
        results[name] = {"vad_f1_best_segmenter": tm.speech_f1(data, val, column, best), "segmenter": best,
                         "vad_f1_default_segmenter": tm.speech_f1(data, val, column, fm.SEGMENTS["speech"])}
        timeline = os.path.join(args.work, f"val-{name}.jsonl")
        with open(timeline, "w") as out:
            for rel in val:
                c = data[rel]
                duration = score.n_frames(max(s["end"] for s in c["label_segments"])) * score.FRAME
                music = c["p_music"] if name == "shipped" else c["q_music"]
                multi = c["p_multi"] if name == "shipped" else c["q_multi"]
                lists = {"speech": fm.segment(c, c[column], best),
                         "music": fm.segment(c, music, fm.SEGMENTS["music"]),
                         "multi_speaker": fm.segment(c, multi, fm.SEGMENTS["multi"])}
                for s in fm.timeline(rel, duration, lists):
                    out.write(json.dumps(s) + "\n")
        results[name]["timeline"] = timeline
    print(json.dumps(results, indent=1, default=str))
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump(results, f, indent=1, default=str)


if __name__ == "__main__":
    main()
