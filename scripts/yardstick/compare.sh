#!/usr/bin/env bash
# dspscore beside the Python yardstick, in one invocation, on the same files, on ONE core.
#
#   scripts/yardstick/compare.sh            # build the corpus if missing, run everything
#   CORPUS=/data/ys REPEAT=3 scripts/yardstick/compare.sh
#
# 1. Builds a deterministic comparison corpus (default corpus/yardstick, git-ignored) from
#    espeak-ng speech and SoX noise (sox -R: repeatable): short/ = 200 files of 5–10 s (16, 44.1
#    and 48 kHz, PCM16 WAV and FLAC), long/ = 4 files of 10 min (48 kHz), memory/ = a 10 s and a
#    1 h file (48 kHz).
# 2. On core 0 (taskset -c 0, --jobs 1, one thread for numpy/onnxruntime) runs, per set:
#    dspscore doing the work the Python pipeline does (read, resample to 16 kHz, levels, loudness,
#    VAD: --analyses levels,loudness,speech once dspscore has it; until then plain dspscore,
#    labelled so), dspscore with every analysis on, score_corpus.py --vad webrtc, and
#    score_corpus.py --vad silero; then dspscore --jobs 2 on cores 0,1 for scaling.
#    Each run REPEAT times (default 2); the fastest counts (the machine is shared).
# 3. Peak RSS (GNU time) of dspscore and of the WebRTC pipeline on the 10 s and the 1 h file.
# Prints a Markdown report and writes it to $CORPUS/results.md.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"  # root, corpus, venv, python; one thread per numeric library
repeat="${REPEAT:-2}"

[ -x "$python" ] || "$here/setup.sh" >/dev/null
(cd "$root" && swift build -c release --product dspscore >/dev/null)
dspscore="$root/.build/release/dspscore"

