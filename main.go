// Command swarm runs supervised AI coding agents in terminals and relays
// messages between them through an embedded SQLite bus.
//
// main.go only declares the command line and wires it to the packages that
// do the work; it holds no logic of its own.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/alecthomas/kong"
)

// version is overridden at build time with -ldflags "-X main.version=…".
var version = "dev"

// exitError carries an exit status through kong's Run so that main decides
// how the process ends in exactly one place.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// Globals are the flags every command accepts.
type Globals struct {
	Dir string `help:"Bus directory (default: $SWARM_DIR, else .swarm in the current directory)." placeholder:"DIR"`

	stdout io.Writer
	stderr io.Writer
}

// CLI is the whole command line.
type CLI struct {
	Globals

	Version versionCmd `cmd:"" help:"Print swarm's version."`
}

type versionCmd struct{}

func (versionCmd) Run(g *Globals) error {
	fmt.Fprintln(g.stdout, "swarm", version)
	return nil
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args and runs the chosen command. It returns the exit status:
// 0 success, 1 failure, 2 usage error. Errors are one line on stderr.
func run(args []string, stdout, stderr io.Writer) (code int) {
	cli := CLI{Globals: Globals{stdout: stdout, stderr: stderr}}
	exited := false
	parser, err := kong.New(&cli,
		kong.Name("swarm"),
		kong.Description("Run supervised AI coding agents side by side and relay messages between them."),
		kong.UsageOnError(),
		kong.Writers(stdout, stderr),
		kong.Exit(func(c int) { exited, code = true, c }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	)
	if err != nil {
		fmt.Fprintln(stderr, "swarm:", err)
		return 1
	}
	ctx, err := parser.Parse(args)
	if exited { // --help
		return code
	}
	if err != nil {
		fmt.Fprintln(stderr, "swarm:", err)
		return 2
	}
	if err := ctx.Run(&cli.Globals); err != nil {
		fmt.Fprintln(stderr, "swarm:", err)
		var ee *exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		return 1
	}
	return 0
}
