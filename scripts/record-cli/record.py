#!/usr/bin/env python3
"""record.py: record a real agent CLI's session for swarm's golden tests.

    record.py CONFIG COLSxROWS OUTDIR

CONFIG is one of: claude (fullscreen, alternate screen), claude-inline
(CLAUDE_CODE_DISABLE_ALTERNATE_SCREEN=1), codex (alternate screen),
codex-inline (--no-alt-screen), gemini, opencode. The CLIs must be on PATH
(see ../shared/agents/OFFLINE.md of the steering repo: npm install
@anthropic-ai/claude-code @openai/codex @google/gemini-cli opencode-ai).
No AI service is needed: each CLI runs offline with a dummy key, and its
shell mode (`!command`) prints files inside its real UI.

It writes OUTDIR/CONFIG-COLSxROWS.cast (asciicast v2, made by ptyrec.py
inside a tmux pane, which answers the CLI's terminal queries),
OUTDIR/CONFIG-COLSxROWS.want (the relay commands printed, one JSON object
per line, in order; "after_resize" marks those printed after the first
resize, which comes last) and OUTDIR/CONFIG-COLSxROWS.steps.txt (what the screen
showed after each step, for checking the .want by eye).

The steps: a plain relay line, a block, a relay line long enough to wrap,
two identical lines, a thinking line, traffic that scrolls the transcript
(six commands, each a relay line and filler), the first file again, a
resize and a relay line after it; on the alternate screen the transcript is
scrolled back and forth; Claude Code's inline renderer gets a prompt taller
than the screen, which makes Ink repaint everything (clear screen and
scrollback, all static output again) on every frame.
"""
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PTYREC = os.path.join(HERE, "ptyrec.py")

LONG = "@relay:bob long " + " ".join("w%03d" % i for i in range(1, 60))


def files():
    """The files the steps print, and the commands each holds."""
    f = {
        "m1.txt": ("@relay:bob plain hello from the CLI\n",
                   [("relay", "plain hello from the CLI")]),
        "m2.txt": ('[[RELAY]]\n{"to":"bob","type":"message","body":"block body","topic":"t1"}\n[[/RELAY]]\n',
                   [("relay", "block body", "t1")]),
        "m3.txt": (LONG + "\n", [("relay", LONG[len("@relay:bob "):])]),
        "m4.txt": ("@relay:bob twice\n@relay:bob twice\n", [("relay", "twice"), ("relay", "twice")]),
        "m5.txt": ("@thinking:bob pondering the next step\n", [("thinking", "pondering the next step")]),
        "m6.txt": ("@relay:bob after the resize\n", [("relay", "after the resize")]),
        "m7.txt": ("@relay:bob after the repaint\n", [("relay", "after the repaint")]),
    }
    for k in range(1, 7):
        body = "@relay:bob tick %d\n" % k + "".join("filler %d.%d of the traffic\n" % (k, j) for j in range(1, 6))
        f["t%d.txt" % k] = (body, [("relay", "tick %d" % k)])
    return f


