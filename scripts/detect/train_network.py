#!/usr/bin/env python3
"""Fit a detection network (SpeechDSP's DetectionNetwork: causal convolutions, one GRU layer,
three heads: music, speech, several talkers) on the detection material's train split, compare it
on val with the shipped per-task models, and export it as DetectionNetwork's JSON (which
`AcousticDetector.Configuration.network` and `dspbench detect --network` take) or as the PyTorch
reference golden of DetectionNetworkTests (issue #23).

    scripts/detect/setup.sh --train
    swift build -c release --product dspbench
    .venv-detect/bin/python scripts/detect/train_network.py --corpus .build-detect-full --work .build-detect-full/network \
        --input lanes [--steps N] [--export network.json]

    # the shipped blend's network (DefaultModels+SpeechBlend.swift; its header has the command):
    .venv-detect/bin/python scripts/detect/train_network.py --corpus .build-detect-full --work .build-detect-full/network \
        --input lanes --steps 1500 --threads 2 --channels 32 --hidden 32 --blend 0.5 \
        --swift Sources/DSPDetection/Models/DefaultModels+SpeechBlend.swift --swift-weight 0.5

    # the golden of DetectionNetworkTests (a small network, 200 steps):
    .venv-detect/bin/python scripts/detect/train_network.py --corpus .build-detect-full --work .build-detect-full/network \
        --input lanes --channels 8 --hidden 8 --steps 200 --threads 1 \
        --reference Tests/DSPDetectionTests/Goldens/network-reference.json

Inputs (--input):
- `lanes` (what the Swift detector can run): the cue and band lanes of `dspbench detect
  --frames` (the shipped Swift code's; every lane but the two probabilities), standardised on
  train, on audible hops only (the silence gate of train_models.py, -70 dBFS): the network steps
  where the detector evaluates its models, as AcousticDetector does with `Configuration.network`.
- `logmel` (a trial; no Swift counterpart): 40 log-mel bands (HTK mel, 60-7600 Hz, power of a
  512-point Hann-windowed FFT, dB) on every 16 ms hop of the file conditioned to 16 kHz mono
  (scipy's polyphase resampler), aligned to the CSV's rows; probabilities zeroed on silent hops.

Labels at hop centres and the shipped models' probabilities are train_models.py's.
Training: random crops of 512 (audible) hops of train files (512 steps: with `--stride S`, 512·S
hops, every S-th), batches of 32, binary
cross-entropy per head (non-speech hops weighted by --speech-negative-weight, several-talker
hops by --multi-positive-weight, a train class's or condition's hops by --class-weights), AdamW with a one-cycle
learning rate, STEPS steps, fixed
seeds; a checkpoint every 100 steps (--work), from which an interrupted run resumes. `--startup
DIR,...` adds train streams cut mid-file (startup_probe.py --split train) to the train files: such
a stream is shorter than a crop, so its crop starts at its first frame, where the cues have a
short history, as at a real stream's start. `--teachers CKPT,... --distill D` fits the network to
fitted ones as well as to the labels: each head's target is (1 - D) x label + D x the teachers'
mean probability on the same crop (a network of one size that depends less on one seed's draw).
Val: whole files; probabilities smoothed and segmented as the detector does (fit_models.smooth, Segmenter);
the speech segmenter is the best on val of the detector's default and fit_models'
SPEECH_SEGMENT_GRID (which holds the shipped one), for both systems alike; 10 ms frame F1 by
score.py's rule; timelines written for score_detect.py. `--blend W,...` also scores the speech
probability (1 - W) x shipped + W x network (music and several talkers the shipped models'),
each with its own best segmenter, and writes its timeline. Test is never read.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
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
    def __init__(self, channels=64, hidden=48, inputs=BANDS, decibels=True):
        super().__init__()
        self.decibels = decibels
        self.conv1 = torch.nn.Conv1d(inputs, channels, 5)
        self.conv2 = torch.nn.Conv1d(channels, channels, 3)
        self.gru = torch.nn.GRU(channels, hidden, batch_first=True)
        self.out = torch.nn.Linear(hidden, 3)

    def forward(self, x):  # x: (batch, time, inputs): bands in dB, or standardised lanes
        z = ((x + 60) / 30 if self.decibels else x).transpose(1, 2)
        z = torch.relu(self.conv1(torch.nn.functional.pad(z, (4, 0))))
        z = torch.relu(self.conv2(torch.nn.functional.pad(z, (2, 0))))
        h, _ = self.gru(z.transpose(1, 2))
        return self.out(h)


def parameter_count(net):
    return sum(p.numel() for p in net.parameters())


def net_multiply_adds(net):
    """Multiply-adds per step (DetectionNetwork.multiplyAdds)."""
    c1, c2, g = net.conv1, net.conv2, net.gru
    return (c1.weight.numel() + c2.weight.numel() + 3 * g.hidden_size * (g.input_size + g.hidden_size)
            + net.out.weight.numel())


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


# The Swift outputs' order (DetectionNetwork.Output: music, speech, multi) as rows of the
# network's heads (speech, music, multi).
SWIFT_ROWS = [1, 0, 2]
# The TestAudio file whose frames the reference golden holds, and how many of its audible frames.
REFERENCE_AUDIO = "TestAudio/speech_overlap_16k.wav"
REFERENCE_FRAMES = 96


def network_fields(net, lanes, mean, scale):
    """The network as DetectionNetwork's fields (its Codable JSON): PyTorch's layout reordered as
    the type documents it (convolution weights [out][in][k] -> [out][k][in], output rows in
    Swift's order)."""
    def values(t):
        return [float(f"{v:.9g}") for v in np.ravel(t.detach().numpy() if hasattr(t, "detach") else t)]
    g = net.gru
    return {
        "inputLanes": [int(i) for i in lanes],
        "inputMean": values(np.asarray(mean, np.float32)),
        "inputScale": values(np.asarray(scale, np.float32)),
        "convolutions": [{"width": c.kernel_size[0], "outputCount": c.out_channels,
                          "weights": values(c.weight.detach().numpy().transpose(0, 2, 1)), "bias": values(c.bias)}
                         for c in (net.conv1, net.conv2)],
        "hiddenCount": g.hidden_size,
        "recurrentInputWeights": values(g.weight_ih_l0), "recurrentInputBias": values(g.bias_ih_l0),
        "recurrence": {"weights": values(g.weight_hh_l0), "bias": values(g.bias_hh_l0)},
        "outputWeights": values(net.out.weight.detach().numpy()[SWIFT_ROWS]),
        "outputBias": values(net.out.bias.detach().numpy()[SWIFT_ROWS]),
    }


def write_reference(net, lanes, mean, scale, dspbench, path, command):
    """The golden DetectionNetworkTests holds the Swift network to: the network (its
    DetectionNetwork fields), REFERENCE_FRAMES audible frames of REFERENCE_AUDIO's cue vectors
    (`dspbench detect --frames`, all lanes, as the CSV prints them) and PyTorch's probabilities for
    them from a fresh stream (Swift order)."""
    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, "frames.csv")
        subprocess.run([dspbench, "detect", "--in", REFERENCE_AUDIO, "--frames", csv, "--repeats", "1", "--no-speech-blend"],
                       check=True, stdout=subprocess.DEVNULL)
        c = fm.read_frames(csv)
    audible = np.nan_to_num(c["level_dbfs"], nan=-200) >= fm.SILENCE_DBFS
    full = tm.matrix(c)[audible][:REFERENCE_FRAMES].astype(np.float32)
    z = ((full[:, lanes].astype(np.float64) - mean) / scale).astype(np.float32)
    with torch.no_grad():
        p = torch.sigmoid(net(torch.from_numpy(z)[None]))[0].numpy()[:, SWIFT_ROWS]
    with open(path, "w") as f:
        json.dump({"made_by": command, "torch": torch.__version__, "audio": REFERENCE_AUDIO,
                   "network": network_fields(net, lanes, mean, scale),
                   "lanes": [[float(f"{v:.9g}") for v in row] for row in full],
                   "probabilities": [[float(f"{v:.9g}") for v in row] for row in p]}, f)
        f.write("\n")


