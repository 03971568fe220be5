package bus

import (
	"errors"
	"fmt"
	"path/filepath"
)

// Sentinel errors. Functions wrap them with context, so compare with errors.Is.
var (
	// ErrNotFound means the message, delivery, task or agent does not exist.
	ErrNotFound = errors.New("not found")
	// ErrAmbiguous means a short id or id prefix matches more than one row.
	ErrAmbiguous = errors.New("ambiguous id")
	// ErrSchemaTooNew means bus.db was written by a newer swarm.
	ErrSchemaTooNew = errors.New("database schema is newer than this swarm")
	// ErrCorrupt means bus.db is not a readable SQLite database.
	ErrCorrupt = errors.New("database is corrupt or not a swarm bus")
	// ErrInvalidName means a name does not match [A-Za-z0-9][A-Za-z0-9_.-]{0,63}
	// or is reserved where an agent name is required.
	ErrInvalidName = errors.New("invalid name")
	// ErrInvalidMessage means a message lacks a required field.
	ErrInvalidMessage = errors.New("invalid message")
	// ErrInvalidData means a message's data is not valid JSON.
	ErrInvalidData = errors.New("data is not valid JSON")
	// ErrUnknownAgent means a name is not a registered agent.
	ErrUnknownAgent = errors.New("unknown agent")
	// ErrDeliveryFinal means a delivery already reached a final state
	// (confirmed, failed or expired) that the requested change cannot leave.
	ErrDeliveryFinal = errors.New("delivery already final")
	// ErrInvalidHeartbeat means a heartbeat's status or progress is out of
	// range.
	ErrInvalidHeartbeat = errors.New("invalid heartbeat")
	// ErrInvalidTransition means a task cannot move to the requested state.
	ErrInvalidTransition = errors.New("invalid task transition")
	// ErrStateChanged means a task was not in the state a caller expected.
	ErrStateChanged = errors.New("task state changed")
	// ErrNotOwner means a claim is held by someone else (or by nobody).
	ErrNotOwner = errors.New("claim not held by this owner")
	// ErrLost means bus.db was removed or replaced while the Bus had it
	// open (Bus.Lost).
	ErrLost = errors.New("the bus file changed under this swarm")
	// ErrClosed means the Bus has been closed.
	ErrClosed = errors.New("bus closed")
)

// Damaged says where err found a damaged bus and what can be done, when
// it is damage SQLite found past the file's header in the middle of a
// command (ErrCorrupt, found at the start, says so already); else it
// returns err. dir is the bus directory.
func Damaged(dir string, err error) error {
	if !IsCorrupt(err) || errors.Is(err, ErrCorrupt) {
		return err
	}
	return fmt.Errorf("%s is damaged: %w; move it away to start a new bus, or put back a copy", filepath.Join(dir, "bus.db"), err)
}
