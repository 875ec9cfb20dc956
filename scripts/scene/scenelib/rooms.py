"""Simulated rooms (pyroomacoustics image source method) and RIR-derived truth.

A room id 'room:<n>' fixes its geometry, absorption and source/microphone
positions through an RNG seeded by the id, so a room is the same in every
corpus and belongs to one split.
"""
import numpy as np
import pyroomacoustics as pra

from .common import seed_of

N_ROOMS = 40


def room_spec(room_id):
    """Geometry dict of a room: dims (m), target RT60 (s, for Sabine design only), positions."""
    rng = np.random.default_rng(seed_of("room", room_id))
    dims = np.array([rng.uniform(3, 12), rng.uniform(2.5, 9), rng.uniform(2.4, 4.5)])
    rt60 = float(np.exp(rng.uniform(np.log(0.2), np.log(1.5))))
    margin = 0.5
    src = [rng.uniform(margin, d - margin) for d in dims[:2]] + [rng.uniform(1.2, 1.9)]
    mic = [rng.uniform(margin, d - margin) for d in dims[:2]] + [rng.uniform(0.8, 1.6)]
    return {"dims": dims.round(3).tolist(), "design_rt60_s": round(rt60, 3),
            "source": np.round(src, 3).tolist(), "mic": np.round(mic, 3).tolist()}


def rir(room_id, fs):
    """Room impulse response at fs (float64), image source method with Sabine-designed absorption."""
    spec = room_spec(room_id)
    e_abs, max_order = pra.inverse_sabine(spec["design_rt60_s"], spec["dims"])
    room = pra.ShoeBox(spec["dims"], fs=fs, materials=pra.Material(e_abs),
                       max_order=min(max_order, 60), air_absorption=False)
    room.add_source(spec["source"])
    room.add_microphone(spec["mic"])
    room.compute_rir()
    return np.asarray(room.rir[0][0], dtype=np.float64)


def _direct_index(h):
    return int(np.argmax(np.abs(h)))


def c50_db(h, fs):
    """Clarity C50 (dB): energy from the direct sound to 50 ms after it over the energy after.

    t = 0 is the peak of |h| (the direct path); the early window starts 2.5 ms
    before it so the whole fractional-delay direct pulse is counted as early.
    """
    d = _direct_index(h)
    start = max(0, d - int(0.0025 * fs))
    split = d + int(round(0.050 * fs))
    early, late = np.sum(h[start:split] ** 2), np.sum(h[split:] ** 2)
    return float(10 * np.log10(early / late))


def rt60_s(h, fs):
    """RT60 (s) from Schroeder backward integration of h^2 from the direct sound on.

    Energy decay curve EDC(t) = sum_{tau>=t} h^2, in dB re its start.  T30:
    least-squares line through EDC between -5 and -35 dB, RT60 = 60/slope.
    When the EDC does not reach -45 dB (10 dB of headroom below the fit
    range), T20 (-5 to -25 dB) is used instead.  Returns (rt60, method).
    """
    h = h[_direct_index(h):]
    edc = np.cumsum((h ** 2)[::-1])[::-1]
    edc_db = 10 * np.log10(edc / edc[0] + 1e-300)
    lo, method = (-35.0, "T30") if edc_db.min() <= -45.0 else (-25.0, "T20")
    sel = (edc_db <= -5.0) & (edc_db >= lo)
    t = np.nonzero(sel)[0] / fs
    slope, _ = np.polyfit(t, edc_db[sel], 1)
    return float(-60.0 / slope), method
