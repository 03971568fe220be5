package cluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"swarm/bus"
	"swarm/server"
	"swarm/supervisor"
	"swarm/wire"
)

// mainHost is the host name a host gives the main swarm's own agents.
const mainHost = "main"

// HostOptions configure `swarm host`.
type HostOptions struct {
	URL     JoinURL
	Dir     string // the host's state: its bus, its agents' logs
	Workdir string // where its agents run (their dirs, relative to the main project, are made relative to it)
	Log     *slog.Logger
	// Waiting, when set, is told once that the main swarm cannot be
	// reached yet (the host keeps trying).
	Waiting func(error)
	// Started, when set, is called with the host's supervisor once its
	// agents started.
	Started func(*supervisor.Supervisor)
	// Stopping, when set, is called with the host's supervisor as the
	// host is about to stop its agents.
	Stopping func(*supervisor.Supervisor)
}

// ErrRefused is a connection the main swarm refused (a wrong or revoked
// secret); ErrNotTrusted one whose certificate is not the URL's.
var (
	ErrRefused    = errors.New("refused by the main swarm")
	ErrNotTrusted = errors.New("not the main swarm the join URL names")
)

// fingerprintError is the TLS handshake's refusal of a certificate.
type fingerprintError struct{ got, want string }

func (e *fingerprintError) Error() string {
	return fmt.Sprintf("its certificate is %s, the join URL's %s", e.got, e.want)
}

// Dial connects to the main swarm as host u.Host, checking its
// certificate against the URL's fingerprint; or to the existing NATS
// server the URL names, as that server's URL says.
func Dial(u JoinURL, name string, opts ...nats.Option) (*nats.Conn, error) {
	if u.NATS != "" {
		nc, err := nats.Connect(u.NATS, append([]nats.Option{nats.Name(name), nats.Timeout(5 * time.Second)}, opts...)...)
		if err != nil {
			return nil, connectError(u, err)
		}
		return nc, nil
	}
	tlsConf := &tls.Config{
		MinVersion: tls.VersionTLS12,
		// The certificate is swarm's own, pinned by its fingerprint: no
		// authority or name vouches for it.
		InsecureSkipVerify: true,
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 {
				return &fingerprintError{got: "none", want: u.Fingerprint}
			}
			if got := fingerprint(raw[0]); got != u.Fingerprint {
				return &fingerprintError{got: got, want: u.Fingerprint}
			}
			return nil
		},
	}
	all := append([]nats.Option{nats.Secure(tlsConf), nats.UserInfo(u.Host, u.Secret), nats.Name(name), nats.Timeout(5 * time.Second)}, opts...)
	nc, err := nats.Connect("tls://"+u.Addr, all...)
	if err != nil {
		return nil, connectError(u, err)
	}
	return nc, nil
}

// connectError says in one line why a connection to the main swarm
// failed.
func connectError(u JoinURL, err error) error {
	var fp *fingerprintError
	switch {
	case errors.As(err, &fp):
		return fmt.Errorf("%s: %w: %v", u.Where(), ErrNotTrusted, fp)
	case errors.Is(err, nats.ErrAuthorization) || strings.Contains(strings.ToLower(err.Error()), "authorization violation"):
		if u.NATS != "" {
			return fmt.Errorf("%s: host %s %w: the NATS server refused its credentials", u.Where(), u.Host, ErrRefused)
		}
		return fmt.Errorf("%s: host %s %w: its secret is wrong or was revoked (run swarm invite %s there for a new URL)", u.Where(), u.Host, ErrRefused, u.Host)
	default:
		return fmt.Errorf("%s: %v", u.Where(), err)
	}
}

// hostFile, in a host's state directory, names the host: the command
// line there reads the swarm's record (tasks, heartbeats) from the main
// swarm, through the host's socket, not from the host's bus.
const hostFile = "host.name"

