package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"swarm/bus"
	"swarm/tasks"
	"swarm/textsafe"
)

// readTimeout bounds one read of the bus by the UI.
const readTimeout = 10 * time.Second

// scroller is a list scrolled by lines from its end; 0 follows the
// newest line.
type scroller struct{ back int }

func (s *scroller) by(d int) { s.back = max(s.back+d, 0) }

// window returns the h lines to show.
func (s *scroller) window(lines []string, h int) []string {
	if h <= 0 {
		return nil
	}
	s.back = min(s.back, max(len(lines)-h, 0))
	end := len(lines) - s.back
	return lines[max(end-h, 0):end]
}

// ---- inbox ----

// panelReader is what the panels read: the bus, through Reader, and a
// task's review diff.
type panelReader interface {
	Reader
	Review(ctx context.Context, id string) (stat, diff string, err error)
}

// source is where a panel reads from, and the context its reads run in.
// Panels hold their own state and get only this from the root model.
type source struct {
	ctx context.Context
	r   panelReader
}

// read returns a command that runs f on the reader, within readTimeout,
// and delivers what it returns.
func (src source) read(f func(ctx context.Context, r panelReader) tea.Msg) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(src.ctx, readTimeout)
		defer cancel()
		return f(ctx, src.r)
	}
}

// inboxPanel shows the selected agent's messages, in and out, with their
// delivery state and failures.
type inboxPanel struct {
	agent  string
	msgs   []bus.Message
	err    error
	ld     loader
	scroll scroller
	ready  bool
}

// inboxLimit is how many recent messages the inbox shows.
const inboxLimit = 200

type inboxMsg struct {
	agent string
	msgs  []bus.Message
	err   error
}

func (p *inboxPanel) reset(agent string) {
	if p.agent != agent {
		p.agent, p.msgs, p.err, p.scroll, p.ready = agent, nil, nil, scroller{}, false
	}
}

func (p *inboxPanel) load(src source) tea.Cmd {
	if p.agent == "" || !p.ld.start() {
		return nil
	}
	agent := p.agent
	return src.read(func(ctx context.Context, r panelReader) tea.Msg {
		msgs, err := r.Inbox(ctx, agent, inboxLimit)
		return inboxMsg{agent: agent, msgs: msgs, err: err}
	})
}

func (p *inboxPanel) loaded(src source, msg inboxMsg, open bool) tea.Cmd {
	again := p.ld.done()
	if msg.agent == p.agent {
		p.msgs, p.err, p.ready = msg.msgs, msg.err, true
	} else {
		again = true
	}
	if again && open {
		return p.load(src)
	}
	return nil
}

// lines renders the inbox for an inside width w.
func (p *inboxPanel) lines(w int) []string {
	switch {
	case p.err != nil:
		return []string{styleError.Render("cannot read the inbox: " + p.err.Error())}
	case !p.ready:
		return []string{styleDim.Render("loading…")}
	case len(p.msgs) == 0:
		return []string{styleDim.Render("no messages to or from " + p.agent + " yet")}
	}
	var out []string
	for _, msg := range p.msgs {
		var dir, who, state string
		var failed []bus.Delivery
		if msg.From == p.agent {
			dir, who, state = "→", msg.To, msg.State()
			for _, d := range msg.Deliveries {
				if d.State.Undelivered() {
					failed = append(failed, d)
				}
			}
		} else {
			dir, who, state = "←", msg.From, msg.StateFor(p.agent)
			for _, d := range msg.Deliveries {
				if d.Recipient == p.agent && d.State.Undelivered() {
					failed = append(failed, d)
				}
			}
		}
		head := fmt.Sprintf("%s %s %-8s #%s ", msg.Time.Local().Format("15:04:05"), dir, who, bus.ShortID(msg.ID))
		st := fg(deliveryColor(state)).Render(fmt.Sprintf("%-9s", state))
		kind := ""
		if msg.Kind != bus.KindMessage && msg.Kind != "" {
			kind = "[" + string(msg.Kind) + "] "
		}
		out = append(out, head+st+" "+kind+textsafe.Words(msg.Shown()))
		for _, d := range failed {
			reason := d.Error
			if reason == "" {
				reason = d.State.String()
			}
			out = append(out, fg(colorDead).Render(fmt.Sprintf("           %s to %s: %s", d.State, d.Recipient, textsafe.Words(reason))))
		}
	}
	return out
}

