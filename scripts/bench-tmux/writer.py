#!/usr/bin/env python3
"""A terminal load: coloured log lines, about 100 bytes with 6 SGR each.

  writer.py flood MB 0 OUT       write MB megabytes as fast as the terminal takes them
  writer.py rate  MB/s SECS OUT  write at MB/s for SECS seconds
  writer.py redraw MB 0 OUT      write a transcript of MB megabytes as fast as
                                 the terminal takes it, as an Ink program
                                 (Claude Code's classic interface, Gemini CLI)
                                 does: after each REDRAWS-th of it, it clears
                                 the screen and the scrollback and writes the
                                 whole transcript so far again (a fixed amount
                                 of work, so that a slow run keeps as much)

When done it writes "BYTES SECONDS" to OUT (the writer's own clock) and
then waits, so that its pane stays until the harness ends the run.
"""
import os
import sys
import time

REDRAWS = 5  # how many times the redraw mode draws its transcript again


def lines(n):
    return b"".join(line(i) for i in range(n))


def line(i):
    return (f"\x1b[2m{i:06d}\x1b[0m \x1b[32mINFO\x1b[0m \x1b[36mworker-{i % 8}\x1b[0m "
            f"processed batch {i} in {i * 7 % 1000} ms, queue depth {i % 97}, ok\r\n").encode()


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def redraw(fd, total):
    """Returns the bytes of new lines written: the transcript, each line
    once (numbered: no two alike), drawn again whole REDRAWS times."""
    transcript = bytearray()
    i, due = 0, total / REDRAWS
    while len(transcript) < total:
        chunk = b"".join(line(i + k) for k in range(20))
        i += 20
        write_all(fd, chunk)
        transcript += chunk
        if len(transcript) >= due:
            write_all(fd, b"\x1b[H\x1b[2J\x1b[3J" + bytes(transcript))
            due += total / REDRAWS
    return len(transcript)


def main():
    mode, arg, secs, out = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    block = lines(1000)  # about 100 KB
    fd = sys.stdout.fileno()
    written = 0
    t0 = time.monotonic()
    if mode == "redraw":
        written = redraw(fd, int(arg * 1e6))
    elif mode == "flood":
        total = int(arg * 1e6)
        while written < total:
            written += os.write(fd, block[: min(len(block), total - written)])
    else:
        chunk = block[:16384]
        rate = arg * 1e6
        while True:
            now = time.monotonic() - t0
            if now >= secs:
                break
            if written > rate * now:
                time.sleep(min(written / rate - now, secs - now))
                continue
            written += os.write(fd, chunk)
    elapsed = time.monotonic() - t0
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"{written} {elapsed}\n")
    os.rename(tmp, out)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
