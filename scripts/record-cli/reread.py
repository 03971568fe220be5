#!/usr/bin/env python3
"""reread.py: read a recording's saved screens again with the generator's
current reader, after a fix to how the generator reads a screen, without
recording the session again.

    reread.py [--dry-run] DIR...

A recording made since the generator saves its captures
(NAME.captures.json.gz) is read again from all of them, as the generator
read it: its .want, unsure list and counts are exactly what today's rules
make of that session. Either way, reread.py rebuilds the session's plan
(what was printed) with the generator that recorded it: the commit of
scripts/record-cli whose files hash to NAME.json's "generator", run from
`git archive` in a scratch directory.

An older recording keeps only, in NAME.steps.txt, the screen once each
printed file was done (the capture that counts as shown for
generate.SETTLED seconds) and, per command, what the reader found then.
On the main screen (Claude Code inline, Codex inline, Gemini CLI) the
generator also read the scrollback once a file was done, which was not
kept: reread.py plays the recording's output again in a tmux pane made as
the generator's (same size, resizes where the recording has them, tmux
being the terminal both read) and captures the scrollback where the
generator did, just before the next step began; it reads there the rows
between the file's echo and the next one's. Only commands the fixed rules
read differently (rules_fixed) may change on the strength of that
scrollback. reread.py reads each of those screens with
today's rules (generate.Session.read_commands) and keeps, per command,
the better of the old verdict and the new one (not shown < unsure < cut
< whole; a longer cut is better). The captures taken while a file was
printing are not kept, so a command they alone showed stays as it was:
only what the final screens show can change. NAME.want, NAME.json
(counts, unsure list, "reread": the reader's generator hash and the
commands changed) and NAME.steps.txt (a "--- re-read" section) are
rewritten; a recording nothing changes in is left alone.

For a file printed again, the screen before its Enter (the capture
before it; in an older recording, the screen of the section before it in
NAME.steps.txt) says where the earlier print's showings were
(generate.Repeat).

Either way, a command still not shown is then looked for in every frame
of NAME.cast (frames.py plays it again in tmux, one output event at a
time; generate.Session.shown_in_frames): whole in one, it becomes
unsure, as the generator itself reads it since.
"""
import argparse
import difflib
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import content  # noqa: E402
import frames  # noqa: E402
import generate  # noqa: E402
import reader  # noqa: E402

# The plan of a recording, from the generator that made it: printed
# steps with their commands, as JSON.
DUMP = r"""
import json, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import generate
out = []
for config, seed in json.loads(sys.argv[2]):
    plan = generate.make_plan(config, seed)
    steps = []
    for kind, arg in plan["steps"]:
        if kind != "print":
            continue
        steps.append({"tag": arg.tag, "how": arg.how, "repeat_of": arg.repeat_of,
                      "mid_resize": bool(arg.mid_resize),
                      "cmds": [{"lines": c.lines, "kind": c.kind, "to": c.to, "body": c.body,
                                "topic": c.topic, "block": c.block} for c in arg.cmds]})
    out.append(steps)
print(json.dumps(out))
"""


