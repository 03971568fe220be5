package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"swarm/bus"
	"swarm/swarmapi"
	"swarm/tasks"
	"swarm/wire"
)

// Remote is a swarm running in another process, reached through its
// socket: what the terminal UI shows when it is attached (swarm attach).
// Its methods are the in-process supervisor's, each a request. When its
// connection ends while the swarm goes on (the swarm dropped a client
// that had stopped reading, say, for a terminal suspended with ctrl+z),
// it connects again and carries on; Done is closed once the swarm is gone.
type Remote struct {
	busDir, program string

	mu     sync.Mutex
	cl     *Client
	closed bool
	gone   chan struct{}
	held   map[string]*heldScreen // the live screens as last rendered here, by agent
}

// callTimeout bounds the requests whose methods take no context (a
// screen, a key): a swarm that does not answer in that time is stuck.
const callTimeout = 30 * time.Second

// Attach connects to the swarm serving busDir.
func Attach(ctx context.Context, busDir, program string) (*Remote, error) {
	cl, err := Dial(ctx, busDir, program)
	if err != nil {
		return nil, err
	}
	r := &Remote{busDir: busDir, program: program, cl: cl, gone: make(chan struct{}), held: map[string]*heldScreen{}}
	go r.follow(cl)
	return r, nil
}

// follow connects again as soon as cl ends, or learns the swarm is gone.
func (r *Remote) follow(cl *Client) {
	<-cl.Done()
	_, _ = r.current()
}

// current returns the connection, connecting again when the last one has
// ended; ErrGone once the swarm does not answer any more, ErrRefused while
// it refuses the connection (it may take one later).
func (r *Remote) current() (*Client, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrGone
	}
	if !isClosed(r.cl.Done()) {
		return r.cl, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cl, err := Dial(ctx, r.busDir, r.program)
	if errors.Is(err, ErrRefused) {
		// The swarm runs but serves as many clients as it takes: the
		// next request tries again.
		return nil, err
	}
	if err != nil {
		r.closed = true
		close(r.gone)
		return nil, fmt.Errorf("%w (%v)", ErrGone, err)
	}
	r.cl = cl
	go r.follow(cl)
	return cl, nil
}

// call makes a request on the current connection, once more on a new one
// if the connection ended under it.
func (r *Remote) call(ctx context.Context, method string, params, result any) error {
	cl, err := r.current()
	if err != nil {
		return err
	}
	err = cl.call(ctx, method, params, result)
	if errors.Is(err, ErrGone) {
		// A write can fail before the reader has seen the connection
		// end: closed now, it is not handed out again.
		cl.Close()
		if cl, err = r.current(); err == nil {
			err = cl.call(ctx, method, params, result)
		}
	}
	return err
}

// Done is closed once the swarm is gone (or Close was called).
func (r *Remote) Done() <-chan struct{} { return r.gone }

// Gone says whether Done is closed.
func (r *Remote) Gone() bool { return isClosed(r.gone) }

// Close ends the connection.
func (r *Remote) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	close(r.gone)
	return r.cl.Close()
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// Heartbeat times: a swarm that has not answered a ping for pingTimeout
// is taken for stuck.
const (
	pingEvery   = 5 * time.Second
	pingTimeout = 15 * time.Second
)

// Watch pings the swarm until ctx ends (nil) or the swarm stops answering
// or goes (the error says which): on a socket, a swarm that dies closes
// its end at once, but one that hangs says nothing. A swarm that refuses
// the connection runs: Watch goes on trying.
func (r *Remote) Watch(ctx context.Context) error {
	t := time.NewTicker(pingEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-r.Done():
			return ErrGone
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, pingTimeout)
		err := r.call(pctx, wire.Ping.Name, nil, nil)
		cancel()
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("the swarm has not answered for %s", pingTimeout)
		}
		if err != nil && !errors.Is(err, ErrRefused) {
			return err
		}
	}
}

// do is call for the methods without a context.
func do[P, R any](r *Remote, m wire.Method[P, R], params P) (R, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	return doCtx(ctx, r, m, params)
}

// doCtx makes m's request and returns its result.
func doCtx[P, R any](ctx context.Context, r *Remote, m wire.Method[P, R], params P) (R, error) {
	var out R
	err := r.call(ctx, m.Name, params, &out)
	return out, err
}

// Agents returns every agent's state; none once the swarm is gone.
func (r *Remote) Agents() []swarmapi.AgentInfo {
	a, _ := do(r, wire.Agents, wire.None{})
	return a
}

