package wire

import (
	"encoding"
	"encoding/json"
	"flag"
	"fmt"
	"os"
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
	got := shapes()
	raw, err := os.ReadFile(golden)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	want := string(raw)
	if got == want {
		return
	}
	recorded := 0
	fmt.Sscanf(want, "protocol %d", &recorded)
	switch {
	case recorded == Version:
		t.Errorf("the payloads' shapes changed but wire.Version is still %d: bump it (an older peer would misread them), then run go test ./wire -update\n%s",
			Version, lineDiff(want, got))
	case *update:
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	default:
		t.Errorf("%s records protocol %d, this is %d: run go test ./wire -update", golden, recorded, Version)
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
	var b strings.Builder
	fmt.Fprintf(&b, "protocol %d\n\n", Version)
	types := map[string]string{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		switch {
		case custom(t):
		case t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
			walk(t.Elem())
		case t.Kind() == reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case t.Kind() == reflect.Struct:
			if _, done := types[t.String()]; done {
				return
			}
			types[t.String()] = describe(t)
			for _, f := range fields(t) {
				walk(f.Type)
			}
		}
	}
	methods := Methods()
	slices.SortFunc(methods, func(a, b Spec) int { return strings.Compare(a.Name, b.Name) })
	for _, m := range methods {
		fmt.Fprintf(&b, "%s(%s) %s\n", m.Name, name(m.Params), name(m.Result))
		walk(m.Params)
		walk(m.Result)
	}
	for _, t := range []reflect.Type{reflect.TypeFor[Hello](), reflect.TypeFor[Request](), reflect.TypeFor[Reply]()} {
		fmt.Fprintf(&b, "frame %s\n", name(t))
		walk(t)
	}
	b.WriteString("\n")
	for _, n := range slices.Sorted(func(yield func(string) bool) {
		for n := range types {
			if !yield(n) {
				return
			}
		}
	}) {
		fmt.Fprintf(&b, "%s\n", types[n])
	}
	return b.String()
}

// describe is a struct type's JSON fields: name and type of each.
func describe(t reflect.Type) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s {", t.String())
	for i, f := range fields(t) {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %s %s", f.Name, name(f.Type))
		if f.omit {
			b.WriteString(" omitempty")
		}
	}
	b.WriteString(" }")
	return b.String()
}

type field struct {
	Name string
	Type reflect.Type
	omit bool
}

// fields are t's fields as encoding/json writes them: by their tag's name,
// those of embedded structs in line, "-" and unexported ones left out.
func fields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		n, opts, _ := strings.Cut(tag, ",")
		if n == "-" && opts == "" {
			continue
		}
		if f.Anonymous && n == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && !custom(ft) {
				out = append(out, fields(ft)...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if n == "" {
			n = f.Name
		}
		out = append(out, field{Name: n, Type: f.Type, omit: strings.Contains(opts, "omitempty")})
	}
	return out
}

// custom says whether t writes its own JSON (time.Time, json.RawMessage,
// a state that travels as its word): its shape is its name.
func custom(t reflect.Type) bool {
	for _, x := range []reflect.Type{t, reflect.PointerTo(t)} {
		if x.Implements(reflect.TypeFor[json.Marshaler]()) || x.Implements(reflect.TypeFor[encoding.TextMarshaler]()) {
			return true
		}
	}
	return false
}

// name is how a type reads in the shapes: a struct or a type that writes
// its own JSON by its name, the others by their kind.
func name(t reflect.Type) string {
	switch {
	case custom(t):
		return t.String() + "(marshals itself)"
	case t.Kind() == reflect.Struct:
		return t.String()
	case t.Kind() == reflect.Pointer:
		return "*" + name(t.Elem())
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return "base64"
	case t.Kind() == reflect.Slice:
		return "[]" + name(t.Elem())
	case t.Kind() == reflect.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), name(t.Elem()))
	case t.Kind() == reflect.Map:
		return "map[" + name(t.Key()) + "]" + name(t.Elem())
	case t.Kind() == reflect.Interface:
		return "any"
	}
	return t.Kind().String()
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for _, l := range w {
		if !slices.Contains(g, l) {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
	}
	return b.String()
}
