package cluster

import (
	"context"
	"crypto/subtle"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"swarm/bus"
	"swarm/supervisor"
	"swarm/swarmapi"
	"swarm/wire"
)

// MainOptions configure the main swarm's side of a cluster.
type MainOptions struct {
	Config *supervisor.Config // with Cluster set
	Bus    *bus.Bus
	Log    *slog.Logger
}

// Main is the main swarm's side: the embedded NATS server, the consumer
// of what hosts send and the forwarder of deliveries to their agents.
type Main struct {
	opts  MainOptions
	dir   string
	space space // its streams' and subjects' names
	ns    *server.Server
	nc    *nats.Conn
	js    jetstream.JetStream
	log   *slog.Logger
	agent map[string]supervisor.AgentConfig // every agent of the config, by name

	cancel context.CancelFunc
	wg     sync.WaitGroup
	cc     jetstream.ConsumeContext

	mu    sync.Mutex
	hosts map[string]*HostInfo

	remote remotePanes
	act    ActFunc // makes the requests hosts send for their agents (ActFor)
}

// StartMain starts the embedded NATS server at opts.Config.Cluster.Listen
// (TLS, JetStream stored in .swarm/cluster/jetstream) and the loops that
// carry messages to and from the hosts. Close ends them.
func StartMain(ctx context.Context, opts MainOptions) (*Main, error) {
	if opts.Config == nil || opts.Config.Cluster == nil || opts.Bus == nil {
		return nil, errors.New("cluster: a config with [cluster] and a bus are required")
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	m := &Main{opts: opts, dir: Dir(opts.Bus.Dir()), log: opts.Log, agent: map[string]supervisor.AgentConfig{}, hosts: map[string]*HostInfo{},
		remote: remotePanes{infos: map[string]swarmapi.AgentInfo{}, held: map[string]*heldView{}, sizes: map[string]termSize{}, watchers: map[int]func(swarmapi.Event){}}}
	for _, a := range opts.Config.Agents {
		m.agent[a.Name] = a
		if a.Host != "" {
			h := m.host(a.Host)
			h.Agents = append(h.Agents, a.Name)
		}
	}
	var err error
	if m.space, err = spaceOf(m.dir, *opts.Config.Cluster); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	if c := opts.Config.Cluster; c.NATS != "" {
		m.nc, err = nats.Connect(c.NATS, nats.Name("swarm main"), nats.Timeout(5*time.Second),
			nats.MaxReconnects(-1), nats.ReconnectWait(time.Second))
		if err != nil {
			return nil, fmt.Errorf("cluster: the NATS server at %s: %v", redacted(c.NATS), err)
		}
	} else if err := m.embed(); err != nil {
		return nil, err
	}
	if err := m.setUp(ctx); err != nil {
		m.Close()
		return nil, fmt.Errorf("cluster: %w", err)
	}
	return m, nil
}

// embed starts the NATS server the main swarm embeds, at [cluster]
// listen, and connects to it.
func (m *Main) embed() error {
	cert, err := loadOrMakeCert(m.dir)
	if err != nil {
		return err
	}
	admin, err := adminSecret(m.dir)
	if err != nil {
		return err
	}
	listen := m.opts.Config.Cluster.Listen
	host, portText, _ := net.SplitHostPort(listen)
	port, _ := strconv.Atoi(portText)
	if host == "" {
		host = "0.0.0.0"
	}
	ns, err := server.NewServer(&server.Options{
		ServerName: "swarm", Host: host, Port: port,
		JetStream: true, StoreDir: filepath.Join(m.dir, streamDir),
		TLS: true, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		TLSTimeout:                 5,
		CustomClientAuthentication: &authenticator{m: m, admin: admin},
		NoSigs:                     true, NoLog: true, DontListen: false,
	})
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return fmt.Errorf("cluster: cannot listen at %s (is the port in use?)", listen)
	}
	m.ns = ns
	m.nc, err = nats.Connect("", nats.InProcessServer(ns), nats.UserInfo(adminUser, admin), nats.Name("swarm main"))
	if err != nil {
		ns.Shutdown()
		return fmt.Errorf("cluster: %w", err)
	}
	return nil
}

