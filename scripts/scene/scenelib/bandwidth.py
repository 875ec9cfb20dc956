"""Band limitation: resampling down and back up, and round trips through codecs.

Each process returns (audio at the container rate, nominal bandwidth in Hz).
The nominal bandwidth is the cut-off the process applies by construction:
half the intermediate sample rate for resampling and the sample-rate codecs
(GSM, AMR-NB 8 kHz -> 4000 Hz; Opus fed at 8/16 kHz -> 4000/8000 Hz)
and lame's explicit --lowpass for MP3.  (Debian's sox decodes but cannot
encode AMR-WB, so it is not used.)
"""
import os
import tempfile

import numpy as np
import soundfile as sf

from .common import read_mono, resample, run

LOWPASS_HZ = [4000, 8000, 11025, 16000, 22050]
CODECS = ["gsm", "amr-nb", "mp3-7k", "mp3-11k", "mp3-15k", "opus-nb", "opus-wb"]


def lowpass(x, fs, cutoff_hz):
    """x resampled to 2*cutoff_hz and back to fs (no change when 2*cutoff >= fs)."""
    mid = int(round(2 * cutoff_hz))
    if mid >= fs:
        return x.copy(), float(min(cutoff_hz, fs / 2))
    return resample(resample(x, fs, mid), mid, fs)[:len(x)], float(cutoff_hz)


def _roundtrip(x, fs, rate_in, encode, decode, suffix):
    """Write x at rate_in as 16-bit WAV, encode, decode, read back at fs."""
    with tempfile.TemporaryDirectory() as tmp:
        src, enc, dec = (os.path.join(tmp, n) for n in ("in.wav", "coded" + suffix, "out.wav"))
        y = np.clip(resample(x, fs, rate_in), -1, 1)
        sf.write(src, y, rate_in, subtype="PCM_16")
        run(encode(src, enc))
        run(decode(enc, dec))
        out, _ = read_mono(dec, fs)
    out = np.pad(out, (0, max(0, len(x) - len(out))))[:len(x)]
    return out


def codec(x, fs, name):
    """x through codec `name` (see CODECS) and back at fs; returns (audio, nominal Hz)."""
    sox_out = lambda a, b: ["sox", a, "-b", "16", b]
    if name == "gsm":
        return _roundtrip(x, fs, 8000, lambda a, b: ["sox", a, "-r", "8000", b], sox_out, ".gsm"), 4000.0
    if name == "amr-nb":
        return _roundtrip(x, fs, 8000, lambda a, b: ["sox", a, "-C", "7", b], sox_out, ".amr-nb"), 4000.0
    if name.startswith("mp3-"):
        khz = int(name[4:-1])
        enc = lambda a, b: ["lame", "--quiet", "-b", "128", "--lowpass", str(khz), "--resample", str(fs / 1000), a, b]
        dec = lambda a, b: ["lame", "--quiet", "--decode", a, b]
        return _roundtrip(x, fs, fs, enc, dec, ".mp3"), float(khz * 1000)
    if name.startswith("opus-"):
        rate, nominal = (8000, 4000.0) if name == "opus-nb" else (16000, 8000.0)
        enc = lambda a, b: ["opusenc", "--quiet", "--bitrate", "16", a, b]
        dec = lambda a, b: ["opusdec", "--quiet", "--rate", "48000", a, b]
        return _roundtrip(x, fs, rate, enc, dec, ".opus"), nominal
    raise ValueError(name)
