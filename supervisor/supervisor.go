package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"

	"swarm/bus"
	"swarm/games"
	"swarm/spawner"
	"swarm/swarmapi"
	"swarm/tasks"
)

// Sentinel errors.
var (
	ErrNotRunning = errors.New("agent is not running")
	ErrStopped    = errors.New("supervisor is stopped")
)

// Referee judges messages between game players before they are delivered.
// games.Referee implements it.
type Referee interface {
	Judge(from, to, body string) games.Verdict
}

// Options configure a Supervisor. Config and Bus are required.
type Options struct {
	Config *Config
	Bus    *bus.Bus
	Log    *slog.Logger // default: discard

	// Referee, when set, judges every message between its players; X and O
	// name them for the game snapshot. A config with a [game] gets its
	// referee without these.
	Referee Referee
	X, O    string
	// Pace spaces legal game moves at least this far apart.
	Pace time.Duration

	Rows, Cols  int           // initial terminal size of every agent (default 24×80)
	Backoff     time.Duration // first restart delay (default 1 s; doubles up to 30 s)
	StopGrace   time.Duration // SIGTERM → SIGKILL grace (default 3 s)
	Patience    time.Duration // how long a message typed in may take to show, for every agent (default: its profile's)
	UserIdle    time.Duration // no injection this soon after a keystroke (default 2 s)
	StartGrace  time.Duration // an agent that has printed nothing gets messages after this (default 3 s)
	StableRun   time.Duration // a run this long that reached its prompt forgets earlier failures (default 60 s)
	RelayRate   int           // messages an agent may publish a second (default 200)…
	RelayBurst  int           // …after a burst of this many (default 1000)
	FlushAfter  time.Duration // finish a held bullet command after this much quiet (default 250 ms)
	UnsentLimit int           // messages an agent holds in memory while the bus cannot take them (default 10,000)
	LogMax      int64         // an agent's output log is rotated at this size (default DefaultLogMax)
	Executable  string        // swarm binary for agents' PATH and the built-in players (default os.Executable)
	// TasksElsewhere: the swarm's tasks are on another swarm's bus (a
	// cluster's host: the main swarm's). Task control messages are taken
	// here without a word and left to that swarm, which gets them too.
	TasksElsewhere bool

	// livenessNow is the clock liveness judges ages by (nil: time.Now):
	// a test moves it on to put an agent past a threshold at once, rather
	// than waiting for the judging loop to come round in time.
	livenessNow func() time.Time
}

// Supervisor runs the agents of one config against one bus.
type Supervisor struct {
	opts Options
	bus  *bus.Bus
	log  *slog.Logger
	hub  hub

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	agents   map[string]*agent
	order    []string
	game     *GameState
	lastMove time.Time // when the last legal game move was published (pace)
	stopped  bool
	lock     *dirLock
	tasks    *tasks.Service
	budget   *spawner.Budget // CPU for the agents' screens, shared
	focus    string          // the agent a person is watching (SetFocus)
	link     string          // .swarm/bin/swarm, the agents' swarm (agentenv.go)
	// releaseReaper ends this swarm's hold on being its agents' subreaper
	// (descendants.go); nil if it could not be one.
	releaseReaper func()
}

// New checks the options and prepares a Supervisor; Start runs it.
func New(opts Options) (*Supervisor, error) {
	if opts.Config == nil || opts.Bus == nil {
		return nil, errors.New("supervisor: Config and Bus are required")
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Rows == 0 {
		opts.Rows = 24
	}
	if opts.Cols == 0 {
		opts.Cols = 80
	}
	if err := swarmapi.CheckSize(opts.Rows, opts.Cols); err != nil {
		return nil, fmt.Errorf("supervisor: %w", err)
	}
	setDefault(&opts.Backoff, time.Second)
	setDefault(&opts.StopGrace, 3*time.Second)
	setDefault(&opts.UserIdle, 2*time.Second)
	setDefault(&opts.StartGrace, 3*time.Second)
	setDefault(&opts.StableRun, 60*time.Second)
	if opts.RelayRate <= 0 {
		opts.RelayRate = 200
	}
	if opts.RelayBurst <= 0 {
		opts.RelayBurst = 1000
	}
	setDefault(&opts.FlushAfter, 250*time.Millisecond)
	if opts.UnsentLimit <= 0 {
		opts.UnsentLimit = 10_000
	}
	if opts.LogMax <= 0 {
		opts.LogMax = DefaultLogMax
	}
	if opts.Executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("supervisor: locate swarm binary: %w", err)
		}
		opts.Executable = exe
	}
	s := &Supervisor{opts: opts, bus: opts.Bus, log: opts.Log, agents: map[string]*agent{},
		// Emulating many busy terminals could take every core. The
		// screens get half of them (at least one), so the UI, the bus
		// and the agents themselves keep theirs; within that, output is
		// applied as fast as it comes, as a terminal does. (With 70 % of
		// the half, one agent printing a log on two cores got 0.7 of a
		// core while a whole one was idle.)
		budget: spawner.NewBudget(max(runtime.NumCPU()/2, 1), 1)}
	if g := opts.Config.Game; opts.Referee == nil && g.Kind == "tictactoe" {
		s.opts.Referee, s.opts.X, s.opts.O = games.NewReferee(g.X, g.O), g.X, g.O
	}
	if s.opts.Referee != nil {
		s.game = &GameState{X: s.opts.X, O: s.opts.O, Turn: games.MarkX}
	}
	return s, nil
}