// ---- task board ----

// taskPanel is the task board: every task grouped by state, and the
// selected task's details and history.
type taskPanel struct {
	tasks  []bus.Task // in board order
	sel    string     // selected task id
	err    error
	ld     loader
	ready  bool
	events []bus.TaskEvent
	evFor  string
	evErr  error
	evld   loader

	// With [checks]: each task's checks, the merge queue, and the
	// reviewer agent's verdicts on the selected task (read with its
	// history).
	checks  map[string][]bus.Check
	queue   []bus.QueueEntry
	reviews []bus.Review

	// The selected task's changes (with a Reviewer), and whether the
	// panel shows its diff instead of the board.
	stat, diff string
	revFor     string
	revErr     error
	revld      loader
	showDiff   bool
	diffTop    int
}

// boardOrder is the order of the state groups on the board: the one
// every list of tasks uses.
var boardOrder = bus.TaskStates()

type tasksMsg struct {
	tasks  []bus.Task
	checks []bus.Check
	queue  []bus.QueueEntry
	err    error
}

type taskEventsMsg struct {
	id      string
	events  []bus.TaskEvent
	reviews []bus.Review
	err     error
}

type reviewMsg struct {
	id, stat, diff string
	err            error
}

// checksOn says whether the swarm runs checks ([checks]) as far as the
// board can tell: a check or a merge-queue entry is on the bus (every task
// that reached review under [checks] has its checks there).
func (p *taskPanel) checksOn() bool { return len(p.checks) > 0 || len(p.queue) > 0 }

func (p *taskPanel) load(src source) tea.Cmd {
	if !p.ld.start() {
		return nil
	}
	return src.read(func(ctx context.Context, r panelReader) tea.Msg {
		ts, err := r.Tasks(ctx, bus.TaskFilter{})
		if err != nil {
			return tasksMsg{err: err}
		}
		cs, err := r.AllChecks(ctx)
		if err != nil {
			return tasksMsg{err: err}
		}
		q, err := r.MergeQueue(ctx)
		return tasksMsg{tasks: ts, checks: cs, queue: q, err: err}
	})
}

func (p *taskPanel) loaded(src source, msg tasksMsg, open bool) tea.Cmd {
	again := p.ld.done()
	p.err, p.ready = msg.err, true
	if msg.err == nil {
		ts := slices.Clone(msg.tasks)
		slices.SortStableFunc(ts, func(a, b bus.Task) int {
			return slices.Index(boardOrder, a.State) - slices.Index(boardOrder, b.State)
		})
		oldRow := slices.IndexFunc(p.tasks, func(t bus.Task) bool { return t.ID == p.sel })
		var oldState bus.TaskState
		if oldRow >= 0 {
			oldState = p.tasks[oldRow].State
		}
		p.tasks, p.queue = ts, msg.queue
		p.checks = map[string][]bus.Check{}
		for _, c := range msg.checks {
			p.checks[c.Task] = append(p.checks[c.Task], c)
		}
		sel, ok := p.selectedTask()
		switch {
		case !ok && len(ts) > 0:
			p.sel = ts[min(max(oldRow, 0), len(ts)-1)].ID
		case ok && oldRow >= 0 && sel.State.Final() && sel.State != oldState:
			// A task that is done with (cancelled, merged) leaves for the
			// bottom of the board; the cursor stays where the eye is, on
			// the task that took its row. Other moves are followed: the
			// next action is often on the same task (approve, then merge).
			p.sel = ts[min(oldRow, len(ts)-1)].ID
		}
	}
	cmds := []tea.Cmd{p.loadEvents(src, true), p.loadReview(src, true)}
	if again && open {
		cmds = append(cmds, p.load(src))
	}
	return tea.Batch(cmds...)
}

// selectedTask returns the task selected on the board.
func (p *taskPanel) selectedTask() (bus.Task, bool) {
	for _, t := range p.tasks {
		if t.ID == p.sel {
			return t, true
		}
	}
	return bus.Task{}, false
}

