"""Tests of the generator's reading of the screen (stdlib only):

    python3 -m unittest discover -s scripts/record-cli
"""
import json
import sys
import threading
import unittest

sys.dont_write_bytecode = True
import content  # noqa: E402
import generate  # noqa: E402
import reader  # noqa: E402

LINE = "@relay:bob the same words again"
CHROME = ["", "─" * 40, "❯ ", "─" * 40]


def session(config="claude-inline"):
    s = generate.Session.__new__(generate.Session)
    s.config = config
    s.first_resize = None
    s.lock = threading.Lock()
    s.steps_txt = []
    return s


def repeat_step():
    """f03.txt, the file f01.txt printed again: one relay line."""
    cmd = content.Cmd([LINE], "relay", "bob", "the same words again")
    return generate.PrintStep("f03", "cat", [LINE], [cmd], "f03.txt", "cat f03.txt", repeat_of="f01")


def screen(*rows):
    return "\n".join(list(rows) + CHROME)


def verdict(before, *screens, config="claude-inline"):
    st = repeat_step()
    caps = [(float(i), float(i) + generate.SETTLED, s) for i, s in enumerate(screens)]
    (_, _, what, _), = session(config).read_commands(st, caps, 0.0, before)
    return what.split(":")[0]


class RepeatedFile(unittest.TestCase):
    """A file printed again: which showings of its lines are its own."""

    def test_below_its_echo(self):
        before = screen("! cat f01.txt", "  ⎿  " + LINE, "! cat f02.txt", "  ⎿  other", "! cat f03.txt")
        now = screen("! cat f01.txt", "  ⎿  " + LINE, "! cat f03.txt", "  ⎿  " + LINE)
        self.assertEqual(verdict(before, now), "whole")

    def test_above_its_echo_is_the_first_print(self):
        before = screen("  ⎿  " + LINE, "! cat f03.txt")
        now = screen("  ⎿  " + LINE, "! cat f03.txt", "  ⎿  Running…")
        self.assertEqual(verdict(before, now), "not shown")

    def test_echo_scrolled_off_the_top(self):
        # The echo showed below the first print, then the output pushed
        # both off the top: the line on the screen is the new print's, at
        # the very row the first print held.
        before = screen("  ⎿  " + LINE, "end", "", "", "❯ cat f03.txt")
        echo = screen("  ⎿  " + LINE, "end", "! cat f03.txt", "  ⎿  Running…")
        now = screen("  ⎿  " + LINE, "end")
        self.assertEqual(verdict(before, echo, now), "whole")

    def test_the_input_box_is_no_echo(self):
        # The tag still in the input box where it was typed: the file has
        # not run; the line on the screen is the first print's.
        before = screen("  ⎿  " + LINE, "end", "❯ cat f03.txt")
        typed = screen("  ⎿  " + LINE, "end", "❯ cat f03.txt")
        now = screen("  ⎿  " + LINE, "end")
        self.assertEqual(verdict(before, typed, now), "not shown")

    def test_below_the_first_prints_echo(self):
        # The repeat's echo gone (scrolled), but the first print's echo
        # is on the screen above the line: the line is that print's.
        before = screen("! cat f01.txt", "  ⎿  " + LINE, "❯ cat f03.txt")
        echo = screen("! cat f01.txt", "  ⎿  " + LINE, "! cat f03.txt")
        now = screen("x", "! cat f01.txt", "  ⎿  " + LINE)
        self.assertEqual(verdict(before, echo, now), "not shown")

    def test_below_a_later_files_echo(self):
        # Below the echo of a file printed after the first print: the new
        # print's, though the first print held a lower row before.
        before = screen("a", "b", "c", "     " + LINE, "! cat f02.txt", "  ⎿  other", "❯ cat f03.txt")
        now = screen("! cat f02.txt", "  ⎿  other", "     " + LINE)
        self.assertEqual(verdict(before, now), "whole")

    def test_drawn_over_its_echo_where_the_first_print_was_not(self):
        # No echo ever shown (the CLI drew the output over it): the line
        # was not on the screen before the Enter, so it is the new print.
        before = screen("  ⎿  other", "end", "❯ cat f03.txt")
        now = screen("     " + LINE, "end")
        self.assertEqual(verdict(before, now), "whole")

    def test_lower_than_the_first_print_can_have_moved(self):
        # A transcript moves its rows up, never down: one row lower than
        # the first print's showing, the line is the new print's.
        before = screen("x", "     " + LINE, "end", "❯ cat f03.txt")
        blank = screen("", "", "")  # every row changed between polls
        now = screen("x", "y", "     " + LINE, "end")
        self.assertEqual(verdict(before, blank, now), "whole")

    def test_where_the_first_print_stays(self):
        before = screen("x", "     " + LINE, "end", "❯ cat f03.txt")
        now = screen("     " + LINE, "end", "")
        self.assertEqual(verdict(before, now), "not shown")

    def test_one_more_showing_than_before(self):
        before = screen("     " + LINE, "end", "❯ cat f03.txt")
        now = screen("     " + LINE, "end", "     " + LINE, "end")
        self.assertEqual(verdict(before, now), "whole")

    def test_scrollback_needs_the_echo(self):
        # The scrollback holds the first print too, at rows no screen had.
        st = repeat_step()
        before = screen("     " + LINE, "❯ cat f03.txt")
        hist = generate.Scrollback(screen("x", "y", "z", "     " + LINE))
        (_, _, what, _), = session().read_commands(st, [(0.0, generate.SETTLED, hist)], 0.0, before)
        self.assertTrue(what.startswith("not shown"), what)


    def test_scrollback_below_a_later_files_echo(self):
        # The repeat's echo not in the scrollback (Claude Code inline wrote
        # the output there as it is), but a later file's is, above the
        # line: the line is the new print's.
        st = repeat_step()
        before = screen("! cat f01.txt", "     " + LINE, "! cat f02.txt", "  ⎿  other", "❯ cat f03.txt")
        hist = generate.Scrollback(screen("! cat f01.txt", "     " + LINE, "! cat f02.txt", "  ⎿  other", "     " + LINE))
        (_, _, what, _), = session().read_commands(st, [(0.0, generate.SETTLED, hist)], 0.0, before)
        self.assertTrue(what.startswith("whole"), what)