# ---------------------------------------------------------------------------------------------
# The corpus (deterministic: fixed texts, voices, rates, durations; sox -R for noise and dither)
make_corpus() {
    local work="$corpus/.work"
    mkdir -p "$work" "$corpus/short" "$corpus/long" "$corpus/memory"
    local sentences=(
        "The quick brown fox jumps over the lazy dog near the river bank."
        "Please set a timer for ten minutes and remind me to check the oven."
        "Speech recognition works best when the microphone is close to the speaker."
        "Yesterday the weather was cold, but today the sun is shining brightly."
        "Turn off the lights in the kitchen and lock the front door."
        "A corpus of recorded speech needs careful checks of level and loudness."
        "Call me back when you have finished reading the quarterly report."
        "The train to the airport leaves every twenty minutes from platform four."
    )
    local voices=(en-us en+f3 en-gb+m3 en+f4)
    local i=0
    for s in "${!sentences[@]}"; do
        for v in "${!voices[@]}"; do
            [ -f "$work/tts_$i.wav" ] || espeak-ng -v "${voices[$v]}" -s $((150 + 10 * v)) -w "$work/tts_$i.wav" "${sentences[$s]}"
            [ -f "$work/pad_$i.wav" ] || sox -R "$work/tts_$i.wav" -r 48000 "$work/pad_$i.wav" pad 0 0.$((4 + (i * 3) % 6))
            i=$((i + 1))
        done
    done
    local clips=$i
    local rates=(16000 44100 48000)
    for n in $(seq 0 199); do
        local name
        name=$(printf "short/utt%03d" "$n")
        local ext=wav
        [ $((n % 4)) -eq 3 ] && ext=flac
        [ -f "$corpus/$name.$ext" ] && continue
        local rate=${rates[$((n % 3))]}
        local dur
        dur=$(awk -v n="$n" 'BEGIN { printf "%.2f", 5 + ((n * 37) % 51) / 10 }')
        local noise_gain=$(( -30 - (n * 7) % 25 ))
        # speech: two clips back to back, padded, cut to the duration; noise at -30…-54 dBFS
        sox -V1 -R "$work/tts_$((n % clips)).wav" "$work/tts_$(((n * 5 + 3) % clips)).wav" -r "$rate" -c 1 -b 16 "$work/s.wav" \
            pad 0.3 10 trim 0 "$dur" gain -n -$((1 + n % 9))
        sox -R -n -r "$rate" -c 1 -b 16 "$work/n.wav" synth "$dur" pinknoise gain "$noise_gain"
        sox -R -m "$work/s.wav" "$work/n.wav" -b 16 "$corpus/$name.$ext"
    done
    # A 60 s speech track (all clips with pauses), the basis of the long files.
    if [ ! -f "$work/minute.wav" ]; then
        local list=()
        for c in $(seq 0 $((clips - 1))); do list+=("$work/pad_$c.wav"); done
        sox -R "${list[@]}" -c 1 -b 16 "$work/minute.wav" trim 0 60
    fi
    for n in 0 1 2 3; do
        local out="$corpus/long/talk$n.wav"
        [ -f "$out" ] && continue
        sox -R "$work/minute.wav" "$work/l.wav" repeat 9 gain -n -$((3 + 2 * n))
        sox -R -n -r 48000 -c 1 -b 16 "$work/ln.wav" synth 600 brownnoise gain $((-40 - 4 * n))
        sox -R -m "$work/l.wav" "$work/ln.wav" -b 16 "$out"
    done
    [ -f "$corpus/memory/ten_seconds.wav" ] || sox -R "$corpus/long/talk0.wav" "$corpus/memory/ten_seconds.wav" trim 0 10
    [ -f "$corpus/memory/one_hour.wav" ] || sox -R "$corpus/long/talk0.wav" "$corpus/memory/one_hour.wav" repeat 5
    rm -f "$work/s.wav" "$work/n.wav" "$work/l.wav" "$work/ln.wav"
}
echo "corpus: $corpus" >&2
make_corpus
cat "$corpus"/short/* "$corpus"/long/* "$corpus"/memory/* > /dev/null  # page cache warm for every run

# ---------------------------------------------------------------------------------------------
# Runs
if "$dspscore" score --help 2>&1 | grep -q -- '--analyses'; then
    comparable=(--analyses levels,loudness,speech)
    comparable_label="dspscore --analyses levels,loudness,speech"
else
    comparable=()
    comparable_label="dspscore (levels + loudness; no --analyses yet, so no VAD)"
fi
out="$corpus/runs"
mkdir -p "$out"

# best_of CORES NAME CMD...: runs CMD REPEAT times pinned to CORES; prints the fastest wall time
# and the smallest CPU time (user + system) of the runs: "WALL CPU". On a machine shared with
# other work, CPU time is the steadier figure (waiting for the core does not count).
best_of() {
    local cores=$1 name=$2
    shift 2
    local best_wall="" best_cpu=""
    for _ in $(seq "$repeat"); do
        /usr/bin/time -f "%e %U %S" -o "$out/$name.time" taskset -c "$cores" "$@" > "$out/$name.jsonl" 2> "$out/$name.err" || true
        local wall cpu
        read -r wall user system < <(tail -1 "$out/$name.time")
        cpu=$(awk -v u="$user" -v s="$system" 'BEGIN { printf "%.2f", u + s }')
        if [ -z "$best_wall" ] || awk -v a="$wall" -v b="$best_wall" 'BEGIN { exit !(a < b) }'; then best_wall=$wall; fi
        if [ -z "$best_cpu" ] || awk -v a="$cpu" -v b="$best_cpu" 'BEGIN { exit !(a < b) }'; then best_cpu=$cpu; fi
    done
    echo "$best_wall $best_cpu"
}
audio_hours() {  # sum of durations of ok records / 3600
    "$python" -c 'import json,sys; print(sum(r["duration"] for r in map(json.loads, open(sys.argv[1])) if r["status"] == "ok") / 3600)' "$1"
}
count_ok() { grep -c '"status": *"ok"' "$1" || true; }

declare -A wall cpu
run() {  # run SET KEY CORES NAME CMD...
    local set=$1 key=$2 cores=$3 name=$4
    shift 4
    read -r "wall[$set.$key]" "cpu[$set.$key]" < <(best_of "$cores" "$set.$name" "$@")
}
for set in short long; do
    files=$(ls "$corpus/$set" | wc -l)
    run "$set" dsp 0 dspscore "$dspscore" --jobs 1 --format jsonl "${comparable[@]}" "$corpus/$set"
    run "$set" all 0 dspscore-all "$dspscore" --jobs 1 --format jsonl "$corpus/$set"
    run "$set" webrtc 0 webrtc "$python" "$here/score_corpus.py" --vad webrtc "$corpus/$set"
    run "$set" silero 0 silero "$python" "$here/score_corpus.py" --vad silero "$corpus/$set"
    run "$set" jobs2 0,1 dspscore-jobs2 "$dspscore" --jobs 2 --format jsonl "${comparable[@]}" "$corpus/$set"
    for name in dspscore dspscore-all webrtc silero dspscore-jobs2; do
        ok=$(count_ok "$out/$set.$name.jsonl")
        [ "$ok" -eq "$files" ] || { echo "$set.$name: $ok of $files files ok" >&2; exit 1; }
    done
    wall[$set.hours]=$(audio_hours "$out/$set.dspscore.jsonl")
done

for file in ten_seconds one_hour; do
    for tool in dspscore webrtc; do
        if [ $tool = dspscore ]; then cmd=("$dspscore" --jobs 1 --format jsonl "${comparable[@]}" "$corpus/memory/$file.wav")
        else cmd=("$python" "$here/score_corpus.py" --vad webrtc "$corpus/memory/$file.wav"); fi
        /usr/bin/time -v -o "$out/rss.$tool.$file.txt" taskset -c 0 "${cmd[@]}" > /dev/null 2>&1
        wall[rss.$tool.$file]=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$out/rss.$tool.$file.txt")
    done
done

# ---------------------------------------------------------------------------------------------
# Report
rate() { awk -v h="$1" -v w="$2" 'BEGIN { printf "%.0f", h * 3600 / w }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b / a }'; }
{
    echo "## Results ($(date -u +%Y-%m-%d), $(uname -m), $(getconf _NPROCESSORS_ONLN) cores, best of $repeat)"
    echo
    echo "Audio hours per wall hour (h/h) on one core (taskset -c 0, --jobs 1), and per CPU hour (user + system);"
    echo "ratios are to the Python variants in this run (wall-time ratios; CPU-time ratios in brackets)."
    echo
    for set in short long; do
        echo "**$set** ($(ls "$corpus/$set" | wc -l) files, $(awk -v h="${wall[$set.hours]}" 'BEGIN { printf "%.3f", h }') audio hours)"
        echo
        echo "| run | h/h (wall) | h/h (CPU) | vs WebRTC | vs Silero |"
        echo "| --- | ---: | ---: | ---: | ---: |"
        for key in dsp all webrtc silero; do
            case $key in
                dsp) label="$comparable_label" ;;
                all) label="dspscore, every analysis on (default)" ;;
                webrtc) label="Python: soundfile + soxr HQ + numpy + pyloudnorm + webrtcvad" ;;
                silero) label="Python: the same with Silero VAD (onnxruntime)" ;;
            esac
            echo "| $label | $(rate "${wall[$set.hours]}" "${wall[$set.$key]}") | $(rate "${wall[$set.hours]}" "${cpu[$set.$key]}") | $(ratio "${wall[$set.$key]}" "${wall[$set.webrtc]}")× ($(ratio "${cpu[$set.$key]}" "${cpu[$set.webrtc]}")×) | $(ratio "${wall[$set.$key]}" "${wall[$set.silero]}")× ($(ratio "${cpu[$set.$key]}" "${cpu[$set.silero]}")×) |"
        done
        echo
    done
    echo "Scaling: $comparable_label with --jobs 2 on cores 0,1: short $(rate "${wall[short.hours]}" "${wall[short.jobs2]}") h/h ($(ratio "${wall[short.jobs2]}" "${wall[short.dsp]}")× one core), long $(rate "${wall[long.hours]}" "${wall[long.jobs2]}") h/h ($(ratio "${wall[long.jobs2]}" "${wall[long.dsp]}")× one core)."
    echo
    echo "Seconds (wall / CPU), in table order then --jobs 2: short ${wall[short.dsp]}/${cpu[short.dsp]}, ${wall[short.all]}/${cpu[short.all]}, ${wall[short.webrtc]}/${cpu[short.webrtc]}, ${wall[short.silero]}/${cpu[short.silero]}, ${wall[short.jobs2]}/${cpu[short.jobs2]}; long ${wall[long.dsp]}/${cpu[long.dsp]}, ${wall[long.all]}/${cpu[long.all]}, ${wall[long.webrtc]}/${cpu[long.webrtc]}, ${wall[long.silero]}/${cpu[long.silero]}, ${wall[long.jobs2]}/${cpu[long.jobs2]}."
    echo
    echo "Peak RSS (GNU time, MiB), one file, --jobs 1:"
    echo
    echo "| tool | 10 s file | 1 h file |"
    echo "| --- | ---: | ---: |"
    echo "| $comparable_label | ${wall[rss.dspscore.ten_seconds]} | ${wall[rss.dspscore.one_hour]} |"
    echo "| Python WebRTC variant | ${wall[rss.webrtc.ten_seconds]} | ${wall[rss.webrtc.one_hour]} |"
} | tee "$corpus/results.md"
