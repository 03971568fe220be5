#!/usr/bin/env python3
"""Write an ANSI-heavy agent transcript for timing `swarm parse`.

Coloured log lines (~100 bytes, 6 SGR each), one in ten an @relay line with
its own colours, one in fifty a [[RELAY]] block: the relay commands in it
are printed on stderr, so that `swarm parse FILE | wc -l` can be checked
against them (recall).

Usage: scripts/bench-parse/transcript.py [MB] > FILE
       /usr/bin/time swarm parse FILE | wc -l
"""
import random
import sys

size = int(float(sys.argv[1] if len(sys.argv) > 1 else 20) * 1_000_000)
random.seed(7)
out, n, commands = [], 0, 0
while n < size:
    i = len(out)
    r = random.random()
    if r < 0.1:
        line = f"\x1b[1m\x1b[35m@relay:bob\x1b[0m status update {i}: \x1b[32mall green\x1b[0m\r\n"
        commands += 1
    elif r < 0.12:
        line = f'[[RELAY]]{{"to":"alice","type":"message","body":"block {i}"}}[[/RELAY]]\r\n'
        commands += 1
    else:
        line = (f"\x1b[2m{i:06d}\x1b[0m \x1b[32mINFO\x1b[0m \x1b[36mworker-{i % 8}\x1b[0m "
                f"processed batch {i} in {i % 97} ms, \x1b[33mqueue\x1b[0m depth {i % 13}, ok\r\n")
    out.append(line)
    n += len(line)
sys.stdout.write("".join(out))
print(f"{commands} relay commands, {n} bytes", file=sys.stderr)
