"""reader: what a person reads on a CLI's screen, for the commands the
generator printed.

The generator knows every line it printed; this module finds, in a capture
of the screen (tmux capture-pane: one string per row), the rows that show
one of those lines and says how much of it they show. Per CLI, the rows
lose the CLI's own decoration first (CLEAN): Claude Code's `⎿` and hanging
indent, Codex's `└` and indent, opencode's `┃` gutter, Gemini CLI's box
borders `│ … │`.

Matching a printed line L (not Gemini): a row that, cleaned, is a prefix
of L starts it; while the rows so far show less than L, the next row must
continue it: the blanks at the wrap may be missing (word wrap) or kept at
the end of the row (Claude Code's hard wrap), and the row may break a word
(hard wrap). The line is shown whole when the rows cover it; "cut" when a
row ends it early with an ellipsis or the rows stop; then the reading is
what they show.

Gemini CLI 0.61.0 (seen at every width): a command's output goes through a
terminal as wide as the window, whose rows Gemini then word-wraps into its
box (window width - 8 columns of text) keeping only the first row of each:
what did not fit in the box is dropped. While output still streams, its
live box wraps the rows instead (mid-word at the box's edge). It also
draws each East Asian wide character as the character and a blank (its
terminal's cell and the cell's continuation), but not emoji. A reader
sees the rows of the box; a printed line is read from the row that starts
it and the rows after it that hold later parts of it: a row that goes on
where the one before stopped is joined as it stands (a wrap), one after a
blank or after dropped text with one blank (trailing and leading blanks
at the join dropped). That is the .want's body, unless a row joined so
has room left for the next row's first word and the blank before it
(join_unclear; the blank drawn after a wide letter is the letter's):
Gemini cut that row, and the next may as well be a line of its own, so
the reading is unclear (the generator makes the command unsure). A row
reaching the box's last column over a row whose text starts at its first
is a word broken at the edge or a word ended there with the rest of the
terminal's row dropped: the reading is unclear unless the line's rows say
which and that is how it was printed (edge_break, edge_unclear).

Text is compared as a reader sees it: canonically equivalent forms are
the same text (Unicode NFC). Claude Code, Codex, Gemini CLI and opencode
draw their output in composed form (`u` + U+0308 + U+0301 printed, `ǘ`
drawn, also in the bytes they write), so a line printed with combining
marks is matched in either form; a line matched only in composed form
is read (and expected) in that form.
"""
import re
import unicodedata

from content import cols

ELLIPSIS = "…"
_GAP = re.compile(r"\s{3,}\S")


def clean(config, row):
    """The row's text without the CLI's decoration and without leading and
    trailing blanks."""
    s = row.rstrip()
    if config == "gemini":
        t = s.strip()
        if t.startswith("│"):
            t = t[1:]
            if t.endswith("│"):
                t = t[:-1]
        elif t.endswith(" │"):
            # The last piece of a box row drawn for a wider screen, which
            # the terminal broke over lines: the box's right border ends it
            # and a reader reads the row's text through to it.
            t = t[:-1]
        return t.strip()
    t = s.lstrip()
    for glyph in ("⎿", "└", "┃", "│"):
        if t.startswith(glyph + " ") or t == glyph:
            t = t[len(glyph):].lstrip()
            break
    if config == "opencode":
        # opencode 1.18.33, wider than 120 columns: a sidebar (session,
        # context, LSP) to the right of the transcript, on the same rows,
        # a gap of blanks away. The generator never prints three blanks
        # inside a line, so the gap ends the transcript's text.
        m = _GAP.search(t)
        if m:
            t = t[:m.start()]
    return t


def canon(s):
    """The composed form of s (NFC): what a reader cannot tell apart reads
    the same."""
    return unicodedata.normalize("NFC", s)


def gemini_form(line):
    """A line as Gemini CLI 0.61.0 draws it: a blank after each East Asian
    wide letter (CJK, kana, hangul, fullwidth forms), not after emoji and
    other pictographs (✅ too, though it lies below U+1F000), which its
    terminal takes as one column."""
    out = []
    for ch in line:
        out.append(ch)
        if unicodedata.east_asian_width(ch) in ("W", "F") and unicodedata.category(ch) != "So":
            out.append(" ")
    return "".join(out)


class Shown:
    """How a printed line shows on one capture: rows [first, last] of the
    capture, whole or cut, and the text a reader reads."""

    def __init__(self, first, last, whole, text, edge, composed=False, unclear=False):
        self.first, self.last, self.whole, self.text = first, last, whole, text
        # unclear (Gemini CLI): the rows join across a row with room left
        # for the next row's first word (join_unclear), or across the
        # box's edge where the screen does not say whether a word broke
        # there (edge_unclear): the reading is one a reader cannot be
        # sure of.
        self.unclear = unclear
        # edge: the rows ran into the end of the capture, so more of the
        # line may lie beyond it.
        self.edge = edge
        # composed: the line showed only in composed form (canon), which
        # text is in; the reader reads that form.
        self.composed = composed


def better(a, b):
    """Whether showing a tells a reader more than showing b (None)."""
    if b is None:
        return True
    if a.whole != b.whole:
        return a.whole
    if a.edge != b.edge:
        return not a.edge
    if len(a.text) != len(b.text):
        return len(a.text) > len(b.text)
    return b.unclear and not a.unclear


def find_line(config, rows, line, start=0, stop=None):
    """Finds the first showing of the printed line in rows[start:stop],
    as printed or, where that shows less, in composed form."""
    stop = len(rows) if stop is None else stop
    raw = rows[start:stop]
    cleaned = [clean(config, r) for r in raw]
    # Rows lose their leading blanks in clean: so does the line.
    line = line.lstrip()
    target = gemini_form(line) if config == "gemini" else line
    got = _find(config, raw, cleaned, target, start, stop)
    if canon(target) == target:
        return got
    alt = _find(config, raw, [canon(c) for c in cleaned], canon(target), start, stop)
    if alt is not None and better(alt, got):
        alt.composed = True
        return alt
    return got


def _find(config, raw, cleaned, target, start, stop):
    for i, c in enumerate(cleaned):
        if not c:
            continue
        unclear = False
        if config == "gemini":
            got = _match_gemini(cleaned, i, target)
            if got:
                last, whole, text, as_printed = got
                got = last, whole, text
                unclear = any(join_unclear(raw[j], cleaned[j], cleaned[j + 1])
                              or edge_unclear(raw, cleaned, i, last, j, j in as_printed) for j in range(i, last))
        else:
            got = _match(cleaned, i, target)
        if got:
            last, whole, text = got
            return Shown(start + i, start + last, whole, text, start + last == stop - 1 and not whole, unclear=unclear)
    return None


# The columns a word needs after a row's text besides its own: the blank
# before it.
JOIN_SLACK = 1


def box_room(raw):
    """The free columns at the end of a row of Gemini CLI's box (`│ text
    │`: a blank of padding each side), or None for a row not in a box or
    not its end."""
    t = raw.strip()
    if len(t) < 2 or not t.endswith("│"):
        return None
    if not t.startswith("│"):
        # The rest of a box row the terminal broke over rows (a window
        # narrower than the box: tmux rewraps the main screen's rows as
        # it narrows), which ends where the box row ends: the room is
        # there, as on the box row whole.
        body = raw.rstrip()[:-1]
        return cols(body) - cols(body.rstrip()) - 1
    inner = t[1:-1]
    return cols(inner) - 2 - cols(inner.strip())


def join_unclear(raw, cleaned, nxt):
    """Whether a row of Gemini CLI's box (raw, and its text cleaned) joined
    to the next row's text nxt is a join no reader can be sure of: the
    row has room left for nxt's first word (and the blank before it), so
    a wrap would have put the word there; nxt reads as a line of its own
    as well as the rest of a row Gemini cut (its lossy wrap drops what a
    row of its terminal held beyond the box, leaving the room)."""
    room = box_room(raw)
    if room is None or not nxt:
        return False
    if cleaned and cols(cleaned[-1]) == 2:
        room -= 1  # the blank drawn after a wide letter is the letter's
    return room >= cols(nxt.split(" ")[0]) + JOIN_SLACK


def two_columns(text):
    """Whether text holds a character drawn two columns wide: an East
    Asian wide letter (Gemini CLI's terminal counts it two columns and
    Gemini draws a blank after it) or an emoji (its terminal counts one):
    a row holding one is wider in the box than the row of Gemini's
    terminal it comes from."""
    return any(cols(ch) == 2 for ch in text)


