#!/usr/bin/env python3
"""generate.py: record many randomized sessions of the real agent CLIs, each
with the relay commands a reader sees on its screen, for scoring swarm's
extraction (scripts/corpus-score) and growing its goldens (testdata/cli).

    generate.py --out DIR --count N [--cli claude,claude-inline,codex,codex-inline,gemini,opencode]
                [--seed S] [--jobs J] [--timeout SECS]

N recordings are spread evenly over the configurations (--cli; all six by
default): claude (Claude Code's default fullscreen renderer, alternate
screen), claude-inline (CLAUDE_CODE_DISABLE_ALTERNATE_SCREEN=1), codex
(alternate screen), codex-inline (--no-alt-screen), gemini (main screen,
output in boxes) and opencode (alternate screen, `┃` gutter). Recording i
of configuration C uses the seed S*100000+i: the same --seed gives the same
sessions (sizes, files, keys, resizes). J sessions run at once (default 2),
each with its own tmux server, HOME and working directory; a session that
fails or hangs (--timeout, default 420 s) is retried once with the next
seed and otherwise skipped with a one-line reason. The CLIs must be on PATH
and run offline as record.py runs them (a scratch HOME with onboarding,
trust and a dummy key answered; shared/agents/OFFLINE.md).

Each recording NAME (CONFIG-sSEED-COLSxROWS) is:

- NAME.cast: asciicast v2 (ptyrec.py in a tmux pane): output, keys, resizes;
- NAME.want: the commands a reader sees, one JSON object per line, in
  order, as testdata/cli/*.want ("after_resize": first seen after the
  first resize);
- NAME.json: config, kind (claude/codex/gemini/opencode), program and
  version, renderer, seed, the generator's hash, sizes, the features used,
  counts of the commands printed, expected, not shown and cut (Gemini), the
  unsure commands (below) and the seconds the session took;
- NAME.steps.txt: the screen after each step and, per printed command,
  what the reader found (whole, cut, not shown, unsure), for checking the
  .want by eye.
- NAME.captures.json.gz: every capture of the screen the .want was read
  from (below), so that reread.py can read them again after a fix to the
  reader's rules.

A session: the CLI starts at a random size (50-200 × 15-60); then 4 to 7
printed files, each shown through the CLI's own shell mode (`!cmd`;
Gemini CLI's persistent `!` mode; opencode's `!`) in one of three ways:
`cat FILE`, `sh FILE.sh` (a script printing with pauses, so output streams
and progress rows are rewritten with `\r`), or `printf` typed on the
command line (its echo holds the relay line too: typed input, never a
command). A file mixes relay lines (1-600 characters: ASCII words,
accents, CJK, combining marks, emoji, quotes, backslashes; @thinking: too;
now and then the same line twice), [[RELAY]] blocks (JSON on one line or
pretty-printed; bodies with escaped newlines and quotes), ordinary lines
(indented ones, short ones after long ones, lines that nearly look like
commands), progress rows rewritten with `\r`; a blank line after a
relay line where the next line's first word, at some width the session
has from that print on, would end the relay line's last row at or near
the right edge (no reader can tell a wrap from a line's end there);
sometimes hundreds of lines; sometimes a file printed before is printed again (a new
occurrence, expected again). Resizes come between files and in the
middle of a streaming one; on the alternate-screen CLIs the transcript is
scrolled back and forth (PageUp, PageDown); Claude Code inline sometimes
gets a prompt taller than the screen (a full repaint) before a file.

What is expected: the generator knows every command it printed; a command
is in the .want when the screen showed it while its file was printed. The
screen is captured (tmux capture-pane) every 0.2 s from the Enter that
runs the file until the CLI is idle again; a capture counts when the next
one is the same (the screen held still at least that long, as a reader's
eye and swarm's settle time need; a row that changed, such as a spinner's,
reads as blank). On the main-screen CLIs the scrollback
is read too once the file is done. Only rows below the echo of the file's
own command count (the whole screen when the echo is off it: relay lines
are unique in a recording). A file printed again (always the session's
last) shares its lines with the earlier file, so without its echo on the
screen a showing counts only where the earlier print's cannot be: below a
later file's echo, not below the earlier file's; anywhere once its echo
has shown and scrolled off the top; else where no showing of the earlier
print can have moved since the screen before the Enter (a transcript's
rows move up, never down: one lower than all of them, or one more, is
new; Repeat). Its scrollback needs its echo. Per command, the best
showing over the captures decides (reader.py matches the printed line
against the rows):

- shown whole: expected as printed (in composed form, Unicode NFC, where
  the screen shows it so: every CLI here draws combining marks composed,
  and a reader cannot tell the forms apart; reader.py);
- never shown while its file printed (collapsed, truncated, scrolled past
  on an alternate screen): not expected. When a later capture (a resize
  that redraws more of the transcript, PageUp) shows it for the first
  time, it is unsure;
- shown in part or changed (cut by a row limit such as Codex's `+ Show
  details`, or a composer that dropped typed characters): unsure;
- not shown as printed, but a row starts as the command does (the CLI
  changed its text): unsure;
- shown for less than BRIEF (0.6 s) in all (streaming output scrolled it
  away at once): unsure;
- in no capture, but whole on the screen between two (for less than a
  capture's 0.2 s: a transcript scrolling while output pours in, a live
  box redrawn, a view collapsed a moment later): unsure. Once the session
  is over, frames.py plays NAME.cast again in tmux one output event at a
  time and captures the screen after each; a command some frame from its
  file's Enter on shows whole (on Gemini CLI: whole as it draws it, below
  the file's echo as above) is unsure, one no frame shows whole
  (collapsed, cut, clipped at a box's edge) stays not shown;
- Gemini CLI only: shown as Gemini draws it (rows cut to its box and
  joined with one blank, wide characters followed by a blank): expected
  as shown; but unsure when a row it spans has room left for the next
  row's first word and the blank before it (reader.join_unclear): a row
  Gemini cut leaves free columns, and a reader cannot tell the next row
  from a line of its own; and unsure when a row it spans reaches the
  box's last column over a row starting with a letter, unless the line's
  rows say whether a word broke there or text was dropped after it and
  the line was printed so (reader.edge_break).

Unsure commands are not in the .want; NAME.json lists them ("unsure",
each with what showed), and corpus-score neither expects them nor counts
a command found in their place as extra. A block is expected only when
every row of it showed, each right below the one before; one whose rows
showed only in pieces, each piece after the first starting with a row
shown before (a block taller than the view streaming through it), is
unsure (Session.block_in_pieces). After a fix to
these rules, reread.py applies them to a corpus's saved captures
(NAME.captures.json.gz; older recordings: the final screens in
NAME.steps.txt) and to the frames of NAME.cast, without recording again.

What each CLI does, as seen at these versions (the reader's rules follow
from it):

- Claude Code 2.1.332, both renderers: the latest command's output is
  shown whole while it is the latest, older outputs collapse to their
  first rows and `… +N lines`; a line of JSON alone is drawn
  pretty-printed (a block is matched in that form, and as printed: the
  inline renderer writes a long output as it is into the scrollback
  first); `\r` in output shows
  as a line break; the row glyph is `⎿` and a no-break space. After a
  shell command it tries the API it cannot reach: Esc stops it.
- Codex 0.171.0: long output is shown as its first and last rows with
  `… +N lines`, a very long line as a few rows and `+ Show details`; a row
  rewritten with `\r` shows only its first state; an Enter pressed
  before its startup is done ("Waiting for startup") is dropped, so the
  generator presses Enter again until the command leaves the composer.
- Gemini CLI 0.61.0: a command's output runs in a terminal as wide as the
  window; each of its rows is word-wrapped into the box (window width - 8)
  and only the first part kept; wide characters are drawn followed by a
  blank (emoji are not, ✅ neither); long output shows only its last rows (`... first
  N lines hidden ...`). Blocks are printed only with JSON rows that fit
  its box (a cut JSON row is a malformed block to every reader).
- opencode 1.18.33: long output shows its first rows and `…`, `Click to
  expand`; 120 columns and wider, a sidebar shares the transcript's rows
  (cut off at the gap before it; it and the gap take 42 columns, the
  transcript's text is that much narrower); it waits up to a minute for models.dev
  before its first screen.

So that every expected command reads one way, the generator avoids what
would make a reader (or swarm) unsure: a relay line is never taller than
the transcript's view at the size it is printed at; a row that follows a
relay line starts with a word that would have fitted on the line's last
row, with room to spare, at any width near the transcript's (else a blank
row comes between);
no row break inside a relay line, or inside a JSON line of a block, is
one a reader cannot read as printed, at any width near the transcript's
the session has from its print on (unreadable_wrap; such a line's or
block's body is drawn again, as wide: redraw_unreadable):
opencode breaking a word after punctuation at its margin ("1,234." over
"56": "1,234.56" or "1,234. 56"), or a break between two chunks where
the CLI may break without a blank (Codex and Claude Code: UAX #14, beside
a wide letter or emoji; opencode: between wide letters) and the next
chunk would not have fitted in the room left with the blank or without
(wide letters to the edge over a wide letter, "💡" with 3 columns left
over "✅✅": a blank between them or none draws the same);
relay lines are unique in a recording except those printed twice on
purpose; lines typed on the command line hold no punctuation (Codex's
composer drops some).
"""
import argparse
import concurrent.futures
import gzip
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import traceback
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the repository
import content  # noqa: E402
import frames  # noqa: E402
import reader  # noqa: E402
from content import cols  # noqa: E402

