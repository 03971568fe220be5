package cli

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"swarm/bus"
	"swarm/checks"
	"swarm/supervisor"
	"swarm/tasks"
	"swarm/textsafe"

	"github.com/charmbracelet/x/term"
)

type taskCmd struct {
	Add            taskAddCmd            `cmd:"" help:"Create a task for an agent; prints its id."`
	List           taskListCmd           `cmd:"" help:"List tasks."`
	Show           taskShowCmd           `cmd:"" help:"Show a task and its history."`
	Start          taskStartCmd          `cmd:"" help:"Start a task (→ WORKING). ID defaults to your current task."`
	Done           taskDoneCmd           `cmd:"" help:"Finish a task and submit it for review (→ IN_REVIEW). ID defaults to your current task."`
	Fail           taskFailCmd           `cmd:"" help:"Give up a task (→ FAILED). ID defaults to your current task."`
	Approve        taskApproveCmd        `cmd:"" help:"Approve a task in review (→ APPROVED)."`
	RequestChanges taskRequestChangesCmd `cmd:"" name:"request-changes" help:"Send a task in review back to its agent (→ WORKING); --note says what to change."`
	Review         taskReviewCmd         `cmd:"" help:"As the reviewer agent ([checks] review_by): --approve a task, or --request-changes with --note (→ CHANGES_REQUESTED)."`
	Cancel         taskCancelCmd         `cmd:"" help:"Cancel a task (→ CANCELLED)."`
	Retry          taskRetryCmd          `cmd:"" help:"Assign a failed task again (→ ASSIGNED)."`
	Merge          taskMergeCmd          `cmd:"" help:"Merge an approved task's branch into its base branch (→ COMPLETED); with [checks], put it in the merge queue."`
	Queue          taskQueueCmd          `cmd:"" help:"Show the merge queue: what merges now and for how long, and what waits."`
	Prune          taskPruneCmd          `cmd:"" help:"Delete the branches finished tasks leave behind (merged ones only: a branch with work of its own is kept); asks first."`
}

type taskAddCmd struct {
	To    string   `required:"" help:"Agent that gets the task (must be registered)." placeholder:"AGENT"`
	Title []string `arg:"" help:"Task title (words are joined with spaces)."`
	Desc  string   `aliases:"description" help:"Longer description." placeholder:"TEXT"`
}

func (c *taskAddCmd) Run(g *Globals) error {
	a, done, err := g.actor()
	if err != nil {
		return err
	}
	defer done()
	t, err := a.CreateTask(g.ctx, c.To, strings.Join(c.Title, " "), c.Desc)
	if err != nil {
		return err
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
	r, done, err := g.record()
	if err != nil {
		return err
	}
	defer done()
	tasks, err := r.Tasks(g.ctx, f)
	if err != nil {
		return err
	}
	if c.JSON {
		enc := g.jsonOut()
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.ID, t.State, t.Assignee, t.Updated.Local().Format(time.TimeOnly), textsafe.Line(t.Title))
	}
	return tw.Flush()
}

type taskShowCmd struct {
	ID   string `arg:"" help:"Task id (or a unique prefix)."`
	JSON bool   `name:"json" help:"Print one JSON object with the task and its events."`
	Diff bool   `help:"Also print the review: diff stat and diff of the task's branch against its base."`
}

