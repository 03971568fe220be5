package tui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"swarm/bus"
	"swarm/swarmapi"
	"swarm/textsafe"
)

// dialog is a modal box with the keys while it is open. It holds its own
// state and what its answer does; update says when it is done, and the
// root model, which owns the dialog slot, closes it.
type dialog interface {
	update(km KeyMap, msg tea.Msg) (cmd tea.Cmd, done bool)
	focus() tea.Cmd
	view(w int, km KeyMap) []string
	keys(km KeyMap) string // for the help line
}

// newInput returns a text input with a steady cursor (a blinking one
// would redraw the screen twice a second for nothing).
func newInput(placeholder string, width int) textinput.Model {
	ti := textinput.New()
	ti.Prompt = ""
	ti.Placeholder = placeholder
	st := ti.Styles()
	st.Cursor.Blink = false
	ti.SetStyles(st)
	ti.SetWidth(width)
	return ti
}

// dialogWidth is the outer width of dialogs in a window w cells wide.
func dialogWidth(w int) int { return min(w-4, 72) }

// ---- forms ----

// formDialog is a titled form of labelled text fields; enter submits from
// any field (as the hint says: the fields after the first are often
// optional), tab moves between fields, esc cancels. A field that must not
// be empty gets the focus with the error (fieldError).
type formDialog struct {
	title  string
	intro  string // said above the fields (the question being answered)
	labels []string
	inputs []textinput.Model
	cur    int
	err    string
	action string // what submitting does, for the hint: "send"
	submit func(values []string) (tea.Cmd, error)
	// wait keeps the form open while submit's command runs; its
	// formDoneMsg closes it, or shows the error with the values kept.
	wait    bool
	pending string // what runs, while it does
}

// fieldError is a form's refusal that is about one field: the form moves
// the focus there.
type fieldError struct {
	field int
	err   error
}

func (e fieldError) Error() string { return e.err.Error() }
func (e fieldError) Unwrap() error { return e.err }

// needField refuses a form's values for what field i lacks.
func needField(i int, text string) error { return fieldError{field: i, err: errors.New(text)} }

// formDoneMsg is the outcome of a waiting form's command: text for the
// status line, or the error to show in the form, and the field to edit.
type formDoneMsg struct {
	d     *formDialog
	text  string
	err   error
	field int
	then  tea.Cmd // after a success
}

// updateDialog hands msg to the open dialog and closes it when it is
// done (unless its answer opened another one).
func (m *Model) updateDialog(msg tea.Msg) tea.Cmd {
	d := m.dialog
	cmd, done := d.update(m.keys, msg)
	if done && m.dialog == d {
		m.dialog = nil
	}
	return cmd
}

// formDone applies the outcome of a waiting form: it closes the form, or
// keeps it (re-opens it, if closed meanwhile and no other dialog is open)
// with the error, so that nothing typed is lost.
func (m *Model) formDone(msg formDoneMsg) tea.Cmd {
	d := msg.d
	d.pending = ""
	if msg.err == nil {
		if m.dialog == d {
			m.dialog = nil
		}
		m.setStatus("%s", msg.text)
		return msg.then
	}
	d.err = msg.err.Error()
	switch m.dialog {
	case d:
	case nil:
		m.dialog = d
	default:
		m.setError(msg.err)
		return nil
	}
	d.cur = msg.field
	return d.focus()
}

func (d *formDialog) focus() tea.Cmd {
	for i := range d.inputs {
		d.inputs[i].Blur()
	}
	return d.inputs[d.cur].Focus()
}

func (d *formDialog) update(km KeyMap, msg tea.Msg) (tea.Cmd, bool) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, km.Close):
			return nil, true
		case key.Matches(k, km.NextField):
			d.cur = (d.cur + 1) % len(d.inputs)
			return d.focus(), false
		case key.Matches(k, km.PrevField):
			d.cur = (d.cur - 1 + len(d.inputs)) % len(d.inputs)
			return d.focus(), false
		case key.Matches(k, km.Submit):
			if d.pending != "" {
				return nil, false
			}
			vals := make([]string, len(d.inputs))
			for i, in := range d.inputs {
				vals[i] = strings.TrimSpace(in.Value())
			}
			cmd, err := d.submit(vals)
			if err != nil {
				d.err = err.Error()
				var fe fieldError
				if errors.As(err, &fe) && fe.field != d.cur {
					d.cur = fe.field
					return d.focus(), false
				}
				return nil, false
			}
			if d.wait {
				d.err = ""
				if d.pending == "" {
					d.pending = "working…"
				}
				return cmd, false
			}
			return cmd, true
		}
	}
	var cmd tea.Cmd
	d.inputs[d.cur], cmd = d.inputs[d.cur].Update(msg)
	return cmd, false
}

