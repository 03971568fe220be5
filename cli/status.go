package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"swarm/bus"
	"swarm/server"
	"swarm/supervisor"
	"swarm/swarmapi"
	"swarm/textsafe"

	"github.com/charmbracelet/x/ansi"
)

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
	// Screen is the last line the agent's screen shows, as the running
	// swarm has it ("" when no swarm answers).
	Screen string `json:"screen,omitempty"`
	// LogProblem says why the running swarm cannot write the agent's
	// output log now (swarmapi.AgentInfo.LogProblem).
	LogProblem string `json:"log_problem,omitempty"`
	// ScreenProblem says its screen failed and what it prints is not read
	// for relaying (swarmapi.AgentInfo.ScreenProblem).
	ScreenProblem string `json:"screen_problem,omitempty"`
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
	screens, logProblems, screenProblems := g.lastScreenLines()
	agents := make([]agentJSON, 0, len(health))
	var needAgents []swarmapi.AgentNeed
	for _, h := range health {
		if h.Agent.State == bus.AgentRemoved {
			continue // from an earlier config
		}
		if !swarmUp {
			h = supervisor.StaleRecord(h)
		}
		if h.Agent.State != bus.AgentStopped {
			// A hook's needs-human is news only while the agent runs.
			turn := bus.StatusIdle
			if h.Alive && h.Beat.Time.After(h.Agent.Started) {
				turn = h.Beat.Status
			}
			if n, ok := swarmapi.AgentNeedOf(h.Agent.Name, h.Level, h.Agent.Reason, turn, h.Beat.Note); ok {
				needAgents = append(needAgents, n)
			}
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
		a.Screen = screens[a.Name]
		a.LogProblem = logProblems[a.Name]
		a.ScreenProblem = screenProblems[a.Name]
		agents = append(agents, a)
	}
	var waiting []bus.Task
	for _, t := range tasks {
		if slices.Contains(swarmapi.AttentionStates, t.State) {
			waiting = append(waiting, t)
		}
	}
	questions, err := b.Pending(g.ctx, bus.Human, 0)
	if err != nil {
		return err
	}
	needs := swarmapi.NeedsYou(needAgents, questions, waiting)
	detached, err := supervisor.DetachedProcesses(g.ctx, b)
	if err != nil {
		return err
	}
	if c.JSON {
		out := struct {
			Agents   []agentJSON           `json:"agents"`
			Tasks    []taskJSON            `json:"tasks"`
			Needs    []string              `json:"needs_you"`
			Detached []supervisor.Detached `json:"detached"`
		}{Agents: agents, Tasks: []taskJSON{}, Needs: []string{}, Detached: detached}
		if out.Detached == nil {
			out.Detached = []supervisor.Detached{}
		}
		for _, n := range needs {
			out.Needs = append(out.Needs, n.Text)
		}
		for _, t := range tasks {
			out.Tasks = append(out.Tasks, newTaskJSON(t))
		}
		enc := g.jsonOut()
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
	if len(needs) > 0 {
		fmt.Fprintf(tw, "needs you (%d)\n", len(needs))
		for _, n := range needs {
			fmt.Fprintf(tw, "  %s\n", n.Text)
		}
		fmt.Fprintln(tw)
	}
	if len(agents) == 0 {
		fmt.Fprintln(tw, "no agents registered")
	} else {
		fmt.Fprint(tw, "AGENT\tPROCESS\tPID\tLIVENESS\tAGE\tSTATUS\tTASK")
		if len(screens) > 0 {
			fmt.Fprint(tw, "\tSCREEN")
		}
		fmt.Fprintln(tw)
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
			proc := textsafe.Line(a.State)
			if a.Reason != "" {
				proc += " (" + textsafe.Line(a.Reason) + ")"
			}
			if a.LogProblem != "" {
				proc += " (" + textsafe.Line(a.LogProblem) + ")"
			}
			if a.ScreenProblem != "" {
				proc += " (" + textsafe.Line(a.ScreenProblem) + ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s", a.Name, proc, pid, a.Level,
				age(time.Duration(a.AgeS*float64(time.Second))), status, task)
			if len(screens) > 0 {
				fmt.Fprintf(tw, "\t%s", ansi.Truncate(a.Screen, 48, "…"))
			}
			fmt.Fprintln(tw)
		}
	}
	if len(detached) > 0 {
		fmt.Fprintf(tw, "\nleft their agent's session (%d): ended with their agent, or when swarm stops\n", len(detached))
		for _, d := range detached {
			who := d.Agent
			if who == "" {
				who = "an agent (it dropped its token)"
			}
			fmt.Fprintf(tw, "  %s\tpid %d\t%s\n", who, d.Pid, textsafe.Line(d.Name))
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
	for _, s := range bus.TaskStates() {
		if len(byState[s]) == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s (%d)\n", s, len(byState[s]))
		for _, t := range byState[s] {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", t.ID, t.Assignee, textsafe.Line(t.Title))
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

// lastScreenLines returns, by agent, the last non-blank line each agent's
// screen shows, safe to print, and what keeps its output log from being
// written, and why its screen is not read for relaying, as the swarm
// running on the bus directory has them; none when no swarm answers.
func (g *Globals) lastScreenLines() (screens, logProblems, screenProblems map[string]string) {
	ctx, cancel := context.WithTimeout(g.ctx, viaSwarmTimeout)
	defer cancel()
	r, err := server.Attach(ctx, g.busDir(), program())
	if err != nil {
		return nil, nil, nil
	}
	defer r.Close()
	screens, logProblems, screenProblems = map[string]string{}, map[string]string{}, map[string]string{}
	for _, a := range r.Agents() {
		if a.LogProblem != "" {
			logProblems[a.Name] = a.LogProblem
		}
		if a.ScreenProblem != "" {
			screenProblems[a.Name] = a.ScreenProblem
		}
		p, err := r.Peek(ctx, a.Name)
		if err != nil {
			continue
		}
		for i := len(p.Lines) - 1; i >= 0; i-- {
			if l := strings.TrimSpace(p.Lines[i]); l != "" {
				screens[a.Name] = textsafe.Line(l)
				break
			}
		}
	}
	return screens, logProblems, screenProblems
}
