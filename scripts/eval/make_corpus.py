#!/usr/bin/env python3
"""Make the labelled evaluation corpus for speech / music / multi-speaker detection (issue #4).

    make_corpus.py [--out corpus] [--jobs 2]     the corpus: OUT/<class>/*.wav, OUT/labels.jsonl,
                                                 OUT/manifest.jsonl
    make_corpus.py --testaudio DIR               the small golden subset (6 clips, raw float32,
                                                 + DIR/labels.jsonl) that scripts/make-test-audio.sh
                                                 encodes into TestAudio/

Deterministic: no network, fixed seeds (every file's RNG is seeded from its own name), fixed
tool settings; the same tool versions give the same bytes. Tools: espeak-ng and flite (speech), the
real spoken recordings Debian's alsa-utils ships (/usr/share/sounds/alsa),
fluidsynth + FluidR3_GM (music from MIDI written by tunes.py), sox (resampling to 16 kHz), numpy
and soundfile. See docs/evaluation.md for the conditions and the labelling rule; in short:

  speech         per talker, per utterance: 10 ms frames whose RMS is within 40 dB of the
                 utterance's loudest frame and above -90 dBFS; gaps < 250 ms merged. The file's
                 speech label is the union over its talkers (gaps < 250 ms merged again).
  music          frames of the music stem within 50 dB of its loudest frame and above -90 dBFS;
                 gaps < 500 ms merged.
  multi_speaker  frames where two or more talkers' speech labels are true.

Levels are sample peaks in dBFS of the final mixture. SNRs compare the speech stem's mean power
over its labelled speech frames with the background's mean power over the whole file. Files are
16 kHz mono PCM16 WAV (TPDF dither of 1 LSB peak, except digital silence), a few copies at
44.1 and 48 kHz under hi_rate/.
"""
import argparse
import json
import multiprocessing as mp
import os
import shutil
import subprocess
import sys
import tempfile
import zlib

import numpy as np
import soundfile as sf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tunes  # noqa: E402

SR = 16000
HOP = 160                 # 10 ms
SPEECH_REL_DB = 40.0      # speech frames: within 40 dB of the utterance's loudest frame
MUSIC_REL_DB = 50.0
FLOOR_DB = -90.0          # and above this frame RMS (dBFS)
SPEECH_GAP = 25           # frames: merge speech gaps shorter than 250 ms
MUSIC_GAP = 50            # frames: merge music gaps shorter than 500 ms
SF2 = "/usr/share/sounds/sf2/FluidR3_GM.sf2"

# --------------------------------------------------------------------------------------------------
# Speech sources
# --------------------------------------------------------------------------------------------------

