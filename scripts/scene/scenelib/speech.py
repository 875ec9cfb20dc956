"""Speech sources: TTS engines (espeak-ng, flite, festival) and Debian recordings.

A voice is a dict {"id", "engine", ...}; its id is the split unit (speaker).
"""
import functools
import glob
import os
import re

import numpy as np

from .common import read_mono, resample, run, trim_silence, via_tempfile

# Sentences written for this corpus (no third-party text).
SENTENCES = [
    "The morning train was late again, so we walked along the river instead.",
    "Please put the blue folder on the second shelf next to the window.",
    "A small dog barked at the postman while the kettle started to whistle.",
    "We counted seven boats in the harbour before the fog rolled in.",
    "Her grandmother kept a garden full of tomatoes, beans and sunflowers.",
    "Turn left at the bakery, then follow the signs to the old library.",
    "The meeting will start at half past nine in the large conference room.",
    "Bright lights flickered across the lake as the evening grew colder.",
    "He forgot his umbrella, and the rain soaked his new grey jacket.",
    "Most of the students finished the puzzle in less than ten minutes.",
    "The engineer checked every cable twice before switching the power on.",
    "Fresh bread and warm soup are the best things on a winter afternoon.",
    "Could you tell me how far it is to the nearest petrol station?",
    "The orchestra played quietly while the audience found their seats.",
    "A strong wind blew the paper lanterns down from the garden fence.",
    "They painted the kitchen yellow and hung a clock above the door.",
    "Our neighbour repairs bicycles in his garage every Saturday morning.",
    "The museum opens at ten and closes early on public holidays.",
    "She wrote a long letter to her cousin who lives by the sea.",
    "Keep the receipt in case you need to return the broken lamp.",
    "Thunder rolled over the hills and the children ran back inside.",
    "The recipe needs two eggs, a cup of flour and a pinch of salt.",
    "Nobody expected the quiet student to win the chess tournament.",
    "The farmer sold apples, pears and honey at the weekly market.",
    "We should leave before the traffic gets heavy on the motorway.",
    "The lighthouse keeper climbed the narrow stairs every single night.",
    "Remember to water the plants while we are away on holiday.",
    "A flock of geese flew south over the frozen fields at dawn.",
    "The doctor asked him to breathe slowly and count to twenty.",
    "Every book on the top shelf was covered in a thin layer of dust.",
]

ESPEAK_BASES = ["en-us", "en-gb", "en-gb-scotland", "en-gb-x-rp", "en-029", "en-us-nyc", "en-gb-x-gbclan"]
ESPEAK_VARIANTS = ["m1", "m2", "m3", "m4", "m5", "m7", "f1", "f2", "f3", "f4", "f5",
                   "klatt", "klatt3", "Andy", "Annie", "Denis", "linda", "steph", "edward", "grandpa"]
FLITE_VOICES = ["kal", "kal16", "awb", "rms", "slt"]
FESTIVAL_VOICES = ["kal_diphone", "ked_diphone", "cmu_us_slt_arctic_hts"]
KTUBERLING_DIR = "/usr/share/ktuberling/sounds"
HEDGEWARS_VOICES = "/usr/share/games/hedgewars/Data/Sounds/voices"
ALSA_DIR = "/usr/share/sounds/alsa"


