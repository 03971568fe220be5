package tui

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"swarm/bus"
	"swarm/swarmapi"
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
	ModeFilter               // typing a filter of the agent list
)

var modeNames = [...]string{"NORMAL", "ATTACHED", "SCROLL", "SEARCH", "DIALOG", "HELP", "FILTER"}

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

	agents   []swarmapi.AgentInfo
	meta     map[string]agentMeta
	selected string // agent name
	attached bool
	zoomed   bool
	hideList bool        // the person hid the agent list (a summary line shows)
	arrange  arrangement // how the panes share the window
	panes    map[string]*pane
	// filter narrows the agent list and the grid to the agents it
	// matches (agentfilter.go); filtering is it being typed.
	filter    string
	filtering *filterInput

	panel    panelKind
	showGame bool
	game     swarmapi.GameState
	hasGame  bool

	inbox inboxPanel
	tasks taskPanel
	log   logPanel

	dialog   dialog
	showHelp bool
	helpCol  int // the first column of the key list shown (it pages when they do not all fit)
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
	// began: the program called Init, which it does once the terminal is
	// the UI's (raw mode: ctrl+c is a key, not a SIGINT), with the context
	// not ended yet.
	began bool

	// manualClock (tests) turns the clock tick off and fires delayed
	// messages at once, so that commands can be run synchronously.
	manualClock bool
	// What waits for the person (swarmapi.NeedsYou): the tasks last
	// read that do, the list, the one shown last, and what was announced.
	waiting   []bus.Task
	questions []bus.Message
	needs     []swarmapi.Attention
	needAt    int
	announced map[string]bool
	metaSeen  bool // the bus has been read once: new things are announced
	// drag is where the left button went down on a pane, while it is.
	drag *dragStart
	// tickAt is when the pending clock tick fires; zero when none is.
	tickAt time.Time
	// askedColour: the terminal was asked whether it shows 24-bit colour.
	askedColour bool

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
	needs        int // how many things need the person
	gen          int
	agents, game rect
	selected     string
	attached     bool
	second       int64 // ages are shown in seconds
}

type helpKey struct {
	pages    int // pages of the grid
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
		needAt: -1, // ! shows the first first
		help:   help.New(),
		meta:   map[string]agentMeta{},
		panes:  map[string]*pane{},
		inputs: map[string]*inputQueue{},
		exited: map[string]bool{},
	}
	if opts.Attached {
		m.keys.Quit.SetHelp("q", "detach")
	}
	m.help.Styles.ShortKey = styleKey
	m.help.Styles.ShortDesc = styleDim
	m.help.Styles.ShortSeparator = styleDim
	m.refreshAgents()
	if opts.Notice != "" {
		m.setStatus("%s", opts.Notice)
	}
	if g, ok := sw.Game(); ok && opts.Game {
		m.game, m.hasGame, m.showGame = g, true, true
	}
	if len(m.agents) > 0 {
		m.selected = m.agents[0].Name
	}
	return m
}

// src is what the panels read from.
func (m *Model) src() source { return source{ctx: m.ctx, r: m.sw} }

// Init starts the clock and the first reads of the bus.
func (m *Model) Init() tea.Cmd {
	m.began = m.ctx.Err() == nil // not when a signal came before
	return tea.Batch(m.tickWithin(time.Second), m.loadMeta())
}

// tickMsg is the clock: it refreshes what the UI shows of time (an
// agent's age, the status line's expiry) when that next changes.
type tickMsg time.Time

