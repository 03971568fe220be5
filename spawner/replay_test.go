package spawner

import "testing"

// A line the committer takes back (forget) that was the echo of the
// command typed last leaves no echo behind: the line recorded after it is
// not taken for that echo when the screen is cleared, nor is a position
// past the lines recorded (which the replay would index).
func TestAnEchoTakenBackLeavesNoEcho(t *testing.T) {
	var r replay
	r.record("older output that the program printed", "")
	r.record("› cat notes.txt", "cat notes.txt")
	r.record("first line of the file, as a preview", "")
	r.forget([]string{"› cat notes.txt", "first line of the file, as a preview"})
	r.record("a line printed after the preview went", "")
	r.begin(24)
	if r.echo >= 0 {
		t.Fatalf("the replay takes line %d (%q) for the echo; want none", r.echo, r.lines[r.echo])
	}
	for _, line := range []string{"older output that the program printed", "a line printed after the preview went"} {
		if !r.repeats(line) {
			t.Fatalf("%q drawn again after the clear is not taken as replayed", line)
		}
	}

	// The echo recorded again is the echo once more.
	r.end()
	r.record("› cat notes.txt", "cat notes.txt")
	r.begin(24)
	if r.echo < 0 || r.lines[r.echo] != RowKey("› cat notes.txt") {
		t.Fatalf("echo at %d after the echo was recorded again; want its line", r.echo)
	}
}
