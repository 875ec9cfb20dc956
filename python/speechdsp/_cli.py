"""The ``dspscore`` console entry point: runs the dspscore executable bundled in the wheel."""

from __future__ import annotations

import os
import pathlib
import sys


def executable() -> pathlib.Path:
    return pathlib.Path(__file__).resolve().parent / "_bin" / "dspscore"


def main() -> None:
    path = executable()
    if not os.access(path, os.X_OK):
        sys.exit(f"dspscore: the bundled executable is missing ({path}); reinstall the speechdsp wheel")
    os.execv(path, ["dspscore", *sys.argv[1:]])


if __name__ == "__main__":
    main()
