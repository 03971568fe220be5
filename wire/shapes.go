package wire

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
)

// Shapes describes payloads as JSON lays them out: a head line per entry
// (a method with its params and result, a frame, a stream's subject with
// its payload) and then every named struct type they hold, each with its
// fields' JSON names and types. Two peers of one Version must agree on it,
// so the tests keep it in a golden file (CheckShapes): the socket's
// methods in wire's, the cluster's streams in cluster's.
type Shapes struct {
	heads []string
	types map[string]string
}

// Add records head and walks ts for the struct types they hold.
func (s *Shapes) Add(head string, ts ...reflect.Type) {
	s.heads = append(s.heads, head)
	if s.types == nil {
		s.types = map[string]string{}
	}
	for _, t := range ts {
		s.walk(t)
	}
}

func (s *Shapes) walk(t reflect.Type) {
	switch {
	case custom(t):
	case t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		s.walk(t.Elem())
	case t.Kind() == reflect.Map:
		s.walk(t.Key())
		s.walk(t.Elem())
	case t.Kind() == reflect.Struct:
		if _, done := s.types[t.String()]; done {
			return
		}
		s.types[t.String()] = describe(t)
		for _, f := range fields(t) {
			s.walk(f.Type)
		}
	}
}

// String is the description under "protocol Version": the heads in the
// order added, then the types sorted by name.
func (s *Shapes) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "protocol %d\n\n", Version)
	for _, h := range s.heads {
		fmt.Fprintf(&b, "%s\n", h)
	}
	b.WriteString("\n")
	for _, n := range slices.Sorted(func(yield func(string) bool) {
		for n := range s.types {
			if !yield(n) {
				return
			}
		}
	}) {
		fmt.Fprintf(&b, "%s\n", s.types[n])
	}
	return b.String()
}

// CheckShapes compares got with the golden file at path. A change of shape
// under the same Version is an error (an older peer would misread it:
// tmux's PROTOCOL_VERSION rule); with a new Version, update writes got
// into the file.
func CheckShapes(path, got string, update bool) error {
	raw, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	want := string(raw)
	if got == want {
		return nil
	}
	recorded := 0
	fmt.Sscanf(want, "protocol %d", &recorded)
	switch {
	case recorded == Version:
		return fmt.Errorf("the payloads' shapes changed but wire.Version is still %d: bump it (an older peer would misread them), then run go test with -update\n%s",
			Version, lineDiff(want, got))
	case update:
		return os.WriteFile(path, []byte(got), 0o644)
	default:
		return fmt.Errorf("%s records protocol %d, this is %d: run go test with -update", path, recorded, Version)
	}
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
