#!/usr/bin/env bash
# Smoke tests of the dspbench CLI: every subcommand on short inputs, exit codes, JSON validity
# (python3 -m json.tool) and the fields the records promise. About a minute (release build
# excluded).
#   scripts/test-dspbench.sh                    # builds: swift build -c release --product dspbench
#   SCRATCH_PATH=.build-bench scripts/test-dspbench.sh
#   DSPBENCH=/path/to/dspbench scripts/test-dspbench.sh   # an existing binary
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${DSPBENCH:-}" ]; then
  scratch=(--scratch-path "${SCRATCH_PATH:-.build}")
  swift build "${scratch[@]}" -c release --product dspbench >&2
  DSPBENCH="$(swift build "${scratch[@]}" -c release --show-bin-path)/dspbench"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
pass() { echo "ok   $1"; }
fail() { echo "FAIL $1" >&2; failures=$((failures + 1)); }

# expect CODE NAME -- COMMAND...: runs COMMAND (stdout to $work/out, stderr to $work/err) and
# checks its exit code.
expect() {
  local code=$1 name=$2
  shift 3
  local got=0
  "$@" > "$work/out" 2> "$work/err" || got=$?
  if [ "$got" -eq "$code" ]; then pass "$name (exit $got)"; else fail "$name: exit $got, expected $code"; sed 's/^/    /' "$work/err" | tail -5 >&2; fi
}
json_ok() {  # json_ok NAME FILE
  if python3 -m json.tool "$2" > /dev/null; then pass "$1: valid JSON"; else fail "$1: invalid JSON"; fi
}
check() {  # check NAME PYTHON-EXPRESSION-ON-d FILE
  if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$3"; then
    pass "$1"
  else
    fail "$1"
  fi
}
short=(--seconds 1 --repetitions 2 --warmup 1)

# --- help and usage errors
expect 0 "dspbench --help" -- "$DSPBENCH" --help
for sub in run compare resample detect machine; do expect 0 "dspbench $sub --help" -- "$DSPBENCH" "$sub" --help; done
expect 64 "run: unknown suite" -- "$DSPBENCH" run nosuchsuite
expect 64 "run: --repetitions 0" -- "$DSPBENCH" run conversion --repetitions 0
expect 64 "run: --frame 0" -- "$DSPBENCH" run conversion --frame 0

# --- run: each suite alone, table, with peers
for suite in conversion metering reframing fft resample loudness detection environment pipeline; do
  expect 0 "run $suite --compare (table)" -- "$DSPBENCH" run "$suite" "${short[@]}" --compare -q
  grep -q "^$suite " "$work/out" && pass "run $suite: table has $suite rows" || fail "run $suite: no $suite row in the table"
done

# --- run: every suite, JSON, with peers
expect 0 "run --json --compare (all suites)" -- "$DSPBENCH" run "${short[@]}" --json --compare -q
cp "$work/out" "$work/base.json"
json_ok "run --json" "$work/base.json"
check "run --json: provenance" \
  'd["schema"] == "dspbench.run/1" and d["library"]["version"] and d["build_configuration"] in ("debug", "release") and d["date"] and d["command_line"].startswith("dspbench run")' \
  "$work/base.json"
check "run --json: machine" \
  'd["machine"]["cpu_model"] and d["machine"]["logical_cores"] >= 1 and set(d["machine"]["cpu_flags"]) == {"sse4.1", "avx", "avx2", "fma", "avx512f"}' \
  "$work/base.json"
check "run --json: C kernel level recorded" \
  'd["machine"]["kernel_dispatch"] in ("sse2", "fma", "v3", "avx512", "none")' \
  "$work/base.json"
check "run --json: every suite measured" \
  '{k["suite"] for k in d["kernels"]} == {"conversion", "metering", "reframing", "fft", "resample", "loudness", "detection", "environment", "pipeline"}' \
  "$work/base.json"
check "run --json: figures of every kernel" \
  'all("failure" not in k for k in d["kernels"]) and all(k["x_realtime"] > 0 and k["ns_per_frame_p99"] >= k["ns_per_frame_p50"] >= 0 and k["samples_per_second"] > 0 and k["realtime_streams_per_core"] == k["x_realtime"] for k in d["kernels"])' \
  "$work/base.json"
check "run --json: peers recorded, ratios on peer kernels" \
  'len(d["peers"]) == 4 and all(k["is_speechdsp"] or "ours_over_peer" in k for k in d["kernels"])' \
  "$work/base.json"
