"""The catalogue of sources: voices, recorded noises and ambiences, recorded music, SoundFont
instruments and drum kits, rooms. Everything is found on this machine (Debian packages and
PyPI packages installed by setup.sh); a missing package only removes its sources.

Every entry is a dict with an "id" (the source id recorded in the manifest; issue #19's ids
where #19 has the same source) and a "kind". Paths of members of zip archives (Quake-style
.pk3, Warzone's .wz) are written "zip:ARCHIVE!MEMBER".

Material reserved for independent checks is never listed: the generator refuses any path
under the prefixes of ../RESERVED.md (RESERVED_PATHS, read from there: one home for the list).
"""
import functools
import glob
import importlib.util
import io
import os
import re
import struct
import zipfile

import numpy as np
import soundfile as sf

from scenelib import music as scene_music
from scenelib import noise as scene_noise
from scenelib import speech as scene_speech
from scenelib.common import resample

import make_corpus  # scripts/eval: the evaluation corpus' sentences in 24 languages

FS = 16000
AUDIO_EXT = (".wav", ".ogg", ".oga", ".opus", ".mp3", ".flac")

def _reserved_list(section):
    """The backquoted entries of a section of ../RESERVED.md."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "RESERVED.md")
    items, current = [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                current = line[3:].strip()
            elif current == section and line.startswith("- `"):
                items.append(line.split("`")[1])
    if not items:
        raise RuntimeError(f"RESERVED.md has no entries under '{section}'")
    return tuple(items)


RESERVED_PATHS = _reserved_list("Path prefixes")
RESERVED_NAMES = _reserved_list("Names")

# --------------------------------------------------------------------------------------------
# Texts
# --------------------------------------------------------------------------------------------

CATALAN = ["Bon dia, com estàs avui?", "El tren cap a Barcelona surt a les nou.",
           "Si us plau, tanca la finestra de la cuina.", "Demà anirem a la platja amb els amics."]


def texts(lang):
    """Sentences of a language: scenelib's 30 English ones plus scripts/eval's 10, or 4 per
    other language (scripts/eval; Catalan written here)."""
    if lang == "en":
        return scene_speech.SENTENCES + make_corpus.TEXTS["en"]
    if lang == "ca":
        return CATALAN
    return make_corpus.TEXTS[lang]


# espeak-ng voice (language) -> text language. English accents all speak English.
ESPEAK_ENGLISH = ["en-us", "en-gb", "en-gb-scotland", "en-gb-x-rp", "en-029", "en-us-nyc",
                  "en-gb-x-gbclan", "en-gb-x-gbcwmd"]
ESPEAK_OTHER = sorted(k for k in make_corpus.TEXTS if k != "en")
ESPEAK_VARIANT_DIR = "/usr/lib/x86_64-linux-gnu/espeak-ng-data/voices/!v"

FLITE_VOICES = ["kal", "kal16", "awb", "rms", "slt"]
# festival voice -> text language (voices that synthesise here; the Indic NSK voices do not)
FESTIVAL_VOICES = {"kal_diphone": "en", "ked_diphone": "en", "cmu_us_slt_arctic_hts": "en",
                   "czech_dita": "cs", "czech_krb": "cs", "czech_machac": "cs", "czech_ph": "cs",
                   "upc_ca_ona_hts": "ca", "hy_fi_mv_diphone": "fi", "suo_fi_lj_diphone": "fi",
                   "lp_diphone": "it", "pc_diphone": "it", "msu_ru_nsh_clunits": "ru"}

# --------------------------------------------------------------------------------------------
# Recorded speech
# --------------------------------------------------------------------------------------------

KTUBERLING = "/usr/share/ktuberling/sounds"
KLETTRES = "/usr/share/klettres"
WARZONE_WZ = "/usr/share/games/warzone2100/base.wz"
WARZONE_VOICE_DIRS = ("audio/coltive/", "audio/countdown/", "audio/extra/", "audio/memressp/",
                      "audio/proxmessages/", "audio/taunts/", "audio/trnsppil/", "audio/tutorial/",
                      "audio/vtoltalk/", "sequenceaudio/")
SUPERTUX_SPEECH = "/usr/share/games/supertux2/speech"


def _reserved(path):
    return path.startswith(RESERVED_PATHS)


def _files(pattern, exclude=None):
    out = sorted(p for p in glob.glob(pattern, recursive=True)
                 if p.lower().endswith(AUDIO_EXT) and not _reserved(p))
    if exclude:
        out = [p for p in out if not re.search(exclude, os.path.basename(p), re.I)]
    return out


def _zip_members(archive, prefixes, exclude=None):
    if not os.path.exists(archive):
        return []
    with zipfile.ZipFile(archive) as z:
        names = sorted(n for n in z.namelist() if n.lower().endswith(AUDIO_EXT) and n.startswith(prefixes))
    if exclude:
        names = [n for n in names if not re.search(exclude, n.rsplit("/", 1)[-1], re.I)]
    return [f"zip:{archive}!{n}" for n in names]


def _espeak_variants():
    if not os.path.isdir(ESPEAK_VARIANT_DIR) or not _which("espeak-ng"):
        return []
    return sorted(os.listdir(ESPEAK_VARIANT_DIR))


def _which(name):
    return any(os.access(os.path.join(d, name), os.X_OK) for d in os.environ.get("PATH", "").split(":"))


@functools.lru_cache(maxsize=None)
def voices():
    """Every voice: TTS voices (espeak-ng variants, flite, festival) and recorded talkers.

    An espeak-ng entry is a variant; the language is drawn per talker track, and the id
    recorded is 'espeak-ng:<lang>+<variant>' (its group is the variant, see splits.group_of).
    """
    out = []
    for var in _espeak_variants():
        out.append({"id": f"espeak-ng:*+{var}", "engine": "espeak-ng", "variant": var, "family": "espeak-ng",
                    "ids": [f"espeak-ng:{lang}+{var}" for lang in ESPEAK_ENGLISH + ESPEAK_OTHER]})
    if _which("flite"):
        out += [{"id": f"flite:{v}", "engine": "flite", "voice": v, "lang": "en", "family": "flite"}
                for v in FLITE_VOICES]
    if _which("text2wave"):
        for v, lang in sorted(FESTIVAL_VOICES.items()):
            if glob.glob(f"/usr/share/festival/voices/*/{v}"):
                out.append({"id": f"festival:{v}", "engine": "festival", "voice": v, "lang": lang,
                            "family": "festival"})
    # recorded talkers
    for d in sorted(glob.glob(f"{KTUBERLING}/*/")):
        files = _files(d + "*")
        if len(files) >= 20:
            out.append({"id": f"ktuberling:{os.path.basename(d.rstrip('/'))}", "engine": "recording",
                        "files": files, "family": "ktuberling"})
    for pack in sorted(glob.glob(f"{scene_speech.HEDGEWARS_VOICES}/*/")):
        files = _files(pack + "*.ogg")
        if len(files) >= 20:
            out.append({"id": f"hedgewars:{os.path.basename(pack.rstrip('/'))}", "engine": "recording",
                        "files": files, "family": "hedgewars"})
    alsa = _files(f"{scene_speech.ALSA_DIR}/*_*.wav")
    if alsa:
        out.append({"id": "alsa-utils:channel-names", "engine": "recording", "files": alsa, "family": "alsa-utils"})
    for d in sorted(glob.glob(f"{KLETTRES}/*/")):
        files = _files(d + "**/*", exclude=None)
        if len(files) >= 20:
            out.append({"id": f"klettres:{os.path.basename(d.rstrip('/'))}", "engine": "recording",
                        "files": files, "family": "klettres"})
    wz = _zip_members(WARZONE_WZ, WARZONE_VOICE_DIRS, exclude=r"laugh|haha|silence")
    if wz:
        out.append({"id": "warzone2100:voices", "engine": "recording", "files": wz, "family": "warzone2100"})
    st = _files(f"{SUPERTUX_SPEECH}/*")
    if len(st) >= 3:
        out.append({"id": "supertux:speech", "engine": "recording", "files": st, "family": "supertux"})
    return tuple(_freeze(v) for v in sorted(out, key=lambda v: v["id"]))


def voice_ids(voice):
    """All source ids a voice entry stands for (espeak-ng: one per language)."""
    return voice.get("ids", [voice["id"]])


# The real two-talker conversation shipped with pyannote.audio (PyPI, MIT): 30 s, two
# speakers, with its RTTM. Used whole, as one source, in the 'conversation' condition.
def pyannote_sample():
    spec = importlib.util.find_spec("pyannote")
    roots = list(spec.submodule_search_locations) if spec and spec.submodule_search_locations else []
    for r in roots:
        wav, rttm = os.path.join(r, "audio", "sample", "sample.wav"), os.path.join(r, "audio", "sample", "sample.rttm")
        if os.path.exists(wav) and os.path.exists(rttm):
            turns = []
            with open(rttm) as f:
                for line in f:
                    p = line.split()
                    if len(p) >= 8 and p[0] == "SPEAKER":
                        turns.append((float(p[3]), float(p[3]) + float(p[4]), p[7]))
            return {"id": "pyannote-audio:sample", "path": wav, "turns": turns}
    return None


# --------------------------------------------------------------------------------------------
# Recorded noises: effects (short, placed as events) and ambiences (looped)
# --------------------------------------------------------------------------------------------

# File names that are (or may be) human voice: never used as noise.
# The second and third lines were added after reading the names of the recordings that a Silero
# pass over every noise file scored highest: only names that say voice were removed (spoken
# channel names, "are you sure", "excellent", grunts and moans, human monsters), none for the
# score alone, so the noise pools are not chosen by a peer.
VOCAL = (r"voice|speech|talk|taunt|announc|laugh|haha|scream|shout|yell|cheer|cry|sing|hello|"
         r"help|ouch|ohno|yipee|goodidea|letsgo|human|elf-|dwarf|orc-|goblin|lich|mermaid|mermen|"
         r"naga|ogre|troll|groan|ugg|wail|prince|nervous|message|dzia|chat|select|ready|underattack|"
         r"_ack|_die|_hit|audio-channel|areyousure|youcannot|tuxok|excellent|welldone|moan|grunt|hurt|"
         r"hell_o|hell_ugh|hogchant|yoohoo|kiss|seen-(cultist|necromancer|vizier|gardener)|die-fairy")

EFFECT_SETS = [  # (package, id prefix, glob or zip spec, kind)
    ("hedgewars-data", "hedgewars", f"{scene_noise.HEDGEWARS_SOUNDS}/*.ogg", "effect"),
    ("alsa-utils", "alsa-utils", "/usr/share/sounds/alsa/Noise.wav", "ambience"),
    ("sound-theme-freedesktop", "freedesktop", "/usr/share/sounds/freedesktop/stereo/*.oga", "effect"),
    ("oxygen-sounds", "oxygen", "/usr/share/sounds/Oxygen-*.ogg", "effect"),
    ("gnome-audio", "gnome-audio", "/usr/share/sounds/*.wav", "effect"),
    ("gnome-audio", "gnome-audio", "/usr/share/sounds/gtk-events/*.wav", "effect"),
    ("gnome-audio", "gnome-audio", "/usr/share/sounds/panel/*.wav", "effect"),
    ("supertux-data", "supertux", "/usr/share/games/supertux2/sounds/*", "effect"),
    ("extremetuxracer-data", "etr", "/usr/share/games/etr/sounds/*", "effect"),
    ("pingus-data", "pingus", "/usr/share/games/pingus/data/sounds/*.wav", "effect"),
    ("tuxpaint-data", "tuxpaint", "/usr/share/tuxpaint/sounds/*.wav", "effect"),
    ("colobot-common-sounds", "colobot", "/usr/share/games/colobot/sounds/*", "effect"),
    ("lincity-ng-data", "lincity-ng", "/usr/share/games/lincity-ng/sounds/*", "ambience"),
    ("scorched3d-data", "scorched3d", "/usr/share/games/scorched3d/data/globalmods/**/wav/**/*", "effect"),
    ("megaglest-data", "megaglest", "/usr/share/games/megaglest/tilesets/*/sounds/*.ogg", "ambience"),
    ("megaglest-data", "megaglest", "/usr/share/games/megaglest/tilesets/*/sounds/*.wav", "effect"),
    ("megaglest-data", "megaglest", "/usr/share/games/megaglest/data/core/water_sounds/*", "ambience"),
    ("bzflag-data", "bzflag", "/usr/share/games/bzflag/*.wav", "effect"),
    ("boswars-data", "boswars", "/usr/share/games/boswars/units/*/*_attack.wav", "effect"),
    ("boswars-data", "boswars", "/usr/share/games/boswars/sounds/**/*.wav", "effect"),
    ("frozen-bubble-data", "frozen-bubble", "/usr/share/games/frozen-bubble/snd/*.ogg", "effect"),
    ("hyperrogue-music", "hyperrogue", "/usr/share/hyperrogue/sounds/*.ogg", "effect"),
    ("warzone2100-data", "warzone2100", ("zip", WARZONE_WZ, ("audio/sfx/", "audio/radclick/", "audio/multi/")),
     "effect"),
    ("openarena-data", "openarena", ("zip", "/usr/share/games/openarena/baseoa/pak0.pk3",
                                     ("sound/world/", "sound/weapons/", "sound/items/", "sound/movers/",
                                      "sound/misc/")), "effect"),
]
# ambiences among the effect sets (by name): long, stationary-ish recordings
AMBIENT_NAMES = r"ambient|wind|rain|water|river|sea|ocean|fire|campfire|birds|night|day|morning|forest|storm|hum|engine|steam|fan|idle"
FRUITY = (r"music|song|jingle|fanfare|tune|horn-signals|wardrums|levelup|win|lose|gamestart|credits|"
          r"valkyries")
MIN_EFFECT_S, MIN_AMBIENCE_S = 0.05, 1.5


def _rel_id(prefix, path):
    if path.startswith("zip:"):
        archive, member = path[4:].split("!", 1)
        return f"{prefix}:{os.path.basename(archive)}/{member}"
    base = {"hedgewars": scene_noise.HEDGEWARS_SOUNDS + "/"}.get(prefix)
    if prefix == "hedgewars" and path.startswith(base):
        return f"hedgewars:{os.path.splitext(path[len(base):])[0]}"   # issue #19's ids
    if prefix == "alsa-utils":
        return "alsa-utils:Noise"
    rel = path
    for root in ("/usr/share/games/", "/usr/share/"):
        if rel.startswith(root):
            rel = rel[len(root):]
            break
    return f"{prefix}:{rel}"


@functools.lru_cache(maxsize=None)
def noises():
    """Recorded noise entries {"id", "kind": effect|ambience, "path", "package", "seconds"}."""
    return _noise_entries(EFFECT_SETS, VOCAL)


def _noise_entries(sets, vocal):
    out, seen = [], set()
    for package, prefix, spec, kind in sets:
        if isinstance(spec, tuple):
            paths = _zip_members(spec[1], spec[2], exclude=vocal)
        else:
            paths = _files(spec, exclude=vocal)
        for p in paths:
            if p in seen or re.search(FRUITY, os.path.basename(p), re.I):
                continue
            seen.add(p)
            try:
                secs = duration(p)
            except (RuntimeError, sf.LibsndfileError, ValueError):
                continue
            k = kind
            if kind == "effect" and secs >= 3.0 and re.search(AMBIENT_NAMES, os.path.basename(p), re.I):
                k = "ambience"
            if secs < (MIN_AMBIENCE_S if k == "ambience" else MIN_EFFECT_S):
                continue
            out.append({"id": _rel_id(prefix, p), "kind": k, "path": p, "package": package,
                        "seconds": round(secs, 3)})
    return tuple(_freeze(e) for e in sorted(out, key=lambda e: e["id"]))


# Train-only recorded effects (generator 1.5.0, make_detect_corpus.py --train-effects): packages
# none of whose sounds the catalogue above holds, so no val or test file can hear them. Their
# sources take the train split by construction (splits.TRAIN_ONLY_PREFIXES), and only the
# train-only classes conditions.effects_only and speech_effects draw from them: every file of
# the catalogue's classes, val and test included, is made as before. More variety of real
# non-speech for the voice-activity model (issue #23: false alarms on recorded effects).
TRAIN_EFFECT_SETS = [
    ("chromium-bsu-data", "chromium-bsu", "/usr/share/games/chromium-bsu/wav/*.wav", "effect"),
    ("tecnoballz-data", "tecnoballz", "/usr/share/games/tecnoballz/sounds/*.wav", "effect"),
    ("lbreakout2-data", "lbreakout2", "/usr/share/games/lbreakout2/sounds/*.wav", "effect"),
    ("pinball-data", "pinball", "/usr/share/games/pinball/*/*.wav", "effect"),
    ("minetest-data", "minetest", "/usr/share/games/minetest/games/minetest_game/mods/*/sounds/*.ogg", "effect"),
    ("btanks-data", "btanks", "/usr/share/games/btanks/data/sounds/*.ogg", "effect"),
    ("btanks-data", "btanks", "/usr/share/games/btanks/data/sounds/ambient/*.ogg", "ambience"),
    ("enigma-data", "enigma", "/usr/share/games/enigma/soundsets/enigma/*.wav", "effect"),
]
# Names in those packages that are (or may be) a voice: lbreakout2's spoken exclamations,
# btanks' dying men and zombies, a player's damage cry (by name, as VOCAL above).
TRAIN_VOCAL = r"dammit|damn|verygood|wontgiveup|deadman|zombie|player_damage|drown"
TRAIN_EFFECT_PREFIXES = tuple(sorted({prefix for _, prefix, _, _ in TRAIN_EFFECT_SETS}))


@functools.lru_cache(maxsize=None)
def train_noises():
    """The train-only recorded noise entries of TRAIN_EFFECT_SETS, as noises() gives its own."""
    return _noise_entries(TRAIN_EFFECT_SETS, VOCAL + "|" + TRAIN_VOCAL)


# --------------------------------------------------------------------------------------------
# Recorded music
# --------------------------------------------------------------------------------------------

MUSIC_SETS = [
    ("hedgewars-data", "hedgewars-music", f"{scene_music.HEDGEWARS_MUSIC}/*.ogg"),
    ("hyperrogue-music", "hyperrogue-music", "/usr/share/hyperrogue/music/*.ogg"),
    ("warzone2100-music", "warzone2100-music", "/usr/share/games/warzone2100/music/**/*.opus"),
    ("nexuiz-music", "nexuiz-music", ("zip", "/usr/share/games/nexuiz/data/music.pk3", ("sound/cdtracks/",))),
    ("ufoai-music", "ufoai-music", ("zip", "/usr/share/games/ufoai/base/0music.pk3", ("music/",))),
    ("singularity-music", "singularity-music", "/usr/share/games/singularity/music/**/*.ogg"),
    ("asc-music", "asc-music", "/usr/share/games/asc/music/*.mp3"),
    ("drascula-music", "drascula-music", "/usr/share/scummvm/drascula/audio/*.ogg"),
    ("frozen-bubble-data", "frozen-bubble", "/usr/share/games/frozen-bubble/snd/*.ogg"),
    ("supertux-data", "supertux", "/usr/share/games/supertux2/music/**/*.ogg"),
    ("extremetuxracer-data", "etr", "/usr/share/games/etr/music/*.ogg"),
    ("colobot-common-sounds", "colobot", "/usr/share/games/colobot/music/*.ogg"),
    ("lincity-ng-data", "lincity-ng", "/usr/share/games/lincity-ng/music/**/*.ogg"),
    ("scorched3d-data", "scorched3d", "/usr/share/games/scorched3d/data/globalmods/**/music/*.ogg"),
    ("neverball-data", "neverball", "/usr/share/games/neverball/bgm/*.ogg"),
    ("megaglest-data", "megaglest", "/usr/share/games/megaglest/**/music/**/*.ogg"),
]
MIN_MUSIC_S = 8.0


def _music_entries(sets):
    """Recorded music entries {"id", "path", "package", "seconds"} of `sets` (tracks of at least
    8 s)."""
    out, seen = [], set()
    for package, prefix, spec in sets:
        paths = _zip_members(spec[1], spec[2]) if isinstance(spec, tuple) else _files(spec)
        for p in paths:
            if p in seen:
                continue
            seen.add(p)
            try:
                secs = duration(p)
            except (RuntimeError, sf.LibsndfileError, ValueError):
                continue
            if secs < MIN_MUSIC_S:
                continue
            if prefix == "hedgewars-music":
                sid = f"hedgewars-music:{os.path.basename(p)[:-4]}"   # issue #19's ids
            else:
                sid = _rel_id(prefix, p)
            out.append({"id": sid, "path": p, "package": package, "seconds": round(secs, 3)})
    return tuple(_freeze(e) for e in sorted(out, key=lambda e: e["id"]))


@functools.lru_cache(maxsize=None)
def music_recordings():
    """Recorded music entries {"id", "path", "package", "seconds"} (tracks of at least 8 s)."""
    return _music_entries(MUSIC_SETS)


# Train-only recorded music (generator 1.7.0, make_detect_corpus.py --train-music): pieces of
# packages whose music the catalogue above does not hold (three of them, btanks, enigma and
# pinball, are train-only effect packages already; their music folders are not in
# TRAIN_EFFECT_SETS), so no val or test file can hear them. Their sources take the train split by
# construction (splits.TRAIN_ONLY_PREFIXES), and only the train-only classes
# conditions.music_pieces and speech_pieces draw from them: every file of the catalogue's classes,
# val and test included, is made as before. More variety of real music for the voice-activity
# model (issue #23: recorded music called speech). Silero VAD hears no speech in any of them
# (at most 0.4 % of a piece's 32 ms chunks at >= 0.5; a one-off check with scripts/eval/run_peers.py's
# SileroOnnx on each whole piece at 16 kHz, 2026-12-06, not kept as a script).
TRAIN_MUSIC_SETS = [
    ("btanks-data", "btanks", "/usr/share/games/btanks/data/tunes/*.ogg"),
    ("enigma-data", "enigma", "/usr/share/games/enigma/music/**/*.ogg"),
    ("pinball-data", "pinball", "/usr/share/games/pinball/*/*.ogg"),
    ("a7xpg-data", "a7xpg", "/usr/share/games/a7xpg/sounds/bgm*.ogg"),
    ("zaz-data", "zaz", "/usr/share/games/zaz/mus*.ogg"),
    ("pangzero", "pangzero", "/usr/share/perl5/auto/share/dist/Games-PangZero/*.mp3"),
    ("powermanga-data", "powermanga", "/usr/share/games/powermanga/sound/*/music_*.ogg"),
    ("lordsawar-data", "lordsawar", "/usr/share/games/lordsawar/music/*.ogg"),
]
TRAIN_MUSIC_PREFIXES = tuple(sorted({prefix for _, prefix, _ in TRAIN_MUSIC_SETS}))


@functools.lru_cache(maxsize=None)
def train_music_recordings():
    """The train-only recorded music entries of TRAIN_MUSIC_SETS, as music_recordings() gives
    its own."""
    return _music_entries(TRAIN_MUSIC_SETS)


# --------------------------------------------------------------------------------------------
# SoundFonts: melodic instruments and drum kits
# --------------------------------------------------------------------------------------------

SOUNDFONTS = {  # name -> (path, Debian package)
    "fluidr3": ("/usr/share/sounds/sf2/FluidR3_GM.sf2", "fluid-soundfont-gm"),
    "timgm6mb": ("/usr/share/sounds/sf2/TimGM6mb.sf2", "timgm6mb-soundfont"),
    "musescore": ("/usr/share/sounds/sf2/MuseScore_General_Full.sf2", "musescore-general-soundfont-lossless"),
    "opl3": ("/usr/share/sounds/sf2/OPL-3_FM_128M.sf2", "opl3-soundfont"),
    "csound-gm": ("/usr/share/sounds/sf2/sf_GMbank.sf2", "csound-soundfont"),
}
DRUM_FONTS = {  # one-preset drum kits (bank 0, program 0, GM drum keys)
    "avl-black-pearl": ("/usr/share/sounds/sf2/Black_Pearl_4_LV2.sf2", "avldrums.lv2-soundfont"),
    "avl-red-zeppelin": ("/usr/share/sounds/sf2/Red_Zeppelin_4_LV2.sf2", "avldrums.lv2-soundfont"),
}
# General MIDI programs used (0-based): all but the sound effects (96-103 FX, 120-127 SFX).
GM_PROGRAMS = list(range(0, 96)) + list(range(104, 120))
GM_FAMILY = ["piano", "chromatic", "organ", "guitar", "bass", "strings", "ensemble", "brass",
             "reed", "pipe", "lead", "pad", "fx", "ethnic", "percussive", "sfx"]
VOICE_PROGRAMS = (52, 53, 54)  # choir aahs, voice oohs, synth voice: "singing" (labelled music)


def sf_presets(path):
    """[(bank, program, name)] from a SoundFont's phdr chunk (sf2 or sf3; RIFF, odd sizes tolerated)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"RIFF" or data[8:12] != b"sfbk":
        raise ValueError(f"{path}: not a SoundFont")

    def chunks(pos, end):
        while pos + 8 <= end:
            cid, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
            yield cid, pos + 8, size
            nxt = pos + 8 + size
            # pad byte after odd sizes, unless the file omits it (some sf3 files do)
            if size & 1 and data[nxt + 1:nxt + 5] in (b"LIST", b"phdr", b"pbag", b"pmod", b"pgen", b"inst"):
                nxt += 1
            pos = nxt

    for cid, start, size in chunks(12, len(data)):
        if cid == b"LIST" and data[start:start + 4] == b"pdta":
            for sid, s2, ssize in chunks(start + 4, start + size):
                if sid == b"phdr":
                    out = []
                    for i in range(s2, s2 + ssize - 38, 38):   # the last record is the terminal EOP
                        name = data[i:i + 20].split(b"\0")[0].decode("latin-1")
                        prog, bank = struct.unpack("<HH", data[i + 20:i + 24])
                        out.append((bank, prog, name))
                    return out
    raise ValueError(f"{path}: no phdr chunk")