// redacted is a NATS URL (or several) without the passwords in it.
func redacted(urls string) string {
	var out []string
	for _, one := range strings.Split(urls, ",") {
		if u, err := url.Parse(strings.TrimSpace(one)); err == nil {
			one = u.Redacted()
		}
		out = append(out, one)
	}
	return strings.Join(out, ",")
}

// Addr is the address the embedded server listens at, or the existing
// NATS server's URL (without its password).
func (m *Main) Addr() string {
	if m.ns == nil {
		return redacted(m.opts.Config.Cluster.NATS)
	}
	return m.ns.Addr().String()
}

func (m *Main) host(name string) *HostInfo {
	h, ok := m.hosts[name]
	if !ok {
		h = &HostInfo{Name: name, Since: time.Now()}
		m.hosts[name] = h
	}
	return h
}

func (m *Main) setUp(ctx context.Context) error {
	js, err := jetstream.New(m.nc)
	if err != nil {
		return err
	}
	m.js = js
	for name, subject := range map[string]string{m.space.outStream(): m.space.out("*"), m.space.inStream(): m.space.in("*")} {
		_, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
			Name: name, Subjects: []string{subject}, Retention: jetstream.WorkQueuePolicy,
			Storage: jetstream.FileStorage, Duplicates: dupWindow,
		})
		if err != nil {
			return fmt.Errorf("stream %s: %w", name, err)
		}
	}
	for name := range m.hosts {
		if err := m.ensureHostConsumer(ctx, name); err != nil {
			return err
		}
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, m.space.outStream(), jetstream.ConsumerConfig{
		Durable: mainConsumer, AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait, MaxDeliver: -1,
	})
	if err != nil {
		return fmt.Errorf("consumer %s: %w", mainConsumer, err)
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m.cancel = cancel
	if m.cc, err = cons.Consume(func(msg jetstream.Msg) { m.received(runCtx, msg) }); err != nil {
		return err
	}
	if _, err := m.nc.Subscribe(m.space.definitions("*"), m.definitions); err != nil {
		return err
	}
	if _, err := m.nc.Subscribe(m.space.adminHosts(), m.hostsRequest); err != nil {
		return err
	}
	if _, err := m.nc.Subscribe(m.space.state("*"), m.told); err != nil {
		return err
	}
	if _, err := m.nc.Subscribe(m.space.actor("*"), m.actFor); err != nil {
		return err
	}
	// Subscribe only queues the interest for the server; a host's request
	// that reaches the server first gets "no responders". Started means
	// the server has them.
	if err := m.nc.Flush(); err != nil {
		return fmt.Errorf("subscribe: %w", err)
	}
	m.wg.Add(2)
	go func() { defer m.wg.Done(); m.forward(runCtx) }()
	go func() { defer m.wg.Done(); m.ping(runCtx) }()
	return nil
}

func (m *Main) ensureHostConsumer(ctx context.Context, name string) error {
	_, err := m.js.CreateOrUpdateConsumer(ctx, m.space.inStream(), jetstream.ConsumerConfig{
		Durable: hostConsumer(name), FilterSubject: m.space.in(name), AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: ackWait, MaxDeliver: -1, MaxAckPending: 10_000,
	})
	if err != nil {
		return fmt.Errorf("consumer for host %s: %w", name, err)
	}
	return nil
}

// Close stops the loops and the server. What is in the streams stays in
// the store for the next start.
func (m *Main) Close() {
	if m.cc != nil {
		m.cc.Stop()
	}
	if m.cancel != nil {
		m.cancel()
	}
	m.wg.Wait()
	if m.nc != nil {
		m.nc.Close()
	}
	if m.ns != nil {
		m.ns.Shutdown()
		m.ns.WaitForShutdown()
	}
}