// keys is the form's hint: what submit does, the move to the next field
// when there is one, cancel.
func (d *formDialog) keys(km KeyMap) string {
	parts := []string{km.Submit.Help().Key + " " + d.action}
	if len(d.inputs) > 1 {
		parts = append(parts, km.NextField.Help().Key+" "+km.NextField.Help().Desc)
	}
	return strings.Join(append(parts, km.Close.Help().Key+" cancel"), " · ")
}

// fit gives the text inputs the width they have in a dialog w cells wide:
// an input scrolls its text by the width it has, so that the cursor and
// the end of a long value stay in sight.
func (d *formDialog) fit(w int) {
	lw := 0
	for _, l := range d.labels {
		lw = max(lw, len(l))
	}
	for i := range d.inputs {
		fitInput(&d.inputs[i], w-4-lw-2)
	}
}

// fitInput gives a text input the width it is drawn at, w cells with its
// cursor: an input scrolls its text by its width, so that the cursor and
// the end of a long value stay in sight only if that is the width it has.
func fitInput(ti *textinput.Model, w int) {
	if iw := max(w-1, 4); ti.Width() != iw {
		ti.SetWidth(iw)
		ti.SetCursor(ti.Position()) // scrolls it anew
	}
}

func (d *formDialog) view(w int, km KeyMap) []string {
	d.fit(w)
	iw := w - 4
	lw := 0
	for _, l := range d.labels {
		lw = max(lw, len(l))
	}
	var lines []string
	if d.intro != "" {
		for _, l := range wrapPlain(d.intro, iw) {
			lines = append(lines, " "+styleBold.Render(l))
		}
		lines = append(lines, "")
	}
	for i, in := range d.inputs {
		label := fmt.Sprintf("%*s: ", lw, d.labels[i])
		if i == d.cur {
			label = styleKey.Render(label)
		} else {
			label = styleDim.Render(label)
		}
		lines = append(lines, " "+label+in.View())
	}
	lines = append(lines, "")
	if d.err != "" {
		for _, l := range wrapPlain(d.err, iw) {
			lines = append(lines, " "+styleError.Render(l))
		}
	}
	if d.pending != "" {
		lines = append(lines, " "+styleInfo.Render(d.pending))
	} else {
		lines = append(lines, " "+styleDim.Render(d.keys(km)))
	}
	return box(w, len(lines)+2, frame{border: frameDialog, color: colorAccent, bold: true}, d.title, "", lines)
}

// newSendDialog asks for a recipient and a body and sends the message as
// the human through sw; w is the window's width. With a question q of
// agent to's (Kind AttentionQuestion), it shows the question and the
// message answers it.
func newSendDialog(ctx context.Context, sw Backend, to string, q swarmapi.Attention, w int) dialog {
	w = dialogWidth(w)
	toIn := newInput("agent name, * or swarm", w)
	toIn.SetValue(to)
	d := &formDialog{
		title:  "Send a message",
		labels: []string{"to", "message"},
		inputs: []textinput.Model{toIn, newInput("what to say", w)},
		cur:    1,
		action: "send",
	}
	if q.Message != "" {
		d.title, d.intro, d.action = "Answer "+q.Agent, q.Text, "answer"
	}
	if to == "" {
		d.cur = 0
	}
	d.submit = func(v []string) (tea.Cmd, error) {
		if v[0] == "" {
			return nil, needField(0, "say who the message is for")
		}
		if v[1] == "" {
			return nil, needField(1, "the message is empty")
		}
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(ctx, readTimeout)
			defer cancel()
			m := bus.Message{To: v[0], Body: v[1]}
			if q.Message != "" && v[0] == q.Agent {
				m.InReplyTo = q.Message
			}
			msg, err := sw.Send(ctx, m)
			if err != nil {
				return actionMsg{err: fmt.Errorf("send to %s: %w", v[0], err)}
			}
			return actionMsg{text: fmt.Sprintf("sent #%s to %s", bus.ShortID(msg.ID), msg.To)}
		}, nil
	}
	return d
}

