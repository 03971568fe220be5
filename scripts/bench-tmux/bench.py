#!/usr/bin/env python3
"""Run the same terminal loads under swarm and under tmux, side by side.

Loads (the ones the terminal-speed issue measured):
  one     one pane, MB megabytes of coloured log lines as fast as they go
  many    PANES panes, each writer aiming at RATE MB/s for SECONDS
  idle    4 idle shells for SECONDS
  hundred 100 agents under swarm (90 idle shells, 10 writers at 100 KB/s for
          SECONDS): server start to all running, CPU and peak RSS while the
          10 print, idle CPU after, then the server's peak RSS while a
          client attaches to the full scrollbacks (and rewraps them);
          tmux holds the same 100 for its RSS
  redraw  PANES panes, each an Ink-like program printing a transcript of MB
          megabytes as fast as it goes and, after each fifth of it, clearing
          the screen and the scrollback to write it all again (as Claude
          Code's classic interface and Gemini CLI do); the anonymous memory is read
          --idle seconds after the writers end (over two minutes: the Go
          runtime returns freed memory after the collection it forces every
          two minutes when nothing allocates)
  soak    PANES panes at RATE MB/s for SECONDS under swarm alone, its RSS
          sampled every --sample seconds, drawn as an SVG (--plot FILE)

For each load the runs alternate (swarm, tmux, swarm, tmux, ...) so both see
the same machine, and the report gives each run and the ratios of paired
runs. Measured: what the writers achieved (MB/s, from the writers' own
clocks), the CPU seconds of the program that emulates the terminals (the
swarm process; the tmux server), and its peak RSS.

--history N gives both the same history: tmux's history-limit and swarm's
[ui] scrollback (tmux keeps 2000 lines by default, swarm 10000 rows);
without it each keeps its default.

swarm runs headless (`swarm up --headless`) unless --tui, where `swarm up`
runs inside a tmux window of its own (that outer tmux is not counted): its
server and the UI attached to it are both counted. Beside headless swarm,
tmux runs detached with a window per writer of the size swarm gives an
agent no UI has sized (80×24); beside swarm's UI,
tmux shows every writer as swarm does, in tiled panes of one window with a
client attached (server and client counted; --tmux-detached compares with
the detached tmux instead).

Usage: scripts/bench-tmux/bench.py [--swarm BIN] [--load one|many|redraw|idle|soak|hundred|all]
       [--reps N] [--mb MB] [--panes N] [--rate MB/s] [--seconds S] [--tui]
       [--tmux-detached] [--startup S] [--history N] [--sample S] [--plot SVG]
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WRITER = os.path.join(HERE, "writer.py")
TICK = os.sysconf("SC_CLK_TCK")
ARGS = None  # the command line
# The terminal size of a headless swarm's agents (no UI gives them one):
# the spawner's default. Detached tmux windows get it too, so that both
# keep the same screens.
HEADLESS_COLS, HEADLESS_ROWS = 80, 24


def cpu_seconds(pid):
    """User + system CPU of pid and its reaped children, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def status_mib(pid, field):
    """A size from /proc/PID/status, in MiB: VmHWM is the peak RSS, RssAnon
    the process's own memory (RSS less the pages of its binary and
    libraries, which are shared and read from the file again when needed)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def peak_rss_mib(pid):
    return status_mib(pid, "VmHWM")


def wait_for(cond, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.05)
    raise SystemExit(f"bench: timed out waiting for {what}")


SAMPLES = []  # the soak's (seconds since the writers started, RSS in MiB)


def sample_rss(pids, done, t0):
    """Record the summed RSS of pids every --sample seconds until done()."""
    next_at = t0
    while not done():
        if time.monotonic() >= next_at:
            SAMPLES.append((time.monotonic() - t0, sum(status_mib(p, "VmRSS") for p in pids)))
            print(f"soak: {SAMPLES[-1][0]:.0f} s: RSS {SAMPLES[-1][1]:.1f} MiB", flush=True)
            next_at += ARGS.sample
        time.sleep(0.5)


def first_frame(binary, work, env, a, hold=0):
    """Seconds from `swarm attach` starting (in a tmux of its own, COLS×ROWS)
    to its first frame that names an agent, and the attached client's peak
    RSS in MiB once it has stayed HOLD seconds more."""
    outer = ["tmux", "-L", f"swarmbenchattach{os.getpid()}", "-f", "/dev/null"]
    t0 = time.monotonic()
    subprocess.run(outer + ["new-session", "-d", "-x", str(a.cols), "-y", str(a.rows),
                            f"cd {work} && exec {binary} attach"], check=True, env=env)
    try:
        def shown():
            r = subprocess.run(outer + ["capture-pane", "-p"], capture_output=True, text=True)
            return "idle" in r.stdout or "w0" in r.stdout
        wait_for(shown, 30, "swarm attach's first frame")
        took = time.monotonic() - t0
        time.sleep(hold)
        r = subprocess.run(outer + ["display", "-p", "#{pane_pid}"], capture_output=True, text=True)
        return took, peak_rss_mib(int(r.stdout))
    finally:
        subprocess.run(outer + ["kill-server"], capture_output=True)


def hundred(binary, work, a):
    """The hundred-agent load: swarm's figures, then tmux's RSS."""
    idle = ["sh"] * 90
    writers = [writer_cmd(os.path.join(work, f"w{i}.out"), "rate", 0.1, a.seconds) for i in range(10)]
    cfg = os.path.join(work, "swarm.toml")
    with open(cfg, "w") as f:
        if a.history is not None:
            f.write(f"[ui]\nscrollback = {a.history}\n\n")
        for i, c in enumerate(writers + idle):
            name = f"w{i}" if i < 10 else f"idle{i}"
            f.write(f'[[agent]]\nname = "{name}"\ncmd = {json.dumps(c)}\nrestart = "never"\n\n')
    env = dict(os.environ, SWARM_DIR=os.path.join(work, ".swarm"))

    def running():
        r = subprocess.run([binary, "status", "--json"], env=env, cwd=work, capture_output=True, text=True)
        try:
            agents = json.loads(r.stdout).get("agents") or []
        except ValueError:
            return 0
        return sum(1 for x in agents if str(x.get("state", "")).lower() == "running")

    t0 = time.monotonic()
    proc = subprocess.Popen([binary, "up", "--headless", "--config", cfg], cwd=work, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: running() >= 100, 120, "100 agents running")
        start = time.monotonic() - t0
        attach, _ = first_frame(binary, work, env, a)
        c0, w0 = cpu_seconds(proc.pid), time.monotonic()
        wait_for(lambda: results(work, 10) is not None, 600, "the writers")
        busy = (cpu_seconds(proc.pid) - c0) / (time.monotonic() - w0)
        rates = results(work, 10)
        time.sleep(5)
        c0, w0 = cpu_seconds(proc.pid), time.monotonic()
        time.sleep(a.idle)
        idle_cpu = (cpu_seconds(proc.pid) - c0) / (time.monotonic() - w0)
        rss = peak_rss_mib(proc.pid)
        # Attaching once the scrollbacks are full: the client's size is not
        # the agents' (80×24), so the server rewraps every scrollback. The
        # server's peak is reset first (clear_refs 5) to see what the
        # attach alone takes.
        before = status_mib(proc.pid, "VmRSS")
        with open(f"/proc/{proc.pid}/clear_refs", "w") as f:
            f.write("5")
        reattach, client = first_frame(binary, work, env, a, hold=3)
        during = peak_rss_mib(proc.pid)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    print(f"hundred: swarm: start to 100 running {start:.2f} s; attach to first frame {1000 * attach:.0f} ms; while 10 print "
          f"({min(rates):.3f}–{max(rates):.3f} MB/s each) {100 * busy:.1f} % CPU; idle after {100 * idle_cpu:.2f} % "
          f"CPU over {a.idle:.0f} s; peak RSS {rss:.1f} MiB")
    print(f"hundred: swarm: attach with the scrollbacks full: first frame {1000 * reattach:.0f} ms; server RSS "
          f"{before:.1f} MiB before, peak {during:.1f} MiB while attaching; the client's peak RSS {client:.1f} MiB")
    for f in os.listdir(work):
        if f.endswith(".out"):
            os.remove(os.path.join(work, f))
    base = ["tmux", "-L", f"swarmbenchhundred{os.getpid()}", "-f", tmux_conf(work)]
    subprocess.run(base + ["new-session", "-d", "-x", str(HEADLESS_COLS), "-y", str(HEADLESS_ROWS), writers[0]],
                   check=True)
    for c in writers[1:] + idle:
        subprocess.run(base + ["new-window", "-d", c], check=True)
    pid = int(subprocess.run(base + ["display", "-p", "#{pid}"], check=True, capture_output=True, text=True).stdout)
    try:
        c0, w0 = cpu_seconds(pid), time.monotonic()
        wait_for(lambda: results(work, 10) is not None, 600, "the writers")
        cpu, wall, trss = cpu_seconds(pid) - c0, time.monotonic() - w0, peak_rss_mib(pid)
    finally:
        subprocess.run(base + ["kill-server"], capture_output=True)
    print(f"hundred: tmux: while 10 print {100 * cpu / wall:.1f} % CPU; peak RSS {trss:.1f} MiB")
    print(f"hundred: swarm/tmux peak RSS {rss / max(trss, 1e-9):.2f}×; load average {os.getloadavg()[0]:.1f} at the end")


def plot_svg(path, samples, title):
    """RSS over time as a line in a hand-written SVG (no plotting library)."""
    w, h, left, bottom, top, right = 640, 320, 60, 40, 30, 20
    tmax = max(t for t, _ in samples) or 1
    ymax = max(r for _, r in samples) * 1.1 or 1
    ymax = 10 * -(-ymax // 10)

    def x(t):
        return left + (w - left - right) * t / tmax

    def y(r):
        return h - bottom - (h - top - bottom) * r / ymax

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{w / 2}" y="18" text-anchor="middle" font-size="13">{title}</text>',
           f'<line x1="{left}" y1="{h - bottom}" x2="{w - right}" y2="{h - bottom}" stroke="black"/>',
           f'<line x1="{left}" y1="{top}" x2="{left}" y2="{h - bottom}" stroke="black"/>']
    for i in range(6):
        r = ymax * i / 5
        out.append(f'<line x1="{left}" y1="{y(r):.1f}" x2="{w - right}" y2="{y(r):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y(r) + 4:.1f}" text-anchor="end">{r:.0f}</text>')
        t = tmax * i / 5
        out.append(f'<text x="{x(t):.1f}" y="{h - bottom + 16}" text-anchor="middle">{t / 60:.0f}</text>')
    out.append(f'<text x="{w / 2}" y="{h - 6}" text-anchor="middle">minutes</text>')
    out.append(f'<text x="14" y="{h / 2}" text-anchor="middle" transform="rotate(-90 14 {h / 2})">RSS (MiB)</text>')
    pts = " ".join(f"{x(t):.1f},{y(r):.1f}" for t, r in samples)
    out.append(f'<polyline points="{pts}" fill="none" stroke="#1f77b4" stroke-width="2"/>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def writer_cmd(out, mode, arg, seconds):
    return f"python3 {WRITER} {mode} {arg} {seconds} {out}"


def results(dirname, n):
    files = [os.path.join(dirname, f"w{i}.out") for i in range(n)]
    if not all(os.path.exists(f) for f in files):
        return None
    rates = []
    for f in files:
        with open(f) as fh:
            nbytes, secs = fh.read().split()
        rates.append(int(nbytes) / 1e6 / max(float(secs), 1e-9))
    return rates


def measure(pids, work, writers, idle_seconds):
    """CPU seconds, wall seconds, peak RSS and anonymous RSS at the end of
    the terminal program's processes (pids: swarm's server and its UI, or
    the tmux server) while the writers run (or, idle, for idle_seconds after
    start-up)."""
    if idle_seconds:
        time.sleep(ARGS.startup)
    pids = pids() if callable(pids) else pids
    c0, t0 = sum(cpu_seconds(p) for p in pids), time.monotonic()
    if idle_seconds:
        time.sleep(idle_seconds)
    elif ARGS.load == "soak":
        sample_rss(pids, lambda: results(work, writers) is not None, t0)
    else:
        wait_for(lambda: results(work, writers) is not None, 600, "the writers")
        if ARGS.load == "redraw":
            time.sleep(ARGS.idle)  # what stays once output paused
    return (sum(cpu_seconds(p) for p in pids) - c0, time.monotonic() - t0, sum(peak_rss_mib(p) for p in pids),
            sum(status_mib(p, "RssAnon") for p in pids))


def tmux_conf(work):
    """tmux's config: nothing but the history limit --history asks for."""
    path = os.path.join(work, "tmux.conf")
    with open(path, "w") as f:
        if ARGS.history is not None:
            f.write(f"set -g history-limit {ARGS.history}\n")
    return path


