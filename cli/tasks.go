package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"swarm/bus"
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
	Cancel         taskCancelCmd         `cmd:"" help:"Cancel a task (→ CANCELLED)."`
	Retry          taskRetryCmd          `cmd:"" help:"Assign a failed task again (→ ASSIGNED)."`
	Merge          taskMergeCmd          `cmd:"" help:"Merge an approved task's branch into its base branch (→ COMPLETED)."`
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
		if stat, diff, err = tasks.New(g.ctx, b, wd, "").Diff(g.ctx, t.ID); err != nil {
			return err
		}
	}
	if c.JSON {
		out := newTaskJSON(t)
		out.DiffStat, out.Diff = stat, diff
		for _, e := range events {
			out.Events = append(out.Events, eventJSON{From: e.From.String(), To: e.To.String(), Actor: e.Actor, Note: e.Note, TS: e.Time})
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
	ID string `arg:"" help:"Task id or unique prefix."`
}

func (c *taskMergeCmd) Run(g *Globals) error {
	return taskAction(g, c.ID, tasks.MoveMerge, "")
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
