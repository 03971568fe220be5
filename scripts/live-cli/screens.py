#!/usr/bin/env python3
"""screens.py: record the screens of real agent CLIs for swarm's screen model.

    screens.py OUTDIR [NAME-FILTER...] [--size COLSxROWS] [--as-tester]

Each scenario starts a CLI (or bash, cat, vim, less) in a tmux pane through
../record-cli/ptyrec.py (tmux answers the CLI's terminal queries; ptyrec
records), drives it with keys to one screen state and ends the recording
there: OUTDIR/KIND-STATE-DETAIL-COLSxROWS[-tester].cast, whose last screen
is that state. STATE is prompt-empty, prompt-typed, busy, dialog, shell or
unknown; screenmodel's tests replay each recording and classify its last
screen. OUTDIR/versions.txt gets the versions of the programs.

A scenario runs with a scratch HOME of its own: "fresh" ones start with
nothing answered (Claude Code has only hasCompletedOnboarding, as a new user
past the theme picker), the others with the trust, sign-in and API-key
answers written in advance (see shared/agents/OFFLINE.md). No AI service is
reached: a turn tries the unreachable API, which keeps the CLI busy.

--as-tester runs the program as the user tester (runuser), with a HOME of its
own, as a normal user sees it.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PTYREC = os.path.join(HERE, "..", "record-cli", "ptyrec.py")
KEY = "sk-ant-api03-" + "A" * 40
ESC, UP, ENTER = "\x1b", "\x1b[A", "\r"


class Run:
    def __init__(self, name, cols, rows, outdir, tester):
        self.name, self.cols, self.rows, self.tester = name, cols, rows, tester
        self.base = "/tmp/screens-%s-%d" % (name, os.getpid())
        self.home, self.work = self.base + "/home", self.base + "/work"
        self.fifo = self.base + "/ctl.fifo"
        self.sock = "screens-%d" % os.getpid()
        suffix = "-tester" if tester else ""
        self.out = os.path.join(outdir, "%s-%dx%d%s.cast" % (name, cols, rows, suffix))
        os.makedirs(self.home)
        os.makedirs(self.work)
        os.mkfifo(self.fifo)
        if tester:
            os.chmod(self.base, 0o755)
            subprocess.run(["chown", "-R", "tester:tester", self.base], check=True)

    def write(self, path, data):
        path = os.path.join(self.home, path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(data if isinstance(data, str) else json.dumps(data))
        if self.tester:
            subprocess.run(["chown", "-R", "tester:tester", self.home], check=True)

    def start(self, argv, env):
        env = dict(env, TERM="xterm-256color", HOME=self.home, PATH=os.environ["PATH"], LANG="C.UTF-8")
        cast = self.base + "/rec.cast"
        cmd = ["env", "-i"] + ["%s=%s" % kv for kv in env.items()] + \
            ["python3", PTYREC, "--out", cast, "--fifo", self.fifo, "--title", self.name, "--"] + argv
        if self.tester:
            cmd = ["runuser", "-u", "tester", "--"] + cmd
        subprocess.run(["tmux", "-L", self.sock, "new-session", "-d", "-x", str(self.cols), "-y", str(self.rows),
                        "-c", self.work, " ".join(shq(a) for a in cmd)], check=True)
        self.cast = cast

    def screen(self):
        r = subprocess.run(["tmux", "-L", self.sock, "capture-pane", "-p"], capture_output=True, text=True)
        return r.stdout

    def wait(self, text, timeout=40):
        end = time.time() + timeout
        while time.time() < end:
            if text in self.screen():
                return True
            time.sleep(0.3)
        raise RuntimeError("%s: %r never showed; the screen:\n%s" % (self.name, text, self.screen()))

    def gone(self, text, timeout=20):
        end = time.time() + timeout
        while time.time() < end:
            if text not in self.screen():
                return True
            time.sleep(0.3)
        raise RuntimeError("%s: %r never went; the screen:\n%s" % (self.name, text, self.screen()))

    def keys(self, data, pause=0.6):
        fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
        try:
            os.write(fd, data.encode())
        finally:
            os.close(fd)
        time.sleep(pause)

    def line(self, text):
        """Types text, then Enter after a pause, as a person does."""
        self.keys(text)
        self.keys(ENTER)

    def submit(self, text, expect):
        """Types text and Enter until expect shows: a CLI that has just
        drawn its prompt, or a popup, may take the first Enter as
        something else."""
        self.line(text)
        for _ in range(3):
            end = time.time() + 8
            while time.time() < end:
                if expect in self.screen():
                    return
                time.sleep(0.3)
            self.keys(ENTER)
        self.wait(expect, 5)

    def finish(self, settle=2.0):
        """Ends the recording on the screen shown now: the program is
        killed, so that nothing it draws on its way out is recorded."""
        time.sleep(settle)
        pids = self.pids()
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        subprocess.run(["tmux", "-L", self.sock, "kill-server"], capture_output=True)
        time.sleep(0.5)
        for p in self.pids():  # a daemon (Codex's app-server) started meanwhile
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        shutil.copyfile(self.cast, self.out)
        shutil.rmtree(self.base, ignore_errors=True)

    def pids(self):
        """The processes started from this run's scratch directory (by their
        command line or their working directory), ptyrec excepted: it must
        live to write the recording's last events."""
        out = []
        for p in os.listdir("/proc"):
            if not p.isdigit() or int(p) == os.getpid():
                continue
            try:
                cmd = open("/proc/%s/cmdline" % p, "rb").read().decode(errors="replace")
                env = open("/proc/%s/environ" % p, "rb").read().decode(errors="replace")
            except OSError:
                continue
            if "ptyrec.py" in cmd or cmd.split("\0")[0] in ("tmux", "runuser"):
                continue
            if self.home in env or self.base in cmd:
                out.append(int(p))
        return out