TEXTS = {
    "en": ["The quick brown fox jumps over the lazy dog.",
           "Please call Stella and ask her to bring these things with her from the store.",
           "Turn on the kitchen lights and set a timer for ten minutes.",
           "What is the weather like tomorrow in Boston?",
           "Six spoons of fresh snow peas, five thick slabs of blue cheese, and maybe a snack for her brother Bob.",
           "We also need a small plastic snake and a big toy frog for the kids.",
           "The meeting has been moved to Thursday afternoon at half past three.",
           "I would like to book a table for two near the window, if that is possible.",
           "Remember to water the plants before you leave for the airport.",
           "The library closes early on Sundays, so we should go in the morning."],
    "de": ["Guten Morgen, wie geht es Ihnen heute?", "Das Wetter ist heute sehr schön und warm.",
           "Bitte schalten Sie das Licht im Wohnzimmer aus.", "Der Zug nach Berlin fährt um halb acht ab."],
    "fr-fr": ["Bonjour, comment allez-vous aujourd'hui ?", "Il fait très beau ce matin à Paris.",
              "Pouvez-vous fermer la fenêtre, s'il vous plaît ?", "Le train pour Lyon part dans dix minutes."],
    "es": ["Buenos días, ¿cómo está usted?", "Hoy hace sol en Madrid y mañana lloverá.",
           "Por favor, apague la luz de la cocina.", "El autobús llega a las ocho y media."],
    "it": ["Buongiorno, come sta oggi?", "Il treno per Roma parte alle nove.",
           "Per favore, chiuda la porta quando esce.", "Domani andiamo al mare con gli amici."],
    "pt-br": ["Bom dia, tudo bem com você?", "O ônibus para o centro sai às sete horas.",
              "Por favor, desligue a televisão da sala.", "Amanhã vai chover o dia inteiro."],
    "nl": ["Goedemorgen, hoe gaat het met u?", "De trein naar Amsterdam vertrekt om tien uur.",
           "Wilt u alstublieft de deur dichtdoen?", "Morgen gaan we fietsen in het park."],
    "sv": ["God morgon, hur mår du idag?", "Tåget till Stockholm går klockan nio.",
           "Kan du stänga fönstret, tack?", "I morgon ska vi åka till skärgården."],
    "pl": ["Dzień dobry, jak się pan dzisiaj czuje?", "Pociąg do Krakowa odjeżdża o ósmej.",
           "Proszę zamknąć drzwi do kuchni.", "Jutro będzie padać przez cały dzień."],
    "ru": ["Доброе утро, как у вас дела?", "Поезд в Москву отправляется в девять часов.",
           "Пожалуйста, закройте окно на кухне.", "Завтра мы поедем за город к друзьям."],
    "cs": ["Dobré ráno, jak se dnes máte?", "Vlak do Brna odjíždí v osm hodin.",
           "Zavřete prosím dveře do kuchyně.", "Zítra pojedeme na výlet do hor."],
    "fi": ["Hyvää huomenta, mitä kuuluu?", "Juna Helsinkiin lähtee kello yhdeksän.",
           "Voisitko sulkea ikkunan, kiitos?", "Huomenna menemme mökille järven rannalle."],
    "tr": ["Günaydın, bugün nasılsınız?", "İstanbul treni saat dokuzda kalkıyor.",
           "Lütfen mutfağın ışığını kapatın.", "Yarın arkadaşlarımızla denize gideceğiz."],
    "el": ["Καλημέρα, τι κάνετε σήμερα;", "Το τρένο για την Αθήνα φεύγει στις εννιά.",
           "Παρακαλώ κλείστε την πόρτα της κουζίνας.", "Αύριο θα πάμε στη θάλασσα με τους φίλους μας."],
    "hu": ["Jó reggelt, hogy van ma?", "A vonat Budapestre kilenc órakor indul.",
           "Kérem, csukja be az ablakot.", "Holnap kirándulni megyünk a hegyekbe."],
    "ro": ["Bună dimineața, ce mai faceți?", "Trenul spre București pleacă la ora nouă.",
           "Vă rog să închideți fereastra.", "Mâine mergem la munte cu prietenii."],
    "id": ["Selamat pagi, apa kabar hari ini?", "Kereta ke Bandung berangkat jam sembilan.",
           "Tolong matikan lampu di dapur.", "Besok kami akan pergi ke pantai bersama teman."],
    "vi": ["Xin chào, hôm nay bạn khỏe không?", "Chuyến tàu đi Hà Nội khởi hành lúc chín giờ.",
           "Làm ơn tắt đèn trong bếp.", "Ngày mai chúng tôi sẽ đi biển với bạn bè."],
    "hi": ["नमस्ते, आप आज कैसे हैं?", "दिल्ली जाने वाली ट्रेन नौ बजे चलती है।",
           "कृपया रसोई की बत्ती बंद कर दीजिए।", "कल हम दोस्तों के साथ समुद्र तट पर जाएंगे।"],
    "cmn": ["早上好，你今天怎么样？", "去北京的火车九点出发。", "请把厨房的灯关掉。", "明天我们和朋友一起去海边。"],
    "sw": ["Habari za asubuhi, hujambo?", "Treni ya Mombasa inaondoka saa tatu.",
           "Tafadhali zima taa ya jikoni.", "Kesho tutakwenda ufukweni na marafiki."],
    "da": ["Godmorgen, hvordan har du det i dag?", "Toget til Aarhus kører klokken ni.",
           "Vil du lukke vinduet, tak?", "I morgen tager vi til stranden med vennerne."],
    "uk": ["Доброго ранку, як у вас справи?", "Потяг до Києва вирушає о дев'ятій годині.",
           "Будь ласка, вимкніть світло на кухні.", "Завтра ми поїдемо до моря з друзями."],
    "ar": ["صباح الخير، كيف حالك اليوم؟", "القطار إلى القاهرة يغادر في الساعة التاسعة.",
           "من فضلك أطفئ الضوء في المطبخ.", "غدا سنذهب إلى البحر مع أصدقائنا."],
}

# (id, engine, voice, text language, words per minute, pitch 0-99)
ESPEAK_VOICES = [
    ("en-us_m1", "en-us+m1", "en", 165, 45), ("en-us_f2", "en-us+f2", "en", 160, 55),
    ("en-gb_m3", "en-gb+m3", "en", 150, 40), ("en-gb_f4", "en-gb+f4", "en", 175, 60),
    ("en-us_Annie", "en-us+Annie", "en", 155, 50), ("en-us_Andy", "en-us+Andy", "en", 170, 45),
    ("en-gb-scotland_m2", "en-gb-scotland+m2", "en", 160, 35), ("en-029_f1", "en-029+f1", "en", 150, 60),
    ("en-us_klatt4", "en-us+klatt4", "en", 150, 50), ("en-us_croak", "en-us+croak", "en", 140, 30),
    ("en-us_Michael", "en-us+Michael", "en", 165, 40), ("en-gb-x-rp_f5", "en-gb-x-rp+f5", "en", 160, 65),
    ("de_m4", "de+m4", "de", 155, 45), ("de_f3", "de+f3", "de", 165, 60),
    ("fr-fr_m5", "fr-fr+m5", "fr-fr", 160, 45), ("fr-fr_f1", "fr-fr+f1", "fr-fr", 170, 60),
    ("es_m6", "es+m6", "es", 165, 45), ("es_f5", "es+f5", "es", 160, 60),
    ("it_m7", "it+m7", "it", 160, 50), ("pt-br_f2", "pt-br+f2", "pt-br", 165, 55),
    ("nl_m3", "nl+m3", "nl", 150, 40), ("sv_f4", "sv+f4", "sv", 160, 60),
    ("pl_m1", "pl+m1", "pl", 155, 45), ("ru_m2", "ru+m2", "ru", 150, 40),
    ("cs_f3", "cs+f3", "cs", 160, 55), ("fi_m5", "fi+m5", "fi", 155, 45),
    ("tr_f1", "tr+f1", "tr", 165, 60), ("el_m6", "el+m6", "el", 160, 45),
    ("hu_f5", "hu+f5", "hu", 155, 60), ("ro_m4", "ro+m4", "ro", 160, 45),
    ("id_f2", "id+f2", "id", 165, 55), ("vi_m1", "vi+m1", "vi", 150, 50),
    ("hi_f4", "hi+f4", "hi", 150, 60), ("cmn_m3", "cmn+m3", "cmn", 140, 50),
    ("sw_m7", "sw+m7", "sw", 155, 40), ("da_f3", "da+f3", "da", 160, 60),
    ("uk_f1", "uk+f1", "uk", 155, 60), ("ar_m2", "ar+m2", "ar", 150, 45),
]
FLITE_VOICES = ["slt", "rms", "awb", "kal16", "kal"]
# Real recordings: the eight spoken channel names that Debian's alsa-utils ships for speaker-test
# (one human talker, 48 kHz, about 1.4 s each; GPL-2 like the package). Voice id "real_alsa";
# used only where the plan names it, never drawn at random.
REAL_DIR = "/usr/share/sounds/alsa"
REAL_CLIPS = ["Front_Center", "Front_Left", "Front_Right", "Rear_Center", "Rear_Left", "Rear_Right",
              "Side_Left", "Side_Right"]
