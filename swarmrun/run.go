// Package swarmrun runs a swarm in this process: it opens the bus, starts
// the supervisor's agents, the cluster's main side when the config has a
// [cluster] table, and serves them all on the bus directory's socket,
// until the caller's body returns; then it stops every agent and says
// what it waits for.
//
// Every running swarm goes through Run: the server that `swarm up`
// starts, `up --headless`, `up --foreground` and the demo. The command
// line says only what runs beside the swarm (a UI, printed events, a wait
// until it is unneeded).
//
// It is a package of its own, not part of server, because it wires the
// runtime's pieces together while server is the socket alone: the socket's
// clients (the attached UI, the command line's requests) link server and
// need none of the cluster's NATS, and cluster imports server (a host
// serves its own agents), so server cannot import cluster. Nor does
// swarmrun: the cluster's start is its caller's (Options.StartCluster), so
// that a server binary without [cluster] links no NATS (cmd/swarm-server).
//
// The order is the rule here. The bus directory's lock comes first (only
// its holder may replace the socket file), then the socket, which listens
// and greets at once but holds every request (server.Options.Held) until
// the agents have started and the cluster is up: an agent that calls
// swarm as soon as it starts finds the socket and waits for an answer
// rather than retrying, and no request is answered about agents that do
// not exist yet. At the end the agents stop first and the socket closes
// last, so a client that asked to stop learns that the swarm has stopped
// when its connection ends.
package swarmrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"swarm/bus"
	"swarm/server"
	"swarm/supervisor"
	"swarm/swarmapi"
)

// Options say what swarm to run and where.
type Options struct {
	// BusDir is the bus directory (.swarm); it is made if missing.
	BusDir string
	// Supervisor is the swarm: its Config (whose Cluster table starts
	// the cluster), Pace and the rest. Run sets its Bus and Log.
	Supervisor supervisor.Options
	// Program names this swarm on its socket ("swarm 1.2.3").
	Program string
	// Stderr is where the person running the swarm is told what it is
	// waiting for, and that its socket could not listen.
	Stderr io.Writer
	// StartCluster starts the cluster's main side of a config with a
	// [cluster] table (cli passes the cluster package's); nil refuses
	// such a config.
	StartCluster StartCluster
}

// StartCluster starts the main side of cfg's cluster on b. actAs makes the
// requests hosts send for their agents as the swarm's socket would (nil
// when the swarm has no socket).
type StartCluster func(ctx context.Context, cfg *supervisor.Config, b *bus.Bus, log *slog.Logger, actAs ActAs) (Cluster, error)

// ActAs makes a request of the socket's protocol as agent
// (server.Server.ActAs).
type ActAs func(ctx context.Context, agent, method string, params json.RawMessage) (json.RawMessage, error)

// Cluster is a running cluster's main side, as Run needs it: the agents
// elsewhere, their events and its end.
type Cluster interface {
	server.Elsewhere
	// Addr is where hosts reach it, for the log.
	Addr() string
	// Watch calls fn with the hosts' agents' events until stop.
	Watch(fn func(swarmapi.Event)) (stop func())
	Close()
}

// Swarm is a running swarm, as Run hands it to its body.
type Swarm struct {
	Supervisor *supervisor.Supervisor
	// Subscription was subscribed before the agents started: it holds
	// every event of theirs.
	Subscription *supervisor.Subscription
	// Log writes swarm.log in the bus directory.
	Log *slog.Logger
	// Elsewhere runs the agents of the cluster's hosts (nil without
	// [cluster]); their events come on Subscription with the others.
	Elsewhere server.Elsewhere
	srv       *server.Server // its socket; nil when it has none
}

// Unneeded returns a channel closed once every agent has ended and no UI
// has been attached for after (server.Server.Unneeded). A swarm whose
// socket could not listen returns nil: no UI can come, and nothing ends it
// but its context.
func (sw *Swarm) Unneeded(after time.Duration) <-chan struct{} {
	if sw.srv == nil {
		return nil
	}
	return sw.srv.Unneeded(after)
}

