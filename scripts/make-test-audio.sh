#!/usr/bin/env bash
# make-test-audio.sh: regenerate the committed test audio in TestAudio/ and TestAudio/MANIFEST.md.
#
#   scripts/make-test-audio.sh           regenerate TestAudio/ in place (and MANIFEST.md)
#   scripts/make-test-audio.sh --check   regenerate into a temp dir; compare every sha256 and the
#                                        MANIFEST text with the committed ones; exit 1 on mismatch
#
# Everything is synthetic: espeak-ng speech, SoX tones/sweeps/noise, fluidsynth renders of MIDI files
# written by scripts/testaudio/make_midi.py (standard library only), and the labelled eval_* clips
# of the evaluation corpus (scripts/eval/make_corpus.py --testaudio: espeak-ng, flite, fluidsynth,
# numpy; labels in TestAudio/labels.jsonl). Output is byte-identical on
# every run with the same tool versions (listed in MANIFEST.md):
#   - every sox call uses -R (fixed RNG seed: noise, Ogg serial number, AIFF timestamp) and -D (no
#     dither: plain rounding on every bit-depth reduction);
#   - comments are suppressed (--comment '') for formats that carry them (FLAC, Ogg, AIFF);
#   - fluidsynth renders with reverb and chorus off, one core, to headerless float (its WAV writer,
#     libsndfile, stamps the PEAK chunk with the wall-clock time);
#   - no file carries a date, host name or path.
set -euo pipefail

export LC_ALL=C.UTF-8 TZ=UTC SOURCE_DATE_EPOCH=0 PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
DEST=$ROOT/TestAudio
MANIFEST=$DEST/MANIFEST.md
SF2=/usr/share/sounds/sf2/FluidR3_GM.sf2
MIDI_WRITER=$ROOT/scripts/testaudio/make_midi.py
EVAL_CORPUS=$ROOT/scripts/eval/make_corpus.py

usage() { sed -n '2,6s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }
die() { echo "make-test-audio: $*" >&2; exit 1; }
log() { echo "make-test-audio: $*" >&2; }

mode=generate
case ${1-} in
  "") ;;
  --check) mode=check ;;
  -h | --help) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
esac

# ---------------------------------------------------------------------------------------------------
# Tools
# ---------------------------------------------------------------------------------------------------

