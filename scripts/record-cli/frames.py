"""frames: every screen a recording put up, from its .cast alone.

The generator reads the screen by capturing it every POLL seconds, and
counts only rows that held still between two captures: a command that
streamed past faster than that (a transcript scrolling while output
pours in, a live box redrawn, a view collapsed a moment later) is in no
capture, though the CLI did put it on the screen. This module plays the
recording's output again, one output event (one read of the CLI's
terminal, as ptyrec.py wrote it) at a time, into a tmux pane made as the
generator made its own (same size, the resizes where the recording has
them; tmux is the terminal both read), and captures the screen after
each: the screens a reader could have seen, however briefly.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import itertools
import time

# Runs in the pane: writes each chunk the driver sends to the terminal,
# then asks tmux where its cursor is (CSI 6n) and says the chunk is done
# once tmux has answered: tmux parses its input in order, so by then the
# chunk is on its screen and the capture the driver takes next shows it.
# The recording's own queries are answered too: replies are counted
# against every request written. Raw: the recorded bytes already went
# through the CLI's own terminal settings, and tmux's answers must not be
# echoed onto the screen.
PLAYER = r"""
import os, re, select, sys, tty
tty.setraw(0)
ctl, ack = sys.argv[1], sys.argv[2]
src = open(ctl, "rb")
dst = open(ack, "w")
asked, answered, got = 0, 0, b""
CPR = re.compile(rb"\x1b\[\d+;\d+R")
while True:
    head = src.readline()
    if not head:
        break
    data = src.read(int(head)) + b"\x1b[6n"
    asked += data.count(b"\x1b[6n")
    view = memoryview(data)
    while view:
        view = view[os.write(1, view):]
    while answered < asked:
        r, _, _ = select.select([0], [], [], 10)
        if not r:
            break
        got += os.read(0, 4096)
        m = CPR.search(got)
        while m:
            answered += 1
            got = got[m.end():]
            m = CPR.search(got)
        got = got[-64:]
    dst.write("ok\n" if answered >= asked else "late\n")
    dst.flush()
"""


_replays = itertools.count()


def events(cast):
    """The recording's header and its events (time, code, data)."""
    with open(cast, encoding="utf-8") as fh:
        head = json.loads(fh.readline())
        return head, [tuple(json.loads(line)) for line in fh if line.strip()]


def replay(cast, timeout=600):
    """The screens the recording put up, in order: (time in the recording,
    screen as tmux capture-pane prints it), one per output event or resize
    that changed the screen."""
    head, evs = events(cast)
    scratch = tempfile.mkdtemp(prefix="frames-")
    sock = "frames-%d-%d-%s" % (os.getpid(), next(_replays), os.path.basename(cast)[:-len(".cast")])
    tmux = ["tmux", "-L", sock]
    ctl, ack = os.path.join(scratch, "ctl"), os.path.join(scratch, "ack")
    os.mkfifo(ctl)
    os.mkfifo(ack)
    cmd = " ".join("'%s'" % a.replace("'", "'\\''") for a in [sys.executable, "-c", PLAYER, ctl, ack])
    r = subprocess.run(tmux + ["-f", "/dev/null", "new-session", "-d", "-s", "play", "-x", str(head["width"]), "-y",
                               str(head["height"]), "env", "TERM=xterm-256color", "LANG=C.UTF-8", "sh", "-c", cmd],
                       capture_output=True, text=True)
    if r.returncode != 0:
        shutil.rmtree(scratch, ignore_errors=True)
        raise ValueError("%s: tmux new-session: %s" % (cast, r.stderr.strip()))
    end = time.time() + timeout
    cc = None
    try:
        # As the generator's Session.start: the pane keeps tmux's default
        # history limit, the option coming after it.
        subprocess.run(tmux + ["set-option", "-g", "history-limit", "20000"], check=True)
        out_fh = open(ctl, "wb")
        ack_fh = open(ack, "r")
        # One control-mode client for every capture: a tmux command run
        # per output event costs more than the replay itself.
        cc = Control(tmux)
        frames = []

        size = [head["height"]]

        def capture(t):
            scr = cc.run("capture-pane -p -t play:0.0")
            if scr.count("\n") != size[0]:
                raise ValueError("%s: a capture of %d rows on a screen of %d" % (cast, scr.count("\n"), size[0]))
            if not frames or frames[-1][1] != scr:
                frames.append((t, scr))

        def play(t, text):
            b = text.encode("utf-8", "surrogateescape")
            out_fh.write(b"%d\n" % len(b) + b)
            out_fh.flush()
            reply = ack_fh.readline()
            if reply != "ok\n":
                raise ValueError("%s: tmux did not answer the player in 10 s (%r)" % (cast, reply))
            capture(t)

        pending = ""
        for t, code, data in evs:
            if time.time() > end:
                raise ValueError("%s: replaying it frame by frame took over %d s" % (cast, timeout))
            if code == "o":
                # The player's query must not land inside a sequence or a
                # character the CLI's next write completes: such a read
                # is played with the next (the screen between the two was
                # never a whole one).
                pending += data
                if at_rest(pending):
                    play(t, pending)
                    pending = ""
            elif code == "r":
                if pending:
                    play(t, pending)
                    pending = ""
                c, rr = (int(x) for x in data.split("x"))
                size[0] = rr
                cc.run("resize-window -t play:0 -x %d -y %d" % (c, rr))
                want = "%dx%d" % (c, rr)
                while cc.run("display-message -t play:0.0 -p '#{pane_width}x#{pane_height}'").strip() != want:
                    if time.time() > end:
                        raise ValueError("%s: the pane did not take the size %s" % (cast, want))
                    time.sleep(0.02)
                capture(t)
        if pending:
            play(evs[-1][0], pending)
        out_fh.close()
        ack_fh.close()
        return frames
    finally:
        if cc is not None:
            cc.close()
        subprocess.run(tmux + ["kill-server"], capture_output=True)
        shutil.rmtree(scratch, ignore_errors=True)


