// Command swarm runs supervised AI coding agents in terminals and relays
// messages between them through an embedded SQLite bus.
//
// main.go only declares the command line and wires it to the packages that
// do the work; it holds no logic of its own beyond parsing and printing.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/alecthomas/kong"

	"swarm/asciicast"
	"swarm/bus"
	"swarm/games"
	"swarm/parser"
	"swarm/supervisor"
	"swarm/textsafe"
	"swarm/tui"
)

// version is overridden at build time with -ldflags "-X main.version=…".
var version = "dev"

// exitError carries an exit status through kong's Run so that main decides
// how the process ends in exactly one place.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError is an error the user fixes by changing the command line.
func usageError(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

// Globals are the flags every command accepts, and the process context.
type Globals struct {
	Dir string `help:"Bus directory. $SWARM_DIR, when set, takes precedence; the default is .swarm in the current directory." placeholder:"DIR"`

	ignoreEnvDir bool // the command chose its own bus (the demo)

	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// busDir is $SWARM_DIR, else --dir, else .swarm. The environment wins so
// that an agent, which swarm starts with SWARM_DIR set, always talks to the
// bus of the swarm that runs it.
func (g *Globals) busDir() string {
	if d := os.Getenv("SWARM_DIR"); d != "" && !g.ignoreEnvDir {
		return d
	}
	if g.Dir != "" {
		return g.Dir
	}
	return ".swarm"
}

// caller is who runs this command on b: the agent whose $SWARM_TOKEN it
// holds or inside whose process it runs, else the human; $SWARM_AGENT must
// agree (supervisor.WhoIsCalling).
func (g *Globals) caller(b *bus.Bus) (string, error) {
	c, err := supervisor.WhoIsCalling(g.ctx, b, os.Getenv)
	return c.Name, err
}

// open opens the bus. Commands that only read refuse to create one, so a
// typo in --dir is an error instead of a new empty bus.
func (g *Globals) open(create bool) (*bus.Bus, error) {
	dir := g.busDir()
	if !create {
		if _, err := os.Stat(filepath.Join(dir, "bus.db")); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no bus in %s (nothing was sent there yet; set $SWARM_DIR or --dir to use another)", dir)
		}
	}
	return bus.Open(bus.Options{Dir: dir})
}

// CLI is the whole command line.
type CLI struct {
	Globals

	Up        upCmd        `cmd:"" default:"withargs" help:"Start the agents of swarm.toml (the default command)."`
	Init      initCmd      `cmd:"" help:"Write a commented starter swarm.toml."`
	Demo      demoCmd      `cmd:"" help:"Run a demo swarm."`
	Send      sendCmd      `cmd:"" help:"Send a message; prints its id."`
	Inbox     inboxCmd     `cmd:"" help:"Show messages to and from an agent, with delivery state."`
	Log       logCmd       `cmd:"" help:"Show all traffic on the bus in order."`
	Status    statusCmd    `cmd:"" help:"Show agents with their heartbeats, and tasks by state."`
	Task      taskCmd      `cmd:"" help:"Create, list and move tasks."`
	Heartbeat heartbeatCmd `cmd:"" help:"Report the calling agent's status ($SWARM_AGENT)."`
	Export    exportCmd    `cmd:"" help:"Append new messages to a JSONL file (resumes where the file ends)."`
	Parse     parseCmd     `cmd:"" help:"Extract relay commands from raw terminal output; prints them as JSON lines (line: the screen line, from 0, that the command was read from)."`
	Agent     agentCmd     `cmd:"" help:"Run a built-in agent (what the demo runs in each pane)."`
	Version   versionCmd   `cmd:"" help:"Print swarm's version."`
}

type versionCmd struct{}

func (versionCmd) Run(g *Globals) error {
	fmt.Fprintln(g.stdout, "swarm", version)
	return nil
}

// ---- messages ----

type sendCmd struct {
	To    string   `arg:"" help:"Recipient: an agent name, \"*\" for every agent but you, \"swarm\" or \"human\"."`
	Body  []string `arg:"" help:"Message text (words are joined with spaces; \"-\" reads it from stdin)."`
	Type  string   `help:"Message kind, e.g. message, notice, task_done." default:"message" placeholder:"KIND"`
	Data  string   `help:"JSON value attached to the message." placeholder:"JSON"`
	Topic string   `help:"Topic or thread name." placeholder:"TOPIC"`
}

func (c *sendCmd) Run(g *Globals) error {
	body := strings.Join(c.Body, " ")
	if body == "-" {
		in, err := io.ReadAll(g.stdin)
		if err != nil {
			return fmt.Errorf("send: read stdin: %w", err)
		}
		body = strings.TrimSuffix(string(in), "\n")
	}
	if strings.TrimSpace(body) == "" {
		return usageError("send: the message is empty")
	}
	if err := bus.CheckKind(bus.Kind(c.Type)); err != nil {
		return usageError("send: --type: %v", err)
	}
	if c.Data != "" && !json.Valid([]byte(c.Data)) {
		var v any
		return usageError("send: --data is not valid JSON: %v", json.Unmarshal([]byte(c.Data), &v))
	}
	msg := bus.Message{To: c.To, Kind: bus.Kind(c.Type), Body: body, Data: json.RawMessage(c.Data), Topic: c.Topic}
	if c.To == "swarm" {
		if err := supervisor.CheckControl(msg); err != nil {
			return fmt.Errorf("send: swarm takes control messages only: %w", err)
		}
	}
	b, err := g.open(true)
	if err != nil {
		return err
	}
	defer b.Close()
	if msg.From, err = g.caller(b); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	m, err := b.Publish(g.ctx, msg)
	if err != nil {
		return fmt.Errorf("send: %w", err)
	}
	fmt.Fprintln(g.stdout, m.ID)
	for _, d := range m.Deliveries {
		if d.State == bus.DeliveryFailed {
			return fmt.Errorf("send: %s (message #%s stored as failed)", d.Error, bus.ShortID(m.ID))
		}
	}
	return nil
}

type inboxCmd struct {
	Agent string `arg:"" optional:"" help:"Agent whose inbox to show (default: you, $SWARM_AGENT or human)."`
	Limit int    `help:"Show only the latest N messages (0: all)." default:"0" placeholder:"N"`
	JSON  bool   `name:"json" help:"Print one JSON object per line."`
}

func (c *inboxCmd) Run(g *Globals) error {
	b, err := g.open(false)
	if err != nil {
		return err
	}
	defer b.Close()
	agent := c.Agent
	if agent == "" {
		if agent, err = g.caller(b); err != nil {
			return fmt.Errorf("inbox: %w", err)
		}
	}
	ms, err := b.Inbox(g.ctx, agent, c.Limit)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(g.stdout)
	for _, m := range ms {
		if err := printMessage(w, m, m.StateFor(agent), c.JSON); err != nil {
			return err
		}
	}
	if len(ms) == 0 && agent != bus.Human && agent != bus.Swarm {
		if _, err := b.Agent(g.ctx, agent); errors.Is(err, bus.ErrUnknownAgent) {
			return fmt.Errorf("inbox: %w", err) // a typo, most likely
		}
	}
	if len(ms) == 0 && !c.JSON {
		fmt.Fprintf(w, "no messages to or from %s\n", agent)
	}
	return w.Flush()
}

type logCmd struct {
	Follow bool `short:"f" help:"Keep printing new messages as they arrive (until interrupted)."`
	Limit  int  `help:"Start with only the latest N messages (0: all)." default:"0" placeholder:"N"`
	JSON   bool `name:"json" help:"Print one JSON object per line."`
}

func (c *logCmd) Run(g *Globals) error {
	b, err := g.open(false)
	if err != nil {
		return err
	}
	defer b.Close()
	wake, unsubscribe := b.Subscribe() // before the first read, so nothing falls in between
	defer unsubscribe()
	after := int64(0)
	if c.Limit > 0 {
		last, err := b.LastSeq(g.ctx)
		if err != nil {
			return err
		}
		after = max(0, last-int64(c.Limit))
	}
	w := bufio.NewWriter(g.stdout)
	for {
		page, err := b.Messages(g.ctx, after, 500)
		if err != nil {
			if g.ctx.Err() != nil {
				return nil // interrupted while following
			}
			return err
		}
		for _, m := range page {
			if err := printMessage(w, m, m.State(), c.JSON); err != nil {
				return err
			}
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if len(page) > 0 {
			after = page[len(page)-1].Seq
			continue
		}
		if !c.Follow {
			return nil
		}
		select {
		case <-wake:
		case <-g.ctx.Done():
			return nil
		}
	}
}

// printMessage writes m as a JSON line or as one aligned, readable line.
func printMessage(w io.Writer, m bus.Message, state string, asJSON bool) error {
	if asJSON {
		line, err := bus.EncodeRecord(bus.NewRecord(m, state))
		if err != nil {
			return err
		}
		_, err = w.Write(textsafe.JSON(line))
		return err
	}
	body := oneLine(m.Shown())
	if m.Kind != bus.KindMessage {
		body = "[" + oneLine(string(m.Kind)) + "] " + body
	}
	if m.Topic != "" {
		body = "(" + oneLine(m.Topic) + ") " + body
	}
	_, err := fmt.Fprintf(w, "%s  #%s  %-10s → %-10s %-10s %s\n",
		m.Time.Local().Format(time.TimeOnly), bus.ShortID(m.ID), oneLine(m.From), oneLine(m.To), state, body)
	return err
}

// oneLine makes text safe to print on one terminal line: newlines become
// ⏎ and other control characters are dropped, so a message can never
// move the cursor or recolour the reader's terminal.
func oneLine(s string) string { return textsafe.Line(s) }

// maxErrorLine bounds an error line: an error may quote what it was given,
// and an argument can be megabytes long.
const maxErrorLine = 400

// errorLine is err's text on one line of at most maxErrorLine characters,
// its middle cut out when longer.
func errorLine(s string) string {
	s = oneLine(s)
	r := []rune(s)
	if len(r) <= maxErrorLine {
		return s
	}
	keep := maxErrorLine/2 - 10
	return string(r[:keep]) + fmt.Sprintf(" …(%d characters)… ", len(r)-2*keep) + string(r[len(r)-keep:])
}

// ---- status ----

type statusCmd struct {
	JSON bool `name:"json" help:"Print one JSON object with \"agents\" and \"tasks\" arrays."`
}

type agentJSON struct {
	Name      string     `json:"name"`
	Cmd       string     `json:"cmd"`
	State     string     `json:"state"`
	Reason    string     `json:"reason,omitempty"`
	Pid       int        `json:"pid,omitempty"`
	Restarts  int        `json:"restarts"`
	Alive     bool       `json:"alive"`
	Level     string     `json:"level"`
	AgeS      float64    `json:"age_s"`
	Heartbeat *beatJSON  `json:"heartbeat,omitempty"`
	Task      *taskBrief `json:"task,omitempty"`
}

type beatJSON struct {
	Status   string    `json:"status"`
	Progress float64   `json:"progress"`
	Task     string    `json:"task,omitempty"`
	TS       time.Time `json:"ts"`
}

type taskBrief struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	State string `json:"state"`
}

type taskJSON struct {
	ID          string      `json:"id"`
	Title       string      `json:"title"`
	Description string      `json:"description,omitempty"`
	Assignee    string      `json:"assignee"`
	CreatedBy   string      `json:"created_by"`
	State       string      `json:"state"`
	Created     time.Time   `json:"created"`
	Updated     time.Time   `json:"updated"`
	Branch      string      `json:"branch,omitempty"`
	Worktree    string      `json:"worktree,omitempty"`
	Base        string      `json:"base,omitempty"`
	Events      []eventJSON `json:"events,omitempty"`
	DiffStat    string      `json:"diff_stat,omitempty"`
	Diff        string      `json:"diff,omitempty"`
}

type eventJSON struct {
	From  string    `json:"from"`
	To    string    `json:"to"`
	Actor string    `json:"actor"`
	Note  string    `json:"note,omitempty"`
	TS    time.Time `json:"ts"`
}

func newTaskJSON(t bus.Task) taskJSON {
	return taskJSON{ID: t.ID, Title: t.Title, Description: t.Description, Assignee: t.Assignee, CreatedBy: t.CreatedBy,
		State: t.State.String(), Created: t.Created, Updated: t.Updated, Branch: t.Branch, Worktree: t.Worktree, Base: t.Base}
}

// staleRecord is what a record of an agent as starting or running means
// when no swarm runs on the bus: the swarm that wrote it was killed. Its
// process may live on; the next swarm up ends it.
func staleRecord(h bus.Health) bus.Health {
	if h.Agent.State != bus.AgentRunning && h.Agent.State != bus.AgentStarting {
		return h
	}
	h.Alive, h.Level = false, bus.LevelDead
	if h.Agent.Pid > 0 && syscall.Kill(h.Agent.Pid, 0) == nil {
		h.Agent.State = "orphaned"
		h.Agent.Reason = fmt.Sprintf("swarm is not running; process %d lives on: the next swarm up ends it", h.Agent.Pid)
		return h
	}
	h.Agent.State = bus.AgentStopped
	h.Agent.Reason = "swarm is not running; it ended without recording this agent's end"
	return h
}

func (c *statusCmd) Run(g *Globals) error {
	b, err := g.open(false)
	if err != nil {
		return err
	}
	defer b.Close()
	health, err := b.Health(g.ctx, bus.DefaultThresholds, time.Now())
	if err != nil {
		return err
	}
	tasks, err := b.Tasks(g.ctx, bus.TaskFilter{})
	if err != nil {
		return err
	}
	_, swarmUp := supervisor.SwarmRunning(g.busDir())
	agents := make([]agentJSON, 0, len(health))
	for _, h := range health {
		if h.Agent.State == bus.AgentRemoved {
			continue // from an earlier config
		}
		if !swarmUp {
			h = staleRecord(h)
		}
		a := agentJSON{Name: h.Agent.Name, Cmd: h.Agent.Cmd, State: h.Agent.State, Reason: h.Agent.Reason, Pid: h.Agent.Pid,
			Restarts: h.Agent.Restarts, Alive: h.Alive, Level: h.Level.String(), AgeS: h.Age.Round(time.Millisecond).Seconds()}
		if !h.Beat.Time.IsZero() {
			a.Heartbeat = &beatJSON{Status: h.Beat.Status.String(), Progress: h.Beat.Progress, Task: h.Beat.Task, TS: h.Beat.Time}
		}
		if t, err := b.CurrentTask(g.ctx, h.Agent.Name); err == nil {
			a.Task = &taskBrief{ID: t.ID, Title: t.Title, State: t.State.String()}
		} else if !errors.Is(err, bus.ErrNotFound) {
			return err
		}
		agents = append(agents, a)
	}
	if c.JSON {
		out := struct {
			Agents []agentJSON `json:"agents"`
			Tasks  []taskJSON  `json:"tasks"`
		}{Agents: agents, Tasks: []taskJSON{}}
		for _, t := range tasks {
			out.Tasks = append(out.Tasks, newTaskJSON(t))
		}
		enc := json.NewEncoder(textsafe.JSONWriter(g.stdout))
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
	if len(agents) == 0 {
		fmt.Fprintln(tw, "no agents registered")
	} else {
		fmt.Fprintln(tw, "AGENT\tPROCESS\tPID\tLIVENESS\tAGE\tSTATUS\tTASK")
		for _, a := range agents {
			pid, status, task := "-", "-", "-"
			if a.Pid > 0 {
				pid = fmt.Sprint(a.Pid)
			}
			if a.Heartbeat != nil && a.Alive { // a stopped agent works on nothing
				status = a.Heartbeat.Status
				if a.Heartbeat.Progress > 0 {
					status += fmt.Sprintf(" %.0f%%", a.Heartbeat.Progress*100)
				}
			}
			if a.Task != nil {
				task = a.Task.ID + " " + a.Task.State
			}
			proc := oneLine(a.State)
			if a.Reason != "" {
				proc += " (" + oneLine(a.Reason) + ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a.Name, proc, pid, a.Level,
				age(time.Duration(a.AgeS*float64(time.Second))), status, task)
		}
	}
	fmt.Fprintln(tw)
	if len(tasks) == 0 {
		fmt.Fprintln(tw, "no tasks")
		return tw.Flush()
	}
	byState := map[bus.TaskState][]bus.Task{}
	for _, t := range tasks {
		byState[t.State] = append(byState[t.State], t)
	}
	for _, s := range []bus.TaskState{bus.TaskAssigned, bus.TaskWorking, bus.TaskConflicted, bus.TaskInReview,
		bus.TaskApproved, bus.TaskCompleted, bus.TaskFailed, bus.TaskCancelled} {
		if len(byState[s]) == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s (%d)\n", s, len(byState[s]))
		for _, t := range byState[s] {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", t.ID, t.Assignee, oneLine(t.Title))
		}
	}
	return tw.Flush()
}

// age formats a duration the way a person glances at it: 7s, 3m05s, 2h04m.
func age(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

// ---- tasks ----

type taskCmd struct {
	Add            taskAddCmd            `cmd:"" help:"Create a task for an agent; prints its id."`
	List           taskListCmd           `cmd:"" help:"List tasks."`
	Show           taskShowCmd           `cmd:"" help:"Show a task and its history."`
	Start          taskStartCmd          `cmd:"" help:"Start a task (→ WORKING). ID defaults to your current task."`
	Done           taskDoneCmd           `cmd:"" help:"Finish a task and submit it for review (→ IN_REVIEW). ID defaults to your current task."`
	Fail           taskFailCmd           `cmd:"" help:"Give up a task (→ FAILED). ID defaults to your current task."`
	Approve        taskApproveCmd        `cmd:"" help:"Approve a task in review (→ APPROVED)."`
	RequestChanges taskRequestChangesCmd `cmd:"" name:"request-changes" help:"Send a task in review back to its agent (→ WORKING); --note says what to change."`
	Cancel         taskCancelCmd         `cmd:"" help:"Cancel a task (→ CANCELLED)."`
	Retry          taskRetryCmd          `cmd:"" help:"Assign a failed task again (→ ASSIGNED)."`
	Merge          taskMergeCmd          `cmd:"" help:"Merge an approved task's branch into its base branch (→ COMPLETED)."`
}

type taskAddCmd struct {
	To    string   `required:"" help:"Agent that gets the task (must be registered)." placeholder:"AGENT"`
	Title []string `arg:"" help:"Task title (words are joined with spaces)."`
	Desc  string   `aliases:"description" help:"Longer description." placeholder:"TEXT"`
}

func (c *taskAddCmd) Run(g *Globals) error {
	b, err := g.open(true)
	if err != nil {
		return err
	}
	defer b.Close()
	me, err := g.caller(b)
	if err != nil {
		return fmt.Errorf("task add: %w", err)
	}
	t, err := b.CreateTask(g.ctx, bus.NewTask{Title: strings.Join(c.Title, " "), Description: c.Desc,
		Assignee: c.To, CreatedBy: me})
	if err != nil {
		return err // "create task: …" says what failed
	}
	fmt.Fprintln(g.stdout, t.ID)
	return nil
}

type taskListCmd struct {
	Agent string   `help:"Only tasks assigned to AGENT." placeholder:"AGENT"`
	State []string `help:"Only tasks in these states (repeatable or comma-separated)." placeholder:"STATE"`
	JSON  bool     `name:"json" help:"Print one JSON object per line."`
}

func (c *taskListCmd) Run(g *Globals) error {
	f := bus.TaskFilter{Assignee: c.Agent}
	for _, s := range c.State {
		st, err := bus.ParseTaskState(s)
		if err != nil {
			return usageError("task list: --state: %v", err)
		}
		f.States = append(f.States, st)
	}
	b, err := g.open(false)
	if err != nil {
		return err
	}
	defer b.Close()
	tasks, err := b.Tasks(g.ctx, f)
	if err != nil {
		return err
	}
	if c.JSON {
		enc := json.NewEncoder(textsafe.JSONWriter(g.stdout))
		enc.SetEscapeHTML(false)
		for _, t := range tasks {
			if err := enc.Encode(newTaskJSON(t)); err != nil {
				return err
			}
		}
		return nil
	}
	if len(tasks) == 0 {
		fmt.Fprintln(g.stdout, "no tasks")
		return nil
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tASSIGNEE\tUPDATED\tTITLE")
	for _, t := range tasks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.ID, t.State, t.Assignee, t.Updated.Local().Format(time.TimeOnly), oneLine(t.Title))
	}
	return tw.Flush()
}

type taskShowCmd struct {
	ID   string `arg:"" help:"Task id (or a unique prefix)."`
	JSON bool   `name:"json" help:"Print one JSON object with the task and its events."`
	Diff bool   `help:"Also print the review: diff stat and diff of the task's branch against its base."`
}

func (c *taskShowCmd) Run(g *Globals) error {
	b, err := g.open(false)
	if err != nil {
		return err
	}
	defer b.Close()
	t, err := b.Task(g.ctx, c.ID)
	if err != nil {
		return err
	}
	events, err := b.TaskEvents(g.ctx, t.ID)
	if err != nil {
		return err
	}
	var stat, diff string
	if c.Diff {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		if stat, diff, err = supervisor.NewTasks(g.ctx, b, wd, "").Diff(g.ctx, t.ID); err != nil {
			return err
		}
	}
	if c.JSON {
		out := newTaskJSON(t)
		out.DiffStat, out.Diff = stat, diff
		for _, e := range events {
			out.Events = append(out.Events, eventJSON{From: e.From.String(), To: e.To.String(), Actor: e.Actor, Note: e.Note, TS: e.Time})
		}
		enc := json.NewEncoder(textsafe.JSONWriter(g.stdout))
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "task\t%s\n", t.ID)
	fmt.Fprintf(tw, "title\t%s\n", oneLine(t.Title))
	fmt.Fprintf(tw, "state\t%s\n", t.State)
	fmt.Fprintf(tw, "assignee\t%s\n", t.Assignee)
	fmt.Fprintf(tw, "created\t%s by %s\n", t.Created.Local().Format(time.DateTime), t.CreatedBy)
	if t.Branch != "" {
		where := "worktree removed"
		if t.Worktree != "" {
			where = "worktree " + t.Worktree
		}
		fmt.Fprintf(tw, "branch\t%s (base %s, %s)\n", t.Branch, t.Base, where)
	}
	if t.Description != "" {
		fmt.Fprintf(tw, "description\t%s\n", oneLine(t.Description))
	}
	fmt.Fprintln(tw, "history")
	for _, e := range events {
		from := e.From.String()
		if from == "" {
			from = "created"
		}
		note := ""
		if e.Note != "" {
			note = "  " + oneLine(e.Note)
		}
		fmt.Fprintf(tw, "  %s\t%s → %s\t%s%s\n", e.Time.Local().Format(time.TimeOnly), from, e.To, e.Actor, note)
	}
	if err := tw.Flush(); err != nil || !c.Diff {
		return err
	}
	fmt.Fprintf(g.stdout, "\nreview: %s...%s\n%s\n\n%s", t.Base, t.Branch, stat, diff)
	return nil
}

// taskOwnArgs are the arguments of start, done and fail: an agent reports
// on its own task, so the id is optional.
type taskOwnArgs struct {
	ID string `arg:"" optional:"" help:"Task id or unique prefix (default: your current task)."`
}

type taskStartCmd struct {
	taskOwnArgs
	Note string `help:"Note recorded with the transition." placeholder:"TEXT"`
}

func (c *taskStartCmd) Run(g *Globals) error {
	return taskAction(g, c.ID, true, func(ctx context.Context, ts *supervisor.Tasks, id, me string) (bus.Task, error) {
		return ts.Start(ctx, id, me, c.Note)
	})
}

type taskDoneCmd struct {
	taskOwnArgs
	Note string `help:"Note recorded with the transition, e.g. a summary for the reviewer." placeholder:"TEXT"`
}

func (c *taskDoneCmd) Run(g *Globals) error {
	return taskAction(g, c.ID, true, func(ctx context.Context, ts *supervisor.Tasks, id, me string) (bus.Task, error) {
		return ts.Done(ctx, id, me, c.Note)
	})
}

type taskFailCmd struct {
	taskOwnArgs
	Reason string `aliases:"note" help:"Why the task failed (--note works too)." placeholder:"TEXT"`
}

func (c *taskFailCmd) Run(g *Globals) error {
	return taskAction(g, c.ID, true, func(ctx context.Context, ts *supervisor.Tasks, id, me string) (bus.Task, error) {
		return ts.Fail(ctx, id, me, c.Reason)
	})
}

// taskReviewArgs are the arguments of a reviewer's move on a named task.
type taskReviewArgs struct {
	ID   string `arg:"" help:"Task id or unique prefix."`
	Note string `help:"Note recorded with the transition." placeholder:"TEXT"`
}

type taskApproveCmd struct{ taskReviewArgs }

func (c *taskApproveCmd) Run(g *Globals) error {
	return taskAction(g, c.ID, false, func(ctx context.Context, ts *supervisor.Tasks, id, me string) (bus.Task, error) {
		return ts.Approve(ctx, id, me, c.Note)
	})
}

// taskRequestChangesCmd only moves a task that is in review, so it cannot
// be mistaken for sending a CONFLICTED task back to work.
type taskRequestChangesCmd struct{ taskReviewArgs }

func (c *taskRequestChangesCmd) Run(g *Globals) error {
	return taskAction(g, c.ID, false, func(ctx context.Context, ts *supervisor.Tasks, id, me string) (bus.Task, error) {
		return ts.RequestChanges(ctx, id, me, c.Note)
	})
}

type taskCancelCmd struct{ taskReviewArgs }

func (c *taskCancelCmd) Run(g *Globals) error {
	return taskAction(g, c.ID, false, func(ctx context.Context, ts *supervisor.Tasks, id, me string) (bus.Task, error) {
		return ts.Cancel(ctx, id, me, c.Note)
	})
}

type taskRetryCmd struct{ taskReviewArgs }

func (c *taskRetryCmd) Run(g *Globals) error {
	return taskAction(g, c.ID, false, func(ctx context.Context, ts *supervisor.Tasks, id, me string) (bus.Task, error) {
		return ts.Retry(ctx, id, me, c.Note)
	})
}

type taskMergeCmd struct {
	ID string `arg:"" help:"Task id or unique prefix."`
}

func (c *taskMergeCmd) Run(g *Globals) error {
	return taskAction(g, c.ID, false, func(ctx context.Context, ts *supervisor.Tasks, id, me string) (bus.Task, error) {
		return ts.Merge(ctx, id, me)
	})
}

// taskAction runs one task move through the task service (which does the
// git work that goes with it) and prints what happened. With own set, an
// empty id means the caller's current task. A move that ends in a conflict
// prints the new state and fails.
func taskAction(g *Globals, id string, own bool, act func(context.Context, *supervisor.Tasks, string, string) (bus.Task, error)) error {
	b, err := g.open(true)
	if err != nil {
		return err
	}
	defer b.Close()
	me, err := g.caller(b)
	if err != nil {
		return err
	}
	if !own && me != bus.Human {
		// Review is the person's: an agent does not approve, merge or
		// cancel work, its own or another's.
		return fmt.Errorf("only the human reviewer moves tasks this way; this runs as agent %s", me)
	}
	var before bus.Task
	if id == "" && own {
		before, err = b.CurrentTask(g.ctx, me)
		if err != nil {
			return fmt.Errorf("no task id given and %w", err)
		}
	} else if before, err = b.Task(g.ctx, id); err != nil {
		return err
	}
	if me != bus.Human && before.Assignee != me {
		return fmt.Errorf("task %s is assigned to %s, not %s", before.ID, before.Assignee, me)
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	after, err := act(g.ctx, supervisor.NewTasks(g.ctx, b, wd, ""), before.ID, me)
	switch {
	case after.ID == "" || after.State == before.State && err != nil:
		return err
	case before.State == after.State:
		fmt.Fprintf(g.stdout, "task %s is already %s\n", after.ID, after.State)
	default:
		fmt.Fprintf(g.stdout, "task %s: %s → %s\n", after.ID, before.State, after.State)
	}
	return err
}

// ---- heartbeat and export ----

type heartbeatCmd struct {
	Status   string  `help:"What you are doing: idle, working or blocked." enum:"idle,working,blocked" default:"working"`
	Progress float64 `help:"Progress on the current task, 0 to 1." default:"0" placeholder:"F"`
	Task     string  `help:"Id of the task you work on." placeholder:"ID"`
}

func (c *heartbeatCmd) Run(g *Globals) error {
	if c.Progress < 0 || c.Progress > 1 {
		return usageError("heartbeat: --progress %v is not between 0 and 1", c.Progress)
	}
	status, perr := bus.ParseStatus(c.Status)
	if perr != nil {
		return usageError("heartbeat: %v", perr)
	}
	b, err := g.open(true)
	if err != nil {
		return err
	}
	defer b.Close()
	me, err := g.caller(b)
	if err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	if me == bus.Human {
		return errors.New("heartbeat: only agents send heartbeats, and this runs outside any agent")
	}
	if c.Task != "" {
		if _, err := b.Task(g.ctx, c.Task); err != nil {
			return fmt.Errorf("heartbeat: %w", err)
		}
	}
	return b.Beat(g.ctx, bus.Heartbeat{Agent: me, Status: status, Progress: c.Progress, Task: c.Task})
}

type exportCmd struct {
	Out string `help:"JSONL file to append to (default: export.jsonl in the bus directory)." placeholder:"FILE"`
}

func (c *exportCmd) Run(g *Globals) error {
	b, err := g.open(false)
	if err != nil {
		return err
	}
	defer b.Close()
	out := c.Out
	if out == "" {
		out = filepath.Join(b.Dir(), "export.jsonl")
	}
	n, err := b.Export(g.ctx, out)
	if err != nil {
		return err
	}
	noun := "messages"
	if n == 1 {
		noun = "message"
	}
	fmt.Fprintf(g.stdout, "exported %d %s to %s\n", n, noun, out)
	return nil
}

// ---- entry point ----

// ---- running a swarm ----

type upCmd struct {
	Config   string `short:"c" help:"Config file." default:"swarm.toml" placeholder:"FILE"`
	Headless bool   `help:"Run without the UI: print one line per event until SIGINT or SIGTERM, or until every agent has ended."`
	JSON     bool   `name:"json" help:"With --headless, print one JSON object per event."`
}

func (c *upCmd) Run(g *Globals) error {
	cfg, err := supervisor.LoadConfig(c.Config)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no %s here: run `swarm init` to write a starter config, or pass --config FILE", c.Config)
	}
	if err != nil {
		return err
	}
	if c.Headless {
		return g.runSwarm(supervisor.Options{Config: cfg}, func(sup *supervisor.Supervisor, sub *supervisor.Subscription, _ *slog.Logger) error {
			return printEvents(g, sup, sub, c.JSON)
		})
	}
	if c.JSON {
		return usageError("--json goes with --headless")
	}
	if err := g.needTerminal("swarm up --headless"); err != nil {
		return err
	}
	dir, err := filepath.Abs(filepath.Dir(c.Config))
	if err != nil {
		return err
	}
	return g.runSwarm(supervisor.Options{Config: cfg}, func(sup *supervisor.Supervisor, sub *supervisor.Subscription, log *slog.Logger) error {
		return tui.Run(g.ctx, sup, tui.Options{Title: filepath.Base(dir), Dir: dir, Log: log, Subscription: sub, Game: cfg.Game.Kind != ""})
	})
}

// needTerminal refuses to open the terminal UI when stdin or stdout is
// not a terminal (a pipe, a file, CI), naming the headless alternative.
func (g *Globals) needTerminal(alternative string) error {
	for _, f := range []any{g.stdin, g.stdout} {
		file, ok := f.(*os.File)
		if !ok {
			return usageError("the terminal UI needs a terminal: run `%s`", alternative)
		}
		st, err := file.Stat()
		if err != nil || st.Mode()&os.ModeCharDevice == 0 {
			return usageError("the terminal UI needs a terminal: run `%s`", alternative)
		}
	}
	return nil
}

// runSwarm opens the bus, starts a supervisor with opts and runs body,
// which returns when the swarm should stop (or the process is
// interrupted). Every agent is stopped before it returns; the supervisor
// (and body, with the logger it is given) logs to swarm.log in the bus
// directory.
func (g *Globals) runSwarm(opts supervisor.Options, body func(*supervisor.Supervisor, *supervisor.Subscription, *slog.Logger) error) error {
	b, err := g.open(true)
	if err != nil {
		return err
	}
	defer b.Close()
	logFile, err := os.OpenFile(filepath.Join(b.Dir(), "swarm.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer logFile.Close()
	opts.Bus = b
	level := slog.LevelInfo
	if os.Getenv("SWARM_DEBUG") != "" {
		level = slog.LevelDebug // what delivery saw on agents' screens
	}
	opts.Log = slog.New(slog.NewTextHandler(logFile, &slog.HandlerOptions{Level: level}))
	sup, err := supervisor.New(opts)
	if err != nil {
		return err
	}
	sub := sup.Subscribe()
	defer sub.Close()
	if err := sup.Start(g.ctx); err != nil {
		return err
	}
	opts.Log.Info("swarm started", "agents", len(opts.Config.Agents), "pid", os.Getpid())
	bodyErr := body(sup, sub, opts.Log)
	// A program that ignores SIGTERM (an interactive shell does) holds
	// the stop up for the grace period: say what swarm is waiting for.
	running := 0
	for _, a := range sup.Agents() {
		if a.State == supervisor.StateRunning {
			running++
		}
	}
	switch {
	case running == 1:
		fmt.Fprintf(g.stderr, "swarm: stopping 1 running agent (killed if still running after %s)\n", sup.StopGrace())
	case running > 1:
		fmt.Fprintf(g.stderr, "swarm: stopping %d running agents (any still running after %s is killed)\n", running, sup.StopGrace())
	}
	shutdownErr := sup.Shutdown(context.WithoutCancel(g.ctx))
	opts.Log.Info("swarm stopped")
	return errors.Join(bodyErr, shutdownErr)
}

// printEvents prints the swarm's events until the process is interrupted
// or every agent has ended (nothing could run again without a person, so
// a script waiting on swarm is not left waiting): then it fails if one gave
// up.
func printEvents(g *Globals, sup *supervisor.Supervisor, sub *supervisor.Subscription, asJSON bool) error {
	// An agent's final state is set around its last events, so the check
	// runs on a ticker, and swarm ends once the events have gone quiet
	// for a moment after it: the last of them are printed too.
	const settle = 200 * time.Millisecond
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var ending <-chan time.Time
	for {
		select {
		case <-g.ctx.Done():
			return nil
		case ev := <-sub.Events():
			if err := printEvent(g.stdout, ev, asJSON); err != nil {
				return err
			}
			if ending != nil {
				ending = time.After(settle)
			}
		case <-tick.C:
			if ending == nil && sup.Ended() {
				ending = time.After(settle)
			}
		case <-ending:
			if !sup.Ended() {
				ending = nil // an agent is back
				continue
			}
			return endedErr(g.stderr, sup.Agents())
		}
	}
}

// endedErr says why a swarm whose agents have all ended stops: an error
// naming those that gave up, or none when every one simply finished.
func endedErr(stderr io.Writer, agents []supervisor.AgentInfo) error {
	var gaveUp []string
	for _, a := range agents {
		if a.State == supervisor.StateGaveUp {
			gaveUp = append(gaveUp, fmt.Sprintf("%s (%s)", a.Name, a.Reason))
		}
	}
	if len(gaveUp) > 0 {
		return fmt.Errorf("every agent has ended; gave up: %s", strings.Join(gaveUp, ", "))
	}
	fmt.Fprintln(stderr, "swarm: every agent has ended")
	return nil
}

func printEvent(w io.Writer, ev supervisor.Event, asJSON bool) error {
	if ev.Kind == supervisor.EventScreen {
		return nil
	}
	if asJSON {
		b, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", textsafe.JSON(b))
		return err
	}
	_, err := fmt.Fprintln(w, supervisor.FormatEvent(ev))
	return err
}

type initCmd struct {
	Config string `short:"c" help:"Where to write the config." default:"swarm.toml" placeholder:"FILE"`
}

func (c *initCmd) Run(g *Globals) error {
	if err := supervisor.WriteStarterConfig(c.Config); err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "wrote %s: edit its agents, then run `swarm` to start them\n", c.Config)
	return nil
}

// ---- the demo ----

type demoCmd struct {
	Tictactoe demoTicTacToeCmd `cmd:"" name:"tictactoe" help:"Two agent processes play a refereed game of tic-tac-toe."`
}

type demoTicTacToeCmd struct {
	Headless    bool           `help:"Print the moves and the result instead of opening the UI."`
	Pace        *time.Duration `help:"Space the moves at least this far apart (default 500ms with the UI, 0 headless)." placeholder:"DURATION"`
	Seed        *int64         `help:"Seed for the players' choices; the same seed replays the same game (default: random)."`
	X           string         `name:"x" help:"Command that plays X instead of the built-in player (run with sh -c and briefed with the rules)." placeholder:"CMD"`
	O           string         `name:"o" help:"Command that plays O instead of the built-in player." placeholder:"CMD"`
	Strategy    string         `enum:"perfect,casual,random" default:"casual" help:"How the built-in players choose: perfect (never loses, so two of them always draw), casual (perfect but for a random move now and then) or random."`
	MoveTimeout time.Duration  `default:"2m" help:"Give up when no move comes for this long (0: wait for ever)." placeholder:"DURATION"`

	busGone bool // the game's bus is removed on exit
}

func (c *demoTicTacToeCmd) Run(g *Globals) error {
	if !c.Headless {
		if err := g.needTerminal("swarm demo tictactoe --headless"); err != nil {
			return err
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	seed := time.Now().UnixNano() % 1_000_000
	if c.Seed != nil {
		seed = *c.Seed
	}
	pace := time.Duration(0)
	if !c.Headless {
		pace = 500 * time.Millisecond // slow enough for a person to follow
	}
	if c.Pace != nil {
		if pace = *c.Pace; pace < 0 {
			return usageError("--pace %s is negative", pace)
		}
	}
	if c.MoveTimeout < 0 {
		return usageError("--move-timeout %s is negative", c.MoveTimeout)
	}
	// A demo's bus is not the project's (not even inside an agent, where
	// $SWARM_DIR names the project's): --dir, else the demo directory,
	// named at the end.
	g.ignoreEnvDir = true
	if g.Dir == "" {
		dir, cleanup, err := supervisor.DemoDir()
		if err != nil {
			return err
		}
		if cleanup != nil {
			defer cleanup()
			c.busGone = true
		}
		g.Dir = dir
	}
	cwd, _ := os.Getwd()
	cfg := supervisor.TicTacToeConfig(supervisor.DemoOptions{Seed: seed, XCmd: c.X, OCmd: c.O, Executable: exe, Dir: cwd, Strategy: c.Strategy})
	opts := supervisor.Options{Config: cfg, Pace: pace}
	fmt.Fprintf(g.stdout, "tic-tac-toe, seed %d\n  X: %s\n  O: %s\n", seed, cfg.Agents[0].Cmd, cfg.Agents[1].Cmd)
	if !c.Headless {
		return c.runUI(g, opts, seed)
	}
	var result games.Result
	err = g.runSwarm(opts, func(sup *supervisor.Supervisor, sub *supervisor.Subscription, _ *slog.Logger) error {
		var err error
		result, err = supervisor.WaitGame(g.ctx, sub, c.MoveTimeout, func(ev supervisor.Event) {
			switch ev.Kind {
			case supervisor.EventGame, supervisor.EventAgentStarted, supervisor.EventAgentExited, supervisor.EventNotice:
				_ = printEvent(g.stdout, ev, false)
			}
		})
		return err
	})
	if err == nil {
		fmt.Fprintf(g.stdout, "result: %s\n", result)
	}
	c.showBus(g)
	if err == nil && result.Forfeit {
		err = fmt.Errorf("no complete game: %s", result)
	}
	return err
}

// runUI plays the demo in the terminal UI until the person quits, then
// prints the result.
func (c *demoTicTacToeCmd) runUI(g *Globals, opts supervisor.Options, seed int64) error {
	var game supervisor.GameState
	err := g.runSwarm(opts, func(sup *supervisor.Supervisor, sub *supervisor.Subscription, log *slog.Logger) error {
		cwd, _ := os.Getwd()
		err := tui.Run(g.ctx, sup, tui.Options{
			Title: fmt.Sprintf("tic-tac-toe · seed %d", seed), Game: true, Pace: opts.Pace,
			Dir: cwd, Log: log, Subscription: sub,
		})
		game, _ = sup.Game()
		return err
	})
	if game.Result.Over {
		fmt.Fprintf(g.stdout, "result: %s\n", game.Result)
	} else {
		fmt.Fprintln(g.stdout, "the game was left unfinished")
	}
	c.showBus(g)
	return err
}

// showBus says where the game can be read again, unless its bus is a
// temporary one removed on exit (another demo held the usual directory).
func (c *demoTicTacToeCmd) showBus(g *Globals) {
	if c.busGone {
		fmt.Fprintln(g.stdout, "the demo directory was in use (another demo?): this game's bus was a temporary one, removed on exit")
		return
	}
	fmt.Fprintf(g.stdout, "the game is on the bus: swarm log --dir %s\n", g.busDir())
}

type agentCmd struct {
	Tictactoe agentTicTacToeCmd `cmd:"" name:"tictactoe" help:"A tic-tac-toe player that speaks through its terminal: it prints @relay:<opponent> move <cell> and reads the moves swarm types in."`
}

type agentTicTacToeCmd struct {
	Mark     string `required:"" enum:"X,O" help:"The player's mark: X (moves first) or O."`
	Opponent string `required:"" help:"The opponent's agent name." placeholder:"NAME"`
	Strategy string `enum:"perfect,casual,random" default:"perfect" help:"How it chooses: perfect (never loses), casual (perfect but for a random move now and then) or random."`
	Seed     int64  `default:"1" help:"Seed for its choices; the same seed plays the same game."`
}

func (c *agentTicTacToeCmd) Run(g *Globals) error {
	mark, err := games.ParseMark(c.Mark)
	if err != nil {
		return usageError("%v", err)
	}
	strategy, err := games.ParseStrategy(c.Strategy)
	if err != nil {
		return usageError("%v", err)
	}
	return games.RunPlayer(g.ctx, g.stdin, g.stdout, games.PlayerOptions{Mark: mark, Opponent: c.Opponent, Strategy: strategy, Seed: c.Seed})
}

// ---- debugging an agent's output ----

// parseCmd's "line" numbers are screen lines: see the README.
type parseCmd struct {
	File string `arg:"" optional:"" help:"Raw terminal output (e.g. a 'script -q' recording) or an asciicast v2 recording (.cast: timing and resizes are played too); stdin when absent or -."`
	Cols int    `help:"Terminal width the output was written for (default 80, or the recording's)."`
	Rows int    `help:"Terminal height the output was written for (default 24, or the recording's)."`
}

func (c *parseCmd) Run(g *Globals) error {
	in := g.stdin
	if c.File != "" && c.File != "-" {
		f, err := os.Open(c.File)
		if err != nil {
			return fmt.Errorf("parse: %w", err)
		}
		defer f.Close()
		in = f
	}
	data, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("parse: read input: %w", err)
	}
	if c.Cols < 0 || c.Rows < 0 || (c.Cols == 0) != (c.Rows == 0) {
		return usageError("--cols and --rows go together and must be at least 1")
	}
	w := bufio.NewWriter(g.stdout)
	var werr error
	emit := func(ev parser.Event) {
		b, err := json.Marshal(ev)
		if err == nil {
			_, err = fmt.Fprintf(w, "%s\n", textsafe.JSON(b))
		}
		werr = errors.Join(werr, err)
	}
	opts := supervisor.ExtractOptions{Cols: c.Cols, Rows: c.Rows}
	if asciicast.Is(data) {
		err = supervisor.ExtractRecording(bytes.NewReader(data), opts, emit)
		if err != nil {
			err = fmt.Errorf("parse: %w", err)
		}
	} else {
		if opts.Cols == 0 {
			opts.Cols, opts.Rows = 80, 24
		}
		// Output captured from a terminal has CR LF line ends; a plain
		// text file has bare LFs, which a terminal would not return to
		// column 0.
		opts.NewlineMode = !bytes.Contains(data, []byte("\r"))
		err = supervisor.Extract(bytes.NewReader(data), opts, emit)
	}
	return errors.Join(err, werr, w.Flush())
}

func main() {
	// SIGINT, SIGTERM and SIGHUP (the terminal went away) end the command
	// cleanly: every agent is stopped. A second signal during that ends
	// swarm at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		<-ctx.Done()
		stop()
	}()
	stopProfile := profile()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stopProfile()
	stop()
	os.Exit(code)
}

// usageLine names the command a parse error is about and where its usage
// is: "demo: unexpected argument chess (swarm demo --help)".
func usageLine(err error, args []string) string {
	var pe *kong.ParseError
	if !errors.As(err, &pe) || pe.Context == nil {
		return err.Error()
	}
	node := pe.Context.Selected()
	if node == nil {
		return fmt.Sprintf("%v (swarm --help)", err)
	}
	path := strings.TrimPrefix(node.FullPath(), "swarm ")
	if path == "up" && !slices.Contains(args, "up") {
		// up is the default command: a word it does not take was meant
		// as a command.
		if word, ok := strings.CutPrefix(err.Error(), "unexpected argument "); ok {
			return fmt.Sprintf("unknown command %q (swarm --help lists them)", word)
		}
	}
	return fmt.Sprintf("%s: %v (swarm %s --help)", path, err, path)
}

// profile writes a CPU profile of the whole run to $SWARM_CPUPROFILE, for
// looking into swarm's own performance (`go tool pprof`).
func profile() (stop func()) {
	path := os.Getenv("SWARM_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "swarm: cpu profile:", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// run parses args and runs the chosen command. It returns the exit status:
// 0 success, 1 failure, 2 usage error. Errors are one line on stderr.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	cli := CLI{Globals: Globals{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}}
	exited := false
	parser, err := kong.New(&cli,
		kong.Name("swarm"),
		kong.Description("Run supervised AI coding agents side by side and relay messages between them."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(c int) { exited, code = true, c }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	)
	if err != nil {
		fmt.Fprintln(stderr, "swarm:", err)
		return 1
	}
	kctx, err := parser.Parse(args)
	if exited { // --help
		return code
	}
	if err != nil {
		fmt.Fprintln(stderr, "swarm:", errorLine(usageLine(err, args)))
		return 2
	}
	if err := kctx.Run(&cli.Globals); err != nil {
		if bus.IsCorrupt(err) && !errors.Is(err, bus.ErrCorrupt) {
			// Damage found past the file's header, in the middle of a
			// command: say which file and what can be done.
			err = fmt.Errorf("%s is damaged: %w; move it away to start a new bus, or put back a copy",
				filepath.Join(cli.Globals.busDir(), "bus.db"), err)
		}
		fmt.Fprintln(stderr, "swarm:", errorLine(err.Error()))
		var ee *exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		return 1
	}
	return 0
}
