#!/usr/bin/env bash
# Speed of this checkout against an earlier revision, side by side in one run: both builds'
# `dspbench run pipeline` and `dspscore score` (over TestAudio copied COPIES times, --jobs 1) run
# in turn, ROUNDS times; the best of each is kept, since a shared machine only ever slows a run
# down. Prints × real time per pipeline case and dspscore's best CPU seconds, with the ratio
# this build ÷ the revision (> 1 is faster).
#
#   scripts/compare-builds.sh e7348b6            # ROUNDS=6 COPIES=20 by default
# The revision is built in a git worktree under ${WORKTREE:-../wt-compare-REV}, in release.
set -euo pipefail
cd "$(dirname "$0")/.."
REV=${1:?usage: scripts/compare-builds.sh REVISION}
ROUNDS=${ROUNDS:-6}
COPIES=${COPIES:-20}
WORKTREE=${WORKTREE:-../wt-compare-$REV}
[ -d "$WORKTREE" ] || git worktree add --detach "$WORKTREE" "$REV" >&2
for dir in . "$WORKTREE"; do
    (cd "$dir" && swift build -c release --product dspbench >&2 && swift build -c release --product dspscore >&2)
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in $(seq "$COPIES"); do
    mkdir "$tmp/c$i"
    find TestAudio -maxdepth 1 -type f ! -name '*.md' ! -name '*.jsonl' -exec cp {} "$tmp/c$i/" \;
done
for round in $(seq "$ROUNDS"); do
    for side in new old; do
        dir=.; [ "$side" = old ] && dir=$WORKTREE
        "$dir/.build/release/dspbench" run pipeline --repetitions 5 --quiet 2>/dev/null \
            | awk -v side="$side" '/SpeechDSP front end/ { print side, "pipeline", $2, $4, $5, $(NF-4) }'
        /usr/bin/time -o "$tmp/time" -f "%U %S" "$dir/.build/release/dspscore" score "$tmp" --format jsonl --jobs 1 >/dev/null 2>&1
        awk -v side="$side" '{ print side, "dspscore", "cpu", "seconds", "-", $1 + $2 }' "$tmp/time"
    done
done | awk '
    { key = $2 " " $3 " " $4 " " $5; v = $6
      if ($2 == "dspscore") { if (!((side = $1 " " key) in best) || v < best[side]) best[side] = v }
      else if (v > best[$1 " " key]) best[$1 " " key] = v
      keys[key] = 1 }
    END { for (k in keys) {
        n = best["new " k]; o = best["old " k]
        ratio = (k ~ /^dspscore/) ? o / n : n / o
        printf "%-32s this %8.2f  %s %8.2f  speed ratio %.3f\n", k, n, "'"$REV"'", o, ratio } }'
