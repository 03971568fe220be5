package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"swarm/bus"
	"swarm/supervisor"
	"swarm/tasks"
	"swarm/textsafe"
)

// panelKind is which panel is open under the panes.
type panelKind int

// Panels.
const (
	panelNone panelKind = iota
	panelInbox
	panelTasks
	panelLog
)

var panelNames = [...]string{"none", "inbox", "tasks", "log"}

// String names the panel.
func (p panelKind) String() string {
	if int(p) < len(panelNames) {
		return panelNames[p]
	}
	return "unknown"
}

// Mode is what keys currently do.
type Mode int

// Modes.
const (
	ModeNormal   Mode = iota // keys drive the UI
	ModeAttached             // keys go to the selected agent
	ModeScroll               // keys scroll the selected pane
	ModeSearch               // typing a search of the selected pane
	ModeDialog               // a dialog has the keys
	ModeHelp                 // the key list is shown
)

var modeNames = [...]string{"NORMAL", "ATTACHED", "SCROLL", "SEARCH", "DIALOG", "HELP"}

// String names the mode as the status line shows it.
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return "unknown"
}

// status is the status line's message. A foreground one answers what the
// person just did; a background one reports something that happened in
// the swarm (an agent exited, a delivery failed, a notice).
type status struct {
	text       string
	err        bool
	at         time.Time
	background bool
	scroll     bool // about scroll mode (search hits): gone when it ends
	// A message that says what is so stays only while it is: "restarting
	// X" until X starts (untilStarted), "detached from X" while the
	// panes are in normal mode (whileNormal).
	untilStarted string
	whileNormal  bool
}

// statusTTL is how long an informational message stays, and how long the
// result of an action is shown before a background message may replace
// it; errors stay until the next message.
const statusTTL = 8 * time.Second

// Model is the root Bubble Tea model: it owns the layout, the focus and
// the routing of keys, and holds plain children (panes, panels, dialogs).
type Model struct {
	ctx     context.Context
	sw      Backend
	opts    Options
	focused string // the agent last passed to Focuser.SetFocus
	keys    KeyMap
	help    help.Model

	width, height int
	lay           layout

	agents   []supervisor.AgentInfo
	meta     map[string]agentMeta
	selected string // agent name
	attached bool
	zoomed   bool
	panes    map[string]*pane

	panel    panelKind
	showGame bool
	game     supervisor.GameState
	hasGame  bool

	inbox inboxPanel
	tasks taskPanel
	log   logPanel

	dialog   dialog
	showHelp bool
	search   *searchInput

	status status
	// later is the newest background message that arrived while an
	// action's result was on show; it is shown when that one has had
	// its time.
	later *status

	metaLoad  loader
	inputs    map[string]*inputQueue
	exited    map[string]bool // agents whose process ended and has not started again
	resizeGen int
	gone      bool // the supervisor's event stream ended

	// manualClock (tests) turns the clock tick off and fires delayed
	// messages at once, so that commands can be run synchronously.
	manualClock bool

	// gen counts changes to what the sidebar shows (agents, their bus
	// state, the game); the sidebar and the help line are drawn again
	// only when it or what else they show changed, because View runs
	// after every message and panes change many times a second.
	gen       int
	sideKey   sideKey
	side      []string
	helpKey   helpKey
	helpCache string
}

type sideKey struct {
	gen          int
	agents, game rect
	selected     string
	attached     bool
	second       int64 // ages are shown in seconds
}

type helpKey struct {
	mode     Mode
	panel    panelKind
	hasGame  bool
	width    int
	selected string
	dialog   string // the open dialog's keys
}

// NewModel returns the UI's root model over sw. ctx bounds the commands
// the model starts (bus reads and actions).
func NewModel(ctx context.Context, sw Backend, opts Options) *Model {
	opts.defaults()
	m := &Model{
		ctx:    ctx,
		sw:     sw,
		opts:   opts,
		keys:   DefaultKeyMap(),
		help:   help.New(),
		meta:   map[string]agentMeta{},
		panes:  map[string]*pane{},
		inputs: map[string]*inputQueue{},
		exited: map[string]bool{},
	}
	m.help.Styles.ShortKey = styleKey
	m.help.Styles.ShortDesc = styleDim
	m.help.Styles.ShortSeparator = styleDim
	m.refreshAgents()
	if g, ok := sw.Game(); ok && opts.Game {
		m.game, m.hasGame, m.showGame = g, true, true
	}
	if len(m.agents) > 0 {
		m.selected = m.agents[0].Name
	}
	return m
}

// Init starts the clock and the first reads of the bus.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.tick(), m.loadMeta())
}

// tickMsg is the once-a-second clock: heartbeat ages, status expiry.
type tickMsg time.Time