func (c *taskShowCmd) Run(g *Globals) error {
	r, done, err := g.record()
	if err != nil {
		return err
	}
	defer done()
	d, err := r.TaskDetail(g.ctx, c.ID)
	if err != nil {
		return err
	}
	t, events, cs, reviews := d.Task, d.Events, d.Checks, d.Reviews
	var stat, diff string
	if c.Diff {
		if stat, diff, err = r.Review(g.ctx, t.ID); err != nil {
			return err
		}
	}
	entry := d.Queue
	queued := entry != nil && entry.Phase != bus.PhaseDone
	now := time.Now()
	if c.JSON {
		out := taskShowJSON{taskJSON: newTaskJSON(t), Checks: []checkJSON{}}
		out.DiffStat, out.Diff = stat, diff
		for _, e := range events {
			out.Events = append(out.Events, eventJSON{From: e.From.String(), To: e.To.String(), Actor: e.Actor, Note: e.Note, TS: e.Time})
		}
		for _, ch := range cs {
			out.Checks = append(out.Checks, newCheckJSON(ch, now))
		}
		for _, r := range reviews {
			out.Reviews = append(out.Reviews, reviewJSON{Reviewer: r.Reviewer, Verdict: string(r.Verdict), Note: r.Note, Commit: r.Commit, TS: r.Time})
		}
		if queued {
			out.Queue = &queueJSON{Phase: string(entry.Phase), Seconds: seconds(now.Sub(entry.Since)), Why: entry.Why}
		}
		enc := g.jsonOut()
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "task\t%s\n", t.ID)
	fmt.Fprintf(tw, "title\t%s\n", textsafe.Line(t.Title))
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
		fmt.Fprintf(tw, "description\t%s\n", textsafe.Line(t.Description))
	}
	if queued {
		fmt.Fprintf(tw, "merge queue\t%s for %s", entry.Phase, duration(seconds(now.Sub(entry.Since))))
		if entry.Why != "" {
			fmt.Fprintf(tw, ": %s", textsafe.Line(entry.Why))
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintln(tw, "history")
	for _, e := range events {
		from := e.From.String()
		if from == "" {
			from = "created"
		}
		note := ""
		if e.Note != "" {
			note = "  " + textsafe.Line(e.Note)
		}
		fmt.Fprintf(tw, "  %s\t%s → %s\t%s%s\n", e.Time.Local().Format(time.TimeOnly), from, e.To, e.Actor, note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	printChecks(g.stdout, cs, now)
	for i, r := range reviews {
		if i == 0 {
			fmt.Fprintln(g.stdout, "reviews")
		}
		fmt.Fprintf(g.stdout, "  %s  %s %s at %s", r.Time.Local().Format(time.TimeOnly), r.Reviewer, strings.ReplaceAll(string(r.Verdict), "_", " "), shortCommit(r.Commit))
		if r.Note != "" {
			fmt.Fprintf(g.stdout, ": %s", textsafe.Line(r.Note))
		}
		fmt.Fprintln(g.stdout)
	}
	if !c.Diff {
		return nil
	}
	fmt.Fprintf(g.stdout, "\nreview: %s...%s\n%s\n\n%s", t.Base, t.Branch, stat, diff)
	return nil
}

// taskShowJSON is `task show --json`: the task with its history, checks,
// place in the merge queue and reviewers' verdicts.
type taskShowJSON struct {
	taskJSON
	Checks  []checkJSON  `json:"checks"`
	Queue   *queueJSON   `json:"queue,omitempty"`
	Reviews []reviewJSON `json:"reviews,omitempty"`
}

type queueJSON struct {
	Phase   string  `json:"phase"`
	Seconds float64 `json:"seconds"`
	Why     string  `json:"why,omitempty"`
}

type reviewJSON struct {
	Reviewer string    `json:"reviewer"`
	Verdict  string    `json:"verdict"`
	Note     string    `json:"note,omitempty"`
	Commit   string    `json:"commit,omitempty"`
	TS       time.Time `json:"ts"`
}

// printChecks prints a task's checks, a run at a time, with the last
// lines of each that failed.
func printChecks(w io.Writer, cs []bus.Check, now time.Time) {
	var run bus.CheckRun
	for _, c := range cs {
		if c.Run != run {
			run = c.Run
			what := "its branch"
			if run == bus.RunMerge {
				what = "its merge with the base (the merge queue)"
			}
			fmt.Fprintf(w, "checks on %s at %s\n", what, shortCommit(c.Commit))
		}
		how := c.State.String()
		if c.State == bus.CheckFailed {
			how = fmt.Sprintf("failed (exit %d)", c.Exit)
		}
		fmt.Fprintf(w, "  %-16s %7s  %s\n", how, duration(seconds(c.Duration(now))), textsafe.Line(c.Cmd))
		if c.State == bus.CheckFailed || c.State == bus.CheckTimedOut {
			fmt.Fprintf(w, "    log %s, its last lines:\n", c.Log)
			for _, l := range strings.Split(c.Tail, "\n") {
				fmt.Fprintf(w, "    │ %s\n", textsafe.Line(l))
			}
		}
	}
}

func shortCommit(c string) string { return c[:min(len(c), 10)] }

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
	return taskAction(g, c.ID, tasks.MoveStart, c.Note)
}

type taskDoneCmd struct {
	taskOwnArgs
	Note string `help:"Note recorded with the transition, e.g. a summary for the reviewer." placeholder:"TEXT"`
}

func (c *taskDoneCmd) Run(g *Globals) error {
	return taskAction(g, c.ID, tasks.MoveDone, c.Note)
}

type taskFailCmd struct {
	taskOwnArgs
	Reason string `aliases:"note" help:"Why the task failed (--note works too)." placeholder:"TEXT"`
}

func (c *taskFailCmd) Run(g *Globals) error {
	return taskAction(g, c.ID, tasks.MoveFail, c.Reason)
}

// taskReviewArgs are the arguments of a reviewer's move on a named task.
type taskReviewArgs struct {
	ID   string `arg:"" help:"Task id or unique prefix."`
	Note string `help:"Note recorded with the transition." placeholder:"TEXT"`
}

type taskApproveCmd struct{ taskReviewArgs }

func (c *taskApproveCmd) Run(g *Globals) error {
	return taskAction(g, c.ID, tasks.MoveApprove, c.Note)
}

// taskRequestChangesCmd only moves a task that is in review, so it cannot
// be mistaken for sending a CONFLICTED task back to work.
type taskRequestChangesCmd struct{ taskReviewArgs }

func (c *taskRequestChangesCmd) Run(g *Globals) error {
	return taskAction(g, c.ID, tasks.MoveRequestChanges, c.Note)
}

type taskCancelCmd struct{ taskReviewArgs }

func (c *taskCancelCmd) Run(g *Globals) error {
	return taskAction(g, c.ID, tasks.MoveCancel, c.Note)
}

type taskRetryCmd struct{ taskReviewArgs }

func (c *taskRetryCmd) Run(g *Globals) error {
	return taskAction(g, c.ID, tasks.MoveRetry, c.Note)
}

type taskMergeCmd struct {
	ID   string `arg:"" help:"Task id or unique prefix."`
	Wait bool   `help:"With [checks]: wait for the merge queue's outcome; exit 0 only if the task merged."`
}

// Run merges the task, or with [checks] queues it: the running swarm's
// merge queue takes it from there (--wait waits for the outcome); with no
// swarm running, this process runs the queue until the task is merged or
// out of it.
func (c *taskMergeCmd) Run(g *Globals) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	a, done, err := g.actor()
	if err != nil {
		return err
	}
	before, after, err := a.MoveTask(g.ctx, wd, c.ID, tasks.MoveMerge, "")
	done()
	if after.ID == "" || after.State != bus.TaskApproved || err != nil {
		switch {
		case after.ID == "" || after.State == before.State && err != nil:
			return err
		case before.State == bus.TaskCompleted && after.State == bus.TaskCompleted:
			// A repeated merge (a retry, a script run twice) is done already.
			fmt.Fprintf(g.stdout, "task %s is already merged into %s (COMPLETED)\n", after.ID, after.Base)
			return nil
		}
		fmt.Fprintf(g.stdout, "task %s: %s → %s\n", after.ID, before.State, after.State)
		return err
	}
	b, err := g.open(false)
	if err != nil {
		return err
	}
	defer b.Close()
	q, err := b.MergeQueue(g.ctx)
	if err != nil {
		return err
	}
	pos := slices.IndexFunc(q, func(e bus.QueueEntry) bool { return e.Task == after.ID })
	if pos < 0 {
		return c.outcome(g, b, after.ID)
	}
	fmt.Fprintf(g.stdout, "task %s: queued to merge into %s (%d of %d in the merge queue)\n", after.ID, after.Base, pos+1, len(q))
	if _, running := supervisor.SwarmRunning(g.busDir()); running {
		if !c.Wait {
			return nil
		}
		if err := waitMerged(g.ctx, b, g.busDir(), after.ID); err != nil {
			return err
		}
		return c.outcome(g, b, after.ID)
	}
	fmt.Fprintf(g.stdout, "no swarm runs on %s: the merge queue runs in this process until task %s is merged or out of it\n", g.busDir(), after.ID)
	policy, err := b.CheckPolicy(g.ctx)
	if err != nil || policy == nil {
		return cmp.Or(err, errors.New("the checks of the swarm are gone from the bus"))
	}
	svc := checks.New(checks.Options{Bus: b, Tasks: tasks.New(g.ctx, b, wd, ""), Policy: policy})
	if err := checks.NewQueue(svc).RunUntil(g.ctx, after.ID); err != nil {
		return err
	}
	return c.outcome(g, b, after.ID)
}

// waitMerged waits until task's entry in the merge queue is done, or
// until the swarm running on busDir, whose queue merges it, stops.
func waitMerged(ctx context.Context, b *bus.Bus, busDir, task string) error {
	wake, unsub := b.Subscribe()
	defer unsub()
	for {
		e, err := b.QueueEntryOf(ctx, task)
		if err != nil || e.Phase == bus.PhaseDone {
			return err
		}
		if _, running := supervisor.SwarmRunning(busDir); !running {
			return fmt.Errorf("the swarm on %s stopped before task %s was merged: it stays in the merge queue for the next swarm", busDir, task)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
		case <-time.After(time.Second):
		}
	}
}

// outcome prints how task's merge ended: an error unless it merged.
func (c *taskMergeCmd) outcome(g *Globals, b *bus.Bus, id string) error {
	e, err := b.QueueEntryOf(g.ctx, id)
	if err != nil {
		return err
	}
	t, err := b.Task(g.ctx, id)
	if err != nil {
		return err
	}
	if e.Merged {
		fmt.Fprintf(g.stdout, "task %s is %s: %s\n", t.ID, t.State, textsafe.Line(e.Why))
		return nil
	}
	return fmt.Errorf("task %s was not merged, it is %s: %s", t.ID, t.State, textsafe.Line(e.Why))
}

type taskQueueCmd struct {
	JSON bool `name:"json" help:"Print one JSON object with the queue."`
}

type queueEntryJSON struct {
	Position int         `json:"position"`
	Task     string      `json:"task"`
	Title    string      `json:"title"`
	Assignee string      `json:"assignee"`
	Phase    string      `json:"phase"`
	Seconds  float64     `json:"seconds"` // in this phase
	Why      string      `json:"why,omitempty"`
	Checks   []checkJSON `json:"checks,omitempty"`
}

// Run prints the merge queue: what merges now (its checks, running for
// how long) and what waits, in order.
func (c *taskQueueCmd) Run(g *Globals) error {
	b, err := g.open(false)
	if err != nil {
		return err
	}
	defer b.Close()
	q, err := b.MergeQueue(g.ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	var out []queueEntryJSON
	for i, e := range q {
		t, err := b.Task(g.ctx, e.Task)
		if err != nil {
			return err
		}
		j := queueEntryJSON{Position: i + 1, Task: t.ID, Title: t.Title, Assignee: t.Assignee, Phase: string(e.Phase),
			Seconds: seconds(now.Sub(e.Since)), Why: e.Why}
		if e.Phase == bus.PhaseChecking {
			cs, err := b.Checks(g.ctx, t.ID)
			if err != nil {
				return err
			}
			for _, ch := range cs {
				if ch.Run == bus.RunMerge && ch.Commit == e.New {
					j.Checks = append(j.Checks, newCheckJSON(ch, now))
				}
			}
		}
		out = append(out, j)
	}
	if c.JSON {
		return g.jsonOut().Encode(struct {
			Queue []queueEntryJSON `json:"queue"`
		}{append([]queueEntryJSON{}, out...)})
	}
	if len(out) == 0 {
		fmt.Fprintln(g.stdout, "the merge queue is empty")
		return nil
	}
	for _, j := range out {
		fmt.Fprintf(g.stdout, "%d. %s %s (%s) — %s %s\n", j.Position, j.Task, textsafe.Words(j.Title), j.Assignee, j.Phase, duration(j.Seconds))
		if j.Why != "" {
			fmt.Fprintf(g.stdout, "     %s\n", textsafe.Line(j.Why))
		}
		for _, ch := range j.Checks {
			fmt.Fprintf(g.stdout, "     %-9s %7s  %s\n", ch.State, duration(ch.Seconds), textsafe.Line(ch.Cmd))
		}
	}
	return nil
}

// checkJSON is one check as `task show --json` and `task queue --json`
// print it.
type checkJSON struct {
	Cmd     string  `json:"cmd"`
	State   string  `json:"state"`
	Seconds float64 `json:"seconds"`
	Log     string  `json:"log"`
	Run     string  `json:"run"`    // branch, or merge (the merge queue's)
	Commit  string  `json:"commit"` // what it ran on
	Exit    int     `json:"exit,omitempty"`
	Tail    string  `json:"tail,omitempty"` // the last lines of its output, once ended
}

func newCheckJSON(c bus.Check, now time.Time) checkJSON {
	j := checkJSON{Cmd: c.Cmd, State: c.State.String(), Seconds: seconds(c.Duration(now)), Log: c.Log, Run: string(c.Run), Commit: c.Commit, Tail: c.Tail}
	if c.State == bus.CheckFailed {
		j.Exit = c.Exit
	}
	return j
}

func seconds(d time.Duration) float64 { return math.Round(d.Seconds()*10) / 10 }

// duration prints seconds for a person: 0.4s, 12s, 3m05s.
func duration(s float64) string {
	switch {
	case s < 10:
		return fmt.Sprintf("%.1fs", s)
	case s < 60:
		return fmt.Sprintf("%.0fs", s)
	default:
		return fmt.Sprintf("%dm%02ds", int(s)/60, int(s)%60)
	}
}

type taskReviewCmd struct {
	ID             string `arg:"" help:"Task id or unique prefix."`
	Approve        bool   `xor:"verdict" required:"" help:"Approve the task; the person still approves and merges it."`
	RequestChanges bool   `name:"request-changes" xor:"verdict" required:"" help:"Send the task back to its agent (→ CHANGES_REQUESTED) with --note."`
	Note           string `help:"What you found; for --request-changes, what to change." placeholder:"TEXT"`
}

func (c *taskReviewCmd) Run(g *Globals) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	verdict := bus.VerdictApprove
	if c.RequestChanges {
		verdict = bus.VerdictRequestChanges
	}
	a, done, err := g.actor()
	if err != nil {
		return err
	}
	defer done()
	r, t, err := a.ReviewTask(g.ctx, wd, c.ID, verdict, c.Note)
	if err != nil {
		return err
	}
	if r.Verdict == bus.VerdictApprove {
		fmt.Fprintf(g.stdout, "task %s: approved by %s (it is %s: the person approves and merges)\n", t.ID, r.Reviewer, t.State)
	} else {
		fmt.Fprintf(g.stdout, "task %s: changes requested by %s (it is %s; %s is told)\n", t.ID, r.Reviewer, t.State, t.Assignee)
	}
	return nil
}

// taskAction runs one task move through the task service (which decides
// who may make it and does the git work that goes with it) and prints
// what happened. An empty id means the caller's current task. A move that
// ends in a conflict prints the new state and fails.
func taskAction(g *Globals, id string, move tasks.Move, note string) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	a, done, err := g.actor()
	if err != nil {
		return err
	}
	defer done()
	before, after, err := a.MoveTask(g.ctx, wd, id, move, note)
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

type taskPruneCmd struct {
	Yes    bool `short:"y" help:"Delete without asking."`
	DryRun bool `name:"dry-run" help:"Only say what would be deleted."`
}

// Run lists what would go, asks (on a terminal; elsewhere --yes is
// needed), then deletes.
func (c *taskPruneCmd) Run(g *Globals) error {
	b, err := g.open(false)
	if err != nil {
		return err
	}
	defer b.Close()
	if me, err := g.caller(b); err != nil || me != bus.Human {
		if err == nil {
			err = fmt.Errorf("only the human prunes task branches; this runs as agent %s", me)
		}
		return fmt.Errorf("task prune: %w", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	svc := tasks.New(g.ctx, b, wd, "")
	plan, err := svc.Prune(g.ctx, true)
	if err != nil {
		return fmt.Errorf("task prune: %w", err)
	}
	doomed := printPrune(g.stdout, plan, "would delete")
	if doomed == 0 || c.DryRun {
		if doomed == 0 {
			fmt.Fprintln(g.stdout, "nothing to delete")
		}
		return nil
	}
	if !c.Yes {
		in, ok := g.stdin.(*os.File)
		if !ok || !term.IsTerminal(in.Fd()) {
			return usageError("task prune: add --yes to delete without being asked, or --dry-run to see what would go")
		}
		fmt.Fprintf(g.stdout, "delete %d of them? [y/N] ", doomed)
		answer, _ := bufio.NewReader(in).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintln(g.stdout, "nothing deleted")
			return nil
		}
	}
	done, err := svc.Prune(g.ctx, false)
	printPrune(g.stdout, done, "deleted")
	if err != nil {
		return fmt.Errorf("task prune: %w", err)
	}
	return nil
}

// printPrune prints one line per finished task's branch and returns how
// many are (or would be) deleted.
func printPrune(w io.Writer, ps []tasks.Pruned, verb string) int {
	n := 0
	for _, p := range ps {
		title := textsafe.Words(p.Task.Title)
		switch {
		case p.Kept != nil:
			fmt.Fprintf(w, "kept %s (task %s, %s): it has commits %s does not\n", p.Task.Branch, p.Task.ID, title, p.Task.Base)
		case p.Deleted:
			n++
			fmt.Fprintf(w, "%s %s (task %s, %s)\n", verb, p.Task.Branch, p.Task.ID, title)
		}
	}
	return n
}
