package wire

import (
	"flag"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "write testdata/protocol.golden anew (only with a new Version when the shapes changed)")

const golden = "testdata/protocol.golden"

// The shapes of every payload the protocol carries are those recorded in
// protocol.golden for this Version: a field renamed, added, removed or
// retyped anywhere under a method's params or result (in bus's or
// swarmapi's types too) fails here until Version is bumped, as an older
// peer would misread it (tmux's PROTOCOL_VERSION rule). With a new
// Version, go test ./wire -update records the new shapes.
func TestPayloadShapes(t *testing.T) {
	if err := CheckShapes(golden, shapes(), *update); err != nil {
		t.Error(err)
	}
}

// A renamed field is a change of shape: the test above would catch it.
func TestShapeOfARenamedField(t *testing.T) {
	type before struct{ Agent string }
	type after struct{ Name string }
	type tagged struct { // the same shape as after
		Agent string `json:"Name"`
	}
	shape := func(t reflect.Type) string { _, s, _ := strings.Cut(describe(t), " {"); return s }
	a, b, c := shape(reflect.TypeFor[before]()), shape(reflect.TypeFor[after]()), shape(reflect.TypeFor[tagged]())
	if a == b || b != c || !strings.Contains(a, "Agent string") {
		t.Fatalf("shapes:\n%s\n%s\n%s", a, b, c)
	}
}

// Every method has a name of its own.
func TestMethodNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range Methods() {
		if seen[m.Name] {
			t.Errorf("method %q declared twice", m.Name)
		}
		seen[m.Name] = true
	}
}

// shapes describes the protocol: its version, each method's params and
// result, and every named struct type they hold, as JSON lays them out.
func shapes() string {
	var s Shapes
	methods := Methods()
	slices.SortFunc(methods, func(a, b Spec) int { return strings.Compare(a.Name, b.Name) })
	for _, m := range methods {
		s.Add(fmt.Sprintf("%s(%s) %s", m.Name, name(m.Params), name(m.Result)), m.Params, m.Result)
	}
	for _, t := range []reflect.Type{reflect.TypeFor[Hello](), reflect.TypeFor[Request](), reflect.TypeFor[Reply]()} {
		s.Add("frame "+name(t), t)
	}
	return s.String()
}