// HostOf returns the host whose state directory dir is, "" if dir is not
// a host's.
func HostOf(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, hostFile))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// RunHost runs a host until ctx is done: it connects, takes its agents'
// definitions from the main swarm, runs them, and carries their messages
// and deliveries over JetStream.
func RunHost(ctx context.Context, opts HostOptions) error {
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	u := opts.URL
	// A host refused while it reconnects (its invitation was revoked)
	// ends, saying why.
	ctx, refuse := context.WithCancelCause(ctx)
	defer refuse(nil)
	nc, err := dialPatiently(ctx, u, opts.Waiting, nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		opts.Log.Warn("cluster: connection", "err", err)
		if errors.Is(err, nats.ErrAuthorization) || strings.Contains(strings.ToLower(err.Error()), "authorization violation") {
			refuse(connectError(u, err))
		}
	}))
	if err != nil {
		return err
	}
	defer nc.Close()
	defs, err := askDefinitions(ctx, nc, u)
	if err != nil {
		return err
	}
	cfg, local := hostConfig(defs, opts.Workdir)
	b, err := bus.Open(bus.Options{Dir: opts.Dir})
	if err != nil {
		return err
	}
	defer b.Close()
	if err := writeFileAtomic(filepath.Join(opts.Dir, hostFile), []byte(u.Host+"\n"), 0o600); err != nil {
		return err
	}
	sup, err := supervisor.New(supervisor.Options{Config: cfg, Bus: b, Log: opts.Log, TasksElsewhere: true})
	if err != nil {
		return err
	}
	if err := sup.Lock(); err != nil {
		return err
	}
	// The command line inside its agents reaches the host's socket
	// (actors.go), which listens before they start and answers once they
	// have (Held): an agent that calls swarm at once waits instead of
	// being told no swarm runs. Without it they still run and message:
	// only that command line cannot reach the main swarm.
	srv, err := server.Listen(opts.Dir, sup, server.Options{Program: "swarm host " + u.Host, Dir: opts.Workdir, Log: opts.Log,
		Bus: b, Upstream: upstream(nc, space(u.Space), u.Host), Held: true})
	if err != nil {
		opts.Log.Warn("cluster: no socket for the command line inside the agents", "err", err)
	} else {
		defer srv.Close()
	}
	if err := sup.Start(ctx); err != nil {
		return err
	}
	defer func() {
		if opts.Stopping != nil {
			opts.Stopping(sup)
		}
		sup.Shutdown(context.WithoutCancel(ctx))
	}()
	if srv != nil {
		srv.Open(nil)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	br := &bridge{host: u.Host, space: space(u.Space), local: local, b: b, js: js, log: opts.Log, dir: opts.Dir, watch: map[string]*watched{}, poke: make(chan struct{}, 1)}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	pong, err := nc.Subscribe(space(u.Space).ping(u.Host), func(m *nats.Msg) { _ = m.Respond(nil) })
	if err != nil {
		return err
	}
	defer pong.Unsubscribe()
	cons, err := js.Consumer(ctx, space(u.Space).inStream(), hostConsumer(u.Host))
	if err != nil {
		return fmt.Errorf("%s: host %s's deliveries: %v", u.Where(), u.Host, err)
	}
	cc, err := cons.Consume(func(m jetstream.Msg) { br.received(runCtx, m) })
	if err != nil {
		return err
	}
	defer cc.Stop()
	ps := newPaneServer(space(u.Space), u.Host, sup, local, nc)
	panesDone := make(chan error, 1)
	go func() { panesDone <- ps.run(runCtx) }()
	defer func() { cancel(); <-panesDone }()
	if opts.Started != nil {
		opts.Started(sup)
	}
	br.run(runCtx)
	if err := context.Cause(ctx); err != nil && ctx.Err() != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// dialPatiently connects as Dial does, trying again every second while
// the main swarm cannot be reached (it may not have started yet); a
// refusal ends it at once.
func dialPatiently(ctx context.Context, u JoinURL, waiting func(error), opts ...nats.Option) (*nats.Conn, error) {
	told := false
	opts = append(opts, nats.MaxReconnects(-1), nats.ReconnectWait(time.Second))
	for {
		nc, err := Dial(u, "swarm host "+u.Host, opts...)
		if err == nil || errors.Is(err, ErrRefused) || errors.Is(err, ErrNotTrusted) {
			return nc, err
		}
		if !told && waiting != nil {
			waiting(err)
			told = true
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(time.Second):
		}
	}
}

// askDefinitions asks the main swarm for the host's agents, again while
// it is starting (nothing answers yet).
func askDefinitions(ctx context.Context, nc *nats.Conn, u JoinURL) (definitions, error) {
	for {
		ask, _ := json.Marshal(definitionsRequest{Protocol: wire.Version})
		reply, err := nc.Request(space(u.Space).definitions(u.Host), ask, 10*time.Second)
		if errors.Is(err, nats.ErrNoResponders) {
			select {
			case <-ctx.Done():
				return definitions{}, ctx.Err()
			case <-time.After(200 * time.Millisecond):
				continue
			}
		}
		if err != nil {
			return definitions{}, fmt.Errorf("%s: ask for host %s's agents: %v", u.Where(), u.Host, err)
		}
		var defs definitions
		if err := json.Unmarshal(reply.Data, &defs); err != nil {
			return definitions{}, fmt.Errorf("%s: the main swarm's reply for the agents: %v", u.Where(), err)
		}
		if defs.Error != "" {
			return definitions{}, errors.New(defs.Error)
		}
		if defs.Protocol != wire.Version {
			return definitions{}, fmt.Errorf("%s: %s", u.Where(), protocolMismatch(wire.Version, defs.Protocol))
		}
		return defs, nil
	}
}

// hostConfig is the config a host's supervisor runs: its own agents, run
// here in workdir, and the others registered as on other hosts, so that
// messages to them queue on the host's bus for the bridge to carry.
func hostConfig(d definitions, workdir string) (*supervisor.Config, map[string]bool) {
	cfg := &supervisor.Config{
		Path:      filepath.Join(workdir, supervisor.DefaultConfigFile),
		Quiet:     supervisor.DefaultQuiet,
		Heartbeat: supervisor.HeartbeatConfig{Warn: supervisor.DefaultWarn, Stale: supervisor.DefaultStale, Dead: supervisor.DefaultDead},
	}
	local := map[string]bool{}
	for _, a := range d.Agents {
		a.Host = ""
		rel, err := filepath.Rel(d.Project, a.Dir)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			rel = "."
		}
		a.Dir = filepath.Join(workdir, rel)
		cfg.Agents = append(cfg.Agents, a)
		local[a.Name] = true
	}
	for _, p := range d.Others {
		h := p.Host
		if h == "" {
			h = mainHost
		}
		cfg.Agents = append(cfg.Agents, supervisor.AgentConfig{Name: p.Name, Host: h, Cmd: "(on " + h + ")", NoMessages: p.NoMessages})
	}
	return cfg, local
}