@functools.lru_cache(maxsize=None)
def instruments():
    """SoundFont instruments {"id": "sf:<font>:<bank>:<program>", "font", "path", "bank",
    "program", "name", "drums": bool, "family"}: bank-0 melodic GM programs, bank-128 drum kits
    0-55 (the GS SFX kit 56 and the CM-64 set 127 hold laughter, screams and other effects)."""
    out = []
    if not _which("fluidsynth"):
        return ()
    for font, (path, _) in sorted(SOUNDFONTS.items()):
        if not os.path.exists(path):
            continue
        for bank, prog, name in sorted(set(sf_presets(path))):
            if bank == 0 and prog in GM_PROGRAMS:
                out.append({"id": f"sf:{font}:0:{prog}", "font": font, "path": path, "bank": 0, "program": prog,
                            "name": name, "drums": False, "family": GM_FAMILY[prog // 8]})
            elif bank == 128 and prog < 56:   # drum kits; 56 (SFX) and up hold effects, voices among them
                out.append({"id": f"sf:{font}:128:{prog}", "font": font, "path": path, "bank": 128,
                            "program": prog, "name": name, "drums": True, "family": "drums"})
    for font, (path, _) in sorted(DRUM_FONTS.items()):
        if os.path.exists(path):
            out.append({"id": f"sf:{font}:0:0", "font": font, "path": path, "bank": 0, "program": 0,
                        "name": font, "drums": True, "family": "drums", "melodic_channel": True})
    return tuple(_freeze(e) for e in out)


# --------------------------------------------------------------------------------------------
# Audio access
# --------------------------------------------------------------------------------------------

def _open(path):
    if path.startswith("zip:"):
        archive, member = path[4:].split("!", 1)
        with zipfile.ZipFile(archive) as z:
            return io.BytesIO(z.read(member))
    return path


def duration(path):
    info = sf.info(_open(path))
    return info.frames / info.samplerate


def read(path):
    """(audio, rate): a catalogue path (a file or a zip member) at its own rate, float64 mono."""
    x, rate = sf.read(_open(path), dtype="float64", always_2d=True)
    return x.mean(axis=1), rate


@functools.lru_cache(maxsize=4096)
def _load_small(path):
    x, rate = sf.read(_open(path), dtype="float64", always_2d=True)
    return resample(x.mean(axis=1), rate, FS)


def load(path, start_s=None, seconds=None):
    """Audio at 16 kHz, float64 mono (channel mean); optionally an excerpt [start, start+seconds)."""
    if start_s is None:
        y = _load_small(path)
        y.setflags(write=False)
        return y
    src = _open(path)
    info = sf.info(src)
    if hasattr(src, "seek"):
        src.seek(0)
    a = int(start_s * info.samplerate)
    b = a + int(np.ceil(seconds * info.samplerate)) + 64
    x, rate = sf.read(src, start=a, stop=min(b, info.frames), dtype="float64", always_2d=True)
    return resample(x.mean(axis=1), rate, FS)


def _freeze(d):
    """Entries are cached and shared: make their lists tuples."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}


def all_source_ids():
    """Every source id of the catalogue (for the split rule)."""
    from .rooms import room_ids
    ids = set()
    for v in voices():
        ids.update(voice_ids(v))
    ids.update(e["id"] for e in noises())
    ids.update(e["id"] for e in train_noises())
    ids.update(e["id"] for e in music_recordings())
    ids.update(e["id"] for e in train_music_recordings())
    ids.update(e["id"] for e in instruments())
    ids.update(room_ids())
    s = pyannote_sample()
    if s:
        ids.add(s["id"])
    return ids