func (m *Model) tick() tea.Cmd {
	if m.manualClock {
		return nil
	}
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// after delivers msg after d (at once with the manual clock).
func (m *Model) after(d time.Duration, msg tea.Msg) tea.Cmd {
	if m.manualClock {
		return func() tea.Msg { return msg }
	}
	return tea.Tick(d, func(time.Time) tea.Msg { return msg })
}

// Mode returns what keys currently do.
func (m *Model) Mode() Mode {
	switch {
	case m.dialog != nil:
		return ModeDialog
	case m.showHelp:
		return ModeHelp
	case m.attached:
		return ModeAttached
	case m.search != nil:
		return ModeSearch
	}
	if p := m.selectedPane(); p != nil && p.scrolling {
		return ModeScroll
	}
	return ModeNormal
}

// refreshAgents reads the agents' runtime state (memory, not I/O) and
// keeps the selection and the panes in step with it.
func (m *Model) refreshAgents() tea.Cmd {
	old := m.names()
	m.agents = m.sw.Agents()
	m.gen++
	for _, a := range m.agents {
		if _, ok := m.panes[a.Name]; !ok {
			m.panes[a.Name] = &pane{name: a.Name}
		}
	}
	if m.selected == "" && len(m.agents) > 0 {
		m.selected = m.agents[0].Name
	}
	if !slices.Equal(old, m.names()) {
		return m.relayout()
	}
	return nil
}

func (m *Model) names() []string {
	out := make([]string, len(m.agents))
	for i, a := range m.agents {
		out[i] = a.Name
	}
	return out
}

func (m *Model) agentInfo(name string) (supervisor.AgentInfo, bool) {
	for _, a := range m.agents {
		if a.Name == name {
			return a, true
		}
	}
	return supervisor.AgentInfo{}, false
}

func (m *Model) selectedPane() *pane {
	if m.selected == "" {
		return nil
	}
	return m.panes[m.selected]
}

// relayout recomputes the layout; panes whose size changed render again
// and a resize of the agents' terminals is scheduled.
func (m *Model) relayout() tea.Cmd {
	zoomed := ""
	if m.zoomed {
		zoomed = m.selected
	}
	m.lay = computeLayout(m.width, m.height, m.names(), zoomed, m.panel != panelNone, m.showGame && m.hasGame)
	m.help.SetWidth(m.width)
	m.resizeGen++
	return m.after(m.opts.ResizeDelay, resizeMsg{gen: m.resizeGen})
}

// resizeMsg fires when the window has kept its size for ResizeDelay.
type resizeMsg struct{ gen int }

// resizedMsg reports the outcome of resizing one agent's terminal.
type resizedMsg struct {
	agent      string
	rows, cols int
	err        error
}

// applySizes resizes the terminal of every laid-out pane whose inside
// size differs from what its agent last got.
func (m *Model) applySizes() tea.Cmd {
	var cmds []tea.Cmd
	for _, row := range m.lay.rows {
		for _, c := range row {
			p := m.panes[c.name]
			if p == nil {
				continue
			}
			rows, cols := inner(c.r)
			if p.rows == rows && p.cols == cols {
				continue
			}
			p.rows, p.cols = rows, cols
			p.invalidate()
			name, sw := c.name, m.sw
			cmds = append(cmds, func() tea.Msg {
				return resizedMsg{agent: name, rows: rows, cols: cols, err: sw.Resize(name, rows, cols)}
			})
		}
	}
	return tea.Batch(cmds...)
}

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

// plannedExit reports whether an exit is part of a restart the swarm
// chose (the agent moved to another directory, e.g. back to its own after
// a merge), not a failure.
func plannedExit(ev supervisor.Event) bool {
	return ev.Kind == supervisor.EventAgentExited && ev.Planned
}

// Update routes a message: window and clock first, then results of
// commands and supervisor events, then keys and the mouse to whatever
// has the focus. Afterwards it asks for the pane renders the new state
// needs.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := m.update(msg)
	m.syncFocus()
	return m, tea.Batch(cmd, m.renderPanes())
}

// syncFocus tells a backend that cares which agent the person is watching:
// the selected one.
func (m *Model) syncFocus() {
	if f, ok := m.sw.(Focuser); ok && m.selected != m.focused {
		m.focused = m.selected
		f.SetFocus(m.selected)
	}
}