class Session:
    def __init__(self, config, cols, rows, outdir):
        self.config, self.cols, self.rows = config, cols, rows
        self.name = "%s-%dx%d" % (config, cols, rows)
        self.base = "/tmp/rec-%s-%d" % (self.name, os.getpid())
        self.home = self.base + "/home"
        self.work = self.base + "/work"
        self.fifo = self.base + "/ctl.fifo"
        self.sock = "rec-%d" % os.getpid()
        self.out = os.path.join(outdir, self.name)
        self.want = []
        self.steps = []
        self.resized = False
        os.makedirs(self.home)
        os.makedirs(self.work)
        for name, (text, _) in files().items():
            with open(os.path.join(self.work, name), "w") as fh:
                fh.write(text)

    # --- the CLIs ---

    def setup(self):
        env = {"TERM": "xterm-256color", "HOME": self.home, "PATH": os.environ["PATH"]}
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
            argv = ["codex"] + (["--no-alt-screen"] if c == "codex-inline" else [])
            return env, argv, "Ask Codex"
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
            return env, ["opencode"], "Ask anything"
        raise SystemExit("unknown config " + c)

    def start(self):
        env, argv, self.ready = self.setup()
        if not shutil.which(argv[0]):
            raise SystemExit("%s is not on PATH (see the docstring)" % argv[0])
        cmd = ["env", "-i"] + ["%s=%s" % kv for kv in env.items()] + \
            ["python3", PTYREC, "--out", self.out + ".cast", "--fifo", self.fifo, "--title", self.name, "--"] + argv
        subprocess.run(["tmux", "-L", self.sock, "new-session", "-d", "-x", str(self.cols), "-y", str(self.rows),
                        "-c", self.work, " ".join(shq(a) for a in cmd)], check=True)
        self.wait_for(self.ready, 60)
        time.sleep(3)  # the prompt shows before the CLI takes keys

    # --- driving ---

    def screen(self):
        r = subprocess.run(["tmux", "-L", self.sock, "capture-pane", "-p"], capture_output=True, text=True)
        return r.stdout

    def wait_for(self, text, timeout=15):
        end = time.time() + timeout
        while time.time() < end:
            if text in self.screen():
                return True
            time.sleep(0.2)
        return False

    def send(self, data):
        fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
        try:
            os.write(fd, data.encode())
        finally:
            os.close(fd)

    def type_line(self, text):
        """Types text, then Enter after a pause, as a person does."""
        self.send(text)
        time.sleep(0.6)
        self.send("\r")

    def idle(self, timeout=30):
        """Waits until the CLI shows its prompt and is not busy."""
        end = time.time() + timeout
        while time.time() < end:
            scr = self.screen()
            if self.ready in scr and "esc to interrupt" not in scr and "esc to cancel" not in scr:
                return True
            time.sleep(0.3)
        return False

    def shell(self, command, expect):
        """Runs command in the CLI's shell mode and waits for expect."""
        c = self.config
        self.idle()
        if c == "gemini":
            self.type_line(command)  # shell mode stays on (entered once)
        elif c == "opencode":
            self.send("!")
            time.sleep(0.5)
            self.type_line(command)
        else:
            self.type_line("!" + command)
        ok = self.wait_for(expect, 15)
        time.sleep(1.0)
        if c.startswith("claude"):
            # Claude then tries the API it cannot reach: Esc stops it.
            for _ in range(3):
                self.send("\x1b")
                time.sleep(0.8)
                if self.idle(3):
                    break
        return ok

    def note(self, what):
        self.steps.append("=== %s\n%s" % (what, self.screen()))

    def print_file(self, name, expect=None):
        text, cmds = files()[name]
        first = text.splitlines()[0]
        shown = self.shell("cat " + name, expect or first[:20])
        self.note("cat " + name + ("" if shown else " (its text did not show: not expected)"))
        if shown:
            self.want.extend(c + (self.resized,) for c in cmds)

    def resize(self, cols, rows):
        subprocess.run(["tmux", "-L", self.sock, "resize-window", "-x", str(cols), "-y", str(rows)], check=True)
        time.sleep(2)
        self.note("resized to %dx%d" % (cols, rows))

    def run(self):
        self.start()
        self.note("started")
        if self.config == "gemini":
            self.send("!")  # persistent shell mode
            time.sleep(1)
        for f in ["m1.txt", "m2.txt", "m3.txt", "m4.txt", "m5.txt"]:
            self.print_file(f)
        for k in range(1, 7):
            self.print_file("t%d.txt" % k)
        self.print_file("m1.txt")
        if self.config in ("claude", "codex", "opencode"):
            for key in ["\x1b[5~", "\x1b[5~", "\x1b[5~", "\x1b[6~", "\x1b[6~", "\x1b[6~"]:
                self.send(key)
                time.sleep(0.7)
            self.note("scrolled back and forth")
            if self.config == "codex":
                self.send("\x1b")  # back to the bottom
                time.sleep(0.7)
        if self.config == "claude-inline":
            # A prompt taller than the screen: Ink's live area outgrows
            # it and every frame becomes a full repaint.
            tall = "\n".join("line %d of a tall prompt" % i for i in range(self.rows + 6))
            self.send("\x1b[200~" + tall + "\x1b[201~")
            time.sleep(2)
            self.send("x")
            time.sleep(1)
            self.note("a tall prompt")
            self.send("\x03")  # Ctrl-C clears the prompt
            time.sleep(1.5)
            self.print_file("m7.txt")
        # The resize comes last: what comes before it can be replayed
        # without its timing and sizes too (.want marks what follows it).
        w, h = (100, 30) if self.cols == 80 else (90, 30)
        self.resize(w, h)
        self.resized = True
        self.print_file("m6.txt")
        self.resize(self.cols, self.rows)
        self.quit()

    def quit(self):
        c = self.config
        if c.startswith("claude") or c == "gemini":
            if c == "gemini":
                self.send("\x1b")  # leave shell mode
                time.sleep(0.5)
            self.type_line("/quit" if c == "gemini" else "/exit")
        else:
            self.send("\x03")
            time.sleep(0.5)
            try:
                self.send("\x03")
            except OSError:
                pass
        time.sleep(3)
        subprocess.run(["tmux", "-L", self.sock, "kill-server"], capture_output=True)
        pid = self.home + "/.codex/app-server-daemon/daemon.pid"
        if os.path.exists(pid):
            try:
                os.kill(int(open(pid).read().strip()), 15)
            except (ValueError, OSError):
                pass
        with open(self.out + ".want", "w") as fh:
            for c in self.want:
                d = {"kind": c[0], "to": "bob", "type": "message", "body": c[1]}
                if len(c) > 3:
                    d["topic"] = c[2]
                if c[-1]:
                    d["after_resize"] = True
                fh.write(json.dumps(d) + "\n")
        with open(self.out + ".steps.txt", "w") as fh:
            fh.write("\n".join(self.steps))
        shutil.rmtree(self.base, ignore_errors=True)


def shq(s):
    return "'" + s.replace("'", "'\\''") + "'"


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    config, size, outdir = sys.argv[1:]
    cols, rows = (int(x) for x in size.split("x"))
    os.makedirs(outdir, exist_ok=True)
    Session(config, cols, rows, outdir).run()


if __name__ == "__main__":
    main()