// newAgentDialog asks for a name and a command and starts the agent
// through sw, in dir; it stays open until the agent is added, and shows
// why when it is not.
func newAgentDialog(sw Backend, dir string, w int) dialog {
	w = dialogWidth(w)
	d := &formDialog{
		title:  "New agent",
		labels: []string{"name", "command"},
		inputs: []textinput.Model{newInput("e.g. reviewer", w), newInput("e.g. claude, or any shell command", w)},
		action: "start",
		wait:   true,
	}
	d.submit = func(v []string) (tea.Cmd, error) {
		if err := swarmapi.CheckAgentName(v[0]); err != nil {
			return nil, fieldError{field: 0, err: err}
		}
		n := swarmapi.NewAgent{Name: v[0], Cmd: v[1], Dir: dir}
		d.pending = "starting " + n.Name + "…"
		return func() tea.Msg {
			err := sw.AddAgent(n)
			switch {
			case errors.Is(err, swarmapi.ErrAgentExists):
				return formDoneMsg{d: d, err: fmt.Errorf("an agent named %q already exists: choose another name", n.Name)}
			case errors.Is(err, swarmapi.ErrBadAgentName):
				return formDoneMsg{d: d, err: err}
			case err != nil:
				return formDoneMsg{d: d, err: err, field: 1}
			}
			done := formDoneMsg{d: d, text: fmt.Sprintf("started agent %s", n.Name)}
			if sw.ConfigFile() != "" {
				done.then = func() tea.Msg { return offerSaveMsg{n.Name} }
			}
			return done
		}, nil
	}
	return d
}

// newTaskDialog asks for a task — its title, whom it is for (the selected
// agent at first) and what it is about — and creates it as the human.
func newTaskDialog(ctx context.Context, sw Backend, assignee string, w int) dialog {
	w = dialogWidth(w)
	forIn := newInput("agent name", w)
	forIn.SetValue(assignee)
	d := &formDialog{
		title:  "New task",
		labels: []string{"title", "for", "details"},
		inputs: []textinput.Model{newInput("what is to be done", w), forIn, newInput("optional: more about it", w)},
		action: "create",
	}
	d.submit = func(v []string) (tea.Cmd, error) {
		if v[0] == "" {
			return nil, needField(0, "the task needs a title")
		}
		if v[1] == "" {
			return nil, needField(1, "say which agent the task is for")
		}
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(ctx, readTimeout)
			defer cancel()
			t, err := sw.CreateTask(ctx, bus.NewTask{Title: v[0], Assignee: v[1], Description: v[2]})
			if err != nil {
				return actionMsg{err: fmt.Errorf("new task for %s: %w", v[1], err)}
			}
			return actionMsg{text: fmt.Sprintf("created task %s (%s) for %s", t.ID, textsafe.Words(t.Title), t.Assignee)}
		}, nil
	}
	return d
}

// offerSaveMsg: an agent was started from the UI; ask whether to add it
// to the config file.
type offerSaveMsg struct{ name string }

// offerSave asks whether to save an agent started from the UI to the
// config file, so that the next swarm starts it too.
func (m *Model) offerSave(name string) {
	sw, path := m.sw, m.sw.ConfigFile()
	text := fmt.Sprintf("Save agent %s to %s, so the next swarm starts it too?", name, filepath.Base(path))
	m.dialog = newConfirm("Save agent", text, func() tea.Cmd {
		return func() tea.Msg {
			if err := sw.SaveAgent(name); err != nil {
				return actionMsg{err: err}
			}
			return actionMsg{text: fmt.Sprintf("saved agent %s to %s", name, path)}
		}
	})
}

// newNoteDialog asks for the note of a change request.
func newNoteDialog(t bus.Task, w int, then func(note string) tea.Cmd) dialog {
	d := &formDialog{
		title:  fmt.Sprintf("Request changes on %s", t.ID),
		labels: []string{"note"},
		inputs: []textinput.Model{newInput("what should change (sent to "+t.Assignee+")", dialogWidth(w))},
		action: "send back to " + t.Assignee,
	}
	d.submit = func(v []string) (tea.Cmd, error) {
		if v[0] == "" {
			return nil, errors.New("the note is empty: say what should change")
		}
		return then(v[0]), nil
	}
	return d
}

// ---- confirmation ----