PTYREC = os.path.join(HERE, "ptyrec.py")
CONFIGS = ["claude", "claude-inline", "codex", "codex-inline", "gemini", "opencode"]
KIND = {"claude": "claude", "claude-inline": "claude", "codex": "codex", "codex-inline": "codex",
        "gemini": "gemini", "opencode": "opencode"}
ALT = {"claude", "codex", "opencode"}
RENDERER = {"claude": "fullscreen (alternate screen)", "claude-inline": "inline (CLAUDE_CODE_DISABLE_ALTERNATE_SCREEN=1)",
            "codex": "alternate screen", "codex-inline": "inline (--no-alt-screen)",
            "gemini": "main screen, boxes", "opencode": "alternate screen, gutter"}
PROGRAM = {"claude": "claude", "codex": "codex", "gemini": "gemini", "opencode": "opencode"}
# Rows the CLI keeps for itself (input box, status, margins) and the
# columns its transcript loses to indents and gutters: used to keep a relay
# line within one screen of transcript.
CHROME_ROWS = {"claude": 9, "claude-inline": 9, "codex": 8, "codex-inline": 8, "gemini": 14, "opencode": 12}
INDENT = {"claude": 5, "claude-inline": 5, "codex": 4, "codex-inline": 4, "gemini": 8, "opencode": 8}
POLL = 0.2
# A command that showed for less than BRIEF seconds in all is unsure; the
# screen once the CLI is idle again counts as shown for SETTLED seconds.
BRIEF = 0.6
SETTLED = 10.0
# The verdict of a command only a frame between two captures showed.
BETWEEN = "unsure, shown only between captures (a frame of the recording): "


# ---------------------------------------------------------------- the plan

# opencode 1.18.33, on a screen wider than 120 columns: its sidebar and the
# gap before it take this many columns right of the transcript (recordings:
# text rows of 83 columns at 133, 112 at 162; at exactly 120 no sidebar,
# rows out to column 117).
OPENCODE_SIDEBAR = 42


def text_width(config, c):
    """Columns of the transcript's text at window width c, and how sure
    that is (the rows may be a few columns narrower)."""
    if config == "opencode" and c > 120:
        return c - INDENT[config] - OPENCODE_SIDEBAR
    return c - INDENT[config]


def max_relay(config, c, r):
    """The longest relay line that fits the transcript's view."""
    rows = max(2, r - CHROME_ROWS[config] - 2)
    width = max(20, text_width(config, c) - 2)
    if config == "gemini":
        # A row of Gemini's terminal shows only its first box-width part.
        return max(12, min(600, rows * width))
    return max(12, min(600, rows * width))


def wrap_rows(text, width):
    """Word-wraps text at width columns; returns the rows."""
    rows, cur = [], ""
    for w in text.split(" "):
        cand = w if not cur else cur + " " + w
        if cols(cand) <= width:
            cur = cand
            continue
        if cur:
            rows.append(cur)
        while cols(w) > width:
            cut = 0
            acc = 0
            for i, ch in enumerate(w):
                acc += cols(ch)
                if acc > width:
                    cut = i
                    break
            rows.append(w[:max(1, cut)])
            w = w[max(1, cut):]
        cur = w
    rows.append(cur)
    return rows


def char_rows(text, width):
    """Wraps text at width columns anywhere, as a terminal does; returns
    the rows."""
    rows, cur = [], ""
    for ch in text:
        if cur and cols(cur + ch) > width:
            rows.append(cur)
            cur = ""
        cur += ch
    rows.append(cur)
    return rows


def fits_after(config, line, nxt, widths):
    """Whether the row nxt, after the relay line line, reads as a line of
    its own at every width in widths: its first word would have fitted on
    line's last row, however the CLI wraps the line (or line takes one row
    and nxt is short of a wrap)."""
    first = nxt.strip().split(" ")[0]
    if not nxt.strip():
        return True
    for c in widths:
        for w in range(text_width(config, c) - 3, text_width(config, c) + 2):
            if config == "gemini":
                # Its terminal's row, then the first box-width part of it;
                # each a few columns off too (the model is not exact: a
                # row it says leaves room has shown 3 columns left). Its
                # terminal is as wide as the window, or as the box once
                # Gemini has resized it to the box: then the terminal's
                # own wrap, anywhere in a word, makes its rows too. The
                # terminal wraps the line as printed; each of its rows is
                # then drawn with a blank after each wide letter.
                d = w - text_width(config, c)
                box = c - 8 + d
                lasts = [reader.gemini_form(rows[-1]) for rows in
                         (wrap_rows(line, c + d), wrap_rows(line, box), char_rows(line, box))]
                room = min(box - cols(wrap_rows(last, box)[0]) for last in lasts)
            else:
                # As the CLI may wrap it: at blanks only, or also where
                # its line breaking breaks a run of wide letters (Codex
                # and Claude Code follow UAX #14; ambig_rows), or a word
                # after punctuation (UAX #14 breaks "C:" | "\path",
                # "pipe|" | "bar"; opencode at its margin: punct_rows),
                # each of which may leave its last row longer.
                room = min(w - cols(rows[-1]) for rows in
                           (wrap_rows(line, w), wide_rows(line, w), ambig_rows(config, line, w),
                            punct_rows(line, w)[0]))
            if room < cols(first) + 4:
                return False
    return True


def wide(ch):
    """Whether ch takes two columns (East Asian wide or fullwidth)."""
    return cols(ch) == 2


def wide_rows(text, width):
    """Wraps text at width columns where a blank is, or between two wide
    characters (a CLI following Unicode's line breaking may break a run
    of CJK there); returns the rows."""
    return break_rows(text, width, lambda a, b: wide(a) and wide(b))


def break_rows(text, width, breaks):
    """Wraps text at width columns where a blank is, or inside a word
    between two characters a and b where breaks(a, b); returns the rows."""
    units = []  # (piece, whether a blank comes before it)
    for w in text.split(" "):
        start = 0
        for i in range(1, len(w)):
            if breaks(w[i - 1], w[i]):
                units.append((w[start:i], start == 0))
                start = i
        units.append((w[start:], start == 0))
    rows, cur = [], ""
    for piece, blank in units:
        cand = cur + (" " if blank and cur else "") + piece
        if not cur or cols(cand) <= width:
            cur = cand
            continue
        rows.append(cur)
        cur = piece
    rows.append(cur)
    return rows


# Where opencode 1.18.33 may break a word at its wrap margin: after one of
# these, when more of the word follows ("1,234." | "56").
BREAK_AFTER = set(",.;:!?-/|)]}%&=^~")


def punct_rows(text, width):
    """Word-wraps text at width columns as opencode does: a word that does
    not fit is broken after its last punctuation that fits (else moved to
    the next row whole); returns the rows and, per row but the last,
    whether it ended inside a word."""
    rows, inside, cur = [], [], ""
    for w in text.split(" "):
        while True:
            cand = w if not cur else cur + " " + w
            if cols(cand) <= width or not cur and cols(w) <= width:
                cur = cand
                break
            lead = (cur + " ") if cur else ""
            cut = max((i + 1 for i, ch in enumerate(w[:-1]) if ch in BREAK_AFTER and cols(lead + w[:i + 1]) <= width),
                      default=0)
            if cut:
                rows.append(lead + w[:cut])
                inside.append(True)
                w, cur = w[cut:], ""
                continue
            if not cur:
                cur = w  # wider than the row and no break: as wrap_rows
                break
            rows.append(cur)
            inside.append(False)
            cur = ""
    rows.append(cur)
    return rows, inside


# Where a line may not break without a blank under Unicode's line breaking
# (UAX #14): before closing punctuation, infix separators, exclamation and
# postfix signs; after opening punctuation, prefix signs and quotes.
NO_BREAK_BEFORE = set(",.;:!?)]}%'\"、。，．！？」』）ー々")
NO_BREAK_AFTER = set("([{$#'\"\\/「『（")


def break_without_blank(config, a, b):
    """Whether config may break a line between the characters a and b
    (neither a blank) with no blank between them. Codex and Claude Code
    follow Unicode's line breaking (UAX #14): a wide letter or emoji (ID
    class) breaks from what is next to it, except before closing
    punctuation or after opening; opencode breaks between two wide
    letters (and after punctuation at its margin, punct_rows)."""
    if config == "opencode":
        return wide(a) and wide(b)
    if not (wide(a) or wide(b)):
        return False
    return b not in NO_BREAK_BEFORE and a not in NO_BREAK_AFTER


def emoji(ch):
    """A pictograph (emoji, ✅): not a letter of a script."""
    return wide(ch) and unicodedata.category(ch) == "So"


def ambig_rows(config, text, width):
    """Wraps text at width columns where a blank is or where config may
    break without one (break_without_blank); returns the rows."""
    return break_rows(text, width, lambda a, b: break_without_blank(config, a, b))


def next_chunk(config, b):
    """The first part of row b no break can split, as large as any CLI
    might take it: up to a blank or a break without one, but two emoji
    kept together (Codex drew "💡" at 50 of 53 columns over "✅✅")."""
    for i in range(1, len(b)):
        if b[i] == " ":
            return b[:i]
        if break_without_blank(config, b[i - 1], b[i]) and not (emoji(b[i - 1]) and emoji(b[i])):
            return b[:i]
    return b