class GeminiBoxBorders(unittest.TestCase):
    """clean: a Gemini box row reads without its borders, also when the
    terminal broke a row drawn for a wider screen over lines."""

    def test_a_whole_row(self):
        self.assertEqual(reader.clean("gemini", "│ @relay:bob hi   │"), "@relay:bob hi")

    def test_the_pieces_of_a_row_broken_by_the_terminal(self):
        self.assertEqual(reader.clean("gemini", "│ @relay:bob alpha beta ga"), "@relay:bob alpha beta ga")
        self.assertEqual(reader.clean("gemini", "mma delta ride th              │"), "mma delta ride th")

    def test_a_line_of_its_own_keeps_its_text(self):
        self.assertEqual(reader.clean("gemini", "a│b"), "a│b")


class GeminiRowAfterARelayLine(unittest.TestCase):
    """fits_after: the row after a relay line must read as a line of its
    own in Gemini's box whatever width its inner terminal has."""

    LINE = "@relay:bob alpha beta gamma delta epsilon zeta theta iota kappa lambda omicron sigma upsilon"

    def test_terminal_as_wide_as_the_box(self):
        # Through a terminal as wide as the window (60, give or take the
        # model's 3 columns), the line's last row leaves room for "hello"
        # in the box (52); through one as wide as the box (49 of them),
        # its last row runs to the box's edge, where "hello" would read
        # as the line's continuation.
        for w in range(57, 62):
            self.assertGreaterEqual(52 - len(generate.wrap_rows(self.LINE, w)[-1]), len("hello") + 4 + 3)
        self.assertLess(49 - len(generate.wrap_rows(self.LINE, 49)[-1]), len("hello") + 4)
        self.assertFalse(generate.fits_after("gemini", self.LINE, "hello more", [60]))

    def test_wide_letters_wrap_in_the_terminal_without_their_blanks(self):
        # 51 columns in the terminal, one row even at the box's width
        # (52); drawn with a blank after each wide letter it is 71, cut to
        # the box's first 52: no room for "hello" on its row. Wrapped as
        # drawn (with the blanks) at the window's width, its last row would
        # have seemed short.
        line = "@relay:bob " + "中" * 20
        self.assertGreater(52 - generate.cols(generate.wrap_rows(reader.gemini_form(line), 60)[-1]), len("hello") + 4 + 3)
        self.assertFalse(generate.fits_after("gemini", line, "hello more", [60]))

    def test_room_in_both(self):
        self.assertTrue(generate.fits_after("gemini", "@relay:bob alpha beta", "hello more", [60]))