# Real-time contract: no SpeechDSP kernel allocates per push (when this platform counts).
check "run --json: SpeechDSP kernels make 0 allocations per frame" \
  'not d["settings"]["allocation_counting"] or all(k["allocations_per_frame"] == 0 for k in d["kernels"] if k["is_speechdsp"])' \
  "$work/base.json"
check "run --json: fft runs the built-in FFT (reference) beside FFTW (peer), split and in place" \
  '{k["id"] for k in d["kernels"] if k["suite"] == "fft"} == {f"fft/realfft-1024-{g}/{s}" for g in ("forward", "execute") for s in ("speechdsp-builtin", "fftw-estimate")}' \
  "$work/base.json"
check "run --json: C references match SpeechDSP bit for bit (no mismatch note)" \
  'not any("differs" in n for n in d["notes"])' "$work/base.json"
# detection and environment: the kernels, per-hop figures over every 16 ms hop the pushes
# complete (whole batches of four), the side-by-side CPU ratios, the note on the Python peers.
check "run --json: detection runs the whole detector, voice activity alone, a GRU music model and the spectral analysis" \
  '{k["id"] for k in d["kernels"] if k["suite"] == "detection"} == {f"detection/{g}/speechdsp" for g in ("every-detector", "voice-activity", "music-gru", "spectral-analysis")}' \
  "$work/base.json"
check "run --json: environment runs the chain and the front end with and without the environment stage" \
  '{k["group"] for k in d["kernels"] if k["suite"] == "environment"} == {"chain-detection-environment", "chain-detection", "front-end-%d-mono" % d["settings"]["sample_rate"], "front-end-%d-mono-no-environment" % d["settings"]["sample_rate"]}' \
  "$work/base.json"
check "run --json: per-hop times of the analyses (16 ms hops, all whole batches of four in the pass)" \
  'all(k["analysis_frame_seconds"] == 0.016 and k["analysis_frames_per_pass"] == (k["frames_per_pass"] * k["samples_per_frame"] // 256) // 4 * 4 > 0 and k["ns_per_analysis_frame_max"] >= k["ns_per_analysis_frame_p99"] >= k["ns_per_analysis_frame_p50"] > 0 for k in d["kernels"] if k["suite"] == "detection" or k["group"].startswith("chain"))' \
  "$work/base.json"
check "run --json: relative CPU of the smaller configurations and of the environment stage" \
  'all(k["relative_to"]["cpu_ratio"] > 0 for k in d["kernels"] if k["id"] in ("detection/voice-activity/speechdsp", "detection/music-gru/speechdsp", "detection/spectral-analysis/speechdsp", "environment/chain-detection-environment/speechdsp") or k["group"] == "front-end-%d-mono" % d["settings"]["sample_rate"])' \
  "$work/base.json"
check "run --json: the latency passes timed (every kernel)" \
  'all(len(k["latency_cpu_seconds_per_pass"]) == d["settings"]["repetitions"] for k in d["kernels"])' "$work/base.json"
check "run --json --compare: the note on the detection peers (Python)" \
  'any("run_peers_detect.py" in n for n in d["notes"])' "$work/base.json"

# --- run pipeline --streams (interleaved front ends), with and without the speech blend
expect 0 "run pipeline --streams 4" -- "$DSPBENCH" run pipeline --streams 4 --seconds 1 --repetitions 1 -q
grep -q "^48 kHz mono, every stage on, 1024-frame pushes" "$work/out" && grep -q "streams/core" "$work/out" \
  && pass "run pipeline --streams: the report" || fail "run pipeline --streams: no report"
expect 0 "run pipeline --streams 4 --no-speech-blend" -- "$DSPBENCH" run pipeline --streams 4 --seconds 1 --repetitions 1 --no-speech-blend -q
grep -q "^48 kHz mono, every stage on (the speech blend off)" "$work/out" \
  && pass "run pipeline --streams --no-speech-blend: said in the report" || fail "run pipeline --streams --no-speech-blend: not said"
expect 0 "run pipeline --no-speech-blend --json" -- "$DSPBENCH" run pipeline --no-speech-blend "${short[@]}" --json -q
json_ok "run pipeline --no-speech-blend" "$work/out"

