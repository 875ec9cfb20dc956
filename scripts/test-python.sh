#!/usr/bin/env bash
# The Python package as a user gets it (issue #21), CI's Python step:
#   1. builds the wheel (scripts/build-wheel.sh: release, no FFTW, static Swift runtime);
#   2. installs it into a fresh venv with python/requirements-test.txt (pinned: pip downloads
#      them or takes them from its cache; nothing downloads while the tests run);
#   3. runs python/tests (pytest) against the installed package: from a scratch folder, so
#      neither the checkout nor python/ is on sys.path (the pytest script does not add the
#      working directory; pytest's default import mode adds only python/tests, for conftest.py),
#      and conftest.py fails the session unless `speechdsp`, its library and `dspscore` are the
#      venv's (SPEECHDSP_EXPECT_INSTALLED_IN);
#   4. runs the README's "Quick start (Python)" blocks as written, into a second fresh venv
#      (`.venv` replaced by a scratch path; pip held to the same pins by PIP_CONSTRAINT), and
#      compares the Python example's output with the README's;
#   5. runs the `dspscore` entry point on TestAudio/: one ok record per audio file;
#   6. runs the evaluation scorers' unit tests (scripts/eval/test_score.py,
#      scripts/detect/test_score_detect.py, test_crossval_models.py, test_startup_probe.py and
#      test_false_alarms_by_time.py:
#      numpy only, which the venv has), since the published detection and evaluation figures are
#      counted by them.
#
#   scripts/test-python.sh
#
# Time, `time scripts/test-python.sh` on the shared 2-core machine (other builds running, load
# 1.2-4.6), from a clean .build-wheel and an empty pip cache (PIP_CACHE_DIR=$(mktemp -d)):
# 2 min 16 s and 3 min 8 s in two worktrees. In the slower run: building the wheel 2 min 14 s (libSpeechDSPC.so 51 s, dspscore 72 s), the test venv 11 s,
# pytest 2 s, the quick start 29 s (its build-wheel.sh, incremental, 19 s; its venv 10 s), the
# rest (dspscore on TestAudio, removing the venvs) 11 s; 56-71 s with .build-wheel built.
set -euo pipefail
cd "$(dirname "$0")/.."
repository=$PWD
start=$(date +%s)
step() { echo "--- $1 ($(( $(date +%s) - start )) s)"; }
export PIP_DISABLE_PIP_VERSION_CHECK=1

step "build the wheel"
wheel=$(scripts/build-wheel.sh | tail -1)
echo "$wheel: $(du -h "$wheel" | cut -f1)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step "a fresh venv: the wheel and the pinned test requirements"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet "$wheel" -r python/requirements-test.txt
site=$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')

step "pytest python/tests against the installed package"
(cd "$work" && SPEECHDSP_EXPECT_INSTALLED_IN="$site" PYTHONDONTWRITEBYTECODE=1 \
    "$work/venv/bin/pytest" -p no:cacheprovider -q "$repository/python/tests")

step "the README's Python quick start, as written"
# The fenced block after each `<!-- python-quick-start: KIND -->` marker (sh, python, output).
block() {
    python3 - "$1" <<'EOF'
import re, sys
text = open("README.md", encoding="utf-8").read()
blocks = re.findall(r"<!-- python-quick-start: " + re.escape(sys.argv[1]) + r" -->\s*```[a-z]*\n(.*?)```", text, re.S)
if len(blocks) != 1:
    sys.exit(f"README.md: {len(blocks)} '<!-- python-quick-start: {sys.argv[1]} -->' blocks, expected 1")
print(blocks[0], end="")
EOF
}
commands=$(block sh)
example=$(block python)
expected=$(block output)
grep -q '\.venv' <<< "$commands" || { echo "the quick start's commands no longer name .venv"; exit 1; }
PIP_CONSTRAINT="$repository/python/requirements-test.txt" bash -euo pipefail -c "${commands//.venv/$work/quickstart}"
got=$(cd "$repository" && "$work/quickstart/bin/python" -c "$example")
if [ "$got" != "$expected" ]; then
    echo "the README's Python example prints:"; echo "$got"; echo "the README says:"; echo "$expected"; exit 1
fi
echo "$got"

step "the dspscore entry point on TestAudio/"
"$work/venv/bin/dspscore" --format jsonl --quiet TestAudio > "$work/score.jsonl"
audio_files=$(ls TestAudio | grep -v -c -E '\.(md|txt|jsonl)$')
test "$(wc -l < "$work/score.jsonl")" -eq "$audio_files"
! grep -q '"status":"error"' "$work/score.jsonl"
echo "$audio_files records, all ok"

step "the evaluation scorers' unit tests"
(cd "$work" && PYTHONDONTWRITEBYTECODE=1 "$work/venv/bin/python" -m pytest -p no:cacheprovider -q \
    "$repository/scripts/eval/test_score.py" "$repository/scripts/detect/test_score_detect.py" \
    "$repository/scripts/detect/test_crossval_models.py" "$repository/scripts/detect/test_startup_probe.py" \
    "$repository/scripts/detect/test_false_alarms_by_time.py")

step "done"
