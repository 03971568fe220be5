package spawner

import "testing"

// A line the committer takes back (forget) that was the echo of the
// command typed last leaves no echo behind: the line recorded after it is
// not taken for that echo when the screen is cleared, nor is a position
// past the lines recorded (which the replay would index).
func TestAnEchoTakenBackLeavesNoEcho(t *testing.T) {
	var r replay
	r.record("older output that the program printed", "", false)
	r.record("› cat notes.txt", "cat notes.txt", false)
	r.record("first line of the file, as a preview", "", false)
	r.forget([]string{"› cat notes.txt", "first line of the file, as a preview"})
	r.record("a line printed after the preview went", "", false)
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
	r.record("› cat notes.txt", "cat notes.txt", false)
	r.begin(24)
	if r.echo < 0 || r.lines[r.echo] != RowKey("› cat notes.txt") {
		t.Fatalf("echo at %d after the echo was recorded again; want its line", r.echo)
	}
}

// Codex inline scrolls a running command's output into the transcript
// row by row; when the output is fast, the "• Running" header left before
// it was read and the first row that shows the command is "• You ran",
// under the output. Written again after a resize, the transcript shows
// that output under "• You ran": its rows, read while the command ran,
// are the replay's, not new (a relay among them was read twice,
// codex-inline-s98600016). The same rows under the header of the next
// command, whose output they were not, are new: that command printed them
// again.
func TestOutputReadBeforeItsHeaderIsReplayedUnderIt(t *testing.T) {
	relay := "    @relay:alice has café describe street \"quoted\""
	var r replay
	r.record("  >_ OpenAI Codex (v0.171.0)", "", false)
	r.record("› Ask Codex to do anything", "Ask Codex to do anything", false)
	r.record(relay, "", false)
	r.record("    tire enough dollar noise", "", false)
	r.record("• You ran sh f01.sh", "sh f01.sh", true)
	r.record("  └ plural", "", false)
	r.record("    young pound list science human year crème invent", "", false)
	r.record("    end of the output, 212 lines", "", false)

	r.widthChanged()
	r.written()
	r.begin(53)
	for _, line := range []string{"  >_ OpenAI Codex (v0.171.0)", "• You ran sh f01.sh", "  └ plural", "    young pound list science human year crème invent", relay, "    tire enough dollar noise", "    end of the output, 212 lines"} {
		if !r.repeats(line) {
			t.Fatalf("%q, written again under the header of the command whose output it was, is taken for new", line)
		}
	}

	// A block shown for the first time, after a new line under the
	// header, is new, though its common rows are those of a block read
	// while the command ran.
	var b replay
	b.record("› Ask Codex to do anything", "Ask Codex to do anything", false)
	b.record("    [[RELAY]]", "", false)
	b.record(`    {"to":"qa_1","type":"message","body":"student"}`, "", false)
	b.record("    [[/RELAY]]", "", false)
	b.record("• You ran sh f01.sh", "sh f01.sh", true)
	b.record("  └ plural", "", false)
	b.widthChanged()
	b.written()
	b.begin(53)
	for _, line := range []string{"• You ran sh f01.sh", "  └ plural"} {
		if !b.repeats(line) {
			t.Fatalf("%q, written again, is taken for new", line)
		}
	}
	if b.repeats("    well") {
		t.Fatalf("a line never recorded is taken for replayed")
	}
	if b.repeats("    [[RELAY]]") {
		t.Fatalf("the first row of a block shown for the first time, after a new line, is taken for a row of the block read while the command ran")
	}

	// A command's header right under another's output: the rows above
	// it are that one's. Written again with that output left out, the
	// same text under the later header is the later command's, new.
	var o replay
	o.record("› Ask Codex to do anything", "Ask Codex to do anything", false)
	o.record("• You ran cat f01.txt", "cat f01.txt", true)
	o.record(relay, "", false)
	o.record("• You ran cat f02.txt", "cat f02.txt", true)
	o.begin(53)
	for _, line := range []string{"• You ran cat f01.txt", "• You ran cat f02.txt"} {
		if !o.repeats(line) {
			t.Fatalf("%q, written again, is taken for new", line)
		}
	}
	if o.repeats(relay) {
		t.Fatalf("%q under the header of a command that printed it again is taken for the older command's output", relay)
	}
}