// View returns an agent's view (supervisor.Supervisor.View). Of a live
// view, only the rows that changed since the last one travel.
func (r *Remote) View(name string, top int) (swarmapi.ScreenView, error) {
	r.mu.Lock()
	h := r.held[name]
	if h == nil {
		h = &heldScreen{}
		r.held[name] = h
	}
	r.mu.Unlock()
	for range 2 {
		r.mu.Lock()
		gen := h.gen
		r.mu.Unlock()
		res, err := do(r, wire.View, wire.ViewParams{Agent: name, Top: top, Gen: gen})
		if err != nil {
			return swarmapi.ScreenView{}, err
		}
		v := res.View
		if v.Offset != 0 { // scrolled back: every row, held by nobody
			var whole heldScreen
			if err := whole.apply(res.Rows); err != nil {
				return swarmapi.ScreenView{}, err
			}
			v.Rows = strings.Join(whole.rows, "\n")
			return v, nil
		}
		r.mu.Lock()
		err = h.apply(res.Rows)
		v.Rows = strings.Join(h.rows, "\n")
		if err != nil {
			h.gen, h.rows = 0, nil // two requests crossed: ask for every row
		}
		r.mu.Unlock()
		if err == nil {
			return v, nil
		}
	}
	return swarmapi.ScreenView{}, errors.New("the screen changed under two requests in a row")
}

func (r *Remote) Snapshot(name string) (swarmapi.ScreenSnapshot, error) {
	return do(r, wire.Snapshot, wire.AgentParams{Agent: name})
}

func (r *Remote) Text(name string, from, to int) (string, error) {
	return do(r, wire.Text, wire.TextParams{Agent: name, From: from, To: to})
}

func (r *Remote) Find(name, query string) []swarmapi.ScreenMatch {
	m, _ := do(r, wire.Find, wire.FindParams{Agent: name, Query: query})
	return m
}

func (r *Remote) Resize(name string, rows, cols int) error {
	_, err := do(r, wire.Resize, wire.ResizeParams{Agent: name, Rows: rows, Cols: cols})
	return err
}

func (r *Remote) SendKey(name string, k swarmapi.Key) error {
	_, err := do(r, wire.SendKey, wire.KeyParams{Agent: name, Key: k})
	return err
}

func (r *Remote) Paste(name, text string) error {
	_, err := do(r, wire.Paste, wire.PasteParams{Agent: name, Text: text})
	return err
}

func (r *Remote) Restart(name string) error {
	_, err := do(r, wire.Restart, wire.AgentParams{Agent: name})
	return err
}

func (r *Remote) StopAgent(name string) error {
	_, err := do(r, wire.StopAgent, wire.AgentParams{Agent: name})
	return err
}

// SetFocus tells the swarm which agent the person watches.
func (r *Remote) SetFocus(name string) { _, _ = do(r, wire.SetFocus, wire.AgentParams{Agent: name}) }

func (r *Remote) AddAgent(n swarmapi.NewAgent) error {
	_, err := do(r, wire.AddAgent, n)
	return err
}

func (r *Remote) ConfigFile() string {
	f, _ := do(r, wire.ConfigFile, wire.None{})
	return f
}

func (r *Remote) SaveAgent(name string) error {
	_, err := do(r, wire.SaveAgent, wire.AgentParams{Agent: name})
	return err
}

// Send sends m from whoever this process is (the swarm judges it: the
// human, outside every agent); m.From is not sent.
func (r *Remote) Send(ctx context.Context, m bus.Message) (bus.Message, error) {
	return doCtx(ctx, r, wire.Send, wire.MessageParams{To: m.To, Topic: m.Topic, Kind: m.Kind, Body: m.Body,
		Data: m.Data, CorrelationID: m.CorrelationID, InReplyTo: m.InReplyTo})
}

func (r *Remote) Dismiss(ctx context.Context, id string) error {
	_, err := doCtx(ctx, r, wire.Dismiss, wire.IDParams{ID: id})
	return err
}

func (r *Remote) Game() (swarmapi.GameState, bool) {
	g, _ := do(r, wire.Game, wire.None{})
	return g.State, g.OK
}

// Inbox, Messages and Pending return messages as lists show them: bodies
// longer than 2 KiB cut, ending with "…", and data that long left out.
func (r *Remote) Inbox(ctx context.Context, agent string, limit int) ([]bus.Message, error) {
	return doCtx(ctx, r, wire.Inbox, wire.LimitParams{Agent: agent, Limit: limit})
}

