package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"swarm/cluster"
	"swarm/supervisor"
)

type inviteCmd struct {
	Config string `short:"c" help:"Config file (its [cluster] says where hosts connect)." default:"swarm.toml" placeholder:"FILE"`
	Name   string `arg:"" help:"The host's name, as agents' host = \"NAME\" gives it."`
	Revoke bool   `help:"End the host's invitation: its URL no longer joins, and a running swarm disconnects it."`
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
		if err := cluster.Revoke(g.busDir(), c.Name); err != nil {
			return err
		}
		fmt.Fprintf(g.stdout, "host %s revoked: its URL no longer joins (swarm invite %s makes a new one)\n", c.Name, c.Name)
		return nil
	}
	u, err := cluster.Invite(g.busDir(), cfg.Cluster.Listen, c.Name)
	if err != nil {
		return err
	}
	fmt.Fprintln(g.stdout, u)
	return nil
}

type hostCmd struct {
	URL     string `arg:"" help:"The join URL swarm invite NAME printed on the main machine."`
	Workdir string `help:"Where this host's agents run (default: the current directory)." placeholder:"DIR"`
}

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
			fmt.Fprintf(g.stderr, "swarm: host %s joined the swarm at %s and runs %s (state in %s; Ctrl-C ends it)\n", u.Host, u.Addr, strings.Join(names, ", "), state)
		}})
}

type hostsCmd struct {
	Config string `short:"c" help:"Config file (its [cluster] says where the swarm listens)." default:"swarm.toml" placeholder:"FILE"`
}

func (c *hostsCmd) Run(g *Globals) error {
	cfg, err := clusterConfig(c.Config)
	if err != nil {
		return err
	}
	hosts, err := cluster.QueryHosts(g.busDir(), cfg.Cluster.Listen)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "HOST\tSTATE\tADDRESS\tAGENTS\tLATENCY")
	for _, h := range hosts {
		state, rtt := "away since "+h.Since.Format(time.DateTime), "-"
		if h.Connected {
			state, rtt = "connected", h.RTT.Round(10*time.Microsecond).String()
		}
		addr := h.Addr
		if addr == "" {
			addr = "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", h.Name, state, addr, strings.Join(h.Agents, ","), rtt)
	}
	return w.Flush()
}
