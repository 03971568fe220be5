package supervisor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"swarm/bus"
	"swarm/textsafe"
)

// An agent CLI's hooks tell swarm where its turn is, better than silence
// can: Claude Code runs `swarm hook prompt` when a prompt is submitted,
// `swarm hook stop` when its turn ends (also in an API error) and `swarm
// hook notification` when it waits for the person; Codex runs `swarm hook notify` when a turn
// ends; Gemini CLI runs the same three as Claude Code. Each hook sends
// swarm a turn message (bus.KindTurn), applied here in order with the
// other control messages: the agent's Turn changes, the event log says so,
// the heartbeat on the bus records it for `swarm status`, and an agent
// whose turn ended gets what waits for it at once, without its quiet
// period (its input box must still show, and a person's line still holds
// messages back).

// Hooks are the hook names `swarm hook` takes, and the status each one
// reports (notification and notify look at what the CLI passes them).
var Hooks = []string{"prompt", "stop", "notification", "notify"}

// turn applies a turn message from agent.
func (s *Supervisor) turn(ctx context.Context, name string, d controlData) error {
	st, err := bus.ParseStatus(d.Status)
	if err != nil {
		return err
	}
	if st == bus.StatusBlocked {
		return errors.New("a turn is working, idle or needs-human")
	}
	a, err := s.agent(name)
	if err != nil {
		return err
	}
	a.setTurn(Turn{Status: st, Hook: textsafe.Words(d.Hook), Note: textsafe.Words(d.Note), At: time.Now()})
	return nil
}

// idleByHook says whether the agent's CLI (its hook, or its screen) said
// its turn ended and nothing has been typed into it since: what waits for
// it can go without waiting for its output to be quiet.
func (a *agent) idleByHook() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.turn.Status == bus.StatusIdle && a.turn.Known()
}

// submitted notes that a message was typed in and submitted: the CLI works
// on it until a hook says otherwise.
func (a *agent) submitted() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.turn.Known() {
		a.turn = Turn{Status: bus.StatusWorking, At: time.Now()}
	}
}

// HookTurn says what a CLI's hook call means for the agent's turn: the
// hook's name (one of Hooks) and what the CLI passed it (the JSON Claude
// Code and Gemini CLI write to a hook's stdin, or the JSON Codex gives its
// notify program as its last argument). ok is false for a call that says
// nothing about the turn (a notification that sign-in worked, a Codex
// notice of another type).
func HookTurn(hook string, payload []byte) (status bus.Status, note string, ok bool, err error) {
	var p struct {
		Message          string `json:"message"`
		NotificationType string `json:"notification_type"`
		Type             string `json:"type"`
	}
	if len(bytes.TrimSpace(payload)) > 0 {
		if err := json.Unmarshal(payload, &p); err != nil && (hook == "notification" || hook == "notify") {
			return 0, "", false, fmt.Errorf("hook %s: what the CLI passed is not JSON: %v", hook, err)
		}
	}
	switch hook {
	case "prompt":
		return bus.StatusWorking, "", true, nil
	case "stop":
		return bus.StatusIdle, "", true, nil
	case "notification":
		switch p.NotificationType {
		case "idle_prompt":
			// Claude Code waits for its next prompt: idle, which the
			// next message ends; not news for the person.
			return bus.StatusIdle, p.Message, true, nil
		case "auth_success":
			return 0, "", false, nil
		}
		if p.Message == "" {
			p.Message = "it waits for you"
		}
		return bus.StatusNeedsHuman, p.Message, true, nil
	case "notify":
		switch {
		case p.Type == "agent-turn-complete":
			return bus.StatusIdle, "", true, nil
		case strings.Contains(p.Type, "approval"):
			return bus.StatusNeedsHuman, "it asks for your approval", true, nil
		}
		return 0, "", false, nil
	}
	return 0, "", false, fmt.Errorf("unknown hook %q (want %s)", hook, strings.Join(Hooks, ", "))
}