func (r *Remote) Messages(ctx context.Context, afterSeq int64, limit int) ([]bus.Message, error) {
	return doCtx(ctx, r, wire.Messages, wire.AfterParams{After: afterSeq, Limit: limit})
}

func (r *Remote) LastSeq(ctx context.Context) (int64, error) {
	return doCtx(ctx, r, wire.LastSeq, wire.None{})
}

func (r *Remote) Pending(ctx context.Context, recipient string, limit int) ([]bus.Message, error) {
	return doCtx(ctx, r, wire.Pending, wire.LimitParams{Agent: recipient, Limit: limit})
}

func (r *Remote) Tasks(ctx context.Context, f bus.TaskFilter) ([]bus.Task, error) {
	return doCtx(ctx, r, wire.Tasks, f)
}

func (r *Remote) TaskEvents(ctx context.Context, id string) ([]bus.TaskEvent, error) {
	return doCtx(ctx, r, wire.TaskEvents, wire.IDParams{ID: id})
}

func (r *Remote) Heartbeats(ctx context.Context) ([]bus.Heartbeat, error) {
	return doCtx(ctx, r, wire.Heartbeats, wire.None{})
}

func (r *Remote) AllChecks(ctx context.Context) ([]bus.Check, error) {
	return doCtx(ctx, r, wire.AllChecks, wire.None{})
}

func (r *Remote) MergeQueue(ctx context.Context) ([]bus.QueueEntry, error) {
	return doCtx(ctx, r, wire.MergeQueue, wire.None{})
}

func (r *Remote) Reviews(ctx context.Context, id string) ([]bus.Review, error) {
	return doCtx(ctx, r, wire.Reviews, wire.IDParams{ID: id})
}

// CreateTask creates a task from whoever this process is; t.CreatedBy is
// not sent.
func (r *Remote) CreateTask(ctx context.Context, t bus.NewTask) (bus.Task, error) {
	return doCtx(ctx, r, wire.CreateTask, wire.NewTaskParams{Title: t.Title, Description: t.Description, Assignee: t.Assignee})
}

func (r *Remote) Approve(ctx context.Context, id, note string) (bus.Task, error) {
	return doCtx(ctx, r, wire.Approve, wire.NoteParams{ID: id, Note: note})
}

func (r *Remote) RequestChanges(ctx context.Context, id, note string) (bus.Task, error) {
	return doCtx(ctx, r, wire.RequestChanges, wire.NoteParams{ID: id, Note: note})
}

func (r *Remote) Cancel(ctx context.Context, id, note string) (bus.Task, error) {
	return doCtx(ctx, r, wire.Cancel, wire.NoteParams{ID: id, Note: note})
}

func (r *Remote) Retry(ctx context.Context, id, note string) (bus.Task, error) {
	return doCtx(ctx, r, wire.Retry, wire.NoteParams{ID: id, Note: note})
}

func (r *Remote) Merge(ctx context.Context, id string) (bus.Task, error) {
	return doCtx(ctx, r, wire.Merge, wire.IDParams{ID: id})
}

func (r *Remote) Prune(ctx context.Context, dryRun bool) ([]tasks.Pruned, error) {
	res, err := doCtx(ctx, r, wire.Prune, wire.PruneParams{DryRun: dryRun})
	out := make([]tasks.Pruned, len(res))
	for i, p := range res {
		out[i] = tasks.Pruned{Task: p.Task, Deleted: p.Deleted}
		if p.Kept != "" {
			out[i].Kept = errors.New(p.Kept)
		}
	}
	return out, err
}

func (r *Remote) Review(ctx context.Context, id string) (stat, diff string, err error) {
	res, err := doCtx(ctx, r, wire.Review, wire.IDParams{ID: id})
	return res.Stat, res.Diff, err
}

// Events is the swarm's event stream over a connection of its own.
type Events struct {
	mu   sync.Mutex
	c    net.Conn // the current connection
	ch   chan swarmapi.Event
	quit chan struct{} // closed by Close
	once sync.Once
	done chan struct{} // closed when the reader has ended
}

