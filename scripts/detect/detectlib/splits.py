"""Three splits by source: train / val / test, extending issue #19's dev/test rule.

Every source (a voice, a recording, a music piece or SoundFont instrument, a room) belongs to
a *group*: the unit that must not be divided between splits. A group is usually the source
itself; sources known to share a speaker are grouped (see SPEAKER_GROUPS and group_of()).

    u(key) = first 32 bits of SHA-256(key) / 2**32                (scenelib.common.split_of)

    base(group) = "test" if any member id that issue #19 also uses is "test" under #19's rule,
                  else "dev" if the group has such members,
                  else #19's rule applied to the group key itself (u < 0.5 -> dev)
    split(group) = "test"                         if base is "test"
                   "val"   if u("val:" + key) < VAL_FRACTION, else "train"   (base "dev")

so #19's test sources stay unseen by training and validation, about half of all groups are
test, an eighth val and three eighths train. The rule depends on nothing but the key and the
member ids: adding a source never moves another one. The sources of the train-only effect
packages (TRAIN_ONLY_PREFIXES, generator 1.5.0) and of the train-only music packages (1.7.0) are
train whatever their hash.

Babble: an espeak-ng or recorded voice group whose u("babble:" + key) < BABBLE_FRACTION is a
babble voice: it is only ever heard as babble, never as a foreground talker, in its split. The
few flite and festival voices are always foreground (each split has too few to spare).
"""
import functools
import hashlib

from scenelib.common import split_of as scene_split_of

VAL_FRACTION = 0.25      # of the dev groups
# Sources that take the train split by construction (generator 1.5.0): the recorded effects of
# the packages only the train-only classes hear (sources.TRAIN_EFFECT_SETS; test_detect.py checks
# that the two lists agree). No id of the catalogue's own packages starts with one of these.
# Generator 1.7.0 adds the packages of the train-only recorded music (sources.TRAIN_MUSIC_SETS).
TRAIN_ONLY_PREFIXES = ("a7xpg:", "btanks:", "chromium-bsu:", "enigma:", "lbreakout2:", "lordsawar:", "minetest:",
                       "pangzero:", "pinball:", "powermanga:", "tecnoballz:", "zaz:")
BABBLE_FRACTION = 0.25   # of the voice groups of each split


# Voices that are the same human speaker across engines (CMU / Festvox voices): flite's kal and
# kal16 and festival's kal_diphone are Kevin Lenzo's diphones; slt is the ARCTIC slt speaker in
# flite and in festival's HTS voice; awb and rms are ARCTIC speakers too.
SPEAKER_GROUPS = {
    "flite:kal": "speaker:kal", "flite:kal16": "speaker:kal", "festival:kal_diphone": "speaker:kal",
    "flite:slt": "speaker:slt", "festival:cmu_us_slt_arctic_hts": "speaker:slt",
    "flite:awb": "speaker:awb", "flite:rms": "speaker:rms",
}


def unit(key):
    """u(key): first 32 bits of SHA-256(key) as a fraction of 2**32."""
    return int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:8], 16) / 2 ** 32


def group_of(source_id):
    """The split group of a source id.

    espeak-ng voices group by variant (the variant is the timbre; the language only the accent):
    'espeak-ng:<lang>+<variant>' -> 'espeak-variant:<variant>' (no variant: the language's
    default voice, 'espeak-variant:default'). KDE's per-language recordings (ktuberling,
    klettres) group by language ('kde-voice:<lang>'), in case one volunteer recorded both.
    """
    if source_id in SPEAKER_GROUPS:
        return SPEAKER_GROUPS[source_id]
    if source_id.startswith("espeak-ng:"):
        voice = source_id.split(":", 1)[1]
        return "espeak-variant:" + (voice.split("+", 1)[1] if "+" in voice else "default")
    for pkg in ("ktuberling:", "klettres:"):
        if source_id.startswith(pkg):
            return "kde-voice:" + source_id[len(pkg):].split("_")[0].split("/")[0]
    return source_id


@functools.lru_cache(maxsize=None)
def scene_ids():
    """The source ids issue #19 (scripts/scene) uses as split units on this machine.

    A group holding one of them inherits its #19 split, so #19's test material stays unseen.
    """
    from scenelib import music, noise, rooms, speech
    ids = {v["id"] for v in speech.catalogue()}
    ids |= set(noise.RECORDED)
    ids |= set(music.piece_ids("dev")) | set(music.piece_ids("test"))
    ids |= {f"room:{i}" for i in range(rooms.N_ROOMS)}
    return frozenset(ids)


def is_scene_id(source_id):
    return source_id in scene_ids()


class SplitRule:
    """Split of every group, given all member ids (so a group's #19 members are known)."""

    def __init__(self, source_ids):
        self.members = {}
        for sid in source_ids:
            self.members.setdefault(group_of(sid), set()).add(sid)

    def base(self, group):
        scene = [m for m in sorted(self.members.get(group, ())) if is_scene_id(m)]
        if scene:
            return "test" if any(scene_split_of(m) == "test" for m in scene) else "dev"
        return scene_split_of(group)

    def split_of_group(self, group):
        if group.startswith(TRAIN_ONLY_PREFIXES):
            return "train"
        if self.base(group) == "test":
            return "test"
        return "val" if unit("val:" + group) < VAL_FRACTION else "train"

    def split_of(self, source_id):
        return self.split_of_group(group_of(source_id))


def is_babble_voice(source_id, engine=None):
    """True for a voice used only as babble (never as a foreground talker) in its split."""
    engine = engine or source_id.split(":", 1)[0]
    if engine in ("flite", "festival"):
        return False
    return unit("babble:" + group_of(source_id)) < BABBLE_FRACTION
