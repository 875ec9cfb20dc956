"""Building blocks of the detection training / validation / test material (issue #23).

See ../README.md. Sources, splits and speech engines come from scripts/scene/scenelib
(issue #19) where they exist there; this package adds sources, the three-way split and the
frame labels.
"""
import os
import sys

GENERATOR_VERSION = "1.7.0"   # 1.7.0: --train-music; 1.6.0: --train-stationary; 1.5.0: --train-effects; 1.3.0: --train-overlap (1.2.0 and 1.4.0: the unmerged `tones` and `tonal` branches)

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.normpath(os.path.join(HERE, "..", ".."))
for sub in ("scene", "eval"):
    path = os.path.join(SCRIPTS, sub)
    if path not in sys.path:
        sys.path.insert(0, path)