class RowAfterARelayLineWrappedInARun(unittest.TestCase):
    """fits_after: Codex breaks a run of wide letters at its edge (UAX
    #14), which can leave the relay line's last row longer than wrapping
    at blanks does: the next row's first word must fit there too
    (codex-inline-s6300036: "country" read as the relay line's end)."""

    LINE = "@relay:alice danger brought since 测试カタカナ한국어测试 if shout flat stead 東京 kind 한국어中文"

    def test_last_row_of_the_run_broken(self):
        # At 51 columns, blanks only: "kind 한국어中文" (15 columns) last,
        # with room for "country"; broken in the run as Codex does, the
        # last row takes 47 columns, 4 left.
        self.assertEqual(generate.cols(generate.wrap_rows(self.LINE, 51)[-1]), 15)
        self.assertEqual(generate.cols(generate.ambig_rows("codex-inline", self.LINE, 51)[-1]), 47)
        self.assertFalse(generate.fits_after("codex-inline", self.LINE, "country high", [55]))
        self.assertTrue(generate.fits_after("codex-inline", self.LINE, "country high", [120]))


class RowAfterARelayLineWrappedAfterPunctuation(unittest.TestCase):
    """fits_after: Codex breaks a word after punctuation where UAX #14
    allows it ("C:" | "\\path\\x"), which can leave the relay line's last
    row longer than wrapping at blanks does (codex-inline-s11100012,
    printed at 111 columns: "... usual prove" over "how", 1 column left,
    read as one line)."""

    LINE = ("@relay:rev-2.b wild shoe kept all usual rather long fun color large more solve ready wow! person "
            "character yet on consider call base summer silent particular necessary tall pound fear from true "
            "line ear so let wire north C:\\path\\x temperature above agree numeral final $HOME pattern among "
            "iron hair night art laugh C:\\path\\x could fly exact loud protect some join whose half beat "
            "select product stay century song bright care word also guess stick (paren) has special company "
            "believe forest excite allow fly hold stretch usual prove")

    def test_last_row_after_a_break_at_punctuation(self):
        # At 107 columns of text, blanks only: "prove" alone last; broken
        # after "C:" as Codex did, the last row takes 106 columns.
        self.assertEqual(generate.cols(generate.wrap_rows(self.LINE, 107)[-1]), 5)
        self.assertEqual(generate.cols(generate.punct_rows(self.LINE, 107)[0][-1]), 106)
        self.assertFalse(generate.fits_after("codex-inline", self.LINE, "how", [111]))
        self.assertTrue(generate.fits_after("codex-inline", self.LINE, "how", [158]))


class RowAfterARelayLineAtLaterWidths(unittest.TestCase):
    """A file shown again at a later width (a resize after its print) is
    spaced for that width too: the row after a relay line reads as a line
    of its own at every width the session has from the print on."""

    LINE = "@relay:bob " + " ".join(["word"] * 9)  # 56 columns

    def plan(self, later):
        cmd = content.Cmd([self.LINE], "relay", "bob", self.LINE[len("@relay:bob "):])
        lines = generate.spaced("codex", [self.LINE, "hello there", generate.END], [cmd], [120])
        st = generate.PrintStep("f01", "cat", lines, [cmd], "f01.txt", "cat f01.txt")
        steps = [("print", st)] + ([("resize", (later, 30))] if later else [])
        plan = {"config": "codex", "seed": 1, "cols": 120, "rows": 30, "steps": steps}
        generate.guard_later_widths("codex", plan)
        return st.lines

    def test_at_the_print_width_the_row_fits(self):
        self.assertEqual(self.plan(None), [self.LINE, "hello there", "end of the output, 3 lines"])

    def test_a_later_width_that_ends_the_line_at_the_edge(self):
        # At 64 columns (60 of text) the line's last row leaves 4 columns:
        # "hello" would have wrapped there or not, nobody can tell.
        self.assertEqual(self.plan(64), [self.LINE, "", "hello there", "end of the output, 4 lines"])


