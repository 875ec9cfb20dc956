#!/usr/bin/env bash
# Runs the libFuzzer target Fuzz/TARGET.swift for SECONDS (0: no time limit; pass -runs=N).
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options…]
#   scripts/fuzz.sh --build-only TARGET            build and link .build-fuzz/fuzz-TARGET, run nothing
#   scripts/fuzz.sh --prebuilt TARGET SECONDS […]  run the binary --build-only left, without building
#   scripts/fuzz.sh --link-from SCRATCH TARGET     link .build-fuzz/fuzz-TARGET from the objects of
#                                                  an optimized build in SCRATCH that has AddressSanitizer
#                                                  and libFuzzer's coverage (below), build nothing
#   scripts/fuzz.sh --coverage-flags               print the swift build flags that add that coverage
# (--build-only or --link-from, then --prebuilt, lets several targets run at once: builds into one
# scratch path cannot. .ci/run builds its AddressSanitizer suite with --coverage-flags, links the
# targets from it and runs them side by side: one optimized build of the library fewer.)
# Builds the library modules the target imports with coverage and AddressSanitizer
# (swift build -Xswiftc -sanitize=fuzzer,address into .build-fuzz: command-line flags, nothing
# in Package.swift), links Fuzz/TARGET.swift against their objects with swiftc
# -sanitize=fuzzer,address, and runs it on a copy of the seed corpus Fuzz/corpus/TARGET/ (new
# inputs go to .build-fuzz/corpus/TARGET, findings to .build-fuzz/artifacts/). Exits non-zero on
# a finding (crash, assertion, sanitizer report, leak, timeout, out-of-memory). Leaks inside
# third-party libraries that cannot be fixed here are suppressed in Fuzz/lsan.supp, each explained.
set -euo pipefail
cd "$(dirname "$0")/.."
# libFuzzer's coverage without linking libFuzzer (-sanitize=fuzzer would link its main() into
# every executable and test runner): what swiftc's -sanitize=fuzzer and clang's
# -fsanitize=fuzzer-no-link instrument, but Swift's stack-depth tracing, which swiftc does not
# take on its own. The AddressSanitizer runtime defines the hooks as no-ops where libFuzzer is not
# linked (docs/reliability.md).
coverage_flags=(-Xswiftc -sanitize-coverage=edge,indirect-calls,trace-cmp,inline-8bit-counters,pc-table
    -Xcc -fsanitize=fuzzer-no-link)
mode=all link_from=
case "${1:-}" in
    --coverage-flags) echo "${coverage_flags[*]}"; exit 0 ;;
    --build-only) mode=build; shift; set -- "${1:-}" 0 ;;
    --prebuilt) mode=run; shift ;;
    --link-from) mode=build link_from=${2:-}; shift 2 || true; set -- "${1:-}" 0 ;;