def generator_dirs(scratch):
    """generator hash -> a copy of scripts/record-cli, in scratch, at the
    commit that has it (this one's own for today's)."""
    repo = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=HERE, capture_output=True, text=True,
                          check=True).stdout.strip()
    commits = subprocess.run(["git", "log", "--format=%H", "--", "scripts/record-cli"], cwd=repo,
                             capture_output=True, text=True, check=True).stdout.split()
    found = {generate.generator_id(): HERE}
    for c in commits:
        d = os.path.join(scratch, c[:12])
        os.makedirs(d)
        tar = subprocess.run(["git", "archive", c, "scripts/record-cli"], cwd=repo, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", d], input=tar.stdout, check=True)
        gen = os.path.join(d, "scripts", "record-cli")
        if not os.path.exists(os.path.join(gen, "reader.py")):
            continue
        gid = subprocess.run([sys.executable, "-c", "import sys; sys.dont_write_bytecode = True; "
                              "sys.path.insert(0, sys.argv[1]); import generate; print(generate.generator_id())", gen],
                             capture_output=True, text=True).stdout.strip()
        if gid and gid not in found:
            found[gid] = gen
    return found


# Plays a recording's output into the tmux pane it runs in, resizing the
# window where the recording was resized (once tmux has read all output
# before it). At each stop time it pauses and writes the file stop-N,
# and goes on once go-N exists: the pane then is as the generator's was
# at that moment, scrollback included (tmux is the terminal both read).
PLAYER = r"""
import json, os, subprocess, sys, termios, time
cast, sock, scratch, stops = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
out = sys.stdout.buffer
n = 0

def pause():
    global n
    termios.tcdrain(1)
    time.sleep(0.3)
    open(os.path.join(scratch, "stop-%d" % n), "w").close()
    while not os.path.exists(os.path.join(scratch, "go-%d" % n)):
        time.sleep(0.02)
    n += 1

with open(cast, encoding="utf-8") as fh:
    fh.readline()
    for line in fh:
        t, code, data = json.loads(line)
        while n < len(stops) and t >= stops[n]:
            pause()
        if code == "o":
            out.write(data.encode("utf-8", "surrogateescape"))
            out.flush()
        elif code == "r":
            termios.tcdrain(1)
            time.sleep(0.2)
            c, r = (int(x) for x in data.split("x"))
            subprocess.run(["tmux", "-L", sock, "resize-window", "-x", str(c), "-y", str(r)], check=True)
            end = time.time() + 5
            while os.get_terminal_size(1) != os.terminal_size((c, r)) and time.time() < end:
                time.sleep(0.02)
while n < len(stops):
    pause()
time.sleep(600)
"""


def step_ends(cast, steps):
    """Per printed file, the recording's time just before the next step
    began (the next file typed, a resize, PageUp, a paste, the quit): when
    the generator read the file's final screen and scrollback."""
    events = []
    with open(cast, encoding="utf-8") as fh:
        fh.readline()
        for line in fh:
            t, code, data = json.loads(line)
            if code != "o":
                events.append((t, code, data))
    ends = []
    for k, st in enumerate(steps):
        typed = next((t for t, code, data in events if code == "i" and st.tag in data), None)
        if typed is None:
            raise ValueError("%s: the command of %s is not among its keys" % (cast, st.tag))
        later = [o.tag for o in steps[k + 1:]]
        end = None
        for t, code, data in events:
            if t <= typed:
                continue
            if code == "r" or data in ("!", "\x03", "\x1b[5~") or data.startswith("\x1b[200~") or \
                    any(tag in data for tag in later):
                end = t
                break
        ends.append(end if end is not None else events[-1][0] + 60)
    return ends


def screens_at(cast, stops, scratch):
    """The screen and scrollback (tmux capture-pane -S) at each stop time
    of the recording, played in a tmux pane made as the generator made its
    own."""
    with open(cast, encoding="utf-8") as fh:
        head = json.loads(fh.readline())
    sock = "reread-%d-%s" % (os.getpid(), os.path.basename(cast)[:-len(".cast")])
    play = os.path.join(scratch, "play")
    shutil.rmtree(play, ignore_errors=True)
    os.makedirs(play)
    cmd = " ".join("'%s'" % a.replace("'", "'\\''")
                   for a in [sys.executable, "-c", PLAYER, cast, sock, play, json.dumps(stops)])
    tmux = ["tmux", "-L", sock]
    r = subprocess.run(tmux + ["-f", "/dev/null", "new-session", "-d", "-x", str(head["width"]), "-y",
                               str(head["height"]), "env", "TERM=xterm-256color", "LANG=C.UTF-8", "sh", "-c", cmd],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise ValueError("%s: tmux new-session: %s" % (cast, r.stderr.strip()))
    try:
        # As generate.Session.start: the option comes after the pane, so
        # the pane keeps tmux's default history limit, as the generator's.
        subprocess.run(tmux + ["set-option", "-g", "history-limit", "20000"], check=True)
        out = []
        for n in range(len(stops)):
            end = time.time() + 300
            while not os.path.exists(os.path.join(play, "stop-%d" % n)):
                if time.time() > end:
                    raise ValueError("%s: replaying it in tmux took over 300 s" % cast)
                time.sleep(0.05)
            # Once tmux has drawn all of it: the same twice, 0.3 s apart.
            last = None
            while True:
                scr = subprocess.run(tmux + ["capture-pane", "-p", "-S", "-20000"], capture_output=True,
                                     text=True, check=True).stdout
                if scr == last or time.time() > end:
                    break
                last = scr
                time.sleep(0.3)
            out.append(scr)
            open(os.path.join(play, "go-%d" % n), "w").close()
        return out
    finally:
        subprocess.run(tmux + ["kill-server"], capture_output=True)


def steps_sections(text):
    """NAME.steps.txt as (note, body) pairs, split at its `=== ` notes."""
    out = []
    for part in ("\n" + text).split("\n=== ")[1:]:
        note, _, body = part.partition("\n")
        out.append((note, body))
    return out


def verdict_rank(v):
    if v.startswith("whole"):
        return 3
    if v.startswith("cut to"):
        return 2
    if v.startswith("unsure"):
        return 1
    return 0


def makes_want(v):
    return v.startswith("whole") or v.startswith("cut to")


class Step:
    def __init__(self, d):
        self.tag, self.how, self.repeat_of = d["tag"], d["how"], d["repeat_of"]
        self.mid_resize = d["mid_resize"]
        self.cmds = [content.Cmd(c["lines"], c["kind"], c["to"], c["body"], c["topic"], c["block"]) for c in d["cmds"]]


def reread_captures(path, plan_steps, meta, dry):
    """Re-reads a recording from all its captures (NAME.captures.json.gz),
    as the generator read them: exactly what today's rules make of them."""
    with gzip.open(path + ".captures.json.gz", "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    screens = data["screens"]
    session = generate.Session.__new__(generate.Session)
    session.config = meta["config"]
    session.first_resize = data["first_resize"]
    session.captures = [[t, t_end, screens[i]] for t, t_end, i in data["captures"]]
    session.lock = threading.Lock()
    session.steps_txt = []
    steps = [Step(d) for d in plan_steps]
    if [st.tag for st in steps] != [d["tag"] for d in data["steps"]]:
        raise ValueError("%s: its captures do not follow the plan" % path)
    results = []
    for st, d in zip(steps, data["steps"]):
        st.window_start, st.window_end = d["window_start"], d["window_end"]
        st.t_final, st.final = d["t_final"], screens[d["final"]]
        st.hist = None if d["hist"] is None else screens[d["hist"]]
        caps = generate.step_captures(st, session.captures[st.window_start:st.window_end])
        before = session.captures[st.window_start - 1][2] if st.window_start > 0 else None
        results.append((st, session.read_commands(st, caps, d["t_enter"], before)))
    session.late_pass(results)
    cast = path + ".cast"
    session.frames_pass(results, frames.replay(cast), frames.enters(cast, [st.tag for st in steps]))
    want, unsure, not_shown, cut = generate.expected(results)
    old_want = [json.loads(l) for l in open(path + ".want", encoding="utf-8") if l.strip()]
    if want == old_want and unsure == meta["unsure"]:
        return []
    # What changed: expected or unsure commands now (+) and before (-).
    def lines(ws, unsure_ones):
        return [("unsure " if unsure_ones else "") + json.dumps(w, ensure_ascii=False) for w in ws]
    now, before = lines(want, False) + lines(unsure, True), lines(old_want, False) + lines(meta["unsure"], True)
    # In order: a file printed again expects the same commands twice.
    changes = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, now, autojunk=False).get_opcodes():
        if op != "equal":
            changes += ["- " + l for l in before[i1:i2]] + ["+ " + l for l in now[j1:j2]]
    changes = changes or ["the same commands, in another order"]
    if dry:
        return changes
    verdicts = ["%s: %s" % (st.tag, what) for st, found in results for _, _, what, _ in found] + session.steps_txt
    with open(path + ".want", "w", encoding="utf-8") as fh:
        for w in want:
            fh.write(json.dumps(w, ensure_ascii=False) + "\n")
    meta.update(expected=len(want), unsure=unsure, not_shown=not_shown, cut=cut,
                reread={"generator": generate.generator_id(), "from": "captures"})
    with open(path + ".json", "w", encoding="utf-8") as fh:
        json.dump(meta, fh, ensure_ascii=False, indent=1)
        fh.write("\n")
    with open(path + ".steps.txt", "a", encoding="utf-8") as fh:
        fh.write("--- re-read by generator %s from its captures: what a reader sees\n%s\n" % (
            generate.generator_id(), "\n".join(verdicts + changes)))
    return changes


def rules_fixed(config, cmd):
    """Whether the reading rules this re-read follows changed how the
    command reads: printed with combining marks (now matched composed), a
    one-line block on Claude Code (now matched as printed too), ✅ on
    Gemini CLI (now drawn with no blank after it)."""
    text = "\n".join(cmd.lines)
    if reader.canon(text) != text:
        return True
    if config.startswith("claude") and cmd.block and any(generate.is_json(l) for l in cmd.lines):
        return True
    return config == "gemini" and "\u2705" in text


def own_rows(hist, st, steps):
    """The rows of the scrollback from the echo of st's command to the echo
    of the next file's: what st printed (None when its echo is not there
    once, as when the scrollback lost it)."""
    rows = hist.split("\n")
    at = [i for i, r in enumerate(rows) if st.tag in r]
    if len(at) != 1:
        return None
    end = len(rows)
    for other in steps[steps.index(st) + 1:]:
        nxt = [i for i, r in enumerate(rows) if other.tag in r and i > at[0]]
        if nxt:
            end = min(end, nxt[0])
    return "\n".join(rows[at[0]:end])


def reread(path, plan_steps, dry, scratch):
    """Re-reads one recording (path without extension); returns the lines
    saying what changed."""
    meta = json.load(open(path + ".json", encoding="utf-8"))
    if os.path.exists(path + ".captures.json.gz"):
        return reread_captures(path, plan_steps, meta, dry)
    # On the main screen the generator read the scrollback too once a
    # file was done; it was not kept, but the recording's output played in
    # tmux again, up to that moment, gives it again.
    hists = None
    if meta["config"] not in generate.ALT:
        steps0 = [Step(d) for d in plan_steps]
        hists = screens_at(path + ".cast", step_ends(path + ".cast", steps0), scratch)
    text = open(path + ".steps.txt", encoding="utf-8").read()
    old_want = [json.loads(l) for l in open(path + ".want", encoding="utf-8") if l.strip()]
    sections = steps_sections(text)
    # Verdicts an earlier re-read changed: "--- re-read …" sections, one
    # line per command, "TAG #K: OLD -> NEW".
    earlier = {}
    for part in text.split("\n--- re-read by generator ")[1:]:
        for line in part.split("\n")[1:]:
            m = re.match(r"(.+?) #(\d+): (.*?) -> (.*)$", line)
            if not m:
                break
            earlier[(m.group(1), int(m.group(2)))] = m.group(4)
    steps = [Step(d) for d in plan_steps]
    session = generate.Session.__new__(generate.Session)
    session.config = meta["config"]
    # Every screen the recording put up, for the commands no capture
    # showed (generate.Session.frames_pass's rule).
    frs, enters = [], [None] * len(steps)
    if meta["commands_printed"] > meta["expected"] + len(meta["unsure"]):
        frs = frames.replay(path + ".cast")
        enters = frames.enters(path + ".cast", [st.tag for st in steps])
    resized = False
    si = 0
    want, unsure = [], list(meta["unsure"])
    wi, cut = 0, 0
    changes = []
    before = None  # the screen before the step, as the last section shows it
    for note, body in sections:
        if note.startswith("resized to"):
            resized = True
            before = body
            continue
        if si >= len(steps):
            break
        st = steps[si]
        head = "--- what a reader sees of %s's commands\n" % st.tag
        if head not in body:
            before = body
            continue
        si += 1
        screen, _, rest = body.partition(head)
        before, screen_before = screen, before
        old = rest.split("\n")[:len(st.cmds)]
        if len(old) != len(st.cmds):
            raise ValueError("%s: %s: %d verdicts for %d commands" % (path, st.tag, len(old), len(st.cmds)))
        # The final screen, alone, as the generator took it (its captures
        # are gone): a resize before it makes what it shows after_resize.
        session.first_resize = 0.0 if (resized or st.mid_resize) else None
        caps = [(0.0, generate.SETTLED, screen.rstrip("\n"))]
        new = session.read_commands(st, caps, 0.0, screen_before)
        own = own_rows(hists[si - 1], st, steps) if hists else None
        with_hist = session.read_commands(st, caps + [(0.0, generate.SETTLED, generate.Scrollback(own))], 0.0,
                                          screen_before) if own else new
        old = [earlier.get((st.tag, k), v) for k, v in enumerate(old)]
        for k, (v, final_only, (cmd, w, what, after)) in enumerate(zip(old, new, with_hist)):
            if what != final_only[2] and not rules_fixed(meta["config"], cmd):
                # The scrollback at the session's end holds more than it
                # did when the file was done (a later repaint wrote rows
                # into it): only what the fixed rules read differently
                # there is taken from it.
                cmd, w, what, after = final_only
            keep = verdict_rank(what) <= verdict_rank(v)
            if verdict_rank(what) == verdict_rank(v) == 2:
                keep = len(what) <= len(v)
            if what.startswith("unsure") and any((u["kind"], u["to"], u["body"]) == (cmd.kind, cmd.to, cmd.body)
                                                 for u in unsure):
                keep = True  # unsure already (shown later, or changed)
            if keep:
                if makes_want(v):
                    want.append(old_want[wi])
                    wi += 1
                elif not v.startswith("unsure") and not any(
                        (u["kind"], u["to"], u["body"]) == (cmd.kind, cmd.to, cmd.body) for u in unsure) and \
                        session.shown_in_frames(st, cmd, frs, enters[si - 1],
                                                generate.again(cmd, steps[si:], enters[si:])):
                    u = cmd.want()
                    u["shown"] = "between captures"
                    unsure.append(u)
                    changes.append("%s #%d: %s -> %s" % (st.tag, k, v, generate.BETWEEN + generate.preview(cmd)))
                cut += v.startswith("cut to")
                continue
            if makes_want(v):
                wi += 1
            else:
                for j, u in enumerate(unsure):
                    if (u["kind"], u["to"], u["body"]) == (cmd.kind, cmd.to, cmd.body):
                        del unsure[j]
                        break
            if what.startswith("unsure"):
                unsure.append(w)
            else:
                if after:
                    w["after_resize"] = True
                want.append(w)
                cut += what.startswith("cut to")
            changes.append("%s #%d: %s -> %s" % (st.tag, k, v, what))
        if st.mid_resize:
            resized = True
    if si != len(steps) or wi != len(old_want):
        raise ValueError("%s: steps.txt and .want do not follow the plan (%d of %d steps, %d of %d expected)" % (
            path, si, len(steps), wi, len(old_want)))
    if not changes or dry:
        return changes
    with open(path + ".want", "w", encoding="utf-8") as fh:
        for w in want:
            fh.write(json.dumps(w, ensure_ascii=False) + "\n")
    meta["expected"] = len(want)
    meta["unsure"] = unsure
    meta["not_shown"] = meta["commands_printed"] - len(want) - len(unsure)
    meta["cut"] = cut
    meta["reread"] = {"generator": generate.generator_id(), "changed": len(changes)}
    with open(path + ".steps.txt", "a", encoding="utf-8") as fh:
        fh.write("--- re-read by generator %s from the screens above\n%s\n" % (generate.generator_id(), "\n".join(changes)))
    with open(path + ".json", "w", encoding="utf-8") as fh:
        json.dump(meta, fh, ensure_ascii=False, indent=1)
        fh.write("\n")
    return changes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dry-run", action="store_true", help="say what would change, write nothing")
    ap.add_argument("dirs", nargs="+", help="corpus directories")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="reread-") as scratch:
        try:
            reread_all(args, generator_dirs(scratch), scratch)
        except (ValueError, OSError, subprocess.CalledProcessError) as e:
            sys.exit("reread.py: %s" % e)


def reread_all(args, gens, scratch):
    names = []
    for d in args.dirs:
        for f in sorted(os.listdir(d)):
            if f.endswith(".json"):
                names.append(os.path.join(d, f[:-5]))
    by_gen = {}
    for n in names:
        meta = json.load(open(n + ".json", encoding="utf-8"))
        by_gen.setdefault(meta["generator"], []).append((n, meta["config"], meta["seed"]))
    total, files = 0, 0
    for gid, recs in sorted(by_gen.items()):
        if gid not in gens:
            sys.exit("reread.py: no commit of scripts/record-cli has generator %s (%s …)" % (gid, recs[0][0]))
        out = subprocess.run([sys.executable, "-c", DUMP, gens[gid], json.dumps([[c, s] for _, c, s in recs])],
                             capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit("reread.py: plans of generator %s: %s" % (gid, out.stderr.strip().splitlines()[-1]))
        for (n, _, _), plan in zip(recs, json.loads(out.stdout)):
            changes = reread(n, plan, args.dry_run, scratch)
            if changes:
                files += 1
                total += len(changes)
                print("%s: %d changed" % (n, len(changes)))
                for c in changes:
                    print("  " + c)
    print("%d commands changed in %d of %d recordings%s" % (total, files, len(names), " (dry run)" if args.dry_run else ""))


if __name__ == "__main__":
    main()
