// Command swarm runs supervised AI coding agents in terminals and relays
// messages between them through an embedded SQLite bus. The command line
// is package cli; this is the process around it: signals and profiling.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"

	"swarm/cli"
)

func main() {
	// SIGINT, SIGTERM and SIGHUP (the terminal went away) end the command
	// cleanly: every agent is stopped. A second signal during that ends
	// swarm at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		<-ctx.Done()
		stop()
	}()
	stopProfile := profile()
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
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
