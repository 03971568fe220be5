package checks

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"swarm/bus"
	"swarm/tasks"
)

// The merge queue's own cost: from `merge` to the base moved (the entry
// done, the task completed), for a task whose check takes no time
// (`true`), one at a time and ten queued at once; beside it, in the same
// run, a merge without checks (straight in, as without [checks]).
// go test -run '^$' -bench Merge -benchtime 20x ./checks/

func BenchmarkMergeDirect(b *testing.B)   { benchQueue(b, 1, false) }
func BenchmarkMergeQueueOne(b *testing.B) { benchQueue(b, 1, true) }
func BenchmarkMergeQueueTen(b *testing.B) { benchQueue(b, 10, true) }

func benchQueue(b *testing.B, n int, queue bool) {
	dir := b.TempDir()
	cfg := filepath.Join(dir, "gitconfig")
	if err := os.WriteFile(cfg, []byte("[user]\n\tname = B\n\temail = b@example.com\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	b.Setenv("GIT_CONFIG_GLOBAL", cfg)
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	repo := filepath.Join(dir, "repo")
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		b.Fatal(err)
	}
	git(repo, "init", "-q", "-b", "main")
	git(repo, "commit", "-q", "--allow-empty", "-m", "initial")
	ctx := context.Background()
	bs, err := bus.Open(bus.Options{Dir: filepath.Join(repo, ".swarm")})
	if err != nil {
		b.Fatal(err)
	}
	defer bs.Close()
	if err := bs.RegisterAgent(ctx, bus.Agent{Name: "w", Cmd: "sh", State: bus.AgentRunning}); err != nil {
		b.Fatal(err)
	}
	policy := &bus.CheckPolicy{Run: []string{"true"}, Timeout: time.Minute, Parallel: 1}
	if queue {
		if err := bs.SetCheckPolicy(ctx, policy); err != nil {
			b.Fatal(err)
		}
	}
	svc := tasks.New(ctx, bs, repo, "")
	qctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		NewQueue(New(Options{Bus: bs, Tasks: svc, Policy: policy})).Run(qctx)
	}()
	defer func() {
		cancel()
		wg.Wait()
	}()
	wake, unsub := bs.Subscribe()
	defer unsub()

	k := 0
	approved := func() string {
		k++
		t, err := bs.CreateTask(ctx, bus.NewTask{Title: fmt.Sprint("t", k), Assignee: "w", CreatedBy: bus.Human})
		if err == nil {
			t, err = svc.Prepare(ctx, t)
		}
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(t.Worktree, fmt.Sprint("f", k)), []byte("x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		git(t.Worktree, "add", ".")
		git(t.Worktree, "commit", "-q", "-m", "f")
		for _, m := range []tasks.Move{tasks.MoveStart, tasks.MoveDone, tasks.MoveApprove} {
			if _, _, err := svc.Move(ctx, bus.Human, t.ID, m, ""); err != nil {
				b.Fatal(err)
			}
		}
		return t.ID
	}
	var merge time.Duration
	var last string
	for b.Loop() {
		b.StopTimer()
		ids := make([]string, n)
		for i := range ids {
			ids[i] = approved()
		}
		b.StartTimer()
		start := time.Now()
		for _, id := range ids {
			if _, err := svc.Merge(ctx, id, bus.Human); err != nil {
				b.Fatal(err)
			}
		}
		for queue {
			e, err := bs.QueueEntryOf(ctx, ids[n-1])
			if err != nil {
				b.Fatal(err)
			}
			if e.Phase == bus.PhaseDone {
				if !e.Merged {
					b.Fatalf("not merged: %s", e.Why)
				}
				break
			}
			<-wake
		}
		merge += time.Since(start)
		last = ids[n-1]
	}
	if t, err := bs.Task(ctx, last); err != nil || t.State != bus.TaskCompleted {
		b.Fatalf("the last task is %v (%v)", t.State, err)
	}
	b.ReportMetric(float64(merge.Milliseconds())/float64(b.N), "ms/merge-to-base")
}
