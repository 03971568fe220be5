package supervisor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"swarm/bus"
	"swarm/internal/testrun"
	"swarm/screenmodel"
)

// testShells are the interactive shells the tests below run, each as a
// person's config would name it; those not installed here are left out
// (bash and dash, at least, are everywhere the tests run).
var testShells = [][]string{

	{"bash"}, {"dash"}, {"sh"}, {"zsh"}, {"fish"}, {"tcsh"}, {"ksh"}, {"mksh"}, {"yash"},
	{"busybox", "sh"}, {"elvish"}, {"nu"}, {"xonsh"},
}

// shellAgent is an agent running an interactive shell in dir, which is
// also its home (no rc files of the machine's user; an empty .zshrc, else
// zsh asks how to set itself up).
func shellAgent(t *testing.T, name string, argv []string, dir string) AgentConfig {
	home := dir
	if err := os.WriteFile(filepath.Join(home, ".zshrc"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	path := os.Getenv("PATH")
	if nu, err := exec.LookPath("nu"); err == nil {
		path += ":" + filepath.Dir(nu)
	}
	return AgentConfig{
		Name: name, Argv: argv, Cmd: strings.Join(argv, " "), Dir: dir,
		Env:     map[string]string{"HOME": home, "PATH": path, "LANG": "C.UTF-8", "XDG_CONFIG_HOME": filepath.Join(home, ".config")},
		Restart: RestartNever, Confirm: true, Quiet: 100 * time.Millisecond,
		NoMessages: AgentConfig{Argv: argv}.Profile().NoMessages,
	}
}

// wrapsItself: shells whose line editor breaks a long line over rows
// itself (the terminal does not wrap it), so that the end of a long
// message, where its id is, may be on a row of its own: it is typed and
// submitted, but may be judged unconfirmed.
var wrapsItself = map[string]bool{"elvish": true, "xonsh": true, "busybox-sh": true}

// installedShells returns the testShells found on PATH (nu also where
// the tests' npm install puts it).
func installedShells() [][]string {
	var out [][]string
	for _, argv := range testShells {
		if _, err := exec.LookPath(argv[0]); err == nil {
			out = append(out, argv)
		}
	}
	return out
}

// A shell's pane runs what is typed into it: swarm sends it no messages
// unless its config says messages = true — a broadcast leaves it out, a
// message to it fails at once, saying why.
func TestAShellTakesNoMessagesByDefault(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	dir := t.TempDir()
	bash := shellAgent(t, "bash", []string{"bash"}, dir)
	h.run(Options{}, bash, scripted("b", "listen", map[string]string{"LOG": h.path("b.log")}))
	h.running("bash")
	h.running("b")
	all := h.send(bus.Message{To: "*", Body: "hello all\ntouch BROADCAST"})
	if len(all.Deliveries) != 1 || all.Deliveries[0].Recipient != "b" {
		t.Errorf("a broadcast went to %+v", all.Deliveries)
	}
	direct := h.send(bus.Message{To: "bash", Body: "touch DIRECT"})
	if d := direct.Deliveries[0]; d.State != bus.DeliveryFailed || !strings.Contains(d.Error, `"bash" takes no messages`) || !strings.Contains(d.Error, "a shell") {
		t.Errorf("a message to bash: %+v", d)
	}
	h.waitFor("b read the broadcast", func() bool { return len(readLines(h.path("b.log"))) == 1 })
	// What a person types still reaches the shell.
	if err := h.sup.SendKeys("bash", []byte("touch TYPED\r")); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the person's command ran", func() bool { _, err := os.Stat(filepath.Join(dir, "TYPED")); return err == nil })
	for _, f := range []string{"BROADCAST", "DIRECT"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("the shell ran %s", f)
		}
	}
}

// escapes are message bodies built to make a shell run something: each
// would create a file whose name starts with PWNED if any part of it ran.
var escapes = []string{
	"hi\ntouch PWNED-lf",
	"hi\rtouch PWNED-cr",
	"hi\r\ntouch PWNED-crlf",
	"hi; touch PWNED-semi",
	"hi && touch PWNED-and || touch PWNED-or",
	"$(touch PWNED-subst) `touch PWNED-tick`",
	"${IFS}touch${IFS}PWNED-ifs",
	"continued \\\ntouch PWNED-cont",
	"\\\\\ntouch PWNED-cont2",
	"cat <<EOF\nx\nEOF\ntouch PWNED-heredoc",
	"end of paste \x1b[201~\ntouch PWNED-paste\n\x1b[200~",
	"'; touch PWNED-squote; echo '",
	"\"; touch PWNED-dquote; echo \"",
	"# a comment ' still \" ; touch PWNED-hash",
	"x > PWNED-redirect",
	"| touch PWNED-pipe",
	"{ touch PWNED-brace; }",
	"(touch PWNED-sub)",
	"!!\n!-1; touch PWNED-hist",
	"^hi^touch PWNED-quick",
	"\x00touch PWNED-nul\x04\x03",
	"tou\tch PWNED-tab",
	"\x85touch PWNED-nel",
	"`ntouch PWNED-pwsh #> touch PWNED-block <#",
	"é 👍 ; touch PWNED-utf8",
	strings.Repeat("long; ", 800) + "\ntouch PWNED-long",
}

// A shell told to take messages (messages = true) gets each as a line it
// runs nothing of, whatever the body: every body of escapes is confirmed
// and shows as a comment, no PWNED file appears, and the shell is left at
// its prompt (a command typed after them runs).
func TestShellsRunNothingOfAMessage(t *testing.T) {
	t.Parallel()
	shells := installedShells()
	h := newHarness(t)
	dirs := map[string]string{}
	var agents []AgentConfig
	for _, argv := range shells {
		name := strings.Join(argv, "-")
		dirs[name] = t.TempDir()
		a := shellAgent(t, name, argv, dirs[name])
		a.NoMessages = false // messages = true
		agents = append(agents, a)
	}
	h.run(Options{UserIdle: time.Millisecond}, agents...)
	for _, a := range agents {
		h.running(a.Name)
	}
	var ids []string
	for i, body := range escapes {
		m := h.send(bus.Message{To: "*", Body: body})
		if len(m.Deliveries) != len(agents) {
			t.Fatalf("message %d went to %d shells", i, len(m.Deliveries))
		}
		ids = append(ids, m.ID)
	}
	for _, a := range agents {
		t.Run(a.Name, func(t *testing.T) {
			wait := waitTimeout
			if wrapsItself[a.Name] {
				wait *= 3 // an unconfirmed message takes the shell's patience
			}
			testrun.Within(t, wait, a.Name+" took them all", func() bool {
				st := h.deliveryStates(a.Name)
				return st[bus.DeliveryConfirmed]+st[bus.DeliveryUnconfirmed]+st[bus.DeliveryFailed] == len(escapes)
			})
			for i, id := range ids {
				d := h.deliveryOf(id, a.Name)
				if d.State == bus.DeliveryUnconfirmed && wrapsItself[a.Name] {
					continue // a long line wrapped apart from the row the cursor ends on
				}
				if d.State != bus.DeliveryConfirmed {
					t.Errorf("message %d (%.20q): %s %s", i, escapes[i], d.State, d.Error)
				}
			}
			if err := h.sup.SendKeys(a.Name, []byte("touch ALIVE\r")); err != nil {
				t.Fatal(err)
			}
			testrun.Within(t, waitTimeout, a.Name+" runs a command typed after the messages", func() bool {
				_, err := os.Stat(filepath.Join(dirs[a.Name], "ALIVE"))
				return err == nil
			})
			entries, _ := os.ReadDir(dirs[a.Name])
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), "PWNED") {
					t.Errorf("%s ran %s", a.Name, e.Name())
				}
			}
			// Its own prompt is a shell's prompt, not a CLI's shell mode.
			testrun.Within(t, waitTimeout, a.Name+" read as at its prompt", func() bool {
				in, _ := h.sup.Agent(a.Name)
				return in.Screen.State == screenmodel.Prompt && in.StateWord() != "shell mode"
			})
			view := strings.Join(h.sup.agents[a.Name].screen.Snapshot().Lines, "\n")
			if !strings.Contains(view, "-- [relay #") {
				t.Errorf("no message shows as a comment:\n%s", view)
			}
		})
	}
}