def swift_source(fields, weight, stride):
    """`DefaultModels.speechBlendNetwork` and `DefaultModels.speechBlend` as Swift (the
    DetectionNetwork fields of network_fields, each value as its shortest exact text)."""
    def floats(values):
        return "[" + ", ".join(repr(float(v)) for v in values) + "]"
    lanes = fields["inputLanes"]
    convs = ",\n".join(
        f"            .init(width: {c['width']}, outputCount: {c['outputCount']},\n"
        f"                  weights: {floats(c['weights'])},\n"
        f"                  bias: {floats(c['bias'])})" for c in fields["convolutions"])
    return (
        "\nextension DefaultModels {\n"
        f"    /// The network of ``speechBlend``: causal convolutions "
        f"{', '.join(str(c['width']) + ' x ' + str(c['outputCount']) for c in fields['convolutions'])}, "
        f"a GRU of {fields['hiddenCount']} units, over {len(lanes)} ``CueLane`` lanes.\n"
        "    public static let speechBlendNetwork = DetectionNetwork(\n"
        f"        inputLanes: {lanes},\n"
        f"        inputMean: {floats(fields['inputMean'])},\n"
        f"        inputScale: {floats(fields['inputScale'])},\n"
        f"        convolutions: [\n{convs}],\n"
        f"        hiddenCount: {fields['hiddenCount']},\n"
        f"        recurrentInputWeights: {floats(fields['recurrentInputWeights'])},\n"
        f"        recurrentInputBias: {floats(fields['recurrentInputBias'])},\n"
        f"        recurrence: GatedRecurrence(\n"
        f"            weights: {floats(fields['recurrence']['weights'])},\n"
        f"            bias: {floats(fields['recurrence']['bias'])}),\n"
        f"        outputWeights: {floats(fields['outputWeights'])},\n"
        f"        outputBias: {floats(fields['outputBias'])})\n\n"
        f"    /// Voice activity from the speech model and ``speechBlendNetwork``, the network's share {weight:g}"
        + (f", stepped on one audible frame in {stride}" if stride > 1 else "") + "\n"
        "    /// (the default of ``AcousticDetector/Configuration-swift.struct/speechBlend``; `docs/detection.md`, Fitting and Results).\n"
        f"    public static let speechBlend = SpeechBlend(network: speechBlendNetwork, weight: {weight!r}"
        + (f", evaluationStride: {stride}" if stride > 1 else "") + ")\n"
        "}\n")