// renderPanes starts a render for every pane on show whose rows are out
// of date and that has none in flight.
func (m *Model) renderPanes() tea.Cmd {
	var cmds []tea.Cmd
	for _, row := range m.lay.rows {
		for _, c := range row {
			p := m.panes[c.name]
			if p == nil || p.inFlight {
				continue
			}
			rows, cols := inner(c.r)
			k := p.want(cols, rows, m.attached && c.name == m.selected)
			if k == p.shown && p.lines != nil {
				continue
			}
			p.inFlight = true
			cmds = append(cmds, renderPane(m.sw, c.name, k))
		}
	}
	return tea.Batch(cmds...)
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case paneRenderedMsg:
		if p := m.panes[msg.name]; p != nil {
			p.rendered(msg)
		}
		return m, nil
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, m.relayout()
	case tickMsg:
		cmd := m.refreshAgents()
		m.expireStatus()
		return m, tea.Batch(cmd, m.tick())
	case resizeMsg:
		if msg.gen != m.resizeGen {
			return m, nil
		}
		return m, m.applySizes()
	case resizedMsg:
		if msg.err != nil {
			m.noteEvent(fmt.Sprintf("resize %s to %dx%d: %v", msg.agent, msg.cols, msg.rows, msg.err), true)
		}
		if p := m.panes[msg.agent]; p != nil {
			p.invalidate()
		}
		return m, nil
	case ScreensMsg:
		for _, name := range msg.Agents {
			if p := m.panes[name]; p != nil {
				p.invalidate()
			}
		}
		return m, nil
	case EventMsg:
		return m, m.onEvent(msg.Event)
	case swarmGoneMsg:
		m.gone = true
		m.setError(fmt.Errorf("the swarm stopped; press q to leave"))
		return m, nil
	case metaMsg:
		return m, m.onMeta(msg)
	case inboxMsg:
		return m, m.inbox.loaded(m, msg)
	case tasksMsg:
		return m, m.tasks.loaded(m, msg)
	case taskEventsMsg:
		m.tasks.eventsLoaded(m, msg)
		return m, nil
	case reviewMsg:
		return m, m.tasks.reviewLoaded(m, msg)
	case logMsg:
		return m, m.log.loaded(m, msg)
	case actionMsg:
		if msg.err != nil {
			m.setError(msg.err)
		} else if msg.text != "" {
			m.setStatus("%s", msg.text)
			m.status.untilStarted = msg.untilStarted
		}
		return m, msg.then
	case formDoneMsg:
		return m, m.formDone(msg)
	case inputSentMsg:
		return m, m.inputSent(msg)
	case searchMsg:
		m.searchDone(msg)
		return m, nil
	case tea.PasteMsg:
		return m, m.onPaste(msg)
	case tea.KeyPressMsg:
		return m, m.onKey(msg)
	case tea.MouseClickMsg:
		return m, m.onClick(msg)
	case tea.MouseWheelMsg:
		return m, m.onWheel(msg)
	}
	if m.dialog != nil {
		// Cursor blinks and other internal messages of the text inputs.
		return m, m.dialog.update(m, msg)
	}
	return m, nil
}

// onEvent applies one supervisor event.
func (m *Model) onEvent(ev supervisor.Event) tea.Cmd {
	var cmds []tea.Cmd
	switch ev.Kind {
	case supervisor.EventAgentStarted, supervisor.EventAgentStopped, supervisor.EventAgentRestarting:
		if ev.Kind == supervisor.EventAgentStarted {
			delete(m.exited, ev.Agent)
			if m.status.untilStarted == ev.Agent {
				m.status = status{} // "restarting X" is no longer so
			}
		}
		cmds = append(cmds, m.refreshAgents())
		if p := m.panes[ev.Agent]; p != nil {
			p.invalidate()
		}
		cmds = append(cmds, m.loadMeta())
	case supervisor.EventAgentExited, supervisor.EventAgentGaveUp:
		m.exited[ev.Agent] = true
		cmds = append(cmds, m.refreshAgents())
		if p := m.panes[ev.Agent]; p != nil {
			p.invalidate()
		}
		text := supervisor.DescribeEvent(ev)
		failed := !plannedExit(ev) && (ev.Kind == supervisor.EventAgentGaveUp || ev.ExitCode != 0)
		switch {
		case ev.Agent == m.selected && m.attached:
			// Stay attached, so that what the person goes on typing is not
			// taken as UI commands; say at once why the keys go nowhere.
			if failed {
				m.setError(fmt.Errorf("%s — still attached; ctrl+] detaches", text))
			} else {
				m.setStatus("%s — still attached; ctrl+] detaches", text)
			}
		case failed:
			m.noteEvent(text, true)
		}
	case supervisor.EventLevel, supervisor.EventHeld:
		cmds = append(cmds, m.refreshAgents())
	case supervisor.EventMessage, supervisor.EventDelivered:
		cmds = append(cmds, m.loadMeta(), m.reloadPanel(ev))
	case supervisor.EventDeliveryFailed, supervisor.EventUnconfirmed:
		id := ""
		if ev.Message != nil {
			id = "#" + bus.ShortID(ev.Message.ID) + " "
		}
		if ev.Kind == supervisor.EventUnconfirmed {
			m.noteEvent(fmt.Sprintf("%styped into %s, not confirmed: %s", id, ev.Agent, ev.Text), true)
		} else {
			m.noteEvent(fmt.Sprintf("delivery of %sto %s failed: %s", id, ev.Agent, ev.Text), true)
		}
		cmds = append(cmds, m.loadMeta(), m.reloadPanel(ev))
	case supervisor.EventTask:
		cmds = append(cmds, m.loadMeta(), m.reloadPanel(ev))
	case supervisor.EventGame:
		if ev.Game != nil {
			m.game, m.hasGame = *ev.Game, true
			m.gen++
			if m.opts.Game && !m.showGame && m.lay.game.empty() {
				m.showGame = true
				cmds = append(cmds, m.relayout())
			}
		}
	case supervisor.EventNotice:
		m.noteEvent(ev.Agent+": "+ev.Text, false)
	}
	return tea.Batch(cmds...)
}