// bridge carries a host's messages to the main swarm and deliveries from
// it, on the host's bus.
type bridge struct {
	host  string
	space space
	local map[string]bool // the agents this host runs
	b     *bus.Bus
	js    jetstream.JetStream
	log   *slog.Logger
	dir   string

	mu        sync.Mutex
	watch     map[string]*watched // deliveries on this host whose end the main bus waits for, by local id "." recipient
	forwarded map[string]bool     // ids of messages published this run
	poke      chan struct{}
}

// watched is a delivery made on this host whose end is reported to the
// main swarm: for an inbound one, before its JetStream message is acked.
type watched struct {
	localID, mainID, recipient string
	msg                        jetstream.Msg // nil for a message written on this host
}

// localID is the id a message from the main swarm has on the host's bus:
// its own, for its recipient or a broadcast (stored once, for every
// recipient here); a copy of another message to several gets one of its
// own per recipient.
func localID(m wireMessage, recipient string) string {
	if m.To == recipient || m.To == bus.Everyone {
		return m.ID
	}
	return uuid.NewSHA1(uuid.NameSpaceOID, []byte(m.ID+"/"+recipient)).String()
}

// received stores a delivery from the main swarm on the host's bus (a
// copy stored before is left as it is) and watches it to its end.
func (br *bridge) received(ctx context.Context, msg jetstream.Msg) {
	var in inbound
	if err := json.Unmarshal(msg.Data(), &in); err != nil || !br.local[in.Recipient] {
		br.log.Warn("cluster: a delivery this host cannot take", "recipient", in.Recipient, "err", err)
		_ = msg.Term()
		return
	}
	m := in.Message.message()
	m.ID = localID(in.Message, in.Recipient)
	if m.To != bus.Everyone {
		m.To = in.Recipient
	}
	stored, err := br.b.Publish(ctx, m)
	if err != nil {
		br.log.Warn("cluster: store a delivery", "err", err)
		_ = msg.NakWithDelay(time.Second)
		return
	}
	if m.To == bus.Everyone {
		// A broadcast's deliveries to agents elsewhere are the main
		// swarm's, which made them.
		for _, d := range stored.Deliveries {
			if !br.local[d.Recipient] && d.State == bus.DeliveryQueued {
				if err := br.b.MarkConfirmed(ctx, m.ID, d.Recipient); err != nil {
					br.log.Warn("cluster: settle a broadcast's delivery elsewhere", "err", err)
				}
			}
		}
	}
	br.mu.Lock()
	br.watch[m.ID+"."+in.Recipient] = &watched{localID: m.ID, mainID: in.Message.ID, recipient: in.Recipient, msg: msg}
	br.mu.Unlock()
	br.wake()
}

func (br *bridge) wake() {
	select {
	case br.poke <- struct{}{}:
	default:
	}
}

func (br *bridge) cursorPath() string { return filepath.Join(br.dir, "cluster.cursor") }

// run forwards this host's messages and reports deliveries' ends until
// ctx is done.
func (br *bridge) run(ctx context.Context) {
	wake, unsub := br.b.Subscribe()
	defer unsub()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	lastProgress := time.Now()
	br.forwarded = map[string]bool{}
	cursor := br.readCursor()
	for {
		if c := br.forward(ctx, cursor); c != cursor {
			cursor = c
			if err := writeFileAtomic(br.cursorPath(), []byte(strconv.FormatInt(c, 10)), 0o600); err != nil {
				br.log.Warn("cluster: save cursor", "err", err)
			}
		}
		br.report(ctx)
		if time.Since(lastProgress) > ackWait/3 {
			br.inProgress()
			lastProgress = time.Now()
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-br.poke:
		case <-tick.C:
		}
	}
}