func setDefault(d *time.Duration, v time.Duration) {
	if *d <= 0 {
		*d = v
	}
}

// StopGrace is how long a stopped agent has between SIGTERM and SIGKILL.
func (s *Supervisor) StopGrace() time.Duration { return s.opts.StopGrace }

// Config returns the config the supervisor was started with.
func (s *Supervisor) Config() *Config { return s.opts.Config }

// Subscribe returns a subscription to the supervisor's events. Subscribe
// before Start to see every event from the first.
func (s *Supervisor) Subscribe() *Subscription { return s.hub.subscribe() }

// Tell passes an event of an agent that runs elsewhere (a cluster host's)
// to the supervisor's subscribers, with its own agents' events: whoever
// shows the swarm follows one stream.
func (s *Supervisor) Tell(ev Event) { s.hub.emit(ev) }

// Start takes the bus directory's lock (one running swarm per bus),
// registers the agents on the bus and starts them with the router, the
// control consumer and the liveness monitor. It returns at once; Shutdown
// ends everything it started.
func (s *Supervisor) Start(ctx context.Context) error {
	if err := s.Lock(); err != nil {
		return err
	}
	s.linkSwarm()
	s.endLeftovers(ctx)
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	s.tasks = tasks.New(ctx, s.bus, s.projectDir(), s.opts.Config.BaseBranch)
	if errs := StartProblems(ctx, s.opts.Config, s.projectDir()); len(errs) > 0 {
		s.cancel()
		s.lock.release()
		return errs[0]
	}
	if repo, _ := s.tasks.Repo(); repo != nil {
		// The bus and the task worktrees are not the project's content.
		if err := repo.ExcludeSwarmDir(ctx); err != nil {
			s.log.Warn("exclude .swarm/ from git", "err", err)
		}
	}

	// Follow the bus from here on: whatever is written after this is routed.
	last, err := s.bus.LastSeq(ctx)
	if err != nil {
		s.cancel()
		s.lock.release()
		return err
	}
	lastEvent := s.lastTaskEvent(ctx)
	if release, err := spawner.Subreaper(); err != nil {
		s.log.Warn("what agents start and leave may outlive them", "err", err)
	} else {
		s.releaseReaper = release
	}
	wake, unsub := s.bus.Subscribe()
	s.goRun(func(ctx context.Context) {
		defer unsub()
		s.route(ctx, wake, last, lastEvent)
	})
	s.goRun(s.consumeControl)
	s.goRun(s.watchLiveness)
	s.goRun(s.dispatchTasks)
	s.startChecks(ctx)
	for _, ac := range s.opts.Config.Agents {
		if ac.Host != "" {
			// Run by its host (package cluster); registered here so that
			// messages to it queue on this bus.
			err := s.bus.RegisterAgent(s.ctx, bus.Agent{Name: ac.Name, Cmd: ac.Cmd, State: bus.AgentRemote, Reason: "on host " + ac.Host, NoMessages: ac.NoMessages})
			if err != nil {
				_ = s.Shutdown(ctx)
				return fmt.Errorf("register agent %s: %w", ac.Name, err)
			}
			continue
		}
		if _, err := s.addAgent(ac); err != nil {
			_ = s.Shutdown(ctx)
			return err
		}
	}
	s.retireOthers(ctx)
	return nil
}

// retireOthers marks the agents an earlier config had, and this one has
// not, as removed: they are not part of this swarm, so messages and tasks
// for them are refused rather than queued for ever.
func (s *Supervisor) retireOthers(ctx context.Context) {
	known, err := s.bus.Agents(ctx)
	if err != nil {
		s.log.Warn("list agents", "err", err)
		return
	}
	for _, a := range known {
		if _, err := s.agent(a.Name); err == nil || a.State == bus.AgentRemoved || s.remote(a.Name) {
			continue
		}
		if err := s.bus.SetAgentState(ctx, a.Name, bus.AgentStatus{State: bus.AgentRemoved, Reason: "not in this swarm's config"}); err != nil {
			s.log.Warn("retire agent", "agent", a.Name, "err", err)
		}
	}
}