// Run runs the swarm of opts and calls body with it. body's context ends
// when the swarm is to stop: parent ends, a client of its socket asked (swarm
// stop), or its bus file was removed or replaced. Every agent is stopped
// before Run returns.
func Run(parent context.Context, opts Options, body func(context.Context, *Swarm) error) error {
	b, err := bus.Open(bus.Options{Dir: opts.BusDir})
	if err != nil {
		return err
	}
	defer b.Close()
	logFile, err := os.OpenFile(filepath.Join(b.Dir(), "swarm.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer logFile.Close()
	sopts := opts.Supervisor
	sopts.Bus = b
	level := slog.LevelInfo
	if os.Getenv("SWARM_DEBUG") != "" {
		level = slog.LevelDebug // what delivery saw on agents' screens
	}
	log := slog.New(slog.NewTextHandler(logFile, &slog.HandlerOptions{Level: level}))
	sopts.Log = log
	sup, err := supervisor.New(sopts)
	if err != nil {
		return err
	}
	sub := sup.Subscribe()
	defer sub.Close()
	if err := sup.Lock(); err != nil {
		return err
	}
	ctx, stop := context.WithCancel(parent)
	defer stop()
	srv := listen(b, sup, sopts.Config, opts, log, stop)
	if srv != nil {
		defer srv.Close()
	}
	if err := sup.Start(parent); err != nil {
		return err // Start has let the lock go
	}
	// A bus file removed or replaced under the swarm (its directory
	// deleted, say) ends it: what it would write reaches nobody.
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-b.Lost():
			log.Error("stopping", "err", b.Err())
			stop()
		case <-ctx.Done():
		}
	}()
	defer func() { stop(); <-watched }()
	log.Info("swarm started", "agents", len(sopts.Config.Agents), "pid", os.Getpid())
	var elsewhere server.Elsewhere // the agents of the cluster's hosts
	if sopts.Config.Cluster != nil {
		var actAs ActAs // what hosts send for their agents (swarm task inside one)
		if srv != nil {
			actAs = srv.ActAs
		}
		cl, err := startCluster(parent, opts.StartCluster, sopts.Config, b, log, actAs)
		if err != nil {
			_ = sup.Shutdown(context.WithoutCancel(parent))
			return err
		}
		defer cl.Close()
		log.Info("cluster listening", "addr", cl.Addr())
		elsewhere = cl
		defer cl.Watch(sup.Tell)() // the hosts' agents' events, told with the swarm's own
	}
	if srv != nil {
		srv.Open(elsewhere)
	}
	bodyErr := body(ctx, &Swarm{Supervisor: sup, Subscription: sub, Log: log, Elsewhere: elsewhere, srv: srv})
	sayStopping(opts.Stderr, sup)
	shutdownErr := sup.Shutdown(context.WithoutCancel(parent))
	log.Info("swarm stopped")
	if err := b.Err(); err != nil {
		return fmt.Errorf("%w: stopped every agent and ended", err)
	}
	return errors.Join(bodyErr, shutdownErr)
}

// startCluster starts cfg's cluster with start, which a caller without
// one (a server binary that links no NATS) leaves nil.
func startCluster(ctx context.Context, start StartCluster, cfg *supervisor.Config, b *bus.Bus, log *slog.Logger, actAs ActAs) (Cluster, error) {
	if start == nil {
		return nil, fmt.Errorf("%s has a [cluster] table and this program does not run clusters: run it with swarm", cfg.Path)
	}
	return start(ctx, cfg, b, log, actAs)
}

// listen opens the swarm's socket, held until its agents have started. The
// socket lets other programs ask this swarm (swarm peek); a swarm without
// one still runs its agents, so a socket that cannot listen is said, and
// nil returned.
func listen(b *bus.Bus, sup *supervisor.Supervisor, cfg *supervisor.Config, opts Options, log *slog.Logger, stop func()) *server.Server {
	projectDir, _ := os.Getwd()
	if cfg.Path != "" {
		projectDir = filepath.Dir(cfg.Path)
	}
	srv, err := server.Listen(b.Dir(), sup, server.Options{Program: opts.Program, Dir: projectDir, Log: log, Stop: stop, Bus: b, Held: true})
	if err != nil {
		log.Warn("no socket", "err", err)
		fmt.Fprintf(opts.Stderr, "swarm: %v (swarm peek cannot reach this swarm)\n", err)
		return nil
	}
	return srv
}

// sayStopping says how many agents are being stopped: a program that
// ignores SIGTERM (an interactive shell does) holds the stop up for the
// grace period, and the person should know what swarm is waiting for.
func sayStopping(w io.Writer, sup *supervisor.Supervisor) {
	if line := Stopping(sup); line != "" {
		fmt.Fprintf(w, "swarm: %s\n", line)
	}
}

// Stopping is what a swarm about to stop sup's agents tells the person
// (a cluster host says it too): how many run, and the grace they get; ""
// when none runs.
func Stopping(sup *supervisor.Supervisor) string {
	running := 0
	for _, a := range sup.Agents() {
		if a.State == swarmapi.StateRunning {
			running++
		}
	}
	switch {
	case running == 1:
		return fmt.Sprintf("stopping 1 running agent (killed if still running after %s)", sup.StopGrace())
	case running > 1:
		return fmt.Sprintf("stopping %d running agents (any still running after %s is killed)", running, sup.StopGrace())
	}
	return ""
}