// reloadPanel reloads the open panel if ev concerns it.
func (m *Model) reloadPanel(ev supervisor.Event) tea.Cmd {
	switch m.panel {
	case panelInbox:
		return m.inbox.load(m)
	case panelTasks:
		return m.tasks.load(m)
	case panelLog:
		if ev.Kind == supervisor.EventMessage || ev.Kind == supervisor.EventDelivered || ev.Kind == supervisor.EventDeliveryFailed || ev.Kind == supervisor.EventUnconfirmed {
			return m.log.load(m)
		}
	}
	return nil
}

// onKey routes a key press to what has the focus.
func (m *Model) onKey(k tea.KeyPressMsg) tea.Cmd {
	switch m.Mode() {
	case ModeDialog:
		return m.dialog.update(m, k)
	case ModeHelp:
		if key.Matches(k, m.keys.Help, m.keys.Close, m.keys.Quit) {
			m.showHelp = false
		}
		return nil
	case ModeAttached:
		return m.attachedKey(k)
	case ModeSearch:
		return m.searchKey(k)
	case ModeScroll:
		if cmd, ok := m.scrollKey(k); ok {
			return cmd
		}
	}
	return m.normalKey(k)
}

// normalKey handles a key in normal mode (and the keys scroll mode leaves
// to it).
func (m *Model) normalKey(k tea.KeyPressMsg) tea.Cmd {
	keys := m.keys
	if m.panel != panelNone {
		if cmd, ok := m.panelKey(k); ok {
			return cmd
		}
	}
	switch {
	case key.Matches(k, keys.Next):
		return m.moveSelection(1)
	case key.Matches(k, keys.Prev):
		return m.moveSelection(-1)
	case key.Matches(k, keys.Attach):
		return m.attach()
	case key.Matches(k, keys.Zoom):
		if m.selected == "" {
			return nil
		}
		m.zoomed = !m.zoomed
		return m.relayout()
	case key.Matches(k, keys.Scroll):
		p := m.selectedPane()
		if p == nil {
			return nil
		}
		if key.Matches(k, keys.PageUp) {
			p.scrollTo(p.sbLen - max(m.paneRows(p.name)-1, 1))
		} else {
			p.scrollTo(p.sbLen)
		}
		return nil
	case key.Matches(k, keys.Inbox):
		return m.togglePanel(panelInbox)
	case key.Matches(k, keys.Tasks):
		return m.togglePanel(panelTasks)
	case key.Matches(k, keys.Log):
		return m.togglePanel(panelLog)
	case key.Matches(k, keys.Game):
		if !m.hasGame {
			m.setStatus("there is no game in this swarm")
			return nil
		}
		m.showGame = !m.showGame
		return m.relayout()
	case key.Matches(k, keys.Send):
		m.dialog = newSendDialog(m, m.selected)
		return m.dialog.focus()
	case key.Matches(k, keys.NewAgent):
		m.dialog = newAgentDialog(m)
		return m.dialog.focus()
	case key.Matches(k, keys.Restart):
		return m.confirmAgent("Restart", m.sw.Restart, "restarting %s", true)
	case key.Matches(k, keys.Stop):
		return m.confirmAgent("Stop", m.sw.StopAgent, "stopping %s", false)
	case key.Matches(k, keys.Approve, keys.RequestChanges, keys.CancelTask, keys.Merge, keys.Retry):
		return m.taskAction(k)
	case key.Matches(k, keys.Help):
		m.showHelp = true
		return nil
	case key.Matches(k, keys.Close):
		if m.panel != panelNone {
			return m.togglePanel(m.panel)
		}
		if m.zoomed {
			m.zoomed = false
			return m.relayout()
		}
		return nil
	case key.Matches(k, keys.Quit):
		return m.quit()
	}
	return nil
}

// quit leaves at once when nothing runs, else asks first; the question
// counts the agents as they are while it is asked, and the quit key
// pressed again (ctrl+c) answers yes.
func (m *Model) quit() tea.Cmd {
	if m.running() == 0 || m.gone {
		return tea.Quit
	}
	d := &confirmDialog{title: "Quit", yes: func() tea.Cmd { return tea.Quit }, alsoYes: &m.keys.QuitNow}
	d.describe = func() string {
		n := m.running()
		if n == 0 {
			return "Quit swarm? No agent runs any more."
		}
		return fmt.Sprintf("Quit swarm? %d running agent%s will be stopped.", n, plural(n))
	}
	m.dialog = d
	return nil
}