def ambiguous_break(config, a, b, width):
    """Whether a row a (of width columns) over a row b reads two ways: a
    ends and b starts with something not a blank, config may break there
    without a blank, and b's first chunk (next_chunk) would not have
    fitted in a's room left with the blank or without: a blank between
    them, or none, draws the same rows."""
    ta = a.rstrip()
    if not ta or not b or b[0] == " " or not break_without_blank(config, ta[-1], b[0]):
        return False
    return cols(next_chunk(config, b)) > width - cols(ta)


def unreadable_wrap(config, line, widths):
    """Whether a relay line, wrapped at some width near those in widths
    (as fits_after: the transcript's text width, a few columns off), has a
    row break inside it that no reader can read as printed:

    - opencode breaks a word after punctuation at its margin: a row ending
      "1,234." above "56" is "1,234.56" or "1,234. 56" (punct_rows);
    - a break between two chunks where the CLI may break without a blank
      (between wide letters or emoji, or a wide letter and another
      script) and the next chunk would not have fitted in the room left
      with the blank or without (ambiguous_break: wide letters filled to
      the edge over a wide letter; "💡" with 3 columns left over "✅✅";
      a blank between them, or none, draws the same), in rows wrapped at
      blanks only (wrap_rows), between wide letters (wide_rows) or
      wherever the CLI may break (ambig_rows).

    Gemini CLI is left out: its rows are cut and drawn with a blank after
    each wide letter, and its reader joins them its own way (reader.py)."""
    if config == "gemini":
        return False
    for c in widths:
        for w in range(text_width(config, c) - 3, text_width(config, c) + 2):
            if config == "opencode":
                rows, inside = punct_rows(line, w)
                if any(inside):
                    return True
            for rows in (wrap_rows(line, w), wide_rows(line, w), ambig_rows(config, line, w)):
                for a, b in zip(rows, rows[1:]):
                    if ambiguous_break(config, a, b, w):
                        return True
    return False


def redraw_unreadable(plan, st, widths, used):
    """Draws the body of each relay line of st that unreadable_wrap finds
    unreadable at widths again, as wide as before, from a random source of
    its own (the same plan gives the same text), until the line reads as
    printed: the corpus then never asks for what its screen cannot tell.
    A line with wide letters is drawn again with wide letters where one of
    15 draws has them and reads; after 20 draws, a body of plain words (no
    CJK, no punctuation), which always reads."""
    config = plan["config"]
    rng = random.Random("%s/%d/%s/redraw" % (config, plan["seed"], st.idx))
    typed = st.how == "printf"
    for k, cmd in enumerate(st.cmds):
        if cmd.block:
            redraw_unreadable_block(plan, st, k, widths)
            continue
        old = cmd.lines[0]
        if not unreadable_wrap(config, old, widths):
            continue
        head = "@%s:%s " % (cmd.kind, cmd.to)
        for k in range(21):
            body = content.sentence(rng, max(1, cols(cmd.body)), set() if k == 20 else set(plan.get("features", ())),
                                    typed or k == 20)
            if typed:
                body = body.replace("!", ".")
            line = head + body
            if line in used or unreadable_wrap(config, line, widths):
                continue
            # Most lines with CJK are unreadable somewhere (a long one at
            # nearly every width): the first 15 draws keep wide letters
            # when the line had them, or the corpus would lose most of its.
            if k >= 15 or any(map(wide, body)) or not any(map(wide, cmd.body)):
                break
        used.add(line)
        for other in st.cmds:
            if not other.block and other.lines[0] == old:
                other.lines, other.body = [line], body
        st.lines = [line if l == old else l for l in st.lines]


def body_unreadable(config, line, widths):
    """Whether a JSON line of a block breaks unreadably (unreadable_wrap)
    inside its body's string. Around the strings a blank more or less
    reads the same JSON ('{"to":"bob",' over '"type":…'), so the rest of
    the line, the body's quotes with it, is read as words of as many
    columns that break nowhere but at their blanks."""
    m = line.find('"body":')
    if m < 0:
        return False
    q0 = line.find('"', m + len('"body":'))
    try:
        _, end = json.decoder.scanstring(line, q0 + 1)
    except ValueError:
        return False
    lead = len(line) - len(line.lstrip(" "))
    masked = line[:lead] + "x" * cols(line[lead:q0 + 1]) + line[q0 + 1:end - 1] + "x" * cols(line[end - 1:])
    return unreadable_wrap(config, masked, widths)


def redraw_unreadable_block(plan, st, k, widths):
    """Draws the body of st's k-th command, a block, again where a row
    break inside one of its JSON lines is unreadable at widths (as
    redraw_unreadable does for a relay line: Codex broke '"body": "… camp
    한국어カタカナ' at the edge over '💡 usual …', a blank between them or
    none drawing the same, codex-s10500032). Each of the body's lines is
    drawn again as wide as before, its quotes and backslash kept, the JSON
    laid out as before (one line, or pretty-printed); from a random source
    of the command's own, so that redrawing one block leaves the other
    commands' text as it was."""
    config = plan["config"]
    cmd = st.cmds[k]
    old = cmd.lines
    js = old[1:-1]
    if not any(body_unreadable(config, l, widths) for l in js):
        return
    rng = random.Random("%s/%d/%s/%d/redraw-block" % (config, plan["seed"], st.idx, k))
    parts = cmd.body.split("\n")
    quoted = ' "q" ' in parts[0]
    backslash = parts[-1].endswith(" \\ end")
    obj = {"to": cmd.to, "type": "message", "body": cmd.body, "topic": cmd.topic}
    for n in range(21):
        features = set() if n == 20 else set(plan.get("features", ()))
        new = [content.sentence(rng, max(3, cols(p) - 4 * (quoted and i == 0)), features, n == 20)
               for i, p in enumerate(parts)]
        if quoted:
            new[0] = new[0].replace(" ", ' "q" ', 1)
        if backslash:
            new[-1] += " \\ end"
        obj["body"] = "\n".join(new)
        if len(js) > 1:
            lines = json.dumps(obj, ensure_ascii=False, indent=2).split("\n")
        else:
            lines = [json.dumps(obj, ensure_ascii=False, separators=(",", ":"))]
        if any(body_unreadable(config, l, widths) for l in lines):
            continue
        # As for a relay line: wide letters kept where one of 15 draws
        # has them and reads.
        if n >= 15 or any(map(wide, obj["body"])) or not any(map(wide, cmd.body)):
            break
    cmd.lines, cmd.body = [old[0]] + lines + [old[-1]], obj["body"]
    for i in range(len(st.lines) - len(old) + 1):
        if st.lines[i:i + len(old)] == old:
            st.lines[i:i + len(old)] = cmd.lines
            break


class PrintStep:
    def __init__(self, idx, how, lines, cmds, tag, cmdline, repeat_of=None):
        self.idx, self.how, self.lines, self.cmds = idx, how, lines, cmds
        self.tag, self.cmdline, self.repeat_of = tag, cmdline, repeat_of
        self.mid_resize = None  # (delay s, cols, rows)
        self.pauses = []


def make_plan(config, seed):
    rng = random.Random("%s/%d" % (config, seed))
    c0, r0 = rng.randint(50, 200), rng.randint(15, 60)
    features = set(f for f in ["accents", "cjk", "combining", "emoji"] if rng.random() < 0.5)
    steps = []
    size = [c0, r0]
    sizes_seen = [tuple(size)]
    nprint = rng.randint(4, 7)
    long_at = rng.randrange(nprint) if rng.random() < 0.6 else -1
    repeat = rng.random() < 0.5
    scroll_at = rng.randrange(1, nprint + 1) if config in ALT and rng.random() < 0.7 else -1
    tall_prompt = config == "claude-inline" and rng.random() < 0.3
    used = set()
    printed = []
    n_files = 0
    for k in range(nprint):
        if k > 0 and rng.random() < 0.3:
            size = [rng.randint(50, 200), rng.randint(15, 60)]
            steps.append(("resize", tuple(size)))
            sizes_seen.append(tuple(size))
        if k == scroll_at:
            steps.append(("scroll", rng.randint(1, 4)))
        if tall_prompt and k == nprint // 2:
            steps.append(("tall", None))
        if repeat and k == nprint - 1 and printed:
            src = rng.choice([p for p in printed if not p.long] or printed)
            n_files += 1
            name = "f%02d" % n_files
            st = _print_step(name, src.how, src.lines, src.cmds, rng, config, repeat_of=src.idx)
            st.pauses = src.pauses
            st.long = False
            steps.append(("print", st))
            continue
        how = rng.choices(["cat", "sh", "printf"], weights=[6, 3, 1.5])[0]
        is_long = k == long_at
        if is_long and how == "printf":
            how = "cat"
        # A resize in the middle of a streaming file.
        mid = None
        if how == "sh" and rng.random() < 0.4:
            mid = (round(rng.uniform(0.2, 1.5), 2), rng.randint(50, 200), rng.randint(15, 60))
        widths = [size[0]] + ([mid[1]] if mid else [])
        height = min([size[1]] + ([mid[2]] if mid else []))
        lines, cmds = make_file(rng, config, features, min(widths), height, widths, is_long, how, used)
        n_files += 1
        name = "f%02d" % n_files
        st = _print_step(name, how, lines, cmds, rng, config)
        st.long = is_long
        if how == "sh":
            st.pauses = [rng.choice([0, 0, 0.02, 0.05, 0.3]) for _ in lines]
            if is_long:
                st.pauses = [0.005 if rng.random() < 0.9 else 0.1 for _ in lines]
        if mid:
            st.mid_resize = mid
            size = [mid[1], mid[2]]
            sizes_seen.append(tuple(size))
        steps.append(("print", st))
        printed.append(st)
    if rng.random() < 0.5:
        steps.append(("resize", (rng.randint(50, 200), rng.randint(15, 60))))
        sizes_seen.append(steps[-1][1])
    plan = {"config": config, "seed": seed, "cols": c0, "rows": r0, "features": sorted(features),
            "steps": steps, "sizes": sizes_seen}
    guard_later_widths(config, plan)
    return plan


