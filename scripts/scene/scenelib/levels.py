"""Level, activity and bandwidth measures used for the corpus truth.

All levels are dBFS = 10*log10(mean square) with full scale 1.0, so a
full-scale sine is -3.01 dBFS.
"""
import numpy as np
import scipy.signal as ss

FLOOR = 1e-30
ANALYSIS_FS = 16000
LOW_EDGE_HZ = 20.0


def analysis_band(x, fs):
    """x in the analysis band, 20 Hz to 8 kHz: resampled to 16 kHz (scipy polyphase, Kaiser
    beta 8.6: flat to about 7.6 kHz), then everything below 20 Hz (DC and sub-audio drift)
    removed by zeroing those FFT bins of the whole track. The levels of the truth are measured
    here, in the band the recognizer and SpeechDSP's analysis chain hear, so a white noise at
    48 kHz is not counted with the two thirds of its power above 8 kHz, nor a 1/f noise with
    the sub-audio power below 20 Hz that no 64 ms analysis frame resolves."""
    x = np.asarray(x, dtype=np.float64)
    if fs != ANALYSIS_FS:
        g = np.gcd(int(fs), ANALYSIS_FS)
        x = ss.resample_poly(x, ANALYSIS_FS // g, int(fs) // g, window=("kaiser", 8.6))
    if not len(x):
        return x
    spectrum = np.fft.rfft(x)
    spectrum[np.fft.rfftfreq(len(x), 1.0 / ANALYSIS_FS) < LOW_EDGE_HZ] = 0
    return np.fft.irfft(spectrum, len(x))


def dbfs(x):
    """Mean-square level of x in dBFS, or None for an all-zero signal."""
    ms = float(np.mean(np.square(x, dtype=np.float64))) if len(x) else 0.0
    return None if ms <= 0.0 else 10.0 * np.log10(ms)


def block_dbfs(x, fs, block_s=0.5):
    """dBFS of consecutive blocks of block_s seconds ([k*b, (k+1)*b)); None for a zero block."""
    n = int(round(block_s * fs))
    return [dbfs(x[i:i + n]) for i in range(0, len(x) - n + 1, n)]


def p56_active_level(x, fs, time_constant=0.03, hangover=0.2, margin_db=15.9):
    """Active speech level (dBFS) and activity factor, ITU-T P.56 method B.

    Envelope: two cascaded first-order smoothers of |x| with time constant
    0.03 s (g = exp(-1/(fs*0.03))).  For each threshold c_j = 2**-j
    (j = 0..30, i.e. 0 to -180 dB in 6.02 dB steps) a sample is active when
    the envelope is >= c_j or fell below it at most 0.2 s earlier (hangover).
    A_j = 10*log10(sum x^2 / n_active_j) is the level of the active part and
    C_j = 20*log10(c_j).  The active level is A at the point where
    A_j - C_j = 15.9 dB, linearly interpolated between the two thresholds
    that bracket it (searching from the loudest threshold down, as sv56 does).
    Returns (level_dbfs, activity) or (None, 0.0) for a silent signal.
    """
    x = np.asarray(x, dtype=np.float64)
    energy = float(np.sum(x * x))
    if energy <= 0.0:
        return None, 0.0
    g = np.exp(-1.0 / (fs * time_constant))
    p = ss.lfilter([1.0 - g], [1.0, -g], np.abs(x))
    q = ss.lfilter([1.0 - g], [1.0, -g], p)
    hang = int(round(hangover * fs))
    idx = np.arange(len(q))
    a_db, c_db, counts = [], [], []
    for j in range(31):
        c = 2.0 ** -j
        above = q >= c
        last = np.maximum.accumulate(np.where(above, idx, -hang - 1))
        n_active = int(np.count_nonzero(idx - last <= hang))
        counts.append(n_active)
        a_db.append(10.0 * np.log10(energy / n_active) if n_active else np.inf)
        c_db.append(20.0 * np.log10(c))
    diff = np.array(a_db) - np.array(c_db)
    # From the loudest threshold down: the first threshold where A - C >= margin.
    for j in range(1, 31):
        if counts[j - 1] and diff[j - 1] < margin_db <= diff[j]:
            frac = (margin_db - diff[j - 1]) / (diff[j] - diff[j - 1])
            level = a_db[j - 1] + frac * (a_db[j] - a_db[j - 1])
            activity = energy / len(x) / 10.0 ** (level / 10.0)
            return float(level), float(activity)
    level = 10.0 * np.log10(energy / len(x))
    return float(level), 1.0


def active_segments(x, fs, frame_s=0.01, rel_db=-40.0, min_pause_s=0.1, abs_floor_db=-90.0):
    """Speech segments [(start_s, end_s)] of a clean speech track.

    A 10 ms frame is active when its dBFS is above max(frame dBFS) + rel_db
    (-40 dB) and above abs_floor_db.  Pauses shorter than min_pause_s (0.1 s)
    between active frames are bridged, so a segment ends only at a pause of
    at least 0.1 s.
    """
    n = int(round(frame_s * fs))
    frames = len(x) // n
    if frames == 0:
        return []
    ms = np.mean(np.square(x[:frames * n].reshape(frames, n)), axis=1)
    lev = 10.0 * np.log10(ms + FLOOR)
    act = lev > max(lev.max() + rel_db, abs_floor_db)
    segs, start, gap = [], None, 0
    min_gap = int(round(min_pause_s / frame_s))
    for i, a in enumerate(act):
        if a:
            if start is None:
                start = i
            gap, end = 0, i + 1
        elif start is not None:
            gap += 1
            if gap >= min_gap:
                segs.append((start * frame_s, end * frame_s))
                start = None
    if start is not None:
        segs.append((start * frame_s, end * frame_s))
    return segs


def speech_seconds(x, fs):
    """Total speech time (s): sum of active_segments()."""
    return float(sum(e - s for s, e in active_segments(x, fs)))


def measured_bandwidth(x, fs, drop_db=50.0):
    """Effective bandwidth (Hz) from the long-term spectrum.

    Welch PSD (Hann, 4096-point at 44.1/48 kHz scaled with fs, 50% overlap)
    in dB, smoothed over 9 bins; reference = 90th percentile of the
    300-3400 Hz band; the bandwidth is the highest frequency whose smoothed
    PSD is within drop_db (50 dB) of the reference.
    """
    nper = 1 << int(np.ceil(np.log2(fs / 11.0)))
    f, p = ss.welch(x, fs, nperseg=min(nper, len(x)))
    pdb = 10.0 * np.log10(np.convolve(p, np.ones(9) / 9.0, mode="same") + FLOOR)
    ref = np.percentile(pdb[(f >= 300) & (f <= 3400)], 90)
    above = np.nonzero(pdb >= ref - drop_db)[0]
    return float(f[above[-1]]) if len(above) else 0.0


def bandwidth_class(hz):
    """Class name of a bandwidth in Hz: narrowband <=4k, wideband <=8k, super_wideband <=16k, else fullband."""
    if hz <= 4000 * 1.05:
        return "narrowband"
    if hz <= 8000 * 1.05:
        return "wideband"
    if hz <= 16000 * 1.05:
        return "super_wideband"
    return "fullband"