// received commits what a host sent: a message of one of its agents, or
// the end of a delivery to one of them.
func (m *Main) received(ctx context.Context, msg jetstream.Msg) {
	host := m.space.hostOf("out", msg.Subject())
	var o outbound
	if err := json.Unmarshal(msg.Data(), &o); err != nil || (o.Message == nil) == (o.Status == nil) {
		m.log.Warn("cluster: unreadable entry from host", "host", host, "err", err)
		_ = msg.Term()
		return
	}
	var err error
	switch {
	case o.Message != nil:
		if a, ok := m.agent[o.Message.From]; !ok || a.Host != host {
			m.log.Warn("cluster: refused a message from a host for an agent it does not run", "host", host, "from", o.Message.From)
			_ = msg.Term()
			return
		}
		_, err = m.opts.Bus.Publish(ctx, o.Message.message())
	case o.Status != nil:
		if a, ok := m.agent[o.Status.Recipient]; !ok || a.Host != host {
			m.log.Warn("cluster: refused a delivery's end from a host for an agent it does not run", "host", host, "recipient", o.Status.Recipient)
			_ = msg.Term()
			return
		}
		err = m.record(ctx, *o.Status)
	}
	if err != nil {
		m.log.Warn("cluster: commit what a host sent", "host", host, "err", err)
		_ = msg.NakWithDelay(time.Second)
		return
	}
	_ = msg.Ack()
}

// record writes the end of a delivery a host made.
func (m *Main) record(ctx context.Context, s status) error {
	st, err := bus.ParseDeliveryState(s.State)
	if err != nil {
		return err
	}
	b := m.opts.Bus
	switch st {
	case bus.DeliveryConfirmed:
		return b.MarkConfirmed(ctx, s.ID, s.Recipient)
	case bus.DeliveryUnconfirmed:
		return b.MarkUnconfirmed(ctx, s.ID, s.Recipient, s.Reason)
	case bus.DeliveryFailed, bus.DeliveryExpired:
		return b.MarkFailed(ctx, s.ID, s.Recipient, "on host: "+s.State+" "+s.Reason)
	default:
		return fmt.Errorf("delivery state %q is not an end", s.State)
	}
}

// forward publishes each pending delivery to an agent of a host on its
// host's subject (a retry is harmless: the id dedupes it). It follows the
// bus's new messages from a cursor, one read per change however many
// agents the hosts run, and sweeps every remote agent's pending messages
// at its start and every rescan, for what the cursor cannot see (a
// publish that failed). A message whose author runs on the same host was
// delivered there; the host reports its end.
func (m *Main) forward(ctx context.Context) {
	wake, unsub := m.opts.Bus.Subscribe()
	defer unsub()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	cursor, err := m.opts.Bus.LastSeq(ctx)
	if err != nil && ctx.Err() == nil {
		m.log.Warn("cluster: the bus's last message", "err", err)
	}
	var lastSweep time.Time
	for {
		if time.Since(lastSweep) >= rescan {
			if m.sweep(ctx) {
				lastSweep = time.Now()
			}
		}
		cursor = m.follow(ctx, cursor)
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-tick.C:
		}
	}
}

// rescan is how often the forwarder sweeps every remote agent's pending
// messages.
const rescan = 30 * time.Second

// sendTo publishes msg for recipient on its host's subject, unless its
// author runs on that host.
func (m *Main) sendTo(ctx context.Context, msg bus.Message, recipient string) error {
	a, ok := m.agent[recipient]
	if !ok || a.Host == "" {
		return nil
	}
	if from, ok := m.agent[msg.From]; ok && from.Host == a.Host {
		return nil
	}
	data, _ := json.Marshal(inbound{Message: toWire(msg), Recipient: recipient})
	_, err := m.js.Publish(ctx, m.space.in(a.Host), data, jetstream.WithMsgID(msg.ID+"."+recipient))
	if err != nil && ctx.Err() == nil {
		m.log.Warn("cluster: forward to host", "host", a.Host, "err", err)
	}
	return err
}

// follow forwards the deliveries to remote agents of the messages after
// cursor, in order, and returns the cursor past those it forwarded.
func (m *Main) follow(ctx context.Context, cursor int64) int64 {
	for {
		msgs, err := m.opts.Bus.Messages(ctx, cursor, 500)
		if err != nil {
			if ctx.Err() == nil {
				m.log.Warn("cluster: read new messages", "err", err)
			}
			return cursor
		}
		for _, msg := range msgs {
			for _, d := range msg.Deliveries {
				if d.State != bus.DeliveryQueued {
					continue
				}
				if err := m.sendTo(ctx, msg, d.Recipient); err != nil {
					return cursor
				}
			}
			cursor = msg.Seq
		}
		if len(msgs) < 500 {
			return cursor
		}
	}
}