REAL = "real_alsa"
N_UTTERANCES = 4          # per voice (English voices take 4 of the 10 English sentences)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw).stdout


def to_16k(wav_bytes):
    """A WAV (any rate) -> float32 mono 16 kHz, resampled by sox's very-high-quality rate."""
    raw = run(["sox", "-R", "-D", "-t", "wav", "-", "-t", "f32", "-L", "-c", "1", "-", "rate", "-v", str(SR)],
              input=wav_bytes)
    return np.frombuffer(raw, dtype="<f4").astype(np.float64)


def render_utterance(job):
    voice_id, engine, voice, text, wpm, pitch = job
    if engine == "file":
        with open(voice, "rb") as f:
            wav = f.read()
    elif engine == "espeak":
        wav = run(["espeak-ng", "-b", "1", "-v", voice, "-s", str(wpm), "-p", str(pitch), "--stdout", text])
    else:
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "u.wav")
            run(["flite", "-voice", voice, "-t", text, "-o", p])
            with open(p, "rb") as f:
                wav = f.read()
    x = to_16k(wav)
    # trim the synthesiser's leading/trailing digital silence to the 10 ms grid; the track
    # builder adds pauses of its own
    nz = np.flatnonzero(np.abs(x) > 1e-5)
    if len(nz):
        x = x[max(0, nz[0] - HOP): nz[-1] + HOP]
    x = np.concatenate([x, np.zeros((-len(x)) % HOP)])
    peak = np.max(np.abs(x))
    return voice_id, x / peak if peak > 0 else x


def utterance_jobs(real=True):
    jobs = []
    for i, (vid, voice, lang, wpm, pitch) in enumerate(ESPEAK_VOICES):
        texts = TEXTS[lang]
        for j in range(N_UTTERANCES):
            # English voices rotate through the ten English sentences
            t = texts[(i * N_UTTERANCES + j) % len(texts)] if lang == "en" else texts[j % len(texts)]
            jobs.append((vid, "espeak", voice, t, wpm, pitch))
    for i, v in enumerate(FLITE_VOICES):
        for j in range(N_UTTERANCES):
            jobs.append((f"flite_{v}", "flite", v, TEXTS["en"][(3 * i + j) % 10], 0, 0))
    if real:
        for c in REAL_CLIPS:
            jobs.append((REAL, "file", os.path.join(REAL_DIR, c + ".wav"), c, 0, 0))
    return jobs


# --------------------------------------------------------------------------------------------------
# Music
# --------------------------------------------------------------------------------------------------

def render_piece(name):
    _, make = tunes.PIECES[name]
    with tempfile.TemporaryDirectory() as d:
        mid, raw = os.path.join(d, "p.mid"), os.path.join(d, "p.f32")
        with open(mid, "wb") as f:
            f.write(make())
        # dry (reverb and chorus off), one core: deterministic; headerless float output
        run(["fluidsynth", "-ni", "-q", "-R", "0", "-C", "0", "-o", "synth.cpu-cores=1", "-g", "0.5",
             "-r", str(SR), "-O", "float", "-E", "little", "-T", "raw", "-F", raw, SF2, mid])
        x = np.fromfile(raw, dtype="<f4").astype(np.float64).reshape(-1, 2).mean(axis=1)
    nz = np.flatnonzero(np.abs(x) > 1e-5)
    x = x[nz[0]: nz[-1] + 1] if len(nz) else x
    return name, x / np.max(np.abs(x))


# --------------------------------------------------------------------------------------------------
# Signal helpers
# --------------------------------------------------------------------------------------------------