class OpencodeBesideItsSidebar(unittest.TestCase):
    """opencode, wider than 120 columns: the sidebar takes 42 columns
    right of the transcript, so its text is that much narrower."""

    def test_text_width(self):
        # opencode-s6900008 (holdout-20261127g): rows of 83 columns at
        # 133, 112 at 162; no sidebar at 119.
        self.assertEqual(generate.text_width("opencode", 133), 83)
        self.assertEqual(generate.text_width("opencode", 119), 111)
        # Exactly 120 shows no sidebar (opencode-s6300012, batch-20261127g,
        # resized to 120x31: rows out to column 117).
        self.assertEqual(generate.text_width("opencode", 120), 112)
        self.assertEqual(generate.text_width("opencode", 121), 71)

    def test_a_break_after_punctuation_at_120_is_redrawn(self):
        # At 120 the text is 112 wide, where opencode breaks "1," | "234.56":
        # a reader cannot tell "1,234.56" from "1, 234.56".
        line = "@relay:bob " + " ".join(["word"] * 19) + " 1,234.56 end"
        rows, inside = generate.punct_rows(line, 112)
        self.assertTrue(any(inside), rows)
        self.assertTrue(generate.unreadable_wrap("opencode", line, [120]))
        self.assertEqual(generate.text_width("codex", 133), 129)

    def test_a_row_after_a_relay_line_beside_the_sidebar(self):
        # 80 columns: at 133 its row leaves 3 of 83, and "progress" may be
        # its wrap; without the sidebar (125) it would seem to fit.
        line = "@relay:bob " + " ".join(["word"] * 12) + " C:\\path\\x"
        self.assertEqual(generate.cols(line), 80)
        cmd = content.Cmd([line], "relay", "bob", line[len("@relay:bob "):])
        lines = generate.spaced("opencode", [line, "progress 0%", generate.END], [cmd], [133])
        self.assertEqual(lines[:3], [line, "", "progress 0%"])


