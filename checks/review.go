package checks

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"swarm/bus"
	"swarm/textsafe"
)

// The reviewer agent (review_by): a task whose checks passed in review is
// sent to it as a message with the task, the diff stat and the name of a
// file holding the whole diff (under .swarm/checks/<task>/, named by a
// path the reviewer can read; the diff itself is never typed into its
// terminal). It answers with `swarm task review` (tasks.Service.Review).

// askReview sends task t, at commit, to the reviewer agent.
func (s *Service) askReview(ctx context.Context, t bus.Task, commit string) {
	reviewer := s.policy.ReviewBy
	if reviewer == t.Assignee {
		return // its own work: the person reviews it
	}
	stat, diff, err := s.tasks.Diff(ctx, t.ID)
	if err != nil {
		s.log.Error("checks: the diff to review", "task", t.ID, "err", err)
		return
	}
	where := ""
	file, err := s.bus.WriteFile(path.Join("checks", t.ID, "review-"+shortCommit(commit)+".diff"), []byte(diff))
	if err == nil {
		file, err = filepath.Abs(file)
	}
	if err == nil {
		where, err = s.opts.PathFor(reviewer, file)
	}
	if err != nil {
		s.log.Warn("checks: the diff's file for the reviewer", "task", t.ID, "err", err)
		where = fmt.Sprintf("(its file cannot be named: %v; run `%s task show %s --diff`)", err, s.opts.Command, t.ID)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "review task %s (%s) by %s: its branch %s at %s, onto %s; its checks passed.\n",
		t.ID, textsafe.Words(t.Title), t.Assignee, t.Branch, shortCommit(commit), t.Base)
	if t.Description != "" {
		fmt.Fprintf(&b, "%s\n", textsafe.Words(t.Description))
	}
	fmt.Fprintf(&b, "%s\nThe whole diff: %s\n", strings.TrimRight(stat, "\n"), where)
	fmt.Fprintf(&b, "Answer with `%[1]s task review %[2]s --approve --note TEXT` or `%[1]s task review %[2]s --request-changes --note TEXT` (or the task_review tool). "+
		"The person still decides whether it is merged.", s.opts.Command, t.ID)
	data := fmt.Sprintf(`{"task":%q,"commit":%q,"diff":%q}`, t.ID, commit, file)
	_, err = s.bus.Publish(context.WithoutCancel(ctx), bus.Message{ID: messageID(t.ID, "review", commit),
		From: bus.Swarm, To: reviewer, Kind: bus.KindTaskReview, Body: b.String(), Data: []byte(data)})
	if err != nil {
		s.log.Error("checks: send a task to review", "task", t.ID, "err", err)
	}
}

// errUntypable: a path holds a character that cannot be typed.
var errUntypable = errors.New("its path holds a line feed or a control character")

// typablePath returns file as it may be typed, else errUntypable.
func typablePath(file string) (string, error) {
	if !textsafe.Safe(file) || strings.ContainsAny(file, "\n\r") {
		return "", errUntypable
	}
	return file, nil
}