def seed(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def frame_db(x):
    n = len(x) // HOP
    p = np.mean(x[: n * HOP].reshape(n, HOP) ** 2, axis=1)
    return 10 * np.log10(p + 1e-30)


def merge_gaps(lab, max_gap):
    """Fill runs of False shorter than max_gap frames that have True on both sides."""
    lab = lab.copy()
    idx = np.flatnonzero(lab)
    if len(idx) < 2:
        return lab
    gaps = np.flatnonzero(np.diff(idx) > 1)
    for g in gaps:
        a, b = idx[g] + 1, idx[g + 1]
        if b - a < max_gap:
            lab[a:b] = True
    return lab


def speech_label(stem, spans, n):
    """Per utterance span (sample offsets on the 10 ms grid): relative + floor threshold."""
    db = frame_db(stem)
    lab = np.zeros(n, dtype=bool)
    for a, b in spans:
        fa, fb = a // HOP, min(n, b // HOP)
        if fb <= fa:
            continue
        e = db[fa:fb]
        thr = max(e.max() - SPEECH_REL_DB, FLOOR_DB)
        lab[fa:fb] |= e >= thr
    return merge_gaps(lab, SPEECH_GAP)


def music_label(stem, n):
    db = frame_db(stem)[:n]
    if db.max() < FLOOR_DB:
        return np.zeros(n, dtype=bool)
    return merge_gaps(db >= max(db.max() - MUSIC_REL_DB, FLOOR_DB), MUSIC_GAP)


def db2a(db):
    return 10 ** (db / 20)


def grid(seconds):
    return int(round(seconds * SR / HOP)) * HOP


class Talker:
    """A talker's stem: utterances placed on the 10 ms grid, with their spans."""

    def __init__(self, length):
        self.x = np.zeros(length)
        self.spans = []

    def place(self, utt, at, gain=1.0):
        end = min(len(self.x), at + len(utt))
        if end <= at:
            return at
        self.x[at:end] += gain * utt[: end - at]
        self.spans.append((at, end))
        return end

    def scale(self, g):
        self.x *= g

    def active_power(self):
        lab = speech_label(self.x, self.spans, len(self.x) // HOP)
        fr = self.x[: len(lab) * HOP].reshape(-1, HOP)[lab]
        return float(np.mean(fr ** 2)) if fr.size else 0.0


def track(utts, rng, length=None, lead=(0.3, 1.0), gap=(0.3, 1.2)):
    """Utterances one after another with pauses; the total length (grid) is returned too."""
    pos = grid(rng.uniform(*lead))
    plan = []
    for u in utts:
        plan.append((u, pos))
        pos += len(u) + grid(rng.uniform(*gap))
    if length is None:
        length = plan[-1][1] + len(plan[-1][0]) + grid(rng.uniform(*lead))
    t = Talker(length)
    for u, at in plan:
        t.place(u, at)
    return t


# --------------------------------------------------------------------------------------------------
# Noises (numpy, seeded)
# --------------------------------------------------------------------------------------------------

def shaped(rng, n, gain_of_f):
    """Gaussian noise shaped in the frequency domain by gain_of_f(f in Hz)."""
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n, 1 / SR)
    y = np.fft.irfft(spec * gain_of_f(np.maximum(f, 1.0)), n)
    return y / np.sqrt(np.mean(y ** 2))


def noise(kind, n, rng, babble_pool=None):
    t = np.arange(n) / SR
    if kind == "white":
        return rng.standard_normal(n)
    if kind == "pink":
        return shaped(rng, n, lambda f: np.where(f < 20, 0, 1 / np.sqrt(f)))
    if kind == "brown":
        return shaped(rng, n, lambda f: np.where(f < 20, 0, 1 / f))
    if kind in ("hum50", "hum60"):
        f0 = 50 if kind == "hum50" else 60
        y = sum(np.sin(2 * np.pi * f0 * k * t + rng.uniform(0, 2 * np.pi)) / k ** 1.2 for k in range(1, 12))
        y += 0.02 * rng.standard_normal(n)
        return y / np.sqrt(np.mean(y ** 2))
    if kind == "fan":
        body = shaped(rng, n, lambda f: 1 / np.sqrt(f) * np.exp(-((np.log(f / 400)) ** 2) / 2))
        bpf = rng.uniform(90, 140)  # blade-pass frequency
        tone = sum(np.sin(2 * np.pi * bpf * k * t + rng.uniform(0, 6.3)) / k for k in (1, 2, 3))
        tone *= 1 + 0.2 * np.sin(2 * np.pi * 0.7 * t)
        y = body + 0.5 * tone
        return y / np.sqrt(np.mean(y ** 2))
    if kind == "rain":
        hiss = shaped(rng, n, lambda f: np.clip(f / 3000, 0.1, 1) * np.exp(-f / 9000))
        drops = np.zeros(n)
        k = rng.poisson(60 * n / SR)
        pos = rng.integers(0, n - 400, k)
        env = np.exp(-np.arange(400) / 60.0)
        for p in pos:
            drops[p:p + 400] += rng.uniform(0.5, 3) * env * rng.standard_normal(400)
        y = hiss + drops
        return y / np.sqrt(np.mean(y ** 2))
    if kind == "traffic":
        rumble = shaped(rng, n, lambda f: np.where(f < 25, 0, 1 / f ** 1.3))
        swell = np.ones(n) * 0.4
        for _ in range(max(1, int(n / SR / 4))):  # passing vehicles: 3-6 s swells
            c, w = rng.uniform(0, n / SR), rng.uniform(1.5, 3)
            swell += rng.uniform(0.5, 1.5) * np.exp(-((t - c) / w) ** 2)
        tyre = shaped(rng, n, lambda f: np.exp(-((np.log(f / 900)) ** 2)))
        y = swell * (rumble + 0.5 * tyre)
        return y / np.sqrt(np.mean(y ** 2))
    if kind == "babble":
        y = np.zeros(n)
        keys = list(babble_pool)
        for i in range(8):  # eight talkers, continuous, equal power
            v = babble_pool[keys[rng.integers(len(keys))]]
            seq = np.concatenate([v[j] for j in rng.permutation(len(v))] * 4)
            off = rng.integers(0, len(seq) // 2)
            seq = np.tile(seq, 1 + n // len(seq) + 1)[off: off + n]
            y += seq / np.sqrt(np.mean(seq ** 2) + 1e-12)
        return y / np.sqrt(np.mean(y ** 2))
    raise ValueError(kind)


NOISES = ["white", "pink", "brown", "babble", "hum50", "hum60", "fan", "rain", "traffic"]

# --------------------------------------------------------------------------------------------------
# Conditions
# --------------------------------------------------------------------------------------------------

POOL = {}    # voice id -> [utterances]   (filled in the parent before the worker pool forks)
MUSIC = {}   # piece -> signal
VOICE_IDS = []


def voices_for(rng, k, exclude=()):
    ids = [v for v in VOICE_IDS if v not in exclude]
    return [ids[i] for i in rng.choice(len(ids), size=k, replace=False)]


def utts_of(rng, vid, k):
    u = POOL[vid]
    return [u[i] for i in rng.choice(len(u), size=min(k, len(u)), replace=False)]


def music_bed(rng, piece, n):
    x = MUSIC[piece]
    if len(x) < n:
        x = np.tile(x, n // len(x) + 1)
    off = rng.integers(0, len(x) - n + 1)
    y = x[off: off + n].copy()
    fade = int(0.05 * SR)
    y[:fade] *= np.linspace(0, 1, fade)
    y[-fade:] *= np.linspace(1, 0, fade)
    return y


def finish(name, talkers, background=None, bg_is_music=False, peak_db=-3.0, ramp_db=None):
    """Mix, set the peak level, label from the scaled stems. Returns (signal, labels dict)."""
    n_samp = len(talkers[0].x) if talkers else len(background)
    mix = np.zeros(n_samp)
    for t in talkers:
        mix += t.x
    if background is not None:
        mix += background
    gain_curve = np.ones(n_samp)
    if ramp_db is not None:  # level ramp in dB across the file (applied to everything)
        gain_curve = db2a(np.linspace(ramp_db[0], ramp_db[1], n_samp))
        mix *= gain_curve
    peak = np.max(np.abs(mix))
    g = db2a(peak_db) / peak if peak > 0 else 1.0
    mix *= g
    n = n_samp // HOP
    labs = [speech_label(t.x * gain_curve * g, t.spans, n) for t in talkers]
    speech = merge_gaps(np.any(labs, axis=0), SPEECH_GAP) if labs else np.zeros(n, dtype=bool)
    multi = (np.sum(labs, axis=0) >= 2) if len(labs) >= 2 else np.zeros(n, dtype=bool)
    music = music_label(background * gain_curve * g, n) if bg_is_music else np.zeros(n, dtype=bool)
    return mix, {"speech": speech, "music": music, "multi_speaker": multi}


def cond_clean(name, level, rng):
    vid = rng_pick(rng)
    t = track(utts_of(rng, vid, 3), rng)
    mix, lab = finish(name, [t], peak_db=level)
    return mix, lab, {"voices": [vid], "peak_dbfs": level}


def rng_pick(rng):
    return VOICE_IDS[rng.integers(len(VOICE_IDS))]


def speech_over(name, rng, bg_kind, snr_db, music=False, vid=None):
    vid = vid or rng_pick(rng)
    t = track(utts_of(rng, vid, 3), rng)
    n = len(t.x)
    bg = music_bed(rng, bg_kind, n) if music else noise(bg_kind, n, rng, POOL_BABBLE())
    p_s = t.active_power()
    p_b = np.mean(bg ** 2)
    bg *= np.sqrt(p_s / (p_b * 10 ** (snr_db / 10)))
    mix, lab = finish(name, [t], background=bg, bg_is_music=music, peak_db=rng.uniform(-9, -3))
    return mix, lab, {"voices": [vid], "background": bg_kind, "snr_db": snr_db}


def cond_real(name, level, rng):
    t = track(utts_of(rng, REAL, 4), rng, gap=(0.3, 0.9))
    mix, lab = finish(name, [t], peak_db=level)
    return mix, lab, {"voices": [REAL], "peak_dbfs": level}


def POOL_BABBLE():  # noqa: N802 (a function, named like the POOL it filters)
    # babble is made from the flite voices and half the espeak voices, so that it is not the
    # very talker of the foreground in most files
    return {k: v for k, v in POOL.items() if k.startswith("flite") or k.startswith(("de_", "fr", "es_", "it_", "ru", "nl", "pl", "en-gb"))}


def cond_two(name, rng, rel_db, kind):
    va, vb = voices_for(rng, 2)
    a = track(utts_of(rng, va, 3), rng, lead=(0.3, 0.6), gap=(0.3, 0.8))
    n = len(a.x)
    b = Talker(n)
    if kind == "dialogue":
        # turns: A, B, A, B ... without overlap; rebuild A on the same timeline
        a = Talker(n + grid(12))
        b = Talker(len(a.x))
        pos = grid(rng.uniform(0.3, 0.8))
        ua, ub = utts_of(rng, va, 3), utts_of(rng, vb, 3)
        for i in range(6):
            who, u = (a, ua[i // 2]) if i % 2 == 0 else (b, ub[i // 2])
            if pos + len(u) > len(a.x):
                break
            who.place(u, pos)
            pos += len(u) + grid(rng.uniform(0.35, 0.9))
        length = min(len(a.x), pos)
        a.x, b.x = a.x[:length], b.x[:length]
    else:
        # B starts during A's first or second utterance, so that they overlap for seconds
        ub = utts_of(rng, vb, 3)
        start = a.spans[0][0] + grid(rng.uniform(0.5, 1.5))
        pos = start
        for u in ub:
            if pos + len(u) > n:
                break
            b.place(u, pos)
            pos += len(u) + grid(rng.uniform(0.2, 0.6))
        if not b.spans:
            b.place(ub[0][: n - start], start)
    pa, pb = a.active_power(), b.active_power()
    if pb > 0:
        b.scale(np.sqrt(pa / pb * 10 ** (rel_db / 10)))
    mix, lab = finish(name, [a, b], peak_db=rng.uniform(-9, -3))
    return mix, lab, {"voices": [va, vb], "second_talker_db": rel_db}


def cond_ramp(name, rng, lo, hi):
    vid = rng_pick(rng)
    utts = utts_of(rng, vid, 4) + utts_of(rng, rng_pick(rng), 2)
    t = track(utts, rng, gap=(0.3, 0.7))
    # peak level -6 dBFS at the loud end: the ramp runs over (lo - hi) dB below it
    mix, lab = finish(name, [t], ramp_db=(lo - hi, 0) if lo < hi else (0, hi - lo), peak_db=max(lo, hi))
    return mix, lab, {"voices": [vid], "ramp_dbfs": [lo, hi]}


def cond_noise(name, rng, kind, level_rms):
    n = grid(rng.uniform(7, 9))
    x = noise(kind, n, rng, POOL_BABBLE())
    x *= db2a(level_rms)
    peak = np.max(np.abs(x))
    if peak > 0.9:
        x *= 0.9 / peak
    n_fr = n // HOP
    z = np.zeros(n_fr, dtype=bool)
    return x, {"speech": z, "music": z, "multi_speaker": z}, {"noise": kind, "rms_dbfs": level_rms}


def cond_music(name, rng, piece):
    n = grid(10)
    x = music_bed(rng, piece, n)
    mix, lab = finish(name, [], background=x, bg_is_music=True, peak_db=rng.uniform(-12, -2))
    return mix, lab, {"piece": piece, "description": tunes.PIECES[piece][0]}


def cond_silence(name, rng, kind):
    n = grid(6)
    x = {"digital": np.zeros(n),
         "dither": np.zeros(n),  # the writer's 1 LSB TPDF dither is all there is
         "roomtone": noise("pink", n, rng) * db2a(-70)}[kind]
    z = np.zeros(n // HOP, dtype=bool)
    return x, {"speech": z, "music": z, "multi_speaker": z}, {"silence": kind}


def plan():
    """[(relative path, condition, builder name, args)] in a fixed order."""
    P = []
    k = 0
    for level in (-45, -35, -25, -15, -6):
        for i in range(8):
            P.append((f"clean_speech/clean_{level}dBFS_{i:02d}.wav", f"clean_speech/{level}dBFS", "clean", (level,)))
    for kind in ("digital", "dither", "roomtone"):
        for i in range(2):
            P.append((f"silence/silence_{kind}_{i}.wav", f"silence/{kind}", "silence", (kind,)))
    levels = [-40, -30, -20]
    for kind in NOISES:
        for i in range(2):
            lv = levels[(k := k + 1) % 3]
            P.append((f"noise_only/noise_{kind}_{i}.wav", f"noise_only/{kind}", "noise", (kind, lv)))
    for piece in tunes.PIECES:
        P.append((f"music_only/music_{piece}.wav", f"music_only/{piece.split('_')[0]}", "music", (piece,)))
    beds = ["band_jingle_bells", "strings_canon_d", "solo_piano_ode_to_joy", "brass_saints", "drums_rock",
            "solo_guitar_greensleeves", "choir_harp_scarborough", "woodwinds_frere_jacques"]
    for k, snr in enumerate((10, 0, -5)):
        for i in range(5):
            bed = beds[(i + 5 * k) % len(beds)]
            P.append((f"speech_music/sm_{snr:+d}dB_{i}_{bed}.wav", f"speech_music/{snr:+d}dB", "smusic", (bed, snr)))
    for k, snr in enumerate((10, 5, 0, -5)):
        for i in range(6):
            kind = NOISES[(i + 6 * k) % len(NOISES)]
            P.append((f"speech_noise/sn_{snr:+d}dB_{i}_{kind}.wav", f"speech_noise/{snr:+d}dB", "snoise", (kind, snr)))
    for rel in (0, -3):
        for i in range(4):
            P.append((f"overlap/overlap_{rel:+d}dB_{i}.wav", f"overlap/{rel:+d}dB", "two", (rel, "overlap")))
    for rel in (-10, -15):
        for i in range(3):
            P.append((f"crosstalk/crosstalk_{rel:+d}dB_{i}.wav", f"crosstalk/{rel:+d}dB", "two", (rel, "overlap")))
    for i in range(6):
        P.append((f"dialogue/dialogue_{i}.wav", "dialogue/turns", "two", (0, "dialogue")))
    for i, level in enumerate((-12, -30)):
        P.append((f"real_speech/real_{level}dBFS_{i}.wav", "real_speech/clean", "real", (level,)))
    P.append(("speech_noise/sn_+5dB_real_babble.wav", "speech_noise/+5dB", "snoise_real", ("babble", 5)))
    P.append(("speech_music/sm_+10dB_real_strings_canon_d.wav", "speech_music/+10dB", "smusic_real",
              ("strings_canon_d", 10)))
    # Speech over drums-only beds (more percussion than the one drum bed above; issue #4).
    for snr, bed in ((10, "drums_funk"), (0, "drums_hiphop_808"), (-5, "drums_jazz_brushes")):
        P.append((f"speech_music/sm_{snr:+d}dB_5_{bed}.wav", f"speech_music/{snr:+d}dB", "smusic", (bed, snr)))
    for i, (lo, hi) in enumerate([(-45, -6), (-6, -45), (-45, -6), (-6, -45)]):
        P.append((f"level_ramp/ramp_{lo}to{hi}dBFS_{i}.wav", f"level_ramp/{lo}to{hi}dBFS", "ramp", (lo, hi)))
    return P


BUILDERS = {
    "clean": lambda name, rng, level: cond_clean(name, level, rng),
    "silence": lambda name, rng, kind: cond_silence(name, rng, kind),
    "noise": lambda name, rng, kind, lv: cond_noise(name, rng, kind, lv),
    "music": lambda name, rng, piece: cond_music(name, rng, piece),
    "smusic": lambda name, rng, bed, snr: speech_over(name, rng, bed, snr, music=True),
    "snoise": lambda name, rng, kind, snr: speech_over(name, rng, kind, snr),
    "two": lambda name, rng, rel, kind: cond_two(name, rng, rel, kind),
    "ramp": lambda name, rng, lo, hi: cond_ramp(name, rng, lo, hi),
    "real": lambda name, rng, level: cond_real(name, level, rng),
    "snoise_real": lambda name, rng, kind, snr: speech_over(name, rng, kind, snr, vid=REAL),
    "smusic_real": lambda name, rng, bed, snr: speech_over(name, rng, bed, snr, music=True, vid=REAL),
}

# --------------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------------

def segments(path, condition, lab, duration):
    """Frame labels -> segments covering [0, duration), consecutive equal frames merged."""
    keys = ("speech", "music", "multi_speaker")
    n = len(lab["speech"])
    out, start = [], 0
    for i in range(1, n + 1):
        if i == n or any(lab[k][i] != lab[k][start] for k in keys):
            end = duration if i == n else round(i * HOP / SR, 2)
            out.append({"audio_filepath": path, "start": round(start * HOP / SR, 2), "end": round(end, 4),
                        **{k: bool(lab[k][start]) for k in keys}, "condition": condition})
            start = i
    return out


def quantise(x, rng, digital=False):
    """float -> int16 with TPDF dither of 1 LSB peak (none for digital silence)."""
    y = x * 32768.0
    if not digital:
        y = y + rng.uniform(-0.5, 0.5, len(y)) + rng.uniform(-0.5, 0.5, len(y))
    return np.clip(np.round(y), -32768, 32767).astype(np.int16)


def build(item):
    rel, condition, builder, args = item
    rng = seed(rel)
    x, lab, meta = BUILDERS[builder](rel, rng, *args)
    return rel, condition, x, lab, meta


def write_item(out, result):
    rel, condition, x, lab, meta = result
    path = os.path.join(out, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pcm = quantise(x, seed(rel + "#dither"), digital=(condition == "silence/digital"))
    sf.write(path, pcm, SR, subtype="PCM_16")
    dur = len(pcm) / SR
    segs = segments(rel, condition, lab, dur)
    pk = np.max(np.abs(pcm)) / 32768
    meta = {"audio_filepath": rel, "condition": condition, "sample_rate": SR, "seconds": dur,
            "peak_dbfs": round(20 * np.log10(pk), 2) if pk > 0 else None,
            "speech_seconds": round(float(lab["speech"].sum()) * HOP / SR, 2),
            "music_seconds": round(float(lab["music"].sum()) * HOP / SR, 2),
            "multi_speaker_seconds": round(float(lab["multi_speaker"].sum()) * HOP / SR, 2), **meta}
    return segs, meta


# (condition, rate): the first file of each condition is copied at that rate
HI_RATE = [("clean_speech/-25dBFS", 48000), ("clean_speech/-6dBFS", 44100), ("speech_music/+0dB", 48000),
           ("speech_noise/+5dB", 44100), ("music_only/solo", 48000), ("noise_only/pink", 44100),
           ("overlap/+0dB", 48000), ("silence/dither", 44100)]


def hi_rate_copies(out, labels_by_path, manifest_by_path):
    """A few files resampled by sox to 44.1/48 kHz (same labels, same condition)."""
    segs, metas = [], []
    for cond, rate in HI_RATE:
        rel = next(r for r, m in manifest_by_path.items() if m["condition"] == cond)
        tag = "48k" if rate == 48000 else "44k1"
        new = f"hi_rate/{os.path.splitext(os.path.basename(rel))[0]}_{tag}.wav"
        os.makedirs(os.path.join(out, "hi_rate"), exist_ok=True)
        run(["sox", "-R", "-D", os.path.join(out, rel), "-b", "16", os.path.join(out, new), "rate", "-v", str(rate)])
        for s in labels_by_path[rel]:
            segs.append({**s, "audio_filepath": new})
        info = sf.info(os.path.join(out, new))
        segs[-1]["end"] = round(info.frames / rate, 4)
        metas.append({**manifest_by_path[rel], "audio_filepath": new, "sample_rate": rate, "copy_of": rel,
                      "seconds": info.frames / rate})
    return segs, metas


def render_sources(jobs, real=True):
    with mp.Pool(jobs) as pool:
        for vid, x in pool.imap(render_utterance, utterance_jobs(real), chunksize=4):
            POOL.setdefault(vid, []).append(x)
        for name, x in pool.imap(render_piece, list(tunes.PIECES)):
            MUSIC[name] = x
    VOICE_IDS[:] = [v for v in POOL if v != REAL]


def make_corpus(out, jobs):
    render_sources(jobs)
    items = plan()
    os.makedirs(out, exist_ok=True)
    labels, manifest = {}, {}
    with mp.Pool(jobs) as pool:
        for result in pool.imap(build, items):
            segs, meta = write_item(out, result)
            labels[result[0]] = segs
            manifest[result[0]] = meta
    hs, hm = hi_rate_copies(out, labels, manifest)
    with open(os.path.join(out, "labels.jsonl"), "w", encoding="utf-8") as f:
        for rel, _, _, _ in items:
            for s in labels[rel]:
                f.write(json.dumps(s) + "\n")
        for s in hs:
            f.write(json.dumps(s) + "\n")
    with open(os.path.join(out, "manifest.jsonl"), "w", encoding="utf-8") as f:
        for rel, _, _, _ in items:
            f.write(json.dumps(manifest[rel], ensure_ascii=False) + "\n")
        for m in hm:
            f.write(json.dumps(m, ensure_ascii=False) + "\n")
    total = sum(m["seconds"] for m in manifest.values()) + sum(m["seconds"] for m in hm)
    print(f"make_corpus: {len(items) + len(hm)} files, {total / 60:.1f} min of audio in {out}", file=sys.stderr)


# --------------------------------------------------------------------------------------------------
# TestAudio subset
# --------------------------------------------------------------------------------------------------

TESTAUDIO = [  # (file stem, condition, builder, args); each clip is cut to TESTAUDIO_SECONDS
    ("eval_clean_16k", "clean_speech/-15dBFS", "clean", (-15,)),
    ("eval_speech_music_16k", "speech_music/+0dB", "smusic", ("band_jingle_bells", 0)),
    ("eval_music_guitar_16k", "music_only/solo", "music", ("solo_guitar_greensleeves",)),
    ("eval_noise_babble_16k", "noise_only/babble", "noise", ("babble", -30)),
    ("eval_overlap_16k", "overlap/+0dB", "two", (0, "overlap")),
    ("eval_speech_-40dBFS_16k", "clean_speech/-40dBFS", "clean", (-40,)),
]
TESTAUDIO_SECONDS = 6.0


def make_testaudio(out):
    """Six short clips as raw float32 16 kHz mono (make-test-audio.sh encodes them as FLAC 16-bit)
    + labels.jsonl with paths relative to TestAudio/."""
    render_sources(2, real=False)  # the clips use no real recording: alsa-utils not needed
    os.makedirs(out, exist_ok=True)
    lines = []
    for stem, condition, builder, args in TESTAUDIO:
        rng = seed("testaudio/" + stem)
        x, lab, meta = BUILDERS[builder](stem, rng, *args)
        print(f"make_corpus: {stem}: {condition} {json.dumps(meta)}", file=sys.stderr)
        n = min(len(x), grid(TESTAUDIO_SECONDS))
        x = x[:n]
        lab = {k: v[: n // HOP] for k, v in lab.items()}
        # the sox step rounds to 16 bits without dither (-D); add the same TPDF dither here so the
        # quiet clips are not truncated to digital silence between words
        x = (x * 32768 + rng.uniform(-0.5, 0.5, n) + rng.uniform(-0.5, 0.5, n)) / 32768
        # headerless little-endian float32 (libsndfile's float WAV carries a PEAK chunk with a time stamp)
        x.astype("<f4").tofile(os.path.join(out, stem + ".f32"))
        lines += segments(stem + ".flac", condition, lab, n / SR)
    with open(os.path.join(out, "labels.jsonl"), "w", encoding="utf-8") as f:
        for s in lines:
            f.write(json.dumps(s) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(HERE, "..", "..", "corpus"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--testaudio", metavar="DIR", help="write the TestAudio subset intermediates to DIR")
    args = ap.parse_args()
    for tool in ("espeak-ng", "flite", "fluidsynth", "sox"):
        if shutil.which(tool) is None:
            sys.exit(f"make_corpus: {tool} missing: run scripts/eval/setup.sh")
    for c in REAL_CLIPS if not args.testaudio else []:
        if not os.path.isfile(os.path.join(REAL_DIR, c + ".wav")):
            sys.exit(f"make_corpus: {REAL_DIR}/{c}.wav missing (package alsa-utils): run scripts/eval/setup.sh")
    if not os.path.isfile(SF2):
        sys.exit(f"make_corpus: {SF2} missing: run scripts/eval/setup.sh")
    if args.testaudio:
        make_testaudio(args.testaudio)
    else:
        make_corpus(os.path.normpath(args.out), args.jobs)


if __name__ == "__main__":
    mp.set_start_method("fork")
    main()
