package bus

import (
	"fmt"
	"regexp"
	"strings"
)

// Reserved names that no agent may take.
const (
	// Swarm is the orchestrator itself: it authors notices and consumes
	// control messages (task_start, heartbeat, …) sent to it.
	Swarm = "swarm"
	// Human is the person at the keyboard or the CLI outside any agent.
	Human = "human"
	// Everyone as a recipient fans a message out to every registered agent
	// except its sender.
	Everyone = "*"
)

// namePattern is the name grammar: what an agent, swarm or human is
// called. parser (ValidTarget) and games (the sender of a typed message)
// read names without importing bus and keep copies of it;
// FuzzNameGrammarAgrees (games/names_test.go) holds the three together.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// kindPattern is what a message's kind may be: a word of letters, digits
// and _ . -, at most 64 long. It has the characters of a name today, but it
// is a rule of its own: names and kinds change for different reasons.
var kindPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// Reserved reports whether name is one of the names that are not agents
// (swarm, human, *), in any case: "Swarm" would read as swarm itself.
func Reserved(name string) bool {
	return strings.EqualFold(name, Swarm) || strings.EqualFold(name, Human) || name == Everyone
}

// ValidName reports whether name can be used as an agent name: it matches
// [A-Za-z0-9][A-Za-z0-9_.-]{0,63} and is not Reserved.
func ValidName(name string) error {
	if Reserved(name) {
		return fmt.Errorf("%w: %q is reserved", ErrInvalidName, name)
	}
	if !WellFormedName(name) {
		return fmt.Errorf("%w: %q (want letters, digits, _ . -, at most 64, starting with a letter or digit)", ErrInvalidName, name)
	}
	return nil
}

// WellFormedName reports whether name has the form of a name (the
// grammar alone, whether reserved or registered or not): a letter or
// digit, then up to 63 letters, digits, _ . or -.
func WellFormedName(name string) bool { return namePattern.MatchString(name) }

// validParty reports whether name can author or receive a message:
// an agent name or one of the pseudo-agents swarm and human.
func validParty(name string) bool {
	return name == Swarm || name == Human || WellFormedName(name)
}

// CheckKind reports whether k can be a message's kind: a word of letters,
// digits, _ . and -, at most 64 long ("message", "task_done").
func CheckKind(k Kind) error {
	if !kindPattern.MatchString(string(k)) {
		q := string(k)
		if len(q) > 40 {
			q = q[:37] + "..."
		}
		return fmt.Errorf("%w: kind %q is not a word (letters, digits, _ . -)", ErrInvalidMessage, q)
	}
	return nil
}