// remote reports whether the config runs agent name on another host.
func (s *Supervisor) remote(name string) bool {
	return slices.ContainsFunc(s.opts.Config.Agents, func(ac AgentConfig) bool { return ac.Name == name && ac.Host != "" })
}

// goRun runs f in a goroutine owned by the supervisor.
func (s *Supervisor) goRun(f func(ctx context.Context)) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f(s.ctx)
	}()
}

// Lock takes the bus directory's lock (ErrLocked while another swarm
// runs on the bus), which Start takes itself when it is not held yet. A
// swarm that serves the directory's socket takes it first: only a swarm
// holding it may replace the socket file, and the socket can then listen
// while the agents start. Shutdown releases it.
func (s *Supervisor) Lock() error {
	if s.lock != nil && s.lock.f != nil {
		return nil
	}
	lock, err := lockDir(s.bus.Dir())
	if err != nil {
		return err
	}
	s.lock = lock
	return nil
}

// Shutdown stops every agent (SIGTERM, then SIGKILL after the grace period),
// waits for every goroutine and releases the bus lock. Queued messages stay
// on the bus for the next run. It is safe to call more than once.
func (s *Supervisor) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if s.stopped || s.cancel == nil {
		neverStarted := !s.stopped
		s.stopped = true
		s.mu.Unlock()
		if neverStarted {
			s.lock.release() // taken by Lock
		}
		return nil
	}
	s.stopped = true
	agents := s.agentList()
	s.mu.Unlock()

	var wg sync.WaitGroup
	for _, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.shutdown()
		}()
	}
	wg.Wait()
	s.cancel()
	s.wg.Wait()
	s.endDescendants()
	if s.releaseReaper != nil {
		s.releaseReaper()
	}
	for _, a := range agents {
		a.final(ctx)
	}
	s.lock.release()
	return nil
}

// agentList returns the agents in config order; s.mu must be held.
func (s *Supervisor) agentList() []*agent {
	out := make([]*agent, 0, len(s.order))
	for _, n := range s.order {
		out = append(out, s.agents[n])
	}
	return out
}

func (s *Supervisor) agent(name string) (*agent, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.agents[name]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownAgent, name)
	}
	return a, nil
}

func (s *Supervisor) addAgent(ac AgentConfig) (*agent, error) {
	s.mu.Lock()
	_, exists := s.agents[ac.Name]
	s.mu.Unlock()
	if exists {
		return nil, fmt.Errorf("%w: %q", ErrAgentExists, ac.Name)
	}
	err := s.bus.RegisterAgent(s.ctx, bus.Agent{Name: ac.Name, Cmd: ac.Cmd, State: StateStarting.String(), NoMessages: ac.NoMessages})
	if err != nil {
		return nil, fmt.Errorf("register agent %s: %w", ac.Name, err)
	}
	// Added and started under the lock, so that Shutdown either sees the
	// agent (and stops it) or the agent is never started.
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil, ErrStopped
	}
	if _, ok := s.agents[ac.Name]; ok {
		return nil, fmt.Errorf("%w: %q", ErrAgentExists, ac.Name)
	}
	a := newAgent(s, ac)
	s.agents[ac.Name] = a
	s.order = append(s.order, ac.Name)
	a.start()
	return a, nil
}

// NewAgentConfig is the config of an agent added at run time (the UI's
// "new agent"): cmd runs with /bin/sh -c in dir, with the defaults a
// config file gets.
func NewAgentConfig(name, cmd, dir string) (AgentConfig, error) {
	if err := CheckAgentName(name); err != nil {
		return AgentConfig{}, err
	}
	if strings.TrimSpace(cmd) == "" {
		return AgentConfig{}, fmt.Errorf("agent %s: the command is empty", name)
	}
	return AgentConfig{
		Name: name, Cmd: cmd, Argv: []string{"/bin/sh", "-c", cmd}, Dir: dir,
		Restart: RestartOnFailure, MaxRestarts: DefaultMaxRestarts, Quiet: DefaultQuiet, Confirm: true,
	}, nil
}

// AddAgent starts a new agent while the swarm runs, with the defaults a
// config file gets (NewAgentConfig).
func (s *Supervisor) AddAgent(n swarmapi.NewAgent) error {
	ac, err := NewAgentConfig(n.Name, n.Cmd, n.Dir)
	if err != nil {
		return err
	}
	_, err = s.addAgent(ac)
	return err
}

// Names returns the agents' names in the order they were added.
func (s *Supervisor) Names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.order)
}

// Agents returns a snapshot of every agent's runtime state.
func (s *Supervisor) Agents() []AgentInfo {
	s.mu.Lock()
	agents := s.agentList()
	s.mu.Unlock()
	out := make([]AgentInfo, 0, len(agents))
	for _, a := range agents {
		out = append(out, a.info())
	}
	return out
}

