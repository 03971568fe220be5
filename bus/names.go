package bus

import (
	"fmt"
	"regexp"
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

// ValidName reports whether name can be used as an agent name: it matches
// [A-Za-z0-9][A-Za-z0-9_.-]{0,63} and is not one of the reserved names
// swarm, human and *.
func ValidName(name string) error {
	if name == Swarm || name == Human || name == Everyone {
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
