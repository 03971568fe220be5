package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"swarm/swarmapi"
)

// inputItem is one key or one paste for an attached agent.
type inputItem struct {
	key     swarmapi.Key
	paste   string
	isPaste bool
}

// typedKey is k as the swarm types it into an agent; false for a key no
// terminal takes (a lone modifier, a media key…). The codes and
// modifiers are the same numbers (swarmapi.Key); lock states are no
// modifiers of the key.
func typedKey(k tea.Key) (swarmapi.Key, bool) {
	mods := swarmapi.KeyMod(k.Mod) & (swarmapi.ModShift | swarmapi.ModAlt | swarmapi.ModCtrl | swarmapi.ModMeta)
	key := swarmapi.Key{Code: k.Code, Text: k.Text, Mod: mods}
	return key, key.Typeable()
}

// inputQueue holds what was typed for one agent and not yet written.
// Writing can block (an agent that does not read its input), so it runs
// in a command; one batch per agent is in flight at a time, which keeps
// the keys in order.
type inputQueue struct {
	pending []inputItem
	busy    bool
}

// maxPendingInput bounds the keys queued for an agent that does not read.
const maxPendingInput = 4096

// inputSentMsg reports that a batch was written (or why not).
type inputSentMsg struct {
	agent   string
	err     error
	dropped int // items of the batch not written after the error
}

// queueInput queues a key or paste for an agent and starts writing if
// nothing is in flight.
func (m *Model) queueInput(name string, it inputItem) tea.Cmd {
	q := m.inputs[name]
	if q == nil {
		q = &inputQueue{}
		m.inputs[name] = q
	}
	if len(q.pending) >= maxPendingInput {
		m.setError(fmt.Errorf("%s is not reading its input: keys dropped", name))
		return nil
	}
	q.pending = append(q.pending, it)
	if q.busy {
		return nil
	}
	return m.flushInput(name)
}

// flushInput writes everything queued for name in one command.
func (m *Model) flushInput(name string) tea.Cmd {
	q := m.inputs[name]
	if q == nil || len(q.pending) == 0 {
		if q != nil {
			q.busy = false
		}
		return nil
	}
	batch := q.pending
	q.pending = nil
	q.busy = true
	sw := m.sw
	return func() tea.Msg {
		for i, it := range batch {
			var err error
			if it.isPaste {
				err = sw.Paste(name, it.paste)
			} else {
				err = sw.SendKey(name, it.key)
			}
			if err != nil {
				return inputSentMsg{agent: name, err: err, dropped: len(batch) - i - 1}
			}
		}
		return inputSentMsg{agent: name}
	}
}

func (m *Model) inputSent(msg inputSentMsg) tea.Cmd {
	if msg.err != nil {
		m.setError(fmt.Errorf("type into %s: %w", msg.agent, msg.err))
	}
	if q := m.inputs[msg.agent]; q != nil {
		q.busy = false
	}
	return m.flushInput(msg.agent)
}
