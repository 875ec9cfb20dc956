#!/usr/bin/env bash
# Builds the Python wheel, dist/speechdsp-<version>-py3-none-linux_x86_64.whl: the package of
# python/speechdsp with
#   speechdsp/_lib/libSpeechDSPC.so  the C ABI (Sources/CSpeechDSP/include/speechdsp.h), loaded by ctypes;
#   speechdsp/_bin/dspscore          the scoring CLI, run by the `dspscore` console script;
# both release builds without FFTW (--disable-default-traits: no GPL code in the wheel) and with
# the Swift runtime linked statically (-static-stdlib), stripped. The library exports the C ABI
# only (python/libSpeechDSPC.map). The script fails when a binary needs anything beyond libc,
# libm, libstdc++, libgcc_s, zlib and libsndfile (dspscore only), when the library exports a
# symbol the header does not declare or lacks one it does, or when the versions differ.
#
# The tag is py3-none-linux_x86_64, not manylinux: dspscore needs the system's libsndfile, which
# no manylinux policy allows, and the binaries are built against this machine's glibc
# (`auditwheel show` on the wheel says so; scripts/test-python.sh).
#
# Swift's own build directory is .build-wheel (the flags differ from .build's, which stays as it
# is); the package is staged in a temporary folder; pip builds the wheel there with the
# build backend pinned in python/pyproject.toml (setuptools, downloaded by pip into an isolated
# environment) from a throwaway venv. Needs python3 with venv (Debian: python3-venv) and network
# access to PyPI for that backend.
#
#   scripts/build-wheel.sh [--out DIR]      (default: dist/); the wheel's path is the last line of stdout
#
# Time on the shared 2-core machine (load 1.2-4.6; the "---" lines of scripts/test-python.sh):
# 1 min 38 s and 2 min 14 s from a clean .build-wheel in two worktrees (libSpeechDSPC.so 44 / 51 s,
# dspscore 44 / 72 s, strip, checks and pip wheel 10 / 11 s), 15-22 s when it is built (SwiftPM relinks dspscore; pip wheel 6-9 s).
set -euo pipefail
cd "$(dirname "$0")/.."
out=dist
while [ $# -gt 0 ]; do
    case $1 in
        --out) out=$2; shift 2 ;;
        *) echo "usage: $0 [--out DIR]" >&2; exit 2 ;;
    esac
done
start=$(date +%s)
step() { echo "--- $1 ($(( $(date +%s) - start )) s)" >&2; }

# --- the two binaries
scratch=.build-wheel
flags=(-c release --disable-default-traits --scratch-path "$scratch" -Xswiftc -static-stdlib -Xlinker --exclude-libs=ALL)
step "swift build: libSpeechDSPC.so"
swift build "${flags[@]}" --product SpeechDSPC -Xlinker --version-script="$PWD/python/libSpeechDSPC.map" >&2
step "swift build: dspscore"
swift build "${flags[@]}" --product dspscore >&2
bin=$(swift build "${flags[@]}" --show-bin-path)

# --- the staged package
step "stage"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp -r python/speechdsp python/pyproject.toml python/setup.py python/README.md LICENSE "$stage/"
find "$stage" -name __pycache__ -prune -exec rm -rf {} +
rm -rf "$stage/speechdsp/_lib" "$stage/speechdsp/_bin"
mkdir "$stage/speechdsp/_lib" "$stage/speechdsp/_bin"
library="$stage/speechdsp/_lib/libSpeechDSPC.so"
dspscore="$stage/speechdsp/_bin/dspscore"
strip --strip-unneeded -o "$library" "$bin/libSpeechDSPC.so"
strip -o "$dspscore" "$bin/dspscore"
chmod 755 "$library" "$dspscore"

# --- checks
fail() { echo "build-wheel: $*" >&2; exit 1; }
# Each binary's direct dependencies (readelf) must be in this list; ldd must find them all and
# resolve nothing from the Swift toolchain, Foundation or FFTW.
allowed='^(libc\.so\.6|libm\.so\.6|libstdc\+\+\.so\.6|libgcc_s\.so\.1|ld-linux-x86-64\.so\.2|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libz\.so\.1|libsndfile\.so\.1)$'
for file in "$library" "$dspscore"; do
    name=${file#"$stage/"}
    needed=$(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    echo "$name needs: $(echo $needed)" >&2
    for lib in $needed; do
        [[ $lib =~ $allowed ]] || fail "$name needs $lib (allowed: libc, libm, libstdc++, libgcc_s, zlib, libsndfile)"
    done
    ldd "$file" | sed 's/^/    /' >&2
    ! ldd "$file" | grep -i -E 'not found|swift|foundation|fftw|dispatch|BlocksRuntime' || fail "$name: see ldd above"
done
readelf -d "$library" | grep -q 'NEEDED.*sndfile' && fail "libSpeechDSPC.so links libsndfile (it should not: no DSPIO)"
# Exported symbols (defined, global or weak) = the functions speechdsp.h declares.
exported=$(nm -D --defined-only "$library" | awk '$2 ~ /^[A-Z]$/ {print $3}' | sort)
declared=$(grep -oE '^[a-z_0-9 ]+[ *]sdsp_[a-z0-9_]+\(' Sources/CSpeechDSP/include/speechdsp.h | grep -oE 'sdsp_[a-z0-9_]+\($' | tr -d '(' | sort -u)
[ "$exported" = "$declared" ] || fail "libSpeechDSPC.so's exports differ from speechdsp.h's functions: $(diff <(echo "$declared") <(echo "$exported") | grep '^[<>]' | tr '\n' ' ')"
echo "libSpeechDSPC.so exports $(echo "$exported" | wc -l) symbols, all declared in speechdsp.h" >&2
# One version everywhere: pyproject.toml, the library, dspscore.
version=$(sed -n 's/^version = "\(.*\)"/\1/p' python/pyproject.toml)
cli_version=$("$dspscore" --version)
[[ $cli_version == "dspscore (SpeechDSP $version,"* ]] || fail "pyproject.toml says $version, dspscore --version says '$cli_version'"
library_version=$(python3 -c 'import ctypes, sys; lib = ctypes.CDLL(sys.argv[1]); lib.sdsp_version.restype = ctypes.c_char_p; print(lib.sdsp_version().decode())' "$library")
[ "$library_version" = "$version" ] || fail "pyproject.toml says $version, the library $library_version"

# --- the wheel
step "pip wheel"
python3 -m venv "$stage/.venv"
mkdir -p "$out"
rm -f "$out/speechdsp-$version-"*.whl
# Zip timestamps from the commit, so the same commit gives the same archive.
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s) \
    "$stage/.venv/bin/python" -m pip wheel --quiet --disable-pip-version-check --no-deps --wheel-dir "$out" "$stage" >&2
wheel=$(ls "$out/speechdsp-$version-"*.whl)
[[ $wheel == *-py3-none-linux_x86_64.whl ]] || fail "unexpected wheel name $wheel"
python3 - "$wheel" <<'EOF' >&2
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    modes = {i.filename: i.external_attr >> 16 for i in wheel.infolist()}
for path in ("speechdsp/_lib/libSpeechDSPC.so", "speechdsp/_bin/dspscore"):
    if path not in modes:
        sys.exit(f"build-wheel: {path} is not in the wheel")
if not modes["speechdsp/_bin/dspscore"] & 0o111:
    sys.exit("build-wheel: speechdsp/_bin/dspscore is not executable in the wheel")
EOF
step "done: $(du -h "$wheel" | cut -f1)"
echo "$wheel"
