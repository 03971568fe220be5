// Package server serves a running swarm on its socket, .swarm/swarm.sock,
// in the protocol of package wire, and is that socket's client in other
// processes.
//
// The socket is the running swarm's door for other programs on the
// machine: the terminal UI attached to it (Remote, the UI's Swarm over
// the socket: server.go, remote.go, methods.go, screens.go, sizes.go),
// `swarm peek` (an agent can look at another's screen), `swarm stop`,
// `swarm ls` (registry.go), and the command line's requests that act as
// their caller (Actor). It is made for the swarm's own user only: the
// file is 0600 in the 0700 bus directory, and the server refuses a
// connection from another user (SO_PEERCRED). Among that user's
// processes, an agent is not the human: who calls is judged from the
// process the kernel names, and the human's methods are refused to an
// agent (callers.go).
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"swarm/bus"
	"swarm/supervisor"
	"swarm/wire"
)

// SocketName is the socket's file name in the bus directory.
const SocketName = "swarm.sock"

// Options say who the server is and what it may do.
type Options struct {
	// Program names this swarm in the handshake ("swarm 1.2.3").
	Program string
	// Dir is the project the swarm runs in (its config file's directory),
	// as swarm ls shows it.
	Dir string
	Log *slog.Logger
	// Stop ends the swarm (its agents, then the server): what a client's
	// stop request does. Nil: stop requests are refused.
	Stop func()
	// Bus is the swarm's bus: who calls is judged on it
	// (supervisor.WhoIsCalling), and the command line's requests made
	// through the swarm (swarm send, task, heartbeat) act on it.
	Bus *bus.Bus
	// Elsewhere, when set, runs some of the swarm's agents on other
	// machines (elsewhere.go).
	Elsewhere Elsewhere
	// Upstream, when set, makes the command line's heartbeats and task
	// requests (add, move, review) elsewhere once this server has judged
	// who calls: a host's go to its main swarm, whose bus holds the
	// tasks (ActAs there). It gets the agent, wire's method name and
	// params, and returns the method's result as wire encodes it.
	Upstream func(ctx context.Context, agent, method string, params any) (json.RawMessage, error)
	// Held: the supervisor's agents have not started yet. The socket
	// listens and greets its clients at once, but their requests wait
	// until Open: a client that dials meanwhile (an agent that calls
	// swarm as soon as it starts) waits for the agents instead of being
	// told that no swarm runs, and is never answered about agents that
	// do not exist yet.
	Held bool
}

// Server answers requests on a swarm's socket until Close.
type Server struct {
	sup     *supervisor.Supervisor
	opts    Options
	log     *slog.Logger
	methods map[string]handler
	sizes   *sizes
	screens *screens
	clients *clients      // the UIs attached (idle.go)
	lastID  atomic.Uint64 // numbers the connections
	ln      net.Listener
	path    string
	ctx     context.Context // ends at Close: requests in flight are cancelled
	cancel  context.CancelFunc
	opened  chan struct{} // closed once requests are answered (Open)
	open    sync.Once

	mu    sync.Mutex
	conns map[net.Conn]bool
	// maxConns is how many connections are served at once (a test
	// lowers it to have a client refused).
	maxConns int
	wg       sync.WaitGroup
}