// running counts the agents that run or are about to.
func (m *Model) running() int {
	n := 0
	for _, a := range m.agents {
		if a.State == supervisor.StateRunning || a.State == supervisor.StateStarting || a.State == supervisor.StateBackoff {
			n++
		}
	}
	return n
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// moveSelection selects the next (+1) or previous (-1) agent.
func (m *Model) moveSelection(d int) tea.Cmd {
	if len(m.agents) == 0 {
		return nil
	}
	names := m.names()
	i := slices.Index(names, m.selected)
	i = (i + d + len(names)) % len(names)
	return m.selectAgent(names[i])
}

// selectAgent selects an agent (and, zoomed, shows its pane instead).
func (m *Model) selectAgent(name string) tea.Cmd {
	if name == m.selected {
		return nil
	}
	m.selected = name
	var cmds []tea.Cmd
	if m.zoomed {
		cmds = append(cmds, m.relayout())
	}
	if m.panel == panelInbox {
		m.inbox.reset(name)
		cmds = append(cmds, m.inbox.load(m))
	}
	return tea.Batch(cmds...)
}

// attach sends every following key to the selected agent.
func (m *Model) attach() tea.Cmd {
	a, ok := m.agentInfo(m.selected)
	if !ok {
		return nil
	}
	if a.State != supervisor.StateRunning {
		m.setError(fmt.Errorf("cannot attach: %s is %s", a.Name, a.State))
		return nil
	}
	if p := m.selectedPane(); p != nil && p.scrolling {
		m.endScroll(p)
	}
	m.attached = true
	m.setStatus("attached to %s — every key goes to it; ctrl+] detaches", a.Name)
	return nil
}

// attachedKey sends a key to the attached agent; the prefix key detaches.
func (m *Model) attachedKey(k tea.KeyPressMsg) tea.Cmd {
	if key.Matches(k, m.keys.Detach) {
		m.attached = false
		m.setStatus("detached from %s", m.selected)
		m.status.whileNormal = true
		return nil
	}
	if !m.attachedRunning() {
		return nil
	}
	return m.queueInput(m.selected, inputItem{key: k.Key()})
}

// attachedRunning reports whether the attached agent runs, and if not
// says that its input is dropped. Its keys go to its next process.
func (m *Model) attachedRunning() bool {
	a, ok := m.agentInfo(m.selected)
	switch {
	case ok && a.State != supervisor.StateRunning:
		m.setError(fmt.Errorf("%s is %s: input dropped; ctrl+] detaches", a.Name, a.State))
		return false
	case m.exited[m.selected]: // its exit came before its new state
		m.setError(fmt.Errorf("%s has exited: input dropped; ctrl+] detaches", m.selected))
		return false
	}
	return true
}

func (m *Model) onPaste(p tea.PasteMsg) tea.Cmd {
	switch m.Mode() {
	case ModeAttached:
		if !m.attachedRunning() {
			return nil
		}
		return m.queueInput(m.selected, inputItem{paste: p.Content, isPaste: true})
	case ModeDialog:
		return m.dialog.update(m, p)
	case ModeSearch:
		return m.search.update(p)
	}
	return nil
}

// togglePanel opens a panel (closing another) or closes it.
func (m *Model) togglePanel(p panelKind) tea.Cmd {
	if m.panel == p {
		m.panel = panelNone
		return m.relayout()
	}
	m.panel = p
	var load tea.Cmd
	switch p {
	case panelInbox:
		m.inbox.reset(m.selected)
		load = m.inbox.load(m)
	case panelTasks:
		load = m.tasks.load(m)
	case panelLog:
		m.log.reset()
		load = m.log.load(m)
	}
	return tea.Batch(m.relayout(), load)
}

// panelKey gives the open panel the keys it scrolls or selects with.
func (m *Model) panelKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	if m.panel == panelTasks && key.Matches(k, m.keys.Diff) {
		return m.toggleDiff(), true
	}
	if m.panel == panelTasks && m.tasks.showDiff && key.Matches(k, m.keys.Close) {
		m.tasks.showDiff = false
		return nil, true
	}
	page := max(m.lay.panel.h-3, 1)
	var d int
	switch keys := m.keys; {
	case key.Matches(k, keys.LineUp):
		d = -1
	case key.Matches(k, keys.LineDown):
		d = 1
	case key.Matches(k, keys.PageUp):
		d = -page
	case key.Matches(k, keys.PageDown):
		d = page
	default:
		return nil, false
	}
	switch {
	case m.panel == panelInbox:
		m.inbox.scroll.by(-d)
	case m.panel == panelLog:
		m.log.scroll.by(-d)
	case m.panel == panelTasks && m.tasks.showDiff:
		m.tasks.diffTop += d
	case m.panel == panelTasks:
		return m.tasks.move(m, d), true
	}
	return nil, true
}

