"""The `dspscore` console entry point runs the bundled executable."""

from __future__ import annotations

import json
import subprocess

import speechdsp
from conftest import TEST_AUDIO, dspscore


def test_version():
    run = subprocess.run([dspscore(), "--version"], capture_output=True, text=True, check=True)
    assert speechdsp.__version__ in run.stdout


def test_scores_a_file():
    run = subprocess.run([dspscore(), "--format", "jsonl", "--quiet", str(TEST_AUDIO / "silence_16k.wav")],
                         capture_output=True, text=True, check=True)
    record = json.loads(run.stdout)
    assert record["status"] == "ok" and record["sample_rate"] == 16000


def test_exit_code_passed_through(tmp_path):
    run = subprocess.run([dspscore(), "--format", "jsonl", "--quiet", str(tmp_path / "nope.wav")], capture_output=True, text=True)
    assert run.returncode == 1
    assert json.loads(run.stdout)["error"]["kind"] == "not_found"
