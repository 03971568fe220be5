package tui

import (
	"context"
	"fmt"
	"slices"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"swarm/bus"
	"swarm/tasks"
	"swarm/textsafe"
)

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
	return m.tasks.loadReview(m.src(), false)
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
		if m.tasks.checksOn() {
			// With [checks], m does not merge: the queue does, later.
			text = fmt.Sprintf("Put task %s in the merge queue? %s goes into %s once its merge passes the checks.", name, t.Branch, t.Base)
		}
		if t.Branch == "" {
			text = fmt.Sprintf("Complete task %s? It has no branch: nothing to merge.", name)
		}
		m.dialog = newConfirm("Merge", text, func() tea.Cmd {
			return run("merge", func(ctx context.Context) (bus.Task, error) { return sw.Merge(ctx, t.ID) },
				func(ctx context.Context, nt bus.Task) string {
					if nt.State == bus.TaskApproved {
						// With checks, merge puts the task in the merge queue.
						return queued(ctx, b, name, nt)
					}
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
		m.dialog = newNoteDialog(t, m.width, func(note string) tea.Cmd {
			return run("request changes on", func(ctx context.Context) (bus.Task, error) { return sw.RequestChanges(ctx, t.ID, note) },
				func(context.Context, bus.Task) string {
					return fmt.Sprintf("sent task %s back to %s", name, t.Assignee)
				})
		})
		return m.dialog.focus()
	}
	return nil
}

// queued says where a task merge put in the merge queue stands.
func queued(ctx context.Context, b Reader, name string, t bus.Task) string {
	q, err := b.MergeQueue(ctx)
	if i := slices.IndexFunc(q, func(e bus.QueueEntry) bool { return e.Task == t.ID }); err == nil && i >= 0 {
		return fmt.Sprintf("task %s queued to merge into %s (%d of %d in the merge queue)", name, t.Base, i+1, len(q))
	}
	return fmt.Sprintf("task %s queued to merge into %s", name, t.Base)
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

// pruneMsg is what a prune would delete, read before asking.
type pruneMsg struct {
	plan []tasks.Pruned
	err  error
}

// prune asks the task service what it would delete; onPrunePlan asks the
// person before anything is.
func (m *Model) prune() tea.Cmd {
	ctx, sw := m.ctx, m.sw
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		plan, err := sw.Prune(ctx, true)
		return pruneMsg{plan, err}
	}
}

func (m *Model) onPrunePlan(msg pruneMsg) {
	if msg.err != nil {
		m.setError(fmt.Errorf("prune: %w", msg.err))
		return
	}
	doomed, kept := 0, 0
	for _, p := range msg.plan {
		switch {
		case p.Kept != nil:
			kept++
		case p.Deleted:
			doomed++
		}
	}
	keptNote := ""
	if kept > 0 {
		keptNote = fmt.Sprintf(" (%d kept: work not on its base)", kept)
	}
	if doomed == 0 {
		m.setStatus("no merged task branches to delete%s", keptNote)
		return
	}
	ctx, sw := m.ctx, m.sw
	text := fmt.Sprintf("Delete %d merged task %s?%s", doomed, branches(doomed), keptNote)
	m.dialog = newConfirm("Prune task branches", text, func() tea.Cmd {
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			done, err := sw.Prune(ctx, false)
			n := 0
			for _, p := range done {
				if p.Deleted {
					n++
				}
			}
			if err != nil {
				return actionMsg{err: fmt.Errorf("prune (after deleting %d): %w", n, err)}
			}
			return actionMsg{text: fmt.Sprintf("deleted %d merged task %s", n, branches(n))}
		}
	})
}

func branches(n int) string {
	if n == 1 {
		return "branch"
	}
	return "branches"
}
