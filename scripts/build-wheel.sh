#!/usr/bin/env bash
# Builds the speechdsp Python wheel (py3-none-linux_<arch>) into .build-wheel/dist/:
#   scripts/build-wheel.sh
# The native parts are built here, release, without FFTW (--disable-default-traits: the built-in
# FFT, so nothing GPL is inside) and with the Swift runtime and Foundation linked statically, so
# the wheel needs no Swift toolchain on the target: libSpeechDSPC.so (the C ABI; only its sdsp_*
# functions exported, every static library's symbols hidden) and dspscore. They depend only on
# the system's libsndfile (LGPL, dynamic), zlib and the C/C++ runtime; the script checks that.
# The wheel itself is made by pip from python/ (setuptools, pinned in python/pyproject.toml).
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=.build-wheel
dist=$scratch/dist
version=$(sed -n -E 's/.*static let current = "([^"]+)".*/\1/p' Sources/DSPCore/SpeechDSPVersion.swift)
grep -q "^version = \"$version\"" python/pyproject.toml \
    || { echo "build-wheel.sh: python/pyproject.toml's version is not the library's ($version)" >&2; exit 1; }

exports=$(mktemp)
stage=$(mktemp -d)
trap 'rm -rf "$exports" "$stage"' EXIT
printf '{\n  global: sdsp_*;\n  local: *;\n};\n' > "$exports"
common=(-c release --disable-default-traits --scratch-path "$scratch" --static-swift-stdlib -Xswiftc -static-stdlib)
swift build "${common[@]}" --product SpeechDSPC -Xlinker --exclude-libs=ALL -Xlinker "--version-script=$exports"
swift build "${common[@]}" --product dspscore
bin=$(swift build "${common[@]}" --show-bin-path)

# What the native files may need from the target system.
for file in "$bin/libSpeechDSPC.so" "$bin/dspscore"; do
    needed=$(readelf -d "$file" | sed -n -E 's/.*\(NEEDED\).*\[(.*)\]/\1/p')
    for library in $needed; do
        case $library in
            libsndfile.so.*|libz.so.*|libc.so.*|libm.so.*|libstdc++.so.*|libgcc_s.so.*|ld-linux*|libpthread.so.*|libdl.so.*|librt.so.*|libutil.so.*) ;;
            *) echo "build-wheel.sh: $(basename "$file") needs $library, which the wheel cannot assume" >&2; exit 1 ;;
        esac
    done
    echo "$(basename "$file") needs: $(echo $needed)"
done
# Exported: the dynamic symbols bound GLOBAL or WEAK and defined here (gold leaves a few Swift
# metadata symbols in .dynsym bound LOCAL, which nothing outside can bind to).
exported=$(readelf --dyn-syms -W "$bin/libSpeechDSPC.so" | awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" {print $8}')
foreign=$(echo "$exported" | grep -v -E '^sdsp_' || true)
if [ -n "$foreign" ]; then echo "build-wheel.sh: libSpeechDSPC.so exports more than sdsp_*:" >&2; echo "$foreign" | head >&2; exit 1; fi
echo "libSpeechDSPC.so exports $(echo "$exported" | wc -l) functions, all sdsp_*"

# The package with its native files, then the wheel.
cp -r python/pyproject.toml python/setup.py python/README.md python/speechdsp "$stage/"
find "$stage" -name __pycache__ -prune -exec rm -rf {} +
mkdir -p "$stage/speechdsp/_lib" "$stage/speechdsp/_bin"
cp "$bin/libSpeechDSPC.so" "$stage/speechdsp/_lib/"
cp "$bin/dspscore" "$stage/speechdsp/_bin/"
strip --strip-unneeded "$stage/speechdsp/_lib/libSpeechDSPC.so" "$stage/speechdsp/_bin/dspscore"
mkdir -p "$dist"
rm -f "$dist"/speechdsp-"$version"-*.whl
python3 -m pip wheel --quiet --no-deps --wheel-dir "$dist" "$stage"
ls -l "$dist"/speechdsp-"$version"-*.whl