// choose selects task id, when it is on the board.
func (p *taskPanel) choose(src source, id string) tea.Cmd {
	if p.sel == id {
		return nil
	}
	p.sel, p.diffTop = id, 0
	return tea.Batch(p.loadEvents(src, false), p.loadReview(src, false))
}

// move selects the task d rows down (up when negative).
func (p *taskPanel) move(src source, d int) tea.Cmd {
	if len(p.tasks) == 0 {
		return nil
	}
	i := slices.IndexFunc(p.tasks, func(t bus.Task) bool { return t.ID == p.sel })
	i = min(max(i+d, 0), len(p.tasks)-1)
	if p.tasks[i].ID == p.sel {
		return nil
	}
	p.sel = p.tasks[i].ID
	p.diffTop = 0
	return tea.Batch(p.loadEvents(src, false), p.loadReview(src, false))
}

// loadEvents reads the selected task's history; force reads it again
// even if it is the one shown (its state may have changed).
func (p *taskPanel) loadEvents(src source, force bool) tea.Cmd {
	if p.sel == "" || (!force && p.evFor == p.sel) || !p.evld.start() {
		return nil
	}
	id := p.sel
	return src.read(func(ctx context.Context, r panelReader) tea.Msg {
		evs, err := r.TaskEvents(ctx, id)
		if err != nil {
			return taskEventsMsg{id: id, err: err}
		}
		rs, err := r.Reviews(ctx, id)
		return taskEventsMsg{id: id, events: evs, reviews: rs, err: err}
	})
}

// eventsLoaded keeps a task's history and reviews, and reads them again
// for the task now selected if the cursor moved on meanwhile (its read
// was not started while this one ran).
func (p *taskPanel) eventsLoaded(src source, msg taskEventsMsg) tea.Cmd {
	again := p.evld.done()
	p.events, p.reviews, p.evFor, p.evErr = msg.events, msg.reviews, msg.id, msg.err
	if again || p.sel != msg.id {
		return p.loadEvents(src, true)
	}
	return nil
}

// loadReview reads the selected task's diff when the task has a branch.
func (p *taskPanel) loadReview(src source, force bool) tea.Cmd {
	t, sel := p.selectedTask()
	if !sel || t.Branch == "" || (!force && p.revFor == t.ID) || !p.revld.start() {
		return nil
	}
	id := t.ID
	return src.read(func(ctx context.Context, r panelReader) tea.Msg {
		stat, diff, err := r.Review(ctx, id)
		return reviewMsg{id: id, stat: stat, diff: diff, err: err}
	})
}

func (p *taskPanel) reviewLoaded(src source, msg reviewMsg) tea.Cmd {
	again := p.revld.done()
	p.stat, p.diff, p.revFor, p.revErr = msg.stat, msg.diff, msg.id, msg.err
	if t, ok := p.selectedTask(); ok && (again || t.ID != msg.id) {
		return p.loadReview(src, true)
	}
	return nil
}

// diffLines renders the selected task's diff, coloured, from diffTop.
func (p *taskPanel) diffLines(h int) []string {
	t, _ := p.selectedTask()
	switch {
	case p.revFor != t.ID:
		return []string{styleDim.Render("loading…")}
	case p.revErr != nil:
		return []string{styleError.Render("cannot read the diff: " + p.revErr.Error())}
	case p.diff == "" && t.State == bus.TaskCompleted:
		return []string{styleDim.Render("no diff: " + t.Branch + " is in " + t.Base + " (" + p.mergeNote(t) + ")")}
	case p.diff == "":
		return []string{styleDim.Render("no changes on " + t.Branch + " yet")}
	}
	all := strings.Split(strings.TrimRight(p.diff, "\n"), "\n")
	p.diffTop = min(max(p.diffTop, 0), max(len(all)-h, 0))
	var out []string
	for _, l := range all[p.diffTop:min(p.diffTop+h, len(all))] {
		l = strings.ReplaceAll(l, "\t", "    ")
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "diff "):
			out = append(out, styleBold.Render(l))
		case strings.HasPrefix(l, "+"):
			out = append(out, fg(colorOK).Render(l))
		case strings.HasPrefix(l, "-"):
			out = append(out, fg(colorDead).Render(l))
		case strings.HasPrefix(l, "@@"):
			out = append(out, fg(colorSelected).Render(l))
		default:
			out = append(out, l)
		}
	}
	return out
}

