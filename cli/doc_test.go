package cli

import (
	"go/parser"
	"go/token"
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// The package doc names the file of every command: a command added
// without it there fails here.
func TestThePackageDocNamesEveryCommand(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "cli.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	doc := f.Doc.Text()
	var cli CLI
	k, err := kong.New(&cli, kong.Name("swarm"))
	if err != nil {
		t.Fatal(err)
	}
	// The table's lines are indented: a file, then its commands.
	listed := map[string]bool{}
	row := regexp.MustCompile(`^\s+(\S+\.go)?\s+(.*)$`)
	for _, line := range strings.Split(doc, "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			for _, w := range strings.FieldsFunc(m[2], func(r rune) bool { return strings.ContainsRune(" ,|()", r) }) {
				listed[w] = true
			}
		}
	}
	check := func(names []string, where string) {
		for _, name := range names {
			if !listed[name] {
				t.Errorf("command %q%s is not in cli's package doc (cli.go): name it beside its file", name, where)
			}
		}
	}
	check(commandNames(k.Model.Node), "")
	for _, c := range k.Model.Node.Children {
		if c.Name == "task" {
			check(commandNames(c), " (of task)")
		}
	}
}