// FuzzShellsRunNothingOfAMessage types what swarm types for any body into
// a real interactive bash (and zsh, where installed) whose DEBUG trap
// records every command it runs: none may run but the null command of
// zsh's form, and the shell must be back at its prompt after each.
func FuzzShellsRunNothingOfAMessage(f *testing.F) {
	for _, b := range escapes {
		f.Add(b)
	}
	probes := map[string]*shellProbe{}
	for _, sh := range []string{"bash", "zsh"} {
		if _, err := exec.LookPath(sh); err != nil {
			continue
		}
		p, err := startShellProbe(sh)
		if err != nil {
			f.Fatal(err)
		}
		f.Cleanup(p.close)
		probes[sh] = p
	}
	f.Fuzz(func(t *testing.T, body string) {
		if len(body) > 1200 {
			return // too long to type: named by its file, which needs a swarm
		}
		for sh, p := range probes {
			a := &agent{cfg: AgentConfig{Argv: []string{sh}, Env: map[string]string{"LANG": "C.UTF-8"}}, profile: AgentConfig{Argv: []string{sh}}.Profile()}
			m := bus.Message{ID: "0190a0a0-0000-7000-8000-00000000abcd", From: "fuzz", Body: body}
			text, err := a.renderShell(m)
			if err != nil {
				t.Fatal(err)
			}
			if ran, err := p.run(text); err != nil || ran != "" {
				t.Fatalf("%s: %q ran %q (%v)", sh, text, ran, err)
			}
		}
	})
}