class Tmux:
    """A tmux server of its own (-L), one window per writer."""

    name = "tmux"

    def __init__(self, work, cols, rows):
        self.sock = f"swarmbench{os.getpid()}"
        self.cols, self.rows = cols, rows
        self.work = work

    def run(self, cmds, idle_seconds=None):
        base = ["tmux", "-L", self.sock, "-f", tmux_conf(self.work)]
        subprocess.run(base + ["new-session", "-d", "-x", str(self.cols), "-y", str(self.rows), cmds[0]], check=True)
        for c in cmds[1:]:
            subprocess.run(base + ["new-window", "-d", c], check=True)
        pid = int(subprocess.run(base + ["display", "-p", "#{pid}"], check=True, capture_output=True, text=True).stdout)
        try:
            return measure([pid], self.work, len(cmds), idle_seconds)
        finally:
            subprocess.run(base + ["kill-server"], capture_output=True)


class TmuxShown(Tmux):
    """tmux as someone watching every writer sees it, to compare with swarm's
    UI: one window of tiled panes (the writers' terminals are as small as
    swarm's panes), with a client attached in a terminal of COLS×ROWS (an
    outer tmux of its own, not counted). The tmux server and its client are
    counted, as swarm's server and its UI are."""

    name = "tmux-ui"

    def __init__(self, work, cols, rows):
        super().__init__(work, cols, rows)
        self.sock = f"swarmbenchshown{os.getpid()}"

    def run(self, cmds, idle_seconds=None):
        base = ["tmux", "-L", self.sock, "-f", tmux_conf(self.work)]
        outer = ["tmux", "-L", self.sock + "outer", "-f", "/dev/null"]
        size = ["-x", str(self.cols), "-y", str(self.rows)]
        subprocess.run(base + ["new-session", "-d"] + size + [cmds[0]], check=True)
        for c in cmds[1:]:
            subprocess.run(base + ["split-window", "-d", c], check=True)
            subprocess.run(base + ["select-layout", "tiled"], check=True)
        server = int(subprocess.run(base + ["display", "-p", "#{pid}"], check=True, capture_output=True,
                                    text=True).stdout)
        subprocess.run(outer + ["new-session", "-d"] + size + [" ".join(base + ["attach"])], check=True)

        def client():
            r = subprocess.run(outer + ["display", "-p", "#{pane_pid}"], capture_output=True, text=True)
            return int(r.stdout) if r.returncode == 0 and r.stdout.strip() else None

        wait_for(lambda: client() is not None, 30, "tmux's client")
        try:
            return measure([server, client()], self.work, len(cmds), idle_seconds)
        finally:
            subprocess.run(base + ["kill-server"], capture_output=True)
            subprocess.run(outer + ["kill-server"], capture_output=True)