// toggleDiff shows or hides the selected task's diff on the board.
func (m *Model) toggleDiff() tea.Cmd {
	if m.tasks.showDiff {
		m.tasks.showDiff = false
		return nil
	}
	t, ok := m.tasks.selectedTask()
	switch {
	case !ok:
		m.setError(fmt.Errorf("no task selected"))
		return nil
	case t.Branch == "":
		m.setError(fmt.Errorf("task %s has no branch, so no diff", t.ID))
		return nil
	}
	m.tasks.showDiff, m.tasks.diffTop = true, 0
	return m.tasks.loadReview(m, false)
}

// confirmAgent asks before restarting or stopping the selected agent.
// With starts, the message says what is so until the agent starts again.
func (m *Model) confirmAgent(verb string, do func(string) error, done string, starts bool) tea.Cmd {
	name := m.selected
	if name == "" {
		return nil
	}
	text := fmt.Sprintf("%s agent %s?", verb, name)
	m.dialog = newConfirm(verb, text, func() tea.Cmd {
		return func() tea.Msg {
			if err := do(name); err != nil {
				return actionMsg{err: fmt.Errorf("%s %s: %w", strings.ToLower(verb), name, err)}
			}
			msg := actionMsg{text: fmt.Sprintf(done, name)}
			if starts {
				msg.untilStarted = name
			}
			return msg
		}
	})
	return nil
}

// actionMsg reports the outcome of an action run in a command; then, if
// set, runs next.
type actionMsg struct {
	text string
	err  error
	then tea.Cmd
	// untilStarted: text is true until this agent starts ("restarting").
	untilStarted string
}

// taskAction applies a, r, c, m or y to the task selected on the board,
// else to the selected agent's current task. Approve and retry are quick;
// cancel and merge (which changes the base branch) ask first, naming the
// task. The status line names the task an action applied to.
func (m *Model) taskAction(k tea.KeyPressMsg) tea.Cmd {
	t, ok := m.targetTask()
	if !ok {
		m.setError(fmt.Errorf("no task selected: open the task board (t) and pick one"))
		return nil
	}
	ctx, sw, keys, b := m.ctx, m.sw, m.keys, m.sw
	name := fmt.Sprintf("%s (%s)", t.ID, textsafe.Words(t.Title))
	run := func(verb string, f func(context.Context) (bus.Task, error), done func(context.Context, bus.Task) string) tea.Cmd {
		// A merge may wait for another one (they run one at a time) and
		// for git; the other moves are a transaction on the bus.
		timeout := 10 * time.Second
		if verb == "merge" {
			timeout = 5 * time.Minute
		}
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			nt, err := f(ctx)
			if err != nil {
				return actionMsg{err: fmt.Errorf("%s task %s: %w", verb, t.ID, err)}
			}
			return actionMsg{text: done(ctx, nt)}
		}
	}
	is := func(_ context.Context, nt bus.Task) string { return fmt.Sprintf("task %s is %s", name, nt.State) }
	// A move the task's state does not allow is refused before any dialog
	// asks about it, in the task service's words.
	refused := func(move tasks.Move) bool {
		err := tasks.Allowed(t, move)
		if err != nil {
			m.setError(err)
		}
		return err != nil
	}
	switch {
	case key.Matches(k, keys.Approve):
		return run("approve", func(ctx context.Context) (bus.Task, error) { return sw.Approve(ctx, t.ID, "") },
			func(context.Context, bus.Task) string { return fmt.Sprintf("approved task %s of %s", name, t.Assignee) })
	case key.Matches(k, keys.Retry):
		return run("retry", func(ctx context.Context) (bus.Task, error) { return sw.Retry(ctx, t.ID, "") }, is)
	case key.Matches(k, keys.Merge):
		if refused(tasks.MoveMerge) {
			return nil
		}
		text := fmt.Sprintf("Merge task %s: %s → %s?", name, t.Branch, t.Base)
		if t.Branch == "" {
			text = fmt.Sprintf("Complete task %s? It has no branch: nothing to merge.", name)
		}
		m.dialog = newConfirm("Merge", text, func() tea.Cmd {
			return run("merge", func(ctx context.Context) (bus.Task, error) { return sw.Merge(ctx, t.ID) },
				func(ctx context.Context, nt bus.Task) string {
					if nt.State != bus.TaskCompleted {
						return is(ctx, nt)
					}
					if note := lastNote(ctx, b, t.ID); note != "" {
						return fmt.Sprintf("task %s completed: %s", name, note)
					}
					return fmt.Sprintf("task %s completed", name)
				})
		})
		return nil
	case key.Matches(k, keys.CancelTask):
		if refused(tasks.MoveCancel) {
			return nil
		}
		text := fmt.Sprintf("Cancel task %s (%s, %s)?", t.ID, textsafe.Words(t.Title), t.State)
		m.dialog = newConfirm("Cancel task", text, func() tea.Cmd {
			return run("cancel", func(ctx context.Context) (bus.Task, error) { return sw.Cancel(ctx, t.ID, "cancelled from the UI") },
				func(context.Context, bus.Task) string { return "cancelled task " + name })
		})
		return nil
	case key.Matches(k, keys.RequestChanges):
		if refused(tasks.MoveRequestChanges) {
			return nil
		}
		m.dialog = newNoteDialog(m, t, func(note string) tea.Cmd {
			return run("request changes on", func(ctx context.Context) (bus.Task, error) { return sw.RequestChanges(ctx, t.ID, note) },
				func(context.Context, bus.Task) string {
					return fmt.Sprintf("sent task %s back to %s", name, t.Assignee)
				})
		})
		return m.dialog.focus()
	}
	return nil
}