# --- the programs, set up prepared or fresh ---

def claude(r, fresh=False, inline=False, mcp=False):
    if fresh:
        r.write(".claude.json", {"hasCompletedOnboarding": True})
    else:
        r.write(".claude.json", {"hasCompletedOnboarding": True,
                                 "customApiKeyResponses": {"approved": [KEY[-20:]], "rejected": []},
                                 "projects": {r.work: {"hasTrustDialogAccepted": True, "allowedTools": []}}})
    env = dict(ANTHROPIC_API_KEY=KEY, DISABLE_AUTOUPDATER="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    if inline:
        env["CLAUDE_CODE_DISABLE_ALTERNATE_SCREEN"] = "1"
    argv = ["claude"]
    if mcp:
        cfg = r.base + "/mcp.json"
        with open(cfg, "w") as fh:
            json.dump({"mcpServers": {"swarm": {"type": "stdio", "command": "cat", "args": []}}}, fh)
        os.chmod(cfg, 0o644)
        argv += ["--mcp-config", cfg]
    r.start(argv, env)
    if not fresh:
        r.wait("❯")
        r.wait("──")
        time.sleep(3)  # the prompt shows before the CLI takes keys


def codex(r, fresh=False, inline=False, git=False):
    if git:
        subprocess.run(["git", "init", "-q", r.work], check=True)
        if r.tester:
            subprocess.run(["chown", "-R", "tester:tester", r.work], check=True)
    if not fresh:
        r.write(".codex/auth.json", {"auth_mode": "apikey", "OPENAI_API_KEY": "sk-dummy"})
        if not git:
            r.write(".codex/config.toml", '[projects."%s"]\ntrust_level = "trusted"\n' % r.work)
    r.start(["codex"] + (["--no-alt-screen"] if inline else []), dict(OPENAI_API_KEY="sk-dummy"))
    if not fresh and not git:
        r.wait("? for shortcuts")
        time.sleep(3)


def gemini(r, fresh=False):
    if not fresh:
        r.write(".gemini/settings.json", {"security": {"auth": {"selectedType": "gemini-api-key"}}})
        r.write(".gemini/trustedFolders.json", {r.work: "TRUST_FOLDER"})
    r.start(["gemini"], dict(GEMINI_API_KEY="dummy"))
    if not fresh:
        r.wait("Type your message")
        time.sleep(3)


def opencode(r):
    r.start(["opencode"], dict(OPENAI_API_KEY="sk-dummy"))
    r.wait("Ask anything", 90)
    time.sleep(3)


# --- the scenarios: name -> what brings the program to that screen ---

def s(fn):
    SCENARIOS[fn.__name__.replace("_", "-")] = fn
    return fn


SCENARIOS = {}


@s
def claude_dialog_trust(r):
    claude(r, fresh=True)
    r.wait("Yes, I trust this folder")


@s
def claude_dialog_apikey(r):
    claude(r, fresh=True)
    r.wait("Yes, I trust this folder")
    time.sleep(1)
    r.keys(UP)
    r.keys(ENTER)
    r.wait("Do you want to use this API key?")


@s
def claude_prompt_empty(r):
    claude(r)


@s
def claude_prompt_typed(r):
    claude(r)
    r.keys("half typed by a person")


@s
def claude_dialog_commands(r):
    claude(r)
    r.keys("/")
    r.wait("/add-dir")


@s
def claude_dialog_mcp(r):
    claude(r, mcp=True)
    r.line("/mcp")
    r.wait("Esc to close")


@s
def claude_shell_bang(r):
    claude(r)
    r.keys("!")
    r.wait("shell mode")


@s
def claude_shell_typed(r):
    claude(r)
    r.keys("!")
    r.keys("ls -la")


@s
def claude_busy_retrying(r):
    claude(r)
    r.line("hello")
    r.wait("esc to interrupt")
    r.wait("attempt")


@s
def claude_busy_queued(r):
    claude(r)
    r.line("hello")
    r.wait("esc to interrupt")
    r.line("a second message")
    r.wait("Queued")


@s
def claude_prompt_after_esc(r):
    claude(r)
    r.line("hello")
    r.wait("esc to interrupt")
    time.sleep(2)
    r.keys(ESC, 1.5)
    r.gone("esc to interrupt")
    r.keys("\x03", 1)  # Claude puts the interrupted prompt back: Ctrl-C clears it


@s
def claude_inline_prompt_empty(r):
    claude(r, inline=True)


@s
def claude_inline_busy_retrying(r):
    claude(r, inline=True)
    r.line("hello")
    r.wait("esc to interrupt")


@s
def claude_inline_dialog_trust(r):
    claude(r, fresh=True, inline=True)
    r.wait("Yes, I trust this folder")


@s
def codex_dialog_signin(r):
    codex(r, fresh=True)
    r.wait("Sign in with ChatGPT")


@s
def codex_dialog_apikey(r):
    codex(r, fresh=True)
    r.wait("Sign in with ChatGPT")
    time.sleep(1)
    r.keys("3", 1.5)
    r.wait("Use an OpenAI API key")
    r.keys(ENTER, 1.5)
    r.wait("Press enter to save")


@s
def codex_dialog_trust(r):
    codex(r, git=True)
    r.wait("Trust this folder?")


@s
def codex_prompt_empty(r):
    codex(r)


@s
def codex_prompt_typed(r):
    codex(r)
    r.keys("half typed by a person")


@s
def codex_dialog_commands(r):
    codex(r)
    r.keys("/")
    r.wait("/model")


@s
def codex_dialog_model(r):
    codex(r)
    r.submit("/model", "Select Model")


@s
def codex_shell_bang(r):
    codex(r)
    r.keys("!")
    r.wait("Shell mode")


@s
def codex_busy_working(r):
    codex(r)
    r.submit("hello", "esc to interrupt")


@s
def codex_busy_reconnecting(r):
    codex(r)
    r.submit("hello", "esc to interrupt")
    r.wait("Reconnecting")


@s
def codex_prompt_after_esc(r):
    codex(r)
    r.submit("hello", "esc to interrupt")
    time.sleep(2)
    r.keys(ESC, 1.5)
    r.wait("interrupted")


@s
def codex_inline_prompt_empty(r):
    codex(r, inline=True)


@s
def codex_inline_busy_working(r):
    codex(r, inline=True)
    r.submit("hello", "esc to interrupt")


@s
def gemini_dialog_trust(r):
    gemini(r, fresh=True)
    r.wait("Do you trust the files in this folder?")


@s
def gemini_dialog_auth(r):
    gemini(r, fresh=True)
    r.wait("Do you trust the files in this folder?")
    time.sleep(1)
    r.keys(ENTER, 2)
    r.wait("How would you like to authenticate")


@s
def gemini_dialog_apikey(r):
    gemini(r, fresh=True)
    r.wait("Do you trust the files in this folder?")
    time.sleep(1)
    r.keys(ENTER, 2)
    r.wait("How would you like to authenticate")
    time.sleep(1)
    r.keys(ENTER, 2)
    r.wait("Enter Gemini API Key")


@s
def gemini_prompt_empty(r):
    gemini(r)


@s
def gemini_prompt_typed(r):
    gemini(r)
    r.keys("half typed by a person")


@s
def gemini_dialog_commands(r):
    gemini(r)
    r.keys("/")
    r.wait("Clear the screen")


@s
def gemini_shell_bang(r):
    gemini(r)
    r.keys("!")
    r.wait("shell mode enabled")


@s
def gemini_shell_after_command(r):
    gemini(r)
    r.keys("!")
    r.wait("shell mode enabled")
    r.line("ls")
    r.wait("Shell Command")


@s
def gemini_busy_thinking(r):
    gemini(r)
    r.line("hello")
    r.wait("esc to cancel")


@s
def gemini_busy_queued(r):
    gemini(r)
    r.line("hello")
    r.wait("esc to cancel")
    r.line("a second message")
    r.wait("Queued")


@s
def gemini_prompt_after_esc(r):
    gemini(r)
    r.line("hello")
    r.wait("esc to cancel")
    time.sleep(2)
    r.keys(ESC, 1.5)
    r.wait("Request cancelled")
    r.gone("esc to cancel")


@s
def opencode_prompt_empty(r):
    opencode(r)


@s
def opencode_prompt_typed(r):
    opencode(r)
    r.keys("half typed by a person")


@s
def opencode_prompt_after_turn(r):
    # After a message the box is drawn without its placeholder.
    opencode(r)
    r.line("hello")
    r.wait("esc interrupt")
    time.sleep(2)
    r.keys(ESC, 1)
    r.keys(ESC, 1.5)
    r.gone("[retrying")


@s
def opencode_shell_bang(r):
    opencode(r)
    r.keys("!")
    r.wait("exit shell mode")


@s
def opencode_busy_working(r):
    opencode(r)
    r.line("hello")
    r.wait("esc interrupt")


@s
def opencode_busy_retrying(r):
    opencode(r)
    r.line("hello")
    r.wait("[retrying")


@s
def opencode_dialog_palette(r):
    opencode(r)
    r.keys("\x10", 1.5)  # Ctrl-P
    r.wait("Commands")


@s
def opencode_dialog_commands(r):
    opencode(r)
    r.keys("/")
    r.wait("Switch agent")


@s
def shell_shell_prompt(r):
    r.start(["bash", "--norc", "-i"], dict(PS1="\\u@\\h:\\w\\$ "))
    r.wait("/work")


@s
def shell_busy_sleep(r):
    r.start(["bash", "--norc", "-i"], dict(PS1="\\u@\\h:\\w\\$ "))
    r.wait("/work")
    r.line("sleep 100")


@s
def reader_prompt_python(r):
    r.start(["python3", "-c", "import sys\nwhile True: print('got', input('name? '))"], {})
    r.wait("name?")


@s
def editor_unknown_vim(r):
    with open(r.work + "/notes.txt", "w") as fh:
        fh.write("my notes\n")
    r.start(["vim", "-u", "NONE", "notes.txt"], {})
    r.wait("notes.txt")


@s
def editor_unknown_vim_insert(r):
    with open(r.work + "/notes.txt", "w") as fh:
        fh.write("my notes\n")
    r.start(["vim", "-u", "NONE", "-N", "-c", "set showmode", "notes.txt"], {})
    r.wait("notes.txt")
    r.keys("i", 1)
    r.wait("INSERT")


@s
def viewer_unknown_less(r):
    with open(r.work + "/big.txt", "w") as fh:
        fh.write("".join("%d\n" % i for i in range(1, 2001)))
    r.start(["less", "big.txt"], {})
    r.wait("1")


def versions(outdir):
    lines = []
    for c in [["claude", "--version"], ["codex", "--version"], ["gemini", "--version"], ["opencode", "--version"],
              ["bash", "--version"], ["vim", "--version"], ["less", "--version"]]:
        try:
            v = subprocess.run(c, capture_output=True, text=True, timeout=60).stdout.splitlines()[0]
        except (OSError, IndexError, subprocess.TimeoutExpired):
            v = "(not found)"
        lines.append("%s: %s" % (c[0], v.strip()))
    with open(os.path.join(outdir, "versions.txt"), "w") as fh:
        fh.write("\n".join(lines) + "\n")


def shq(s):
    return "'" + s.replace("'", "'\\''") + "'"


def main():
    args = sys.argv[1:]
    if not args:
        raise SystemExit(__doc__)
    size, tester = "100x30", False
    if "--size" in args:
        i = args.index("--size")
        size = args[i + 1]
        del args[i:i + 2]
    if "--as-tester" in args:
        args.remove("--as-tester")
        tester = True
    outdir, filters = args[0], args[1:]
    cols, rows = (int(x) for x in size.split("x"))
    os.makedirs(outdir, exist_ok=True)
    versions(outdir)
    failed = 0
    for name, fn in SCENARIOS.items():
        if filters and not any(f in name for f in filters):
            continue
        print("==", name, size, "as tester" if tester else "", flush=True)
        r = Run(name, cols, rows, outdir, tester)
        try:
            fn(r)
            r.finish()
        except Exception as e:  # noqa: BLE001 - report and go on with the next
            print("   failed:", e, flush=True)
            failed += 1
            try:
                r.finish(0)
                os.remove(r.out)
            except OSError:
                pass
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
