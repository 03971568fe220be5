package supervisor

// Scripted agents for the end-to-end tests. The test binary runs itself as
// the agent program: TestMain sees SWARM_TEST_AGENT and runs the script of
// that name instead of the tests. Scripts behave like line-oriented agent
// CLIs in a PTY: they print relay lines and read what swarm types in.

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"swarm/games"
	"swarm/internal/testrun"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "agent" && os.Args[2] == "tictactoe" {
		os.Exit(runPlayer(os.Args[3:]))
	}
	if script := os.Getenv("SWARM_TEST_AGENT"); script != "" {
		os.Exit(runScript(script))
	}
	testrun.WaitersInParallel(6) // most tests here wait on processes
	os.Exit(m.Run())
}

// runPlayer is `swarm agent tictactoe` for tests.
func runPlayer(args []string) int {
	fs := flag.NewFlagSet("tictactoe", flag.ContinueOnError)
	mark := fs.String("mark", "X", "")
	opp := fs.String("opponent", "O", "")
	seed := fs.Int64("seed", 1, "")
	strategy := fs.String("strategy", "perfect", "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	m, err := games.ParseMark(*mark)
	if err != nil {
		return 2
	}
	st, err := games.ParseStrategy(*strategy)
	if err != nil {
		return 2
	}
	err = games.RunPlayer(context.Background(), os.Stdin, os.Stdout, games.PlayerOptions{Mark: m, Opponent: *opp, Strategy: st, Seed: *seed})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// received appends every line swarm typed in ("[relay ...") to $LOG, one
// per line, and calls seen for each message the first time its id comes
// (delivery is at least once: agents are told to ignore a repeated id). It
// returns when stdin ends.
func received(seen func(string)) {
	var f *os.File
	if p := os.Getenv("LOG"); p != "" {
		var err error
		f, err = os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			panic(err)
		}
		defer f.Close()
	}
	ids := map[string]bool{}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		i := strings.Index(line, "[relay #")
		if i < 0 {
			continue
		}
		if f != nil {
			fmt.Fprintln(f, line)
		}
		id := strings.Fields(line[i:])[1] // "#<id>"
		if seen != nil && !ids[id] {
			ids[id] = true
			seen(line[i:])
		}
	}
}

func runScript(name string) int {
	switch name {
	case "composer":
		return runComposer()
	case "chat":
		// Print COUNT relay lines to PEER while logging what arrives.
		peer, prefix, count := os.Getenv("PEER"), os.Getenv("PREFIX"), envInt("COUNT", 0)
		go func() {
			w := bufio.NewWriter(os.Stdout)
			for i := 1; i <= count; i++ {
				fmt.Fprintf(w, "@relay:%s %s-%d\n", peer, prefix, i)
				if i%50 == 0 {
					w.Flush()
				}
			}
			w.Flush()
		}()
		received(nil)
	case "say":
		// Print $SAY (lines separated by "|") once, then log what arrives.
		for _, l := range strings.Split(os.Getenv("SAY"), "|") {
			fmt.Println(l)
		}
		received(nil)
	case "listen":
		fmt.Println("listening")
		received(nil)
	case "busy":
		// Print a tick every 5 ms TICKS times, then go quiet. Log each
		// arrival with whether the ticks were still running.
		var mu sync.Mutex
		ticking := true
		go func() {
			for i := 0; i < envInt("TICKS", 100); i++ {
				fmt.Printf("tick %d\n", i)
				time.Sleep(5 * time.Millisecond)
			}
			mu.Lock()
			ticking = false
			mu.Unlock()
			fmt.Println("ticks done")
		}()
		f, _ := os.OpenFile(os.Getenv("STATE"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		received(func(line string) {
			mu.Lock()
			fmt.Fprintf(f, "ticking=%t %s\n", ticking, line)
			mu.Unlock()
		})
	case "tasker":
		// On a task assignment, report done too early (refused), then start
		// it inline and finish it with a block; log everything.
		fmt.Println("ready for tasks")
		received(func(line string) {
			_, rest, ok := strings.Cut(line, "] task ")
			if !ok {
				return
			}
			id, _, _ := strings.Cut(rest, ":")
			fmt.Printf("@relay:swarm task_done %s\n", id)
			fmt.Printf("@relay:swarm task_start %s\n", id)
			fmt.Printf("[[RELAY]]\n{\"to\":\"swarm\",\"type\":\"task_done\",\"data\":{\"task\":%q}}\n[[/RELAY]]\n", id)
		})
	case "gitworker":
		// Works in its current directory (its task's worktree): on a task
		// it starts, commits a file and reports done; on a change request
		// it commits another file and reports done again.
		wd, _ := os.Getwd()
		fmt.Println("working in", wd)
		commit := func(name string) {
			if err := os.WriteFile(name, []byte(name+"\n"), 0o644); err != nil {
				panic(err)
			}
			for _, args := range [][]string{{"add", name}, {"commit", "-q", "-m", "add " + name}} {
				if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
					fmt.Printf("git %v: %v %s\n", args, err, out)
				}
			}
		}
		received(func(line string) {
			if _, rest, ok := strings.Cut(line, "] task "); ok {
				id, _, _ := strings.Cut(rest, ":")
				fmt.Printf("@relay:swarm task_start %s\n", id)
				commit("work-" + id + ".txt")
				fmt.Printf("@relay:swarm task_done %s\n", id)
			}
			if _, rest, ok := strings.Cut(line, "] changes requested on task "); ok {
				id, _, _ := strings.Cut(rest, " ")
				commit("more-" + id + ".txt")
				fmt.Printf("@relay:swarm task_done %s\n", id)
			}
		})
	case "pinger":
		// Print COUNT relay lines to PEER at RATE per second, each carrying
		// the wall-clock time it was written, after DELAY_MS.
		peer, count, rate := os.Getenv("PEER"), envInt("COUNT", 0), envInt("RATE", 100)
		go func() {
			time.Sleep(time.Duration(envInt("DELAY_MS", 0)) * time.Millisecond)
			tick := time.NewTicker(time.Second / time.Duration(rate))
			defer tick.Stop()
			for i := 0; i < count; i++ {
				<-tick.C
				fmt.Printf("@relay:%s t=%d\n", peer, time.Now().UnixNano())
			}
		}()
		received(nil)
	case "timer":
		// Log how long each message took from its t= stamp to arriving here.
		fmt.Println("timing")
		f, _ := os.OpenFile(os.Getenv("LAT"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		received(func(line string) {
			now := time.Now().UnixNano()
			if _, stamp, ok := strings.Cut(line, "] t="); ok {
				if t, err := strconv.ParseInt(strings.TrimSpace(stamp), 10, 64); err == nil {
					fmt.Fprintln(f, now-t)
				}
			}
		})
	case "slowstart":
		// Takes a while before it prints anything, as AI CLIs do.
		time.Sleep(300 * time.Millisecond)
		fmt.Println("ready")
		received(nil)
	case "crash":
		fmt.Println("crashing")
		return 3
	case "stubborn":
		// Ignores SIGTERM: only SIGKILL ends it.
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("stubborn ready")
		received(nil)
	default:
		fmt.Fprintln(os.Stderr, "unknown script", name)
		return 2
	}
	return 0
}
