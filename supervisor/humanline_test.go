package supervisor

import "testing"

func TestTypedInBox(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		before string
		typed  bool
	}{
		{"› ", false},
		{"› half typed", true},
		{"❯", false},
		{" > ", false},
		{" !   ", false},
		{" ! cat gemini.txt", true},
		{"  ┃  ", false},
		{"  ┃  hello", true},
		{"❯ line one\n  line two", true},
		{"$ echo partial", false}, // not an agent CLI's box: not judged
		{"", false},
	} {
		if got := typedInBox(tc.before); got != tc.typed {
			t.Errorf("typedInBox(%q) = %v", tc.before, got)
		}
	}
}