def _print_step(name, how, lines, cmds, rng, config, repeat_of=None):
    if how == "cat":
        tag = name + ".txt"
        cmdline = "cat " + tag
    elif how == "sh":
        tag = name + ".sh"
        cmdline = "sh " + tag
    else:
        tag = ": %s;" % name
        cmdline = tag + " printf '%s\\n' " + " ".join(shq(l) for l in lines)
    return PrintStep(name, how, lines, cmds, tag, cmdline, repeat_of)


def make_file(rng, config, features, width, height, widths, is_long, how, used):
    """The lines of one printed file and the commands among them."""
    maxlen = max_relay(config, width, height)
    n_cmds = rng.randint(1, 4) if how != "printf" else 1
    n_ord = rng.randint(0, 6) if how != "printf" else rng.randint(0, 1)
    if is_long:
        n_ord += rng.randint(100, 400)
        n_cmds += rng.randint(1, 3)
    items = []
    for _ in range(n_cmds):
        r = rng.random()
        if r < 0.25 and how != "printf":
            b = content.block(rng, features, maxlen, (width - 12) if config == "gemini" else None)
            if b:
                items.append(b)
                continue
        for _ in range(20):
            c = content.relay_line(rng, features, min(maxlen, 150) if how == "printf" else maxlen, how == "printf")
            if c.lines[0] not in used:
                break
        if how == "printf":
            c = content.Cmd([c.lines[0].replace("!", ".")], c.kind, c.to, c.body.replace("!", "."))
        used.add(c.lines[0])
        items.append(c)
        if rng.random() < 0.08 and how != "printf":
            # The same line twice in a row: two commands.
            items.append(content.Cmd(list(c.lines), c.kind, c.to, c.body))
    for _ in range(n_ord):
        o = content.ordinary(rng, features, min(maxlen, 60 if how == "printf" else 300), how == "printf")
        if rng.random() < 0.08 and how != "printf":
            o = "".join("progress %d%%\r" % p for p in range(0, 100, rng.choice([10, 25]))) + "done " + o
        if how == "printf":
            o = o.replace("!", ".").replace("\r", "")
        items.append(o)
    # Commands spread among the ordinary lines, in order.
    order = [it for it in items if isinstance(it, content.Cmd)]
    ords = [it for it in items if not isinstance(it, content.Cmd)]
    seq = []
    slots = sorted(rng.sample(range(len(ords) + len(order)), len(order)))
    oi = ci = 0
    for pos in range(len(ords) + len(order)):
        if ci < len(order) and pos == slots[ci]:
            seq.append(order[ci])
            ci += 1
        else:
            seq.append(ords[oi])
            oi += 1
    lines, cmds = [], []
    for i, it in enumerate(seq):
        if isinstance(it, content.Cmd):
            lines.extend(it.lines)
            cmds.append(it)
            continue
        lines.append(it)
    if how != "printf" or not lines:
        lines.append(END)
    return spaced(config, lines, cmds, widths), cmds


# The last line of a file (but a printf's), with the count of its lines.
END = "end of the output, %d lines"


def spaced(config, lines, cmds, widths):
    """lines with a blank line put after each relay line whose next line
    would not read as a line of its own at some width in widths (fits_after):
    where the next row's first word fits neither on the relay line's last
    row nor clearly not, no reader can tell a wrap from a line's end, so
    the corpus must not ask for one. Calling it again with more widths only
    adds blanks."""
    relay = set(c.lines[-1] for c in cmds if not c.block)
    starts = set(l for c in cmds for l in c.lines)
    out = []
    for i, line in enumerate(lines):
        out.append(line)
        nxt = lines[i + 1] if i + 1 < len(lines) else None
        if line in relay and nxt and nxt not in starts and not fits_after(config, line, END if nxt.startswith(END[:18]) else nxt, widths):
            out.append("")
    if out and out[-1].startswith(END[:18]):
        out[-1] = END % len(out)
    return out


def guard_later_widths(config, plan):
    """Spaces each printed file for every width the session has from its
    print on, not only the widths it was printed at: a CLI that lays its
    transcript out again after a resize (Claude Code, Codex, opencode, Gemini
    CLI's boxes) shows the file at the later widths too."""
    steps = plan["steps"]
    width = plan["cols"]
    at = []  # the width each step starts at
    for kind, arg in steps:
        at.append(width)
        if kind == "resize":
            width = arg[0]
        elif kind == "print" and arg.mid_resize:
            width = arg.mid_resize[1]
    used = set(l for kind, st in steps if kind == "print" for l in st.lines)
    for i, (kind, st) in enumerate(steps):
        if kind != "print" or st.repeat_of:
            continue
        widths = set(at[i:]) | {width}
        for kind2, arg in steps[i:]:
            if kind2 == "print" and arg.mid_resize:
                widths.add(arg.mid_resize[1])
        redraw_unreadable(plan, st, sorted(widths), used)
        st.lines = spaced(config, st.lines, st.cmds, sorted(widths))
    by_name = {st.idx: st for kind, st in steps if kind == "print"}
    for kind, st in steps:
        if kind == "print" and st.repeat_of:
            st.lines = by_name[st.repeat_of].lines
    for kind, st in steps:
        if kind == "print" and st.how == "printf":
            st.cmdline = _print_step(st.idx, st.how, st.lines, st.cmds, None, config).cmdline


def shq(s):
    return "'" + s.replace("'", "'\\''") + "'"


# --------------------------------------------------------------- a session

class Failed(Exception):
    pass