// tickWithin makes sure the clock ticks within d: a tick already due
// sooner stands, so ticks never pile up. The clock runs on demand, not at
// a fixed rate: an idle swarm whose agents' ages read in minutes is drawn
// once a minute.
func (m *Model) tickWithin(d time.Duration) tea.Cmd {
	if m.manualClock {
		return nil
	}
	at := time.Now().Add(d)
	if !m.tickAt.IsZero() && !m.tickAt.After(at) {
		return nil
	}
	m.tickAt = at
	return tea.Tick(d, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// untilClockChanges is how long until something shown that depends on the
// clock changes: an agent's age (shortAge: to the second in its first
// minute, then to the minute, the hour, the day) or the status line's
// expiry; at most a minute, for what the UI does not model.
func (m *Model) untilClockChanges(now time.Time) time.Duration {
	d := time.Minute
	for _, a := range m.agents {
		if t := lastSign(a, m.meta[a.Name].beat); !t.IsZero() {
			d = min(d, ageChangesIn(now.Sub(t)))
		}
	}
	if m.status.text != "" || m.later != nil {
		d = min(d, m.status.at.Add(statusTTL).Sub(now))
	}
	if in, ok := m.tasks.clockChangesIn(now); ok && m.panel == panelTasks {
		d = min(d, in) // a check's or the queue's duration
	}
	return max(d, 20*time.Millisecond)
}

// ageChangesIn is how long until shortAge of an age changes.
func ageChangesIn(age time.Duration) time.Duration {
	unit := time.Second
	switch {
	case age >= 24*time.Hour:
		unit = 24 * time.Hour
	case age >= time.Hour:
		unit = time.Hour
	case age >= time.Minute:
		unit = time.Minute
	case age < 0:
		return time.Second
	}
	return unit - age%unit
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
	case m.filtering != nil:
		return ModeFilter
	}
	if p := m.selectedPane(); p != nil && p.scrolling {
		return ModeScroll
	}
	return ModeNormal
}

// refreshAgents reads the agents' runtime state (memory, not I/O) and
// keeps the selection and the panes in step with it.
func (m *Model) refreshAgents() tea.Cmd {
	old := m.visibleNames()
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
	needs := m.updateNeeds()
	if !slices.Equal(old, m.visibleNames()) {
		return tea.Batch(m.relayout(), needs)
	}
	return needs
}

func (m *Model) names() []string {
	out := make([]string, len(m.agents))
	for i, a := range m.agents {
		out[i] = a.Name
	}
	return out
}

func (m *Model) agentInfo(name string) (swarmapi.AgentInfo, bool) {
	for _, a := range m.agents {
		if a.Name == name {
			return a, true
		}
	}
	return swarmapi.AgentInfo{}, false
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
	m.lay = computeLayout(m.width, m.height, layoutOpts{
		names: m.visibleNames(), selected: m.selected, zoomed: m.zoomed, panel: m.panel != panelNone,
		game: m.showGame && m.hasGame, hideList: m.hideList, arrange: m.arrange,
	})
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
			// A terminal larger than an agent's may be shows it at its largest.
			rows, cols = min(rows, swarmapi.MaxRows), min(cols, swarmapi.MaxCols)
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

// Update routes a message: window and clock first, then results of
// commands and supervisor events, then keys and the mouse to whatever
// has the focus. Afterwards it asks for the pane renders the new state
// needs.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := m.update(msg)
	m.syncFocus()
	return m, tea.Batch(cmd, m.renderPanes(), m.tickWithin(m.untilClockChanges(m.opts.Now())))
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
			var hits []swarmapi.ScreenMatch
			if k.search != 0 {
				hits = p.hits
			}
			cmds = append(cmds, renderPane(m.sw, c.name, k, hits))
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
	case tea.ColorProfileMsg:
		// The environment may not say what the terminal can do (tmux
		// without Tc, ssh dropping COLORTERM): ask it, so that 24-bit
		// colour in the panes is not turned into the 256-colour palette
		// when the terminal shows it. Terminal.app answers the query
		// wrongly, and has no 24-bit colour to find.
		if msg.Profile < colorprofile.TrueColor && msg.Profile > colorprofile.NoTTY && os.Getenv("TERM_PROGRAM") != "Apple_Terminal" && !m.askedColour {
			m.askedColour = true
			return m, tea.Batch(tea.RequestCapability("RGB"), tea.RequestCapability("Tc"))
		}
		if msg.Profile == colorprofile.TrueColor && m.askedColour {
			return m, tea.ClearScreen // what was drawn in 256 colours is drawn again
		}
		return m, nil
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, m.relayout()
	case tickMsg:
		if !time.Time(msg).Before(m.tickAt) {
			m.tickAt = time.Time{} // the pending tick: it fired
		}
		cmd := m.refreshAgents()
		m.expireStatus()
		return m, cmd
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
		// Output is a sign of life: its age shows on the next tick.
		return m, m.tickWithin(time.Second)
	case EventMsg:
		return m, m.onEvent(msg.Event)
	case swarmGoneMsg:
		m.gone = true
		m.setError(fmt.Errorf("the swarm stopped; press q to leave"))
		return m, nil
	case metaMsg:
		return m, m.onMeta(msg)
	case inboxMsg:
		return m, m.inbox.loaded(m.src(), msg, m.panel == panelInbox)
	case tasksMsg:
		return m, m.tasks.loaded(m.src(), msg, m.panel == panelTasks)
	case taskEventsMsg:
		return m, m.tasks.eventsLoaded(m.src(), msg)
	case reviewMsg:
		return m, m.tasks.reviewLoaded(m.src(), msg)
	case logMsg:
		return m, m.log.loaded(m.src(), msg, m.panel == panelLog)
	case offerSaveMsg:
		if m.dialog == nil {
			m.offerSave(msg.name)
		}
		return m, nil
	case pruneMsg:
		m.onPrunePlan(msg)
		return m, nil
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
	case tea.MouseMotionMsg:
		return m, m.onDrag(msg)
	case tea.MouseReleaseMsg:
		return m, m.onRelease(msg)
	}
	if m.dialog != nil {
		// Cursor blinks and other internal messages of the text inputs.
		return m, m.updateDialog(msg)
	}
	return m, nil
}

// unreadLimit caps the unread count read per agent ("99+").
const unreadLimit = 100

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
