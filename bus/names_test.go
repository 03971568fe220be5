package bus

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"
)

// Every kind swarm declares is a kind CheckKind takes (the kinds have a
// pattern of their own, so a change to the name grammar cannot refuse
// them), and a kind that is not a word is refused with ErrInvalidMessage.
func TestCheckKind(t *testing.T) {
	declared := kindConstants(t)
	if len(declared) < 10 {
		t.Fatalf("found %d Kind constants in messages.go: %v", len(declared), declared)
	}
	for _, k := range declared {
		if err := CheckKind(k); err != nil {
			t.Errorf("the declared kind %q: %v", k, err)
		}
	}
	for _, k := range []Kind{"", "two words", "_x", "x\n", "é", "task_done;drop", Kind(make([]byte, 65))} {
		if err := CheckKind(k); !errors.Is(err, ErrInvalidMessage) {
			t.Errorf("CheckKind(%q) = %v, want ErrInvalidMessage", k, err)
		}
	}
	if kindPattern == namePattern {
		t.Error("kinds and names share one pattern")
	}
}

// kindConstants reads the constants of type Kind declared in messages.go.
func kindConstants(t *testing.T) []Kind {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "messages.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []Kind
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Kind" {
			return true
		}
		for _, v := range vs.Values {
			if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, Kind(s))
			}
		}
		return true
	})
	return out
}