class Control:
    """A tmux control-mode client (tmux -C): commands in, each one's
    output back between %begin and %end."""

    def __init__(self, tmux):
        self.p = subprocess.Popen(tmux + ["-C", "attach-session", "-t", "play"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        # The attach's own reply and notifications come first, the reply
        # possibly after that to a command sent meanwhile: read up to the
        # reply to a second command sent after the first one's came.
        for token in ("frames-ready", "frames-ready-2"):
            self.p.stdin.write(b"display-message -p %s\n" % token.encode())
            self.p.stdin.flush()
            while self._block() != token + "\n":
                pass

    def _block(self):
        """The next reply to a command this client sent (flags 1 on its
        %begin line; the attach's own reply has 0)."""
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise ValueError("tmux's control client ended")
            if line.startswith(b"%begin "):
                if line.split()[-1:] == [b"1"]:
                    break
                while not (line.startswith(b"%end ") or line.startswith(b"%error ")):
                    line = self.p.stdout.readline()
                    if not line:
                        raise ValueError("tmux's control client ended")
        out = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise ValueError("tmux's control client ended")
            if line.startswith(b"%end ") or line.startswith(b"%error "):
                if line.startswith(b"%error "):
                    raise ValueError("tmux: %s" % b"".join(out).decode("utf-8", "replace").strip())
                return b"".join(out).decode("utf-8", "replace")
            out.append(line)

    def run(self, command):
        """Runs one tmux command; returns what it printed."""
        self.p.stdin.write(command.encode() + b"\n")
        self.p.stdin.flush()
        return self._block()

    def close(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        self.p.kill()
        self.p.wait()


def at_rest(text):
    """Whether output ending in text ends between characters and between
    escape sequences (the terminal's parser back at its ground state), as
    far as its last escape shows."""
    if text and "\udc80" <= text[-1] <= "\udcff":
        return False  # a UTF-8 character cut short (ptyrec kept the bytes)
    esc = text.rfind("\x1b")
    if esc < 0:
        return True
    rest = text[esc + 1:]
    if not rest:
        return False
    if rest[0] == "[":
        return any("@" <= ch <= "~" for ch in rest[1:])
    if rest[0] in "]P_^X":
        return "\x07" in rest  # else ended by ESC \, whose ESC is the last
    if rest[0] in "()*+-./#% ":
        return len(rest) >= 2
    return True


def enters(cast, tags):
    """Per printed file (its tag, in the order printed): the time in the
    recording of the Enter that ran it, the first one after its command
    was typed (None when the recording has none)."""
    _, evs = events(cast)
    keys = [(t, data) for t, code, data in evs if code == "i"]
    out = []
    for tag in tags:
        typed = next((k for k, (t, data) in enumerate(keys) if tag in data), None)
        t_enter = None
        if typed is not None:
            t_enter = next((t for t, data in keys[typed:] if "\r" in data), None)
        out.append(t_enter)
    return out