// Subscribe opens the swarm's event stream. If it cannot be opened, the
// stream is closed at once, as it is when the swarm goes. When the
// stream's connection ends while the swarm goes on, it is opened again,
// and what may have been missed meanwhile is made up for by a notice of
// each kind that makes a UI read everything again; so too when the swarm
// dropped events this client was too slow to take. A message's body
// comes cut, as lists of messages carry it.
func (r *Remote) Subscribe() *Events {
	e := &Events{ch: make(chan swarmapi.Event, 256), quit: make(chan struct{}), done: make(chan struct{})}
	c, err := subscribe(r.busDir, r.program)
	if err != nil {
		close(e.ch)
		close(e.done)
		return e
	}
	e.setConn(c)
	go func() {
		defer close(e.done)
		defer close(e.ch)
		for {
			var f wire.EventFrame
			err := wire.ReadFrame(c, &f)
			var evs []swarmapi.Event
			switch {
			case err != nil:
				if isClosed(e.quit) {
					return
				}
				if c, err = r.resubscribe(e); err != nil {
					return // the swarm is gone
				}
				if !e.setConn(c) {
					c.Close()
					return
				}
				evs = r.resync("connected again")
			case f.Resync:
				evs = r.resync("this client fell behind the swarm's events: everything is read anew")
			case f.Event != nil:
				evs = []swarmapi.Event{swarmapi.Event(*f.Event)}
			}
			for _, ev := range evs {
				if !e.send(ev) {
					return
				}
			}
		}
	}()
	return e
}

// refusedRetry is how often a stream the swarm refused tries again.
const refusedRetry = time.Second

// resubscribe opens e's stream again. While the swarm refuses the
// connection (it serves as many as it takes), it says so once on e and
// tries again until the swarm takes it, goes, or e is closed.
func (r *Remote) resubscribe(e *Events) (net.Conn, error) {
	told := false
	for {
		c, err := subscribe(r.busDir, r.program)
		if !errors.Is(err, ErrRefused) {
			return c, err
		}
		if !told {
			told = true
			if !e.send(swarmapi.Event{Kind: swarmapi.EventNotice, Time: time.Now(), Agent: bus.Swarm,
				Text: err.Error() + " (this client tries again)"}) {
				return nil, err
			}
		}
		select {
		case <-e.quit:
			return nil, err
		case <-time.After(refusedRetry):
		}
	}
}

// resync returns the events that make a UI read again all it shows,
// after a notice saying why.
func (r *Remote) resync(why string) []swarmapi.Event {
	now := time.Now()
	evs := []swarmapi.Event{{Kind: swarmapi.EventNotice, Time: now, Agent: bus.Swarm, Text: why}}
	for _, a := range r.Agents() {
		evs = append(evs,
			swarmapi.Event{Kind: swarmapi.EventLevel, Time: now, Agent: a.Name, Level: a.Level},
			swarmapi.Event{Kind: swarmapi.EventScreen, Time: now, Agent: a.Name})
	}
	return append(evs, swarmapi.Event{Kind: swarmapi.EventTask, Time: now})
}

// send hands ev over, false once Close has begun.
func (e *Events) send(ev swarmapi.Event) bool {
	select {
	case e.ch <- ev:
		return true
	case <-e.quit:
		return false
	}
}

// setConn makes c the stream's connection, false once Close has begun.
func (e *Events) setConn(c net.Conn) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if isClosed(e.quit) {
		return false
	}
	e.c = c
	return true
}

// subscribe opens a connection and turns it into an event stream.
func subscribe(busDir, program string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	c, _, err := dialed(handshake(ctx, busDir, program))
	if err != nil {
		return nil, err
	}
	_ = c.SetDeadline(time.Now().Add(callTimeout))
	var reply wire.Reply
	err = wire.WriteFrame(c, wire.Request{ID: 1, Method: wire.MethodSubscribe})
	if err == nil {
		err = wire.ReadFrame(c, &reply)
	}
	if err == nil && reply.Error != "" {
		err = errors.New(reply.Error)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	_ = c.SetDeadline(time.Time{})
	return c, nil
}

// Events returns the channel the events arrive on.
func (e *Events) Events() <-chan swarmapi.Event { return e.ch }

// Close ends the stream and waits for its reader.
func (e *Events) Close() {
	e.once.Do(func() {
		e.mu.Lock()
		close(e.quit)
		if e.c != nil {
			e.c.Close()
		}
		e.mu.Unlock()
	})
	<-e.done
}

// Peek returns an agent's current screen as plain text.
func (r *Remote) Peek(ctx context.Context, agent string) (wire.PeekResult, error) {
	return doCtx(ctx, r, wire.Peek, wire.PeekParams{Agent: agent})
}
