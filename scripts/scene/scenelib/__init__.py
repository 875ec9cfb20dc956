"""Building blocks of the acoustic-scene validation corpus (see ../README.md)."""

GENERATOR_VERSION = "1.2.0"