class UnreadableWrapInsideARelayLine(unittest.TestCase):
    """unreadable_wrap and redraw_unreadable: a row break inside a relay
    line that no reader can read as printed is drawn away from the plan."""

    def guarded(self, config, line, cols):
        body = line[len("@relay:bob "):]
        cmd = content.Cmd([line], "relay", "bob", body)
        st = generate.PrintStep("f01", "cat", [line, generate.END % 2], [cmd], "f01.txt", "cat f01.txt")
        plan = {"config": config, "seed": 1, "cols": cols, "rows": 30, "features": ["cjk"], "steps": [("print", st)]}
        generate.guard_later_widths(config, plan)
        return st, cmd

    def test_opencode_breaks_after_punctuation_at_its_margin(self):
        line = "@relay:bob abc 1,234.56 end"
        # 17 text columns: "@relay:bob abc 1," | "234.56 end".
        self.assertEqual(generate.punct_rows(line, 17)[0], ["@relay:bob abc 1,", "234.56 end"])
        self.assertTrue(generate.unreadable_wrap("opencode", line, [25]))
        # Codex does not break there; a word with no punctuation neither.
        self.assertFalse(generate.unreadable_wrap("codex", line, [25]))
        self.assertFalse(generate.unreadable_wrap("opencode", "@relay:bob abc 1234 end", [25]))
        st, cmd = self.guarded("opencode", line, 25)
        self.assertNotEqual(cmd.lines, [line])
        self.assertFalse(generate.unreadable_wrap("opencode", cmd.lines[0], [25]))
        self.assertEqual(cmd.lines[0], "@relay:bob " + cmd.body)
        self.assertEqual(st.lines[0], cmd.lines[0])

    def test_wide_letters_to_the_edge_above_a_wide_word(self):
        line = "@relay:bob 北京 한국어 x"
        # 16 text columns: "@relay:bob 北京" (15) | "한국어 x": with or
        # without the blank, the same rows.
        self.assertEqual(generate.wrap_rows(line, 16), ["@relay:bob 北京", "한국어 x"])
        self.assertTrue(generate.unreadable_wrap("codex-inline", line, [20]))
        self.assertFalse(generate.unreadable_wrap("codex-inline", "@relay:bob hello there x", [20]))
        st, cmd = self.guarded("codex-inline", line, 20)
        self.assertNotEqual(cmd.lines, [line])
        self.assertFalse(generate.unreadable_wrap("codex-inline", cmd.lines[0], [20]))

    def test_a_line_with_wide_letters_is_drawn_again_with_some(self):
        # At 40 columns (33 to 37 of text) this line breaks ambiguously
        # beside wide letters; most draws with CJK do too, but one of the
        # first 15 reads, and the corpus keeps its CJK.
        line = "@relay:bob word 北京 한국어 東京 hello 中文字符 x y"
        self.assertTrue(generate.unreadable_wrap("codex-inline", line, [40]))
        st, cmd = self.guarded("codex-inline", line, 40)
        self.assertNotEqual(cmd.lines, [line])
        self.assertTrue(any(map(generate.wide, cmd.body)), cmd.body)
        self.assertFalse(generate.unreadable_wrap("codex-inline", cmd.lines[0], [40]))

    def test_a_chunk_that_fits_with_the_blank_or_without(self):
        # codex-s6900032 (holdout-20261127g): "💡" at column 50 of 53,
        # then "✅✅" (4 columns, kept together) on the next row: with its
        # blank or without, it would not have fitted; the rows read
        # "💡 ✅✅" and "💡✅✅" alike.
        a = "@relay:qa_1 wow a&b felt provide want mile fill 💡"
        self.assertEqual(generate.cols(a), 50)
        self.assertTrue(generate.ambiguous_break("codex", a, "✅✅ power", 53))
        # One ✅ (2 columns) would have fitted in the 3 left: had there
        # been no blank, it would be on the row; the blank is read.
        self.assertFalse(generate.ambiguous_break("codex", a, "✅ power", 53))
        # Between two plain words Codex breaks only at the blank.
        self.assertFalse(generate.ambiguous_break("codex", a[:-2] + "ab", "power x", 53))
        line = a + " ✅✅ power learn"
        self.assertTrue(generate.unreadable_wrap("codex", line, [57]))
        st, cmd = self.guarded("codex", line, 57)
        self.assertNotEqual(cmd.lines, [line])
        self.assertFalse(generate.unreadable_wrap("codex", cmd.lines[0], [57]))

    def test_a_change_of_script_breaks_without_a_blank(self):
        # UAX #14 (Codex, Claude Code): a wide letter and a Latin word
        # break apart with no blank; opencode breaks only between wide
        # letters (and after punctuation at its margin).
        self.assertTrue(generate.break_without_blank("codex", "한", "か"))
        self.assertTrue(generate.break_without_blank("claude", "e", "中"))
        self.assertFalse(generate.break_without_blank("claude", "中", "。"))
        self.assertFalse(generate.break_without_blank("opencode", "e", "中"))
        # "chance" over "北京東京": a blank before it or none, the rows
        # are the same when "北" does not fit in the one column left.
        self.assertTrue(generate.ambiguous_break("claude", "@relay:bob word chance", "北京東京 x", 23))
        self.assertFalse(generate.ambiguous_break("opencode", "@relay:bob word chance", "北京東京 x", 23))

    def test_a_readable_line_stays(self):
        line = "@relay:bob hello there x"
        st, cmd = self.guarded("codex-inline", line, 20)
        self.assertEqual(cmd.lines, [line])