def load_teacher(path, inputs):
    """A fitted network from its checkpoint (its width and hidden size read off its weights), in
    eval mode: a teacher for --teachers."""
    state = torch.load(path)["net"]
    net = Net(state["conv1.weight"].shape[0], state["gru.weight_hh_l0"].shape[1], inputs, decibels=False)
    net.load_state_dict(state)
    net.eval()
    return net


class Average(torch.nn.Module):
    """Fitted networks averaged in probability (--average): their mean probability, as logits."""
    def __init__(self, members):
        super().__init__()
        self.members = torch.nn.ModuleList(members)

    def forward(self, x):
        p = torch.stack([torch.sigmoid(m(x)) for m in self.members]).mean(0)
        return torch.logit(p.clamp(1e-7, 1 - 1e-7))


def file_weight(c, class_weights):
    """A train file's loss weight: its full condition's (e.g. music_only/midi-solo) if named, else
    its class's (the condition's first part), else 1."""
    full = c["label_segments"][0]["condition"] if c.get("label_segments") else c["condition"]
    return class_weights.get(full, class_weights.get(c["condition"], 1.0))


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
    ap.add_argument("--speech-negative-weight", type=float, default=1.0, help="loss weight of non-speech hops")
    ap.add_argument("--multi-positive-weight", type=float, default=1.0, help="loss weight of several-talker hops")
    ap.add_argument("--class-weights", default="",
                    help="comma-separated CLASS=W or CLASS/CONDITION=W: the loss weight of every hop of the train files "
                    "of a class (the file's condition's first part, as train_models.py's --class-weights) or of one "
                    "condition (e.g. music_only/midi-solo; a condition's weight wins over its class's), 1 elsewhere")
    ap.add_argument("--export", help="write the network here as DetectionNetwork's JSON (--input lanes)")
    ap.add_argument("--reference", help="write the PyTorch reference golden of DetectionNetworkTests here")
    ap.add_argument("--swift", help="write the network here as DefaultModels.speechBlend's Swift source (--input lanes), "
                    "blended at --swift-weight")
    ap.add_argument("--swift-weight", type=float, default=0.5, help="the network's share in the generated SpeechBlend")
    ap.add_argument("--blend", default="", help="comma-separated weights w: also score the speech probability "
                    "(1 - w) x shipped + w x network, music and several talkers the shipped models'")
    ap.add_argument("--stride", type=int, default=1,
                    help="step the network on one audible frame in STRIDE (the first included), its outputs held "
                    "in between, as SpeechBlend.evaluationStride does (--input lanes)")
    ap.add_argument("--input", choices=("logmel", "lanes"), default="logmel",
                    help="log-mel bands of every hop, or the detector's cue and band lanes of its audible hops")
    ap.add_argument("--teachers", metavar="CKPT,...",
                    help="distil: checkpoints (net-*.pt of this script, --input lanes, the same train lanes) whose "
                    "mean probability on each crop is blended into every head's target (--distill)")
    ap.add_argument("--distill", type=float, default=0.5,
                    help="with --teachers, each head's target is (1 - D) x label + D x the teachers' mean probability")
    ap.add_argument("--average", action="store_true",
                    help="no fit: replay on val the mean probability of --teachers (what averaging them would give; "
                    "writes its results and timelines, never --swift, --export or --reference)")
    ap.add_argument("--startup", metavar="DIR,...",
                    help="also train on the train streams cut mid-file in these folders (startup_probe.py --split "
                    "train --out DIR, as train_models.py --startup reads them; --input lanes): a crop of such a "
                    "stream starts at the stream's first frame, where the detector's cues have a short history")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    os.makedirs(args.work, exist_ok=True)
    data, _ = tm.load(args.corpus, args.dspbench, ("train", "val"), reuse=True)
    startup_dirs = [d for d in (args.startup or "").split(",") if d]
    if startup_dirs and args.input != "lanes":
        sys.exit("train_network: --startup takes --input lanes")
    # Cut streams, keyed startup<n>:path, split train; a cut keeps its source's condition in its
    # labels, so --class-weights of a condition (e.g. music_only/midi-solo) weight its cuts too.
    data.update(tm.load_startup(startup_dirs, args.dspbench, True))
    train = sorted(r for r, c in data.items() if c["split"] == "train")
    val = sorted(r for r, c in data.items() if c["split"] == "val")
    if args.input == "lanes":
        # The shipped detector's own inputs (its cue and band lanes, every lane but the two
        # probabilities and the stream's age, lane 85, which came after the networks and which
        # train_models.py reads only with --lanes bands-age), standardised on train, on audible
        # frames only: the network steps only where the detector evaluates its models.
        lanes = list(range(tm.MUSIC_PROBABILITY)) + list(range(tm.SPEECH_PROBABILITY + 1, tm.STREAM_SECONDS))
        keeps = {rel: np.flatnonzero(data[rel]["audible"]) for rel in train + val}
        mats = {rel: tm.matrix(data[rel])[keeps[rel]][:, lanes].astype(np.float64) for rel in train + val}
        allx = np.vstack([mats[r] for r in train])
        mean, scale = allx.mean(0), allx.std(0) + 1e-6
        feats = {rel: ((m - mean) / scale).astype(np.float32) for rel, m in mats.items()}
        inputs = len(lanes)
    else:
        cache = os.path.join(args.work, "features.npz")
        feats = dict(np.load(cache)) if os.path.exists(cache) else {}
        offset = int(feats.pop("__offset", 0))
        if not set(train + val) <= set(feats):
            offset = best_offset(args.corpus, data, train)
            start = time.time()
            feats = {rel: features(args.corpus, rel, data[rel], offset) for rel in train + val}
            print(f"log-mel of {len(feats)} files: {time.time() - start:.0f} s", file=sys.stderr)
            np.savez(cache, __offset=np.array(offset), **feats)
        print(f"window offset {offset} samples", file=sys.stderr)
        keeps = {rel: np.arange(len(data[rel]["time"])) for rel in train + val}
        inputs = BANDS

    if args.stride != 1 and (args.input != "lanes" or not 1 <= args.stride <= 16):
        sys.exit("train_network: --stride takes 1 to 16, with --input lanes")
    stride = args.stride
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    net = Net(args.channels, args.hidden, inputs, decibels=args.input == "logmel")
    print(f"parameters: {parameter_count(net)}", file=sys.stderr)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=args.steps)
    tag = f"{args.input}-c{args.channels}-h{args.hidden}-s{args.seed}-n{args.speech_negative_weight:g}-m{args.multi_positive_weight:g}-t{args.steps}"
    if stride > 1:
        tag += f"-r{stride}"
    class_weights = {k: float(v) for k, v in (p.split("=") for p in args.class_weights.split(",") if p)}
    if class_weights:
        tag += "-w" + "_".join(f"{k.replace('/', '+')}{v:g}" for k, v in sorted(class_weights.items()))
    if startup_dirs:
        tag += "-u" + "_".join(os.path.basename(os.path.normpath(d)) for d in startup_dirs)
    teacher_paths = [t for t in (args.teachers or "").split(",") if t]
    if args.average and (not teacher_paths or args.swift or args.export or args.reference):
        sys.exit("train_network: --average takes --teachers and none of --swift, --export, --reference")
    if teacher_paths and (args.input != "lanes" or not 0 < args.distill <= 1):
        sys.exit("train_network: --teachers takes --input lanes and --distill in (0, 1]")
    teachers = [load_teacher(t, inputs) for t in teacher_paths]
    if args.average:
        tag = f"average-k{len(teachers)}-r{stride}"
        net, args.steps = Average(teachers), 0
    elif teachers:
        tag += f"-d{args.distill:g}-k{len(teachers)}"
    ckpt = os.path.join(args.work, f"net-{tag}.pt")
    step = 0
    if os.path.exists(ckpt) and not args.average:
        state = torch.load(ckpt)
        net.load_state_dict(state["net"]); opt.load_state_dict(state["opt"]); sched.load_state_dict(state["sched"])
        step = state["step"]
        rng = np.random.default_rng(args.seed + step)
    weights = np.array([max(1, len(keeps[r])) for r in train], dtype=float)
    weights /= weights.sum()
    start = time.time()
    while step < args.steps:
        xs, ys, ms = [], [], []
        for rel in rng.choice(train, size=BATCH, p=weights):
            c, f, keep = data[rel], feats[rel], keeps[rel]
            n = len(f)
            # CROP steps: with a stride, CROP·stride frames from a stepped one, every stride-th.
            a = int(rng.integers(0, max(1, n - CROP * stride)))
            a -= a % stride
            b = min(n, a + CROP * stride)
            length = (b - a + stride - 1) // stride
            x = np.full((CROP, inputs), -100.0 if args.input == "logmel" else 0.0, np.float32)
            y = np.zeros((CROP, 3), np.float32)
            m = np.zeros((CROP, 3), np.float32)
            x[:length] = f[a:b:stride]
            k = keep[a:b:stride]
            y[:length] = np.stack([c["y_speech"][k], c["y_music"][k], c["y_multi"][k]], axis=1)
            aud = c["audible"][k].astype(np.float32)
            m[:length] = aud[:, None] * file_weight(c, class_weights)
            xs.append(x); ys.append(y); ms.append(m)
        x, y, m = (torch.from_numpy(np.stack(v)) for v in (xs, ys, ms))
        # The class weights of speech and several-talker hops read the labels, not the soft targets.
        hard = y
        if teachers:
            with torch.no_grad():
                soft = torch.stack([torch.sigmoid(t(x)) for t in teachers]).mean(0)
            y = (1 - args.distill) * hard + args.distill * soft
        logits = net(x)
        w = m.clone()
        w[:, :, 0] *= torch.where(hard[:, :, 0] > 0, 1.0, args.speech_negative_weight)
        w[:, :, 2] *= torch.where(hard[:, :, 2] > 0, args.multi_positive_weight, 1.0)
        loss = (torch.nn.functional.binary_cross_entropy_with_logits(logits, y, reduction="none") * w).sum() / m.sum().clamp(min=1)
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
            p = np.zeros((len(c["time"]), 3))
            if len(keeps[rel]):
                stepped = torch.sigmoid(net(torch.from_numpy(feats[rel][::stride])[None]))[0].numpy()
                # Held between steps: audible frame i reads step i // stride.
                p[keeps[rel]] = np.repeat(stepped, stride, axis=0)[:len(keeps[rel])]
            p = np.where(c["audible"][:, None], p, 0.0)
            c["q_speech"] = fm.smooth(p[:, 0], fm.SMOOTHING["speech"])
            c["q_music"] = fm.smooth(p[:, 1], fm.SMOOTHING["music"])
            c["q_multi"] = fm.smooth(p[:, 2], fm.SMOOTHING["multi"])
    grid = [fm.SEGMENTS["speech"]] + fm.SPEECH_SEGMENT_GRID
    systems = [("shipped", "p_speech"), (args.input, "q_speech")]
    for w in (float(v) for v in args.blend.split(",") if v):
        for rel in val:
            c = data[rel]
            c[f"b{w:g}_speech"] = (1 - w) * c["p_speech"] + w * c["q_speech"]
        systems.append((f"blend{w:g}", f"b{w:g}_speech"))
    for name, column in systems:
        best = max(grid, key=lambda g: tm.speech_f1(data, val, column, g))
        results[name] = {"vad_f1_best_segmenter": tm.speech_f1(data, val, column, best), "segmenter": best,
                         "vad_f1_default_segmenter": tm.speech_f1(data, val, column, fm.SEGMENTS["speech"])}
        timeline = os.path.join(args.work, f"val-{name}.jsonl" if name == "shipped" else
                                f"val-{tag}.jsonl" if name == args.input else f"val-{tag}-{name}.jsonl")
        with open(timeline, "w") as out:
            for rel in val:
                c = data[rel]
                duration = score.n_frames(max(s["end"] for s in c["label_segments"])) * score.FRAME
                music = c["q_music"] if name == args.input else c["p_music"]
                multi = c["q_multi"] if name == args.input else c["p_multi"]
                lists = {"speech": fm.segment(c, c[column], best),
                         "music": fm.segment(c, music, fm.SEGMENTS["music"]),
                         "multi_speaker": fm.segment(c, multi, fm.SEGMENTS["multi"])}
                for s in fm.timeline(rel, duration, lists):
                    out.write(json.dumps(s) + "\n")
        results[name]["timeline"] = timeline
    print(json.dumps(results, indent=1, default=str))
    if args.export or args.reference or args.swift:
        if args.input != "lanes":
            sys.exit("train_network: --export, --reference and --swift take --input lanes (the detector's own inputs)")
        net.eval()
    command = " ".join(["scripts/detect/train_network.py"] + [a for a in sys.argv[1:]])
    if args.reference:
        write_reference(net, lanes, mean, scale, args.dspbench, args.reference, command)
        print(f"wrote {args.reference}", file=sys.stderr)
    if args.export:
        manifest = json.load(open(os.path.join(args.corpus, "manifest.json")))
        fields = network_fields(net, lanes, mean, scale)
        fields["provenance"] = {
            "command": command, "torch": torch.__version__, "parameters": parameter_count(net),
            "multiply_adds": net_multiply_adds(net), "generator_version": manifest["generator_version"],
            "seed": manifest["seed"], "audio_sha256": manifest["audio_sha256"][:16],
            "train_files": len(train), "val_files": len(val),
            "val_speech_f1": results[args.input]["vad_f1_best_segmenter"],
            "val_speech_segmenter": results[args.input]["segmenter"]}
        with open(args.export, "w") as f:
            json.dump(fields, f)
            f.write("\n")
        print(f"wrote {args.export}", file=sys.stderr)
    if args.swift:
        blend = f"blend{args.swift_weight:g}"
        if blend not in results:
            sys.exit(f"train_network: --swift-weight {args.swift_weight:g} needs --blend {args.swift_weight:g} (its val figure)")
        manifest = json.load(open(os.path.join(args.corpus, "manifest.json")))
        options = " ".join(a for a in sys.argv[1:] if a not in ("--swift", args.swift) and not a.startswith("--swift="))
        options = " ".join(o for o in options.replace("--corpus " + args.corpus, "").split())
        header = tm.provenance(args.corpus, manifest, [__file__, tm.__file__, fm.__file__], train, val, [
            *([f"distilled ({args.distill:g}) from the checkpoints " + ", ".join(os.path.basename(t) for t in teacher_paths)
               + " (each made by this script in the --work folders its command names);"] if teachers else []),
            f"seed {args.seed}, torch {torch.__version__}, {args.steps} steps, {parameter_count(net)} parameters, "
            f"{net_multiply_adds(net)} multiply-adds per step, stepped on one audible frame in {stride};",
            f"val (replayed): the network alone VAD F1 {100 * results[args.input]['vad_f1_best_segmenter']:.2f}, "
            f"the shipped models {100 * results['shipped']['vad_f1_best_segmenter']:.2f}, "
            f"blended at {args.swift_weight:g} {100 * results[blend]['vad_f1_best_segmenter']:.2f} "
            f"(segmenter {tuple(results[blend]['segmenter'])})"],
            setup="scripts/detect/setup.sh --train", options=options, startup=tm.startup_commands(startup_dirs))
        header = header.replace("--swift Sources/DSPDetection/Models/DefaultModels.swift", f"--swift {args.swift}")
        with open(args.swift, "w") as f:
            f.write(header + swift_source(network_fields(net, lanes, mean, scale), args.swift_weight, stride))
        print(f"wrote {args.swift}", file=sys.stderr)
    with open(os.path.join(args.work, f"results-{tag}.json"), "w") as f:
        json.dump(results, f, indent=1, default=str)


if __name__ == "__main__":
    main()
