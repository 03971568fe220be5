package main

// The second fault trial's cases (RELIABILITY.md): the process tree
// around the agents, the disk, the bus file, races on a fresh directory.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// trialEscapes: an agent tries to approve its own task as the human by
// leaving its process (setsid -f, a double fork, both) and unsetting
// swarm's variables. The swarm is its agents' subreaper, so what they
// start stays below it: in the agent's session it is the agent's, out of
// it no one's.
func trialEscapes(t *testing.T, table *trialTable) {
	e := trialSwarm(t, "")
	strip := "env -u SWARM_TOKEN -u SWARM_AGENT swarm task approve $id"
	script := `while [ ! -s id ]; do sleep 0.05; done; id=$(cat id); swarm task start $id >/dev/null && swarm task done $id >/dev/null; ` +
		`echo reviewed > in-review; ` +
		`setsid -f ` + strip + ` > setsid-f.txt 2>&1; ` + // the escape: a new session, re-parented at once
		`( ( ` + strip + ` > double-fork.txt 2>&1 & ) & ); ` + // orphaned, still in the agent's session
		`( setsid ` + strip + ` > both.txt 2>&1 & ); ` + // orphaned and out of the session
		`exec sleep 300`
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(agentTOML("w", "never", script)), 0o600); err != nil {
		t.Fatal(err)
	}
	up := e.start("up", "--headless")
	e.dir = filepath.Join(e.cwd, ".swarm")
	trialWait(t, "w registered", func() bool {
		out, _, _ := e.run("status", "--json")
		return strings.Contains(out, `"name":"w"`)
	})
	id := strings.TrimSpace(e.ok("task", "add", "--to", "w", "approve me yourself"))
	if err := os.WriteFile(filepath.Join(e.cwd, "id"), []byte(id+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	outs := map[string]string{}
	for _, f := range []string{"in-review", "setsid-f.txt", "double-fork.txt", "both.txt"} {
		trialWait(t, f+" written", func() bool {
			b, _ := os.ReadFile(filepath.Join(e.cwd, f))
			outs[f] = string(b)
			return strings.HasSuffix(outs[f], "\n")
		})
	}
	show := e.ok("task", "show", id, "--json")
	up.stop(t, syscall.SIGTERM)
	if !strings.Contains(show, `"state":"IN_REVIEW"`) {
		t.Errorf("the task left review:\n%s", show)
	}
	refused := 0
	for f, want := range map[string]string{
		"setsid-f.txt":    "a process that left its agent (setsid, a double fork) acts for no one",
		"double-fork.txt": "only the human reviewer moves tasks this way; this runs as agent w",
		"both.txt":        "a process that left its agent (setsid, a double fork) acts for no one",
	} {
		if strings.Contains(outs[f], want) && !strings.Contains(outs[f], "APPROVED") {
			refused++
		} else {
			t.Errorf("%s: %q, want a refusal saying %q", f, outs[f], want)
		}
	}
	table.add("an agent approving its own task as the human", "`swarm task approve` after setsid -f, a double fork, and both, $SWARM_TOKEN and $SWARM_AGENT unset",
		fmt.Sprintf("%d of 3 refused (the double fork as the agent, the others as no one); the task still IN_REVIEW", refused))
}

// trialDaemons: agents start daemons (setsid, a double fork), one that
// ignores SIGTERM, one that drops its token. swarm status lists them;
// an agent's end ends its own; the swarm's stop ends the rest; after a
// kill -9 of swarm, the next one ends what was left.
func trialDaemons(t *testing.T, table *trialTable) {
	k := trialSize(2, 10)
	e := trialSwarm(t, "")
	daemon := func(name, prefix, trap string) string {
		return `( ` + prefix + `setsid sh -c '` + trap + `echo $$ > ` + name + `.pid; exec sleep 300' & ); `
	}
	var quitter, stayer strings.Builder
	var names []string
	for i := range k {
		quitter.WriteString(daemon(fmt.Sprintf("a%d", i), "", ""))
		stayer.WriteString(daemon(fmt.Sprintf("b%d", i), "", ""))
		names = append(names, fmt.Sprintf("a%d", i), fmt.Sprintf("b%d", i))
	}
	stayer.WriteString(daemon("bterm", "", `trap "" TERM HUP; `))                    // ignores SIGTERM
	stayer.WriteString(daemon("bnotoken", "env -u SWARM_TOKEN -u SWARM_AGENT ", "")) // its agent cannot be told
	names = append(names, "bterm", "bnotoken")
	quitter.WriteString(`while [ ! -e quit ]; do sleep 0.05; done; exit 0`)
	stayer.WriteString(`exec sleep 300`)
	cfg := agentTOML("a", "never", quitter.String()) + agentTOML("b", "never", stayer.String())
	if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	up := e.start("up", "--headless")
	pids := map[string]int{}
	for _, n := range names {
		pids[n] = pidIn(t, filepath.Join(e.cwd, n+".pid"))
	}
	t.Cleanup(func() {
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	e.dir = filepath.Join(e.cwd, ".swarm")
	listed := 0
	trialWait(t, "swarm status listing what left the agents' sessions", func() bool {
		a, b, unknown := detachedFrom(t, e, "a"), detachedFrom(t, e, "b"), detachedFrom(t, e, "")
		listed = 0
		for n, p := range pids {
			switch {
			case n == "bnotoken" && unknown[p], n[0] == 'a' && a[p], n[0] == 'b' && n != "bnotoken" && b[p]:
				listed++
			}
		}
		return listed == len(pids)
	})

	// a ends: what it left ends with it; b's go on.
	if err := os.WriteFile(filepath.Join(e.cwd, "quit"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var ofA, ofB []int
	for n, p := range pids {
		if n[0] == 'a' {
			ofA = append(ofA, p)
		} else {
			ofB = append(ofB, p)
		}
	}
	requireGone(t, ofA)
	for _, p := range ofB {
		if gone(p) {
			t.Fatalf("b's process %d ended with a", p)
		}
	}
	zombies := 0
	for _, c := range children(up.cmd.Process.Pid) {
		if st, _ := procField(c, 3); st == "Z" {
			zombies++
		}
	}
	up.stop(t, syscall.SIGTERM)
	requireGone(t, ofB)
	if zombies > 0 {
		t.Errorf("the swarm left %d adopted children zombies", zombies)
	}

	// Killed outright, swarm ends nothing; the next one does.
	k2 := trialSwarm(t, agentTOML("a", "never", daemon("d", "", `trap "" HUP; `)+`exec sleep 300`))
	first := k2.start("up", "--headless")
	d := pidIn(t, filepath.Join(k2.cwd, "d.pid"))
	t.Cleanup(func() { _ = syscall.Kill(d, syscall.SIGKILL) })
	_ = first.cmd.Process.Signal(syscall.SIGKILL)
	<-first.done
	_ = first.cmd.Wait()
	leftover := !gone(d)
	second := k2.start("up", "--headless")
	requireGone(t, []int{d})
	trialWait(t, "the notice", func() bool { return second.has("ended now: sleep (pid " + strconv.Itoa(d) + ")") })
	second.stop(t, syscall.SIGTERM)
	if !leftover {
		t.Error("the daemon died with the killed swarm: nothing was left to end")
	}
	table.add("daemons an agent leaves (setsid, a double fork)", fmt.Sprintf("2 agents × %d, one more ignoring SIGTERM, one more without its token; then one left by a kill -9 of swarm", k),
		fmt.Sprintf("%d of %d listed by swarm status; %d ended with their agent, %d when swarm stopped (SIGKILL after the grace for the one ignoring SIGTERM), the killed swarm's by the next one; 0 left, 0 zombies",
			listed, len(pids), len(ofA), len(ofB)))
}

// trialBusChanged: bus.db replaced (renamed away, random bytes in its
// place) or the whole project removed while a swarm runs and an agent
// sends: the swarm stops its agents and ends, saying why.
func trialBusChanged(t *testing.T, table *trialTable) {
	var took []string
	for _, tc := range []struct {
		name, why string
		change    func(project string) error
	}{
		{"bus.db replaced", "was replaced by another file", func(project string) error {
			db := filepath.Join(project, ".swarm", "bus.db")
			if err := os.Rename(db, db+".away"); err != nil {
				return err
			}
			return os.WriteFile(db, []byte(strings.Repeat("random bytes ", 500)), 0o600)
		}},
		{"the project removed", "was removed", func(project string) error {
			// The server and its agents write into the project while it
			// goes: rm -rf can meet a file made after it emptied a
			// directory, and is run again, as a person would.
			var err error
			for range 100 {
				if err = os.RemoveAll(project); err == nil {
					return nil
				}
			}
			return err
		}},
	} {
		e := trialSwarm(t, "")
		pids := t.TempDir() // outside the project, which may go
		cfg := agentTOML("a", "always", `echo $$ > `+filepath.Join(pids, "a.pid")+`; i=0; while :; do i=$((i+1)); echo "@relay:b m$i"; sleep 0.05; done`) +
			agentTOML("b", "always", "exec cat > /dev/null")
		if err := os.WriteFile(filepath.Join(e.cwd, "swarm.toml"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		srv := e.server()
		agent := pidIn(t, filepath.Join(pids, "a.pid"))
		serverPid(t, filepath.Join(e.cwd, ".swarm"))
		var junk []byte
		changed := time.Now()
		if err := tc.change(e.cwd); err != nil {
			t.Fatal(err)
		}
		if tc.name == "bus.db replaced" {
			junk, _ = os.ReadFile(filepath.Join(e.cwd, ".swarm", "bus.db"))
		}
		if code := srv.exited(t, tc.name); code != 1 {
			t.Errorf("%s: the server exited %d, want 1", tc.name, code)
		}
		took = append(took, fmt.Sprintf("%s: %.1f s", tc.name, time.Since(changed).Seconds()))
		if out := srv.out.String(); !strings.Contains(out, tc.why) || !strings.Contains(out, "stopped every agent and ended") {
			t.Errorf("%s: the server's log does not say why it ended:\n%s", tc.name, out)
		}
		requireGone(t, []int{agent})
		if junk != nil {
			if now, _ := os.ReadFile(filepath.Join(e.cwd, ".swarm", "bus.db")); string(now) != string(junk) {
				t.Errorf("%s: the file put in bus.db's place was written to", tc.name)
			}
		}
	}
	table.add("bus.db replaced, or the project removed, under a running server", "bus.db renamed away and random bytes put in its place; `rm -rf` of the project; an agent sending 20 messages a second",
		"the server stopped its agents and ended, saying why in its log ("+strings.Join(took, "; ")+"); the file put in bus.db's place untouched")
}

var notLogged = regexp.MustCompile(`── \S+ \S+ (\d+) lines were not logged here \(no space left on device\) ──`)

// trialLogFull: an agent's log that cannot be written (/dev/full: every
// write fails as on a full disk) while the agent prints, then a file
// again.
func trialLogFull(t *testing.T, table *trialTable) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	n := trialSize(200, 3000) // lines of 1 KB: past 1 MiB, lines are lost, counted
	e := trialSwarm(t, agentTOML("a", "never", fmt.Sprintf(`i=0; while [ $i -lt %d ]; do i=$((i+1)); printf 'line %%d %%01000d\n' $i 0; done; `+
		`echo printed-all; while [ ! -e go-on ]; do sleep 0.05; done; echo after-recovery; exec sleep 300`, n)))
	log := filepath.Join(e.cwd, ".swarm", "logs", "a.log")
	if err := os.MkdirAll(filepath.Dir(log), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/full", log); err != nil {
		t.Fatal(err)
	}
	up := e.start("up", "--headless")
	e.dir = filepath.Join(e.cwd, ".swarm")
	trialWait(t, "the notice", func() bool { return up.has("its log " + log + " cannot be written (no space left on device)") })
	trialWait(t, "everything printed", func() bool { out, _, _ := e.run("peek", "a"); return strings.Contains(out, "printed-all") })
	status := e.ok("status")
	if !strings.Contains(status, "its log cannot be written (no space left on device); retrying") {
		t.Errorf("swarm status:\n%s", status)
	}
	if err := os.Remove(log); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.cwd, "go-on"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var text string
	trialWait(t, "the log written again", func() bool {
		b, _ := os.ReadFile(log)
		text = string(b)
		return strings.Contains(text, "after-recovery") && up.has("its log is written again")
	})
	after := e.ok("status", "--json")
	up.stop(t, syscall.SIGTERM)
	if strings.Contains(after, "log_problem") {
		t.Errorf("swarm status still reports a problem:\n%s", after)
	}
	kept, lost := strings.Count(text, "\nline "), 0
	if m := notLogged.FindStringSubmatch(text); m != nil {
		lost, _ = strconv.Atoi(m[1])
	}
	if kept+lost != n {
		t.Errorf("%d lines kept and %d counted as lost, of %d", kept, lost, n)
	}
	table.add("an agent's log on a full disk", fmt.Sprintf("%d lines of 1 KB while its log is /dev/full (every write: no space left on device), then a file again", n),
		fmt.Sprintf("told at once (a notice, swarm status); %d lines held and written once it could be, %d past the 1 MiB held counted as lost, in the log; the log goes on", kept, lost))
}

// trialFreshRace: two swarm up and a swarm send start at once on a new
// directory. One up runs, the other says another swarm runs; nothing
// meets a half-made bus; the send is delivered, or refused with nothing
// stored — never stored as failed.
func trialFreshRace(t *testing.T, table *trialTable) {
	rounds := trialSize(4, 20)
	var refusedUps, delivered, refusedSends, corrupt int
	for r := range rounds {
		e := trialSwarm(t, agentTOML("b", "always", listener("b.log")))
		body := fmt.Sprintf("race-%d", r)
		var outs [3]strings.Builder
		ups := [2]*server{}
		for i := range ups {
			ups[i] = &server{done: make(chan struct{})}
			ups[i].cmd = e.command("up", "--headless")
			ups[i].cmd.Stdout, ups[i].cmd.Stderr = &ups[i].out, &ups[i].out
		}
		send := e.command("send", "b", body)
		send.Stdout, send.Stderr = &outs[2], &outs[2]
		for _, u := range ups {
			if err := u.cmd.Start(); err != nil {
				t.Fatal(err)
			}
		}
		if err := send.Start(); err != nil {
			t.Fatal(err)
		}
		for _, u := range ups {
			go func() { defer close(u.done); u.err = u.cmd.Wait() }()
		}
		sendErr := send.Wait()
		// One up runs on; the other ends, refused.
		var loser, winner *server
		trialWait(t, "one up refused", func() bool {
			for i, u := range ups {
				select {
				case <-u.done:
					loser, winner = u, ups[1-i]
					return true
				default:
				}
			}
			return false
		})
		if out := loser.out.String(); strings.Contains(out, "another swarm is running") {
			refusedUps++
		} else {
			t.Errorf("round %d: the up that ended said %q", r, out)
		}
		if sendErr == nil {
			trialWait(t, "the send delivered", func() bool {
				b, _ := os.ReadFile(filepath.Join(e.cwd, "b.log"))
				return strings.Contains(string(b), body)
			})
			delivered++
		} else {
			refusedSends++
			e.dir = filepath.Join(e.cwd, ".swarm")
			if log, _, _ := e.run("log", "--json"); strings.Contains(log, body) {
				t.Errorf("round %d: a refused send was stored: %s\n%s", r, outs[2].String(), log)
			}
			e.dir = ""
		}
		_ = winner.cmd.Process.Signal(syscall.SIGTERM)
		<-winner.done
		for _, out := range []string{ups[0].out.String(), ups[1].out.String(), outs[2].String()} {
			if strings.Contains(out, "corrupt") || strings.Contains(out, "remove it") {
				corrupt++
				t.Errorf("round %d: %q", r, out)
			}
		}
	}
	table.add("racing on a fresh directory", fmt.Sprintf("%d rounds of two `swarm up` and a `swarm send` started at once on a new directory", rounds),
		fmt.Sprintf("%d told to remove a corrupt bus; %d of %d second ups refused (another swarm runs); sends: %d delivered, %d refused with nothing stored, 0 stored as failed",
			corrupt, refusedUps, rounds, delivered, refusedSends))
}