class UnreadableWrapInsideABlock(unittest.TestCase):
    """redraw_unreadable_block: a row break inside a block's JSON line no
    reader can read as printed is drawn away from the plan, as in a relay
    line (codex-s10500032 at 143 columns: '… camp 한국어カタカナ' at the
    edge over '💡 usual …', and codex-s8100014: '😀😀' over '💡')."""

    BODY = ("planet \"q\" --flag\nprobable take as open 1,234.56 thought blow 한국어テスト字符日本語\n"
            "follow crop rest side 🚀 camp 한국어カタカナ 💡 usual behind minute hour")

    def guarded(self, pretty, cols):
        obj = {"to": "rev-2.b", "type": "message", "body": self.BODY, "topic": "t556"}
        js = (json.dumps(obj, ensure_ascii=False, indent=2).split("\n") if pretty
              else [json.dumps(obj, ensure_ascii=False, separators=(",", ":"))])
        lines = ["[[RELAY]]"] + js + ["[[/RELAY]]"]
        other = "@relay:bob word 北京 한국어 東京 hello 中文字符 x y"
        cmd = content.Cmd(list(lines), "relay", "rev-2.b", self.BODY, topic="t556", block=True)
        rel = content.Cmd([other], "relay", "bob", other[len("@relay:bob "):])
        st = generate.PrintStep("f01", "cat", ["before"] + lines + [other, generate.END % 3], [cmd, rel],
                                "f01.txt", "cat f01.txt")
        plan = {"config": "codex", "seed": 1, "cols": cols, "rows": 30, "features": ["cjk", "emoji"],
                "steps": [("print", st)]}
        generate.guard_later_widths("codex", plan)
        return lines, st, cmd

    def test_a_body_broken_unreadably_is_drawn_again(self):
        lines, st, cmd = self.guarded(True, 143)
        self.assertTrue(any(generate.body_unreadable("codex", l, [143]) for l in lines[1:-1]))
        self.assertNotEqual(cmd.lines, lines)
        self.assertFalse(any(generate.body_unreadable("codex", l, [143]) for l in cmd.lines[1:-1]))
        # Still a block of the same command, laid out as before.
        self.assertEqual(cmd.lines[0], "[[RELAY]]")
        self.assertEqual(cmd.lines[-1], "[[/RELAY]]")
        self.assertEqual(len(cmd.lines), len(lines))
        obj = json.loads("".join(cmd.lines[1:-1]))
        self.assertEqual((obj["to"], obj["topic"], obj["body"]), ("rev-2.b", "t556", cmd.body))
        self.assertEqual(cmd.body.count("\n"), 2)
        self.assertIn(' "q" ', cmd.body)
        # The printed file holds the block drawn again, in its place.
        self.assertEqual(st.lines[0], "before")
        self.assertEqual(st.lines[1:1 + len(cmd.lines)], cmd.lines)

    def test_a_readable_block_stays(self):
        lines, st, cmd = self.guarded(False, 189)
        self.assertFalse(any(generate.body_unreadable("codex", l, [189]) for l in lines[1:-1]))
        self.assertEqual(cmd.lines, lines)
        self.assertEqual(cmd.body, self.BODY)


def box(text, width=48):
    """A row of Gemini CLI's box at 60 columns (48 of text)."""
    return "│ " + text + " " * (width - generate.cols(text)) + " │"


class GeminiJoinAcrossACutRow(unittest.TestCase):
    """A Gemini row cut with room left for the next row's first word:
    the next row may be a line of its own, so the command is unsure."""

    def verdict(self, line, *rows):
        cmd = content.Cmd([line], "relay", "bob", line[len("@relay:bob "):])
        st = generate.PrintStep("f01", "cat", [line], [cmd], "f01.txt", "cat f01.txt")
        scr = "\n".join(["! cat f01.txt"] + [box(r) for r in rows] + ["", "> "])
        (_, _, what, _), = session("gemini").read_commands(st, [(0.0, generate.SETTLED, scr)], 0.0)
        return what

    def test_room_for_the_next_word(self):
        line = "@relay:bob alpha beta gamma delta longdroppedword tail end"
        self.assertTrue(self.verdict(line, "@relay:bob alpha beta gamma delta", "tail end").startswith("unsure"))

    def test_no_room_for_the_next_word(self):
        # Two columns left: no room for "tailpiece" (a row reaching the
        # edge is GeminiJoinAtTheBoxEdge's).
        line = "@relay:bob alpha beta gamma delta epsilon zeta droppedword tailpiece end"
        what = self.verdict(line, "@relay:bob alpha beta gamma delta epsilon zeta", "tailpiece end")
        self.assertTrue(what.startswith("cut to"), what)

    def test_the_blank_after_a_wide_letter_is_no_room(self):
        # 47 columns drawn, the last a wide letter's blank: 1 free, not
        # room for "x" and its blank.
        head = reader.gemini_form("@relay:bob alpha beta gamma delta epsilon z 中")
        self.assertEqual(generate.cols(head), 47)
        self.assertFalse(reader.join_unclear(box(head), head.rstrip(), "x"))
        short = reader.gemini_form("@relay:bob alpha beta gamma delta 中")
        self.assertTrue(reader.join_unclear(box(short), short.rstrip(), "x"))

    def test_room_on_a_box_row_the_terminal_broke(self):
        # A window narrower than the box (tmux rewraps the main screen's
        # rows as it narrows): each box row shows over two rows, its end
        # and right border on the second. The room is read there.
        line = "@relay:bob alpha beta gamma delta longdroppedword tail end"
        rows = []
        for r in (box("@relay:bob alpha beta gamma delta"), box("tail end")):
            rows += [r[:30], r[30:]]
        cmd = content.Cmd([line], "relay", "bob", line[len("@relay:bob "):])
        st = generate.PrintStep("f01", "cat", [line], [cmd], "f01.txt", "cat f01.txt")
        scr = "\n".join(["! cat f01.txt"] + rows + ["", "> "])
        (_, _, what, _), = session("gemini").read_commands(st, [(0.0, generate.SETTLED, scr)], 0.0)
        self.assertTrue(what.startswith("unsure"), what)


