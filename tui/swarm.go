package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"swarm/bus"
	"swarm/swarmapi"
	"swarm/tasks"
)

// Backend is what the UI reads from and does to a running swarm: the
// swarm in this process (package supervisor) or in another (package
// server's Remote), through swarmapi's types only. Model tests use a fake
// over a real bus.
type Backend interface {
	// Agents returns every agent's runtime state, in display order.
	Agents() []swarmapi.AgentInfo
	// View returns an agent's screen as styled rows joined by newlines,
	// with row top of its scrollback at the top (live when top < 0), and
	// the scrollback's length and the cursor, all read at one moment.
	View(name string, top int) (swarmapi.ScreenView, error)
	// Text returns rows (Render numbering, from through to) of an agent's
	// scrollback and screen as plain text, wrapped rows joined.
	Text(name string, from, to int) (string, error)
	// Find returns the matches of query in an agent's scrollback and
	// screen, oldest first (rows in Render numbering).
	Find(name, query string) []swarmapi.ScreenMatch
	// Resize sets an agent's terminal size.
	Resize(name string, rows, cols int) error
	// SendKey types one key into an agent, encoded for its terminal mode.
	SendKey(name string, k swarmapi.Key) error
	// Paste pastes text into an agent (bracketed when it asked for it).
	Paste(name, text string) error
	// Restart restarts an agent; StopAgent stops it until restarted.
	Restart(name string) error
	StopAgent(name string) error
	// AddAgent starts a new agent.
	AddAgent(n swarmapi.NewAgent) error
	// ConfigFile is the swarm's config file, "" when it has none;
	// SaveAgent adds an agent started from the UI to it.
	ConfigFile() string
	SaveAgent(name string) error
	// Send publishes a message from the human (to an agent: an answer to
	// the questions it put to the person).
	Send(ctx context.Context, m bus.Message) (bus.Message, error)
	// Dismiss closes an agent's question to the person (a message to the
	// human, by id) without an answer.
	Dismiss(ctx context.Context, id string) error
	// Game returns the refereed game, if there is one.
	Game() (swarmapi.GameState, bool)
	// Reader: inboxes, the log, tasks and heartbeats.
	Reader
	// Task actions of the human. CreateTask creates a task from the
	// human for t.Assignee.
	CreateTask(ctx context.Context, t bus.NewTask) (bus.Task, error)
	Approve(ctx context.Context, id, note string) (bus.Task, error)
	RequestChanges(ctx context.Context, id, note string) (bus.Task, error)
	Cancel(ctx context.Context, id, note string) (bus.Task, error)
	Retry(ctx context.Context, id, note string) (bus.Task, error)
	// Merge merges an approved task's branch into its base branch.
	Merge(ctx context.Context, id string) (bus.Task, error)
	// Prune deletes the branches of finished tasks that are merged into
	// their base (dryRun: only says which it would delete).
	Prune(ctx context.Context, dryRun bool) ([]tasks.Pruned, error)
	// Review shows what a task changed: the diff stat and the diff of its
	// branch against its base.
	Review(ctx context.Context, id string) (stat, diff string, err error)
}

// Reader is what the UI reads of the swarm's bus.
type Reader interface {
	Inbox(ctx context.Context, agent string, limit int) ([]bus.Message, error)
	Messages(ctx context.Context, afterSeq int64, limit int) ([]bus.Message, error)
	LastSeq(ctx context.Context) (int64, error)
	Pending(ctx context.Context, recipient string, limit int) ([]bus.Message, error)
	Tasks(ctx context.Context, f bus.TaskFilter) ([]bus.Task, error)
	TaskEvents(ctx context.Context, id string) ([]bus.TaskEvent, error)
	Heartbeats(ctx context.Context) ([]bus.Heartbeat, error)
	// The checks of every task, the merge queue in order, and the
	// reviewer agent's verdicts on a task (with [checks]).
	AllChecks(ctx context.Context) ([]bus.Check, error)
	MergeQueue(ctx context.Context) ([]bus.QueueEntry, error)
	Reviews(ctx context.Context, id string) ([]bus.Review, error)
}

// Focuser is told which agent the person is watching (the selected one),
// so that its output is processed first when the machine is busy. It is
// optional.
type Focuser interface {
	SetFocus(name string)
}