// lastNote is the note of a task's last event ("merged as …"), or "" when
// it cannot be read.
func lastNote(ctx context.Context, b Reader, id string) string {
	evs, err := b.TaskEvents(ctx, id)
	if err != nil || len(evs) == 0 {
		return ""
	}
	return textsafe.Words(evs[len(evs)-1].Note)
}

// targetTask is the task a task action applies to.
func (m *Model) targetTask() (bus.Task, bool) {
	if m.panel == panelTasks {
		return m.tasks.selectedTask()
	}
	if md, ok := m.meta[m.selected]; ok && md.task != nil {
		return *md.task, true
	}
	return bus.Task{}, false
}

// onClick selects the pane or agent under the pointer.
func (m *Model) onClick(c tea.MouseClickMsg) tea.Cmd {
	if c.Button != tea.MouseLeft || m.dialog != nil || m.attached {
		return nil
	}
	if cl, ok := m.lay.cellOf(c.X, c.Y); ok {
		return m.selectAgent(cl.name)
	}
	if m.lay.agents.contains(c.X, c.Y) {
		if name, ok := m.agentAtRow(c.Y - m.lay.agents.y - 1); ok {
			return m.selectAgent(name)
		}
	}
	return nil
}

// onWheel scrolls the pane or panel under the pointer.
func (m *Model) onWheel(w tea.MouseWheelMsg) tea.Cmd {
	d := 0
	switch w.Button {
	case tea.MouseWheelUp:
		d = -3
	case tea.MouseWheelDown:
		d = 3
	default:
		return nil
	}
	if m.lay.panel.contains(w.X, w.Y) {
		switch m.panel {
		case panelInbox:
			m.inbox.scroll.by(-d)
		case panelLog:
			m.log.scroll.by(-d)
		case panelTasks:
			return m.tasks.move(m, d/3)
		}
		return nil
	}
	cl, ok := m.lay.cellOf(w.X, w.Y)
	if !ok {
		return nil
	}
	p := m.panes[cl.name]
	if p == nil {
		return nil
	}
	if m.attached && cl.name == m.selected {
		return nil // the attached pane shows the live screen
	}
	if !p.scrolling {
		if d > 0 {
			return nil
		}
		p.top = p.sbLen
	}
	p.scrollTo(p.top + d)
	if p.top >= p.sbLen && d > 0 {
		m.endScroll(p)
	}
	return m.selectAgent(cl.name)
}

// endScroll leaves scroll mode in p, with what the status line said about
// it.
func (m *Model) endScroll(p *pane) {
	p.stopScrolling()
	if m.status.scroll {
		m.status = status{}
	}
}

// scrollKey handles a key in scroll mode; ok is false for keys that fall
// through to normal mode (selection, panels, dialogs).
func (m *Model) scrollKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	p := m.selectedPane()
	keys := m.keys
	page := max(m.paneRows(p.name)-1, 1)
	switch {
	case key.Matches(k, keys.Close), key.Matches(k, keys.Bottom), key.Matches(k, keys.ScrollExit):
		m.endScroll(p)
	case key.Matches(k, keys.LineUp):
		p.scrollTo(p.top - 1)
	case key.Matches(k, keys.LineDown):
		p.scrollTo(p.top + 1)
	case key.Matches(k, keys.PageUp):
		p.scrollTo(p.top - page)
	case key.Matches(k, keys.PageDown):
		p.scrollTo(p.top + page)
	case key.Matches(k, keys.Top):
		p.scrollTo(0)
	case key.Matches(k, keys.Search):
		m.search = newSearchInput(p.name, m.width)
		return m.search.focus(), true
	case key.Matches(k, keys.SearchNext):
		m.jumpHit(p, 1)
	case key.Matches(k, keys.SearchPrev):
		m.jumpHit(p, -1)
	case key.Matches(k, keys.Scroll): // already scrolling
	default:
		return nil, false
	}
	return nil, true
}

// searchMsg carries the rows of a pane's scrollback matching a query.
type searchMsg struct {
	agent, query string
	hits         []int
}

