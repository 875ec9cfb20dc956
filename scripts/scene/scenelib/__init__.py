"""Building blocks of the acoustic-scene validation corpus (see ../README.md)."""

GENERATOR_VERSION = "1.3.0"  # 1.3.0: the `loops` condition (short recorded effects looped)
