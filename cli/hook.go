package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"swarm/actor"
	"swarm/bus"
	"swarm/supervisor"
)

type hookCmd struct {
	Hook    string `arg:"" help:"The hook: prompt (a prompt was submitted), stop (the turn ended), notification (the CLI waits for you; its JSON on stdin), notify (Codex's notify program; its JSON as the last argument)."`
	Payload string `arg:"" optional:"" help:"What Codex passes its notify program."`
}

// Help is the longer text of `swarm hook --help`.
func (hookCmd) Help() string {
	return `Called by an agent CLI's hooks, which swarm wires into the CLIs it knows
(kind = "claude", "codex", "gemini"): tells swarm where the agent's turn is.
"stop" makes the agent idle (what waits for it is typed in at once),
"prompt" working, "notification" puts it on the "needs you" list with the
CLI's message (Claude Code's idle_prompt only makes it idle). Nothing is
printed on stdout (a CLI may read it); an error is one line on stderr and
exit status 1, which the CLIs show without stopping.`
}

// hookStdinLimit bounds what is read of a hook's stdin: a CLI's JSON is
// small, and a hook must never hold its CLI up.
const hookStdinLimit = 1 << 20

func (c *hookCmd) Run(g *Globals) error {
	payload := []byte(c.Payload)
	if c.Hook != "notify" {
		payload = readHookInput(g.stdin, 2*time.Second)
	}
	status, note, ok, err := supervisor.HookTurn(c.Hook, payload)
	if err != nil {
		return err // exit 1, never the 2 of a usage error: Claude Code reads 2 as "do not stop"
	}
	if !ok {
		return nil
	}
	b, err := g.open(false)
	if err != nil {
		return err
	}
	defer b.Close()
	if who, err := g.caller(b); err != nil {
		return fmt.Errorf("hook %s: %w", c.Hook, err)
	} else if who == bus.Human {
		return fmt.Errorf("hook %s: runs inside an agent's CLI, and this runs outside every agent", c.Hook)
	}
	data, _ := json.Marshal(map[string]string{"status": status.String(), "hook": c.Hook, "note": note})
	_, err = actor.Actor{Bus: b, Getenv: os.Getenv}.Send(g.ctx, actor.SendRequest{
		To: bus.Swarm, Kind: string(bus.KindTurn), Body: "turn " + status.String(), Data: data})
	if err != nil {
		return fmt.Errorf("hook %s: %w", c.Hook, err)
	}
	return nil
}

// readHookInput reads what a CLI wrote to the hook's stdin, up to its end
// or for at most wait: nothing when stdin is a terminal (a person running
// the hook by hand) or is never closed.
func readHookInput(r io.Reader, wait time.Duration) []byte {
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			return nil
		}
	}
	got := make(chan []byte, 1)
	go func() { // ends with the process if the CLI never closes stdin
		data, err := io.ReadAll(io.LimitReader(r, hookStdinLimit))
		if err != nil && !errors.Is(err, io.EOF) {
			data = nil
		}
		got <- data
	}()
	select {
	case data := <-got:
		return data
	case <-time.After(wait):
		return nil
	}
}