class Swarm:
    """`swarm up --headless` (or the TUI inside a tmux of its own) with one
    agent per writer."""

    def __init__(self, binary, work, cols, rows, tui):
        self.binary, self.work, self.cols, self.rows, self.tui = binary, work, cols, rows, tui
        self.name = "swarm-tui" if tui else "swarm"

    def run(self, cmds, idle_seconds=None):
        cfg = os.path.join(self.work, "swarm.toml")
        with open(cfg, "w") as f:
            if ARGS.history is not None:
                f.write(f"[ui]\nscrollback = {ARGS.history}\n\n")
            for i, c in enumerate(cmds):
                f.write(f'[[agent]]\nname = "w{i}"\ncmd = {json.dumps(c)}\nrestart = "never"\n\n')
        env = dict(os.environ, SWARM_DIR=os.path.join(self.work, ".swarm"))
        outer = None
        if self.tui:
            outer = f"swarmbenchui{os.getpid()}"
            subprocess.run(["tmux", "-L", outer, "-f", "/dev/null", "new-session", "-d", "-x", str(self.cols), "-y",
                            str(self.rows), f"cd {self.work} && exec {self.binary} up --config {cfg}"], check=True, env=env)
            wait_for(lambda: self._pid_of_ui(outer) is not None, 30, "swarm's UI")
            pid = self._pid_of_ui(outer)
            proc = None
            # The agents run in swarm's server; the UI attaches to it:
            # both are the terminal program.
            bus = os.path.join(self.work, ".swarm")
            wait_for(lambda: self._server_pid(bus) is not None, 30, "swarm's server")
            pids = [pid, self._server_pid(bus)]
        else:
            proc = subprocess.Popen([self.binary, "up", "--headless", "--config", cfg], cwd=self.work, env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            pid = proc.pid
            pids = [pid]
        try:
            return measure(pids, self.work, len(cmds), idle_seconds)
        finally:
            if proc is not None:
                proc.send_signal(signal.SIGINT)
                try:
                    proc.wait(15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            if outer:
                subprocess.run([self.binary, "stop"], env=env, capture_output=True)  # the server, then the UI
                wait_for(lambda: not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] == "Z",
                         15, "swarm's UI to end")
                subprocess.run(["tmux", "-L", outer, "kill-server"], capture_output=True)

    def _server_pid(self, bus):
        r = subprocess.run([self.binary, "ls", "--json"], capture_output=True, text=True)
        for line in r.stdout.splitlines():
            s = json.loads(line)
            if os.path.realpath(s["bus_dir"]) == os.path.realpath(bus):
                return s["pid"]
        return None

    @staticmethod
    def _pid_of_ui(outer):
        r = subprocess.run(["tmux", "-L", outer, "display", "-p", "#{pane_pid}"], capture_output=True, text=True)
        return int(r.stdout) if r.returncode == 0 and r.stdout.strip() else None


def one_run(system, load, a, work):
    for f in os.listdir(work):
        if f.endswith(".out"):
            os.remove(os.path.join(work, f))
    if load == "one":
        cmds = [writer_cmd(os.path.join(work, "w0.out"), "flood", a.mb, 0)]
        cpu, wall, rss, anon = system.run(cmds)
    elif load == "redraw":
        cmds = [writer_cmd(os.path.join(work, f"w{i}.out"), "redraw", a.mb, 0) for i in range(a.panes)]
        cpu, wall, rss, anon = system.run(cmds)
    elif load in ("many", "soak"):
        cmds = [writer_cmd(os.path.join(work, f"w{i}.out"), "rate", a.rate, a.seconds) for i in range(a.panes)]
        cpu, wall, rss, anon = system.run(cmds)
    else:
        cmds = ["sh"] * 4
        cpu, wall, rss, anon = system.run(cmds, idle_seconds=a.seconds)
        return {"cpu": cpu, "wall": wall, "rss": rss, "anon": anon, "cores": cpu / wall, "rates": []}
    rates = results(work, len(cmds))
    return {"cpu": cpu, "wall": wall, "rss": rss, "anon": anon, "cores": cpu / wall, "rates": rates}


def describe(r, load, a):
    if load == "idle":
        return f"CPU {100 * r['cores']:.2f} %, RSS {r['rss']:.0f} MiB (anonymous {r['anon']:.1f})"
    rates = r["rates"]
    mb = {"one": a.mb, "redraw": a.mb * len(rates)}.get(load, sum(rates) * a.seconds)
    s = f"{min(rates):.2f}–{max(rates):.2f} MB/s per writer" if len(rates) > 1 else f"{rates[0]:.2f} MB/s"
    return (f"{s}, {r['cpu']:.2f} CPU-s ({r['cpu'] / mb:.3f} per MB, {r['cores']:.2f} cores), "
            f"peak RSS {r['rss']:.1f} MiB (anonymous {r['anon']:.1f} at the end)")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--swarm", default=None, help="swarm binary, run with the swarm-server beside it when that is of the same build (default: build both)")
    p.add_argument("--load", default="all", choices=["one", "many", "redraw", "idle", "soak", "hundred", "all"])
    p.add_argument("--idle", type=float, default=30, help="hundred: seconds of idle CPU measured after the writers; "
                   "redraw: seconds after the writers before the anonymous memory is read")
    p.add_argument("--sample", type=float, default=10, help="soak: seconds between RSS samples")
    p.add_argument("--plot", default=None, help="soak: the SVG to draw RSS over time into")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--mb", type=float, default=50)
    p.add_argument("--panes", type=int, default=16)
    p.add_argument("--rate", type=float, default=1.0)
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--cols", type=int, default=160)
    p.add_argument("--rows", type=int, default=48)
    p.add_argument("--tui", action="store_true", help="run swarm's UI (inside a tmux of its own) instead of headless, "
                   "beside tmux with its panes tiled in one window and a client attached")
    p.add_argument("--tmux-detached", action="store_true",
                   help="with --tui: compare with tmux as headless does (detached, a full-size window per writer)")
    p.add_argument("--history", type=int, default=None,
                   help="rows of history each pane keeps, in both: tmux's history-limit and swarm's [ui] scrollback "
                        "(2000 is tmux's default); each its own default when left out")
    p.add_argument("--startup", type=float, default=3,
                   help="seconds left to pass before idle CPU is measured: starting is not idling (65: after the agents' "
                        "first minute, when the UI shows their ages in minutes)")
    a = p.parse_args()
    global ARGS
    ARGS = a
    if not shutil.which("tmux"):
        sys.exit("bench: tmux is not installed")
    work = tempfile.mkdtemp(prefix="swarm-bench-")
    binary = a.swarm
    if binary is None:
        # Both binaries, as the README builds them: swarm runs its
        # server as swarm-server when that is beside it, of the same build.
        binary = os.path.join(work, "swarm")
        subprocess.run(["go", "build", "-o", work + "/", ".", "./cmd/swarm-server"],
                       cwd=os.path.join(HERE, "..", ".."), check=True)
    binary = os.path.abspath(binary)
    loads = ["one", "many", "idle"] if a.load == "all" else [a.load]
    history = "each its default" if a.history is None else f"{a.history} rows each"
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; {time.strftime('%Y-%m-%d %H:%M')}; "
          f"swarm {'TUI' if a.tui else 'headless'}; history {history}")
    if a.load == "hundred":
        hundred(binary, work, a)
        shutil.rmtree(work, ignore_errors=True)
        return
    if a.load == "soak":
        r = one_run(Swarm(binary, work, a.cols, a.rows, a.tui), "soak", a, work)
        print(f"soak: swarm: {describe(r, 'many', a)}")
        half = [rss for t, rss in SAMPLES if t >= SAMPLES[-1][0] / 2]
        print(f"soak: RSS over the second half {min(half):.1f}–{max(half):.1f} MiB; load average "
              f"{os.getloadavg()[0]:.1f} at the end")
        if a.plot:
            plot_svg(a.plot, SAMPLES, f"swarm {a.panes} panes × {a.rate * 1000:.0f} KB/s, history {history}: RSS")
        shutil.rmtree(work, ignore_errors=True)
        return
    for load in loads:
        sw = Swarm(binary, work, a.cols, a.rows, a.tui)
        tm = TmuxShown(work, a.cols, a.rows) if a.tui and not a.tmux_detached else Tmux(work, HEADLESS_COLS,
                                                                                     HEADLESS_ROWS)
        pairs = []
        for rep in range(a.reps):
            rs = one_run(sw, load, a, work)
            rt = one_run(tm, load, a, work)
            pairs.append((rs, rt))
            print(f"{load} #{rep + 1}: {sw.name}: {describe(rs, load, a)}")
            print(f"{load} #{rep + 1}: {tm.name}: {describe(rt, load, a)}")
        if load != "idle":
            speed = [statistics.mean(s["rates"]) / statistics.mean(t["rates"]) for s, t in pairs]
            cpu = [s["cpu"] / max(t["cpu"], 1e-9) for s, t in pairs]
            print(f"{load}: swarm/tmux writer speed {min(speed):.2f}–{max(speed):.2f}×, CPU {min(cpu):.2f}–{max(cpu):.2f}×")
        mem = [s["rss"] / max(t["rss"], 1e-9) for s, t in pairs]
        anon = [s["anon"] / max(t["anon"], 1e-9) for s, t in pairs]
        print(f"{load}: swarm/tmux peak RSS {min(mem):.2f}–{max(mem):.2f}×, anonymous {min(anon):.2f}–{max(anon):.2f}×")
        print(f"{load}: load average {os.getloadavg()[0]:.1f} at the end")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
