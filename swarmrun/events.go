package swarmrun

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"swarm/server"
	"swarm/swarmapi"
	"swarm/textsafe"
)

// PrintEvents prints the swarm's events to stdout (up --headless) until
// ctx ends or every agent has ended (nothing could run again without a
// person, so a script waiting on swarm is not left waiting): then it fails
// if one gave up. It is here, not in the command line, because the server
// binary that runs a headless swarm links no command line.
func (sw *Swarm) PrintEvents(ctx context.Context, stdout, stderr io.Writer, asJSON bool) error {
	// An agent's final state is set around its last events, so the check
	// runs on a ticker, and swarm ends once the events have gone quiet
	// for a moment after it: the last of them are printed too.
	const settle = 200 * time.Millisecond
	sup := sw.Supervisor
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var ending <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-sw.Subscription.Events():
			if err := PrintEvent(stdout, ev, asJSON); err != nil {
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
			return endedErr(stderr, sup.Agents())
		}
	}
}

// endedErr says why a swarm whose agents have all ended stops: an error
// naming those that gave up, or none when every one simply finished.
func endedErr(stderr io.Writer, agents []swarmapi.AgentInfo) error {
	var gaveUp []string
	for _, a := range agents {
		if a.State == swarmapi.StateGaveUp {
			gaveUp = append(gaveUp, fmt.Sprintf("%s (%s)", a.Name, a.Reason))
		}
	}
	if len(gaveUp) > 0 {
		return fmt.Errorf("every agent has ended; gave up: %s", strings.Join(gaveUp, ", "))
	}
	fmt.Fprintln(stderr, "swarm: every agent has ended")
	return nil
}

// PrintEvent prints one event as a line of text, or of JSON; screen
// events are not printed.
func PrintEvent(w io.Writer, ev swarmapi.Event, asJSON bool) error {
	if ev.Kind == swarmapi.EventScreen {
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
	_, err := fmt.Fprintln(w, swarmapi.FormatEvent(ev))
	return err
}

// Serve is the body of the server that `swarm up` starts: it serves until
// ctx ends (a signal, swarm stop) or the swarm is unneeded, every agent
// ended and no UI attached for server.IdleEnd, which it says on stderr.
func (sw *Swarm) Serve(ctx context.Context, stderr io.Writer) error {
	select {
	case <-ctx.Done():
	case <-sw.Unneeded(server.IdleEnd):
		fmt.Fprintln(stderr, "swarm: every agent has ended and no UI is attached: the server ends")
	}
	return nil
}
