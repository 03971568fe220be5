#!/usr/bin/env python3
"""goldens.py: pick recordings of a generated corpus to become goldens,
add them to testdata/cli, and keep their NAME.known files.

    goldens.py --out DIR [--per N] CORPUS_DIR...
    goldens.py --add TESTDATA_DIR CORPUS_DIR/NAME...
    goldens.py --known

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

--add copies recordings into testdata/cli as goldens: NAME.cast.gz
(gzip -9, no timestamp, so the same recording gives the same bytes),
NAME.want and NAME.json.

--known rewrites testdata/cli/NAME.known, for every recording, from
today's extraction (`go test ./supervisor/ -run TestCLIRecordings -args
-known`): how it differs from NAME.want, which TestCLIRecordings then
holds it to (a golden the rules do not pass yet has one; one they pass
has none). Run it after a change to the extraction rules, and read what it
prints: lines removed are differences a rule fixed, lines added are a
golden that got worse (fix the rule, or say why in the commit).
"""
import argparse
import glob
import gzip
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def size_class(m):
    c, r = m["cols"], m["rows"]
    return ("narrow" if c < 90 else "wide" if c >= 150 else "mid") + "/" + ("short" if r < 28 else "tall" if r >= 45 else "mid")


def add(testdata, stems):
    for stem in stems:
        stem = stem[:-5] if stem.endswith(".cast") else stem
        name = os.path.basename(stem)
        with open(stem + ".cast", "rb") as src, open(os.path.join(testdata, name + ".cast.gz"), "wb") as dst:
            with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=dst, mtime=0) as z:
                shutil.copyfileobj(src, z)
        for ext in (".want", ".json"):
            shutil.copy(stem + ext, os.path.join(testdata, name + ext))
        print("added %s" % name)


def known():
    """Rewrites the .known files and says how they changed."""
    repo = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=HERE, capture_output=True, text=True,
                          check=True).stdout.strip()
    r = subprocess.run(["go", "test", "./supervisor/", "-run", "^TestCLIRecordings$", "-count=1", "-args", "-known"],
                       cwd=repo, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("goldens.py: go test -known failed:\n" + (r.stdout + r.stderr)[-3000:])
    known = sorted(glob.glob(os.path.join(repo, "testdata", "cli", "*.known")))
    worse = fixed = 0
    names = set(os.path.basename(k) for k in known)
    old_names = subprocess.run(["git", "ls-files", "testdata/cli/*.known"], cwd=repo, capture_output=True,
                               text=True).stdout.split()
    for rel in sorted(set("testdata/cli/" + n for n in names) | set(old_names)):
        before = subprocess.run(["git", "show", "HEAD:" + rel], cwd=repo, capture_output=True, text=True).stdout
        path = os.path.join(repo, rel)
        now = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
        b = [l for l in before.split("\n") if l and not l.startswith("#")]
        n = [l for l in now.split("\n") if l and not l.startswith("#")]
        gone = [l for l in b if l not in n]
        new = [l for l in n if l not in b]
        for l in gone:
            print("fixed  %s: %s" % (os.path.basename(rel), l))
        name = os.path.basename(rel)[:-len(".known")]
        golden_before = subprocess.run(["git", "cat-file", "-e", "HEAD:testdata/cli/%s.want" % name], cwd=repo,
                                       capture_output=True).returncode == 0
        for l in new:
            # A golden new since HEAD comes in with its differences.
            print("%s %s: %s" % ("WORSE " if golden_before else "new   ", os.path.basename(rel), l))
        fixed += len(gone)
        worse += len(new) if golden_before else 0
    print("%d .known files, %d differences in all; against HEAD: %d fixed, %d worse" % (
        len(known), sum(len([l for l in open(k, encoding="utf-8") if l.strip() and not l.startswith("#")]) for k in known),
        fixed, worse))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="directory to copy the picked recordings to")
    ap.add_argument("--per", type=int, default=10)
    ap.add_argument("--add", metavar="TESTDATA_DIR", help="copy the recordings named into TESTDATA_DIR as goldens")
    ap.add_argument("--known", action="store_true", help="rewrite testdata/cli/NAME.known from today's extraction")
    ap.add_argument("dirs", nargs="*")
    a = ap.parse_args()
    if a.known:
        known()
        return
    if a.add:
        add(a.add, a.dirs)
        return
    if not a.out or not a.dirs:
        ap.error("--out DIR and corpus directories, --add, or --known")
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
