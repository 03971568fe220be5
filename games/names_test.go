package games

import (
	"strings"
	"testing"

	"swarm/bus"
	"swarm/parser"
)

// FuzzNameGrammarAgrees holds the three copies of the name grammar
// together: bus's (the rule), parser's ValidTarget (what a relay command
// may address) and the sender this player reads from a typed message
// ("[relay #id from NAME] body"). parser and games import nothing of
// swarm, so they keep copies; any name the three disagree on fails here.
func FuzzNameGrammarAgrees(f *testing.F) {
	for _, s := range []string{
		"a", "Z", "0", "alice", "bob-2", "a_b.c-d", "swarm", "human", "Swarm", "*",
		"", "_a", ".a", "-a", "a b", "a]", "a\n", "a\x00", "é", "aé", "a*", "a/b", "a:b", "a#1",
		strings.Repeat("x", 64), strings.Repeat("x", 65), "a" + strings.Repeat(".", 63), "\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		rule := bus.WellFormedName(name)
		if got := parser.ValidTarget(name); got != (rule || name == bus.Everyone) {
			t.Errorf("%q: parser.ValidTarget = %v, bus.WellFormedName = %v", name, got, rule)
		}
		m := inbound.FindStringSubmatch("[relay #1 from " + name + "] move 5")
		if got := m != nil && m[2] == name; got != rule {
			t.Errorf("%q: the player reads it as a sender: %v, bus.WellFormedName = %v", name, got, rule)
		}
	})
}
