package supervisor

import (
	"swarm/bus"
)

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