// Ended reports whether every agent is down for good: each has stopped,
// given up, or exited under a restart policy that leaves it down. (An agent
// with worktree = true is started again by its next task: it has not
// ended.) Only a person can bring such a swarm back to life. A swarm
// with agents on other hosts has not ended: it serves them.
func (s *Supervisor) Ended() bool {
	if slices.ContainsFunc(s.opts.Config.Agents, func(ac AgentConfig) bool { return ac.Host != "" }) {
		return false
	}
	return swarmapi.Ended(s.Agents())
}

// Agent returns one agent's runtime state.
func (s *Supervisor) Agent(name string) (AgentInfo, error) {
	a, err := s.agent(name)
	if err != nil {
		return AgentInfo{}, err
	}
	return a.info(), nil
}

// SendKeys writes what a person typed into an agent's terminal. Injection
// into that agent pauses for UserIdle after each keystroke.
func (s *Supervisor) SendKeys(name string, b []byte) error {
	a, err := s.agent(name)
	if err != nil {
		return err
	}
	return a.sendKeys(b)
}

// typing writes a person's input into the agent called name (write gets
// its running process), noting what the input does to their line.
func (s *Supervisor) typing(name string, line lineEdit, write func(*spawner.Process) error) error {
	a, err := s.agent(name)
	if err != nil {
		return err
	}
	return a.typing(line, write)
}

// SendKey types one key press into an agent's terminal, encoded the way
// the program asked for (e.g. application cursor keys in vim or less). A
// key no terminal takes is refused.
func (s *Supervisor) SendKey(name string, k swarmapi.Key) error {
	if !k.Typeable() {
		return fmt.Errorf("a key of code %#x with modifiers %#x cannot be typed into a terminal", k.Code, k.Mod)
	}
	// swarmapi's key codes and modifiers are the emulator's
	// (keys_test.go).
	key := uv.Key{Code: k.Code, Text: k.Text, Mod: uv.KeyMod(k.Mod)}
	return s.typing(name, editOfKey(key), func(p *spawner.Process) error {
		p.Screen().SendKey(uv.KeyPressEvent(key))
		return nil
	})
}

// Paste types text into an agent's terminal as one paste: bracketed when
// the program enabled bracketed paste.
func (s *Supervisor) Paste(name, text string) error {
	return s.typing(name, lineAdd(utf8.RuneCountInString(text)), func(p *spawner.Process) error {
		if p.Screen().BracketedPaste() {
			return p.Write(spawner.PasteBytes(text))
		}
		return p.Write([]byte(text))
	})
}

// SetFocus names the agent a person is watching or typing into ("" for
// none): its output is emulated ahead of the others' when the machine is
// busy, so its pane keeps up.
func (s *Supervisor) SetFocus(name string) {
	s.mu.Lock()
	s.focus = name
	agents := s.agentList()
	s.mu.Unlock()
	for _, a := range agents {
		if p := a.running(); p != nil {
			p.SetUrgent(a.cfg.Name == name)
		}
	}
}

func (s *Supervisor) focused(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.focus == name
}

// Resize sets an agent's terminal size (its PTY and its screen).
func (s *Supervisor) Resize(name string, rows, cols int) error {
	a, err := s.agent(name)
	if err != nil {
		return err
	}
	return a.resize(rows, cols)
}

// Restart stops an agent's process if it runs and starts it again,
// resetting its restart count.
func (s *Supervisor) Restart(name string) error {
	a, err := s.agent(name)
	if err != nil {
		return err
	}
	a.restart()
	return nil
}

// StopAgent stops an agent's process; it stays stopped until Restart.
func (s *Supervisor) StopAgent(name string) error {
	a, err := s.agent(name)
	if err != nil {
		return err
	}
	a.stop()
	return nil
}

// Send publishes a message from a person (or any sender the caller
// vouches for) and returns it as stored.
func (s *Supervisor) Send(ctx context.Context, m bus.Message) (bus.Message, error) {
	if m.From == "" {
		m.From = "human"
	}
	if m.Kind == "" {
		m.Kind = bus.KindMessage
	}
	return s.bus.Publish(ctx, m)
}

// Game returns the refereed game's state, if there is a game.
func (s *Supervisor) Game() (GameState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.game == nil {
		return GameState{}, false
	}
	return *s.game, true
}

// projectDir is the directory of the config file, else the current one:
// where the git repository for task worktrees is looked for.
func (s *Supervisor) projectDir() string { return ProjectDir(s.opts.Config) }

// BusDir is where the bus lives, as agents see it in SWARM_DIR.
func (s *Supervisor) busDir() string {
	d, err := filepath.Abs(s.bus.Dir())
	if err != nil {
		return s.bus.Dir()
	}
	return d
}