// lines renders the board for an inside of w×h cells: the list on the
// left, the selected task on the right.
func (p *taskPanel) lines(km KeyMap, w, h int, now time.Time) []string {
	switch {
	case p.err != nil:
		return []string{styleError.Render("cannot read tasks: " + p.err.Error())}
	case !p.ready:
		return []string{styleDim.Render("loading…")}
	case len(p.tasks) == 0:
		return []string{styleDim.Render("no tasks yet — agents create them (task_create) or run `swarm task add`")}
	}
	lw := min(max(w/2, 30), w)
	rw := w - lw - 1

	list := p.queueLines(lw, now)
	selRow := 0
	marks := p.checksOn()
	var cur bus.TaskState = -1
	for _, t := range p.tasks {
		if t.State != cur {
			cur = t.State
			n := 0
			for _, u := range p.tasks {
				if u.State == cur {
					n++
				}
			}
			list = append(list, fg(taskColor(cur)).Bold(true).Render(fmt.Sprintf("%s (%d)", cur, n)))
		}
		mark := ""
		if marks {
			// A column of marks once any task has checks: ✓ ✗ ⋯, or none.
			mark = "  "
			if s, ok := bus.Summary(bus.CurrentChecks(p.checks[t.ID])); ok {
				mark = ansi.Strip(checkMark(s)) + " "
			}
		}
		row := fmt.Sprintf("  %s %s%-8s %s", t.ID, mark, t.Assignee, textsafe.Words(t.Title))
		if t.ID == p.sel {
			selRow = len(list)
			row = "▶" + row[1:]
			list = append(list, styleSelRow.Render(fitPlain(row, lw)))
		} else {
			list = append(list, row)
		}
	}
	start := 0
	if selRow >= h {
		start = selRow - h + 1
	}
	list = list[start:]

	var right []string
	if rw > 10 {
		right = p.detail(km, rw, h, now)
	}
	out := make([]string, h)
	for i := range h {
		l := ""
		if i < len(list) {
			l = list[i]
		}
		r := ""
		if i < len(right) {
			r = right[i]
		}
		if rw > 10 {
			out[i] = fit(l, lw) + styleDim.Render("│") + r
		} else {
			out[i] = l
		}
	}
	return out
}

// detail renders the selected task in w×h cells: state, people, git,
// description, changes and history.
func (p *taskPanel) detail(km KeyMap, w, h int, now time.Time) []string {
	t, ok := p.selectedTask()
	if !ok {
		return nil
	}
	out := []string{
		styleBold.Render(t.ID) + " " + fg(taskColor(t.State)).Bold(true).Render(t.State.String()) + " " + textsafe.Words(t.Title),
		styleDim.Render(fmt.Sprintf("assignee %s · created by %s", t.Assignee, t.CreatedBy)),
	}
	if t.Branch != "" {
		out = append(out, styleDim.Render(fmt.Sprintf("branch %s (base %s)", t.Branch, t.Base)))
	} else {
		out = append(out, styleDim.Render("no branch"))
	}
	if t.Description != "" {
		out = append(out, wrapPlain(t.Description, w)...)
	}
	switch {
	case t.Branch == "":
	case t.State == bus.TaskCompleted:
		// Its changes are in its base now: the diff is empty.
		out = append(out, styleHeader.Render("changes"), p.mergeNote(t))
	case p.revFor == t.ID:
		out = append(out, styleHeader.Render("changes")+styleDim.Render(" (d: diff)"))
		switch {
		case p.revErr != nil:
			out = append(out, styleError.Render("cannot read the diff: "+p.revErr.Error()))
		case strings.TrimSpace(p.stat) == "":
			out = append(out, styleDim.Render("none yet"))
		default:
			for _, l := range strings.Split(strings.TrimRight(p.stat, "\n"), "\n") {
				out = append(out, strings.TrimLeft(l, " "))
			}
		}
	}
	out = append(out, p.checkLines(t, w, max((h-len(out))/3, 3), now)...)
	var hist []string
	switch {
	case p.evErr != nil && p.evFor == t.ID:
		hist = append(hist, styleError.Render("cannot read history: "+p.evErr.Error()))
	case p.evFor != t.ID:
		hist = append(hist, styleDim.Render("loading…"))
	}
	if p.evFor == t.ID {
		for _, e := range p.events {
			move := e.To.String()
			if e.From != bus.TaskNone {
				move = e.From.String() + " → " + e.To.String()
			}
			line := fmt.Sprintf("%s %s by %s", e.Time.Local().Format("15:04:05"), move, e.Actor)
			if e.Note != "" {
				line += ": " + textsafe.Words(e.Note)
			}
			for i, l := range wrapPlain(line, w-2) {
				if i > 0 {
					l = "  " + l
				}
				hist = append(hist, l)
			}
		}
	}
	// The newest history is what matters: when the panel is short, the
	// oldest lines give way.
	heading := styleHeader.Render("history")
	if room := max(h-len(out)-2, 1); len(hist) > room {
		heading += styleDim.Render(fmt.Sprintf(" (%d older lines not shown)", len(hist)-room))
		hist = hist[len(hist)-room:]
	}
	out = append(out, heading)
	out = append(out, hist...)
	out = append(out, styleDim.Render(actionsFor(km, t.State)))
	return out
}

