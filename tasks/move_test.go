package tasks

import (
	"errors"
	"slices"
	"testing"

	"swarm/bus"
)

// Each move named by a person or an agent is a transition the bus allows,
// from every state it applies to; Allowed refuses the others as the bus
// would, naming the state.
func TestMovesAgreeWithTheBusTable(t *testing.T) {
	for move, rule := range moveRules {
		for _, s := range bus.TaskStates() {
			err := Allowed(bus.Task{ID: "t1", State: s}, move)
			applies := slices.Contains(rule.from, s)
			if applies && !slices.Contains(bus.AllowedMoves(s), rule.to) {
				t.Errorf("%s applies to %s, but the bus does not allow %s → %s", move, s, s, rule.to)
			}
			switch {
			case applies && err != nil:
				t.Errorf("%s on a task %s refused: %v", move, s, err)
			case !applies && s != rule.to && (err == nil || !errors.Is(err, bus.ErrInvalidTransition)):
				t.Errorf("%s on a task %s: %v, want a refusal", move, s, err)
			}
		}
	}
	if err := Allowed(bus.Task{ID: "t1", State: bus.TaskAssigned}, MoveRetry); err == nil {
		t.Error("retry of an ASSIGNED task taken for a repeat")
	}
}
