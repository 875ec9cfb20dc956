#!/usr/bin/env bash
# The Python package as a user gets it: builds the wheel (scripts/build-wheel.sh), installs it in
# a fresh venv with python/requirements-test.txt, checks that `import speechdsp` is the installed
# copy, runs the README's Python quick start and the dspscore entry point, then pytest over
# python/tests (the NumPy API against dspscore's records for the same files).
#   scripts/test-python.sh
set -euo pipefail
cd "$(dirname "$0")/.."
repository=$PWD
scripts/build-wheel.sh
version=$(sed -n -E 's/^version = "([^"]+)".*/\1/p' python/pyproject.toml)
wheel=$(ls .build-wheel/dist/speechdsp-"$version"-py3-none-*.whl)
venv=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$venv" "$work"' EXIT
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet -r python/requirements-test.txt "$wheel"

# Installed, not the source tree: run from a directory without python/ on the path.
cd "$work"
"$venv/bin/python" - <<'PY'
import pathlib, speechdsp
where = pathlib.Path(speechdsp.__file__).resolve()
assert "site-packages" in where.parts, where
print(f"speechdsp {speechdsp.__version__} from {where.parent}; library {speechdsp.library_path()}")
PY
"$venv/bin/dspscore" --version

# The README's Python quick start, verbatim (the block after <!-- python-quick-start -->), from
# the repository root as the README runs it.
python3 - "$repository/README.md" > "$work/quick_start.py" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
tail = text.split("<!-- python-quick-start -->", 1)[1]
print(re.search(r"```python\n(.*?)```", tail, re.S).group(1))
PY
(cd "$repository" && "$venv/bin/python" "$work/quick_start.py")
(cd "$repository" && "$venv/bin/dspscore" --quiet TestAudio/speech_en-us_48k.flac)

"$venv/bin/python" -m pytest -q -p no:cacheprovider --rootdir "$repository/python/tests" "$repository/python/tests"