// Listen opens the socket in busDir (replacing one a killed swarm left:
// the caller holds the directory's lock) and serves sup on it.
func Listen(busDir string, sup *supervisor.Supervisor, opts Options) (*Server, error) {
	if opts.Bus == nil {
		return nil, errors.New("serve the socket: no bus to judge callers on")
	}
	busDir, err := filepath.Abs(busDir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(busDir, SocketName)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("remove the old socket: %w", err)
	}
	ln, err := listenUnix(path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	s := &Server{sup: sup, opts: opts, log: opts.Log, screens: newScreens(), ln: ln, path: path, conns: map[net.Conn]bool{}, maxConns: maxConns,
		opened: make(chan struct{})}
	if !opts.Held {
		s.open.Do(func() { close(s.opened) })
	}
	s.sizes = newSizes(func(name string, rows, cols int) error { return s.of(name).Resize(name, rows, cols) })
	s.methods = s.table()
	note := Running{Dir: opts.Dir, BusDir: busDir, Pid: os.Getpid(), Started: time.Now()}
	s.clients = newClients(note)
	if err := register(note); err != nil {
		opts.Log.Warn("swarm ls will not list this swarm", "err", err)
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Open answers the requests of a Held server, those that wait and those
// to come, once its supervisor has started the agents. elsewhere, when
// not nil, is what Options.Elsewhere would have been (a cluster starts
// after the agents, so after the socket). Open does nothing on a server
// that is open.
func (s *Server) Open(elsewhere Elsewhere) {
	s.open.Do(func() {
		if elsewhere != nil {
			s.opts.Elsewhere = elsewhere
		}
		close(s.opened)
	})
}

// Close stops listening, ends every connection, waits for their
// goroutines and removes the socket file.
func (s *Server) Close() error {
	err := s.ln.Close()
	s.cancel()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	unregister(filepath.Dir(s.path))
	if rerr := os.Remove(s.path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		err = errors.Join(err, rerr)
	}
	return err
}

// Limits of the socket: how many connections it serves at once (they are
// all its user's: others are refused), how long a client has to say
// hello, and how many of a connection's requests run at once (the next
// wait to be read).
const (
	maxConns         = 128
	handshakeTimeout = 10 * time.Second
	maxInFlight      = 32
)

// Accept errors (descriptors exhausted, a client gone before it was
// taken) are waited out, from acceptFirstWait doubling up to acceptMaxWait.
const (
	acceptFirstWait = 5 * time.Millisecond
	acceptMaxWait   = time.Second
)

func (s *Server) accept() {
	defer s.wg.Done()
	var wait time.Duration
	for {
		c, err := s.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			wait = min(max(2*wait, acceptFirstWait), acceptMaxWait)
			s.log.Warn("socket: cannot accept a connection; trying again", "err", err, "in", wait)
			select {
			case <-time.After(wait):
				continue
			case <-s.ctx.Done():
				return
			}
		}
		wait = 0
		pid, err := sameUser(c)
		if err != nil {
			s.log.Warn("socket: connection refused", "err", err)
			c.Close()
			continue
		}
		cl := &client{id: s.lastID.Add(1)}
		cl.proc, _ = supervisor.ProcessOf(pid)
		c = &countingConn{Conn: c, since: time.Now(), client: cl}
		s.mu.Lock()
		if s.ctx.Err() != nil { // Close has begun
			s.mu.Unlock()
			c.Close()
			return
		}
		served, capacity := len(s.conns), s.maxConns
		s.conns[c] = true
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			defer func() {
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
				c.Close()
			}()
			var refused string
			if served >= capacity {
				refused = fmt.Sprintf("it serves %d connections already, as many as it takes: end some of its clients (UIs attached, scripts) and try again", served)
				s.log.Warn("socket: connection refused", "why", refused)
			}
			// A client that hangs up ends its connection (io.EOF), as
			// does Close; anything else is worth saying.
			err := s.serve(c, refused)
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				err = nil
			}
			cc := c.(*countingConn)
			s.log.Info("socket: connection ended", "err", err, "seconds", time.Since(cc.since).Seconds(),
				"bytes_in", cc.in.Load(), "bytes_out", cc.out.Load())
		}()
	}
}

