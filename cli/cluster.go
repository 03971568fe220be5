package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"swarm/bus"
	"swarm/cluster"
	"swarm/supervisor"
	"swarm/swarmrun"
)

type inviteCmd struct {
	Config string `short:"c" help:"Config file (its [cluster] says where hosts connect)." default:"swarm.toml" placeholder:"FILE"`
	Name   string `arg:"" help:"The host's name, as agents' host = \"NAME\" gives it."`
	Revoke bool   `help:"End the host's invitation: its URL no longer joins, and a running swarm disconnects it."`
}

// startCluster starts the main side of cfg's cluster, for swarmrun.Run
// (swarmrun does not link the cluster's NATS: a server without it is
// smaller).
func startCluster(ctx context.Context, cfg *supervisor.Config, b *bus.Bus, log *slog.Logger, actAs swarmrun.ActAs) (swarmrun.Cluster, error) {
	cl, err := cluster.StartMain(ctx, cluster.MainOptions{Config: cfg, Bus: b, Log: log})
	if err != nil {
		return nil, err
	}
	if actAs != nil {
		cl.ActFor(cluster.ActFunc(actAs))
	}
	return cl, nil
}

// clusterConfig loads the config and its [cluster] table.
func clusterConfig(path string) (*supervisor.Config, error) {
	cfg, err := supervisor.LoadConfig(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no %s here: run this in the main swarm's directory, or pass --config FILE", path)
	}
	if err != nil {
		return nil, err
	}
	if cfg.Cluster == nil {
		return nil, fmt.Errorf("%s has no [cluster] table: add [cluster] listen = \"0.0.0.0:7422\" (where hosts connect) first", path)
	}
	return cfg, nil
}

func (c *inviteCmd) Run(g *Globals) error {
	cfg, err := clusterConfig(c.Config)
	if err != nil {
		return err
	}
	if err := supervisor.CheckHostName(c.Name); err != nil {
		return usageError("%v", err)
	}
	if c.Revoke {
		if cfg.Cluster.NATS != "" {
			return fmt.Errorf("with [cluster] nats, who may connect is that NATS server's own configuration (its users and permissions): revoke host %s's credentials there", c.Name)
		}
		if err := cluster.Revoke(g.busDir(), c.Name); err != nil {
			return err
		}
		fmt.Fprintf(g.stdout, "host %s revoked: its URL no longer joins (swarm invite %s makes a new one)\n", c.Name, c.Name)
		return nil
	}
	u, err := cluster.Invite(g.busDir(), *cfg.Cluster, c.Name)
	if err != nil {
		return err
	}
	fmt.Fprintln(g.stdout, u)
	return nil
}

type hostCmd struct {
	URL     string `arg:"" help:"The join URL swarm invite NAME printed on the main machine."`
	Workdir string `help:"Where this host's agents run (default: the current directory)." placeholder:"DIR"`
	Server  bool   `help:"Run in the background, detached from this terminal, once joined; its pid goes to DIR/host.pid and what it prints to DIR/host.out."`
}

// hostPidFile is where a host writes its pid once it joined.
const hostPidFile = "host.pid"

func (c *hostCmd) Run(g *Globals) error {
	u, err := cluster.ParseJoinURL(c.URL)
	if err != nil {
		return usageError("%v", err)
	}
	state := g.Dir
	if state == "" {
		state = ".swarm-host"
	}
	workdir := c.Workdir
	if workdir == "" {
		workdir = "."
	}
	if workdir, err = filepath.Abs(workdir); err != nil {
		return err
	}
	if err := os.MkdirAll(state, 0o700); err != nil {
		return err
	}
	pidPath := filepath.Join(state, hostPidFile)
	if c.Server {
		return c.detach(g, u.Host, state, workdir, pidPath)
	}
	defer os.Remove(pidPath)
	logFile, err := os.OpenFile(filepath.Join(state, "swarm.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer logFile.Close()
	return cluster.RunHost(g.ctx, cluster.HostOptions{URL: u, Dir: state, Workdir: workdir,
		Log: slog.New(slog.NewTextHandler(logFile, nil)),
		Waiting: func(err error) {
			fmt.Fprintf(g.stderr, "swarm: waiting for the main swarm (%v); trying every second\n", err)
		},
		Started: func(sup *supervisor.Supervisor) {
			var names []string
			for _, a := range sup.Agents() {
				names = append(names, a.Name)
			}
			if err := os.WriteFile(pidPath, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
				fmt.Fprintf(g.stderr, "swarm: %v\n", err)
			}
			fmt.Fprintf(g.stderr, "swarm: host %s joined the swarm (%s) and runs %s (state in %s; Ctrl-C ends it)\n", u.Host, u.Where(), strings.Join(names, ", "), state)
		},
		Stopping: func(sup *supervisor.Supervisor) {
			if line := swarmrun.Stopping(sup); line != "" {
				fmt.Fprintf(g.stderr, "swarm: host %s: %s\n", u.Host, line)
			}
		}})
}

// detach runs the host in a process of its own, in a session of its own,
// and returns once it joined (its pid file written) or ended.
func (c *hostCmd) detach(g *Globals, host, state, workdir, pidPath string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	_ = os.Remove(pidPath)
	outPath := filepath.Join(state, "host.out")
	out, err := os.OpenFile(outPath, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer out.Close()
	cmd := exec.Command(exe, "host", c.URL, "--dir", state, "--workdir", workdir)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for {
		if _, err := os.Stat(pidPath); err == nil {
			fmt.Fprintf(g.stdout, "host %s runs in the background (pid %d); it prints to %s; kill %d ends it\n", host, cmd.Process.Pid, outPath, cmd.Process.Pid)
			return nil
		}
		select {
		case werr := <-exited:
			return fmt.Errorf("the host ended (%v): %s", werr, strings.TrimPrefix(lastLine(outPath), "swarm: "))
		case <-g.ctx.Done():
			_ = cmd.Process.Signal(syscall.SIGTERM)
			return g.ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

type hostsCmd struct {
	Config string `short:"c" help:"Config file (its [cluster] says where the swarm listens)." default:"swarm.toml" placeholder:"FILE"`
}

func (c *hostsCmd) Run(g *Globals) error {
	cfg, err := clusterConfig(c.Config)
	if err != nil {
		return err
	}
	hosts, err := cluster.QueryHosts(g.busDir(), *cfg.Cluster)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "HOST\tSTATE\tADDRESS\tAGENTS\tLATENCY")
	for _, h := range hosts {
		state, rtt, addr := "away since "+h.Since.Format(time.DateTime), "-", h.Addr
		switch {
		case h.Connected:
			state, rtt = "connected", h.RTT.Round(10*time.Microsecond).String()
		case addr == "":
			// No address: it has not connected since the main swarm
			// started (away since then would say it had).
			state, addr = "not joined yet", "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", h.Name, state, addr, strings.Join(h.Agents, ","), rtt)
	}
	return w.Flush()
}