# --- run: from a file, other frame sizes
expect 0 "run --input FILE --json" -- "$DSPBENCH" run conversion metering loudness --input TestAudio/speech_2ch_en-us_de_44k1.flac --seconds 2 --repetitions 1 --json -q
json_ok "run --input" "$work/out"
check "run --input: the file's rate is used" 'd["settings"]["sample_rate"] == 44100 and d["settings"]["input_path"].endswith(".flac")' "$work/out"
expect 0 "run --frame 480 --rate 16000" -- "$DSPBENCH" run reframing fft metering --frame 480 --rate 16000 "${short[@]}" -q
expect 0 "run detection environment --input 16 kHz speech --frame 100 --json" -- "$DSPBENCH" run detection environment --input TestAudio/speech_en-us_16k.wav --frame 100 --repetitions 1 --warmup 0 --json -q
check "run detection --input 16 kHz: not resampled, 0 allocations, a hop time from 100-sample pushes" \
  'not any("resampled to 16 kHz" in n for n in d["notes"]) and all(k["allocations_per_frame"] in (0, None) and k["ns_per_analysis_frame_p50"] > 0 for k in d["kernels"] if k["suite"] == "detection")' \
  "$work/out"
expect 2 "run --input missing file" -- "$DSPBENCH" run conversion --input "$work/missing.wav" -q

# --- compare
expect 0 "compare: a run with itself" -- "$DSPBENCH" compare "$work/base.json" "$work/base.json"
grep -q "No regression" "$work/out" && pass "compare: says no regression" || fail "compare: no verdict line"
python3 - "$work/base.json" "$work/slow.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
k = next(k for k in d["kernels"] if k["is_speechdsp"])
k["x_realtime"] *= 0.5
json.dump(d, open(sys.argv[2], "w"))
EOF
expect 1 "compare: a 50% drop is a regression" -- "$DSPBENCH" compare "$work/base.json" "$work/slow.json" --threshold 10%
grep -q "REGRESSION" "$work/out" && pass "compare: flags REGRESSION" || fail "compare: no REGRESSION row"
expect 0 "compare: within --threshold 60" -- "$DSPBENCH" compare "$work/base.json" "$work/slow.json" --threshold 60
expect 1 "compare --json" -- "$DSPBENCH" compare "$work/base.json" "$work/slow.json" --json
json_ok "compare --json" "$work/out"
check "compare --json: one regression" 'd["regressions"] == 1' "$work/out"
expect 64 "compare: bad threshold" -- "$DSPBENCH" compare "$work/base.json" "$work/base.json" --threshold abc
expect 2 "compare: missing file" -- "$DSPBENCH" compare "$work/base.json" "$work/missing.json"

# --- resample
in48=TestAudio/sine_1k_-1dBFS_48k_f32.wav
expect 0 "resample 48k → 16k (whole file)" -- "$DSPBENCH" resample --in "$in48" --out "$work/whole.wav" --rate 16000 --json -q
json_ok "resample --json" "$work/out"
check "resample: exact length, latency reported" \
  'd["output_frames"] == d["expected_output_frames"] > 0 and d["latency_frames"] > 0 and d["x_realtime"] > 0' "$work/out"
check "resample: no allocation while processing" 'd["allocations"] in (0, None)' "$work/out"
expect 0 "resample 48k → 16k (1024-frame chunks)" -- "$DSPBENCH" resample --in "$in48" --out "$work/chunked.wav" --rate 16000 --chunk 1024 -q
# Chunking must not change a sample: compare the WAV data chunks.
if python3 - "$work/whole.wav" "$work/chunked.wav" <<'EOF'
import sys
def data(path):
    b = open(path, "rb").read()
    i = 12
    while i + 8 <= len(b):
        size = int.from_bytes(b[i + 4:i + 8], "little")
        if b[i:i + 4] == b"data":
            return b[i + 8:i + 8 + size]
        i += 8 + size + (size & 1)
    raise SystemExit("no data chunk in " + path)
sys.exit(0 if data(sys.argv[1]) == data(sys.argv[2]) else 1)
EOF
then pass "resample: chunked output identical to whole-file output"; else fail "resample: chunked output differs"; fi
expect 0 "resample stereo 44.1k → 16k, high, 333-frame chunks" -- "$DSPBENCH" resample --in TestAudio/speech_2ch_en-us_de_44k1.flac --out "$work/stereo.wav" --rate 16000 --quality high --chunk 333 --json -q
json_ok "resample stereo --json" "$work/out"
check "resample stereo: 2 channels, exact length" 'd["channels"] == 2 and d["output_frames"] == d["expected_output_frames"]' "$work/out"
expect 0 "resample --no-trim-delay (text)" -- "$DSPBENCH" resample --in TestAudio/speech_en-us_16k.wav --out "$work/up.wav" --rate 48000 --quality low-latency --no-trim-delay
grep -q "× real time" "$work/out" && pass "resample: text report" || fail "resample: no text report"
expect 2 "resample: unsupported rate" -- "$DSPBENCH" resample --in "$in48" --out "$work/x.wav" --rate 10 -q
expect 2 "resample: missing input" -- "$DSPBENCH" resample --in "$work/missing.wav" --out "$work/x.wav" --rate 16000 -q
expect 64 "resample: bad quality" -- "$DSPBENCH" resample --in "$in48" --out "$work/x.wav" --rate 16000 --quality best

