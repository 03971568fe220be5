package supervisor

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"swarm/bus"
	"swarm/checks"
	"swarm/textsafe"
)

// startChecks records the swarm's checks on the bus (for the command
// line) and, when it has [checks], runs them: the checks of the branches
// in review and the merge queue (checks.Service), in a goroutine the
// supervisor owns.
func (s *Supervisor) startChecks(ctx context.Context) {
	policy := s.opts.Config.CheckPolicy()
	if err := s.bus.SetCheckPolicy(ctx, policy); err != nil {
		s.log.Error("record the checks", "err", err)
	}
	if policy == nil {
		return
	}
	svc := checks.New(checks.Options{Bus: s.bus, Tasks: s.tasks, Policy: policy, Log: s.log,
		PathFor: s.pathFor, Command: s.swarmCommand()})
	s.goRun(svc.Run)
	// Follow from here on, as the router does: what changes after Start
	// returns is an event.
	last, _ := s.bus.ChecksVersion(ctx)
	wake, unsub := s.bus.Subscribe()
	s.goRun(func(ctx context.Context) {
		defer unsub()
		s.followChecks(ctx, wake, last)
	})
}

// followChecks emits an EventChecks whenever the checks, the merge queue
// or the reviewers' verdicts change on the bus (from this process or
// another: a reviewer's command, a queue run by the command line), so that
// a UI reads them again.
func (s *Supervisor) followChecks(ctx context.Context, wake <-chan struct{}, last int64) {
	for {
		v, err := s.bus.ChecksVersion(ctx)
		if err == nil && v != last {
			last = v
			s.hub.emit(Event{Kind: EventChecks, Time: time.Now()})
		}
		if !waitWake(ctx, wake, err != nil) {
			return
		}
	}
}

// pathFor names file for agent as it may be typed into the agent: by its
// absolute path, else by its path from the agent's directory; an error
// when neither can be typed (a line feed or a control character).
func (s *Supervisor) pathFor(agent, file string) (string, error) {
	if typable(file) {
		return shellQuote(file), nil
	}
	if a, err := s.agent(agent); err == nil {
		if rel, err := filepath.Rel(a.workDir(), file); err == nil && typable(rel) {
			return shellQuote(rel), nil
		}
	}
	return "", errors.New("its path holds a line feed or a control character, seen from the agent's directory too")
}

func typable(path string) bool { return textsafe.Safe(path) && !strings.ContainsAny(path, "\n\r") }

// CheckPolicy is what cfg's [checks] asks of its tasks, as the bus keeps
// it for the command line and the checks service; nil when it has none.
func (c *Config) CheckPolicy() *bus.CheckPolicy {
	if c.Checks == nil {
		return nil
	}
	p := &bus.CheckPolicy{Run: c.Checks.Run, Timeout: c.Checks.Timeout, ReviewBy: c.Checks.ReviewBy,
		ReviewRequired: c.Checks.ReviewRequired, Parallel: c.Checks.Parallel}
	for _, a := range c.Agents {
		if a.OwnChecks {
			if p.Agents == nil {
				p.Agents = map[string][]string{}
			}
			p.Agents[a.Name] = a.Checks
		}
	}
	return p
}

// CheckPrograms returns the programs a check's shell command line runs:
// the first word of each of its simple commands, past wrappers (env,
// exec, nohup, time…) and variable assignments. A shell's own words (cd,
// if, then) are among them; `command -v` finds those too.
func CheckPrograms(cmd string) []string {
	var progs []string
	for _, words := range simpleCommands(cmd) {
		if words = skipWrappers(words); len(words) > 0 {
			progs = append(progs, words[0])
		}
	}
	return progs
}
