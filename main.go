// Command swarm runs supervised AI coding agents in terminals and relays
// messages between them through an embedded SQLite bus. The command line
// is package cli; the process around it (signals, profiling) is
// internal/mainrun's, which the server binary (cmd/swarm-server) shares.
package main

import (
	"context"
	"os"

	"swarm/cli"
	"swarm/internal/mainrun"
)

func main() {
	mainrun.Main(func(ctx context.Context) int {
		return cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	})
}
