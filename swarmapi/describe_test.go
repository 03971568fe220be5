package swarmapi

import (
	"strings"
	"testing"
	"time"

	"swarm/bus"
	"swarm/textsafe"
)

// hostile is a body with what must never reach a terminal from an agent.
const hostile = "hi\x1b]52;c;cm0gLXJmIH4=\a\x1b[2J\x00\x07\x7f\u009b31m\x9b\u202eexe.txt\u200b\tcompleted"

func TestEventsAreSafeToPrint(t *testing.T) {
	t.Parallel()
	m := &bus.Message{ID: "01a20b94-2ef5-76a9-91e8-5dc4a963f11b", From: "a", To: "b", Kind: bus.KindMessage, Body: hostile}
	for _, ev := range []Event{
		{Kind: EventMessage, Time: time.Now(), Message: m},
		{Kind: EventNotice, Time: time.Now(), Agent: "a", Text: hostile},
		{Kind: EventUnconfirmed, Time: time.Now(), Agent: "b", Message: m, Text: hostile},
		{Kind: EventAgentExited, Time: time.Now(), Agent: "a", Text: hostile},
	} {
		text := FormatEvent(ev)
		js, err := ev.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		for _, out := range []string{text, string(js)} {
			if !textsafe.Safe(strings.ReplaceAll(out, "\n", "")) {
				t.Errorf("%s prints %q", ev.Kind, out)
			}
		}
	}
}
