package cluster

import (
	"flag"
	"reflect"
	"testing"

	"swarm/wire"
)

var update = flag.Bool("update", false, "write testdata/streams.golden anew (only with a new wire.Version when the shapes changed)")

// What a host and the main swarm send each other over NATS is part of the
// protocol as the socket's methods are: its shapes are recorded in
// testdata/streams.golden for wire.Version, and a field renamed, added,
// removed or retyped in any of them (bus's and supervisor's types under
// them too) fails here until the version is bumped — a host of the older
// version would misread it. Per-agent and command-line calls carry wire's
// methods by name, whose params and results wire's own golden holds.
func TestStreamPayloadShapes(t *testing.T) {
	var s wire.Shapes
	var sp space
	for _, e := range []struct {
		subject string
		payload []reflect.Type
	}{
		{sp.out("HOST") + " (stream " + sp.outStream() + ")", []reflect.Type{reflect.TypeFor[outbound]()}},
		{sp.in("HOST") + " (stream " + sp.inStream() + ")", []reflect.Type{reflect.TypeFor[inbound]()}},
		{sp.definitions("HOST") + " → reply", []reflect.Type{reflect.TypeFor[definitionsRequest](), reflect.TypeFor[definitions]()}},
		{sp.adminHosts() + " → reply", []reflect.Type{reflect.TypeFor[[]HostInfo]()}},
		{sp.actor("HOST") + " → reply", []reflect.Type{reflect.TypeFor[actorCall](), reflect.TypeFor[agentReply]()}},
		{sp.agent("HOST") + " → reply", []reflect.Type{reflect.TypeFor[agentCall](), reflect.TypeFor[agentReply]()}},
		{sp.state("HOST"), []reflect.Type{reflect.TypeFor[hostState]()}},
	} {
		head := e.subject + ":"
		for _, p := range e.payload {
			head += " " + p.String()
		}
		s.Add(head, e.payload...)
	}
	if err := wire.CheckShapes("testdata/streams.golden", s.String(), *update); err != nil {
		t.Error(err)
	}
}