ensure_tools() {
  local need=()
  command -v espeak-ng >/dev/null || need+=(espeak-ng)
  command -v sox >/dev/null && command -v soxi >/dev/null || need+=(sox)
  # FLAC, Ogg Vorbis and W64 handlers live in libsox-fmt-base.
  if ! command -v sox >/dev/null || ! sox -h 2>/dev/null | grep -q 'FORMATS:.* flac .*w64'; then
    need+=(libsox-fmt-base)
  fi
  command -v flac >/dev/null || need+=(flac)
  command -v fluidsynth >/dev/null || need+=(fluidsynth)
  command -v flite >/dev/null || need+=(flite)
  [[ -f $SF2 ]] || need+=(fluid-soundfont-gm)
  command -v python3 >/dev/null || need+=(python3)
  command -v sha256sum >/dev/null || need+=(coreutils)
  python3 -c 'import numpy, soundfile' 2>/dev/null || die "python3 needs numpy and soundfile: run scripts/eval/setup.sh"
  ((${#need[@]} == 0)) && return
  local sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo)
  log "installing ${need[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${need[@]}"
}

pkg_version() { dpkg-query -W -f '${Version}' "$1" 2>/dev/null || echo unknown; }

tool_versions() {
  V_ESPEAK=$(espeak-ng --version | sed -n 's/.*text-to-speech: \([^ ]*\).*/\1/p')
  V_SOX=$(sox --version | sed -n 's/.*SoX v\([^ ]*\).*/\1/p')
  V_FLUID=$(fluidsynth --version | sed -n 's/.*runtime version \([^ ]*\).*/\1/p')
  V_FLITE=$({ flite --version || true; } | sed -n 's/.*version: flite-\([^ ]*\).*/\1/p')
  V_NUMPY=$(python3 -c 'import numpy; print(numpy.__version__)')
  V_SOUNDFILE=$(python3 -c 'import soundfile; print(soundfile.__version__, "/", soundfile.__libsndfile_version__)')
}

# ---------------------------------------------------------------------------------------------------
# Recording helpers. Every command is a string that is run with eval and printed verbatim in the
# MANIFEST: $W is the scratch directory, $OUT the output file, $SF2 and $MIDI_WRITER as above.
# ---------------------------------------------------------------------------------------------------

STEPS=() # intermediate commands, in order
ROWS=()  # "file<TAB>description<TAB>source<TAB>licence<TAB>command"

step() {
  [[ $1 != *'|'* && $1 != *'`'* ]] || die "command must not contain | or backtick: $1"
  eval "$1"
  STEPS+=("$1")
}

gen() { # FILE DESCRIPTION SOURCE LICENCE COMMAND
  local file=$1 desc=$2 src=$3 lic=$4 cmd=$5
  [[ $cmd != *'|'* && $cmd != *'`'* && $desc != *'|'* ]] || die "no | or backtick in: $file"
  OUT=$STAGE/$file
  eval "$cmd"
  ROWS+=("$file"$'\t'"$desc"$'\t'"$src"$'\t'"$lic"$'\t'"$cmd")
}

# ---------------------------------------------------------------------------------------------------
# Content
# ---------------------------------------------------------------------------------------------------

TEXT_EN_US="The quick brown fox jumps over the lazy dog. Please call Stella at seven thirty. Thank you."
TEXT_EN_F3="Turn on the kitchen lights. What is the weather like tomorrow in Boston? Set a timer for ten minutes."
TEXT_DE="Guten Morgen, wie geht es Ihnen? Das Wetter ist heute sehr schön. Bitte schalten Sie das Licht aus."
TEXT_ES="Buenos días, ¿cómo está usted? Hoy hace sol en Madrid. Por favor, apague la luz."

LIC_SPEECH="generated; CC0 (espeak-ng itself is GPL-3.0-or-later; its output is not)"
LIC_SYNTH="generated; CC0"
LIC_MUSIC="generated; CC0 (FluidR3_GM soundfont: MIT)"

render_all() {
  local s_es="espeak-ng $V_ESPEAK + SoX $V_SOX"
  local s_sox="SoX $V_SOX"
  local s_fs="make_midi.py + FluidSynth $V_FLUID + FluidR3_GM + SoX $V_SOX"

  # Intermediates: espeak-ng renders 22.05 kHz mono PCM16; -b 1 = UTF-8 text input.
  step "espeak-ng -b 1 -v en-us -w \"\$W/en-us.wav\" \"$TEXT_EN_US\""
  step "espeak-ng -b 1 -v en+f3 -w \"\$W/en+f3.wav\" \"$TEXT_EN_F3\""
  step "espeak-ng -b 1 -v de -w \"\$W/de.wav\" \"$TEXT_DE\""
  step "espeak-ng -b 1 -v es -w \"\$W/es.wav\" \"$TEXT_ES\""
  step 'python3 "$MIDI_WRITER" "$W"'
  local m
  for m in song drums solo; do
    step "fluidsynth -ni -q -R 0 -C 0 -o synth.cpu-cores=1 -g 0.5 -r 44100 -O float -E little -T raw -F \"\$W/$m.f32\" \"\$SF2\" \"\$W/$m.mid\""
  done

  # Speech, peak-normalised to -1 dBFS.
  gen speech_en-us_16k.wav "espeak-ng en-us (male): 3 English sentences; peak -1 dBFS" "$s_es" "$LIC_SPEECH" \
    'sox -R -D "$W/en-us.wav" -b 16 "$OUT" rate -v 16k gain -n -1'
  gen speech_en-us_48k.flac "same speech as speech_en-us_16k.wav at 48 kHz; peak -1 dBFS" "$s_es" "$LIC_SPEECH" \
    'sox -R -D "$W/en-us.wav" --comment "" -b 16 -C 8 "$OUT" rate -v 48k gain -n -1'
  gen speech_en-f3_16k.wav "espeak-ng en+f3 (female variant): 3 voice-assistant commands; peak -1 dBFS" "$s_es" "$LIC_SPEECH" \
    'sox -R -D "$W/en+f3.wav" -b 16 "$OUT" rate -v 16k gain -n -1'
  gen speech_en-f3_48k.ogg "same speech as speech_en-f3_16k.wav at 48 kHz, Vorbis quality 5; peak about -1 dBFS" "$s_es" "$LIC_SPEECH" \
    'sox -R -D "$W/en+f3.wav" --comment "" -C 5 "$OUT" rate -v 48k gain -n -1'
  gen speech_de_16k.flac "espeak-ng de (male): 3 German sentences; peak -1 dBFS" "$s_es" "$LIC_SPEECH" \
    'sox -R -D "$W/de.wav" --comment "" -b 16 -C 8 "$OUT" rate -v 16k gain -n -1'
  gen speech_de_48k.flac "same speech as speech_de_16k.flac at 48 kHz; peak -1 dBFS" "$s_es" "$LIC_SPEECH" \
    'sox -R -D "$W/de.wav" --comment "" -b 16 -C 8 "$OUT" rate -v 48k gain -n -1'
  gen speech_es_16k.aiff "espeak-ng es (male): 3 Spanish sentences; peak -1 dBFS" "$s_es" "$LIC_SPEECH" \
    'sox -R -D "$W/es.wav" --comment "" -b 16 "$OUT" rate -v 16k gain -n -1'
  gen speech_es_48k.w64 "same speech as speech_es_16k.aiff at 48 kHz, Sony Wave64; peak -1 dBFS" "$s_es" "$LIC_SPEECH" \
    'sox -R -D "$W/es.wav" -b 16 "$OUT" rate -v 48k gain -n -1'
  gen speech_2ch_en-us_de_44k1.flac "stereo, two talkers: L = en-us at peak -1 dBFS, R = de starting 0.5 s later, 6 dB quieter" "$s_es" "$LIC_SPEECH" \
    'sox -R -D -M "$W/en-us.wav" "$W/de.wav" --comment "" -b 16 -C 8 "$OUT" rate -v 44100 delay 0 0.5 remix 1 2v0.5 gain -n -1'
  gen speech_overlap_16k.wav "two-talker overlap: en-us + en+f3 (starts 1.5 s later) summed at equal gain; peak -1 dBFS" "$s_es" "$LIC_SPEECH" \
    'sox -R -D -M "$W/en-us.wav" "$W/en+f3.wav" -b 16 "$OUT" delay 0 1.5 remix 1v0.5,2v0.5 rate -v 16k gain -n -1'
  gen speech_clipped_16k.wav "speech_en-us_16k.wav normalised to 0 dBFS then +12 dB: hard-clipped at -32768/+32767" "$s_es" "$LIC_SPEECH" \
    'sox -V1 -R -D "$W/en-us.wav" -b 16 "$OUT" rate -v 16k gain -n 0 gain 12'

  # Tones, sweep, DC.
  gen sine_1k_-1dBFS_48k_f32.wav "1 kHz sine, peak -1 dBFS (exactly 48 samples/cycle), 1 s" "$s_sox" "$LIC_SYNTH" \
    'sox -R -D -r 48000 -c 1 -n -e floating-point -b 32 "$OUT" synth 1 sine 1000 gain -1'
  gen sine_1k_-20dBFS_48k_f32.wav "1 kHz sine, peak -20 dBFS, 1 s" "$s_sox" "$LIC_SYNTH" \
    'sox -R -D -r 48000 -c 1 -n -e floating-point -b 32 "$OUT" synth 1 sine 1000 gain -20'
  gen sine_440_0dBFS_16k.wav "440 Hz sine, full scale (peak 32767), 1 s" "$s_sox" "$LIC_SYNTH" \
    'sox -V1 -R -D -r 16000 -c 1 -n -b 16 "$OUT" synth 1 sine 440'
  gen square_250_-6dBFS_16k.wav "250 Hz naive square wave (64 samples/cycle, not band-limited), +-0.5 (-6 dBFS), 1 s" "$s_sox" "$LIC_SYNTH" \
    'sox -R -D -r 16000 -c 1 -n -b 16 "$OUT" synth 1 square 250 gain -6'
  gen dc_offset_440_48k_s24.wav "440 Hz sine at -12 dBFS plus DC offset +0.25 (-12 dBFS), 24-bit, 1 s" "$s_sox" "$LIC_SYNTH" \
    'sox -R -D -r 48000 -c 1 -n -b 24 "$OUT" synth 1 sine 440 gain -12 dcshift 0.25'
  gen sweep_log_20-20k_48k_f32.wav "exponential sine sweep 20 Hz to 20 kHz in 3 s, peak -6 dBFS" "$s_sox" "$LIC_SYNTH" \
    'sox -R -D -r 48000 -c 1 -n -e floating-point -b 32 "$OUT" synth 3 sine 20/20000 gain -6'

  # Noise (sox RNG seeded by -R), 3 s each, RMS about -20 dBFS.
  gen noise_white_16k.wav "white noise (uniform distribution), peak -15 dBFS, RMS about -20 dBFS, 3 s" "$s_sox" "$LIC_SYNTH" \
    'sox -R -D -r 16000 -c 1 -n -b 16 "$OUT" synth 3 whitenoise gain -n -15'
  gen noise_pink_48k_s24.flac "pink noise, peak -8 dBFS, RMS about -20 dBFS, 3 s" "$s_sox" "$LIC_SYNTH" \
    'sox -R -D -r 48000 -c 1 -n --comment "" -b 24 -C 8 "$OUT" synth 3 pinknoise gain -n -8'
  gen noise_brown_16k.wav "brown (red) noise, peak -15 dBFS, RMS about -20 dBFS, 3 s" "$s_sox" "$LIC_SYNTH" \
    'sox -R -D -r 16000 -c 1 -n -b 16 "$OUT" synth 3 brownnoise gain -n -15'
  gen silence_16k.wav "digital silence: 16000 zero samples" "$s_sox" "$LIC_SYNTH" \
    'sox -R -D -r 16000 -c 1 -n -b 16 "$OUT" trim 0 1'

  # Labelled clips of the evaluation corpus (scripts/eval/make_corpus.py --testaudio writes headerless
  # float32 16 kHz mono with 1 LSB TPDF dither already added, and labels.jsonl): FLAC 16-bit.
  local s_ev="make_corpus.py + espeak-ng $V_ESPEAK + flite $V_FLITE + FluidSynth $V_FLUID + FluidR3_GM + numpy $V_NUMPY + SoX $V_SOX"
  local lic_ev="generated; CC0 (FluidR3_GM soundfont: MIT; espeak-ng and flite output is not covered by their licences)"
  step 'python3 "$EVAL_CORPUS" --testaudio "$W/eval"'
  local clips=(
    "eval_clean_16k:clean speech, espeak-ng en-us+croak; peak -15 dBFS; 6 s; labelled (labels.jsonl)"
    "eval_speech_music_16k:speech (espeak-ng en-029+f1) over Jingle Bells (piano, bass, drums) at 0 dB SNR; 6 s; labelled"
    "eval_music_guitar_16k:music only: Greensleeves on solo nylon guitar (FluidR3_GM); 6 s; labelled"
    "eval_noise_babble_16k:noise only: babble of 8 synthetic talkers, RMS about -30 dBFS; 6 s; labelled (no speech)"
    "eval_overlap_16k:two talkers overlapping at equal level (espeak-ng fr-fr+f1, de+f3); 6 s; labelled incl. multi_speaker"
    "eval_speech_-40dBFS_16k:quiet clean speech, espeak-ng en-us+Annie; peak -40 dBFS; 6 s; labelled"
  )
  local c
  for c in "${clips[@]}"; do
    gen "${c%%:*}.flac" "${c#*:}" "$s_ev" "$lic_ev" \
      "sox -R -D -t f32 -L -r 16000 -c 1 \"\$W/eval/${c%%:*}.f32\" --comment \"\" -b 16 -C 8 \"\$OUT\""
  done
  gen labels.jsonl "labels of the eval_* clips at 10 ms (docs/evaluation.md): one JSON line per segment, audio_filepath relative to TestAudio/" \
    "$s_ev" "$lic_ev" 'cp "$W/eval/labels.jsonl" "$OUT"'

  # Music: fluidsynth renders (dry, 44.1 kHz stereo float), trimmed, faded out, peak -1 dBFS.
  gen music_piano_bass_drums_44k1.flac "piano melody + chords, finger bass, drums; C-Am-F-G-C at 120 bpm; 0.5 s fade-out; peak -1 dBFS" "$s_fs" "$LIC_MUSIC" \
    'sox -R -D -t f32 -L -r 44100 -c 2 "$W/song.f32" --comment "" -b 16 -C 8 "$OUT" trim 0 9.5 fade t 0 9.5 0.5 gain -n -1'
  gen music_drums_44k1.flac "drum kit alone (GM channel 10): 2 bars with fill + crash at 120 bpm; 0.5 s fade-out; peak -1 dBFS" "$s_fs" "$LIC_MUSIC" \
    'sox -R -D -t f32 -L -r 44100 -c 2 "$W/drums.f32" --comment "" -b 16 -C 8 "$OUT" trim 0 4.5 fade t 0 4.5 0.5 gain -n -1'
  gen music_violin_44k1.flac "solo violin (GM 41) melody in G at 90 bpm; 0.5 s fade-out; peak -1 dBFS" "$s_fs" "$LIC_MUSIC" \
    'sox -R -D -t f32 -L -r 44100 -c 2 "$W/solo.f32" --comment "" -b 16 -C 8 "$OUT" trim 0 5.5 fade t 0 5.5 0.5 gain -n -1'
}

# ---------------------------------------------------------------------------------------------------
# MANIFEST
# ---------------------------------------------------------------------------------------------------

describe_format() { # FILE -> "WAV, 16000 Hz, 1 ch, PCM16"
  local f=$1 rate ch enc bits prec container
  if [[ $f == *.jsonl ]]; then
    printf 'JSON Lines, %s lines' "$(wc -l <"$f")"
    return
  fi
  rate=$(soxi -r "$f")
  ch=$(soxi -c "$f")
  enc=$(soxi -e "$f")
  bits=$(soxi -b "$f") # bits per stored sample (0 for Vorbis)
  prec=$(soxi -p "$f") # precision (FLAC: bits per decoded sample)
  case ${f##*.} in
    wav) container=WAV ;; flac) container=FLAC ;; ogg) container=Ogg ;;
    aiff) container=AIFF ;; w64) container=W64 ;; *) container=${f##*.} ;;
  esac
  case $enc in
    "Signed Integer PCM") enc="PCM$bits" ;;
    "Floating Point PCM") enc="Float$bits" ;;
    FLAC) enc="FLAC $prec-bit" ;;
    Vorbis) enc="Vorbis" ;;
  esac
  printf '%s, %s Hz, %s ch, %s' "$container" "$rate" "$ch" "$enc"
}

