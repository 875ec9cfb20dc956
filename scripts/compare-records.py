#!/usr/bin/env python3
"""Compare two dspscore JSON Lines outputs of the same files, record by record.

Numbers may differ by at most --tolerance (absolute: the records' numbers are dB, seconds,
ratios and Hz); everything else (status, categories, flags, nulls, provenance) must be equal.
Prints the largest difference of every numeric field that moved, and each mismatch; exits 1 on
any mismatch or difference above the tolerance.

    scripts/compare-records.py fftw.jsonl builtin.jsonl --tolerance 0.05 \
        --field-tolerance detection.noise_floor_dbfs=0.5

--field-tolerance KEY=VALUE gives one field its own tolerance: a field reported on a grid (the
summary's noise floor is a 0.5 dB histogram bin) moves by a whole step when its input moves by
less than the tolerance across a bin's edge.

Used by .ci/run to hold the build without FFTW (built-in FFT) to the default build's records.
"""
import argparse
import json
import sys


def flat(record, prefix=""):
    out = {}
    for key, value in record.items():
        if isinstance(value, dict):
            out.update(flat(value, prefix + key + "."))
        else:
            out[prefix + key] = value
    return out


def number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--tolerance", type=float, default=0.05)
    parser.add_argument("--field-tolerance", action="append", default=[], metavar="KEY=VALUE",
                        help="a field's own tolerance (repeatable)")
    args = parser.parse_args()
    own = {}
    for item in args.field_tolerance:
        key, _, value = item.partition("=")
        own[key] = float(value)
    a = [json.loads(line) for line in open(args.a)]
    b = [json.loads(line) for line in open(args.b)]
    failures = 0
    if len(a) != len(b):
        print(f"{len(a)} records vs {len(b)}")
        return 1
    largest = {}
    for x, y in zip(a, b):
        fx, fy = flat(x), flat(y)
        name = x.get("audio_filepath")
        for key in sorted(set(fx) | set(fy)):
            u, v = fx.get(key), fy.get(key)
            if u == v:
                continue
            if number(u) and number(v):
                difference = abs(u - v)
                if difference > largest.get(key, (0, ""))[0]:
                    largest[key] = (difference, name)
                if difference > own.get(key, args.tolerance):
                    print(f"ABOVE TOLERANCE {name} {key}: {u} vs {v}")
                    failures += 1
            else:
                print(f"MISMATCH {name} {key}: {u!r} vs {v!r}")
                failures += 1
    for key, (difference, name) in sorted(largest.items()):
        print(f"{key}: largest difference {difference:.6g} ({name})")
    print(f"{len(a)} records, {len(largest)} numeric fields moved, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
