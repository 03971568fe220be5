package spawner

import "testing"

// A preview taken back with its echo, where an older line among those
// taken was recorded before the last replay began (forget stops there):
// the echo is gone all the same, and the next line recorded is not taken
// for the echo of the command typed last.
func TestAnEchoTakenBackWithOlderLinesLeavesNoEcho(t *testing.T) {
	var r replay
	r.record("older output that the program printed", "", false)
	r.record("a line committed before the clear", "", false)
	r.begin(24) // the screen cleared: lines recorded since are fresh
	r.end()
	r.record("› cat notes.txt", "cat notes.txt", false)
	r.record("first line of the file, as a preview", "", false)
	r.forget([]string{"a line committed before the clear", "› cat notes.txt", "first line of the file, as a preview"})
	r.record("a line printed after the preview went", "", false)
	r.begin(24)
	if r.echo >= 0 {
		t.Fatalf("the replay takes line %d (%q) for the echo; want none", r.echo, r.lines[r.echo])
	}
}