def edge_break(raw, cleaned, first, last, j):
    """How a reader joins row j of a Gemini CLI box showing (rows first
    to last) to the next when row j reaches the box's last column and the
    next row's text starts at the box's first: "word" (one word broken at
    the edge, joined as the rows stand), "blank" (a word ended at the
    edge and Gemini dropped the rest of its terminal's row: joined with
    one blank), None when the screen does not say; "" for any other
    join (a row with room left, a next row starting with a blank: a
    blank either way).

    Gemini breaks inside a word at its box's edge only where a row of its
    terminal went on past it as drawn (its terminal's own wrap, its live
    box's); it drops text only from a row drawn wider than its terminal
    counted it (two_columns) or from a terminal wider than the box. So
    row j holding a two-column character was cut; else the line's other
    rows (but its last, and those with two-column characters) say which
    layout drew it: one stopping two columns or more short of the edge
    was cut (a terminal row ends at its last column, or one column short
    before a wide letter), and rows all reaching the edge are rows of a
    terminal as wide as the box, broken where it was full."""
    if box_room(raw[j]) != 0:
        return ""
    t = raw[j + 1].strip()
    if not t.startswith("│ ") or t[2:3] in ("", " "):
        return ""
    if two_columns(cleaned[j]):
        return "blank"
    full = short = False
    for k in range(first, last):
        if k == j or two_columns(cleaned[k]):
            continue
        room = box_room(raw[k])
        if room == 0:
            full = True
        elif room is not None and room >= 2:
            short = True
    if short:
        return "blank"
    return "word" if full else None


def edge_unclear(raw, cleaned, first, last, j, as_printed):
    """Whether the join of row j to the next, in a Gemini CLI box showing
    of rows first to last, reads otherwise than the line was printed
    (as_printed: the next row goes on right where row j stopped) or
    does not read one way at all (edge_break): the reading is unclear."""
    how = edge_break(raw, cleaned, first, last, j)
    if how == "":
        return False
    return how != ("word" if as_printed else "blank")


def _head_ok(c, target):
    # What is read shows at least the marker and the target (up to the
    # first blank), or the whole line.
    sp = target.find(" ")
    return c == target or (sp > 0 and len(c) >= sp)


def _match(cleaned, i, target):
    c = cleaned[i]
    if not target.startswith(c):
        if c.endswith(ELLIPSIS) and target.startswith(c[:-1].rstrip()) and len(c) > 1:
            return i, False, c
        return None
    got = _match_on(cleaned, i, target)
    # The head is judged on the rows read, not on the first alone: a CLI
    # breaks a word longer than its room (a block's JSON line, no blank
    # for its first 40 columns: Codex's '{"to":"rev-' over '2.b",…', or
    # '…"body":"back\\' over '\\slash …') and the next row goes on with it.
    # A row that starts the line only by chance ("{" over a pretty-printed
    # block's '"to": …') goes on with nothing and stays too short.
    return got if _head_ok(got[2], target) else None


def _match_on(cleaned, i, target):
    c = cleaned[i]
    pos = len(c)
    j = i
    while pos < len(target):
        if j + 1 >= len(cleaned):
            break
        n = cleaned[j + 1]
        if not n:
            break
        p = pos
        while p < len(target) and target[p] == " ":
            p += 1
        if target.startswith(n, p):
            pos = p + len(n)
            j += 1
            continue
        if n.endswith(ELLIPSIS) and len(n) > 1 and target.startswith(n[:-1].rstrip(), p):
            j += 1
            return j, False, target[:p] + n
        break
    if pos >= len(target):
        return j, True, target
    return j, False, target[:pos].rstrip()


def _match_gemini(cleaned, i, target):
    c = cleaned[i]
    if not target.startswith(c) or not _head_ok(c, target):
        return None
    text = c
    pos = len(c)
    j = i
    end = len(target.rstrip())
    # Rows whose next row goes on right where they stop in the line as
    # printed (a word broken at the box's edge, or no blank there).
    as_printed = set()
    while pos < end:
        if j + 1 >= len(cleaned):
            break
        n = cleaned[j + 1]
        if not n:
            break
        p = pos
        while p < end and target[p] == " ":
            p += 1
        if target.startswith(n, pos):
            # Wrapped in the box where the text goes on (its live view of
            # streaming output wraps rows instead of cutting them).
            text += n
            as_printed.add(j)
        elif target.startswith(n, p):
            text += " " + n
        else:
            # Cut: what its terminal's row held beyond the box is gone.
            k = target.find(n, p)
            if k < 0 or k - pos > 300:
                break
            p = k
            text += " " + n
        pos = p + len(n)
        j += 1
    return j, text == target.rstrip(), text, as_printed


def tail_room(config, rows, shown):
    """For a shown line whose last row is followed by a row of text: the
    columns left on its last row and the first word of the next row, or
    None when no text row follows."""
    if shown.last + 1 >= len(rows):
        return None
    n = clean(config, rows[shown.last + 1])
    if not n:
        return None
    return n.split(" ")[0], rows[shown.last]

