package supervisor

import (
	"errors"
	"os"
	"strings"
	"testing"

	"swarm/swarmapi"
)

// An agent started from the UI is saved to the config file: appended, the
// file's own text kept, and the next swarm loads it. A second save, which
// would name it twice, leaves the file as it was.
func TestSaveAgentAppendsToTheConfig(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	path := h.path("swarm.toml")
	orig := "# my swarm\n[[agent]]\nname = \"a\" # the first\ncmd = \"sh\"\n"
	if err := os.WriteFile(path, []byte(orig), 0o640); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	h.run(Options{Config: cfg})
	helper := swarmapi.NewAgent{Name: "helper", Cmd: `echo "hi there"; sleep 60`, Dir: h.dir}
	if err := h.sup.AddAgent(helper); err != nil {
		t.Fatal(err)
	}
	if err := h.sup.SaveAgent("helper"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), strings.TrimRight(orig, "\n")) {
		t.Errorf("the file's own text changed:\n%s", data)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", info.Mode().Perm())
	}
	again, err := LoadConfig(path)
	if err != nil {
		t.Fatalf("the saved file does not load: %v\n%s", err, data)
	}
	if n := len(again.Agents); n != 2 || again.Agents[1].Name != "helper" || again.Agents[1].Cmd != helper.Cmd {
		t.Fatalf("agents after saving: %+v", again.Agents)
	}
	if err := h.sup.SaveAgent("helper"); err == nil {
		t.Error("a second save of the same agent was taken")
	}
	if after, _ := os.ReadFile(path); string(after) != string(data) {
		t.Errorf("a refused save changed the file:\n%s", after)
	}
	if err := h.sup.SaveAgent("nobody"); !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("saving an unknown agent: %v", err)
	}
}

func TestSaveAgentWithoutAConfigFile(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.run(Options{}, scripted("a", "listen", nil))
	if err := h.sup.SaveAgent("a"); !errors.Is(err, ErrNoConfigFile) {
		t.Errorf("got %v, want ErrNoConfigFile", err)
	}
}