// serve runs one connection: the handshake, then the requests, each in a
// goroutine of its own (a merge may take seconds; the screens asked for
// meanwhile are not held up), until the connection ends (the error says
// how). A connection refused (the reason said in the server's Hello) is
// served a stop request only.
func (s *Server) serve(c net.Conn, refused string) error {
	_ = c.SetDeadline(time.Now().Add(handshakeTimeout))
	var hello wire.Hello
	if err := wire.ReadFrame(c, &hello); err != nil {
		return err
	}
	if err := wire.WriteFrame(c, wire.Hello{Version: wire.Version, Program: s.opts.Program, Refused: refused}); err != nil {
		return err
	}
	if refused == "" {
		_ = c.SetDeadline(time.Time{})
	}
	// A client of another version learns it from our Hello; the one
	// request it may still make is stop, so that any swarm can stop any
	// (and a client refused, so that a swarm can be stopped whatever
	// holds its connections).
	mismatch := wire.CheckHello(hello)
	cl := &client{}
	if cc, ok := c.(*countingConn); ok {
		cl = cc.client
	}
	ctx := context.WithValue(s.ctx, clientKey{}, cl)
	defer s.sizes.gone(cl.id)
	defer s.screens.gone(cl.id)
	var (
		writeMu  sync.Mutex
		inFlight sync.WaitGroup
		slots    = make(chan struct{}, maxInFlight)
	)
	defer inFlight.Wait()
	// A reply too large for a frame is an error the client is told; a
	// client that does not take its replies is dropped, as one that does
	// not take its events is.
	reply := func(r wire.Reply) error {
		writeMu.Lock()
		defer writeMu.Unlock()
		_ = c.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		err := wire.WriteFrame(c, r)
		if errors.Is(err, wire.ErrFrameTooLarge) {
			err = wire.WriteFrame(c, wire.Reply{ID: r.ID, Code: codeOf(ErrTooLarge),
				Error: fmt.Sprintf("%v (%d MiB, over the %d MiB a reply may be): ask for less", ErrTooLarge, len(r.Result)>>20, wire.MaxFrame>>20)})
		}
		if err != nil {
			c.Close() // the read loop ends too
		}
		return err
	}
	for {
		var req wire.Request
		if err := wire.ReadFrame(c, &req); err != nil {
			return err
		}
		if refused == "" && mismatch == nil {
			select {
			case <-s.opened:
			case <-s.ctx.Done(): // closed before its agents started
				return net.ErrClosed
			}
		}
		switch {
		case refused != "" && req.Method != wire.MethodStop:
			return nil
		case mismatch != nil && req.Method != wire.MethodStop:
			if err := reply(wire.Reply{ID: req.ID, Error: mismatch.Error()}); err != nil {
				return err
			}
			continue
		case req.Method == wire.MethodSubscribe:
			if err := reply(wire.Reply{ID: req.ID}); err != nil {
				return err
			}
			return s.stream(c)
		case req.Method == wire.MethodStop:
			if s.opts.Stop == nil {
				_ = reply(wire.Reply{ID: req.ID, Error: "this swarm cannot be stopped from its socket"})
				continue
			}
			if err := s.mustBeHuman(ctx, "stop"); err != nil {
				_ = reply(wire.Reply{ID: req.ID, Error: err.Error(), Code: codeOf(err)})
				continue
			}
			if err := reply(wire.Reply{ID: req.ID}); err != nil {
				return err
			}
			s.log.Info("socket: stop requested")
			s.opts.Stop()
			// The connection ends with the server, after the agents: the
			// client learns from it that the swarm has stopped.
			<-s.ctx.Done()
			return net.ErrClosed
		}
		slots <- struct{}{} // the next request waits for a slot
		inFlight.Add(1)
		go func() {
			defer inFlight.Done()
			defer func() { <-slots }()
			r := wire.Reply{ID: req.ID}
			result, err := s.handle(ctx, req)
			if err == nil {
				r.Result, err = json.Marshal(result)
			}
			if err != nil {
				r.Error, r.Code = err.Error(), codeOf(err)
			}
			_ = reply(r)
		}()
	}
}

func (s *Server) handle(ctx context.Context, req wire.Request) (any, error) {
	h, ok := s.methods[req.Method]
	if !ok {
		return nil, fmt.Errorf("unknown method %q (this swarm is %s)", req.Method, s.opts.Program)
	}
	if h.who == human {
		if err := s.mustBeHuman(ctx, req.Method); err != nil {
			return nil, err
		}
	}
	return h.call(ctx, req.Params)
}

// ErrNotRunning is returned by Dial when no swarm serves the directory.
var ErrNotRunning = errors.New("no swarm is running")

// Client is a connection to a running swarm. It is safe for concurrent
// use: requests go out as they are made and each waits for its reply.
type Client struct {
	c      net.Conn
	Server wire.Hello // the swarm's handshake

	writeMu sync.Mutex
	mu      sync.Mutex
	nextID  uint64
	waiting map[uint64]chan wire.Reply
	err     error         // why the connection ended, once it has
	done    chan struct{} // closed when the reader goroutine ends
}

// Dial connects to the swarm serving busDir, program naming the caller.
func Dial(ctx context.Context, busDir, program string) (*Client, error) {
	c, hello, err := dialed(handshake(ctx, busDir, program))
	if err != nil {
		return nil, err
	}
	cl := &Client{c: c, Server: hello, waiting: map[uint64]chan wire.Reply{}, done: make(chan struct{})}
	go cl.read()
	return cl, nil
}

// handshake connects to the swarm serving busDir and exchanges Hellos.
func handshake(ctx context.Context, busDir, program string) (net.Conn, wire.Hello, error) {
	var hello wire.Hello
	path := filepath.Join(busDir, SocketName)
	c, err := dialUnix(ctx, path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errConnRefused) {
			return nil, hello, fmt.Errorf("%w for %s (swarm up starts one)", ErrNotRunning, busDir)
		}
		return nil, hello, fmt.Errorf("connect to %s: %w", path, err)
	}
	if deadline, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(deadline)
	}
	err = wire.WriteFrame(c, wire.Hello{Version: wire.Version, Program: program})
	if err == nil {
		err = wire.ReadFrame(c, &hello)
	}
	if err != nil {
		c.Close()
		return nil, hello, fmt.Errorf("the swarm of %s: %w", busDir, err)
	}
	// In both cases the connection stays open: a stop may still be sent
	// on it.
	if hello.Refused != "" {
		return c, hello, stopOnly{refusal{fmt.Sprintf("the swarm of %s refused the connection: %s", busDir, hello.Refused)}}
	}
	if err := wire.CheckHello(hello); err != nil {
		return c, hello, stopOnly{fmt.Errorf("the swarm of %s: %w", busDir, err)}
	}
	_ = c.SetDeadline(time.Time{})
	return c, hello, nil
}