// Swarm is a Backend that also streams its events: the supervisor in
// the swarm's own process, a server.Remote in another.
type Swarm interface {
	Backend
	Subscribe() Events
}

// Events is a stream of the swarm's events (a supervisor's Subscription
// is one); the channel is closed after Close, or when the swarm is gone.
type Events interface {
	Events() <-chan swarmapi.Event
	Close()
}

// ErrTooSmall is reported (in the view) when the terminal is too small to
// draw the UI.
var ErrTooSmall = errors.New("terminal too small")

// ErrNotShown is Run's error when its context ended before the UI had the
// terminal: a ctrl+c then is still the terminal's SIGINT, an interrupt of
// the start rather than a way to detach (once the UI runs, ctrl+c is a key).
var ErrNotShown = errors.New("interrupted before the UI showed")

// Options configure the UI.
type Options struct {
	// Title names the swarm in the status line, e.g. "tic-tac-toe".
	Title string
	// Game shows the game board panel (when the backend has a game).
	Game bool
	// Pace is shown with the game board: how far apart moves are spaced.
	Pace time.Duration
	// Dir is the working directory of agents added with `n`.
	Dir string
	// Log receives the errors the status line shows; never stdout.
	Log *slog.Logger
	// FPS caps the frames per second (default 30).
	FPS int
	// ResizeDelay is how long the window must keep its size before the
	// agents' terminals are resized (default 150 ms).
	ResizeDelay time.Duration
	// Now is the clock (default time.Now); tests fix it.
	Now func() time.Time
	// Subscription is the swarm's event stream to show, when the caller
	// subscribed before starting the swarm (so that no event is missed);
	// nil: Run subscribes and closes it when it returns.
	Subscription Events
	// Attached: the swarm runs in another process (swarm attach).
	// Quitting asks whether to detach (its agents go on) or to stop it
	// with StopSwarm, which returns once its agents have ended.
	Attached  bool
	StopSwarm func() error
	// Notice is said in the status line at start (why what is shown may
	// not be what the person expects).
	Notice string
	// Bell and Desktop announce what starts to need the person (an agent
	// that died, a task in review, failed or in conflict): the terminal's
	// bell, a desktop notification through the terminal (OSC 9, OSC 777).
	Bell, Desktop bool
	// Input and Output replace the terminal (tests); nil means the
	// process's terminal. Width and Height give the window size when
	// Output is not a terminal.
	Input         io.Reader
	Output        io.Writer
	Width, Height int
}

func (o *Options) defaults() {
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.FPS <= 0 {
		o.FPS = 30
	}
	if o.ResizeDelay <= 0 {
		o.ResizeDelay = 150 * time.Millisecond
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Run shows the UI over sw until the user quits or ctx ends. It returns
// once the program has ended and the bridge goroutine is gone; the caller
// then stops the swarm (every agent). A nil error means the user quit.
func Run(ctx context.Context, sw Swarm, opts Options) error {
	opts.defaults()
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// Subscribe before reading the first state, so that nothing that
	// happens in between is missed.
	sub := opts.Subscription
	if sub == nil {
		sub = sw.Subscribe()
		defer sub.Close()
	}
	m := NewModel(ctx, sw, opts)
	popts := []tea.ProgramOption{
		tea.WithContext(ctx),
		tea.WithFPS(opts.FPS),
		// SIGINT and SIGTERM are the caller's to turn into the end of
		// ctx; in the UI's raw mode ctrl+c is a key like any other.
		tea.WithoutSignalHandler(),
	}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	if opts.Width > 0 && opts.Height > 0 {
		popts = append(popts, tea.WithWindowSize(opts.Width, opts.Height))
	}
	p := tea.NewProgram(m, popts...)

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		bridge(ctx, sub.Events(), p.Send, time.Second/time.Duration(opts.FPS))
	}()

	_, err := p.Run()
	cancel()
	wg.Wait()
	if errors.Is(err, tea.ErrProgramKilled) && parent.Err() != nil {
		if !m.began {
			return ErrNotShown
		}
		// The caller's context ended: that is a way to stop, not a failure.
		return nil
	}
	if err != nil {
		return fmt.Errorf("tui: %w", err)
	}
	return nil
}