write_manifest() { # DIR
  local dir=$1 row file desc src lic cmd path duration
  {
    cat <<EOF
# TestAudio manifest

Generated by \`scripts/make-test-audio.sh\`; do not edit by hand. Regenerate with
\`scripts/make-test-audio.sh\`, verify with \`scripts/make-test-audio.sh --check\` (regenerates into a
temp dir and compares every sha256 and this file).

All audio is synthetic and generated by us: CC0. espeak-ng (GPL-3.0-or-later) and FluidSynth
(LGPL-2.1-or-later) are tools; their licences do not cover their output. Music is rendered with the
FluidR3_GM SoundFont (Frank Wen, MIT licence; Debian package fluid-soundfont-gm).

The bytes reproduce exactly with the tool versions below (Debian 12 packages). Other versions may
change resampler, encoder or synthesiser output and therefore the sha256, not the content.

| Tool | Version | Debian package |
|---|---|---|
| espeak-ng | $V_ESPEAK | espeak-ng $(pkg_version espeak-ng) |
| SoX | $V_SOX | sox $(pkg_version sox), libsox-fmt-base $(pkg_version libsox-fmt-base) |
| libFLAC (via SoX) | - | libflac12 $(pkg_version libflac12) |
| libvorbis (via SoX) | - | libvorbisenc2 $(pkg_version libvorbisenc2) |
| FluidSynth | $V_FLUID | fluidsynth $(pkg_version fluidsynth) |
| FluidR3_GM.sf2 | - | fluid-soundfont-gm $(pkg_version fluid-soundfont-gm) |
| flite (eval_* clips) | $V_FLITE | flite $(pkg_version flite) |
| Python 3 (MIDI writer, stdlib only; output independent of the version) | - | - |
| numpy (eval_* clips: noise, mixing; scripts/eval/make_corpus.py) | $V_NUMPY | PyPI |
| soundfile / libsndfile (eval_* clips; nothing it writes reaches the output) | $V_SOUNDFILE | PyPI |

## Files

Commands: \`\$W\` is the scratch directory holding the intermediates below, \`\$OUT\` is the file.
Levels are sample peaks; durations are exact (frames / rate).

<!-- files:begin -->
| File | Content | Format | Duration | Bytes | Source | Licence | Generator command | SHA-256 |
|---|---|---|---|---|---|---|---|---|
EOF
    for row in "${ROWS[@]}"; do
      IFS=$'\t' read -r file desc src lic cmd <<<"$row"
      path=$dir/$file
      if [[ $file == *.jsonl ]]; then duration=-; else duration="$(soxi -D "$path") s ($(soxi -s "$path") frames)"; fi
      printf '| `%s` | %s | %s | %s | %s | %s | %s | `%s` | `%s` |\n' \
        "$file" "$desc" "$(describe_format "$path")" "$duration" \
        "$(stat -c %s "$path")" "$src" "$lic" "$cmd" "$(sha256sum "$path" | cut -d' ' -f1)"
    done
    cat <<EOF
<!-- files:end -->

## Intermediates (in \`\$W\`, not committed)

\`\$SF2\` = \`$SF2\`, \`\$MIDI_WRITER\` = \`scripts/testaudio/make_midi.py\`,
\`\$EVAL_CORPUS\` = \`scripts/eval/make_corpus.py\`.

EOF
    for cmd in "${STEPS[@]}"; do
      printf -- '- `%s`\n' "$cmd"
    done
  } >"$dir/MANIFEST.md"
}

manifest_hashes() { # MANIFEST -> lines "file sha256"
  sed -n '/<!-- files:begin -->/,/<!-- files:end -->/p' "$1" |
    awk -F'|' '/^\| `/ { f = $2; h = $(NF - 1); gsub(/[ `]/, "", f); gsub(/[ `]/, "", h); print f, h }'
}

# ---------------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------------

ensure_tools
tool_versions
[[ -f $MIDI_WRITER ]] || die "missing $MIDI_WRITER"

W=$(mktemp -d "${TMPDIR:-/tmp}/make-test-audio.XXXXXX")
trap 'rm -rf -- "$W"' EXIT
STAGE=$W/out
mkdir "$STAGE"
export W SF2 MIDI_WRITER EVAL_CORPUS

render_all
write_manifest "$STAGE"
# FLAC streams carry an MD5 of the audio: decode-test them.
for f in "$STAGE"/*.flac; do flac -s -t "$f" || die "flac -t failed: $f"; done

if [[ $mode == generate ]]; then
  mkdir -p "$DEST"
  if [[ -f $MANIFEST ]]; then # remove files of the previous generation
    while read -r file _; do rm -f -- "${DEST:?}/$file"; done < <(manifest_hashes "$MANIFEST")
  fi
  cp -- "$STAGE"/* "$DEST"/
  log "wrote ${#ROWS[@]} files + MANIFEST.md to $DEST ($(du -cb "$STAGE"/* | tail -1 | cut -f1) bytes)"
  exit 0
fi

# --check
[[ -f $MANIFEST ]] || die "no $MANIFEST"
fail=0
declare -A want=()
while read -r file hash; do want[$file]=$hash; done < <(manifest_hashes "$MANIFEST")
((${#want[@]} > 0)) || die "no file rows in $MANIFEST"
for file in $(printf '%s\n' "${!want[@]}" | sort); do
  if [[ ! -f $STAGE/$file ]]; then
    echo "MISSING  $file: in MANIFEST, not generated"; fail=1; continue
  fi
  got=$(sha256sum "$STAGE/$file" | cut -d' ' -f1)
  if [[ $got != "${want[$file]}" ]]; then
    echo "DIFFERS  $file: regenerated $got, MANIFEST ${want[$file]}"; fail=1
  fi
  if [[ ! -f $DEST/$file ]]; then
    echo "MISSING  TestAudio/$file"; fail=1
  elif [[ $(sha256sum "$DEST/$file" | cut -d' ' -f1) != "${want[$file]}" ]]; then
    echo "DIFFERS  TestAudio/$file: committed file does not match MANIFEST"; fail=1
  fi
done
for path in "$STAGE"/*; do
  file=${path##*/}
  [[ $file == MANIFEST.md || -n ${want[$file]-} ]] || { echo "EXTRA    $file: generated, not in MANIFEST"; fail=1; }
done
if ! diff -u --label committed/MANIFEST.md --label regenerated/MANIFEST.md "$MANIFEST" "$STAGE/MANIFEST.md"; then
  echo "DIFFERS  MANIFEST.md text (see diff above)"; fail=1
fi
if ((fail)); then
  log "check FAILED"
  exit 1
fi
log "check OK: ${#want[@]} files match MANIFEST.md"
