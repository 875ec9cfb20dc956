"""to_int16 / to_float against the exactly specified conversion (DSPCore's SampleFormatPolicy):
Int16(clamp(x × 32768, −32768, 32767)), ties to even, in float32; NaN → 0, ±Inf → the rails."""

from __future__ import annotations

import csv
import pathlib

import numpy as np
import pytest

import speechdsp

GOLDENS = pathlib.Path(__file__).resolve().parents[2] / "Tests" / "DSPCoreTests" / "Goldens" / "int16-conversion.csv"
LSB = np.float32(1 / 32768)


def oracle(x: np.ndarray) -> np.ndarray:
    """The policy in NumPy: the product is exact in float32, np.rint rounds half to even."""
    x = np.asarray(x, dtype=np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        y = np.rint(x * np.float32(32768))
    y = np.where(np.isnan(y), 0, y)
    return np.clip(y, -32768, 32767).astype(np.int16)


EDGES = [
    (1.0, 32767),
    (-1.0, -32768),
    (float("nan"), 0),
    (float("inf"), 32767),
    (float("-inf"), -32768),
    (-0.0, 0),
    (1e-45, 0),  # the smallest denormal
    (-1e-40, 0),
    (0.5 * LSB, 0),  # ties to even
    (1.5 * LSB, 2),
    (2.5 * LSB, 2),
    (-0.5 * LSB, 0),
    (-1.5 * LSB, -2),
    (-2.5 * LSB, -2),
    (32766.5 * LSB, 32766),
    (32767.5 * LSB, 32767),  # rounds to 32768, clamped
    (-32767.5 * LSB, -32768),
    (-32768.5 * LSB, -32768),
    (1e20, 32767),
    (-1e20, -32768),
]


@pytest.mark.parametrize("x, expected", EDGES)
def test_edge_values(x, expected):
    assert speechdsp.to_int16(np.array([x], dtype=np.float32))[0] == expected


def test_edge_table_reports_clipped_and_nan():
    x = np.array([e[0] for e in EDGES], dtype=np.float32)
    pcm, clipped, nans = speechdsp.to_int16(x, report=True)
    assert pcm.tolist() == [e[1] for e in EDGES]
    # Clipped: x × 32768 outside −32768…32767 — +1.0 is, −1.0 is not; ±Inf are.
    scaled = x.astype(np.float64) * 32768
    assert clipped == int(np.sum((scaled > 32767) | (scaled < -32768)))
    assert clipped == 7  # +1, ±Inf, 32767.5 and −32768.5 LSB, ±1e20
    assert nans == 1


def test_repository_goldens_bit_exact():
    """The committed numpy-made goldens (scripts/make-conversion-goldens.py), through Python."""
    rows = [r for r in csv.reader(line for line in GOLDENS.read_text().splitlines() if not line.startswith("#"))][1:]
    bits = np.array([int(r[0], 16) for r in rows], dtype=np.uint32)
    x = bits.view(np.float32)
    assert speechdsp.to_int16(x).tolist() == [int(r[2]) for r in rows]


def test_random_and_ties_against_oracle():
    rng = np.random.default_rng(21)
    x = np.concatenate([
        rng.uniform(-1.2, 1.2, 100_000).astype(np.float32),
        (rng.integers(-40000, 40000, 50_000) + 0.5).astype(np.float32) * LSB,  # every one a tie
        rng.standard_normal(10_000).astype(np.float32) * 1e-6,
    ])
    assert np.array_equal(speechdsp.to_int16(x), oracle(x))


def test_shape_kept_and_float64_converted():
    x = np.linspace(-1, 1, 20).reshape(10, 2)  # float64: converted to float32 first
    pcm = speechdsp.to_int16(x)
    assert pcm.shape == (10, 2) and pcm.dtype == np.int16
    assert np.array_equal(pcm, oracle(x.astype(np.float32)))
    assert speechdsp.to_int16(np.zeros(0, dtype=np.float32)).size == 0


def test_round_trip_every_int16():
    every = np.arange(-32768, 32768, dtype=np.int16)
    x = speechdsp.to_float(every)
    assert x.dtype == np.float32
    assert np.array_equal(x, every.astype(np.float32) / 32768)
    assert np.array_equal(speechdsp.to_int16(x), every)


def test_refuses_integer_input():
    with pytest.raises(TypeError, match="to_float"):
        speechdsp.to_int16(np.array([1, 2], dtype=np.int16))
    with pytest.raises(TypeError, match="int16"):
        speechdsp.to_float(np.array([0.5], dtype=np.float32))
