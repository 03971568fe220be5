package supervisor

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestClusterConfig: [cluster] listen and an agent's host are read; an
// agent with a host is still an agent of the file (messages queue for it).
func TestClusterConfig(t *testing.T) {
	t.Parallel()
	src := "[cluster]\nlisten = \"0.0.0.0:7422\"\n\n[[agent]]\nname = \"lead\"\ncmd = \"sh\"\n\n[[agent]]\nname = \"builder\"\ncmd = \"sh\"\nhost = \"buildbox\"\n"
	cfg, err := ParseConfig(filepath.Join(t.TempDir(), DefaultConfigFile), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Cluster == nil || cfg.Cluster.Listen != "0.0.0.0:7422" {
		t.Fatalf("cluster = %+v", cfg.Cluster)
	}
	if cfg.Agents[0].Host != "" || cfg.Agents[1].Host != "buildbox" {
		t.Errorf("hosts = %q, %q", cfg.Agents[0].Host, cfg.Agents[1].Host)
	}
	noCluster, err := ParseConfig(filepath.Join(t.TempDir(), DefaultConfigFile), []byte("[[agent]]\nname = \"lead\"\ncmd = \"sh\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if noCluster.Cluster != nil {
		t.Errorf("a file without [cluster] has %+v: something would listen", noCluster.Cluster)
	}
	existing, err := ParseConfig(filepath.Join(t.TempDir(), DefaultConfigFile), []byte("[cluster]\nnats = \"nats://u:p@nats.example:4222\"\n\n[[agent]]\nname = \"builder\"\ncmd = \"sh\"\nhost = \"buildbox\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c := existing.Cluster; c == nil || c.NATS != "nats://u:p@nats.example:4222" || c.Listen != "" {
		t.Errorf("[cluster] nats read as %+v", c)
	}
}

func TestClusterConfigErrors(t *testing.T) {
	t.Parallel()
	const agent = "[[agent]]\nname = \"alice\"\ncmd = \"sh\"\n" // lines 1-3
	cases := []struct{ name, src, want string }{
		{"host without cluster", agent + "host = \"buildbox\"\n",
			`swarm.toml:4: agent "alice": host = "buildbox" needs a [cluster] table (listen = "HOST:PORT" or nats = "nats://…") for its host to connect to`},
		{"host with a dot", "[cluster]\nlisten = \":7422\"\n" + agent + "host = \"build.box\"\n",
			`swarm.toml:6: agent "alice": host: host name "build.box" is not valid: use 1 to 64 letters, digits, '_' or '-', starting with a letter or digit`},
		{"host not a string", "[cluster]\nlisten = \":7422\"\n" + agent + "host = 3\n",
			`swarm.toml:6: agent "alice": host must be a host's name, not the number 3`},
		{"listen missing", "[cluster]\n" + agent,
			`swarm.toml:1: [cluster] needs listen = "HOST:PORT", the address hosts connect to (such as "0.0.0.0:7422"), or nats = "nats://HOST:PORT", an existing NATS server with JetStream`},
		{"listen and nats", "[cluster]\nlisten = \":7422\"\nnats = \"nats://h:4222\"\n" + agent,
			`swarm.toml:3: [cluster] has both listen and nats: listen is for the NATS server swarm embeds, nats for an existing one; keep one`},
		{"nats not a URL", "[cluster]\nnats = \"h:4222\"\n" + agent,
			`swarm.toml:2: cluster nats: "h:4222" is not a NATS server's URL (such as "nats://HOST:4222" or "tls://HOST:4222")`},
		{"listen without port", "[cluster]\nlisten = \"0.0.0.0\"\n" + agent,
			`swarm.toml:2: cluster listen: "0.0.0.0" is not HOST:PORT (such as "0.0.0.0:7422")`},
		{"listen port out of range", "[cluster]\nlisten = \"0.0.0.0:99999\"\n" + agent,
			`swarm.toml:2: cluster listen: "0.0.0.0:99999": port "99999" is not a number from 1 to 65535`},
		{"worktree on a host", "[cluster]\nlisten = \":7422\"\n" + agent + "host = \"buildbox\"\nworktree = true\n",
			`swarm.toml:7: agent "alice": worktree = true cannot go with host = "buildbox": a task's worktree is made in this machine's repository, and the agent works in its host's --workdir (remove one of them)`},
		{"unknown cluster key", "[cluster]\nlisten = \":7422\"\nlisen = \"x\"\n" + agent,
			`swarm.toml:3: unknown key "lisen" in [cluster] (did you mean "listen"?)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseConfig(filepath.Join(t.TempDir(), DefaultConfigFile), []byte(tc.src))
			if err == nil {
				t.Fatalf("accepted:\n%s", tc.src)
			}
			got := err.Error()
			if i := strings.Index(got, "swarm.toml:"); i >= 0 {
				got = got[i:]
			}
			if got != tc.want {
				t.Errorf("error\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}