class Session:
    def __init__(self, plan, outdir, base):
        self.plan = plan
        self.config = plan["config"]
        self.cols, self.rows = plan["cols"], plan["rows"]
        self.name = "%s-s%d-%dx%d" % (self.config, plan["seed"], self.cols, self.rows)
        self.base = base
        self.home = base + "/home"
        self.work = base + "/work"
        self.fifo = base + "/ctl.fifo"
        self.sock = "gen-" + os.path.basename(base)
        self.out = os.path.join(outdir, self.name)
        self.steps_txt = []
        self.captures = []  # (time, [rows]) of screens that held still
        self.first_resize = None
        self.t0 = None
        self.lock = threading.Lock()
        self.polling = False
        shutil.rmtree(base, ignore_errors=True)
        os.makedirs(self.home)
        os.makedirs(self.work)

    # --- the CLI and tmux

    def setup(self):
        env = {"TERM": "xterm-256color", "HOME": self.home, "PATH": os.environ["PATH"], "LANG": "C.UTF-8"}
        c = self.config
        if c.startswith("claude"):
            key = "sk-ant-api03-" + "A" * 40
            with open(self.home + "/.claude.json", "w") as fh:
                json.dump({"hasCompletedOnboarding": True,
                           "customApiKeyResponses": {"approved": [key[-20:]], "rejected": []},
                           "projects": {self.work: {"hasTrustDialogAccepted": True, "allowedTools": []}}}, fh)
            env.update(ANTHROPIC_API_KEY=key, DISABLE_AUTOUPDATER="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
            if c == "claude-inline":
                env["CLAUDE_CODE_DISABLE_ALTERNATE_SCREEN"] = "1"
            return env, ["claude"], "❯"
        if c.startswith("codex"):
            os.makedirs(self.home + "/.codex")
            with open(self.home + "/.codex/auth.json", "w") as fh:
                json.dump({"auth_mode": "apikey", "OPENAI_API_KEY": "sk-dummy"}, fh)
            with open(self.home + "/.codex/config.toml", "w") as fh:
                fh.write('[projects."%s"]\ntrust_level = "trusted"\n' % self.work)
            env["OPENAI_API_KEY"] = "sk-dummy"
            return env, ["codex"] + (["--no-alt-screen"] if c == "codex-inline" else []), "›"
        if c == "gemini":
            os.makedirs(self.home + "/.gemini")
            with open(self.home + "/.gemini/settings.json", "w") as fh:
                json.dump({"security": {"auth": {"selectedType": "gemini-api-key"}}}, fh)
            with open(self.home + "/.gemini/trustedFolders.json", "w") as fh:
                json.dump({self.work: "TRUST_FOLDER"}, fh)
            env["GEMINI_API_KEY"] = "dummy"
            return env, ["gemini"], "Type your"
        if c == "opencode":
            env["OPENAI_API_KEY"] = "sk-dummy"
            # Its placeholder ("Ask anything") is gone after a shell
            # command; the footer stays.
            return env, ["opencode"], "ctrl+p commands"
        raise Failed("unknown config " + c)

    def tmux(self, *args, check=True):
        r = subprocess.run(["tmux", "-L", self.sock] + list(args), capture_output=True, text=True)
        if check and r.returncode != 0:
            raise Failed("tmux %s: %s" % (args[0], r.stderr.strip()))
        return r.stdout

    def start(self):
        env, argv, self.ready = self.setup()
        if not shutil.which(argv[0]):
            raise Failed("%s is not on PATH" % argv[0])
        cmd = ["env", "-i"] + ["%s=%s" % kv for kv in env.items()] + \
            ["python3", PTYREC, "--out", self.out + ".cast", "--fifo", self.fifo, "--title", self.name, "--"] + argv
        self.tmux("-f", "/dev/null", "new-session", "-d", "-x", str(self.cols), "-y", str(self.rows),
                  "-c", self.work, " ".join(shq(a) for a in cmd))
        self.tmux("set-option", "-g", "history-limit", "20000")
        self.t0 = time.time()
        # opencode 1.18.33 waits for models.dev (unreachable) for up to a
        # minute on a busy machine before it draws its prompt.
        if not self.wait(lambda s: self.ready in s, 150):
            raise Failed("no prompt after 150 s")
        # The prompt shows a moment before the CLI takes keys.
        self.settle(2.0 if self.config.startswith("codex") else 1.0, 10)
        self.polling = True
        threading.Thread(target=self.poll, daemon=True).start()

    def screen(self, history=False):
        args = ["capture-pane", "-p"] + (["-S", "-20000"] if history else [])
        return self.tmux(*args, check=False)

    def wait(self, cond, timeout):
        end = time.time() + timeout
        while time.time() < end:
            if cond(self.screen()):
                return True
            time.sleep(0.15)
        return False

    def settle(self, quiet, timeout):
        """Waits until the screen has not changed for quiet seconds."""
        end = time.time() + timeout
        last, since = None, time.time()
        while time.time() < end:
            s = self.screen()
            if s != last:
                last, since = s, time.time()
            elif time.time() - since >= quiet:
                return True
            time.sleep(0.1)
        return False

    def poll(self):
        """Captures the screen every POLL seconds and keeps the rows that
        held still since the capture before (a row that changed reads as
        blank): what a reader can read. A spinner or a timer elsewhere on
        the screen does not hide the rows that stood still."""
        prev = None
        while self.polling:
            s = self.screen()
            if s and prev:
                if s == prev:
                    still = s
                else:
                    a, b = prev.split("\n"), s.split("\n")
                    still = "\n".join(x if i < len(a) and a[i] == x else "" for i, x in enumerate(b))
                if still.strip():
                    now = time.time()
                    with self.lock:
                        if self.captures and self.captures[-1][2] == still:
                            self.captures[-1][1] = now
                        else:
                            self.captures.append([now, now, still])
            prev = s
            time.sleep(POLL)

    def send(self, data):
        fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
        try:
            os.write(fd, data.encode())
        finally:
            os.close(fd)

    def busy(self, s):
        low = s.lower()
        return ("esc to interrupt" in low or "esc to cancel" in low or "esc interrupt" in low
                or ("(esc to" in low and "shell mode" not in low))

    def idle(self, timeout=20):
        return self.wait(lambda s: self.ready in s and not self.busy(s), timeout)

    def note(self, what, text=None):
        self.steps_txt.append("=== %s\n%s" % (what, self.screen() if text is None else text))

    # --- the steps

    def run(self):
        self.start()
        self.note("started %dx%d" % (self.cols, self.rows))
        if self.config == "gemini":
            self.send("!")  # Gemini's shell mode stays on
            if not self.wait(lambda s: "shell mode" in s, 10):
                raise Failed("Gemini's shell mode did not start")
        results = []
        for kind, arg in self.plan["steps"]:
            if kind == "print":
                results.append(self.print_step(arg))
            elif kind == "resize":
                self.resize(*arg)
                self.settle(0.8, 6)
                self.note("resized to %dx%d" % arg)
            elif kind == "scroll":
                self.scroll(arg)
            elif kind == "tall":
                self.tall_prompt()
        self.late_pass(results)
        return results

    def changed(self, st, cmd, caps):
        """Whether a row below the file's echo starts as the command does
        (its marker, recipient and first characters) without the rest
        matching: the CLI changed its text (opencode 1.18.33 moves
        combining marks typed into its input box to the end of the word)."""
        if cmd.block:
            return False
        head = "@%s:%s %s" % (cmd.kind, cmd.to, cmd.body[:3])
        if self.config == "gemini":
            head = reader.gemini_form(head)
        head = reader.canon(head)
        for _, _, scr in caps:
            rows = scr.split("\n")
            anchor = next((i for i, r in enumerate(rows) if st.tag in r), None)
            if anchor is None and st.repeat_of is not None:
                continue
            for r in rows[0 if anchor is None else anchor + 1:]:
                if reader.canon(reader.clean(self.config, r)).startswith(head):
                    return True
        return False

    def late_pass(self, results):
        """A command its file's output never showed may show later, whole
        or in part: a resize redraws the transcript with more of it,
        PageUp scrolls back to it, Claude Code's collapsed view of an older
        output shows its first rows. A reader would see it then, for the
        first time;
        whether that makes it a command to deliver nobody can say, so it
        becomes unsure (left out of the .want, ignored by the scorer)."""
        with self.lock:
            caps = list(self.captures)
        for st, found in results:
            later = caps[st.window_end:]
            for k, (cmd, w, what, after) in enumerate(found):
                if w is not None:
                    continue
                if self.changed(st, cmd, caps[st.window_start:]):
                    u = cmd.want()
                    u["shown"] = "changed"
                    found[k] = (cmd, u, "unsure, shown changed (its start only matches): " + preview(cmd), after)
                    self.steps_txt.append("--- %s of %s shows changed: unsure" % (preview(cmd), st.tag))
                    continue
                for _, _, scr in later:
                    sh = self.showing(st, cmd, scr)
                    if sh is not None and (sh.whole or not sh.edge):
                        u = cmd.want()
                        u["shown"] = "later"
                        found[k] = (cmd, u, "unsure, first shown after its output was done (resize, scroll, collapse): " + preview(cmd), after)
                        self.steps_txt.append("--- %s of %s shows later: unsure" % (preview(cmd), st.tag))
                        break

    def showing(self, st, cmd, scr):
        """How the screen scr shows a command of the printed file st: read
        below the file's echo, or anywhere when the echo is off the screen
        (except for a file printed again, whose lines an earlier file
        printed too)."""
        rows = scr.split("\n")
        anchor = next((i for i, r in enumerate(rows) if st.tag in r), None)
        if anchor is None and st.repeat_of is not None:
            return None
        return self.find_cmd(cmd, rows, 0 if anchor is None else anchor + 1)

    def shown_in_frames(self, st, cmd, screens, t_enter, t_stop=None):
        """Whether some screen the recording put up from the file's Enter on
        (screens: (time, screen) after every output event, frames.replay)
        up to t_stop showed
        the command whole: as printed, or, on Gemini CLI, whole as it draws
        it (its rows cut to the box, not running off the screen's end). A
        command the screen showed only between two captures (streaming
        output scrolled it away, a live box or view redrew) was there for a
        reader to see, however briefly."""
        if t_enter is None:
            return False
        before = None
        repeat = None
        for t, scr in screens:
            if t < t_enter:
                before = scr
                continue
            if t_stop is not None and t >= t_stop:
                break
            if st.repeat_of is None:
                sh = self.showing(st, cmd, scr)
            else:
                # A file printed again: its own showings, frame by frame.
                if repeat is None:
                    repeat = Repeat(self, st, before)
                rows = scr.split("\n")
                anchor = next((i for i, r in enumerate(rows) if st.tag in r), None)
                start = repeat.see(rows, anchor)
                k = st.cmds.index(cmd)
                sh = self.find_cmd(cmd, rows, start) if start is not None else repeat.find(k, rows, 0)
            if sh is not None and (sh.whole or (self.config == "gemini" and not cmd.block and not sh.edge)):
                return True
        return False

    def frames_pass(self, results, screens, enters):
        """A command no capture showed but some frame of the recording
        showed whole is unsure (left out of the .want, ignored by the
        scorer): on the screen for less than a capture, a reader may or
        may not have read it. One never shown whole in any frame
        (collapsed, cut, clipped) stays not shown."""
        for i, ((st, found), t_enter) in enumerate(zip(results, enters)):
            for k, (cmd, w, what, after) in enumerate(found):
                if w is not None:
                    continue
                t_stop = again(cmd, [r[0] for r in results[i + 1:]], enters[i + 1:])
                if self.shown_in_frames(st, cmd, screens, t_enter, t_stop):
                    u = cmd.want()
                    u["shown"] = "between captures"
                    found[k] = (cmd, u, BETWEEN + preview(cmd), after)
                    self.steps_txt.append("--- %s of %s shows between captures: unsure" % (preview(cmd), st.tag))
                elif cmd.block and st.repeat_of is None and t_enter is not None and self.block_in_pieces(
                        cmd, self.frame_views(st, screens, t_enter, t_stop)):
                    u = cmd.want()
                    u["shown"] = "in pieces"
                    found[k] = (cmd, u, "unsure, shown only in pieces taller than the view (frames): " + preview(cmd), after)
                    self.steps_txt.append("--- %s of %s shows in pieces in frames: unsure" % (preview(cmd), st.tag))

    def frame_views(self, st, screens, t_enter, t_stop):
        """The frames from the file's Enter on (up to t_stop) as
        block_in_pieces takes them: rows, and the row below the file's
        echo (0 when it is off the screen)."""
        views = []
        for t, scr in screens:
            if t < t_enter:
                continue
            if t_stop is not None and t >= t_stop:
                break
            rows = scr.split("\n")
            anchor = next((j for j, r in enumerate(rows) if st.tag in r), None)
            views.append((rows, 0 if anchor is None else anchor + 1))
        return views

    def resize(self, c, r):
        if self.first_resize is None:
            self.first_resize = time.time()
        self.tmux("resize-window", "-x", str(c), "-y", str(r))

    def scroll(self, n):
        for key in ["\x1b[5~"] * n + ["\x1b[6~"] * n:
            self.send(key)
            time.sleep(0.5)
        self.settle(0.6, 5)
        self.note("scrolled back %d pages and forth" % n)
        if self.config == "codex":
            self.send("\x1b")  # back to the bottom
            time.sleep(0.5)

    def tall_prompt(self):
        tall = "\n".join("line %d of a tall prompt" % i for i in range(self.rows + 70))
        self.send("\x1b[200~" + tall + "\x1b[201~")
        time.sleep(1.5)
        self.note("a prompt taller than the screen")
        self.send("\x03")
        time.sleep(1.0)
        self.idle(10)

    def write_files(self, st):
        if st.how == "cat":
            with open(os.path.join(self.work, st.tag), "w") as fh:
                fh.write("\n".join(st.lines) + "\n")
        elif st.how == "sh":
            with open(os.path.join(self.work, st.tag), "w") as fh:
                for line, pause in zip(st.lines, st.pauses or [0] * len(st.lines)):
                    if "\r" in line:
                        # A progress row: each state a moment apart.
                        for part in line.split("\r")[:-1]:
                            fh.write("printf '%%s\\r' %s\nsleep 0.05\n" % shq(part))
                        line = line.split("\r")[-1]
                        fh.write("printf '\\033[K'\n")
                    fh.write("printf '%%s\\n' %s\n" % shq(line))
                    if pause:
                        fh.write("sleep %s\n" % pause)

    def print_step(self, st):
        """Prints one file through the CLI's shell mode and reads the
        screen while it shows."""
        self.write_files(st)
        if not self.idle(25):
            self.note("not idle before %s" % st.tag)
        c = self.config
        if c == "opencode":
            self.send("!")
            time.sleep(0.4)
            self.send(st.cmdline)
        elif c == "gemini":
            self.send(st.cmdline)
        else:
            self.send("!")
            time.sleep(0.3)
            self.send(st.cmdline)
        probe = st.tag
        if not self.wait(lambda s: probe in s, 20):
            raise Failed("the typed command %r did not show" % st.tag)
        time.sleep(0.4)
        with self.lock:
            mark = len(self.captures)
            st.window_start = mark
            before = self.captures[-1][2] if self.captures else None
        t_enter = time.time()
        self.submit(st)
        if st.mid_resize:
            delay, rc, rr = st.mid_resize
            threading.Timer(delay, self.resize, (rc, rr)).start()
        last = st.lines[-1] if st.lines else None
        stream = sum(st.pauses) + (0.06 * sum(l.count("\r") for l in st.lines))
        need = 2 if st.how == "printf" else 1  # the typed command holds its lines too
        done = self.wait(lambda s: bool(last) and s.count(last) >= need, 6 + stream)
        if not done:
            # Enter may have come too early: the command is still typed.
            tail = "\n".join(self.screen().rstrip("\n").split("\n")[-8:])
            if st.tag in tail and st.cmdline[:20] in tail:
                self.send("\r")
                done = self.wait(lambda s: bool(last) and s.count(last) >= need, 6 + stream)
        if c.startswith("claude"):
            # Claude tries the API it cannot reach after a shell command:
            # Esc stops it.
            self.wait(lambda s: self.busy(s), 3)
            time.sleep(0.5)
            for _ in range(4):
                self.send("\x1b")
                if self.idle(2.5):
                    break
        self.idle(20)
        self.settle(0.8, 8)
        if st.mid_resize:
            time.sleep(0.1)
        final = self.screen()
        hist = self.screen(history=True) if c not in ALT else None
        with self.lock:
            caps = self.captures[mark:]
            st.window_end = len(self.captures)
        # The screen once the CLI is idle again held still (settle).
        st.t_enter, st.t_final, st.final, st.hist = t_enter, time.time(), final, hist
        found = self.read_commands(st, step_captures(st, caps), t_enter, before)
        self.note("%s (%s)" % (st.cmdline if len(st.cmdline) < 90 else st.cmdline[:90] + "…", st.how), final)
        self.steps_txt.append("--- what a reader sees of %s's commands\n%s" % (st.tag, "\n".join(f[2] for f in found)))
        return st, found

    def submit(self, st):
        """Presses Enter; Codex can ignore it a moment after its start or
        after a command, leaving the command in its composer (the bottom
        row starting with `›` or `!`): then Enter again."""
        self.send("\r")
        if not self.config.startswith("codex"):
            return
        # Codex 0.171.0 holds an Enter pressed before its startup is done
        # ("Waiting for startup") and then drops it.
        end = time.time() + 30
        while time.time() < end:
            time.sleep(1.0)
            scr = self.screen()
            rows = [r.strip() for r in scr.split("\n")]
            box = [r for r in rows if r[:1] in ("›", "!")]
            if not box or st.tag not in box[-1]:
                return
            if "Waiting for startup" not in scr:
                self.send("\r")
        raise Failed("Codex did not take the command %r" % st.tag)

    def read_commands(self, st, caps, t_enter, before=None):
        """For each command of the file: the best showing over the
        captures taken after its command was typed (before: the screen
        just before, for a file printed again)."""
        best = [None] * len(st.cmds)
        when = [None] * len(st.cmds)
        seen = [{} for _ in st.cmds]  # reading -> seconds it showed
        repeat = Repeat(self, st, before) if st.repeat_of is not None else None
        views = []  # (rows, the row the file's rows start at), for block_in_pieces
        for t, t_end, scr in caps:
            rows = scr.split("\n")
            anchor = None
            for i, r in enumerate(rows):
                if st.tag in r:
                    anchor = i
                    break
            # Without the echo on the screen (scrolled away, or not drawn
            # yet) a command of this file is still its own, as relay lines
            # are unique in a recording, except in a file printed again
            # (Repeat).
            if repeat is None:
                start = 0 if anchor is None else anchor + 1
            elif isinstance(scr, Scrollback):
                start = repeat.in_scrollback(rows, anchor)
                if start is None:
                    continue
            else:
                start = repeat.see(rows, anchor)
            pos = start or 0
            if start is not None and not isinstance(scr, Scrollback):
                views.append((rows, start))
            for k, cmd in enumerate(st.cmds):
                sh = self.find_cmd(cmd, rows, pos) if start is not None else repeat.find(k, rows, pos)
                if sh is None:
                    continue
                pos = sh.last + 1
                seen[k][sh.text] = seen[k].get(sh.text, 0) + (t_end - t) + POLL
                if reader.better(sh, best[k]):
                    best[k] = sh
                    when[k] = t
        out = []
        for k, cmd in enumerate(st.cmds):
            sh = best[k]
            want = cmd.want
            if sh is not None and sh.composed:
                want = composed_want(cmd)
            after = self.first_resize is not None and when[k] is not None and when[k] >= self.first_resize
            if (sh is None or (not sh.whole and sh.edge)) and cmd.block and self.block_in_pieces(cmd, views):
                w = want()
                w["shown"] = "in pieces"
                out.append((cmd, w, "unsure, shown only in pieces taller than the view: " + preview(cmd), after))
            elif sh is None or (not sh.whole and sh.edge):
                out.append((cmd, None, "not shown: " + preview(cmd), after))
            elif seen[k][sh.text] < BRIEF:
                # Shown for a moment only (streaming output scrolled it
                # away): a reader may or may not have read it.
                w = want()
                w["shown"] = "for %.1f s" % seen[k][sh.text]
                out.append((cmd, w, "unsure, shown for a moment only (%.1f s): %s" % (seen[k][sh.text], preview(cmd)), after))
            elif sh.whole and self.config == "gemini" and cmd.block:
                w = want()
                w["body"] = json.loads(reader.gemini_form("".join(l for l in cmd.lines if not l.startswith("[[")).strip()))["body"]
                if sh.composed:
                    w["body"] = reader.canon(w["body"])
                out.append((cmd, w, "whole (as Gemini draws it): " + json.dumps(w["body"], ensure_ascii=False), after))
            elif sh.whole and self.config != "gemini":
                out.append((cmd, want(), "whole: " + preview(cmd), after))
            else:
                w = want()
                prefix = "@%s:%s " % (cmd.kind, cmd.to)
                body = sh.text[len(prefix):].strip() if sh.text.startswith(prefix) else None
                if cmd.block or not body:
                    out.append((cmd, None, "not shown (block cut or no body): " + preview(cmd), after))
                elif self.config == "gemini" and sh.unclear:
                    # Across a row with room for the next row's first
                    # word (reader.join_unclear): the rest of a row Gemini
                    # cut, or a line of its own, a reader cannot say; or
                    # across the box's edge, a word broken there or text
                    # dropped after it (reader.edge_unclear).
                    w["shown"] = body
                    out.append((cmd, w, "unsure, shown across a row break a reader cannot join one way (Gemini): " + json.dumps(body, ensure_ascii=False), after))
                elif self.config == "gemini":
                    w["body"] = body
                    what = "whole (as Gemini draws it)" if sh.whole else "cut to"
                    out.append((cmd, w, "%s: %s" % (what, json.dumps(body, ensure_ascii=False)), after))
                else:
                    # Shown in part: cut by the CLI (a row limit, "+ Show
                    # details", "… +N lines") or changed on the way (a
                    # composer that drops typed characters). Whether that
                    # is a command, and with which body, a reader cannot
                    # say: it is left out of the .want and listed as
                    # unsure in NAME.json, and the scorer ignores it.
                    w["shown"] = body
                    out.append((cmd, w, "unsure, shown in part: " + json.dumps(body, ensure_ascii=False), after))
        return out

    def save_captures(self, steps):
        """Writes NAME.captures.json.gz: every capture and, per printed
        file, its window of them, the time of its Enter and its final
        screens, so that reread.py can read them again with later rules
        (each distinct screen once)."""
        screens, index = [], {}

        def ref(scr):
            if scr is None:
                return None
            if scr not in index:
                index[scr] = len(screens)
                screens.append(scr)
            return index[scr]
        with self.lock:
            caps = [[t, t_end, ref(scr)] for t, t_end, scr in self.captures]
        data = {"first_resize": self.first_resize, "captures": caps,
                "steps": [{"tag": st.tag, "window_start": st.window_start, "window_end": st.window_end,
                           "t_enter": st.t_enter, "t_final": st.t_final, "final": ref(st.final), "hist": ref(st.hist)}
                          for st in steps],
                "screens": screens}
        with gzip.open(self.out + ".captures.json.gz", "wt", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False)

    def find_cmd(self, cmd, rows, pos):
        c = self.config
        if not cmd.block:
            return reader.find_line(c, rows, cmd.lines[0], pos)
        found = [self.find_block(c, rows, pos, lines) for lines in self.block_forms(cmd)]
        found = [f for f in found if f is not None]
        return min(found, key=lambda f: f.first) if found else None

    def block_forms(self, cmd):
        """The rows a block may show as: as printed, and on Claude Code
        its JSON line pretty-printed."""
        c = self.config
        forms = [cmd.lines]
        if c.startswith("claude") and any(l.startswith("{") and is_json(l) for l in cmd.lines):
            # Claude Code draws a line of JSON alone pretty-printed; its
            # inline renderer first writes a long output as printed, into
            # the scrollback, where the block shows as one raw line.
            pretty = []
            for line in cmd.lines:
                if line.startswith("{") and is_json(line):
                    pretty.extend(json.dumps(json.loads(line), ensure_ascii=False, indent=2).split("\n"))
                else:
                    pretty.append(line)
            forms = [pretty, cmd.lines]
        return forms

    def block_in_pieces(self, cmd, views):
        """Whether screens in order (views: rows and the row the file's own
        rows start at) show every row of a block, each right below the one
        before, in pieces of which each after the first starts with a row
        the pieces before it showed: a block taller than the view that
        streamed through it. A reader reading along reads each row, no
        screen shows it whole, and what was between two pieces only their
        shared row vouches for (a row such as `{` is in many blocks): the
        block is unsure, neither expected nor, when found, extra."""
        c = self.config
        for lines in self.block_forms(cmd):
            done = 0  # rows of the block read so far, in order
            for rows, start in views:
                for s in range(max(done - 1, 0) + 1):
                    first = reader.find_line(c, rows, lines[s], start)
                    if first is None or not first.whole:
                        continue
                    k, p = s + 1, first.last + 1
                    while k < len(lines):
                        sh = reader.find_line(c, rows, lines[k], p, p + 1 + (cols(lines[k]) // 20 + 2))
                        if sh is None or not sh.whole or sh.first != p:
                            break
                        k, p = k + 1, sh.last + 1
                    done = max(done, k)
                if done == len(lines):
                    return True
        return False

    def find_block(self, c, rows, pos, shown_lines):
        """The first showing of a block's rows from row pos on: every row,
        each right below the one before."""
        start = pos
        while True:
            first = reader.find_line(c, rows, shown_lines[0], start)
            if first is None:
                return None
            p = first.last + 1
            composed = first.composed
            for line in shown_lines[1:]:
                sh = reader.find_line(c, rows, line, p, p + 1 + (cols(line) // 20 + 2))
                if sh is None or not sh.whole or sh.first != p:
                    break
                composed = composed or sh.composed
                p = sh.last + 1
            else:
                return reader.Shown(first.first, p - 1, True, "", False, composed)
            start = first.first + 1

    def quit(self):
        self.polling = False
        c = self.config
        try:
            if c.startswith("claude") or c == "gemini":
                if c == "gemini":
                    self.send("\x1b")
                    time.sleep(0.5)
                self.send("/quit" if c == "gemini" else "/exit")
                time.sleep(0.5)
                self.send("\r")
            else:
                self.send("\x03")
                time.sleep(0.4)
                self.send("\x03")
        except OSError:
            pass
        self.wait(lambda s: False, 2.5)

    def cleanup(self):
        self.polling = False
        subprocess.run(["tmux", "-L", self.sock, "kill-server"], capture_output=True)
        end_processes(self.home)


# The echo of a printed file's command: its tag (PrintStep) in a row.
ECHO = re.compile(r"\bf(\d\d)(?:\.txt|\.sh|;)")


class Repeat:
    """Which showings of a file printed again are its own, screen by
    screen in time order, from the screen before its Enter on. Its lines
    are also an earlier file's (the file printed again is the session's
    last), so a showing counts only where that file's cannot be, by the
    transcript's order (each file's echo, then its output):

    - below the file's own echo;
    - else, below the lowest echo of an earlier file: none when that is
      the echo of the file printed first (what is below it is that
      file's output); every one when it is a later file's;
    - else, anywhere once the file's echo has shown in the transcript
      and is gone: the echo, and all before it, left by the top;
    - else (a CLI that draws the output over the echo at once), where no
      showing of the earlier print can have moved: a transcript moves
      its rows up, never down, so the earlier print's showings stay at
      or above the rows they held and keep their order: a showing lower
      than all of them, or one more than they are, is new. A screen that
      does not show a line (a row that changed reads as blank) leaves
      what is known of the earlier print's showings as it was.

    The file's tag in the input box (typed, not yet run) is no echo."""

    def __init__(self, session, st, before):
        self.session, self.st = session, st
        self.n = int(ECHO.search(st.tag).group(1))
        self.first = int(st.repeat_of[1:])
        self.echo_seen = False
        rows = before.split("\n") if before else []
        self.box = next((i for i, r in enumerate(rows) if st.tag in r), None)
        self.old = [self.firsts(cmd, rows, 0) for cmd in st.cmds]

    def firsts(self, cmd, rows, start, stop=None):
        """The first rows of every showing of cmd in rows[start:stop]."""
        out = []
        stop = len(rows) if stop is None else stop
        while True:
            sh = self.session.find_cmd(cmd, rows[:stop], start)
            if sh is None:
                return out
            out.append(sh.first)
            start = sh.first + 1

    def see(self, rows, anchor):
        """Takes the next screen in; returns the row the file's own rows
        start at, or None when only find can tell them."""
        if anchor is not None:
            if anchor != self.box:
                self.echo_seen = True
            self.old = [self.firsts(cmd, rows, 0, anchor) for cmd in self.st.cmds]
            return anchor + 1
        below, file = self.lowest_echo(rows)
        if below:
            if file > self.first:
                return below
            if file == self.first:
                return len(rows)
        if self.echo_seen:
            return below
        self.own = []
        for k, cmd in enumerate(self.st.cmds):
            now = self.firsts(cmd, rows, 0)
            old, new = [], []
            j = 0
            for a in now:
                # The topmost showings are the earlier print's, each at or
                # above a row one of its showings held.
                while j < len(self.old[k]) and self.old[k][j] < a:
                    j += 1
                if j < len(self.old[k]) and not new:
                    old.append(a)
                    j += 1
                else:
                    new.append(a)
            if now:
                self.old[k] = old
            self.own.append([a for a in new if a >= below])
        return None

    def lowest_echo(self, rows):
        """The row under the lowest echo of a file printed before this one,
        and that file's number; (0, None) if rows show none."""
        below, file = 0, None
        for i, r in enumerate(rows):
            m = ECHO.search(r)
            if m and int(m.group(1)) < self.n:
                below, file = i + 1, int(m.group(1))
        return below, file

    def in_scrollback(self, rows, anchor):
        """Where the file's own rows start in the scrollback: under its
        echo; without it (Claude Code inline writes a long output into
        the scrollback as it is, its echo left in the view it drew), under
        the lowest echo of a file printed after the earlier print, as on
        a screen; else None: the scrollback holds the earlier print too,
        at rows no screen had."""
        if anchor is not None:
            return anchor + 1
        below, file = self.lowest_echo(rows)
        if below and file > self.first:
            return below
        return None

    def find(self, k, rows, pos):
        """The first own showing of command k from row pos on, after see
        returned None."""
        for first in self.own[k]:
            if first >= pos:
                return self.session.find_cmd(self.st.cmds[k], rows, first)
        return None


def again(cmd, later, enters):
    """When the command is printed again by a later file (a file printed
    again): the Enter of that file, after which a showing of its lines may
    be that file's."""
    return next((t for st, t in zip(later, enters) if any(c.lines == cmd.lines for c in st.cmds)), None)


def step_captures(st, caps):
    """The captures a printed file's commands are read from: those taken
    from its Enter on, then its final screen, which held still (and, on
    the main screen, the scrollback), counted as shown for SETTLED s."""
    caps = list(caps) + [(st.t_final, st.t_final + SETTLED, st.final)]
    if st.hist:
        caps.append((st.t_final, st.t_final + SETTLED, Scrollback(st.hist)))
    return caps


class Scrollback(str):
    """A capture of the scrollback and the screen (tmux capture-pane -S),
    not of the screen alone: its rows are not a screen's."""


def expected(results):
    """The .want (in order), the unsure commands, and the counts of those
    not shown and cut, from each printed file's readings."""
    want, unsure, not_shown, cut = [], [], 0, 0
    for st, found in results:
        for cmd, w, what, after in found:
            if w is None:
                not_shown += 1
                continue
            if what.startswith("unsure"):
                unsure.append(w)
                continue
            if what.startswith("cut"):
                cut += 1
            if after:
                w["after_resize"] = True
            want.append(w)
    return want, unsure, not_shown, cut


def end_processes(home):
    """Ends every process whose environment has HOME=home (the CLI, its
    helpers, Codex's app-server daemon): only this session's."""
    needle = ("HOME=" + home + "\0").encode()
    for _ in range(3):
        found = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == os.getpid():
                continue
            try:
                with open("/proc/%s/environ" % pid, "rb") as fh:
                    if needle in fh.read():
                        found.append(int(pid))
            except OSError:
                continue
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
        time.sleep(1)
    for pid in found:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def composed_want(cmd):
    """The command as a reader reads it where the screen showed it in
    composed form (reader.canon)."""
    def want():
        w = cmd.want()
        w["body"] = reader.canon(w["body"])
        if "topic" in w:
            w["topic"] = reader.canon(w["topic"])
        return w
    return want


def is_json(s):
    try:
        return isinstance(json.loads(s), dict)
    except ValueError:
        return False


def preview(cmd):
    s = " / ".join(cmd.lines)
    return s if len(s) < 100 else s[:100] + "…"


def generator_id():
    """A short hash of the generator's own files, so a recording says which
    rules made its .want."""
    import hashlib
    h = hashlib.sha1()
    for name in ("generate.py", "content.py", "reader.py", "frames.py"):
        with open(os.path.join(HERE, name), "rb") as fh:
            h.update(fh.read())
    return h.hexdigest()[:12]


def version(program):
    try:
        r = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=60)
        return r.stdout.strip().splitlines()[-1]
    except (OSError, subprocess.SubprocessError, IndexError):
        return "unknown"


def record_one(config, seed, outdir, base, versions):
    """Records one session; writes its four files. Returns its name."""
    plan = make_plan(config, seed)
    s = Session(plan, outdir, base)
    try:
        results = s.run()
        s.quit()
    finally:
        s.cleanup()
    cast = s.out + ".cast"
    s.frames_pass(results, frames.replay(cast), frames.enters(cast, [st.tag for st, _ in results]))
    want, unsure, not_shown, cut = expected(results)
    s.save_captures([st for st, _ in results])
    sizes = [list(x) for x in plan["sizes"]]
    mid = any(st.mid_resize for st, _ in results)
    meta = {"config": config, "kind": KIND[config], "program": PROGRAM[KIND[config]],
            "version": versions.get(KIND[config], "unknown"), "renderer": RENDERER[config],
            "seed": seed, "generator": generator_id(), "cols": plan["cols"], "rows": plan["rows"], "sizes": sizes,
            "features": plan["features"] + sorted(set(st.how for st, _ in results)) +
            (["long"] if any(getattr(st, "long", False) for st, _ in results) else []) +
            (["repeat"] if any(st.repeat_of for st, _ in results) else []) +
            (["resize-mid-output"] if mid else []),
            "commands_printed": sum(len(st.cmds) for st, _ in results), "expected": len(want),
            "not_shown": not_shown, "cut": cut, "unsure": unsure, "seconds": round(time.time() - s.t0, 1)}
    with open(s.out + ".want", "w") as fh:
        for w in want:
            fh.write(json.dumps(w, ensure_ascii=False) + "\n")
    with open(s.out + ".json", "w") as fh:
        json.dump(meta, fh, ensure_ascii=False, indent=1)
        fh.write("\n")
    with open(s.out + ".steps.txt", "w") as fh:
        fh.write("\n".join(s.steps_txt) + "\n")
    shutil.rmtree(base, ignore_errors=True)
    return s.name, meta


# ------------------------------------------------------------- the runner

def child_main(args):
    versions = json.loads(args.versions)
    name, meta = record_one(args.config, args.one, args.out, args.base, versions)
    print(json.dumps({"name": name, "meta": meta}))


def run_one(config, seed, out, versions, timeout, slot):
    """Runs one session in a child process (its own process group, so a
    stuck one can be ended whole)."""
    base = "/tmp/gen-%d-%s-%d" % (os.getpid(), config, seed)
    cmd = [sys.executable, os.path.abspath(__file__), "--one", str(seed), "--config", config, "--out", out,
           "--base", base, "--versions", json.dumps(versions)]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        so, se = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        cleanup_base(base)
        return None, "stuck after %d s" % timeout
    cleanup_base(base)
    if p.returncode != 0:
        lines = [l for l in se.strip().splitlines() if l.strip()]
        return None, (lines[-1] if lines else "exit %d" % p.returncode)
    try:
        return json.loads(so.strip().splitlines()[-1]), None
    except (ValueError, IndexError):
        return None, "no result"


def cleanup_base(base):
    subprocess.run(["tmux", "-L", "gen-" + os.path.basename(base), "kill-server"], capture_output=True)
    end_processes(base + "/home")
    shutil.rmtree(base, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="See the module docstring (head -80 generate.py) for what is recorded and expected.")
    ap.add_argument("--out", required=True, help="directory for the recordings")
    ap.add_argument("--count", type=int, default=6, help="recordings in all, spread over the configurations")
    ap.add_argument("--cli", default=",".join(CONFIGS), help="configurations, comma-separated")
    ap.add_argument("--seed", type=int, default=1, help="seed of the whole run")
    ap.add_argument("--jobs", type=int, default=2, help="sessions at once")
    ap.add_argument("--timeout", type=int, default=420, help="seconds before a session counts as stuck")
    ap.add_argument("--dry-run", action="store_true", help="print the plans, record nothing")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--config", help=argparse.SUPPRESS)
    ap.add_argument("--base", help=argparse.SUPPRESS)
    ap.add_argument("--versions", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one is not None:
        try:
            child_main(args)
        except Failed as e:
            sys.exit("failed: %s" % e)
        return
    configs = [c.strip() for c in args.cli.split(",") if c.strip()]
    for c in configs:
        if c not in CONFIGS:
            ap.error("unknown configuration %r (one of %s)" % (c, ", ".join(CONFIGS)))
    jobs = []
    for i in range(args.count):
        c = configs[i % len(configs)]
        jobs.append((c, args.seed * 100000 + i // len(configs) * 2))
    if args.dry_run:
        for c, seed in jobs:
            p = make_plan(c, seed)
            print("%s seed %d %dx%d features %s" % (c, seed, p["cols"], p["rows"], ",".join(p["features"])))
            for kind, arg in p["steps"]:
                if kind == "print":
                    print("  print %s %s, %d lines, %d commands%s" % (arg.how, arg.tag, len(arg.lines), len(arg.cmds),
                                                                        ", resize mid-output to %dx%d" % arg.mid_resize[1:] if arg.mid_resize else ""))
                else:
                    print("  %s %s" % (kind, arg))
        return
    os.makedirs(args.out, exist_ok=True)
    for c in configs:
        if not shutil.which(PROGRAM[KIND[c]]):
            sys.exit("generate.py: %s is not on PATH (export PATH=/tmp/agents/node_modules/.bin:$PATH)" % PROGRAM[KIND[c]])
    versions = {k: version(PROGRAM[k]) for k in sorted(set(KIND[c] for c in configs))}
    print("versions: %s" % ", ".join("%s %s" % kv for kv in versions.items()), flush=True)
    t0 = time.time()
    ok = [0]
    lock = threading.Lock()

    def work(job):
        c, seed = job
        for attempt in range(2):
            res, why = run_one(c, seed + attempt, args.out, versions, args.timeout, None)
            with lock:
                if res:
                    ok[0] += 1
                    m = res["meta"]
                    print("%-36s %5.1f s  %2d expected of %2d printed%s%s" % (
                        res["name"], m["seconds"], m["expected"], m["commands_printed"],
                        "" if not m["cut"] else ", %d cut" % m["cut"],
                        "" if not m["unsure"] else ", %d unsure" % len(m["unsure"])), flush=True)
                    return
                print("%s seed %d: %s%s" % (c, seed + attempt, why, "; retrying with the next seed" if attempt == 0 else "; skipped"), flush=True)
                # A failed attempt leaves no files behind.
                for f in os.listdir(args.out):
                    if f.startswith("%s-s%d-" % (c, seed + attempt)):
                        os.remove(os.path.join(args.out, f))

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        list(ex.map(work, jobs))
    print("%d of %d recorded in %.0f s" % (ok[0], len(jobs), time.time() - t0))


if __name__ == "__main__":
    main()
