#!/usr/bin/env bash
# Builds the DocC documentation of every public module into one combined archive and fails on
# any warning (a link that does not resolve, an ambiguous symbol, an undocumented parameter, a
# malformed topic group) or on a module missing from the archive.
#   scripts/build-docs.sh [OUTPUT]      (default Docs/.build/SpeechDSP.doccarchive)
# Runs swift-docc-plugin's generate-documentation from Docs/, a package of its own (path: "../")
# so that library users never resolve the plugin. Combined documentation
# (--enable-experimental-combined-documentation) gives each module the archives of the modules
# it depends on, so a symbol in a module below is linked as ``/DSPCore/StreamingProcessor``;
# a module above (SpeechFrontEnd from DSPCore) is named in code voice. Measured on the shared
# 2-core machine from a clean Docs/.build: 2 min 13 s to 2 min 56 s (load average 5–10 from other
# builds; 70 s of CPU), most of it the debug build the symbol graphs come from; 20–60 s when only
# the docs changed.
# Browse: python3 -m http.server -d OUTPUT, then open http://localhost:8000/documentation/speechdsp/
# (the archive holds an index.html for every page).
set -euo pipefail
output=${1:+$(realpath -m "$1")}
cd "$(dirname "$0")/.."
root=$PWD
output=${output:-$root/Docs/.build/SpeechDSP.doccarchive}
modules=(DSPCore DSPSpectral DSPAnalysis DSPDetection DSPIO DSPScoring DSPPipeline SpeechDSP)
products=()
for module in "${modules[@]}"; do products+=(--product "$module"); done
mkdir -p "$(dirname "$output")"
log=$(mktemp /tmp/speechdsp-docs.XXXXXX.log)

start=$(date +%s)
status=0
(cd Docs && swift package --allow-writing-to-directory "$(dirname "$output")" \
    generate-documentation "${products[@]}" --enable-experimental-combined-documentation \
    --output-path "$output") > "$log" 2>&1 || status=$?
elapsed=$(( $(date +%s) - start ))

# docc prints each diagnostic as "warning: …" / "error: …" at the start of a line, followed by
# its source excerpt up to a blank line; the compiler's and SwiftPM's carry "file:line: warning:".
# The plugin does not check docc merge's exit status, so the archive is checked as well.
diagnostics=$(grep -a -c -E '^(warning|error):|: (warning|error):' "$log" || true)
missing=()
for module in "${modules[@]}"; do
    lower=$(echo "$module" | tr '[:upper:]' '[:lower:]')
    [ -f "$output/data/documentation/$lower.json" ] || missing+=("$module")
done

grep -a -E '^Finished building documentation|^Generated combined' "$log" || true
if [ "$status" -ne 0 ] || [ "$diagnostics" -ne 0 ] || [ ${#missing[@]} -ne 0 ]; then
    # Each diagnostic with its excerpt (docc ends one with a blank line).
    awk '/^(warning|error):|: (warning|error):/ { show = 1 } show { print } /^$/ { show = 0 }' "$log"
    [ "$status" -ne 0 ] && { echo "--- last lines of the log ($log)"; tail -30 "$log"; }
    echo "build-docs: exit status $status, $diagnostics warnings/errors, missing modules: ${missing[*]:-none} (${elapsed} s; log $log)" >&2
    exit 1
fi
echo "build-docs: ${#modules[@]} modules, 0 warnings, ${elapsed} s: $output"
rm -f "$log"