func (br *bridge) readCursor() int64 {
	data, err := os.ReadFile(br.cursorPath())
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return n
}

// forward publishes, in order, the messages this host's agents wrote
// after cursor, and returns the new cursor: past every message that is
// published and whose deliveries on this host have ended and been
// reported (after a restart, the rest is published again, harmlessly).
func (br *bridge) forward(ctx context.Context, cursor int64) int64 {
	msgs, err := br.b.Messages(ctx, cursor, 1000)
	if err != nil {
		if ctx.Err() == nil {
			br.log.Warn("cluster: read messages", "err", err)
		}
		return cursor
	}
	advance := true
	for _, m := range msgs {
		if !br.local[m.From] || hostOnly(m) {
			if advance {
				cursor = m.Seq
			}
			continue
		}
		if !br.forwarded[m.ID] {
			w := toWire(m)
			data, _ := json.Marshal(outbound{Message: &w})
			if _, err := br.js.Publish(ctx, br.space.out(br.host), data, jetstream.WithMsgID(m.ID)); err != nil {
				if ctx.Err() == nil {
					br.log.Warn("cluster: publish to the main swarm", "err", err)
				}
				return cursor
			}
			br.forwarded[m.ID] = true
			br.handedOver(ctx, m)
		}
		br.mu.Lock()
		open := false
		for _, d := range m.Deliveries {
			if _, ok := br.watch[m.ID+"."+d.Recipient]; ok {
				open = true
			}
		}
		br.mu.Unlock()
		if open {
			advance = false
		} else if advance {
			cursor = m.Seq
		}
	}
	return cursor
}

// hostOnly reports whether m is for the host's swarm alone: where an
// agent's turn is (its CLI's hooks) matters to the screen that types into
// it, here.
func hostOnly(m bus.Message) bool { return m.To == bus.Swarm && m.Kind == bus.KindTurn }

// handedOver settles the host-bus deliveries of a message just published:
// those to agents elsewhere are the main swarm's now (confirmed here);
// those to this host's agents are made here and watched to their end.
func (br *bridge) handedOver(ctx context.Context, m bus.Message) {
	for _, d := range m.Deliveries {
		switch {
		case br.local[d.Recipient]:
			br.mu.Lock()
			br.watch[m.ID+"."+d.Recipient] = &watched{localID: m.ID, mainID: m.ID, recipient: d.Recipient}
			br.mu.Unlock()
		case d.Recipient == bus.Human || d.Recipient == bus.Swarm:
		case d.State == bus.DeliveryQueued:
			if err := br.b.MarkConfirmed(ctx, m.ID, d.Recipient); err != nil {
				br.log.Warn("cluster: settle a delivery handed over", "err", err)
			}
		}
	}
}

// report publishes the end of each watched delivery that has ended, then
// acknowledges its JetStream message.
func (br *bridge) report(ctx context.Context) {
	br.mu.Lock()
	ws := make([]*watched, 0, len(br.watch))
	for _, w := range br.watch {
		ws = append(ws, w)
	}
	br.mu.Unlock()
	for _, w := range ws {
		m, err := br.b.Message(ctx, w.localID)
		if err != nil {
			continue
		}
		var d *bus.Delivery
		for i := range m.Deliveries {
			if m.Deliveries[i].Recipient == w.recipient {
				d = &m.Deliveries[i]
			}
		}
		if d == nil || d.State == bus.DeliveryQueued || d.State == bus.DeliveryInjected {
			continue
		}
		data, _ := json.Marshal(outbound{Status: &status{ID: w.mainID, Recipient: w.recipient, State: d.State.String(), Reason: d.Error}})
		if _, err := br.js.Publish(ctx, br.space.out(br.host), data, jetstream.WithMsgID("end."+w.mainID+"."+w.recipient)); err != nil {
			if ctx.Err() == nil {
				br.log.Warn("cluster: report a delivery's end", "err", err)
			}
			return
		}
		if w.msg != nil {
			if err := w.msg.Ack(); err != nil {
				br.log.Warn("cluster: acknowledge a delivery", "err", err)
			}
		}
		br.mu.Lock()
		delete(br.watch, w.localID+"."+w.recipient)
		br.mu.Unlock()
	}
}

// inProgress tells JetStream the deliveries still waiting for a busy
// agent are being worked on, so that it does not send them again.
func (br *bridge) inProgress() {
	br.mu.Lock()
	defer br.mu.Unlock()
	for _, w := range br.watch {
		if w.msg != nil {
			_ = w.msg.InProgress()
		}
	}
}
