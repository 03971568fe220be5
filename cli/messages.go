package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"swarm/actor"
	"swarm/bus"
	"swarm/textsafe"
)

type sendCmd struct {
	To    string   `arg:"" help:"Recipient: an agent name, \"*\" for every agent but you, \"swarm\" or \"human\"."`
	Body  []string `arg:"" help:"Message text (words are joined with spaces; \"-\" reads it from stdin)."`
	Type  string   `help:"Message kind, e.g. message, notice, task_done." default:"message" placeholder:"KIND"`
	Data  string   `help:"JSON value attached to the message." placeholder:"JSON"`
	Topic string   `help:"Topic or thread name." placeholder:"TOPIC"`
}

func (c *sendCmd) Run(g *Globals) error {
	body := strings.Join(c.Body, " ")
	if body == "-" {
		in, err := io.ReadAll(g.stdin)
		if err != nil {
			return fmt.Errorf("send: read stdin: %w", err)
		}
		body = strings.TrimSuffix(string(in), "\n")
	}
	req := actor.SendRequest{To: c.To, Body: body, Kind: c.Type, Data: json.RawMessage(c.Data), Topic: c.Topic}
	if _, err := req.Message(); err != nil {
		return exitErr(err) // before the bus is opened, let alone created
	}
	a, done, err := g.actor()
	if err != nil {
		return err
	}
	defer done()
	m, err := a.Send(g.ctx, req)
	if m.ID != "" {
		fmt.Fprintln(g.stdout, m.ID) // also when a delivery failed: the message is stored
	}
	return exitErr(err)
}

// exitErr gives a refusal of what a request says (actor.ErrUsage) the
// exit status of a usage error.
func exitErr(err error) error {
	if errors.Is(err, actor.ErrUsage) {
		return &exitError{code: 2, err: err}
	}
	return err
}

type inboxCmd struct {
	Agent string `arg:"" optional:"" help:"Agent whose inbox to show (default: you, $SWARM_AGENT or human)."`
	Limit int    `help:"Show only the latest N messages (0: all)." default:"0" placeholder:"N"`
	JSON  bool   `name:"json" help:"Print one JSON object per line."`
}

func (c *inboxCmd) Run(g *Globals) error {
	b, err := g.open(false)
	if err != nil {
		return err
	}
	defer b.Close()
	agent := c.Agent
	if agent == "" {
		if agent, err = g.caller(b); err != nil {
			return fmt.Errorf("inbox: %w", err)
		}
	}
	ms, err := b.Inbox(g.ctx, agent, c.Limit)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(g.stdout)
	for _, m := range ms {
		if err := printMessage(w, m, m.StateFor(agent), agent, c.JSON); err != nil {
			return err
		}
	}
	if len(ms) == 0 && agent != bus.Human && agent != bus.Swarm {
		if _, err := b.Agent(g.ctx, agent); errors.Is(err, bus.ErrUnknownAgent) {
			return fmt.Errorf("inbox: %w", err) // a typo, most likely
		}
	}
	if len(ms) == 0 && !c.JSON {
		fmt.Fprintf(w, "no messages to or from %s\n", agent)
	}
	return w.Flush()
}

type logCmd struct {
	Follow bool `short:"f" help:"Keep printing new messages as they arrive (until interrupted)."`
	Limit  int  `help:"Start with only the latest N messages (0: all)." default:"0" placeholder:"N"`
	JSON   bool `name:"json" help:"Print one JSON object per line."`
}

func (c *logCmd) Run(g *Globals) error {
	b, err := g.open(false)
	if err != nil {
		return err
	}
	defer b.Close()
	wake, unsubscribe := b.Subscribe() // before the first read, so nothing falls in between
	defer unsubscribe()
	after := int64(0)
	if c.Limit > 0 {
		last, err := b.LastSeq(g.ctx)
		if err != nil {
			return err
		}
		after = max(0, last-int64(c.Limit))
	}
	w := bufio.NewWriter(g.stdout)
	for {
		page, err := b.Messages(g.ctx, after, 500)
		if err != nil {
			if g.ctx.Err() != nil {
				return nil // interrupted while following
			}
			return err
		}
		for _, m := range page {
			if err := printMessage(w, m, m.State(), "", c.JSON); err != nil {
				return err
			}
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if len(page) > 0 {
			after = page[len(page)-1].Seq
			continue
		}
		if !c.Follow {
			return nil
		}
		select {
		case <-wake:
		case <-g.ctx.Done():
			return nil
		}
	}
}

// printMessage writes m as a JSON line or as one aligned, readable line.
// The line ends with why a delivery went wrong, where one did: to agent
// only, when agent is not "" (an inbox), else to every recipient.
func printMessage(w io.Writer, m bus.Message, state, agent string, asJSON bool) error {
	if asJSON {
		line, err := bus.EncodeRecord(bus.NewRecord(m, state))
		if err != nil {
			return err
		}
		_, err = w.Write(textsafe.JSON(line))
		return err
	}
	body := textsafe.Line(m.Shown())
	if m.Kind != bus.KindMessage {
		body = "[" + textsafe.Line(string(m.Kind)) + "] " + body
	}
	if m.Topic != "" {
		body = "(" + textsafe.Line(m.Topic) + ") " + body
	}
	_, err := fmt.Fprintf(w, "%s  #%s  %-10s → %-10s %-10s %s%s\n",
		m.Time.Local().Format(time.TimeOnly), bus.ShortID(m.ID), textsafe.Line(m.From), textsafe.Line(m.To), state, body,
		deliveryTrouble(m, agent))
	return err
}

// deliveryTrouble says why deliveries of m went wrong ("  — bob: failed:
// reason"), for those to agent (all when agent is ""); "" when none did.
func deliveryTrouble(m bus.Message, agent string) string {
	var out strings.Builder
	for _, d := range m.Deliveries {
		if d.Error == "" || agent != "" && d.Recipient != agent {
			continue
		}
		fmt.Fprintf(&out, "  — %s: %s: %s", textsafe.Line(d.Recipient), d.State, textsafe.Line(d.Error))
	}
	return out.String()
}

// errorLine is err's text on one line, as every error is printed: the
// line an MCP tool refuses with too.
func errorLine(s string) string { return actor.ErrorLine(s) }
