#!/usr/bin/env python3
"""ptyrec: run a command in a new pseudo-terminal inside the current one and
record everything as an asciicast v2 file.

    ptyrec.py --out rec.cast [--fifo ctl.fifo] -- COMMAND [ARG...]

Run it inside a real terminal (a tmux pane does well): the outer terminal
shows the program and answers its queries (cursor position, device
attributes, colours), as it would for a person. What the program writes is
recorded as "o" events, keys typed in the outer terminal as "i" events and
window size changes as "r" events, each with its time in seconds.

--fifo names a FIFO that is created if missing; whatever is written to it
is written to the program in one write(2), exactly as given, and recorded
as an "i" event. That is how a driver script types text, pastes it
(ESC[200~ … ESC[201~) or presses Enter with precise timing, e.g.

    printf '\\e[200~hello\\e[201~' > ctl.fifo; sleep 0.2; printf '\\r' > ctl.fifo

The recording ends when the program exits; ptyrec exits with its status.
"""
import argparse
import codecs
import fcntl
import json
import os
import pty
import select
import signal
import struct
import sys
import termios
import time
import tty


def winsize(fd):
    rows, cols, _, _ = struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))
    return rows, cols


def set_winsize(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--fifo")
    ap.add_argument("--title", default="")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        ap.error("no command")
    rows, cols = winsize(0)
    pid, master = pty.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    set_winsize(master, rows, cols)

    out = open(a.out, "w", encoding="utf-8")
    start = time.monotonic()
    out.write(json.dumps({"version": 2, "width": cols, "height": rows,
                          "timestamp": int(time.time()), "title": a.title,
                          "env": {"TERM": os.environ.get("TERM", "")},
                          "command": " ".join(cmd)}) + "\n")
    dec = {"o": codecs.getincrementaldecoder("utf-8")("replace"),
           "i": codecs.getincrementaldecoder("utf-8")("replace")}

    def event(kind, data):
        t = round(time.monotonic() - start, 6)
        if kind in dec:
            data = dec[kind].decode(data)
            if not data:
                return
        out.write(json.dumps([t, kind, data], ensure_ascii=False) + "\n")
        out.flush()

    fifo = None
    if a.fifo:
        if not os.path.exists(a.fifo):
            os.mkfifo(a.fifo)
        fifo = os.open(a.fifo, os.O_RDWR | os.O_NONBLOCK)

    # SIGWINCH wakes select through a pipe (select is retried, not
    # interrupted, when a handler runs).
    resized = []
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGWINCH, lambda *_: resized.append(1))
    old = termios.tcgetattr(0)
    tty.setraw(0)
    status = 0
    try:
        while True:
            if resized:
                resized.clear()
                rows, cols = winsize(0)
                set_winsize(master, rows, cols)
                event("r", "%dx%d" % (cols, rows))
            fds = [0, master, wake_r] + ([fifo] if fifo is not None else [])
            r, _, _ = select.select(fds, [], [], 1.0)
            if wake_r in r:
                os.read(wake_r, 512)
            if master in r:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    data = b""
                if not data:
                    break
                os.write(1, data)
                event("o", data)
            if 0 in r:
                data = os.read(0, 65536)
                if data:
                    os.write(master, data)
                    event("i", data)
            if fifo is not None and fifo in r:
                try:
                    data = os.read(fifo, 65536)
                except BlockingIOError:
                    data = b""
                if data:
                    os.write(master, data)
                    event("i", data)
        _, st = os.waitpid(pid, 0)
        status = os.waitstatus_to_exitcode(st)
    finally:
        termios.tcsetattr(0, termios.TCSADRAIN, old)
        out.close()
    sys.exit(status if status >= 0 else 128 - status)


if __name__ == "__main__":
    main()