class GeminiJoinAtTheBoxEdge(unittest.TestCase):
    """A Gemini row that reaches the box's last column over a row whose
    text starts at its first: a word broken at the edge, or one that
    ended there with the rest of its terminal's row dropped. Read one way
    only where the line's rows say which (reader.edge_break)."""

    verdict = GeminiJoinAcrossACutRow.verdict

    def test_a_lone_row_at_the_edge_is_unsure(self):
        # "sa|lt": "salt", or "sa" and a dropped rest, a reader cannot say.
        head = "@relay:bob alpha beta gamma delta epsilon zet sa"
        self.assertEqual(generate.cols(head), 48)
        what = self.verdict(head + "lt end", head, "lt end")
        self.assertTrue(what.startswith("unsure"), what)
        # Joined with a blank instead (text dropped after "sa"): as unsure.
        what = self.verdict(head + " gone lt end", head, "lt end")
        self.assertTrue(what.startswith("unsure"), what)

    def test_rows_all_at_the_edge_are_words_broken(self):
        rows = ["@relay:bob alpha beta gamma delta epsilon zet sa", "lt and more words to fill this row right to edge",
                "s of the box"]
        self.assertEqual([generate.cols(r) for r in rows[:2]], [48, 48])
        what = self.verdict("".join(rows), *rows)
        self.assertTrue(what.startswith("whole"), what)
        # The same rows over a line that had a blank and more at the
        # first edge: the screen reads "salt", the line was not that.
        what = self.verdict(rows[0] + " gone " + "".join(rows[1:]), *rows)
        self.assertTrue(what.startswith("unsure"), what)

    def test_a_row_cut_short_elsewhere_says_text_was_dropped(self):
        # The second row stops 5 columns short, no room for "edgeword".
        rows = ["@relay:bob alpha beta gamma delta epsilon zet sa", "lt and more words to fill this row right to",
                "edgeword here"]
        line = rows[0] + " gone " + rows[1] + " dropped " + rows[2]
        what = self.verdict(line, *rows)
        self.assertTrue(what.startswith("cut to"), what)
        self.assertIn("sa lt", what)
        # The rows read "sa lt": a line with "salt" there is unsure.
        what = self.verdict(rows[0] + rows[1] + " dropped " + rows[2], *rows)
        self.assertTrue(what.startswith("unsure"), what)

    def test_a_row_with_a_two_column_letter_was_cut(self):
        head = reader.gemini_form("@relay:bob alpha beta 中文 gamma delta epsi sa")
        self.assertEqual(generate.cols(head), 48)
        line = "@relay:bob alpha beta 中文 gamma delta epsi sa gone lt end"
        what = self.verdict(line, head, "lt end")
        self.assertTrue(what.startswith("cut to"), what)
        what = self.verdict("@relay:bob alpha beta 中文 gamma delta epsi salt end", head, "lt end")
        self.assertTrue(what.startswith("unsure"), what)

    def test_a_blank_at_the_next_rows_start_reads_as_one(self):
        head = "@relay:bob alpha beta gamma delta epsilon zeta s"
        what = self.verdict(head + " lt end", head, " lt end")
        self.assertTrue(what.startswith("whole"), what)


