"""Shared fixtures: the TestAudio files, read with soundfile, and dspscore's records for them.

The records come from the `dspscore` the package installs (the console entry point next to
this interpreter), or $SPEECHDSP_DSPSCORE: an independent wiring of the same library (file
reader, FileScorer) to compare the Python API with.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest
import soundfile

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
TEST_AUDIO = pathlib.Path(os.environ.get("SPEECHDSP_TESTAUDIO", REPOSITORY / "TestAudio"))

# Integer PCM subtypes and their bits: dspscore counts clipping at such a file's own rails.
PCM_BITS = {"PCM_S8": 8, "PCM_U8": 8, "PCM_16": 16, "PCM_24": 24, "PCM_32": 32}


def pytest_sessionstart(session):
    """With $SPEECHDSP_EXPECT_INSTALLED_IN (scripts/test-python.sh: the venv's site-packages),
    the package, its library and dspscore must be the ones installed there, not a checkout's."""
    expected = os.environ.get("SPEECHDSP_EXPECT_INSTALLED_IN")
    if not expected:
        return
    import speechdsp
    from speechdsp import _cli

    root = pathlib.Path(expected).resolve()
    found = {
        "speechdsp": pathlib.Path(speechdsp.__file__).resolve(),
        "its library": speechdsp.library_path().resolve(),
        "the bundled dspscore": _cli.executable().resolve(),
    }
    for what, path in found.items():
        if not path.is_relative_to(root):
            raise pytest.UsageError(f"{what} is {path}, not under {root}")
    if pathlib.Path(dspscore()).parent != pathlib.Path(sys.executable).parent:
        raise pytest.UsageError(f"dspscore is {dspscore()}, not the entry point next to {sys.executable}")


def audio_files() -> list[pathlib.Path]:
    return sorted(p for p in TEST_AUDIO.iterdir() if p.suffix in (".wav", ".flac", ".ogg", ".aiff", ".w64"))


def dspscore() -> str:
    override = os.environ.get("SPEECHDSP_DSPSCORE")
    if override:
        return override
    installed = pathlib.Path(sys.executable).parent / "dspscore"
    if installed.exists():
        return str(installed)
    found = shutil.which("dspscore")
    if not found:
        pytest.fail("dspscore is not installed next to this Python (the wheel's console entry point)")
    return found


class Audio:
    def __init__(self, path: pathlib.Path):
        info = soundfile.info(str(path))
        self.path = path
        self.samples, self.sample_rate = soundfile.read(str(path), dtype="float32", always_2d=True)
        self.channels = self.samples.shape[1]
        self.pcm_bits = PCM_BITS.get(info.subtype)
        self.lossy = info.subtype in ("VORBIS", "OPUS", "MPEG_LAYER_III")

    @property
    def mono(self) -> np.ndarray:
        return self.samples[:, 0] if self.channels == 1 else self.samples


@pytest.fixture(scope="session")
def audio() -> dict[str, Audio]:
    return {p.name: Audio(p) for p in audio_files()}


@pytest.fixture(scope="session")
def records(tmp_path_factory) -> dict[str, dict]:
    """dspscore's JSON Lines record per file name, each with its timeline's speech segments."""
    folder = tmp_path_factory.mktemp("dspscore")
    timeline = folder / "timeline.jsonl"
    paths = [str(p) for p in audio_files()]
    run = subprocess.run(
        [dspscore(), "--format", "jsonl", "--quiet", "--jobs", "2", "--timeline", str(timeline), *paths],
        capture_output=True, text=True, check=True,
    )
    result = {}
    for line in run.stdout.splitlines():
        record = json.loads(line)
        record["speech"] = []
        result[pathlib.Path(record["audio_filepath"]).name] = record
    for line in timeline.read_text().splitlines():
        span = json.loads(line)
        if span.get("speech"):
            speech = result[pathlib.Path(span["audio_filepath"]).name]["speech"]
            if speech and abs(speech[-1][1] - span["start"]) < 1e-9:
                speech[-1] = (speech[-1][0], span["end"])  # one segment cut by a music or speaker change
            else:
                speech.append((span["start"], span["end"]))
    return result
