#!/usr/bin/env python3
"""goldens.py: pick recordings of a generated corpus to become goldens.

    goldens.py --out DIR [--per N] CORPUS_DIR...

Copies N recordings (default 10) of each configuration from the corpus
directories into DIR (NAME.cast, .want, .json, .steps.txt), choosing ones
a golden can be: no unsure commands (NAME.json "unsure") and at least one
expected command; one with a resize in the middle of output only when a
configuration has too few others (TestCLIRecordings also replays the part
before the first resize raw, and the .want's "after_resize" is then only as
good as the screen captures' timing). Among those it
prefers small files and spreads the choice over sizes and features: each
pick is the candidate adding the most features and size classes not yet
chosen, smaller files first.
"""
import argparse
import glob
import json
import os
import shutil


def size_class(m):
    c, r = m["cols"], m["rows"]
    return ("narrow" if c < 90 else "wide" if c >= 150 else "mid") + "/" + ("short" if r < 28 else "tall" if r >= 45 else "mid")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--per", type=int, default=10)
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    by = {}
    for d in a.dirs:
        for meta in sorted(glob.glob(os.path.join(d, "*.json"))):
            stem = meta[:-5]
            if not os.path.exists(stem + ".cast") or not os.path.exists(stem + ".want"):
                continue
            with open(meta) as fh:
                m = json.load(fh)
            if m.get("unsure") or not m.get("expected"):
                continue
            m["_stem"] = stem
            m["_bytes"] = os.path.getsize(stem + ".cast")
            by.setdefault(m["config"], []).append(m)
    os.makedirs(a.out, exist_ok=True)
    for config in sorted(by):
        # Those with a resize in the middle of output only when there are
        # not enough others.
        pool = sorted(by[config], key=lambda m: ("resize-mid-output" in m["features"], m["_bytes"]))
        clean = [m for m in pool if "resize-mid-output" not in m["features"]]
        if len(clean) >= a.per:
            pool = clean
        chosen, feats, sizes = [], set(), set()
        while pool and len(chosen) < a.per:
            def gain(m):
                return len(set(m["features"]) - feats) + (2 if size_class(m) not in sizes else 0)
            best = max(pool, key=lambda m: ("resize-mid-output" not in m["features"], gain(m), -m["_bytes"]))
            pool.remove(best)
            chosen.append(best)
            feats |= set(best["features"])
            sizes.add(size_class(best))
        for m in chosen:
            for ext in (".cast", ".want", ".json", ".steps.txt"):
                if os.path.exists(m["_stem"] + ext):
                    shutil.copy(m["_stem"] + ext, a.out)
        print("%-14s %d of %d candidates: %s" % (config, len(chosen), len(by[config]),
                                                 " ".join(os.path.basename(m["_stem"]) for m in chosen)))


if __name__ == "__main__":
    main()
