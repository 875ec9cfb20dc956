#!/usr/bin/env python3
"""The peer pipeline for SpeechDSP's front-end benchmark: the same audio, pushed 1024 frames at a
time, through numpy downmix (mean of channels) -> python-soxr HQ streaming resampler to 16 kHz ->
Int16 -> WebRTC VAD (webrtcvad-wheels, mode 2, 30 ms frames). It does less than SpeechDSP's front
end (no levels, loudness, clipping report, music / multi-speaker detection or environment).

Prints one JSON object: x_realtime (audio seconds per CPU second of this process, median pass) =
real-time streams one core sustains, and what was run. Set-up: pip install soxr webrtcvad-wheels numpy.

    python3 scripts/bench-pipeline-peers.py --wav speech.wav [--push 1024] [--repetitions 5]
"""
import argparse
import json
import statistics
import struct
import sys
import time

import numpy as np
import soxr
import webrtcvad


def read_wav(path):
    """Minimal RIFF/WAVE reader: PCM16, PCM24, PCM32 or IEEE float32, any channel count."""
    with open(path, "rb") as f:
        data = f.read()
    if data[0:4] != b"RIFF" or data[8:12] != b"WAVE":
        sys.exit(f"{path}: not a RIFF/WAVE file")
    pos, fmt, payload = 12, None, None
    while pos + 8 <= len(data):
        cid, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        body = data[pos + 8:pos + 8 + size]
        if cid == b"fmt ":
            tag, channels, rate, _, _, bits = struct.unpack("<HHIIHH", body[:16])
            if tag == 0xFFFE:
                tag = struct.unpack("<H", body[24:26])[0]
            fmt = (tag, channels, rate, bits)
        elif cid == b"data":
            payload = body
        pos += 8 + size + (size & 1)
    if fmt is None or payload is None:
        sys.exit(f"{path}: no fmt or data chunk")
    tag, channels, rate, bits = fmt
    if tag == 3 and bits == 32:
        samples = np.frombuffer(payload, dtype="<f4")
    elif tag == 1 and bits == 16:
        samples = np.frombuffer(payload, dtype="<i2").astype(np.float32) / 32768
    elif tag == 1 and bits == 32:
        samples = np.frombuffer(payload, dtype="<i4").astype(np.float32) / 2**31
    elif tag == 1 and bits == 24:
        raw = np.frombuffer(payload, dtype=np.uint8).reshape(-1, 3).astype(np.int32)
        v = raw[:, 0] | (raw[:, 1] << 8) | (raw[:, 2] << 16)
        samples = (np.where(v >= 1 << 23, v - (1 << 24), v)).astype(np.float32) / 2**23
    else:
        sys.exit(f"{path}: unsupported WAV format tag {tag}, {bits} bits")
    frames = len(samples) // channels
    return rate, channels, np.ascontiguousarray(samples[: frames * channels].reshape(frames, channels))


def one_pass(audio, rate, push, vad_mode):
    """Pushes the whole audio once; returns (cpu seconds, output samples, speech frames)."""
    resampler = soxr.ResampleStream(rate, 16000, 1, dtype="float32", quality="HQ")
    vad = webrtcvad.Vad(vad_mode)
    pending = bytearray()
    produced = 0
    speech = 0
    frame_bytes = 480 * 2  # 30 ms at 16 kHz, Int16
    frames = audio.shape[0]
    start = time.process_time()
    for offset in range(0, frames - push + 1, push):
        block = audio[offset:offset + push]
        mono = block.mean(axis=1, dtype=np.float32) if block.shape[1] > 1 else block[:, 0]
        out = resampler.resample_chunk(mono)
        pcm = np.clip(np.rint(out * 32768.0), -32768, 32767).astype("<i2")
        produced += len(pcm)
        pending += pcm.tobytes()
        while len(pending) >= frame_bytes:
            if vad.is_speech(bytes(pending[:frame_bytes]), 16000):
                speech += 1
            del pending[:frame_bytes]
    return time.process_time() - start, produced, speech


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wav", required=True, help="input WAV (PCM or float32)")
    parser.add_argument("--push", type=int, default=1024, help="frames per push (default 1024)")
    parser.add_argument("--repetitions", type=int, default=5, help="timed passes (default 5)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed passes (default 1)")
    parser.add_argument("--vad-mode", type=int, default=2, choices=range(4), help="WebRTC VAD aggressiveness (default 2)")
    args = parser.parse_args()

    rate, channels, audio = read_wav(args.wav)
    pushed = (audio.shape[0] // args.push) * args.push
    seconds = pushed / rate
    for _ in range(args.warmup):
        one_pass(audio, rate, args.push, args.vad_mode)
    times = []
    for _ in range(args.repetitions):
        cpu, produced, speech = one_pass(audio, rate, args.push, args.vad_mode)
        times.append(cpu)
    median = statistics.median(times)
    print(json.dumps({
        "implementation": "python-soxr HQ + webrtcvad (numpy downmix, Int16)",
        "input": args.wav, "sample_rate": rate, "channels": channels, "audio_seconds_per_pass": seconds,
        "push_frames": args.push, "repetitions": args.repetitions, "cpu_seconds_median": median,
        "x_realtime": seconds / median, "x_realtime_best": seconds / min(times),
        "output_samples_per_pass": produced, "vad_speech_frames_per_pass": speech,
        "versions": {"soxr": soxr.__version__, "numpy": np.__version__, "python": sys.version.split()[0]},
    }))


if __name__ == "__main__":
    main()
