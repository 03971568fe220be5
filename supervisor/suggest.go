package supervisor

import (
	"fmt"
	"strings"

	"github.com/agnivade/levenshtein"
)

// Nearest returns the word of known closest to word, when it is close
// enough (an edit distance under 3, ignoring case) to be a typo of it: the
// one rule for "did you mean" in config errors, recipients and commands.
func Nearest(word string, known []string) (string, bool) {
	best, bestD := "", 3
	for _, w := range known {
		if d := levenshtein.ComputeDistance(strings.ToLower(word), strings.ToLower(w)); d < bestD {
			best, bestD = w, d
		}
	}
	return best, best != ""
}

// DidYouMean is ` (did you mean "x"?)` for the word of known nearest to
// word, "" when none is near.
func DidYouMean(word string, known []string) string {
	best, ok := Nearest(word, known)
	if !ok {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}