// mergeNote says how a completed task was merged: the note of its last
// event ("merged as …"), else "merged".
func (p *taskPanel) mergeNote(t bus.Task) string {
	if p.evFor == t.ID && len(p.events) > 0 {
		if e := p.events[len(p.events)-1]; e.To == bus.TaskCompleted && e.Note != "" {
			return textsafe.Words(e.Note)
		}
	}
	return "merged"
}

// actionsFor lists the keys of the moves the task service offers on a
// task in state s.
func actionsFor(km KeyMap, s bus.TaskState) string {
	var acts []string
	for _, a := range []struct {
		move tasks.Move
		key  key.Binding
	}{
		{tasks.MoveApprove, km.Approve}, {tasks.MoveRequestChanges, km.RequestChanges},
		{tasks.MoveMerge, km.Merge}, {tasks.MoveRetry, km.Retry}, {tasks.MoveCancel, km.CancelTask},
	} {
		if a.move.AppliesTo(s) {
			acts = append(acts, a.key.Help().Key+" "+a.move.String())
		}
	}
	if len(acts) == 0 {
		return "(final)"
	}
	return strings.Join(acts, " · ")
}

// ---- message log ----

// logPanel is the bus's recent traffic, newest at the bottom.
type logPanel struct {
	msgs   []bus.Message
	err    error
	ld     loader
	scroll scroller
	ready  bool
}

// logWindow is how many of the newest messages the log reads.
const logWindow = 300

type logMsg struct {
	msgs []bus.Message
	err  error
}

func (p *logPanel) reset() { p.scroll = scroller{} }

func (p *logPanel) load(src source) tea.Cmd {
	if !p.ld.start() {
		return nil
	}
	return src.read(func(ctx context.Context, b panelReader) tea.Msg {
		last, err := b.LastSeq(ctx)
		if err != nil {
			return logMsg{err: err}
		}
		msgs, err := b.Messages(ctx, max(last-logWindow, 0), logWindow)
		return logMsg{msgs: msgs, err: err}
	})
}

func (p *logPanel) loaded(src source, msg logMsg, open bool) tea.Cmd {
	again := p.ld.done()
	p.err, p.ready = msg.err, true
	if msg.err == nil {
		p.msgs = msg.msgs
	}
	if again && open {
		return p.load(src)
	}
	return nil
}

// lines renders the log.
func (p *logPanel) lines() []string {
	switch {
	case p.err != nil:
		return []string{styleError.Render("cannot read the log: " + p.err.Error())}
	case !p.ready:
		return []string{styleDim.Render("loading…")}
	case len(p.msgs) == 0:
		return []string{styleDim.Render("no messages yet")}
	}
	out := make([]string, 0, len(p.msgs))
	for _, msg := range p.msgs {
		state := msg.State()
		kind := ""
		if msg.Kind != bus.KindMessage && msg.Kind != "" {
			kind = "[" + string(msg.Kind) + "] "
		}
		out = append(out, fmt.Sprintf("%s %s → %s #%s ", msg.Time.Local().Format("15:04:05"), msg.From, msg.To, bus.ShortID(msg.ID))+
			fg(deliveryColor(state)).Render(state)+" "+kind+textsafe.Words(msg.Shown()))
	}
	return out
}

