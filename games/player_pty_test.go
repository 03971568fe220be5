package games

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// playerEnv makes the test binary run RunPlayer on its terminal instead of
// the tests, so that a test can start the player as a real separate process.
const playerEnv = "GAMES_TEST_PLAYER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(playerEnv); spec != "" {
		os.Exit(runPlayerProcess(spec))
	}
	os.Exit(m.Run())
}

// runPlayerProcess runs a player described as "mark,opponent,strategy,seed".
func runPlayerProcess(spec string) int {
	f := strings.Split(spec, ",")
	mark, err1 := ParseMark(f[0])
	strategy, err2 := ParseStrategy(f[2])
	seed, err3 := strconv.ParseInt(f[3], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	opts := PlayerOptions{Mark: mark, Opponent: f[1], Strategy: strategy, Seed: seed}
	if err := RunPlayer(context.Background(), os.Stdin, os.Stdout, opts); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// ptyScreen collects what a process prints to its terminal.
type ptyScreen struct {
	mu   sync.Mutex
	buf  strings.Builder
	grew chan struct{}
}

func (s *ptyScreen) waitFor(t *testing.T, re *regexp.Regexp, from int) (match []string, end int) {
	t.Helper()
	timeout := time.After(hangGuard)
	for {
		s.mu.Lock()
		text, grew := s.buf.String(), s.grew
		s.mu.Unlock()
		if loc := re.FindStringSubmatchIndex(text[from:]); loc != nil {
			m := re.FindStringSubmatch(text[from:])
			return m, from + loc[1]
		}
		select {
		case <-grew:
		case <-timeout:
			t.Fatalf("no %q on the terminal after offset %d:\n%s", re, from, text)
		}
	}
}

// TestPlayerProcessInPTY runs the player as a separate process in a real
// pseudo-terminal, typing into it exactly as swarm does (body, then CR) and
// reading its screen: the terminal's echo of what was typed does not
// confuse it, a move is answered with a move, and "game over" ends it with
// status 0.
func TestPlayerProcessInPTY(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), playerEnv+"=O,x,perfect,7")
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 100})
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	var reader sync.WaitGroup
	screen := &ptyScreen{grew: make(chan struct{})}
	reader.Go(func() {
		b := make([]byte, 4096)
		for {
			n, err := ptmx.Read(b)
			screen.mu.Lock()
			screen.buf.Write(b[:n])
			close(screen.grew)
			screen.grew = make(chan struct{})
			screen.mu.Unlock()
			if err != nil {
				return // EIO once the process has gone and the pty is closed
			}
		}
	})
	go func() { waited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // a no-op when it has exited
		<-waited
		ptmx.Close()
		reader.Wait()
	})

	_, end := screen.waitFor(t, regexp.MustCompile(`I play O against x`), 0)
	if _, err := ptmx.WriteString("[relay #1a2b3c4d from x] move 5\r"); err != nil {
		t.Fatal(err)
	}
	m, end := screen.waitFor(t, regexp.MustCompile(`\n@relay:x move (\d)\r?\n`), end)
	if m[1] == "5" {
		t.Fatalf("O played the taken centre")
	}
	// A repeat of the same id is ignored; then the end is announced.
	if _, err := ptmx.WriteString("[relay #1a2b3c4d from x] move 5\r[relay #00000002 from swarm] game over: draw\r"); err != nil {
		t.Fatal(err)
	}
	screen.waitFor(t, regexp.MustCompile(`swarm: game over: draw`), end)
	select {
	case err := <-waited:
		waited <- err // for Cleanup
		if err != nil {
			t.Fatalf("player exited with %v", err)
		}
	case <-time.After(hangGuard):
		t.Fatal("player did not exit after game over")
	}
	screen.mu.Lock()
	out := screen.buf.String()
	screen.mu.Unlock()
	if strings.Contains(out, "ignoring") || strings.Count(out, "(X) plays 5") != 1 {
		t.Errorf("the repeated move was not ignored:\n%s", out)
	}
}