// shellProbe is an interactive shell in a PTY that reports every command
// it runs.
type shellProbe struct {
	name string
	home string
	cmd  *exec.Cmd
	pty  *os.File
	out  chan string
	n    int
}

// probeSetup makes a shell say what it runs: bash's DEBUG trap and zsh's
// TRAPDEBUG see each command before it runs. `probe_end N` prints the
// marker a probe waits for; `:` is zsh's form of a message. What they
// print holds { and <, which no message's line can (textsafe).
var probeSetup = map[string]string{
	"bash": `PS1='$ '; PS2='> '; unset PROMPT_COMMAND; probe_end() { echo "END{$1}"; }; ` +
		`trap 'case $BASH_COMMAND in "probe_end "*) ;; *) echo "RAN{$BASH_COMMAND}" ;; esac' DEBUG`,
	"zsh": `PS1='$ '; PS2='> '; probe_end() { echo "END{$1}"; }; ` +
		`TRAPDEBUG() { case $ZSH_DEBUG_CMD in (probe_end*|'echo "END{$1}"'|:\ *) ;; (*) echo "RAN{$ZSH_DEBUG_CMD}" ;; esac }`,
}

func startShellProbe(sh string) (*shellProbe, error) {
	home, err := os.MkdirTemp("", "swarm-probe-")
	if err != nil {
		return nil, err
	}
	os.WriteFile(filepath.Join(home, ".zshrc"), nil, 0o600) //nolint:errcheck
	// No rc files: the shell's own reading of what is typed, without the
	// machine's line editor hooks (which run commands of their own).
	norc := map[string]string{"bash": "--norc", "zsh": "-f"}[sh]
	cmd := exec.Command(sh, norc, "-i")
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "TERM=xterm-256color", "LANG=C.UTF-8"}
	f, err := pty.Start(cmd)
	if err != nil {
		os.RemoveAll(home)
		return nil, err
	}
	p := &shellProbe{name: sh, home: home, cmd: cmd, pty: f, out: make(chan string, 64)}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				p.out <- string(buf[:n])
			}
			if err != nil {
				close(p.out)
				return
			}
		}
	}()
	if _, err := p.run(probeSetup[sh]); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// run types text and Enter as swarm does, then the end marker, and
// returns the commands the shell reported running in between.
func (p *shellProbe) run(text string) (ran string, err error) {
	p.n++
	end := fmt.Sprintf("END{%d}", p.n)
	if _, err := p.pty.WriteString(text + "\r"); err != nil {
		return "", err
	}
	if _, err := fmt.Fprintf(p.pty, "probe_end %d\r", p.n); err != nil {
		return "", err
	}
	var seen strings.Builder
	timeout := time.After(waitTimeout)
	for !strings.Contains(seen.String(), end+"\r\n") {
		select {
		case s, ok := <-p.out:
			if !ok {
				return "", fmt.Errorf("%s ended: %q", p.name, seen.String())
			}
			seen.WriteString(s)
		case <-timeout:
			return "", fmt.Errorf("%s never reached its prompt again: %q", p.name, seen.String())
		}
	}
	out := seen.String()
	if i := strings.Index(out, "RAN{"); i >= 0 && p.n > 1 {
		return out[i:], nil
	}
	return "", nil
}

func (p *shellProbe) close() {
	p.pty.Close()
	p.cmd.Process.Kill() //nolint:errcheck
	p.cmd.Wait()         //nolint:errcheck
	for range p.out {
	}
	os.RemoveAll(p.home)
}
