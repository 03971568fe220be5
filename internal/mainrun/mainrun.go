// Package mainrun is the process around swarm's programs (swarm and
// swarm-server, the server binary without the command line): its signals,
// its profiles and its garbage collector's target, the same in both.
package mainrun

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
)

// Main runs run with the process's context and ends the process with the
// status run returns.
func Main(run func(ctx context.Context) (code int)) {
	// SIGINT, SIGTERM and SIGHUP (the terminal went away) end the command
	// cleanly: every agent is stopped. A second signal during that ends
	// the process at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		<-ctx.Done()
		stop()
	}()
	stopProfile := profile()
	heapProfiles()
	collectSooner()
	code := run(ctx)
	stopProfile()
	stop()
	os.Exit(code)
}

// profile writes a CPU profile of the whole run to $SWARM_CPUPROFILE, for
// looking into swarm's own performance (`go tool pprof`). A %p in the path
// is the pid: the UI and the server it starts are two processes.
func profile() (stop func()) {
	path := os.Getenv("SWARM_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	path = strings.ReplaceAll(path, "%p", strconv.Itoa(os.Getpid()))
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "swarm: cpu profile:", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// gcPercent is the garbage collector's target unless $GOGC says otherwise:
// the heap may grow a quarter past what is live before a collection, not
// Go's default of as much again. Most of what a swarm keeps live is packed
// scrollback in byte blocks, which a collection does not scan, so
// collecting sooner costs little CPU, and it keeps 15 MiB of a 16-pane
// server's 47 MiB of its own memory from being taken at all.
const gcPercent = 25

func collectSooner() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}

// heapProfiles writes a heap profile to $SWARM_MEMPROFILE each time the
// process gets SIGUSR1, for looking into the memory of a running swarm
// (`go tool pprof -sample_index=inuse_space`). A %p in the path is the
// pid, %n the profile's number.
func heapProfiles() {
	path := os.Getenv("SWARM_MEMPROFILE")
	if path == "" {
		return
	}
	path = strings.ReplaceAll(path, "%p", strconv.Itoa(os.Getpid()))
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	go func() {
		for n := 1; ; n++ {
			<-sig
			f, err := os.Create(strings.ReplaceAll(path, "%n", strconv.Itoa(n)))
			if err == nil {
				runtime.GC()
				err = pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "swarm: heap profile:", err)
			}
		}
	}()
}
