package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"swarm/bus"
	"swarm/tasks"
	"swarm/tui"
	"swarm/wire"
)

// Everything that crosses the socket survives JSON: every params and
// result type of every method, and the event frame, filled in every
// field, comes back equal. An error or another interface in a field does
// not (it marshals as {} and cannot be decoded): P on the task board
// failed so whenever a branch was kept.
func TestEveryTypeOfTheProtocolSurvivesJSON(t *testing.T) {
	t.Parallel()
	srv := startSwarm(t, filepath.Join(t.TempDir(), ".swarm"))
	types := map[string]reflect.Type{"event frame": reflect.TypeFor[wire.EventFrame]()}
	for name, h := range srv.methods {
		types[name+" params"] = h.params
		types[name+" result"] = h.result
	}
	names := make([]string, 0, len(types))
	for name := range types {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		typ := types[name]
		v := reflect.New(typ)
		fill(v.Elem(), 0)
		raw, err := json.Marshal(v.Interface())
		if err != nil {
			t.Errorf("%s (%s): marshal: %v", name, typ, err)
			continue
		}
		back := reflect.New(typ)
		if err := json.Unmarshal(raw, back.Interface()); err != nil {
			t.Errorf("%s (%s): %v", name, typ, err)
			continue
		}
		if !reflect.DeepEqual(v.Elem().Interface(), back.Elem().Interface()) {
			t.Errorf("%s (%s) changed on the way:\n sent %+v\n got  %+v", name, typ, v.Elem().Interface(), back.Elem().Interface())
		}
	}
}

// The server serves every method of the protocol, with the params and
// result types wire declares, and no other; and every method of what the
// UI needs of a swarm (tui's Backend, Reader and Focuser) is one of them,
// so an attached UI can do all an in-process one can.
func TestEveryMethodIsServed(t *testing.T) {
	t.Parallel()
	srv := startSwarm(t, filepath.Join(t.TempDir(), ".swarm"))
	declared := map[string]bool{}
	for _, m := range wire.Methods() {
		declared[m.Name] = true
		switch h, ok := srv.methods[m.Name]; {
		case m.Name == wire.Subscribe.Name || m.Name == wire.Stop.Name:
			// Answered by the connection itself (Server.serveConn).
		case !ok:
			t.Errorf("the server does not serve %s", m.Name)
		case h.params != m.Params || h.result != m.Result:
			t.Errorf("%s is served as %s → %s, declared %s → %s", m.Name, h.params, h.result, m.Params, m.Result)
		}
	}
	for name := range srv.methods {
		if !declared[name] {
			t.Errorf("the server serves %s, which package wire does not declare", name)
		}
	}
	for _, iface := range []reflect.Type{reflect.TypeFor[tui.Backend](), reflect.TypeFor[tui.Reader](), reflect.TypeFor[tui.Focuser]()} {
		for i := range iface.NumMethod() {
			if name := iface.Method(i).Name; !declared[name] {
				t.Errorf("tui.%s's %s is not a method of the protocol: an attached UI cannot do it", iface.Name(), name)
			}
		}
	}
}

// fill sets every field v's JSON carries to a value that is not zero.
func fill(v reflect.Value, depth int) {
	if depth > 6 { // a type that holds itself
		return
	}
	switch v.Interface().(type) {
	case time.Time:
		v.Set(reflect.ValueOf(time.Date(2026, 11, 25, 10, 4, 5, 6000000, time.UTC)))
		return
	case json.RawMessage:
		v.Set(reflect.ValueOf(json.RawMessage(`{"n":1}`)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), depth+1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), depth+1)
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), depth+1)
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, depth+1)
		fill(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Interface:
		// What an interface holds does not come back: an error here is
		// what the test is for.
		v.Set(reflect.ValueOf(errors.New("an error")))
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() || strings.Split(f.Tag.Get("json"), ",")[0] == "-" {
				continue
			}
			fill(v.Field(i), depth+1)
		}
	default:
		panic(fmt.Sprintf("fill: a %s", v.Type()))
	}
}

// The test above would pass with nothing to check: it checks a type that
// has an error field, as tasks.Pruned has.
func TestFillFindsAnErrorField(t *testing.T) {
	v := reflect.New(reflect.TypeFor[[]tasks.Pruned]())
	fill(v.Elem(), 0)
	raw, err := json.Marshal(v.Interface())
	if err != nil {
		t.Fatal(err)
	}
	var back []tasks.Pruned
	if err := json.Unmarshal(raw, &back); err == nil {
		t.Fatalf("an error field came back from %s", raw)
	}
	var m bus.Message
	fill(reflect.ValueOf(&m).Elem(), 0)
	if m.From == "" || m.Time.IsZero() || len(m.Deliveries) != 1 || m.Deliveries[0].Recipient == "" {
		t.Fatalf("fill left fields empty: %+v", m)
	}
}