# --- detect (the detection stack alone on a file)
speech16=TestAudio/speech_en-us_16k.wav
expect 0 "detect --json (16 kHz speech)" -- "$DSPBENCH" detect --in "$speech16" --repeats 2 --json -q
json_ok "detect --json" "$work/out"
check "detect --json: schema and fields" \
  'd["schema"] == "dspbench.detect/1" and all(k in d for k in ("input", "duration_seconds", "cpu_seconds", "x_realtime", "speech_ratio", "music_ratio", "multi_speaker_ratio", "speech_segments", "noise_floor_dbfs"))' \
  "$work/out"
check "detect --json: duration of the file, timed, ratios in 0…1" \
  "abs(d['duration_seconds'] - $(soxi -D "$speech16")) < 0.01 and d['cpu_seconds'] > 0 and d['x_realtime'] > 0 and all(0 <= d[k] <= 1 for k in ('speech_ratio', 'music_ratio', 'multi_speaker_ratio'))" \
  "$work/out"
check "detect --json: a speech file is mostly speech, with segments" 'd["speech_ratio"] > 0.5 and d["speech_segments"] >= 1' "$work/out"
expect 0 "detect --json (48 kHz FLAC, resampled to 16 kHz first)" -- "$DSPBENCH" detect --in TestAudio/speech_de_48k.flac --repeats 1 --json -q
check "detect 48 kHz: duration of the file" "abs(d['duration_seconds'] - $(soxi -D TestAudio/speech_de_48k.flac)) < 0.01" "$work/out"
expect 0 "detect (text)" -- "$DSPBENCH" detect --in "$speech16" --repeats 1 -q
grep -q "× real time" "$work/out" && pass "detect: text report" || fail "detect: no text report"
expect 0 "detect --frames CSV" -- "$DSPBENCH" detect --in "$speech16" --repeats 1 --frames "$work/frames.csv" -q
# One row per 16 ms hop (256 samples; the last one partial): ceil(N / 256) rows after the header,
# consecutive times 16 ms apart, every row as wide as the header.
if python3 - "$work/frames.csv" "$(soxi -s "$speech16")" <<'EOF'
import csv, math, sys
rows = list(csv.reader(open(sys.argv[1])))
header, body = rows[0], rows[1:]
expected = math.ceil(int(sys.argv[2]) / 256)
ok = ("snr_db" in header and header[0] == "time" and {"p_speech", "p_music", "p_multi", "speech", "music", "multi"} <= set(header)
      and abs(len(body) - expected) <= 1 and all(len(r) == len(header) for r in body))
times = [float(r[0]) for r in body]
ok = ok and all(abs(b - a - 0.016) < 1e-3 for a, b in zip(times, times[1:]))
if not ok:
    print(f"header has snr_db: {'snr_db' in header}; rows {len(body)}, expected {expected}", file=sys.stderr)
sys.exit(0 if ok else 1)
EOF
then pass "detect --frames: header with snr_db, one row per 16 ms frame"; else fail "detect --frames: bad CSV"; fi
expect 2 "detect: missing input" -- "$DSPBENCH" detect --in "$work/missing.wav" -q

# --- machine (the record every report carries; the C kernel level pinned by CDSP_DISPATCH_LEVEL)
expect 0 "machine (text)" -- "$DSPBENCH" machine
grep -q "^C kernels: " "$work/out" && pass "machine: C kernel level line" || fail "machine: no C kernel level line"
expect 0 "machine --json" -- "$DSPBENCH" machine --json
json_ok "machine --json" "$work/out"
check "machine --json: the run report's machine fields" \
  'd["cpu_model"] and d["logical_cores"] >= 1 and d["kernel_dispatch"] in ("sse2", "fma", "v3", "avx512", "none")' \
  "$work/out"
expect 0 "machine --json, CDSP_DISPATCH_LEVEL=sse2" -- env CDSP_DISPATCH_LEVEL=sse2 "$DSPBENCH" machine --json
check "machine: CDSP_DISPATCH_LEVEL=sse2 pins SSE2 (or the build has no dispatch)" \
  'd["kernel_dispatch"] in ("sse2", "none")' "$work/out"

if [ "$failures" -gt 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all dspbench checks passed"
