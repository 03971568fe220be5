package supervisor

import (
	"strings"
	"testing"

	"swarm/bus"
	"swarm/textsafe"
)

// hostile is a body with what must never reach a terminal from an agent.
const hostile = "hi\x1b]52;c;cm0gLXJmIH4=\a\x1b[2J\x00\x07\x7f\u009b31m\x9b\u202eexe.txt\u200b\tcompleted"

func TestATypedBodyIsSafe(t *testing.T) {
	t.Parallel()
	a := &agent{s: &Supervisor{}}
	text, err := a.render(bus.Message{ID: "01a20b94-2ef5-76a9-91e8-5dc4a963f11b", From: "a", Body: hostile}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !textsafe.Safe(text) || strings.ContainsAny(text, "\t\u202e\u200b") {
		t.Errorf("typed %q", text)
	}
}