// confirmDialog asks a yes/no question; y or enter confirms.
type confirmDialog struct {
	title, text string
	yes         func() tea.Cmd
	// describe, when set, words the question at each frame instead of
	// text: what it says may stop being true while it is asked.
	describe func() string
	// alsoYes is one more key that answers yes (ctrl+c again at the quit
	// question).
	alsoYes *key.Binding
}

func (d *confirmDialog) question() string {
	if d.describe != nil {
		return d.describe()
	}
	return d.text
}

func newConfirm(title, text string, yes func() tea.Cmd) dialog {
	return &confirmDialog{title: title, text: text, yes: yes}
}

func (d *confirmDialog) focus() tea.Cmd { return nil }

func (d *confirmDialog) keys(km KeyMap) string {
	return fmt.Sprintf("%s yes · %s no · %s cancel", km.Yes.Help().Key, km.No.Help().Key, km.Close.Help().Key)
}

func (d *confirmDialog) update(km KeyMap, msg tea.Msg) (tea.Cmd, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	switch {
	case key.Matches(k, km.Yes), d.alsoYes != nil && key.Matches(k, *d.alsoYes):
		return d.yes(), true
	case key.Matches(k, km.No):
		return nil, true
	}
	return nil, false
}

func (d *confirmDialog) view(w int, km KeyMap) []string {
	text := d.question()
	w = min(w, max(ansi.StringWidth(text)+6, 36))
	var lines []string
	for _, l := range wrapPlain(text, w-4) {
		lines = append(lines, " "+l)
	}
	lines = append(lines, "", " "+styleKey.Render(km.Yes.Help().Key)+" yes   "+styleKey.Render(km.No.Help().Key)+" no")
	return box(w, len(lines)+2, frame{border: frameDialog, color: colorWarn, bold: true}, d.title, "", lines)
}

// leaveDialog asks how to leave a swarm the UI is attached to: detach
// (its agents go on; swarm attach comes back) or stop it.
type leaveDialog struct {
	running func() int
	stop    func() tea.Cmd
	// alsoDetach is one more key that detaches (ctrl+c again).
	alsoDetach *key.Binding
}

func (d *leaveDialog) focus() tea.Cmd { return nil }

func (d *leaveDialog) keys(km KeyMap) string {
	return fmt.Sprintf("%s detach · %s stop · %s cancel", km.LeaveDetach.Help().Key, km.LeaveStop.Help().Key, km.Close.Help().Key)
}

func (d *leaveDialog) update(km KeyMap, msg tea.Msg) (tea.Cmd, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	switch {
	case key.Matches(k, km.LeaveDetach), d.alsoDetach != nil && key.Matches(k, *d.alsoDetach):
		return tea.Quit, true
	case key.Matches(k, km.LeaveStop):
		return d.stop(), true
	}
	return nil, false
}

func (d *leaveDialog) view(w int, km KeyMap) []string {
	n := d.running()
	text := fmt.Sprintf("Leave the swarm? Detach, and its %d running agent%s carry on without the UI (swarm attach comes back); or stop them.", n, plural(n))
	w = min(w, max(ansi.StringWidth(text)+6, 36))
	var lines []string
	for _, l := range wrapPlain(text, w-4) {
		lines = append(lines, " "+l)
	}
	lines = append(lines, "",
		" "+styleKey.Render(km.LeaveDetach.Help().Key)+" "+km.LeaveDetach.Help().Desc,
		" "+styleKey.Render(km.LeaveStop.Help().Key)+" "+km.LeaveStop.Help().Desc)
	return box(w, len(lines)+2, frame{border: frameDialog, color: colorWarn, bold: true}, "Leave", "", lines)
}

// ---- search ----

// searchInput is the query being typed for a pane's scrollback search; it
// shows in the status line.
type searchInput struct {
	agent string
	ti    textinput.Model
}

func newSearchInput(agent string, w int) *searchInput {
	return &searchInput{agent: agent, ti: newInput("", max(w-20, 10))}
}

func (s *searchInput) focus() tea.Cmd { return s.ti.Focus() }

func (s *searchInput) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	s.ti, cmd = s.ti.Update(msg)
	return cmd
}

func (s *searchInput) value() string { return s.ti.Value() }

// view draws the box in w cells: the prompt, then the input in the rest.
func (s *searchInput) view(w int) string {
	prompt := "search " + s.agent + ": /"
	fitInput(&s.ti, w-ansi.StringWidth(prompt))
	return styleKey.Render(prompt) + s.ti.View()
}
