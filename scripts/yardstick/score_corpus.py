#!/usr/bin/env python3
"""The Python yardstick for dspscore: per file, read, resample to 16 kHz, levels, loudness, VAD.

A competent pipeline on the usual libraries, written to be fast, not a strawman:

- read:      soundfile (libsndfile), in blocks of 65 536 frames, float32, never the whole file;
- resample:  python-soxr `ResampleStream` (HQ), streaming block by block, mono downmix first;
- levels:    numpy, vectorised per block: RMS and peak dBFS over all samples of all channels,
             DC offset, clipped samples (|x| >= 1.0), non-finite samples;
- loudness:  pyloudnorm `Meter(rate).integrated_loudness` (BS.1770-4 integrated LUFS). Its API
             takes the whole signal, so this is the one stage that holds the file in memory
             (the blocks at the file's own rate are kept and joined at the end): peak memory
             grows with file length here, by design of the library, not of this script;
- VAD:       `--vad webrtc` (default): webrtcvad (webrtcvad-wheels), aggressiveness 2, on 30 ms
             frames of 16 kHz PCM16; `--vad silero`: the Silero VAD ONNX model shipped in the
             silero-vad wheel, run with onnxruntime (1 thread) on 512-sample chunks with the
             64-sample context and the (2, 1, 128) state carried across chunks, as the package's
             `OnnxWrapper` does (no torch). speech_ratio = speech frames / frames.

Writes one JSON line per file, shaped like dspscore's records (`audio_filepath`, `duration`,
`sample_rate`, `channels`, `frames`, `format`, `levels`, `loudness.integrated_lufs`,
`detection.speech_ratio`, `status`, `error`), in input order.

Usage: score_corpus.py [--vad webrtc|silero] [--files-from FILE] [--output FILE] PATH...
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np
import pyloudnorm
import soundfile as sf
import soxr

TARGET_RATE = 16_000
BLOCK_FRAMES = 65_536
AUDIO_EXTENSIONS = {".wav", ".flac", ".ogg", ".aiff", ".aif", ".w64", ".rf64", ".caf", ".au", ".opus", ".mp3"}


def db(power_or_amplitude: float, *, power: bool) -> float | None:
    """dB of a power (10 log10) or amplitude (20 log10); None for 0 (JSON has no -inf)."""
    if power_or_amplitude <= 0 or not math.isfinite(power_or_amplitude):
        return None
    return (10 if power else 20) * math.log10(power_or_amplitude)


class WebRTCVAD:
    """webrtcvad on 30 ms frames (480 samples at 16 kHz) of PCM16, fed in any block sizes."""

    FRAME = 480

    def __init__(self, aggressiveness: int = 2) -> None:
        import webrtcvad

        self.vad = webrtcvad.Vad(aggressiveness)
        self.pending = np.zeros(0, dtype=np.int16)
        self.frames = 0
        self.speech = 0

    def push(self, samples: np.ndarray) -> None:
        pcm = np.clip(np.rint(samples * 32768.0), -32768, 32767).astype(np.int16)
        if self.pending.size:
            pcm = np.concatenate((self.pending, pcm))
        whole = pcm.size - pcm.size % self.FRAME
        data = memoryview(pcm[:whole].tobytes())
        step = 2 * self.FRAME
        is_speech = self.vad.is_speech
        self.speech += sum(is_speech(data[i : i + step], TARGET_RATE) for i in range(0, len(data), step))
        self.frames += whole // self.FRAME
        self.pending = pcm[whole:]

    def ratio(self) -> float | None:
        return self.speech / self.frames if self.frames else None


class SileroVAD:
    """Silero VAD (ONNX, from the silero-vad wheel) on 512-sample chunks at 16 kHz."""

    CHUNK = 512
    CONTEXT = 64
    session = None

    def __init__(self, threshold: float = 0.5) -> None:
        if SileroVAD.session is None:
            import importlib.util

            import onnxruntime

            spec = importlib.util.find_spec("silero_vad")  # the package imports torch; only its data is used
            model = os.path.join(spec.submodule_search_locations[0], "data", "silero_vad.onnx")
            options = onnxruntime.SessionOptions()
            options.inter_op_num_threads = 1
            options.intra_op_num_threads = 1
            SileroVAD.session = onnxruntime.InferenceSession(
                model, providers=["CPUExecutionProvider"], sess_options=options)
        self.threshold = threshold
        self.state = np.zeros((2, 1, 128), dtype=np.float32)
        self.context = np.zeros(self.CONTEXT, dtype=np.float32)
        self.rate = np.array(TARGET_RATE, dtype=np.int64)
        self.pending = np.zeros(0, dtype=np.float32)
        self.frames = 0
        self.speech = 0

    def push(self, samples: np.ndarray) -> None:
        x = np.concatenate((self.pending, samples.astype(np.float32, copy=False))) if self.pending.size else samples
        whole = x.size - x.size % self.CHUNK
        run = self.session.run
        window = np.empty((1, self.CONTEXT + self.CHUNK), dtype=np.float32)
        window[0, : self.CONTEXT] = self.context
        for start in range(0, whole, self.CHUNK):
            window[0, self.CONTEXT :] = x[start : start + self.CHUNK]
            probability, self.state = run(None, {"input": window, "state": self.state, "sr": self.rate})
            self.speech += probability[0, 0] >= self.threshold
            window[0, : self.CONTEXT] = window[0, -self.CONTEXT :]
        self.context = window[0, : self.CONTEXT].copy()
        self.frames += whole // self.CHUNK
        self.pending = np.array(x[whole:], dtype=np.float32)

    def ratio(self) -> float | None:
        return float(self.speech) / self.frames if self.frames else None


_meters: dict[int, pyloudnorm.Meter] = {}


def meter(rate: int) -> pyloudnorm.Meter:
    """One pyloudnorm meter (its filter design) per sample rate, reused across files."""
    if rate not in _meters:
        _meters[rate] = pyloudnorm.Meter(rate)
    return _meters[rate]


def score(path: str, vad_name: str) -> dict:
    record: dict = {"audio_filepath": path, "duration": 0.0, "status": "error"}
    try:
        with sf.SoundFile(path) as f:
            rate, channels, frames = f.samplerate, f.channels, f.frames
            record.update(sample_rate=rate, channels=channels, format=f"{f.format}/{f.subtype}")
            resampler = None if rate == TARGET_RATE else soxr.ResampleStream(rate, TARGET_RATE, 1, dtype="float32", quality="HQ")
            vad = WebRTCVAD() if vad_name == "webrtc" else SileroVAD()
            square_sum = 0.0
            total = 0.0
            peak = 0.0
            clipped = 0
            non_finite = 0
            count = 0
            kept = []  # for pyloudnorm, which takes the whole signal
            downmix = np.full(channels, 1 / channels, dtype=np.float32)
            for block in f.blocks(blocksize=BLOCK_FRAMES, dtype="float32", always_2d=True):
                flat = block.reshape(-1)
                block_square = float(np.dot(flat, flat))  # BLAS sdot: one pass, no temporaries
                if not math.isfinite(block_square):  # NaN/Inf (float files) or overflow: the careful path
                    finite = np.isfinite(flat)
                    non_finite += int(flat.size - np.count_nonzero(finite))
                    block = np.where(finite.reshape(block.shape), block, np.float32(0))
                    flat = block.reshape(-1)
                    wide = flat.astype(np.float64)
                    block_square = float(np.dot(wide, wide))
                square_sum += block_square
                total += float(flat.sum(dtype=np.float64))
                block_peak = max(float(flat.max(initial=0)), -float(flat.min(initial=0)))
                peak = max(peak, block_peak)
                if block_peak >= 1.0:  # counting needs a pass only when something reached full scale
                    clipped += int(np.count_nonzero(flat >= 1.0) + np.count_nonzero(flat <= -1.0))
                count += flat.size
                kept.append(block)
                mono = block[:, 0] if channels == 1 else block @ downmix  # BLAS sgemv
                vad.push(resampler.resample_chunk(mono) if resampler else mono)
            if resampler:
                vad.push(resampler.resample_chunk(np.zeros(0, dtype=np.float32), last=True))
            read_frames = count // channels if channels else 0
            record["frames"] = read_frames
            record["duration"] = read_frames / rate
            mean_square = square_sum / max(count - non_finite, 1)
            record["levels"] = {
                "rms_dbfs": db(mean_square, power=True),
                "peak_dbfs": db(peak, power=False),
                "dc_offset": total / max(count - non_finite, 1),
                "clipped_samples": clipped,
                "non_finite_samples": non_finite,
            }
            signal = np.concatenate(kept) if kept else np.zeros((0, channels), dtype=np.float32)
            del kept
            integrated = None
            if read_frames >= int(0.4 * rate):  # pyloudnorm needs one 400 ms gating block
                with np.errstate(divide="ignore"):
                    value = meter(rate).integrated_loudness(signal)
                integrated = value if math.isfinite(value) else None
            record["loudness"] = {"integrated_lufs": integrated}
            record["detection"] = {"speech_ratio": vad.ratio()}
            record["status"] = "ok"
            if frames != read_frames:
                record["status"] = "error"
                record["error"] = {"kind": "truncated", "message": f"{path}: read {read_frames} of {frames} frames"}
    except Exception as error:  # one record per file, whatever happened
        kind = "not_found" if isinstance(error, FileNotFoundError) else type(error).__name__
        record["error"] = {"kind": kind, "message": f"{path}: {error}"}
    return record


def expand(paths: list[str]) -> list[str]:
    files = []
    for path in paths:
        if os.path.isdir(path):
            found = []
            for root, _, names in os.walk(path):
                found += [os.path.join(root, n) for n in names if os.path.splitext(n)[1].lower() in AUDIO_EXTENSIONS]
            files += sorted(found)
        else:
            files.append(path)
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--vad", choices=["webrtc", "silero"], default="webrtc")
    parser.add_argument("--files-from", help="a file with one path per line")
    parser.add_argument("--output", help="write JSON Lines here (default: stdout)")
    parser.add_argument("--profile", help="write a cProfile report (top 25 by cumulative time) here")
    args = parser.parse_args()
    paths = list(args.paths)
    if args.files_from:
        with open(args.files_from) as listing:
            paths += [line.strip() for line in listing if line.strip()]
    files = expand(paths)
    out = open(args.output, "w") if args.output else sys.stdout
    start = time.perf_counter()
    seconds = 0.0
    failed = 0

    def run() -> None:
        nonlocal seconds, failed
        for path in files:
            record = score(path, args.vad)
            seconds += record["duration"]
            failed += record["status"] != "ok"
            out.write(json.dumps(record, sort_keys=True) + "\n")

    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.runcall(run)
        with open(args.profile, "w") as report:
            pstats.Stats(profiler, stream=report).sort_stats("cumulative").print_stats(25)
    else:
        run()
    out.flush()
    wall = time.perf_counter() - start
    print(json.dumps({
        "event": "done", "files": len(files), "failed": failed, "audio_hours": seconds / 3600,
        "wall_seconds": wall, "audio_hours_per_wall_hour": seconds / wall if wall > 0 else None,
        "vad": args.vad,
    }), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
