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

var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

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
	if !namePattern.MatchString(name) {
		return fmt.Errorf("%w: %q (want letters, digits, _ . -, at most 64, starting with a letter or digit)", ErrInvalidName, name)
	}
	return nil
}

// validParty reports whether name can author or receive a message:
// an agent name or one of the pseudo-agents swarm and human.
func validParty(name string) bool {
	return name == Swarm || name == Human || namePattern.MatchString(name)
}

// CheckKind reports whether k can be a message's kind: a word of letters,
// digits, _ . and -, at most 64 long ("message", "task_done").
func CheckKind(k Kind) error {
	if !namePattern.MatchString(string(k)) {
		q := string(k)
		if len(q) > 40 {
			q = q[:37] + "..."
		}
		return fmt.Errorf("%w: kind %q is not a word (letters, digits, _ . -)", ErrInvalidMessage, q)
	}
	return nil
}