class BlockTallerThanTheView(unittest.TestCase):
    """Codex, codex-s6900022 at 117x16: a block's rows stream through a
    view shorter than the block, each shown right below the one before,
    never all on one screen: unsure (Session.block_in_pieces)."""

    LINES = ["[[RELAY]]", "{", '  "to": "bob",', '  "body": "streamed past"', "}", "[[/RELAY]]"]

    def verdict(self, *views):
        cmd = content.Cmd(self.LINES, "relay", "bob", "streamed past", block=True)
        st = generate.PrintStep("f01", "sh", self.LINES, [cmd], "f01.sh", "sh f01.sh")
        caps = [(float(i), float(i) + generate.SETTLED,
                 "\n".join(["• Running sh f01.sh", "  └ " + v[0]] + ["    " + r for r in v[1:]] + ["", "› Ask"]))
                for i, v in enumerate(views)]
        (_, _, what, _), = session("codex").read_commands(st, caps, 0.0)
        return what

    def test_pieces_that_overlap_are_unsure(self):
        what = self.verdict(self.LINES[:3], self.LINES[2:])
        self.assertTrue(what.startswith("unsure, shown only in pieces"), what)

    def test_pieces_with_no_row_in_common_are_not_shown(self):
        self.assertTrue(self.verdict(self.LINES[:3], self.LINES[3:]).startswith("not shown"))

    def test_pieces_only_frames_showed_are_unsure(self):
        cmd = content.Cmd(self.LINES, "relay", "bob", "streamed past", block=True)
        st = generate.PrintStep("f01", "sh", self.LINES, [cmd], "f01.sh", "sh f01.sh")
        frames = [(1.0 + i, "\n".join(["    " + r for r in v] + ["", "› Ask"]))
                  for i, v in enumerate([self.LINES[:4], self.LINES[3:]])]
        s = session("codex")
        results = [(st, [(cmd, None, "not shown: x", False)])]
        s.frames_pass(results, frames, [0.5])
        self.assertTrue(results[0][1][0][2].startswith("unsure, shown only in pieces"), results[0][1][0][2])
        # Frames from before the file's Enter are not its.
        results = [(st, [(cmd, None, "not shown: x", False)])]
        s.frames_pass(results, frames, [1.5])
        self.assertTrue(results[0][1][0][2].startswith("not shown"))

    def test_a_block_shown_whole_is_whole(self):
        self.assertTrue(self.verdict(self.LINES[:3], self.LINES).startswith("whole"))


class BlockLineBrokenBeforeItsFirstBlank(unittest.TestCase):
    """Codex word-wraps a block's JSON line, whose first blank is 40 or
    more columns in, breaking the word that does not fit where it can:
    after a hyphen (codex-s11100016 at 50x25: '{"to":"rev-' over '2.b",…')
    or anywhere in it (codex-s9300032 at 54x45: '…"body":"back\\' over
    '\\slash …'). A reader reads the block whole; the rows read together
    show the marker and the target."""

    def verdict(self, rows, lines):
        body = "x"
        cmd = content.Cmd(lines, "relay", "rev-2.b", body, block=True)
        st = generate.PrintStep("f01", "cat", lines, [cmd], "f01.txt", "cat f01.txt")
        scr = "\n".join(["• You ran cat f01.txt", "  └ " + rows[0]] + ["    " + r for r in rows[1:]] + ["", "› Ask"])
        (_, _, what, _), = session("codex").read_commands(st, [(0.0, generate.SETTLED, scr)], 0.0)
        return what

    def test_broken_after_a_hyphen(self):
        line = '{"to":"rev-2.b","type":"message","body":"animal crème key fill (paren) pose teach animal Paulo wait burn wave \\\\ end","topic":"t205"}'
        rows = ["[[RELAY]]", '{"to":"rev-', '2.b","type":"message","body":"animal crème key',
                "fill (paren) pose teach animal Paulo wait burn", 'wave \\\\ end","topic":"t205"}', "[[/RELAY]]"]
        self.assertTrue(self.verdict(rows, ["[[RELAY]]", line, "[[/RELAY]]"]).startswith("whole"))

    def test_broken_inside_a_word(self):
        line = '{"to":"rev-2.b","type":"message","body":"back\\\\slash language lone jump","topic":"t756"}'
        rows = ["[[RELAY]]", '{"to":"rev-2.b","type":"message","body":"back\\', '\\slash language lone jump","topic":"t756"}', "[[/RELAY]]"]
        self.assertTrue(self.verdict(rows, ["[[RELAY]]", line, "[[/RELAY]]"]).startswith("whole"))

    def test_a_row_starting_the_line_by_chance_is_not_it(self):
        # "{" starts the JSON line as printed too, but the pretty-printed
        # rows under it do not go on with it: the block as printed is not
        # on the screen.
        line = '{"to":"rev-2.b","type":"message","body":"one two","topic":"t1"}'
        rows = ["[[RELAY]]", "{", '  "to": "rev-2.b",', '  "body": "one two"', "}", "[[/RELAY]]"]
        self.assertTrue(self.verdict(rows, ["[[RELAY]]", line, "[[/RELAY]]"]).startswith("not shown"))
        self.assertIsNone(reader.find_line("codex", ["{", '"to": "rev-2.b",'], line))


if __name__ == "__main__":
    unittest.main()
