package bus

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"
	"time"
)

// The test binary doubles as a helper process (BUS_HELPER set) so tests
// can write to a bus from a genuinely separate process and kill it.
func TestMain(m *testing.M) {
	if mode := os.Getenv("BUS_HELPER"); mode != "" {
		os.Exit(helper(mode))
	}
	code := m.Run()
	cleanupFixtures()
	os.Exit(code)
}

// helper runs in a child process. Modes:
//
//	publish N: publish N messages alice → bob with bodies "0".."N-1", say
//	           "ready" and wait to be killed, never closing the bus.
//	send:      publish one message alice → bob, close and exit.
//	open:      wait until stdin closes, open the bus, register agent
//	           $BUS_NAME, close and exit.
func helper(mode string) int {
	dir := os.Getenv("BUS_DIR")
	if mode == "open" {
		_, _ = io.Copy(io.Discard, os.Stdin)
	}
	opts := Options{Dir: dir}
	if mode == "open" {
		opts.BusyTimeout = time.Minute // racers on a loaded machine queue for the lock
	}
	b, err := Open(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx := context.Background()
	switch mode {
	case "publish":
		n, _ := strconv.Atoi(os.Getenv("BUS_N"))
		for i := range n {
			if _, err := b.Publish(ctx, Message{From: "alice", To: "bob", Body: strconv.Itoa(i)}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		fmt.Println("ready")
		time.Sleep(time.Hour) // the parent kills this process
		return 0
	case "open":
		if err := b.RegisterAgent(ctx, Agent{Name: os.Getenv("BUS_NAME"), Cmd: "sh", State: AgentRunning}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := b.Close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	case "send":
		if _, err := b.Publish(ctx, Message{From: "alice", To: "bob", Body: "from another process"}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := b.Close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown helper mode", mode)
	return 2
}
