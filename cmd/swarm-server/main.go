// Command swarm-server runs a swarm as `swarm up --server` and `swarm up
// --headless` do, for swarm, which starts it in their place when it finds
// it beside itself, of the same build (internal/serverbin). It is not a
// command for people: swarm has checked the config and resolved the bus
// directory before it runs this.
//
// It links the supervisor, the socket and the bus, and none of the
// command line, the UI, the MCP server or the cluster's NATS (a config
// with [cluster] is swarm's own to serve): a smaller binary maps less, and
// what a process maps of its binary is most of a quiet swarm's memory
// (issue 34).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"swarm/actor"
	"swarm/bus"
	"swarm/internal/mainrun"
	"swarm/supervisor"
	"swarm/swarmrun"
)

func main() {
	mainrun.Main(func(ctx context.Context) int {
		return run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	})
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("swarm-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		config   = fs.String("config", "", "the config file (swarm.toml)")
		busDir   = fs.String("dir", "", "the bus directory")
		swarmExe = fs.String("swarm", "", "the swarm binary the agents call (swarm send, swarm mcp, hooks)")
		program  = fs.String("program", "", "this swarm's name on its socket (\"swarm 1.2.3\")")
		headless = fs.Bool("headless", false, "print one line per event until interrupted or every agent has ended (swarm up --headless)")
		asJSON   = fs.Bool("json", false, "with --headless, print one JSON object per event")
		serve    = fs.Bool("server", false, "serve until stopped or unneeded (swarm up --server)")
	)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *config == "" || *busDir == "" || *swarmExe == "" || *program == "" || *headless == *serve || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "swarm: swarm-server is started by swarm: --config, --dir, --swarm, --program and one of --headless and --server")
		return 2
	}
	if err := serveSwarm(ctx, *config, *busDir, *swarmExe, *program, *headless, *asJSON, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "swarm:", actor.ErrorLine(bus.Damaged(*busDir, err).Error()))
		return 1
	}
	return 0
}

func serveSwarm(ctx context.Context, config, busDir, swarmExe, program string, headless, asJSON bool, stdout, stderr io.Writer) error {
	cfg, err := supervisor.LoadConfig(config)
	if err != nil {
		return err
	}
	if cfg.Cluster != nil {
		return errors.New(config + " has a [cluster] table: swarm serves it itself, not swarm-server")
	}
	// The agents call swarm, not this binary, which has no command line.
	opts := swarmrun.Options{BusDir: busDir, Supervisor: supervisor.Options{Config: cfg, Executable: swarmExe}, Program: program, Stderr: stderr}
	return swarmrun.Run(ctx, opts, func(ctx context.Context, sw *swarmrun.Swarm) error {
		if headless {
			return sw.PrintEvents(ctx, stdout, stderr, asJSON)
		}
		return sw.Serve(ctx, stderr)
	})
}
