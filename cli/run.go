package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/alecthomas/kong"

	"swarm/bus"
	"swarm/supervisor"
)

// usageLine names the command a parse error is about and where its usage
// is: "demo: unexpected argument chess (swarm demo --help)".
func usageLine(err error, args []string) string {
	var pe *kong.ParseError
	if !errors.As(err, &pe) || pe.Context == nil {
		return err.Error()
	}
	node := pe.Context.Selected()
	if node == nil {
		return fmt.Sprintf("%v (swarm --help)", err)
	}
	path := strings.TrimPrefix(node.FullPath(), "swarm ")
	if path == "up" && !slices.Contains(args, "up") {
		// up is the default command: a word it does not take was meant
		// as a command.
		if word, ok := strings.CutPrefix(err.Error(), "unexpected argument "); ok {
			if cmd, ok := supervisor.Nearest(word, commandNames(pe.Context.Model.Node)); ok {
				return fmt.Sprintf("unknown command %q: did you mean %q? (swarm --help lists them)", word, cmd)
			}
			return fmt.Sprintf("unknown command %q (swarm --help lists them)", word)
		}
	}
	return fmt.Sprintf("%s: %v (swarm %s --help)", path, err, path)
}

// commandNames lists the commands under node that --help shows.
func commandNames(node *kong.Node) []string {
	var names []string
	for _, c := range node.Children {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	return names
}

// Run parses args and runs the chosen command. It returns the exit status:
// 0 success, 1 failure, 2 usage error. Errors are one line on stderr.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	cli := CLI{Globals: Globals{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}}
	exited := false
	cmdline, err := kong.New(&cli,
		kong.Name("swarm"),
		kong.Description("Run supervised AI coding agents side by side and relay messages between them."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(c int) { exited, code = true, c }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	)
	if err != nil {
		fmt.Fprintln(stderr, "swarm:", err)
		return 1
	}
	kctx, err := cmdline.Parse(args)
	if exited { // --help
		return code
	}
	if err != nil {
		fmt.Fprintln(stderr, "swarm:", errorLine(usageLine(err, args)))
		return 2
	}
	if err := kctx.Run(&cli.Globals); err != nil {
		err = bus.Damaged(cli.Globals.busDir(), err)
		fmt.Fprintln(stderr, "swarm:", errorLine(err.Error()))
		var ee *exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		return 1
	}
	return 0
}