// queueLines renders the merge queue at the top of the board, w cells
// wide: each entry in order, what it does and for how long (the first:
// its check that runs now, and for how long). None when it is empty.
func (p *taskPanel) queueLines(w int, now time.Time) []string {
	if len(p.queue) == 0 {
		return nil
	}
	out := []string{styleHeader.Render(fmt.Sprintf("MERGE QUEUE (%d)", len(p.queue)))}
	for i, e := range p.queue {
		line := fmt.Sprintf("  %d. %s %s %s", i+1, e.Task, e.Phase, shortAge(now, e.Since))
		if e.Phase == bus.PhaseChecking {
			for _, c := range p.checks[e.Task] {
				if c.Run == bus.RunMerge && c.Commit == e.New && c.State == bus.CheckRunning {
					line += fmt.Sprintf(": %s %s", textsafe.Words(c.Cmd), shortAge(now, now.Add(-c.Duration(now))))
					break
				}
			}
		}
		if e.Why != "" {
			line += ": " + textsafe.Words(e.Why)
		}
		out = append(out, fitPlain(line, w))
	}
	return out
}

// clockChangesIn is how long until a duration the board shows changes
// (a queue entry's, a running check's); ok is false when it shows none.
func (p *taskPanel) clockChangesIn(now time.Time) (d time.Duration, ok bool) {
	d = time.Hour
	for _, e := range p.queue {
		d, ok = min(d, ageChangesIn(now.Sub(e.Since))), true
	}
	for _, cs := range p.checks {
		for _, c := range cs {
			if c.State == bus.CheckRunning {
				d, ok = min(d, ageChangesIn(now.Sub(c.Started))), true
			}
		}
	}
	return d, ok
}

// checkLines renders a task's checks (those that say where it stands),
// the reviewer agent's verdicts and its place in the merge queue for the
// detail, w cells wide; a failed check shows its last lines, up to tail.
func (p *taskPanel) checkLines(t bus.Task, w, tail int, now time.Time) []string {
	var out []string
	cs := bus.CurrentChecks(p.checks[t.ID])
	if len(cs) > 0 {
		on := "branch"
		if cs[0].Run == bus.RunMerge {
			on = "merge with " + t.Base
		}
		out = append(out, styleHeader.Render("checks")+styleDim.Render(fmt.Sprintf(" (%s at %s)", on, cs[0].Commit[:min(len(cs[0].Commit), 10)])))
	}
	for _, c := range cs {
		how := shortAge(now, now.Add(-c.Duration(now)))
		switch c.State {
		case bus.CheckQueued:
			how = "queued"
		case bus.CheckFailed:
			how = fmt.Sprintf("exit %d, %s", c.Exit, how)
		case bus.CheckTimedOut:
			how = "timed out after " + how
		case bus.CheckCancelled:
			how = "cancelled"
		}
		out = append(out, checkMark(c.State)+" "+fitPlain(textsafe.Words(c.Cmd)+"  "+how, w-2))
		if c.State == bus.CheckFailed || c.State == bus.CheckTimedOut {
			lines := strings.Split(strings.TrimRight(c.Tail, "\n"), "\n")
			if len(lines) > tail {
				lines = lines[len(lines)-tail:]
			}
			for _, l := range lines {
				out = append(out, styleDim.Render("  │ ")+fitPlain(textsafe.Words(l), w-4))
			}
		}
	}
	for i, e := range p.queue {
		if e.Task == t.ID {
			line := fmt.Sprintf("merge queue: %d of %d, %s %s", i+1, len(p.queue), e.Phase, shortAge(now, e.Since))
			if e.Why != "" {
				line += ": " + textsafe.Words(e.Why)
			}
			out = append(out, wrapPlain(line, w)...)
		}
	}
	if p.evFor == t.ID {
		for _, r := range p.reviews {
			line := fmt.Sprintf("review by %s: %s", r.Reviewer, strings.ReplaceAll(string(r.Verdict), "_", " "))
			if r.Note != "" {
				line += " — " + textsafe.Words(r.Note)
			}
			out = append(out, wrapPlain(line, w)...)
		}
	}
	return out
}