// sweep forwards every pending delivery to a remote agent; it reports
// whether all went.
func (m *Main) sweep(ctx context.Context) bool {
	for _, a := range m.opts.Config.Agents {
		if a.Host == "" {
			continue
		}
		msgs, err := m.opts.Bus.Pending(ctx, a.Name, 1000)
		if err != nil {
			if ctx.Err() == nil {
				m.log.Warn("cluster: pending deliveries", "agent", a.Name, "err", err)
			}
			return false
		}
		for _, msg := range msgs {
			if err := m.sendTo(ctx, msg, a.Name); err != nil {
				return false
			}
		}
	}
	return true
}

// ping measures each host's round trip every couple of seconds; a host
// that does not answer is away.
func (m *Main) ping(ctx context.Context) {
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	first := true
	for {
		m.mu.Lock()
		names := make([]string, 0, len(m.hosts))
		for n := range m.hosts {
			names = append(names, n)
		}
		m.mu.Unlock()
		m.disconnectRevoked()
		addrs := m.addrs()
		for _, n := range names {
			start := time.Now()
			_, err := m.nc.Request(m.space.ping(n), nil, 2*time.Second)
			rtt := time.Since(start)
			m.mu.Lock()
			h := m.host(n)
			changed := false
			if up := err == nil; up != h.Connected || first {
				h.Connected, h.Since, changed = up, time.Now(), true
			}
			if err == nil {
				h.RTT, h.Addr = rtt, addrs[n]
			}
			info := *h
			m.mu.Unlock()
			if changed {
				m.recordAgents(ctx, info)
				m.redraw(n)
			}
		}
		first = false
		m.resizeBack()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// recordAgents says on the bus where a host's agents are (swarm status):
// on a connected host, or on one away since when.
func (m *Main) recordAgents(ctx context.Context, h HostInfo) {
	why := "on host " + h.Name + ", connected"
	if !h.Connected {
		why = "on host " + h.Name + ", away since " + h.Since.Format(time.DateTime)
	}
	for _, a := range h.Agents {
		if err := m.opts.Bus.SetAgentState(ctx, a, bus.AgentStatus{State: bus.AgentRemote, Reason: why}); err != nil && ctx.Err() == nil {
			m.log.Warn("cluster: record a remote agent's state", "agent", a, "err", err)
		}
	}
}

// disconnectRevoked ends the connections of hosts whose invitation was
// revoked (swarm invite --revoke): they cannot connect again.
func (m *Main) disconnectRevoked() {
	if m.ns == nil { // an existing NATS's own configuration says who connects
		return
	}
	secrets, err := hostSecrets(m.dir)
	if err != nil {
		return
	}
	cz, err := m.ns.Connz(&server.ConnzOptions{Username: true})
	if err != nil {
		return
	}
	for _, c := range cz.Conns {
		if _, ok := secrets[c.AuthorizedUser]; !ok && c.AuthorizedUser != "" && c.AuthorizedUser != adminUser {
			m.log.Warn("cluster: disconnected a revoked host", "host", c.AuthorizedUser)
			_ = m.ns.DisconnectClientByID(c.Cid)
		}
	}
}

// addrs is where each host's connection comes from, by host name.
func (m *Main) addrs() map[string]string {
	out := map[string]string{}
	if m.ns == nil { // an existing NATS does not tell its clients' addresses
		return out
	}
	cz, err := m.ns.Connz(&server.ConnzOptions{Username: true})
	if err != nil {
		return out
	}
	for _, c := range cz.Conns {
		if c.AuthorizedUser != "" && c.AuthorizedUser != adminUser {
			out[c.AuthorizedUser] = net.JoinHostPort(c.IP, strconv.Itoa(c.Port))
		}
	}
	return out
}

// Hosts returns the hosts this swarm knows, by name.
func (m *Main) Hosts() []HostInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]HostInfo, 0, len(m.hosts))
	for _, h := range m.hosts {
		out = append(out, *h)
	}
	slices.SortFunc(out, func(a, b HostInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func (m *Main) hostsRequest(msg *nats.Msg) {
	data, _ := json.Marshal(m.Hosts())
	_ = msg.Respond(data)
}

// definitions answers a host's request for its agents.
func (m *Main) definitions(msg *nats.Msg) {
	host := m.space.hostOf("agents", msg.Subject)
	d := definitions{Project: supervisor.ProjectDir(m.opts.Config), Protocol: wire.Version}
	var ask definitionsRequest
	_ = json.Unmarshal(msg.Data, &ask) // an empty request is a host from before versions: protocol 0
	if ask.Protocol != wire.Version {
		d.Error = protocolMismatch(ask.Protocol, wire.Version)
		m.log.Warn("cluster: refused a host of another protocol", "host", host, "protocol", ask.Protocol)
		data, _ := json.Marshal(d)
		_ = msg.Respond(data)
		return
	}
	for _, a := range m.opts.Config.Agents {
		if a.Host == host {
			d.Agents = append(d.Agents, a)
		} else {
			d.Others = append(d.Others, peer{Name: a.Name, Host: a.Host, NoMessages: a.NoMessages})
		}
	}
	if len(d.Agents) == 0 {
		d.Error = fmt.Sprintf("the main swarm's swarm.toml gives host %s no agents (add host = %q to an [[agent]])", host, host)
	} else if err := m.ensureHostConsumerWithin(host); err != nil {
		d.Error = err.Error()
	}
	data, _ := json.Marshal(d)
	_ = msg.Respond(data)
}

// authenticator lets in the main swarm's own connections (the admin
// secret) and each invited host with its secret, allowed only its own
// subjects.
type authenticator struct {
	m     *Main
	admin string
}

func (a *authenticator) Check(c server.ClientAuthentication) bool {
	o := c.GetOpts()
	if o.Username == adminUser {
		if subtle.ConstantTimeCompare([]byte(o.Password), []byte(a.admin)) != 1 {
			a.m.log.Warn("cluster: refused a connection with a wrong admin secret", "addr", addrOf(c))
			return false
		}
		c.RegisterUser(&server.User{Username: adminUser})
		return true
	}
	secrets, err := hostSecrets(a.m.dir)
	if err != nil {
		a.m.log.Warn("cluster: read hosts", "err", err)
		return false
	}
	want, ok := secrets[o.Username]
	if !ok || subtle.ConstantTimeCompare([]byte(o.Password), []byte(want)) != 1 {
		why := "wrong secret"
		if !ok {
			why = "not invited (swarm invite NAME)"
		}
		a.m.log.Warn("cluster: refused host: "+why, "host", o.Username, "addr", addrOf(c))
		return false
	}
	c.RegisterUser(&server.User{Username: o.Username, Permissions: a.m.space.hostPermissions(o.Username)})
	return true
}

func addrOf(c server.ClientAuthentication) string {
	if a := c.RemoteAddress(); a != nil {
		return a.String()
	}
	return ""
}

// hostPermissions: a host publishes only its own outbound subject and
// requests, takes only its own consumer's messages and answers pings.
func (s space) hostPermissions(h string) *server.Permissions {
	js, in := "$JS.API.CONSUMER.", s.inStream()
	return &server.Permissions{
		Publish: &server.SubjectPermission{Allow: []string{
			s.out(h), s.definitions(h), s.state(h), s.actor(h),
			js + "INFO." + in + "." + hostConsumer(h),
			js + "MSG.NEXT." + in + "." + hostConsumer(h),
			"$JS.ACK." + in + "." + hostConsumer(h) + ".>",
		}},
		Subscribe: &server.SubjectPermission{Allow: []string{"_INBOX.>", s.ping(h), s.agent(h)}},
		Response:  &server.ResponsePermission{MaxMsgs: 1, Expires: time.Minute},
	}
}

func (m *Main) ensureHostConsumerWithin(host string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return m.ensureHostConsumer(ctx, host)
}