def catalogue():
    """All available voices (sorted by id); engines or packages that are missing are skipped."""
    voices = []
    if _have("/usr/bin/espeak-ng"):
        for i, var in enumerate(ESPEAK_VARIANTS):
            base = ESPEAK_BASES[i % len(ESPEAK_BASES)]
            voices.append({"id": f"espeak-ng:{base}+{var}", "engine": "espeak-ng", "voice": f"{base}+{var}"})
    if _have("/usr/bin/flite"):
        voices += [{"id": f"flite:{v}", "engine": "flite", "voice": v} for v in FLITE_VOICES]
    if _have("/usr/bin/text2wave"):
        for v in FESTIVAL_VOICES:
            if glob.glob(f"/usr/share/festival/voices/*/{v}"):
                voices.append({"id": f"festival:{v}", "engine": "festival", "voice": v})
    for lang_dir in sorted(glob.glob(f"{KTUBERLING_DIR}/*/")):
        files = sorted(glob.glob(lang_dir + "*.ogg"))
        if len(files) >= 20:
            lang = os.path.basename(lang_dir.rstrip("/"))
            voices.append({"id": f"ktuberling:{lang}", "engine": "recording", "files": files})
    for pack in sorted(glob.glob(f"{HEDGEWARS_VOICES}/*/")):
        files = sorted(glob.glob(pack + "*.ogg"))
        if len(files) >= 20:
            name = os.path.basename(pack.rstrip("/"))
            voices.append({"id": f"hedgewars:{name}", "engine": "recording", "files": files})
    alsa = sorted(glob.glob(f"{ALSA_DIR}/*_*.wav"))
    if alsa:
        voices.append({"id": "alsa-utils:channel-names", "engine": "recording", "files": alsa})
    return sorted(voices, key=lambda v: v["id"])


def _have(path):
    return os.path.exists(path)


def has_text(voice):
    """True when the voice speaks known text (so syllables can be counted)."""
    return voice["engine"] != "recording"


@functools.lru_cache(maxsize=None)
def _tts(engine, voice, text):
    if engine == "espeak-ng":
        return via_tempfile(".wav", lambda p: run(["espeak-ng", "-v", voice, "-w", p, text]))
    if engine == "flite":
        return via_tempfile(".wav", lambda p: run(["flite", "-voice", voice, "-t", text, "-o", p]))
    if engine == "festival":
        return via_tempfile(".wav", lambda p: run(
            ["text2wave", "-eval", f"(voice_{voice})", "-o", p], input=text.encode()))
    raise ValueError(engine)


@functools.lru_cache(maxsize=None)
def _recording(path):
    return read_mono(path)


def utterance(voice, rng, fs):
    """One utterance of a voice at rate fs: (audio, item id, text or None)."""
    if voice["engine"] == "recording":
        path = voice["files"][int(rng.integers(len(voice["files"])))]
        x, rate = _recording(path)
        item, text = path, None
    else:
        text = SENTENCES[int(rng.integers(len(SENTENCES)))]
        x, rate = _tts(voice["engine"], voice["voice"], text)
        item = text
    x = trim_silence(resample(x, rate, fs))
    return x / (np.max(np.abs(x)) + 1e-12), item, text


@functools.lru_cache(maxsize=None)
def syllables(text):
    """Syllable count of English text: vowel nuclei in espeak-ng's IPA (en-us).

    A nucleus is a maximal run of IPA vowel letters (with length marks and
    tie bars), or a syllabic consonant (combining vertical line U+0329).
    """
    ipa = run(["espeak-ng", "-q", "--ipa", "-v", "en-us", text]).stdout.decode()
    vowels = "aeiouyɑɒæɐɛəɜɚɝɪɨʊʉʌɔøœɤɯɵɘʏ"
    nuclei = re.findall(f"[{vowels}][{vowels}ːˑ͡]*|.\u0329", ipa)
    return len(nuclei)


def speech_track(voice, rng, fs, n, start_s, gap_s=(0.25, 0.8), max_items=None):
    """A track of n samples: utterances of one voice separated by pauses.

    Starts at start_s, pauses drawn uniformly from gap_s; stops before the
    end of the track (the last utterance is never cut).  Returns
    (track, segments [(start_s, end_s, item)], syllable count or None).
    """
    track = np.zeros(n)
    pos = int(start_s * fs)
    segs, syl = [], 0
    while max_items is None or len(segs) < max_items:
        x, item, text = utterance(voice, rng, fs)
        if pos + len(x) > n:
            break
        track[pos:pos + len(x)] = x
        segs.append((pos / fs, (pos + len(x)) / fs, item))
        syl = syl + syllables(text) if (syl is not None and text) else None
        pos += len(x) + int(rng.uniform(*gap_s) * fs)
    return track, segs, syl
