#!/usr/bin/env bash
# Build and run a libFuzzer target: scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
#
# TARGET is the name of a Swift source Fuzz/TARGET.swift defining LLVMFuzzerTestOneInput; its
# committed seed corpus is Fuzz/corpus/TARGET/. The library modules are built once with
# `swift build --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address` (flags on the
# command line: nothing in Package.swift, so `swift build`/`swift test` never see them), then
# the target is compiled against them with swiftc and linked with libFuzzer and AddressSanitizer.
# New inputs go to .build-fuzz/corpus/TARGET (the committed seeds are only read); a crash is
# written as .build-fuzz/artifacts/TARGET/crash-*. Exits non-zero on a finding.
set -euo pipefail
target="${1:?usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options]}"
seconds="${2:?usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options]}"
shift 2
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
source="Fuzz/$target.swift"
[[ -f "$source" ]] || { echo "fuzz.sh: no $source" >&2; exit 2; }
scratch=.build-fuzz
flags=(-c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xcc -fsanitize=fuzzer-no-link,address)

# The library (DSPScoring and the modules it imports: DSPCore, DSPAnalysis, DSPDetection, DSPIO,
# DSPSpectral, the C kernels, swift-numerics) is built for the fuzz targets.
mkdir -p "$scratch"
swift build --scratch-path "$scratch" "${flags[@]}" --target DSPScoring >"$scratch/build.log" 2>&1 || {
    cat "$scratch/build.log" >&2; exit 2; }
bin="$(swift build --scratch-path "$scratch" "${flags[@]}" --show-bin-path)"

# The objects of DSPScoring and the modules under it (FUZZ_MODULES overrides the list).
modules=(${FUZZ_MODULES:-DSPScoring DSPIO DSPDetection DSPAnalysis DSPSpectral DSPCore CDSPKernels RealModule _NumericsShims})
objects=()
for module in "${modules[@]}"; do
    while IFS= read -r -d '' object; do objects+=("$object"); done < <(find "$bin/$module.build" -name "*.o" -print0)
done
includes=(-I "$bin/Modules")
# The C modules' maps: the package's system libraries and kernels, and its dependencies' shims.
while IFS= read -r -d '' map; do includes+=(-Xcc "-fmodule-map-file=$map"); done < <(
    find "$bin" -mindepth 2 -maxdepth 2 -path "*.build/module.modulemap" -not -path "*-tool.build/*" -print0
    find "$scratch/checkouts" Sources -name module.modulemap -not -path "*Tests*" -print0)
for dir in Sources/*/include; do includes+=(-Xcc -I -Xcc "$dir"); done

binary="$scratch/fuzz-$target"
swiftc -sanitize=fuzzer,address -parse-as-library -O -g "${includes[@]}" "$source" "${objects[@]}" \
    $(pkg-config --libs sndfile fftw3f) -o "$binary"

mkdir -p "$scratch/corpus/$target" "$scratch/artifacts/$target/"
seeds="Fuzz/corpus/$target"
echo "fuzz.sh: running $binary for $seconds s" >&2
exec "$binary" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$scratch/artifacts/$target/" \
    "$@" "$scratch/corpus/$target" "$seeds"