esac
if [ $# -lt 2 ] || [ -z "$1" ]; then
    echo "usage: $0 [--prebuilt] TARGET SECONDS [libFuzzer options…] | $0 --build-only TARGET | $0 --link-from SCRATCH TARGET" >&2; exit 2
fi
target=$1 seconds=$2
shift 2
source=Fuzz/$target.swift
[ -f "$source" ] || { echo "fuzz.sh: no $source" >&2; exit 2; }
scratch=.build-fuzz
bin=$scratch/release
sanitize=(-Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xcc -fsanitize=fuzzer-no-link,address)
exe=$scratch/fuzz-$target

if [ "$mode" != run ]; then
# The package's modules the target imports (`import X` lines), built with coverage; line 3: the
# package's library targets those modules depend on, themselves included (what --link-from links
# of this package: not the test helpers or dspbench's malloc counter, which a build of the whole
# package holds too).
modules=$(sed -n -E 's/^(@testable |@_implementationOnly )?import ([A-Za-z_][A-Za-z0-9_]*).*/\2/p' "$source" | sort -u)
# (Read through the scratch path this script builds in or links from: .build may be locked by a
# build running beside it, as CI's release build is.)
targets=$(swift package --scratch-path "${link_from:-$scratch}" dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
kinds = {t["name"]: t["type"] for t in package["targets"]}
depends = {t["name"]: [d.get("byName", d.get("target", [None]))[0] for d in t["dependencies"]]
           for t in package["targets"]}
print(" ".join(name for name, kind in kinds.items() if kind in ("regular", "system-target")))
print(" ".join(name.replace("-", "_") for name, kind in kinds.items() if kind in ("executable", "test")))
needed, todo = set(), [m for m in sys.argv[1:] if m in kinds]
while todo:
    name = todo.pop()
    if name in needed: continue
    needed.add(name)
    todo.extend(d for d in depends[name] if d in kinds)
print(" ".join(sorted(needed)))' $modules)
libraries=$(echo "$targets" | sed -n 1p)
programs=$(echo "$targets" | sed -n 2p)
needed=$(echo "$targets" | sed -n 3p)
if [ -n "$link_from" ]; then
    # An optimized build made elsewhere (CI's AddressSanitizer build) with AddressSanitizer and the
    # coverage libFuzzer reads: `swift build -c release --sanitize=address` plus coverage_flags.
    bin=$link_from/release
    # (nm's output read whole: `nm | grep -q` under pipefail fails when grep stops reading.)
    probe=$(find "$bin/DSPCore.build" -name '*.o' 2>/dev/null | head -1)
    symbols=$([ -n "$probe" ] && nm "$probe" || true)
    if ! grep -q __sanitizer_cov_8bit_counters_init <<< "$symbols" || ! grep -q __asan_ <<< "$symbols"; then
        echo "fuzz.sh: $bin has no objects built with AddressSanitizer and libFuzzer's coverage" >&2; exit 2
    fi
else
    for module in $modules; do
        if [[ " $libraries " == *" $module "* ]]; then
            swift build -c release --scratch-path "$scratch" "${sanitize[@]}" --target "$module" 2>&1 | grep -v -E '^\[|^Building|warning:' || true
            test -d "$bin/$module.build" || { echo "fuzz.sh: building $module failed" >&2; exit 2; }
        fi
    done
fi

# Link: the objects of every library target built (not executables or tests; from a build of the
# whole package, only this package's targets the fuzz target needs, and the other packages'
# library modules), the module maps of the C targets, and the system libraries they link.
objects=()
for directory in "$bin"/*.build; do
    name=$(basename "$directory" .build)
    [[ " $programs " == *" $name "* ]] && continue
    if [ -n "$link_from" ]; then
        case "$name" in *-tool|*PackageTests|*PackageDiscoveredTests) continue ;; esac
        [[ " $libraries " == *" $name "* && " $needed " != *" $name "* ]] && continue
    fi
    while IFS= read -r -d '' object; do objects+=("$object"); done < <(find "$directory" -name '*.o' -print0)
done
maps=()
for map in "$bin"/*.build/module.modulemap Sources/*/module.modulemap Sources/*/include/module.modulemap \
    "${link_from:-$scratch}"/checkouts/*/Sources/*/include/module.modulemap; do
    [ -f "$map" ] && maps+=(-Xcc "-fmodule-map-file=$map")
done
mkdir -p "$scratch"
swiftc -O -sanitize=fuzzer,address -parse-as-library -swift-version 6 "$source" -module-name "Fuzz_$target" \
    -I "$bin/Modules" "${maps[@]}" "${objects[@]}" \
    $(pkg-config --libs sndfile fftw3f) -lm -o "$exe"
fi
[ "$mode" = build ] && exit 0
[ -x "$exe" ] || { echo "fuzz.sh: no $exe (run scripts/fuzz.sh --build-only $target first)" >&2; exit 2; }

# Run on the committed seeds plus what earlier runs found.
mkdir -p "$scratch/corpus/$target" "$scratch/artifacts"
options=(-timeout=20 -rss_limit_mb=3072 -max_len=16384 -print_final_stats=1
    "-artifact_prefix=$scratch/artifacts/$target-")
[ "$seconds" -gt 0 ] && options+=("-max_total_time=$seconds")
echo "fuzz.sh: $exe ${options[*]} $* $scratch/corpus/$target Fuzz/corpus/$target" >&2
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
exec "$exe" "${options[@]}" "$@" "$scratch/corpus/$target" "Fuzz/corpus/$target"
