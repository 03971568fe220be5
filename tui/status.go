package tui

import "fmt"

// setStatus shows an informational message answering what the person
// did.
func (m *Model) setStatus(format string, args ...any) {
	m.status = status{text: fmt.Sprintf(format, args...), at: m.opts.Now()}
}

// setError shows an error answering what the person did, and logs it; it
// stays until the next message.
func (m *Model) setError(err error) {
	m.status = status{text: err.Error(), err: true, at: m.opts.Now()}
	m.opts.Log.Warn("ui", "err", err)
}

// noteEvent shows a message about something that happened in the swarm;
// errors are logged. While the result of an action is fresh it waits
// (only the newest waits), so that the person sees what their action did.
func (m *Model) noteEvent(text string, isErr bool) {
	if isErr {
		m.opts.Log.Warn("ui", "err", text)
	}
	st := status{text: text, err: isErr, at: m.opts.Now(), background: true}
	if m.status.text != "" && !m.status.background && st.at.Sub(m.status.at) <= statusTTL {
		m.later = &st
		return
	}
	m.status, m.later = st, nil
}

// expireStatus clears an informational message after its time, and shows
// a message that waited for an action's result.
func (m *Model) expireStatus() {
	now := m.opts.Now()
	old := m.status.text != "" && now.Sub(m.status.at) > statusTTL
	if m.later != nil && (m.status.text == "" || m.status.background || old) {
		m.status, m.later = *m.later, nil
		m.status.at = now
		return
	}
	if old && !m.status.err {
		m.status = status{}
	}
}