// searchKey edits the search query; enter searches, esc abandons.
func (m *Model) searchKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(k, m.keys.Close):
		m.search = nil
		return nil
	case key.Matches(k, m.keys.Submit):
		q := strings.TrimSpace(m.search.value())
		name := m.search.agent
		m.search = nil
		if q == "" {
			return nil
		}
		sw := m.sw
		return func() tea.Msg { return searchMsg{agent: name, query: q, hits: sw.Search(name, q)} }
	}
	return m.search.update(k)
}

// searchDone shows the last match (the newest) of a search.
func (m *Model) searchDone(msg searchMsg) {
	p := m.panes[msg.agent]
	if p == nil {
		return
	}
	p.query, p.hits = msg.query, msg.hits
	if len(p.hits) == 0 {
		p.hit = 0
		p.invalidate()
		m.setError(fmt.Errorf("%q not found in %s", msg.query, msg.agent))
		return
	}
	p.hit = len(p.hits) - 1
	m.showHit(p)
	m.setStatus("%d match%s for %q in %s (n/N to move)", len(p.hits), map[bool]string{true: "", false: "es"}[len(p.hits) == 1], msg.query, msg.agent)
	m.status.scroll = true
}

// jumpHit moves to the next (+1, older) or previous (-1, newer) match.
func (m *Model) jumpHit(p *pane, d int) {
	if len(p.hits) == 0 {
		m.setError(fmt.Errorf("no search: press / to search %s", p.name))
		return
	}
	// n goes further back in time, as in less after ?-search.
	p.hit = (p.hit - d + len(p.hits)) % len(p.hits)
	m.showHit(p)
}

// showHit scrolls so that the current match is a third down the pane.
func (m *Model) showHit(p *pane) {
	p.scrollTo(p.hits[p.hit] - m.paneRows(p.name)/3)
}

// paneRows is how many rows of its agent's screen a pane shows.
func (m *Model) paneRows(name string) int {
	if c, ok := m.lay.cellNamed(name); ok {
		rows, _ := inner(c.r)
		return rows
	}
	return 1
}

// agentMeta is what the agent list shows beyond the runtime state.
type agentMeta struct {
	unread int // deliveries to it still queued or injected
	task   *bus.Task
	beat   bus.Heartbeat
}

// metaMsg carries the agent list's bus reads.
type metaMsg struct {
	meta map[string]agentMeta
	err  error
}

// unreadLimit caps the unread count read per agent ("99+").
const unreadLimit = 100

// loadMeta reads unread counts, current tasks and heartbeats; one read is
// in flight at a time, and a request during it makes one more.
func (m *Model) loadMeta() tea.Cmd {
	if !m.metaLoad.start() {
		return nil
	}
	ctx, b, names := m.ctx, m.sw, m.names()
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		out := map[string]agentMeta{}
		for _, n := range names {
			out[n] = agentMeta{}
		}
		tasks, err := b.Tasks(ctx, bus.TaskFilter{States: []bus.TaskState{
			bus.TaskAssigned, bus.TaskWorking, bus.TaskConflicted, bus.TaskInReview, bus.TaskApproved,
		}})
		if err != nil {
			return metaMsg{err: err}
		}
		for _, t := range tasks {
			md, ok := out[t.Assignee]
			if !ok {
				continue
			}
			if md.task == nil || (md.task.State == bus.TaskAssigned && t.State != bus.TaskAssigned) {
				md.task = &t
			}
			out[t.Assignee] = md
		}
		beats, err := b.Heartbeats(ctx)
		if err != nil {
			return metaMsg{err: err}
		}
		for _, hb := range beats {
			if md, ok := out[hb.Agent]; ok {
				md.beat = hb
				out[hb.Agent] = md
			}
		}
		for _, n := range names {
			pend, err := b.Pending(ctx, n, unreadLimit)
			if err != nil {
				return metaMsg{err: err}
			}
			md := out[n]
			md.unread = len(pend)
			out[n] = md
		}
		return metaMsg{meta: out}
	}
}

func (m *Model) onMeta(msg metaMsg) tea.Cmd {
	again := m.metaLoad.done()
	if msg.err != nil {
		if m.ctx.Err() == nil {
			m.noteEvent(fmt.Sprintf("read agent status: %v", msg.err), true)
		}
	} else {
		m.meta = msg.meta
		m.gen++
	}
	if again {
		return m.loadMeta()
	}
	return nil
}

// loader keeps one read in flight and remembers that another was asked
// for meanwhile.
type loader struct{ busy, again bool }

// start reports whether a read should start now.
func (l *loader) start() bool {
	if l.busy {
		l.again = true
		return false
	}
	l.busy = true
	return true
}

// done ends a read and reports whether another was asked for.
func (l *loader) done() bool {
	again := l.again
	l.busy, l.again = false, false
	return again
}