// ErrRefused is a connection the swarm refused because it serves as many
// as it takes: it may take one later, once a client ends.
var ErrRefused = errors.New("the swarm refused the connection")

// refusal reads as the swarm's words and matches ErrRefused.
type refusal struct{ msg string }

func (e refusal) Error() string        { return e.msg }
func (e refusal) Is(target error) bool { return target == ErrRefused }

// stopOnly is a handshake after which the swarm takes only a stop: one of
// another protocol version, or one that refused the connection.
type stopOnly struct{ error }

func (e stopOnly) Unwrap() error { return e.error }

// dialed is handshake for callers that take only a swarm of their own
// version.
func dialed(c net.Conn, hello wire.Hello, err error) (net.Conn, wire.Hello, error) {
	if err != nil && c != nil {
		c.Close()
		c = nil
	}
	return c, hello, err
}

// ErrGone is returned by requests once the connection has ended.
var ErrGone = errors.New("the swarm is gone")

// read hands each reply to the request waiting for it, until the
// connection ends; then every request still waiting fails.
func (cl *Client) read() {
	defer close(cl.done)
	for {
		var r wire.Reply
		if err := wire.ReadFrame(cl.c, &r); err != nil {
			cl.mu.Lock()
			cl.err = fmt.Errorf("%w (%v)", ErrGone, err)
			for id, ch := range cl.waiting {
				close(ch)
				delete(cl.waiting, id)
			}
			cl.mu.Unlock()
			return
		}
		cl.mu.Lock()
		ch := cl.waiting[r.ID]
		delete(cl.waiting, r.ID)
		cl.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
}

// Close ends the connection and waits for its reader.
func (cl *Client) Close() error {
	err := cl.c.Close()
	<-cl.done
	return err
}

// Done is closed when the connection has ended.
func (cl *Client) Done() <-chan struct{} { return cl.done }

// call sends a request and decodes its reply's result into result.
func (cl *Client) call(ctx context.Context, method string, params, result any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	ch := make(chan wire.Reply, 1)
	cl.mu.Lock()
	if cl.err != nil {
		cl.mu.Unlock()
		return cl.err
	}
	cl.nextID++
	id := cl.nextID
	cl.waiting[id] = ch
	cl.mu.Unlock()
	cl.writeMu.Lock()
	err = wire.WriteFrame(cl.c, wire.Request{ID: id, Method: method, Params: raw})
	cl.writeMu.Unlock()
	if err != nil {
		cl.forget(id)
		return fmt.Errorf("%w (%v)", ErrGone, err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			cl.mu.Lock()
			defer cl.mu.Unlock()
			return cl.err
		}
		if r.Error != "" {
			return &remoteError{msg: r.Error, sentinel: sentinels[r.Code]}
		}
		if result == nil {
			return nil
		}
		return json.Unmarshal(r.Result, result)
	case <-ctx.Done():
		cl.forget(id)
		return ctx.Err()
	}
}

func (cl *Client) forget(id uint64) {
	cl.mu.Lock()
	delete(cl.waiting, id)
	cl.mu.Unlock()
}

// Stop asks the swarm serving busDir, of whatever version, to stop every
// agent and end, and returns once it has (its socket closes last).
func Stop(ctx context.Context, busDir, program string) error {
	c, _, err := handshake(ctx, busDir, program)
	var only stopOnly
	if errors.As(err, &only) {
		err = nil // stop is the request every swarm takes
	}
	if err != nil {
		return err
	}
	defer c.Close()
	if deadline, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(deadline)
	}
	var reply wire.Reply
	err = wire.WriteFrame(c, wire.Request{ID: 1, Method: wire.MethodStop})
	if err == nil {
		err = wire.ReadFrame(c, &reply)
	}
	if err == nil && reply.Error != "" {
		err = errors.New(reply.Error)
	}
	if err != nil {
		return fmt.Errorf("stop the swarm of %s: %w", busDir, err)
	}
	// The swarm ends its agents, then closes its socket.
	var next wire.Reply
	if err := wire.ReadFrame(c, &next); errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("the swarm of %s was asked to stop and still runs", busDir)
	}
	return nil
}

// countingConn counts the bytes a connection carries, for the log (what
// a client costs on the socket).
type countingConn struct {
	net.Conn
	client  *client
	since   time.Time
	in, out atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.in.Add(int64(n))
	return n, err
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.out.Add(int64(n))
	return n, err
}
