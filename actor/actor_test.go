package actor

import (
	"encoding/json"
	"errors"
	"testing"
)

// What a request says on its face is refused before anything is asked of
// the bus, in one line, as a usage error (the command line exits 2 for
// it, as for a bad flag).
func TestARequestIsCheckedOnItsFace(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"data not JSON", second(SendRequest{To: "bob", Body: "hi", Kind: "message", Data: json.RawMessage(`{"a":`)}.Message()),
			"send: --data is not valid JSON: unexpected end of JSON input"},
		{"progress out of range", second(HeartbeatRequest{Status: "working", Progress: 1.5}.Report()),
			"heartbeat: progress 1.5 is not between 0 and 1: invalid heartbeat"},
		{"unknown status", second(HeartbeatRequest{Status: "sleeping"}.Report()),
			`heartbeat: unknown status "sleeping" (want idle, working, blocked or needs-human)`},
	} {
		if c.err == nil || c.err.Error() != c.want || !errors.Is(c.err, ErrUsage) {
			t.Errorf("%s: %v, want %q (a usage error)", c.name, c.err, c.want)
		}
	}
	if _, err := (SendRequest{To: "bob", Body: "hi", Kind: "message", Data: json.RawMessage(`{"a":1}`)}).Message(); err != nil {
		t.Errorf("a good request refused: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }
